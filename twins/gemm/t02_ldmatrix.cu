// Twin of kernels/src/gemm/t02_ldmatrix.rs (step t02): ldmatrix fragments from
// XOR-swizzled shared tiles, 16-byte global loads, a 128 x 128 x 32 block tile of 8 warps
// (2 x 4, each 64 x 32 = 4 x 4 mma tiles). Requires K and N multiples of 8.
#include "mma_tiles.cuh"

namespace t02 {
using namespace mma_tiles;
constexpr unsigned BM = 128, BN = 128, BK = 32, THREADS = 256;

// Eight 16-bit values of a row-major rows x cols matrix at (r, c) in one 16-byte read-only
// load, or zeros when the row or the chunk is outside.
__device__ __forceinline__ uint4 load_chunk(const unsigned short* p, unsigned rows, unsigned cols,
                                            unsigned r, unsigned c) {
    if (r < rows && c < cols) {
        const int4 v = __ldg(reinterpret_cast<const int4*>(p + (size_t)r * cols + c));
        return make_uint4(v.x, v.y, v.z, v.w);
    }
    return make_uint4(0, 0, 0, 0);
}
}  // namespace t02

template <bool BF16>
__device__ __forceinline__ void t02_mma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    using namespace t02;
    __shared__ __align__(16) unsigned a_tile[BM * BK / 2];
    __shared__ __align__(16) unsigned b_tile[BK * BN / 2];
    const unsigned a_base = smem_u32(a_tile), b_base = smem_u32(b_tile);

    const unsigned tid = threadIdx.x;
    const unsigned warp = tid / 32, lane = tid % 32;
    const unsigned warp_m = warp / 4, warp_n = warp % 4;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4][4] = {};

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (unsigned i = 0; i < 2; ++i) {
            const unsigned chunk = tid + i * THREADS;
            unsigned r = chunk / A_CHUNKS, cc = chunk % A_CHUNKS;
            *reinterpret_cast<uint4*>(&a_tile[a_chunk(r, cc)]) = load_chunk(a, m, k, row0 + r, k0 + cc * 8);
            r = chunk / B_CHUNKS, cc = chunk % B_CHUNKS;
            *reinterpret_cast<uint4*>(&b_tile[b_chunk(r, cc)]) = load_chunk(b, k, n, k0 + r, col0 + cc * 8);
        }
        __syncthreads();
#pragma unroll
        for (unsigned kk = 0; kk < BK / 16; ++kk) {
            unsigned a_frag[4][4];
#pragma unroll
            for (unsigned mi = 0; mi < 4; ++mi) {
                const unsigned r = warp_m * 64 + mi * 16 + lane % 16;
                ldmatrix_x4(a_frag[mi], a_base + 4 * a_chunk(r, kk * 2 + lane / 16));
            }
#pragma unroll
            for (unsigned pair = 0; pair < 2; ++pair) {
                const unsigned r = kk * 16 + lane % 16, cc = (warp_n * 32 + pair * 16) / 8 + lane / 16;
                unsigned bf[4];  // B fragments of n8 tiles 2*pair and 2*pair + 1
                ldmatrix_x4_trans(bf, b_base + 4 * b_chunk(r, cc));
#pragma unroll
                for (unsigned half = 0; half < 2; ++half) {
                    const unsigned ni = 2 * pair + half;
#pragma unroll
                    for (unsigned mi = 0; mi < 4; ++mi)
                        mma_m16n8k16<BF16>(acc[mi][ni], a_frag[mi], bf[2 * half], bf[2 * half + 1]);
                }
            }
        }
        __syncthreads();
    }
    store_accumulators<4>(c, acc, m, n, row0 + warp_m * 64, col0 + warp_n * 32, lane);
}

extern "C" __global__ void t02_ldmatrix_f16(const unsigned short* a, const unsigned short* b, float* c,
                                           unsigned m, unsigned n, unsigned k) {
    t02_mma_gemm<false>(a, b, c, m, n, k);
}

extern "C" __global__ void t02_ldmatrix_bf16(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    t02_mma_gemm<true>(a, b, c, m, n, k);
}
