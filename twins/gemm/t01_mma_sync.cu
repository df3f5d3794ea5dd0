// Twin of kernels/src/gemm/t01_mma_sync.rs (step t01): tensor cores via mma.sync.m16n8k16,
// fragments fed from shared memory with plain 32-bit shared loads.
// A 64 x 64 block tile, 4 warps of 32 x 32 (2 x 4 mma tiles), k steps of 16; B is stored
// transposed so that the two k values of a B fragment register share one 32-bit word.
#include "tensor.cuh"

namespace t01 {
constexpr unsigned BM = 64, BN = 64, BK = 16;
constexpr unsigned WORDS = BK / 2;  // 32-bit words per 16-value row
}  // namespace t01

template <bool BF16>
__device__ __forceinline__ void t01_mma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    using namespace t01;
    // One array each, written as 16-bit values and read as 32-bit words (two k values).
    __shared__ __align__(16) unsigned a_words[BM * WORDS];
    __shared__ __align__(16) unsigned b_words[BN * WORDS];
    unsigned short* a_halves = reinterpret_cast<unsigned short*>(a_words);
    unsigned short* b_halves = reinterpret_cast<unsigned short*>(b_words);

    const unsigned tid = threadIdx.x;
    const unsigned warp = tid / 32, lane = tid % 32;
    const unsigned group = lane / 4, in_group = lane % 4;
    const unsigned warp_row = warp / 2, warp_col = warp % 2;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[2][4][4] = {};

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        // Each thread stages 8 values of A (row tid/2) and 8 of B (k row tid/8), zero past
        // the edges; B goes in transposed (column-major).
        const unsigned a_row = tid / 2, a_col = (tid % 2) * 8;
        const unsigned b_row = tid / 8, b_col = (tid % 8) * 8;
#pragma unroll
        for (unsigned e = 0; e < 8; ++e) {
            const unsigned r = row0 + a_row, ka = k0 + a_col + e;
            a_halves[a_row * BK + a_col + e] = (r < m && ka < k) ? a[(size_t)r * k + ka] : 0;
            const unsigned kb = k0 + b_row, cc = col0 + b_col + e;
            b_halves[(b_col + e) * BK + b_row] = (kb < k && cc < n) ? b[(size_t)kb * n + cc] : 0;
        }
        __syncthreads();
        unsigned a_frag[2][4];
#pragma unroll
        for (unsigned mi = 0; mi < 2; ++mi) {
            const unsigned r = warp_row * 32 + mi * 16 + group;
            a_frag[mi][0] = a_words[r * WORDS + in_group];
            a_frag[mi][1] = a_words[(r + 8) * WORDS + in_group];
            a_frag[mi][2] = a_words[r * WORDS + in_group + 4];
            a_frag[mi][3] = a_words[(r + 8) * WORDS + in_group + 4];
        }
#pragma unroll
        for (unsigned ni = 0; ni < 4; ++ni) {
            const unsigned col = warp_col * 32 + ni * 8 + group;
            const unsigned b0 = b_words[col * WORDS + in_group];
            const unsigned b1 = b_words[col * WORDS + in_group + 4];
#pragma unroll
            for (unsigned mi = 0; mi < 2; ++mi) mma_m16n8k16<BF16>(acc[mi][ni], a_frag[mi], b0, b1);
        }
        __syncthreads();
    }
#pragma unroll
    for (unsigned mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (unsigned ni = 0; ni < 4; ++ni) {
            const unsigned r = row0 + warp_row * 32 + mi * 16 + group;
            const unsigned cc = col0 + warp_col * 32 + ni * 8 + 2 * in_group;
#pragma unroll
            for (unsigned e = 0; e < 4; ++e) {  // (row, col) offsets (0,0), (0,1), (8,0), (8,1)
                const unsigned rr = r + (e / 2) * 8, ccc = cc + e % 2;
                if (rr < m && ccc < n) c[(size_t)rr * n + ccc] = acc[mi][ni][e];
            }
        }
    }
}

extern "C" __global__ void t01_mma_sync_f16(const unsigned short* a, const unsigned short* b, float* c,
                                           unsigned m, unsigned n, unsigned k) {
    t01_mma_gemm<false>(a, b, c, m, n, k);
}

extern "C" __global__ void t01_mma_sync_bf16(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    t01_mma_gemm<true>(a, b, c, m, n, k);
}
