// Twin of kernels/src/gemm/g09_warp_tiling.rs (step g09): each warp computes a compact
// 32 x 64 piece of the 128 x 128 block tile (8 warps as 4 x 2, lanes 4 x 8), k tiles of 16;
// g08's cp.async double buffering.
#include "fp32.cuh"

using gemm::WARP_SIZE;
using gemm::g09::A_PAD;
using gemm::g09::BM;
using gemm::g09::BN;
using gemm::g09::THREADS;
using gemm::g09::TM;
using gemm::g09::TN;

// The warp grid of a block (4 x 2 warps) and each warp's piece of the tile.
constexpr unsigned WARP_COLS = 2;
constexpr unsigned WARP_TILE_M = BM / 4;
constexpr unsigned WARP_TILE_N = BN / WARP_COLS;
// Lanes across one warp's piece: 8 columns of threads, each 4 + 4 columns wide.
constexpr unsigned LANE_COLS = 8;
static_assert(THREADS / WARP_SIZE == 4 * WARP_COLS && WARP_TILE_M == 4 * TM && WARP_TILE_N == LANE_COLS * 8, "");

// k values per tile: twice g08's, so each barrier covers 16 k steps of FMAs.
constexpr unsigned BK = 16;
// 16-byte pieces each thread loads per tile, of A and of B.
constexpr unsigned A_PIECES = BM * BK / 4 / THREADS;
constexpr unsigned B_PIECES = BK * BN / 4 / THREADS;
// Floats in one copy of the A tile (transposed and padded) and of the B tile.
constexpr unsigned A_TILE = BK * (BM + A_PAD);
constexpr unsigned B_TILE = BK * BN;

// C = A * B, one 128 x 128 tile of C per block (256 threads), a 32 x 64 piece per warp, an
// 8 x 8 sub-tile per thread (two 8 x 4 halves, 32 columns apart).
extern "C" __global__ void g09_warp_tiling(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                           unsigned k) {
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
    auto load_a = [&](unsigned t, float4 (&v)[A_PIECES]) {
#pragma unroll
        for (unsigned i = 0; i < A_PIECES; ++i) v[i] = fp32::load4(a, m, k, row0 + a_row(i), t * BK + a_col4(i) * 4);
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
    auto copy_b = [&](unsigned buf, unsigned t) {
#pragma unroll
        for (unsigned i = 0; i < B_PIECES; ++i)
            fp32::copy_b_piece(&b_tiles[buf * B_TILE + b_row(i) * BN + b_col4(i) * 4], b, k, n, t * BK + b_row(i),
                               col0 + b_col4(i) * 4);
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
        // Rolled, as in the Rust build (LLVM and ptxas keep this 64-FMA loop a loop).
#pragma unroll 1
        for (unsigned dot = 0; dot < BK; ++dot) {
            const float* at = &a_tiles[buf * A_TILE + dot * (BM + A_PAD) + first_row_in_tile];
            const float* bt = &b_tiles[buf * B_TILE + dot * BN + first_col_in_tile];
            const float4 a_lo = *reinterpret_cast<const float4*>(at);
            const float4 a_hi = *reinterpret_cast<const float4*>(at + 4);
            const float4 b_lo = *reinterpret_cast<const float4*>(bt);
            const float4 b_hi = *reinterpret_cast<const float4*>(bt + WARP_TILE_N / 2);
            const float reg_a[TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float reg_b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (unsigned i = 0; i < TM; ++i)
#pragma unroll
                for (unsigned j = 0; j < TN; ++j) results[i * TN + j] = fmaf(reg_a[i], reg_b[j], results[i * TN + j]);
        }
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
                const float* v = &results[i * 8 + 4 * half];
                fp32::store_c4(c, n, r, first_col + (WARP_TILE_N / 2) * half, make_float4(v[0], v[1], v[2], v[3]));
            }
        }
    }
}
