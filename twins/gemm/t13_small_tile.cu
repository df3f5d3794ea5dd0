// Twin of kernels/src/gemm/t13_small_tile.rs (step t13): t12 in 128 x 128 tiles (wgmma
// m64n128k16, 64 accumulators per thread), twice the tiles for small products, six 32 KB
// stages.
//
// Launch as the Rust step: 384 threads, t13::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A, B, C.
#include "hopper.cuh"
#include "schedule.cuh"

namespace t13 {

// common::gemm::t13 (t12 with BN = 128 and six stages).
constexpr unsigned BM = 128, BN = 128, BK = 64;
constexpr unsigned STAGES = 6;
constexpr unsigned STAGE_BYTES = (BM * BK + BK * BN) * 2;
constexpr unsigned ALIGN_SLACK = 1024;
constexpr unsigned CONSUMER_WARPGROUPS = 2;
constexpr unsigned THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM;  // (contiguous extent, rows)
constexpr unsigned B_BOX_X = 64, B_BOX_Y = BK;
constexpr unsigned C_BOX_X = 32, C_BOX_Y = 64;
constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4;
constexpr unsigned C_BUFFERS = 2;
constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
constexpr unsigned CLUSTER_M = 2;
constexpr unsigned GROUP_ROWS = 8;
constexpr unsigned PRODUCER_REGISTERS = 40;
constexpr unsigned CONSUMER_REGISTERS = 232;

constexpr unsigned WARP_SIZE = 32;
constexpr unsigned WARPGROUP = 4 * WARP_SIZE;
constexpr unsigned WARPGROUP_ROWS = 64;
static_assert(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == (CONSUMER_WARPGROUPS + 1) * WARPGROUP);
constexpr unsigned CONSUMER_WARPS = CONSUMER_WARPGROUPS * 4;  // of each block of the pair

constexpr unsigned ROW_BYTES = 128;  // the 128-byte swizzle atom: 8 rows of 128 bytes
constexpr unsigned ATOM_BYTES = 8 * ROW_BYTES;
constexpr unsigned A_BYTES = A_BOX_X * A_BOX_Y * 2;
constexpr unsigned B_PANEL_BYTES = B_BOX_X * B_BOX_Y * 2;
static_assert(A_BOX_X * 2 == ROW_BYTES && A_BYTES + BN / B_BOX_X * B_PANEL_BYTES == STAGE_BYTES);
constexpr unsigned PANELS_PER_BLOCK = BN / B_BOX_X / CLUSTER_M;  // B's panels each block multicasts
constexpr unsigned short PAIR_MASK = (1 << CLUSTER_M) - 1;
constexpr unsigned MMA_K = 16;
constexpr unsigned C_BOXES = BN / C_BOX_X;
static_assert(C_BOX_Y == WARPGROUP_ROWS && C_BOX_X * 4 == ROW_BYTES && C_BOXES == 4);

// acc[first + 4q] for a run-time q in 0..4, by selects (a run-time index would put acc in
// local memory).
__device__ __forceinline__ float pick(const float (&acc)[M64N128_ACC], unsigned first, unsigned q) {
    float low = (q & 1) == 0 ? acc[first] : acc[first + 4];
    float high = (q & 1) == 0 ? acc[first + 8] : acc[first + 12];
    return (q & 2) == 0 ? low : high;
}

template <bool BF16>
__device__ __forceinline__ void small_tile_gemm(const void* a_map, const void* b_map, const void* c_map,
                                                unsigned m, unsigned n, unsigned k) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned smem_base = smem_u32(smem);
    const unsigned base = (smem_base + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1);
    auto a_stage = [&](unsigned s) { return base + s * STAGE_BYTES; };
    auto b_stage = [&](unsigned s) { return base + s * STAGE_BYTES + A_BYTES; };
    // Warpgroup w's staging box b, after the stages, then the barriers.
    auto c_box = [&](unsigned w, unsigned b) { return base + STAGES * STAGE_BYTES + (w * C_BUFFERS + b) * C_BOX_BYTES; };
    const unsigned barriers = base + STAGES * STAGE_BYTES + C_STAGING_BYTES;
    auto full = [&](unsigned s) { return barriers + s * 8; };
    auto empty = [&](unsigned s) { return barriers + (STAGES + s) * 8; };
    const unsigned tid = threadIdx.x;
    const unsigned rank = cluster_rank();
    const unsigned tile_rows = div_ceil(m, BM), tile_cols = div_ceil(n, BN);
    const unsigned pair_rows = div_ceil(tile_rows, CLUSTER_M);
    const unsigned units = pair_rows * tile_cols;
    const unsigned k_tiles = div_ceil(k, BK);
    // The pair's unit -> this block's tile origin (row0, col0); the rank picks the row.
    auto origin = [&](unsigned unit, unsigned& row0, unsigned& col0) {
        unsigned pair_row, col;
        grouped_tile(unit, pair_rows, tile_cols, GROUP_ROWS, pair_row, col);
        row0 = (pair_row * CLUSTER_M + rank) * BM;
        col0 = col * BN;
    };

