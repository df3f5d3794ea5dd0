// Twin of kernels/src/gemm/w02_tma.rs (step w02): the TMA copy engine fills the stages, issued by one
// producer warp, with full/empty mbarriers per stage; two consumer warpgroups run wgmma as in w01.
// 288 threads (2 consumer warpgroups + 1 producer warp), grid ceil(N/256) x ceil(M/128),
// w02::SHARED_BYTES of dynamic shared memory; a_map / b_map are the global addresses of the
// tensor maps of A (boxes 64 x 128) and B (boxes 64 x 64), 128-byte swizzle.
#include "hopper.cuh"

namespace w02 {
constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, CONSUMER_WARPGROUPS = 2;
constexpr unsigned THREADS = CONSUMER_WARPGROUPS * 128 + 32;
constexpr unsigned STAGE_BYTES = (BM * BK + BK * BN) * 2;
constexpr unsigned ALIGN_SLACK = 1024;
constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK;

constexpr unsigned WARPGROUP = 128, WARPGROUP_ROWS = 64;
// Every consumer warp arrives on a stage's "empty" barrier when done with it.
constexpr unsigned CONSUMER_WARPS = CONSUMER_WARPGROUPS * 4;
constexpr unsigned ROW_BYTES = 128, ATOM_BYTES = 8 * ROW_BYTES;
// The A tile (one box) and each of B's BN / 64 panels (one box each), in bytes.
constexpr unsigned A_BYTES = A_BOX_X * A_BOX_Y * 2, B_PANEL_BYTES = B_BOX_X * B_BOX_Y * 2;
constexpr unsigned MMA_K = 16;
static_assert(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == BM * 2 + 32, "w02 shape");
static_assert(A_BOX_X * 2 == ROW_BYTES && A_BYTES + BN / B_BOX_X * B_PANEL_BYTES == STAGE_BYTES, "w02 boxes");

template <bool BF16>
__device__ __forceinline__ void tma_gemm(const void* a_map, const void* b_map, float* c, unsigned m, unsigned n,
                                         unsigned k) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned base = (smem_u32(smem) + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1);
    auto a_stage = [&](unsigned s) { return base + s * STAGE_BYTES; };
    auto b_stage = [&](unsigned s) { return base + s * STAGE_BYTES + A_BYTES; };
    // Stage s's "full" (tile landed) and "empty" (both warpgroups done) barriers, after the stages.
    auto full = [&](unsigned s) { return base + STAGES * STAGE_BYTES + s * 8; };
    auto empty = [&](unsigned s) { return base + STAGES * STAGE_BYTES + (STAGES + s) * 8; };
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned tiles = (k + BK - 1) / BK;

    if (tid == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            mbarrier_init(full(s), 1);
            mbarrier_init(empty(s), CONSUMER_WARPS);
        }
        fence_barrier_init();
    }
    __syncthreads();

    const unsigned warpgroup = tid / WARPGROUP;
    if (warpgroup == CONSUMER_WARPGROUPS) {
        // The producer warp: its first thread issues every copy.
        if (tid % 32 == 0) {
            for (unsigned t = 0; t < tiles; ++t) {
                const unsigned s = t % STAGES;
                if (t >= STAGES) mbarrier_wait(empty(s), (t / STAGES - 1) % 2);
                mbarrier_arrive_expect_tx(full(s), STAGE_BYTES);
                copy_tensor_2d(a_stage(s), a_map, t * BK, row0, full(s));
                for (unsigned panel = 0; panel < BN / B_BOX_X; ++panel) {
                    copy_tensor_2d(b_stage(s) + panel * B_PANEL_BYTES, b_map, col0 + panel * B_BOX_X, t * BK, full(s));
                }
            }
        }
        return;
    }

    float acc[M64N256_ACC];
#pragma unroll
    for (int j = 0; j < M64N256_ACC; ++j) acc[j] = 0.0f;
    // C++ only: keeps NVVM from copying the zeros into the tiles == 0 path (see the header).
    fence_accumulators(acc);
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned s = t % STAGES;
        mbarrier_wait(full(s), (t / STAGES) % 2);
        wgmma_fence();
#pragma unroll
        for (unsigned kk = 0; kk < 4; ++kk) {
            unsigned long long a_desc =
                descriptor(a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk * MMA_K * 2, 0, ATOM_BYTES);
            unsigned long long b_desc = descriptor(b_stage(s) + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
            mma_m64n256k16<BF16>(acc, a_desc, b_desc);
        }
        wgmma_commit_group();
        // Tile t - 1's products are done: hand its stage back to the producer.
        wgmma_wait_group<1>();
        if (t > 0 && tid % 32 == 0) mbarrier_arrive(empty((t - 1) % STAGES));
    }
    wgmma_wait_group<0>();

    // Accumulator layout: see device/wgmma.rs (as w01).
    const unsigned warp = (tid % WARPGROUP) / 32, lane = tid % 32;
    const unsigned r = row0 + warpgroup * WARPGROUP_ROWS + warp * 16 + lane / 4;
#pragma unroll
    for (unsigned j = 0; j < 32; ++j) {
        const unsigned col = col0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned rr = r + 8 * half;
            if (rr < m && col < n) {  // N is a multiple of 8 and col even: covers col + 1
                size_t at = (size_t)rr * n + col;
                c[at] = acc[4 * j + 2 * half];
                c[at + 1] = acc[4 * j + 2 * half + 1];
            }
        }
    }
}
}  // namespace w02

extern "C" __global__ void __launch_bounds__(w02::THREADS)
    w02_tma_f16(const void* a_map, const void* b_map, float* c, unsigned m, unsigned n, unsigned k) {
    w02::tma_gemm<false>(a_map, b_map, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(w02::THREADS)
    w02_tma_bf16(const void* a_map, const void* b_map, float* c, unsigned m, unsigned n, unsigned k) {
    w02::tma_gemm<true>(a_map, b_map, c, m, n, k);
}
