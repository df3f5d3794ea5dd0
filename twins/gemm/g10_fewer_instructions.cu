// Twin of kernels/src/gemm/g10_fewer_instructions.rs (step g10): fewer instructions per FMA:
// a 16 x 8 tile per thread (128 threads, 2 x 2 warps of 64 x 64), the 16 k steps of a tile
// written out, and unchecked 16-byte loads for interior blocks; g09's tiles and pipeline.
#include "fp32.cuh"

using gemm::WARP_SIZE;
using namespace gemm::g10;

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

// C = A * B, one 128 x 128 tile of C per block (128 threads), a 64 x 64 piece per warp, a
// 16 x 8 sub-tile per thread (two 16 x 4 halves, 32 columns apart).
extern "C" __global__ void g10_fewer_instructions(const float* a, const float* b, float* c, unsigned m,
                                                  unsigned n, unsigned k) {
    __shared__ __align__(16) float a_tiles[2 * A_TILE];
    __shared__ __align__(16) float b_tiles[2 * B_TILE];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned warp = tid / WARP_SIZE, lane = tid % WARP_SIZE;
    const unsigned warp_row = warp / WARP_COLS, warp_col = warp % WARP_COLS;
    const unsigned lane_row = lane / LANE_COLS, lane_col = lane % LANE_COLS;
    const unsigned first_row_in_tile = warp_row * WARP_TILE_M + lane_row * TM;
    const unsigned first_col_in_tile = warp_col * WARP_TILE_N + lane_col * 4;
    float results[TM * TN] = {};
    const unsigned tiles = (k + BK - 1) / BK;

    // Piece i of this thread: (row, 16-byte column) in the A tile and in the B tile.
    auto a_row = [&](unsigned i) { return (tid + i * THREADS) / (BK / 4); };
    auto a_col4 = [&](unsigned i) { return (tid + i * THREADS) % (BK / 4); };
    auto b_row = [&](unsigned i) { return (tid + i * THREADS) / (BN / 4); };
    auto b_col4 = [&](unsigned i) { return (tid + i * THREADS) % (BN / 4); };

    // The fast path: the block's whole tile of C is inside, rows are 16-byte aligned, and
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

    float4 pieces[A_PIECES];
    load_a(0, pieces);
    store_a(0, pieces);
    copy_b(0, 0);
    fp32::cp_async_commit();
    fp32::cp_async_wait_all();
    __syncthreads();
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned buf = t % 2, next = (t + 1) % 2;
        const bool more = t + 1 < tiles;
        if (more) {
            copy_b(next, t + 1);
            fp32::cp_async_commit();
            load_a(t + 1, pieces);
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