    if (tid == CONSUMER_WARPGROUPS * WARPGROUP) {
        prefetch_tensor_map(a_map);
        prefetch_tensor_map(b_map);
        prefetch_tensor_map(c_map);
    }
    if (tid == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            mbarrier_init(full(s), 1);
            mbarrier_init(empty(s), CONSUMER_WARPS * CLUSTER_M);
        }
        fence_barrier_init();
    }
    // Both blocks' barriers must exist before either block starts (relaxed: the fence above
    // released the initialization).
    cluster_sync_relaxed();

    const unsigned warpgroup = tid / WARPGROUP;
    if (warpgroup == CONSUMER_WARPGROUPS) {
        release_registers<PRODUCER_REGISTERS>();
        // The producer warpgroup's first thread issues every copy.
        if (tid == CONSUMER_WARPGROUPS * WARPGROUP) {
            unsigned it = 0;
            for (unsigned unit = cluster_idx(); unit < units; unit += cluster_count()) {
                unsigned row0, col0;
                origin(unit, row0, col0);
                for (unsigned t = 0; t < k_tiles; ++t) {
                    const unsigned s = it % STAGES;
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
        claim_registers<CONSUMER_REGISTERS>();
        const unsigned lane = tid % WARP_SIZE;
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
            float acc[M64N128_ACC];
#pragma unroll
            for (unsigned i = 0; i < M64N128_ACC; ++i) acc[i] = 0.0f;
            for (unsigned t = 0; t < k_tiles; ++t) {
                const unsigned s = it % STAGES;
                mbarrier_wait(full(s), (it / STAGES) % 2);
                wgmma_fence();
#pragma unroll
                for (unsigned kk = 0; kk < 4; ++kk) {
                    const unsigned long long a_desc = descriptor(
                        a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk * MMA_K * 2, 0, ATOM_BYTES);
                    const unsigned long long b_desc =
                        descriptor(b_stage(s) + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
                    mma_m64n128k16<BF16>(acc, a_desc, b_desc);
                }
                wgmma_commit_group();
                wgmma_wait_group<1>();
                if (t > 0) release((it - 1) % STAGES);
                ++it;
            }
            wgmma_wait_group<0>();
            release((it - 1) % STAGES);

            // The epilogue (t09's), one 64 x 32 box of this warpgroup's piece at a time,
            // written into the 128-byte-swizzled layout of C's TMA box.
            const unsigned warp = (tid % WARPGROUP) / WARP_SIZE;
            const unsigned g = lane / 4, t4 = lane % 4;
            const unsigned row_order = (g % 4) ^ (g % 4 / 2);
            const bool storer = tid % WARPGROUP == 0;
#pragma unroll
            for (unsigned j = 0; j < C_BOXES; ++j) {
                const unsigned buffer = c_box(warpgroup, j % C_BUFFERS);
                // The copy stored from this buffer two boxes ago has read it.
                if (storer) bulk_wait_group_read<C_BUFFERS - 1>();
                sync_named(1 + warpgroup, WARPGROUP);
                float* staging = reinterpret_cast<float*>(smem + (buffer - smem_base));
#pragma unroll
                for (unsigned step = 0; step < 4; ++step) {
                    // Each row takes the column groups in its own order (no bank conflicts).
                    const unsigned q = step ^ row_order;
#pragma unroll
                    for (unsigned half = 0; half < 2; ++half) {
                        const unsigned row = warp * 16 + g + 8 * half;
                        const unsigned chunk = (2 * q + t4 / 2) ^ g;
                        const unsigned at = (row * ROW_BYTES + chunk * 16 + (t4 % 2) * 8) / 4;
                        const unsigned first = 4 * 4 * j + 2 * half;
                        *reinterpret_cast<float2*>(staging + at) =
                            make_float2(pick(acc, first, q), pick(acc, first + 1, q));
                    }
                }
                fence_proxy_async_shared();
                sync_named(1 + warpgroup, WARPGROUP);
                if (storer) {
                    store_tensor_2d(c_map, col0 + j * C_BOX_X, row0 + warpgroup * WARPGROUP_ROWS, buffer);
                    bulk_commit_group();
                }
            }
        }
        // C's last boxes are read out of shared memory before the block exits.
        if (tid % WARPGROUP == 0) bulk_wait_group_read<0>();
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

}  // namespace t13

extern "C" __global__ void __launch_bounds__(t13::THREADS)
t13_small_tile_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    t13::small_tile_gemm<false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(t13::THREADS)
t13_small_tile_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    t13::small_tile_gemm<true>(a_map, b_map, c_map, m, n, k);
}
