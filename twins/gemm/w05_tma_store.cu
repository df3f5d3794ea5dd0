// Twin of kernels/src/gemm/w05_tma_store.rs (step w05): w04 with the epilogue through shared memory:
// each consumer warpgroup writes its 64 x 256 piece of C one 64 x 32 box at a time into a
// 128-byte-swizzled staging buffer (two per warpgroup) that the copy engine stores (TMA store).
// 288 threads, a persistent 1-D grid in clusters of 2 along x (cuLaunchKernelEx; no
// __cluster_dims__, as the Rust PTX has no .reqnctapercluster), w05::SHARED_BYTES of dynamic shared
// memory; a_map / b_map as w02, c_map the tensor map of C (f32, boxes 32 x 64, 128-byte swizzle).
// In C++ the staging stores are plain float2 stores through a pointer into `smem` (the Rust
// writes st.shared.v2.f32 by address); both give st.shared.v2.f32.
#include "hopper.cuh"
#include "schedule.cuh"

namespace w05 {
constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, CONSUMER_WARPGROUPS = 2;
constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8;
constexpr unsigned THREADS = CONSUMER_WARPGROUPS * 128 + 32;
constexpr unsigned STAGE_BYTES = (BM * BK + BK * BN) * 2;
constexpr unsigned ALIGN_SLACK = 1024;
constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK;
constexpr unsigned C_BOX_X = 32, C_BOX_Y = 64, C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;

constexpr unsigned WARPGROUP = 128, WARPGROUP_ROWS = 64;
// The consumer warps of the whole pair arrive on each block's "empty" barriers.
constexpr unsigned CONSUMER_WARPS = CONSUMER_WARPGROUPS * 4;
constexpr unsigned ROW_BYTES = 128, ATOM_BYTES = 8 * ROW_BYTES;
constexpr unsigned A_BYTES = A_BOX_X * A_BOX_Y * 2, B_PANEL_BYTES = B_BOX_X * B_BOX_Y * 2;
constexpr unsigned PANELS_PER_BLOCK = BN / B_BOX_X / CLUSTER_M;
constexpr unsigned short PAIR_MASK = (1 << CLUSTER_M) - 1;
constexpr unsigned MMA_K = 16;
// C's boxes: a warpgroup's 64 rows by 32 columns (one 128-byte row of f32), 8 per tile.
constexpr unsigned C_BOXES = BN / C_BOX_X;
static_assert(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == BM * 2 + 32, "w05 shape");
static_assert(A_BOX_X * 2 == ROW_BYTES && A_BYTES + BN / B_BOX_X * B_PANEL_BYTES == STAGE_BYTES, "w05 boxes");
static_assert(C_BOX_Y == WARPGROUP_ROWS && C_BOX_X * 4 == ROW_BYTES && C_BOXES == 8, "w5 C boxes");

// acc[first + 4q] for a run-time q in 0..4, by selects: a run-time index would move the
// accumulators to local memory.
__device__ __forceinline__ float pick(const float (&acc)[M64N256_ACC], unsigned first, unsigned q) {
    const float low = (q & 1) == 0 ? acc[first] : acc[first + 4];
    const float high = (q & 1) == 0 ? acc[first + 8] : acc[first + 12];
    return (q & 2) == 0 ? low : high;
}

template <bool BF16>
__device__ __forceinline__ void tma_store_gemm(const void* a_map, const void* b_map, const void* c_map, unsigned m,
                                               unsigned n, unsigned k) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned smem_base = smem_u32(smem);
    const unsigned base = (smem_base + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1);
    auto a_stage = [&](unsigned s) { return base + s * STAGE_BYTES; };
    auto b_stage = [&](unsigned s) { return base + s * STAGE_BYTES + A_BYTES; };
    // Warpgroup w's staging box b after the stages (1024-byte aligned), then the barriers.
    auto c_box = [&](unsigned w, unsigned b) { return base + STAGES * STAGE_BYTES + (w * C_BUFFERS + b) * C_BOX_BYTES; };
    const unsigned barriers = base + STAGES * STAGE_BYTES + C_STAGING_BYTES;
    auto full = [&](unsigned s) { return barriers + s * 8; };
    auto empty = [&](unsigned s) { return barriers + (STAGES + s) * 8; };
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

            // The epilogue, box j (columns 32j..32j+31 of this warpgroup's piece) at a time. Thread
            // (warp, lane) holds rows warp*16 + g (+ 8), g = lane / 4, and columns 32j + 8q + 2t4 (+ 1),
            // q = 0..3: accumulators 4(4j + q) + ...; in the box's 128-byte rows those are 16-byte
            // chunk 2q + t04/2, which the swizzle moves to chunk ^ (row % 8) = chunk ^ g.
            const unsigned warp = (tid % WARPGROUP) / 32;
            const unsigned g = lane / 4, t4 = lane % 4;
            const unsigned row_order = (g % 4) ^ (g % 4 / 2);
            const bool storer = tid % WARPGROUP == 0;
#pragma unroll
            for (unsigned j = 0; j < C_BOXES; ++j) {
                const unsigned buffer = c_box(warpgroup, j % C_BUFFERS);
                // The store issued from this buffer two boxes ago has read it.
                if (storer) bulk_wait_group_read<C_BUFFERS - 1>();
                sync_named(1 + warpgroup, WARPGROUP);
                float2* staging = reinterpret_cast<float2*>(smem + (buffer - smem_base));
#pragma unroll
                for (unsigned step = 0; step < 4; ++step) {
                    // Each row takes the column groups in its own order (q = step ^ gray(g % 4)), so
                    // that the four rows of a half-warp phase hit four different pairs of chunks.
                    const unsigned q = step ^ row_order;
#pragma unroll
                    for (unsigned half = 0; half < 2; ++half) {
                        const unsigned row = warp * 16 + g + 8 * half;
                        const unsigned chunk = (2 * q + t4 / 2) ^ g;
                        const unsigned at = (row * ROW_BYTES + chunk * 16 + (t4 % 2) * 8) / 4;  // in floats
                        const unsigned first = 4 * 4 * j + 2 * half;
                        staging[at / 2] = make_float2(pick(acc, first, q), pick(acc, first + 1, q));
                    }
                }
                fence_proxy_async_shared();
                sync_named(1 + warpgroup, WARPGROUP);
                if (storer) {
                    // The engine clips what lies outside M x N.
                    store_tensor_2d(c_map, col0 + j * C_BOX_X, row0 + warpgroup * WARPGROUP_ROWS, buffer);
                    bulk_commit_group();
                }
            }
        }
        // C's last boxes are written before the block exits.
        if (tid % WARPGROUP == 0) bulk_wait_group<0>();
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}
}  // namespace w05

extern "C" __global__ void __launch_bounds__(w05::THREADS)
    w05_tma_store_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w05::tma_store_gemm<false>(a_map, b_map, c_map, m, n, k);
}
extern "C" __global__ void __launch_bounds__(w05::THREADS)
    w05_tma_store_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w05::tma_store_gemm<true>(a_map, b_map, c_map, m, n, k);
}
