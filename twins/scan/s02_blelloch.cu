// Twin of kernels/src/scan/s02_blelloch.rs (step s02): Blelloch's work-efficient scan of a
// 512-element tile, two elements per thread: an up-sweep builds a tree of partial sums in
// shared memory, the down-sweep turns it into the exclusive scan. The tile scan is
// scan.cuh's blelloch_tile<E, Layout> (s03 runs it too), here on the Unpadded layout; the
// totals and the propagation are s01's.
//
// Launch: s02::THREADS (256) threads, one block per s02::TILE elements, Unpadded::WORDS
// (512) words of dynamic shared memory.
#include "scan.cuh"

// `Unpadded`: element i at word i.
struct Unpadded {
    static constexpr u32 WORDS = s02::TILE;
    static __device__ __forceinline__ u32 slot(u32 i) { return i; }
};

extern "C" __global__ void __launch_bounds__(s02::THREADS)
    s02_blelloch_i32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    blelloch_tile<I32, Unpadded>(input, output, n, sums, exclusive);
}
extern "C" __global__ void __launch_bounds__(s02::THREADS)
    s02_blelloch_f32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    blelloch_tile<F32, Unpadded>(input, output, n, sums, exclusive);
}
