// Twin of kernels/src/gemm/g08_double_buffer.rs (step g08): two copies of each tile; the
// next tile's B streams in by cp.async and its A is prefetched into registers while this
// tile's FMAs run; one barrier per k tile.
#include "fp32.cuh"

using namespace gemm::g08;

// Floats in one copy of the A tile (transposed and padded) and of the B tile.
constexpr unsigned A_TILE = BK * (BM + A_PAD);
constexpr unsigned B_TILE = BK * BN;

// C = A * B, one 128 x 128 tile of C per block (256 threads), an 8 x 8 sub-tile per thread
// (two 8 x 4 halves, 64 columns apart).
extern "C" __global__ void g08_double_buffer(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                             unsigned k) {
    __shared__ __align__(16) float a_tiles[2 * A_TILE];
    __shared__ __align__(16) float b_tiles[2 * B_TILE];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned thread_col = tid % (BN / TN), thread_row = tid / (BN / TN);
    const unsigned a_row = tid / (BK / 4), a_col4 = tid % (BK / 4);
    const unsigned b_row = tid / (BN / 4), b_col4 = tid % (BN / 4);
    float results[TM * TN] = {};
    const unsigned tiles = (k + BK - 1) / BK;

    auto store_a = [&](unsigned buf, float4 v) {
        float* at = &a_tiles[buf * A_TILE + a_col4 * 4 * (BM + A_PAD) + a_row];
        at[0 * (BM + A_PAD)] = v.x;
        at[1 * (BM + A_PAD)] = v.y;
        at[2 * (BM + A_PAD)] = v.z;
        at[3 * (BM + A_PAD)] = v.w;
    };
    auto copy_b = [&](unsigned buf, unsigned t) {
        fp32::copy_b_piece(&b_tiles[buf * B_TILE + b_row * BN + b_col4 * 4], b, k, n, t * BK + b_row,
                           col0 + b_col4 * 4);
    };

    store_a(0, fp32::load4(a, m, k, row0 + a_row, a_col4 * 4));
    copy_b(0, 0);
    fp32::cp_async_commit();
    fp32::cp_async_wait_all();
    __syncthreads();
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned buf = t % 2, next = (t + 1) % 2;
        const bool more = t + 1 < tiles;
        float4 prefetched;
        if (more) {
            copy_b(next, t + 1);
            fp32::cp_async_commit();
            prefetched = fp32::load4(a, m, k, row0 + a_row, (t + 1) * BK + a_col4 * 4);
        }
        // Rolled, as in the Rust build (LLVM and ptxas keep this 64-FMA loop a loop).
#pragma unroll 1
        for (unsigned dot = 0; dot < BK; ++dot) {
            const float* at = &a_tiles[buf * A_TILE + dot * (BM + A_PAD) + thread_row * TM];
            const float* bt = &b_tiles[buf * B_TILE + dot * BN + thread_col * 4];
            const float4 a_lo = *reinterpret_cast<const float4*>(at);
            const float4 a_hi = *reinterpret_cast<const float4*>(at + 4);
            const float4 b_lo = *reinterpret_cast<const float4*>(bt);
            const float4 b_hi = *reinterpret_cast<const float4*>(bt + BN / 2);
            const float reg_a[TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float reg_b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (unsigned i = 0; i < TM; ++i)
#pragma unroll
                for (unsigned j = 0; j < TN; ++j) results[i * TN + j] = fmaf(reg_a[i], reg_b[j], results[i * TN + j]);
        }
        if (more) {
            store_a(next, prefetched);
            fp32::cp_async_wait_all();
        }
        // Everyone is done reading `buf` and has written `next`: swap.
        __syncthreads();
    }
    const unsigned first_row = row0 + thread_row * TM, first_col = col0 + thread_col * 4;
#pragma unroll
    for (unsigned i = 0; i < TM; ++i) {
        const unsigned r = first_row + i;
        if (r < m) {
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                const float* v = &results[i * 8 + 4 * half];
                fp32::store_c4(c, n, r, first_col + (BN / 2) * half, make_float4(v[0], v[1], v[2], v[3]));
            }
        }
    }
}
