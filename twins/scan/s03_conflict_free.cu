// Twin of kernels/src/scan/s03_conflict_free.rs (step s03): s02's tree without bank
// conflicts: element i kept at word i + i / 32, one word of padding after every 32, so that
// the tree's power-of-two strides spread over the banks. Only the layout changes: the tile
// scan is s02's (scan.cuh's blelloch_tile), the launch and the propagation too.
//
// Launch: s03::THREADS (256) threads, one block per s03::TILE elements, Padded::WORDS
// (s03::PADDED = 528) words of dynamic shared memory.
#include "scan.cuh"

// `Padded`: element i at word i + i / 32.
struct Padded {
    static constexpr u32 WORDS = s03::PADDED;
    static __device__ __forceinline__ u32 slot(u32 i) { return i + i / 32; }
};

extern "C" __global__ void __launch_bounds__(s03::THREADS)
    s03_conflict_free_i32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    blelloch_tile<I32, Padded>(input, output, n, sums, exclusive);
}
extern "C" __global__ void __launch_bounds__(s03::THREADS)
    s03_conflict_free_f32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    blelloch_tile<F32, Padded>(input, output, n, sums, exclusive);
}
