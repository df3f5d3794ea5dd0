// Twin of kernels/src/gemm/t15_aligned_stream_k.rs (step t15): t11's stream-K with each
// share's two pieces run the other way round (the start of the next unit first, then the end
// of the first), so that every cluster reads the same k tiles at the same time; a cut unit is
// owned by the cluster computing its last k tiles, and its contributors are the clusters
// before it. Also t12's trims: prefetch.tensormap at entry, a relaxed cluster arrival after
// the barriers' initialization, cp.async.bulk.wait_group.read at exit.
//
// Launch as the Rust step (as t11): 384 threads, t15::SHARED_BYTES of dynamic shared memory, a
// grid of every cluster that fits (clusters of 2 along x, cuLaunchKernelEx, all resident at
// once), tensor maps of A, B, C, and the workspace, t15::workspace_bytes(blocks) bytes, its
// flags zero (each launch leaves them zero).
#include "hopper.cuh"
#include "schedule.cuh"

namespace t15 {

// common::gemm::t15 (= t11's tiles, stages, block and workspace).
constexpr unsigned BM = 128, BN = 256, BK = 64;
constexpr unsigned STAGES = 4;
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
constexpr unsigned MAX_SPLIT = 4;              // clusters sharing one unit's k tiles, at most
constexpr unsigned PARTIAL_FLOATS = BM * BN;   // f32 per block in the workspace

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
static_assert(C_BOX_Y == WARPGROUP_ROWS && C_BOX_X * 4 == ROW_BYTES && C_BOXES == 8);

// The consumer threads of a block meet at named barrier CONSUMERS_BARRIER around the
// workspace (1 and 2 are the warpgroups' own, in the epilogue).
constexpr unsigned CONSUMER_THREADS = CONSUMER_WARPGROUPS * WARPGROUP;
constexpr unsigned CONSUMERS_BARRIER = 3;
// 16-byte pieces of a consumer thread's accumulators; a partial tile is stored as
// [piece][consumer thread] (float4s), so that each warp's 16-byte stores and loads are
// contiguous.
constexpr unsigned ACC_PIECES = M64N256_ACC / 4;
static_assert(ACC_PIECES * 4 * CONSUMER_THREADS == PARTIAL_FLOATS);

// acc[first + 4q] for a run-time q in 0..4, by selects (a run-time index would put acc in
// local memory).
__device__ __forceinline__ float pick(const float (&acc)[M64N256_ACC], unsigned first, unsigned q) {
    float low = (q & 1) == 0 ? acc[first] : acc[first + 4];
    float high = (q & 1) == 0 ? acc[first + 8] : acc[first + 12];
    return (q & 2) == 0 ? low : high;
}

template <bool BF16>
__device__ __forceinline__ void aligned_stream_k_gemm(const void* a_map, const void* b_map, const void* c_map,
                                              unsigned m, unsigned n, unsigned k, float* workspace) {
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
    const unsigned k_tiles = div_ceil(k, BK);
    const StreamK schedule = StreamK(pair_rows * tile_cols, k_tiles, cluster_count(), MAX_SPLIT, ShareOrder::KAligned);
    const unsigned cluster = cluster_idx();
    // The pair's unit -> this block's tile origin (row0, col0); the rank picks the row.
    auto origin = [&](unsigned unit, unsigned& row0, unsigned& col0) {
        unsigned pair_row, col;
        grouped_tile(unit, pair_rows, tile_cols, GROUP_ROWS, pair_row, col);
        row0 = (pair_row * CLUSTER_M + rank) * BM;
        col0 = col * BN;
    };
    // Block b's partial tile, and its flag after all the partial tiles.
    const unsigned blocks = schedule.clusters * CLUSTER_M;
    auto partial = [&](unsigned c) { return workspace + (c * CLUSTER_M + rank) * PARTIAL_FLOATS; };
    auto flag = [&](unsigned c) {
        return reinterpret_cast<unsigned*>(workspace + blocks * PARTIAL_FLOATS) + (c * CLUSTER_M + rank);
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
        // The producer warpgroup's first thread issues every copy. Both blocks of the pair
        // walk the same pieces, so their stages stay in step.
        if (tid == CONSUMER_WARPGROUPS * WARPGROUP) {
            unsigned it = 0;
            Pieces pieces = schedule.pieces(cluster);
            Piece piece;
            while (pieces.next(piece)) {
                unsigned row0, col0;
                origin(piece.unit, row0, col0);
                for (unsigned t = piece.k_begin; t < piece.k_end; ++t) {
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
        const unsigned warp = (tid % WARPGROUP) / WARP_SIZE;
        const unsigned g = lane / 4, t4 = lane % 4;
        const unsigned row_order = (g % 4) ^ (g % 4 / 2);
        const bool storer = tid % WARPGROUP == 0;
        unsigned it = 0;
        Pieces pieces = schedule.pieces(cluster);
        Piece piece;
        while (pieces.next(piece)) {
            unsigned row0, col0;
            origin(piece.unit, row0, col0);
            float acc[M64N256_ACC];
#pragma unroll
            for (unsigned i = 0; i < M64N256_ACC; ++i) acc[i] = 0.0f;
            for (unsigned t = piece.k_begin; t < piece.k_end; ++t) {
                const unsigned s = it % STAGES;
                mbarrier_wait(full(s), (it / STAGES) % 2);
                wgmma_fence();
#pragma unroll
                for (unsigned kk = 0; kk < 4; ++kk) {
                    const unsigned long long a_desc = descriptor(
                        a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk * MMA_K * 2, 0, ATOM_BYTES);
                    const unsigned long long b_desc =
                        descriptor(b_stage(s) + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
                    mma_m64n256k16<BF16>(acc, a_desc, b_desc);
                }
                wgmma_commit_group();
                wgmma_wait_group<1>();
                if (t > piece.k_begin) release((it - 1) % STAGES);
                ++it;
            }
            wgmma_wait_group<0>();
            release((it - 1) % STAGES);

            if (piece.role == Role::Contributor) {
                // Leave the partial tile for the owner, then raise this block's flag.
                float4* mine = reinterpret_cast<float4*>(partial(cluster)) + tid;
#pragma unroll
                for (unsigned i = 0; i < ACC_PIECES; ++i) {
                    mine[i * CONSUMER_THREADS] =
                        make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
                }
                sync_named(CONSUMERS_BARRIER, CONSUMER_THREADS);
                if (tid == 0) {
                    fence_acq_rel_gpu();
                    store_release_u32(flag(cluster), 1);
                }
                continue;
            }
            if (piece.role == Role::Owner) {
                // The clusters before this one, whose partials are long written.
                for (unsigned j = piece.first; j < piece.first + piece.contributors; ++j) {
                    if (tid == 0) {
                        // The contributor raises its flag once, after its partial; reset it
                        // for the next launch.
                        while (load_acquire_u32(flag(j)) == 0) {
                        }
                        store_relaxed_u32(flag(j), 0);
                    }
                    sync_named(CONSUMERS_BARRIER, CONSUMER_THREADS);
                    const float4* theirs = reinterpret_cast<const float4*>(partial(j)) + tid;
#pragma unroll
                    for (unsigned i = 0; i < ACC_PIECES; ++i) {
                        const float4 p = __ldcg(theirs + i * CONSUMER_THREADS);
                        acc[4 * i] += p.x;
                        acc[4 * i + 1] += p.y;
                        acc[4 * i + 2] += p.z;
                        acc[4 * i + 3] += p.w;
                    }
                }
            }

            // The epilogue (t09's), one 64 x 32 box of this warpgroup's piece at a time,
            // written into the 128-byte-swizzled layout of C's TMA box.
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
        if (storer) bulk_wait_group_read<0>();
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

}  // namespace t15

extern "C" __global__ void __launch_bounds__(t15::THREADS)
t15_aligned_stream_k_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                 float* workspace) {
    t15::aligned_stream_k_gemm<false>(a_map, b_map, c_map, m, n, k, workspace);
}

extern "C" __global__ void __launch_bounds__(t15::THREADS)
t15_aligned_stream_k_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                  float* workspace) {
    t15::aligned_stream_k_gemm<true>(a_map, b_map, c_map, m, n, k, workspace);
}
