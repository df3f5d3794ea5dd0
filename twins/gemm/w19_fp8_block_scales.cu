// Twin of kernels/src/gemm/w19_fp8_block_scales.rs (step w19): w15 with the DeepSeek-V3
// Technical Report's per-block scales, one f32 per row of A and 128 k values, one per 128 x 128
// block of B. A k tile is one block of k and a half tile's columns one block of B, so each
// half's partial sums are multiplied by their row's scale_a * scale_b in the instruction that
// adds them into the f32 accumulators (an fma where w15 has an add). The epilogue scales
// nothing.
//
// Scales' layouts: A's ceil(K/128) x M row-major, B's ceil(N/128) x ceil(K/128) row-major.
// Launch as the Rust step: as w14, with the two scale arrays last.
#include "fp8_gemm.cuh"

namespace w19 {
using namespace hopper;

// common::gemm::w19: w15's constants; a scale covers SCALE_BLOCK k values (and B's columns).
using Constants = w14::Constants;
constexpr unsigned THREADS = Constants::THREADS;
constexpr unsigned SCALE_BLOCK = 128;
static_assert(Constants::BK == SCALE_BLOCK && w15::PARTIAL_COLUMNS == SCALE_BLOCK,
              "a k tile is one k block, a half tile one column block of B");
using W19 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// Rows of a warp's slice of its warpgroup's 64, and the distance between a thread's two rows.
constexpr unsigned WARP_ROWS = 16, HALF_ROWS = 8;

// The per-block scales of one product (no per-tensor factor: the epilogue multiplies by nothing).
struct BlockScales {
    static constexpr bool BLOCKS = true;
    const float* a;  // ceil(K/128) x M
    const float* b;  // ceil(N/128) x ceil(K/128)
    unsigned m, n_blocks, k_blocks;
    __device__ __forceinline__ Factor factor() const { return Factor{}; }
    // Row `row` of A in k block kb; a row past M reads the last row's (its outputs are clipped
    // by the store), with no branch between a wgmma's issue and its wait.
    __device__ __forceinline__ float a_scale(unsigned row, unsigned kb) const {
        return a[(size_t)kb * m + (row < m ? row : m - 1)];
    }
    // B's column block `block` in k block kb; a block past N reads the last one's.
    __device__ __forceinline__ float b_scale(unsigned block, unsigned kb) const {
        return b[(size_t)(block < n_blocks ? block : n_blocks - 1) * k_blocks + kb];
    }
};

// w15's main loop with each half's partial scaled on its way into acc.
struct BlockScaledMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release, Origin origin, const BlockScales& scales) {
        using S = W19;
        const auto& smem = consumer.smem;
        const unsigned tid = threadIdx.x;
        // This thread's two rows of C and the tile's first column block.
        const unsigned warp_row =
            origin.row0 + tid / WARPGROUP * WARPGROUP_ROWS + tid % WARPGROUP / WARP_SIZE * WARP_ROWS;
        const unsigned rows[2] = {warp_row + tid % WARP_SIZE / 4, warp_row + tid % WARP_SIZE / 4 + HALF_ROWS};
        const unsigned block = origin.col0 / SCALE_BLOCK;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        for (unsigned kb = 0; kb < k_tiles; ++kb) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
            float a_scale[2], b_scale[2];
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                w15::issue_half<S>(consumer, s, half, partial);
                wgmma_commit_group();
                if (half == 0) {
                    // The k block's scales, loaded while the first half's wgmma run: not before,
                    // where the wgmma.fence of the issue would wait for them.
                    a_scale[0] = scales.a_scale(rows[0], kb);
                    a_scale[1] = scales.a_scale(rows[1], kb);
                    b_scale[0] = scales.b_scale(block, kb);
                    b_scale[1] = scales.b_scale(block + 1, kb);
                }
                wgmma_wait_group<0>();
                // The promotion, scaled: registers 4j, 4j+1 are row g, 4j+2, 4j+3 row g + 8.
                const float factors[2] = {a_scale[0] * b_scale[half], a_scale[1] * b_scale[half]};
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) {
                    float& sum = acc[half * M64N128_ACC + i];
                    sum = fmaf(partial[i], factors[i % 4 / 2], sum);
                }
            }
            release(s);
            state.advance();
        }
    }
};

}  // namespace w19

// The input type is the shape's; the kernel's f16/bf16 flag is unused.
extern "C" __global__ void __launch_bounds__(w19::THREADS)
w19_fp8_block_scales_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                          unsigned k, const float* a_scales, const float* b_scales) {
    const w19::BlockScales scales{a_scales, b_scales, m, (n + w19::SCALE_BLOCK - 1) / w19::SCALE_BLOCK,
                                  (k + w19::SCALE_BLOCK - 1) / w19::SCALE_BLOCK};
    w08::trimmed_gemm<w19::W19, false, w19::BlockScaledMainLoop>(a_map, b_map, c_map, m, n, k, scales);
}
