// Twin of kernels/src/scan/s07_chained.rs (step s07): one pass. Each block claims a tile from
// a ticket counter (so it only ever waits for blocks that have started), scans it, waits for
// the previous tile's inclusive prefix, publishes its own and stores: the data read once and
// written once. The skeleton is scan.cuh's single_pass<E, LookBack> (s08 and s09 run it
// too); this step's look-back is Chained. Status words are 64 bits, written and read whole
// (st/ld.relaxed.gpu, inline PTX: state::publish and state::read), and carry the launch's
// epoch, so the state is zeroed once and never reset. The ticket is atomicAdd on a u64
// (atom.global.add.u64, relaxed at GPU scope as the Rust's atom.relaxed.gpu).
//
// Launch: up to s07::THREADS (512) threads, one block per blockDim.x * ITEMS elements, no dynamic
// shared memory; `state` holds state_words(blocks) u64, zeroed once at allocation, every
// launch on it with the same grid; `input` and `output` 16-byte aligned; `jitter` 0 but in
// tests.
#include "scan.cuh"

// `Chained`: lane 0 spins on the previous tile's word until it holds an inclusive prefix.
template <class E>
struct Chained {
    static __device__ __forceinline__ typename E::Value prefix_before(u64* state, state::Claim claim,
                                                                      typename E::Value, u32) {
        if (lane_idx() != 0) return E::ZERO;
        while (true) {
            const u64 word = state::read(state, claim.tile - 1);
            if (status::kind(word, claim.epoch) == status::PREFIX) return E::from_bits(status::value(word));
        }
    }
};

extern "C" __global__ void __launch_bounds__(s07::THREADS)
    s07_chained_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<I32, Chained, 0>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s07::THREADS)
    s07_chained_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<F32, Chained, 0>(input, output, n, state, exclusive, jitter);
}
