// Twin of kernels/src/gemm/w19_fp8_block_scales.rs (step w19): w15 with the DeepSeek-V3
// Technical Report's per-block scales, one f32 per row of A and 128 k values, one per 128 x 128
// block of B. A k tile is one block of k and a half tile's columns one block of B, so each
// half's partial sums are multiplied by their row's scale_a * scale_b in the instruction that
// adds them into the f32 accumulators (an fma where w15 has an add), the scales staged in
// shared memory one k tile ahead by each consumer warp (cp.async). The epilogue scales nothing.
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

// Each consumer warp stages its scales one k tile ahead in shared memory, past the barriers:
// SCALE_SLOTS slots of WARP_SCALES f32 (its 16 rows' of A, then the tile's two column blocks'
// of B). common::gemm::w19's SHARED_BYTES reserves them.
constexpr unsigned WARP_SCALES = WARP_ROWS + 2, SCALE_SLOTS = 2, SLOT_BYTES = WARP_SCALES * 4;

// The per-block scales of one product (no per-tensor factor: the epilogue multiplies by nothing).
struct BlockScales {
    static constexpr bool BLOCKS = true;
    const float* a;  // ceil(K/128) x M
    const float* b;  // ceil(N/128) x ceil(K/128)
    unsigned m, n_blocks, k_blocks;
    __device__ __forceinline__ Factor factor() const { return Factor{}; }
};

// One consumer warp's staged scales: lanes 0-15 copy the scales of A's rows warp_row + lane (a
// row past M reads the last row's: its outputs are clipped by the store), lanes 16 and 17 those
// of B's column blocks block and block + 1 (a block past N reads the last one's), the others
// nothing. Every address is a select and the copy predicated, with no branch between a wgmma's
// issue and its wait.
struct StagedScales {
    unsigned slots, lane;
    bool copies;
    const float* source;  // at k block 0
    unsigned stride;      // f32 from one k block to the next

    __device__ __forceinline__ StagedScales(unsigned region, const BlockScales& scales, unsigned warp_row,
                                            unsigned block) {
        const unsigned tid = threadIdx.x;
        // The consumer warpgroups are the block's first.
        slots = region + tid / WARP_SIZE * SCALE_SLOTS * SLOT_BYTES;
        lane = tid % WARP_SIZE;
        const unsigned a_row = warp_row + lane < scales.m ? warp_row + lane : scales.m - 1;
        const unsigned b_block = block + (lane & 1) < scales.n_blocks ? block + (lane & 1) : scales.n_blocks - 1;
        const bool of_a = lane < WARP_ROWS;
        copies = lane < WARP_SCALES;
        source = of_a ? scales.a + a_row : scales.b + (size_t)b_block * scales.k_blocks;
        stride = of_a ? scales.m : 1;
    }
    // Starts the copies of k block kb's scales into slot kb % SCALE_SLOTS (no lane still reads it).
    __device__ __forceinline__ void stage(unsigned kb) const {
        cp_async_4_if(copies, slots + kb % SCALE_SLOTS * SLOT_BYTES + lane * 4, source + (size_t)kb * stride);
        cp_async_commit();
    }
    // Waits for k block kb's staged scales and reads this lane's: its two rows' of A, then the
    // two column blocks' of B.
    __device__ __forceinline__ void read(unsigned kb, float (&a_scale)[2], float (&b_scale)[2]) const {
        cp_async_wait_group<0>();
        __syncwarp();  // every lane's copies have landed; now visible to the warp
        const float* slot = SharedLayout<W19>::pointer<const float>(slots + kb % SCALE_SLOTS * SLOT_BYTES);
        a_scale[0] = slot[lane / 4];
        a_scale[1] = slot[lane / 4 + HALF_ROWS];
        b_scale[0] = slot[WARP_ROWS];
        b_scale[1] = slot[WARP_ROWS + 1];
    }
};

// w15's main loop with each half's partial scaled on its way into acc, by scales staged in
// shared memory while the k tile before ran.
struct BlockScaledMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release, Origin origin, const BlockScales& scales) {
        using S = W19;
        const auto& smem = consumer.smem;
        const unsigned tid = threadIdx.x;
        const unsigned warp_row =
            origin.row0 + tid / WARPGROUP * WARPGROUP_ROWS + tid % WARPGROUP / WARP_SIZE * WARP_ROWS;
        const StagedScales staged(smem.past_barriers(), scales, warp_row, origin.col0 / SCALE_BLOCK);
        __syncwarp();  // the last unit's lanes have all read their slots
        staged.stage(0);
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
                    // While the first half's wgmma run: this k block's scales, and the next
                    // one's copies (the last k tile copies its own again, unread, with no branch).
                    staged.read(kb, a_scale, b_scale);
                    staged.stage(kb + 1 < k_tiles ? kb + 1 : k_tiles - 1);
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
        cp_async_wait_group<0>();  // no copy outlives the unit
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
