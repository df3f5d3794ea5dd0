// Twin of kernels/src/gemm/g11_split_k.rs (step g11): g10's block on one contiguous slice of
// each tile's k tiles (grid z); every block leaves its partial tile in a workspace and the
// last slice of a tile to arrive adds them up in slice order and stores C.
//
// C++ differences: the ticket is taken with __nv_atomic_fetch_add(ACQ_REL, DEVICE), which
// NVRTC emits as the generic-address atom.add.acq_rel.gpu.u32 (the Rust names .global);
// __nv_atomic_thread_fence(ACQ_REL, DEVICE) is the Rust's fence.acq_rel.gpu.
#include "fp32.cuh"

using gemm::WARP_SIZE;
using namespace gemm::g11;

// The warp grid of a block (2 x 2 warps) and each warp's piece of the 128 x 128 tile.
constexpr unsigned WARP_COLS = 2;
constexpr unsigned WARP_TILE_M = BM / 2;
constexpr unsigned WARP_TILE_N = BN / WARP_COLS;
// Lanes across one warp's piece: 4 rows of 8 threads, each 16 rows tall and 4 + 4 columns
// wide (the second 4 half a warp tile to the right).
constexpr unsigned LANE_COLS = 8;
constexpr unsigned LANE_ROWS = WARP_SIZE / LANE_COLS;
static_assert(THREADS / WARP_SIZE == 2 * WARP_COLS && WARP_TILE_M == LANE_ROWS * TM && WARP_TILE_N == LANE_COLS * TN &&
                  TM == 16 && TN == 8 && BK == 16,
              "g10's shape");

// 16-byte pieces each thread loads per tile, of A and of B.
constexpr unsigned A_PIECES = BM * BK / 4 / THREADS;
constexpr unsigned B_PIECES = BK * BN / 4 / THREADS;
// Floats in one copy of the A tile (transposed and padded) and of the B tile.
constexpr unsigned A_TILE = BK * (BM + A_PAD);
constexpr unsigned B_TILE = BK * BN;
// 16-byte pieces of a thread's 16 x 8 outputs: piece q is results[4q .. 4q + 4].
constexpr unsigned PIECES = TM * TN / 4;
static_assert(PIECES * 4 * THREADS == PARTIAL_FLOATS, "a partial tile is the block's outputs");

