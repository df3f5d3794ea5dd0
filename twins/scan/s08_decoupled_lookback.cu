// Twin of kernels/src/scan/s08_decoupled_lookback.rs (step s08): decoupled look-back (Merrill
// and Garland). A tile publishes its aggregate as soon as its block has summed it, then lane
// 0 walks back over its predecessors' words, adding aggregates, until it meets an inclusive
// prefix; a word not yet written is read again. The skeleton is s07's (scan.cuh's
// single_pass); only the look-back, Decoupled, changes.
//
// Launch: as s07: up to s08::THREADS (512) threads, one block per blockDim.x * ITEMS elements, no
// dynamic shared memory, s07's state.
#include "scan.cuh"

// `Decoupled`: lane 0 publishes the aggregate, then walks back one tile at a time.
template <class E>
struct Decoupled {
    static __device__ __forceinline__ typename E::Value prefix_before(u64* state, state::Claim claim,
                                                                      typename E::Value aggregate, u32) {
        using V = typename E::Value;
        if (lane_idx() != 0) return E::ZERO;
        state::publish(state, claim, status::AGGREGATE, E::to_bits(aggregate));
        V before = E::ZERO;
        u32 predecessor = claim.tile - 1;
        while (true) {
            const u64 word = state::read(state, predecessor);
            switch (status::kind(word, claim.epoch)) {
            case status::PREFIX:
                return E::add(E::from_bits(status::value(word)), before);
            case status::AGGREGATE:
                before = E::add(E::from_bits(status::value(word)), before);
                // Tile 0 publishes a prefix, never an aggregate: this stays a tile.
                predecessor -= 1;
                break;
            default:  // not written yet: read it again
                break;
            }
        }
    }
};

extern "C" __global__ void __launch_bounds__(s08::THREADS)
    s08_decoupled_lookback_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<I32, Decoupled, 0>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s08::THREADS)
    s08_decoupled_lookback_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<F32, Decoupled, 0>(input, output, n, state, exclusive, jitter);
}
