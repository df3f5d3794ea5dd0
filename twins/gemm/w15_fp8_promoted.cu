// Twin of kernels/src/gemm/w15_fp8_promoted.rs (step w15): w14 with each k tile's FP8 sums
// promoted into f32 registers. Per k tile and per half of the tile's columns, four wgmma
// m64n128k32 sum the tile's 128 k values into a fresh partial (the first with scale-d = 0), the
// warpgroup waits for them and adds the partial into that half of its f32 accumulators: the
// tensor cores' short additions never carry a long sum. The rest is w08's kernel on w14's shape.
//
// Launch as the Rust step: as w14.
#include "trimmed_gemm.cuh"

namespace w15 {
using namespace hopper;

// common::gemm::w15: w14's constants; a partial sum is half the tile's columns.
struct Constants {
    static constexpr unsigned BM = 128, BN = 256, BK = 128, STAGES = 4, STAGE_BYTES = BM * BK + BN * BK;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    static constexpr unsigned A_BOX_X = BK, A_BOX_Y = BM, B_BOX_X = BK, B_BOX_Y = BN / 2, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
constexpr unsigned PARTIAL_COLUMNS = Constants::BN / 2;
static_assert(2 * M64N128_ACC == PARTIAL_COLUMNS, "one m64n128 accumulator holds half the tile");
using W15 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// The main loop over a unit's k tiles into the f32 accumulators acc, promoting each k tile: wait
// until its stage is full; for each half of the columns, four wgmma into `partial` (the first
// overwrites it), a wait, and the additions; then release the stage.
struct PromotedMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        using S = W15;
        const auto& smem = consumer.smem;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                // The additions read `partial`: fence before wgmma writes it again.
                wgmma_fence();
#pragma unroll
                for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
                    const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
                    const unsigned long long a_desc = descriptor(
                        smem.a_stage(s) + consumer.warpgroup * WARPGROUP_ROWS * ROW_BYTES + step_bytes, 0, ATOM_BYTES);
                    // B^T's columns are 128-byte rows: this half starts PARTIAL_COLUMNS rows on.
                    const unsigned long long b_desc =
                        descriptor(smem.b_stage(s) + half * PARTIAL_COLUMNS * ROW_BYTES + step_bytes, 0, ATOM_BYTES);
                    mma_m64n128k32_e4m3(partial.r, a_desc, b_desc, kk != 0);
                }
                wgmma_commit_group();
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

// The input type is the shape's; the kernel's f16/bf16 flag is unused.
extern "C" __global__ void __launch_bounds__(w15::THREADS)
w15_fp8_promoted_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w15::W15, false, w15::PromotedMainLoop>(a_map, b_map, c_map, m, n, k);
}
