// Twin of kernels/src/gemm/w06_setmaxnreg.rs (step w06): w05 with a whole producer
// warpgroup, which hands most of its registers to the two consumer warpgroups (setmaxnreg).
// The first twin on hopper_gemm.cuh: w05's pieces under their Rust names (gemm::hopper).
//
// Launch as the Rust step: 384 threads, w06::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A, B, C.
#include "hopper_gemm.cuh"

namespace w06 {
using namespace hopper;

// common::gemm::w06: w05's tiles, stages and boxes; a whole producer warpgroup (384 threads)
// and its register split.
struct Constants {
    static constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, STAGE_BYTES = (BM * BK + BK * BN) * 2;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B (16-bit) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
using W06 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

// C = A * B as w05 computes it, with the registers moved from producer to consumers.
template <bool BF16>
__device__ __forceinline__ void reallocating_gemm(const void* a_map, const void* b_map, const void* c_map,
                                                  unsigned m, unsigned n, unsigned k) {
    using S = W06;
    const SharedLayout<S> smem;
    const unsigned tid = threadIdx.x;
    const unsigned k_tiles = div_ceil(k, S::BK);
    const Units<S> units(m, n);

    if (tid == 0) smem.init_barriers();
    // The partner's copies complete on this block's "full" barriers and its consumers arrive on
    // the "empty" ones: both blocks' barriers must exist before either starts.
    cluster_sync();

    if (is_producer<S>(tid / WARPGROUP)) {
        release_registers<S::PRODUCER_REGISTERS>();
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
        claim_registers<S::CONSUMER_REGISTERS>();
        const unsigned lane = tid % WARP_SIZE;
        // Stage s is free in this warp: lane 0 tells both blocks of the pair.
        const auto release = consumer_release(lane, smem);
        const Consumer<S, BF16> consumer(smem, tid);
        PipelineState<S> state;
        for (unsigned unit = cluster_idx(); unit < units.count(); unit += cluster_count()) {
            const Origin origin = units.origin(unit);
            M64n256 acc = M64n256::zeroed();
            const Epilogue<S> epilogue(smem, c_map, tid);
            // The whole warpgroup, in step with the producer; then w05's epilogue.
            consumer.mma_k_tiles(state, 0, k_tiles, acc, release);
            epilogue.store_tile(acc, origin);
        }
        // C's last boxes are written before the block exits.
        wait_written(tid);
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

}  // namespace w06

extern "C" __global__ void __launch_bounds__(w06::THREADS)
w06_setmaxnreg_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w06::reallocating_gemm<false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(w06::THREADS)
w06_setmaxnreg_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w06::reallocating_gemm<true>(a_map, b_map, c_map, m, n, k);
}