// Split-K's extra work after a block's slice: leave the partial tile in the workspace, take
// a ticket, and if this block is the tile's last, sum every slice's partial into `results`
// in slice order. Returns whether this block must store the tile.
static __device__ __forceinline__ bool combine_slices(float (&results)[TM * TN], float* workspace, unsigned m,
                                                      unsigned n, unsigned slices, unsigned slice, unsigned tid) {
    __shared__ unsigned ticket;  // the block's ticket, for every thread to read
    // Slot (tile, slice) is the block's linear index in the grid; inside it, piece q of
    // thread tid is at (q * THREADS + tid) * 4, so a warp's 16-byte accesses cover 512
    // contiguous bytes. The per-tile arrival counters follow the slots.
    const unsigned tile_cols = (n + BN - 1) / BN, tiles = tile_cols * ((m + BM - 1) / BM);
    const unsigned tile = blockIdx.y * tile_cols + blockIdx.x;
    auto slot = [&](unsigned s) { return workspace + ((size_t)s * tiles + tile) * PARTIAL_FLOATS; };
    auto piece_at = [&](unsigned q) { return (size_t)((q * THREADS + tid) * 4); };
    unsigned* counter = reinterpret_cast<unsigned*>(workspace + (size_t)slices * tiles * PARTIAL_FLOATS) + tile;

    float* mine = slot(slice);
#pragma unroll
    for (unsigned q = 0; q < PIECES; ++q)
        *reinterpret_cast<float4*>(mine + piece_at(q)) =
            make_float4(results[4 * q], results[4 * q + 1], results[4 * q + 2], results[4 * q + 3]);
    // Every thread's stores are ordered before the barrier; thread 0's fence and
    // acquire-release add then publish them all with its ticket.
    __syncthreads();
    if (tid == 0) {
        __nv_atomic_thread_fence(__NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
        ticket = __nv_atomic_fetch_add(counter, 1u, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
    }
    __syncthreads();
    if (ticket != slices - 1) return false;  // another block of this tile finishes it

    // The last slice to arrive: sum all partials in slice order (its own read back too), so
    // the bits do not depend on the arrival order; from L2 (ld.global.cg), not L1.
    __nv_atomic_thread_fence(__NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
#pragma unroll
    for (unsigned i = 0; i < TM * TN; ++i) results[i] = 0.0f;
    // Half of the thread's pieces at a time, slice after slice (the slice loop stays a loop,
    // as in the Rust: all pieces of every slice at once would spill).
#pragma unroll
    for (unsigned half = 0; half < 2; ++half) {
#pragma unroll 1
        for (unsigned s = 0; s < slices; ++s) {
#pragma unroll
            for (unsigned w = 0; w < PIECES / 2; ++w) {
                const unsigned q = half * (PIECES / 2) + w;
                const float4 p = __ldcg(reinterpret_cast<const float4*>(slot(s) + piece_at(q)));
                results[4 * q + 0] += p.x;
                results[4 * q + 1] += p.y;
                results[4 * q + 2] += p.z;
                results[4 * q + 3] += p.w;
            }
        }
    }
    // Every other slice of this tile has taken its ticket: reset the counter for the next
    // launch (the launch boundary orders this store before its atomics).
    if (tid == 0) *counter = 0;
    return true;
}

// C = A * B, one 128 x 128 tile of C per `slices` blocks (grid z, slices <= MAX_SLICES), each
// computing the tile over its slice of K as g10 does over all of K (128 threads); the last
// to finish sums the slices into C. workspace: g11::workspace_bytes(blocks) bytes, 16-byte
// aligned, counters zero between launches.
extern "C" __global__ void g11_split_k(const float* a, const float* b, float* c, unsigned m, unsigned n, unsigned k,
                                       float* workspace) {
    // A run-time count (the host picks it per shape).
    const unsigned slices = gridDim.z;
    __shared__ __align__(16) float a_tiles[2 * A_TILE];
    __shared__ __align__(16) float b_tiles[2 * B_TILE];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // This block's slice of K: k tiles first..end (common::gemm::g11::k_tile_range; empty
    // when K has fewer k tiles than there are slices, and the block contributes zeros).
    const unsigned slice = blockIdx.z;
    const unsigned k_tiles = (k + BK - 1) / BK;
    const unsigned first = slice * k_tiles / slices, end = (slice + 1) * k_tiles / slices;
    const unsigned warp = tid / WARP_SIZE, lane = tid % WARP_SIZE;
    const unsigned warp_row = warp / WARP_COLS, warp_col = warp % WARP_COLS;
    const unsigned lane_row = lane / LANE_COLS, lane_col = lane % LANE_COLS;
    const unsigned first_row_in_tile = warp_row * WARP_TILE_M + lane_row * TM;
    const unsigned first_col_in_tile = warp_col * WARP_TILE_N + lane_col * 4;
    float results[TM * TN] = {};

    // Piece i of this thread: (row, 16-byte column) in the A tile and in the B tile.
    auto a_row = [&](unsigned i) { return (tid + i * THREADS) / (BK / 4); };
    auto a_col4 = [&](unsigned i) { return (tid + i * THREADS) % (BK / 4); };
    auto b_row = [&](unsigned i) { return (tid + i * THREADS) / (BN / 4); };
    auto b_col4 = [&](unsigned i) { return (tid + i * THREADS) % (BN / 4); };

    // g10's fast path: the block's whole tile of C is inside, rows are 16-byte aligned, and
    // tile t covers k values t*BK .. t*BK + 15, all inside K, for every t < unchecked_tiles.
    const bool interior = k % 4 == 0 && n % 4 == 0 && row0 + BM <= m && col0 + BN <= n;
    const unsigned unchecked_tiles = interior ? k / BK : 0;
    // Where each piece of tile 0 starts (tile t is t*BK columns of A, t*BK rows of B on).
    // For edge blocks these may point past the matrices; they are read on the fast path only.
    const float* a_starts[A_PIECES];
    const float* b_starts[B_PIECES];
#pragma unroll
    for (unsigned i = 0; i < A_PIECES; ++i) a_starts[i] = a + ((size_t)(row0 + a_row(i)) * k + a_col4(i) * 4);
#pragma unroll
    for (unsigned i = 0; i < B_PIECES; ++i) b_starts[i] = b + ((size_t)b_row(i) * n + (col0 + b_col4(i) * 4));

    auto load_a = [&](unsigned t, float4 (&v)[A_PIECES]) {
        if (t < unchecked_tiles) {
#pragma unroll
            for (unsigned i = 0; i < A_PIECES; ++i) v[i] = __ldg(reinterpret_cast<const float4*>(a_starts[i] + t * BK));
        } else {
#pragma unroll
            for (unsigned i = 0; i < A_PIECES; ++i)
                v[i] = fp32::load4(a, m, k, row0 + a_row(i), t * BK + a_col4(i) * 4);
        }
    };
    auto store_a = [&](unsigned buf, const float4 (&v)[A_PIECES]) {
#pragma unroll
        for (unsigned i = 0; i < A_PIECES; ++i) {
            float* at = &a_tiles[buf * A_TILE + a_col4(i) * 4 * (BM + A_PAD) + a_row(i)];
            at[0 * (BM + A_PAD)] = v[i].x;
            at[1 * (BM + A_PAD)] = v[i].y;
            at[2 * (BM + A_PAD)] = v[i].z;
            at[3 * (BM + A_PAD)] = v[i].w;
        }
    };
    auto b_index = [&](unsigned buf, unsigned i) { return buf * B_TILE + b_row(i) * BN + b_col4(i) * 4; };
    auto copy_b = [&](unsigned buf, unsigned t) {
        if (t < unchecked_tiles) {
#pragma unroll
            for (unsigned i = 0; i < B_PIECES; ++i)
                fp32::cp_async_16(&b_tiles[b_index(buf, i)], b_starts[i] + (size_t)(t * BK) * n, 16);
        } else {
#pragma unroll
            for (unsigned i = 0; i < B_PIECES; ++i)
                fp32::copy_b_piece(&b_tiles[b_index(buf, i)], b, k, n, t * BK + b_row(i), col0 + b_col4(i) * 4);
        }
    };
    // One k step: this thread's 16 values of A and 8 of B (6 shared loads), then 128 FMAs.
    auto k_step = [&](unsigned buf, unsigned dot) {
        const float* at = &a_tiles[buf * A_TILE + dot * (BM + A_PAD) + first_row_in_tile];
        const float* bt = &b_tiles[buf * B_TILE + dot * BN + first_col_in_tile];
        const float4 a0 = *reinterpret_cast<const float4*>(at);
        const float4 a1 = *reinterpret_cast<const float4*>(at + 4);
        const float4 a2 = *reinterpret_cast<const float4*>(at + 8);
        const float4 a3 = *reinterpret_cast<const float4*>(at + 12);
        const float4 b_lo = *reinterpret_cast<const float4*>(bt);
        const float4 b_hi = *reinterpret_cast<const float4*>(bt + WARP_TILE_N / 2);
        const float reg_a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w,
                                 a2.x, a2.y, a2.z, a2.w, a3.x, a3.y, a3.z, a3.w};
        const float reg_b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
        for (unsigned i = 0; i < TM; ++i)
#pragma unroll
            for (unsigned j = 0; j < TN; ++j) results[i * TN + j] = fmaf(reg_a[i], reg_b[j], results[i * TN + j]);
    };

    // g10's pipeline over this slice's k tiles: step i computes tile first + i from buffer
    // i % 2.
    const unsigned steps = end - first;
    float4 pieces[A_PIECES];
    if (steps > 0) {
        load_a(first, pieces);
        store_a(0, pieces);
        copy_b(0, first);
        fp32::cp_async_commit();
        fp32::cp_async_wait_all();
        __syncthreads();
    }
    for (unsigned i = 0; i < steps; ++i) {
        const unsigned buf = i % 2, next = (i + 1) % 2;
        const bool more = i + 1 < steps;
        if (more) {
            copy_b(next, first + i + 1);
            fp32::cp_async_commit();
            load_a(first + i + 1, pieces);
        }
        // The 16 k steps of the tile, written out.
#pragma unroll
        for (unsigned dot = 0; dot < BK; ++dot) k_step(buf, dot);
        if (more) {
            store_a(next, pieces);
            fp32::cp_async_wait_all();
        }
        // Everyone is done reading `buf` and has written `next`: swap.
        __syncthreads();
    }

    if (slices > 1 && !combine_slices(results, workspace, m, n, slices, slice, tid)) return;
    // g10's store of the thread's 16 x 8 results.
    const unsigned first_row = row0 + first_row_in_tile, first_col = col0 + first_col_in_tile;
#pragma unroll
    for (unsigned i = 0; i < TM; ++i) {
        const unsigned r = first_row + i;
        if (r < m) {
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                const float* v = &results[i * TN + 4 * half];
                fp32::store_c4(c, n, r, first_col + (WARP_TILE_N / 2) * half, make_float4(v[0], v[1], v[2], v[3]));
            }
        }
    }
}
