// Twin of kernels/src/gemm/g07_bank_conflict_free.rs (step g07): g06 without bank conflicts,
// a padded A tile (stride BM + A_PAD) and each thread's 8 columns split 4 + 4, 64 apart.
#include "fp32.cuh"

using namespace gemm::g07;

// C = A * B, one 128 x 128 tile of C per block (256 threads), an 8 x 8 sub-tile per thread
// (two 8 x 4 halves, 64 columns apart).
extern "C" __global__ void g07_bank_conflict_free(const float* a, const float* b, float* c, unsigned m,
                                                  unsigned n, unsigned k) {
    __shared__ __align__(16) float a_tile[BK * (BM + A_PAD)];
    __shared__ __align__(16) float b_tile[BK * BN];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned thread_col = tid % (BN / TN), thread_row = tid / (BN / TN);
    const unsigned a_row = tid / (BK / 4), a_col4 = tid % (BK / 4);
    const unsigned b_row = tid / (BN / 4), b_col4 = tid % (BN / 4);
    float results[TM * TN] = {};
    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        const float4 va = fp32::load4(a, m, k, row0 + a_row, k0 + a_col4 * 4);
        a_tile[(a_col4 * 4 + 0) * (BM + A_PAD) + a_row] = va.x;
        a_tile[(a_col4 * 4 + 1) * (BM + A_PAD) + a_row] = va.y;
        a_tile[(a_col4 * 4 + 2) * (BM + A_PAD) + a_row] = va.z;
        a_tile[(a_col4 * 4 + 3) * (BM + A_PAD) + a_row] = va.w;
        *reinterpret_cast<float4*>(&b_tile[b_row * BN + b_col4 * 4]) =
            fp32::load4(b, k, n, k0 + b_row, col0 + b_col4 * 4);
        __syncthreads();
        // Rolled, as in the Rust build (LLVM and ptxas keep this 64-FMA loop a loop).
#pragma unroll 1
        for (unsigned dot = 0; dot < BK; ++dot) {
            const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[dot * (BM + A_PAD) + thread_row * TM]);
            const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[dot * (BM + A_PAD) + thread_row * TM + 4]);
            const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[dot * BN + thread_col * 4]);
            const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[dot * BN + BN / 2 + thread_col * 4]);
            const float reg_a[TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float reg_b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (unsigned i = 0; i < TM; ++i)
#pragma unroll
                for (unsigned j = 0; j < TN; ++j) results[i * TN + j] = fmaf(reg_a[i], reg_b[j], results[i * TN + j]);
        }
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
