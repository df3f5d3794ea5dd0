// Twin of kernels/src/gemm/w24_fp8_overlap.rs (step w24): w23 on w22's 128 x 192 tile, with the
// consumers' walk over the units changed: once a tile's last k tile is promoted its partial is
// free, so the next tile's first k tile is issued into it, the finished tile is stored while those
// wgmma run, and the partial then becomes the next tile's sums (w22's main loop, probed, runs the
// rest of each tile from its second k tile).
//
// Launch as the Rust step: as w22 (both kernels; the f32 one with w15's boxes of C).
#include "fp8_gemm.cuh"

namespace w24 {
using namespace hopper;

// common::gemm::w24 (w23's, a bf16 C) and w24_f32 (w23_f32's).
using w22::Constants;
using w22::F32Constants;
constexpr unsigned THREADS = Constants::THREADS;
using W24 = Shape<Constants, M64n192, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;
using W24F32 = Shape<F32Constants, M64n192,
                     Reallocate<F32Constants::PRODUCER_REGISTERS, F32Constants::CONSUMER_REGISTERS>, E4m3>;

// units_with_overlapped_stores: k tiles 1... of each unit into acc (which holds k tile 0's
// sums); where a next unit exists, its k tile 0 issued into the partial, this tile stored, the
// wait, the stage released, the partial taken as the next tile's sums. With K = 0 every tile is
// stored as zeros.
template <class S>
struct OverlappedStores {
    static constexpr bool OWN = true;
    using Loop = w22::FullPartialMainLoop<S, true>;

    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, const Units<S>& units,
                                               unsigned k_tiles, const Release& release, const Epilogue<S>& epilogue,
                                               Factor factor) {
        unsigned unit = cluster_idx();
        if (k_tiles == 0) {
            for (; unit < units.count(); unit += cluster_count()) {
                epilogue.store_scaled_tile(M64n192::zeroed(), units.origin(unit), factor);
            }
            return;
        }
        if (unit >= units.count()) return;
        // The first unit's k tile 0, with nothing to store under it.
        M64n192 partial = M64n192::zeroed();
        unsigned s = issue_first_k_tile(consumer, state, partial);
        M64n192 acc = land(state, s, partial, release);
        for (;;) {
            const Origin origin = units.origin(unit);
            Loop::run_from(consumer, state, 1, k_tiles, acc, release);
            const unsigned next = unit + cluster_count();
            if (next >= units.count()) {
                epilogue.store_scaled_tile(acc, origin, factor);
                return;
            }
            // The next unit's k tile 0 runs on the tensor cores while this tile is stored.
            s = issue_first_k_tile(consumer, state, partial);
            epilogue.store_scaled_tile(acc, origin, factor);
            acc = land(state, s, partial, release);
            unit = next;
        }
    }

    // Issues the wgmma of k tile `state` (a unit's first) into `partial` once its stage is full;
    // returns the stage.
    template <class C, class State>
    __device__ __forceinline__ static unsigned issue_first_k_tile(const C& consumer, const State& state,
                                                                  M64n192& partial) {
        const unsigned s = state.index();
        Loop::issue_k_tile(consumer, state, s, FullWaits<S, false>{}, partial);
        return s;
    }

    // Waits for the wgmma into `partial`, releases stage s and moves the pipeline on: `partial`
    // is then a tile's sums.
    template <class State, class Release>
    __device__ __forceinline__ static M64n192 land(State& state, unsigned s, const M64n192& partial,
                                                   const Release& release) {
        wgmma_wait_group<0>();
        release(s);
        state.advance();
        return partial;
    }
};

}  // namespace w24

// C (bf16) = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w24::THREADS)
w24_fp8_overlap_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                     const float* scales) {
    w08::trimmed_gemm<w24::W24, false, w08::PlainMainLoop, hopper::ScalesAt, w24::OverlappedStores<w24::W24>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}

// The same with an f32 C.
extern "C" __global__ void __launch_bounds__(w24::THREADS)
w24_fp8_overlap_f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                         unsigned k, const float* scales) {
    w08::trimmed_gemm<w24::W24F32, false, w08::PlainMainLoop, hopper::ScalesAt, w24::OverlappedStores<w24::W24F32>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
