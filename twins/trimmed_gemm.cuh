// twins/trimmed_gemm.cuh: w08's kernel, trimmed_gemm<S, BF16>, which the twins of w08, w09 and w10
// instantiate for their shapes S, as the Rust writes it once in w08_latency_trims.rs
// (trimmed_gemm_for!) for W08, W09 and W10. A header because NVRTC hands a twin no other file than
// the headers twins/*.cuh; w08's card (twins/gemm/w08_latency_trims.cu and its Rust step) says
// what it changes over w06.
#pragma once
#include "hopper_gemm.cuh"

namespace w08 {
using namespace hopper;

// What a consumer warpgroup runs on a unit's k tiles: Consumer::mma_k_tiles (w15 brings its own
// main loop, with the same run; w19's run also takes the unit's origin and its block scales).
struct PlainMainLoop {
    template <class C, class State, class Acc, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, Acc& acc,
                                               const Release& release) {
        consumer.mma_k_tiles(state, 0, k_tiles, acc, release);
    }
};

// The consumers' default walk over the units (trimmed_gemm's own loop).
struct EachUnitFromZero {
    static constexpr bool OWN = false;
};

// C = A * B as w06 computes it, with shorter waits at entry and exit, for the shape S (its
// accumulators and register split included); launched with S's THREADS and SHARED_BYTES.
// The FP8 steps pass their per-tensor scales (ScalesAt) or block scales (w19), the 16-bit ones
// none. Walk is the consumers' walk over the units: EachUnitFromZero (each unit's tile summed
// from zero by MainLoop, then stored, written out below) or, as w24's, a Walk::run(consumer,
// state, units, k_tiles, release, epilogue, factor) of its own.
template <class S, bool BF16, class MainLoop = PlainMainLoop, class Scales = NoScales,
          class Walk = EachUnitFromZero>
__device__ __forceinline__ void trimmed_gemm(const void* a_map, const void* b_map, const void* c_map, unsigned m,
                                             unsigned n, unsigned k, Scales scales = {}) {
    const SharedLayout<S> smem;
    const unsigned tid = threadIdx.x;
    const unsigned k_tiles = div_ceil(k, S::BK);
    const Units<S> units(m, n);

    if (tid == S::PRODUCER_THREAD) {
        // The copy engine fetches each map from global memory before its first copy: start now.
        prefetch_tensor_map(a_map);
        prefetch_tensor_map(b_map);
        prefetch_tensor_map(c_map);
    }
    if (tid == 0) smem.init_barriers();
    // The partner's copies complete on this block's "full" barriers and its consumers arrive on
    // the "empty" ones: both blocks' barriers must exist before either starts (relaxed: the
    // fence in init_barriers released the initialization).
    cluster_sync_relaxed();

    if (is_producer<S>(tid / WARPGROUP)) {
        S::Registers::producer();
        // The producer warpgroup's first thread issues every copy.
        if (tid == S::PRODUCER_THREAD) {
            const Producer<S> producer(smem, a_map, b_map, units.rank);
            PipelineState<S> state;
            for (unsigned unit = cluster_idx(); unit < units.count(); unit += cluster_count()) {
                // Both blocks of the pair walk the same units.
                producer.load_k_tiles(state, units.origin(unit), 0, k_tiles);
            }
        }
    } else {
        S::Registers::consumers();
        const Factor factor = scales.factor();
        const unsigned lane = tid % WARP_SIZE;
        // Stage s is free in this warp: lane 0 tells both blocks of the pair.
        const auto release = consumer_release(lane, smem);
        const Consumer<S, BF16> consumer(smem, tid);
        PipelineState<S> state;
        if constexpr (Walk::OWN) {
            const Epilogue<S> epilogue(smem, c_map, tid);
            Walk::run(consumer, state, units, k_tiles, release, epilogue, factor);
        } else {
            for (unsigned unit = cluster_idx(); unit < units.count(); unit += cluster_count()) {
                const Origin origin = units.origin(unit);
                auto acc = S::Acc::zeroed();
                const Epilogue<S> epilogue(smem, c_map, tid);
                // The whole warpgroup, in step with the producer; then w05's epilogue.
                if constexpr (Scales::BLOCKS) {
                    MainLoop::run(consumer, state, k_tiles, acc, release, origin, scales);
                } else {
                    MainLoop::run(consumer, state, k_tiles, acc, release);
                }
                epilogue.store_scaled_tile(acc, origin, factor);
            }
        }
        // C's last boxes are read out of shared memory before the block exits.
        wait_read(tid);
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

}  // namespace w08
