// Twin of kernels/src/gemm/w04_multicast.rs (step w04): w03 by clusters of two blocks stacked along M
// that share B's tiles: each block copies half of B's panels and multicasts them to both, and the
// consumers of both blocks release a stage on both blocks' "empty" barriers.
// 288 threads, a persistent 1-D grid launched in clusters of 2 along x (cuLaunchKernelEx; no
// __cluster_dims__, as the Rust PTX has no .reqnctapercluster), w04::SHARED_BYTES (= w02's) of
// dynamic shared memory; a_map / b_map as w02.
#include "hopper.cuh"
#include "schedule.cuh"

namespace w04 {
constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, CONSUMER_WARPGROUPS = 2;
constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8;
constexpr unsigned THREADS = CONSUMER_WARPGROUPS * 128 + 32;
constexpr unsigned STAGE_BYTES = (BM * BK + BK * BN) * 2;
constexpr unsigned ALIGN_SLACK = 1024;
constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK;

constexpr unsigned WARPGROUP = 128, WARPGROUP_ROWS = 64;
// The consumer warps of the whole pair arrive on each block's "empty" barriers.
constexpr unsigned CONSUMER_WARPS = CONSUMER_WARPGROUPS * 4;
constexpr unsigned ROW_BYTES = 128, ATOM_BYTES = 8 * ROW_BYTES;
constexpr unsigned A_BYTES = A_BOX_X * A_BOX_Y * 2, B_PANEL_BYTES = B_BOX_X * B_BOX_Y * 2;
// B's panels each block of the pair copies (and multicasts to both); both ranks in the mask.
constexpr unsigned PANELS_PER_BLOCK = BN / B_BOX_X / CLUSTER_M;
constexpr unsigned short PAIR_MASK = (1 << CLUSTER_M) - 1;
constexpr unsigned MMA_K = 16;
static_assert(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == BM * 2 + 32, "w04 shape");
static_assert(A_BOX_X * 2 == ROW_BYTES && A_BYTES + BN / B_BOX_X * B_PANEL_BYTES == STAGE_BYTES, "w04 boxes");

template <bool BF16>
__device__ __forceinline__ void multicast_gemm(const void* a_map, const void* b_map, float* c, unsigned m,
                                               unsigned n, unsigned k) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned base = (smem_u32(smem) + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1);
    auto a_stage = [&](unsigned s) { return base + s * STAGE_BYTES; };
    auto b_stage = [&](unsigned s) { return base + s * STAGE_BYTES + A_BYTES; };
    auto full = [&](unsigned s) { return base + STAGES * STAGE_BYTES + s * 8; };
    auto empty = [&](unsigned s) { return base + STAGES * STAGE_BYTES + (STAGES + s) * 8; };
    const unsigned tid = threadIdx.x;
    const unsigned rank = cluster_rank();
    const unsigned tile_rows = (m + BM - 1) / BM, tile_cols = (n + BN - 1) / BN;
    const unsigned pair_rows = (tile_rows + CLUSTER_M - 1) / CLUSTER_M;
    const unsigned units = pair_rows * tile_cols;
    const unsigned k_tiles = (k + BK - 1) / BK;
    // The pair's unit -> this block's tile: the rank picks the row within the pair (past M for
    // the second block of a last, odd row: its A box reads zeros, it stores nothing).
    auto origin = [&](unsigned unit, unsigned& row0, unsigned& col0) {
        unsigned pair_row, col;
        grouped_tile(unit, pair_rows, tile_cols, GROUP_ROWS, pair_row, col);
        row0 = (pair_row * CLUSTER_M + rank) * BM;
        col0 = col * BN;
    };

    if (tid == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            mbarrier_init(full(s), 1);
            mbarrier_init(empty(s), CONSUMER_WARPS * CLUSTER_M);
        }
        fence_barrier_init();
    }
    // Both blocks' barriers must exist before either block's copies or arrivals reach them.
    cluster_sync();

    const unsigned warpgroup = tid / WARPGROUP;
    if (warpgroup == CONSUMER_WARPGROUPS) {
        if (tid % 32 == 0) {
            unsigned it = 0;
            for (unsigned unit = cluster_idx(); unit < units; unit += cluster_count()) {
                unsigned row0, col0;
                origin(unit, row0, col0);
                for (unsigned t = 0; t < k_tiles; ++t) {
                    const unsigned s = it % STAGES;
                    // Stage s is free in both blocks: its "empty" barrier counts both pairs' consumers.
                    if (it >= STAGES) mbarrier_wait(empty(s), (it / STAGES - 1) % 2);
                    mbarrier_arrive_expect_tx(full(s), STAGE_BYTES);
                    copy_tensor_2d(a_stage(s), a_map, t * BK, row0, full(s));
                    for (unsigned p = 0; p < PANELS_PER_BLOCK; ++p) {
                        const unsigned panel = rank * PANELS_PER_BLOCK + p;
                        copy_tensor_2d_multicast(b_stage(s) + panel * B_PANEL_BYTES, b_map, col0 + panel * B_BOX_X,
                                                 t * BK, full(s), PAIR_MASK);
                    }
                    ++it;
                }
            }
        }
    } else {
        const unsigned lane = tid % 32;
        // Stage s is free in this block: tell both blocks of the pair.
        auto release = [&](unsigned s) {
            if (lane == 0) {
                for (unsigned r = 0; r < CLUSTER_M; ++r) mbarrier_arrive_remote(map_shared_to_rank(empty(s), r));
            }
        };
        unsigned it = 0;
        for (unsigned unit = cluster_idx(); unit < units; unit += cluster_count()) {
            unsigned row0, col0;
            origin(unit, row0, col0);
            float acc[M64N256_ACC];
#pragma unroll
            for (int j = 0; j < M64N256_ACC; ++j) acc[j] = 0.0f;
            for (unsigned t = 0; t < k_tiles; ++t) {
                const unsigned s = it % STAGES;
                mbarrier_wait(full(s), (it / STAGES) % 2);
                wgmma_fence();
#pragma unroll
                for (unsigned kk = 0; kk < 4; ++kk) {
                    unsigned long long a_desc = descriptor(
                        a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk * MMA_K * 2, 0, ATOM_BYTES);
                    unsigned long long b_desc =
                        descriptor(b_stage(s) + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
                    mma_m64n256k16<BF16>(acc, a_desc, b_desc);
                }
                wgmma_commit_group();
                wgmma_wait_group<1>();
                if (t > 0) release((it - 1) % STAGES);
                ++it;
            }
            wgmma_wait_group<0>();
            release((it - 1) % STAGES);

            // Accumulator layout: see device/wgmma.rs (as w02).
            const unsigned warp = (tid % WARPGROUP) / 32;
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
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}
}  // namespace w04

extern "C" __global__ void __launch_bounds__(w04::THREADS)
    w04_multicast_f16(const void* a_map, const void* b_map, float* c, unsigned m, unsigned n, unsigned k) {
    w04::multicast_gemm<false>(a_map, b_map, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(w04::THREADS)
    w04_multicast_bf16(const void* a_map, const void* b_map, float* c, unsigned m, unsigned n, unsigned k) {
    w04::multicast_gemm<true>(a_map, b_map, c, m, n, k);
}
