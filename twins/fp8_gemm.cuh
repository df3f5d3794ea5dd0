// twins/fp8_gemm.cuh: what the FP8 steps' twins share, as their Rust shares it: the constants of
// w14's 128 x 256 tile of 8-bit inputs (common::gemm::w14, which w15-w20 reuse), and w15's issue of
// one column half of a k tile into a partial tile (w15_fp8_promoted.rs issue_half, which w17,
// w19 and w20 reuse), its promoting main loop (mma_k_tiles_promoted, which w20, w21 and w23
// reuse), w22's (mma_k_tiles_full_partial, which w23 reuses) and w24's walk over the units with
// each tile's store under the next tile's first k tile (units_with_overlapped_stores, which w25
// reuses). A header because NVRTC hands a twin no other file than the headers twins/*.cuh.
#pragma once
#include "trimmed_gemm.cuh"

namespace w14 {
using namespace hopper;

// common::gemm::w14: w06's block, tiles and stages; 8-bit boxes.
struct Constants {
    static constexpr unsigned BM = 128, BN = 256, BK = 128, STAGES = 4, STAGE_BYTES = BM * BK + BN * BK;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B^T (8-bit: 128 k values, rows) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = BK, A_BOX_Y = BM, B_BOX_X = BK, B_BOX_Y = BN / 2, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
}  // namespace w14

namespace w15 {
using namespace hopper;

// common::gemm::w15::PARTIAL_COLUMNS: a partial sum is half the tile's columns.
constexpr unsigned PARTIAL_COLUMNS = w14::Constants::BN / 2;

// Issues the four wgmma m64n128k32 of column half `half` of the k tile in stage s into `partial`
// (the first overwrites it), after the fence that keeps them behind the previous additions'
// reads of `partial`; the caller commits them as a group. The whole warpgroup calls it, with the
// stage full until the group has finished. e4m3 x e5m2 where the shape's B is e5m2 (w20).
template <class S, class C>
__device__ __forceinline__ void issue_half(const C& consumer, unsigned s, unsigned half, M64n128& partial) {
    const auto& smem = consumer.smem;
    wgmma_fence();
#pragma unroll
    for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
        const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
        const unsigned long long a_desc = consumer.a_descriptor(s, kk);
        // B^T's columns are 128-byte rows: this half starts PARTIAL_COLUMNS rows on.
        const unsigned long long b_desc =
            descriptor(smem.b_stage(s) + half * PARTIAL_COLUMNS * ROW_BYTES + step_bytes, 0, ATOM_BYTES);
        if constexpr (S::B_E5M2) {
            mma_m64n128k32_e4m3_e5m2(partial.r, a_desc, b_desc, kk != 0);
        } else {
            mma_m64n128k32_e4m3(partial.r, a_desc, b_desc, kk != 0);
        }
    }
}

// w15's main loop (mma_k_tiles_promoted, which w20 and w21 run on their shapes S, and w23 with
// PROBE) over a unit's k tiles into the f32 accumulators acc, promoting each k tile: wait until
// its stage is full (FullWaits); for each half of the columns, four wgmma into `partial` (the
// first overwrites it), a wait, and the additions; then release the stage.
template <class S, bool PROBE = false>
struct PromotedMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        const auto& smem = consumer.smem;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        FullWaits<S, PROBE> full;
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            full.wait(smem, s, state);
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                w15::issue_half<S>(consumer, s, half, partial);
                wgmma_commit_group();
                if (half == 1) full.probe_next(smem, state);
                wgmma_wait_group<0>();
                // The promotion: this half's 64 accumulators take the partial sums.
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) acc[half * M64N128_ACC + i] += partial[i];
            }
            release(s);
            state.advance();
        }
    }
};

}  // namespace w15

namespace w22 {
using namespace hopper;

// common::gemm::w22: w21's block, boxes of A and C and its four stages; 192 columns, B's boxes
// of 96 (a cluster pair's halves). F32Constants: the same with w15's f32 boxes of C (w23_f32,
// w24_f32).
struct F32Constants : w14::Constants {
    static constexpr unsigned BN = 192, STAGE_BYTES = BM * BK + BN * BK;
    static constexpr unsigned B_BOX_Y = BN / CLUSTER_M;
};
struct Constants : F32Constants {
    static constexpr unsigned C_BOX_X = 64;
    static_assert(C_BOX_X * C_BOX_Y * 2 == C_BOX_BYTES, "a bf16 box has the bytes of an f32 one");
};

// w22's main loop (mma_k_tiles_full_partial, which w23 runs with PROBE) over k tiles
// k_begin..k_end of a unit into the f32 accumulators acc, each k tile promoted whole: its four
// wgmma m64n192k32 issued into `partial` (issue_k_tile), one wait; release the stage; add the
// partial into acc.
template <class S, bool PROBE = false>
struct FullPartialMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n192& acc,
                                               const Release& release) {
        run_from(consumer, state, 0, k_tiles, acc, release);
    }

    template <class C, class State, class Release>
    __device__ __forceinline__ static void run_from(const C& consumer, State& state, unsigned k_begin,
                                                    unsigned k_end, M64n192& acc, const Release& release) {
        const auto& smem = consumer.smem;
        M64n192 partial = M64n192::zeroed();  // overwritten by each k tile's first wgmma
        FullWaits<S, PROBE> full;
        for (unsigned t = k_begin; t < k_end; ++t) {
            const unsigned s = state.index();
            issue_k_tile(consumer, state, s, full, partial);
            full.probe_next(smem, state);
            wgmma_wait_group<0>();
            release(s);
            // The promotion: the tile's 96 accumulators take the partial sums.
#pragma unroll
            for (unsigned i = 0; i < M64N192_ACC; ++i) acc[i] += partial[i];
            state.advance();
        }
    }

    // Waits until stage s (k tile `state`'s) is full, as `full` says, then issues its four wgmma
    // m64n192k32 into `partial`, the first overwriting it, and commits them.
    template <class C, class State, bool P>
    __device__ __forceinline__ static void issue_k_tile(const C& consumer, const State& state, unsigned s,
                                                        const FullWaits<S, P>& full, M64n192& partial) {
        const auto& smem = consumer.smem;
        full.wait(smem, s, state);
        wgmma_fence();
#pragma unroll
        for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
            const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
            const unsigned long long a_desc = consumer.a_descriptor(s, kk);
            // B^T's 192 columns are 128-byte rows; a k32 step is 32 bytes along each.
            const unsigned long long b_desc = descriptor(smem.b_stage(s) + step_bytes, 0, ATOM_BYTES);
            mma_m64n192k32_e4m3(partial.r, a_desc, b_desc, kk != 0);
        }
        wgmma_commit_group();
    }
};

}  // namespace w22

namespace w24 {
using namespace hopper;

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
