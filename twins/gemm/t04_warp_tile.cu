// Twin of kernels/src/gemm/t04_warp_tile.rs (step t04): larger warp tiles, 4 warps of 64 x 64
// (4 x 8 mma tiles, 128 f32 accumulators per thread) instead of t03's 8 warps of 64 x 32.
// t03's 128 x 128 x 32 block tile, swizzles and 3-stage cp.async pipeline; 128 threads, so
// 4 chunk copies per thread per tile. 48 KB of static shared memory.
// Requires K and N multiples of 8.
#include "mma_tiles.cuh"

namespace t04 {
using namespace mma_tiles;
constexpr unsigned BM = 128, BN = 128, BK = 32, THREADS = 128, STAGES = 3;
constexpr unsigned A_WORDS = BM * BK / 2;  // 32-bit words in one stage of A
constexpr unsigned B_WORDS = BK * BN / 2;  // 32-bit words in one stage of B
}  // namespace t04

template <bool BF16>
__device__ __forceinline__ void t04_mma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    using namespace t04;
    __shared__ __align__(16) unsigned a_tiles[STAGES * A_WORDS];
    __shared__ __align__(16) unsigned b_tiles[STAGES * B_WORDS];
    const unsigned a_base = smem_u32(a_tiles), b_base = smem_u32(b_tiles);

    const unsigned tid = threadIdx.x;
    const unsigned warp = tid / 32, lane = tid % 32;
    const unsigned warp_m = warp / 2, warp_n = warp % 2;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][8][4] = {};
    const unsigned tiles = (k + BK - 1) / BK;

    // Starts the copies of k tile t into stage t % STAGES (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    auto load_tile = [&](unsigned t) {
        if (t < tiles) {
            const unsigned k0 = t * BK, stage = t % STAGES;
#pragma unroll
            for (unsigned i = 0; i < 4; ++i) {
                const unsigned chunk = tid + i * THREADS;
                unsigned r = chunk / A_CHUNKS, cc = chunk % A_CHUNKS;
                copy_chunk(a_base + 4 * (stage * A_WORDS + a_chunk(r, cc)), a, m, k, row0 + r, k0 + cc * 8);
                r = chunk / B_CHUNKS, cc = chunk % B_CHUNKS;
                copy_chunk(b_base + 4 * (stage * B_WORDS + b_chunk(r, cc)), b, k, n, k0 + r, col0 + cc * 8);
            }
        }
        cp_async_commit();
    };

    for (unsigned t = 0; t < STAGES - 1; ++t) load_tile(t);
    for (unsigned t = 0; t < tiles; ++t) {
        // Tile t's group is the oldest but STAGES - 2 in flight: wait for it, then make all
        // threads' copies visible (and every warp done with tile t - 1, whose stage the
        // next load reuses).
        cp_async_wait_group<STAGES - 2>();
        __syncthreads();
        load_tile(t + STAGES - 1);
        const unsigned stage = t % STAGES;
#pragma unroll
        for (unsigned kk = 0; kk < BK / 16; ++kk) {
            unsigned a_frag[4][4];
#pragma unroll
            for (unsigned mi = 0; mi < 4; ++mi) {
                const unsigned r = warp_m * 64 + mi * 16 + lane % 16;
                ldmatrix_x4(a_frag[mi], a_base + 4 * (stage * A_WORDS + a_chunk(r, kk * 2 + lane / 16)));
            }
#pragma unroll
            for (unsigned pair = 0; pair < 4; ++pair) {
                const unsigned r = kk * 16 + lane % 16, cc = (warp_n * 64 + pair * 16) / 8 + lane / 16;
                unsigned bf[4];  // B fragments of n8 tiles 2*pair and 2*pair + 1
                ldmatrix_x4_trans(bf, b_base + 4 * (stage * B_WORDS + b_chunk(r, cc)));
#pragma unroll
                for (unsigned half = 0; half < 2; ++half) {
                    const unsigned ni = 2 * pair + half;
#pragma unroll
                    for (unsigned mi = 0; mi < 4; ++mi)
                        mma_m16n8k16<BF16>(acc[mi][ni], a_frag[mi], bf[2 * half], bf[2 * half + 1]);
                }
            }
        }
    }
    store_accumulators<8>(c, acc, m, n, row0 + warp_m * 64, col0 + warp_n * 64, lane);
}

extern "C" __global__ void t04_warp_tile_f16(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    t04_mma_gemm<false>(a, b, c, m, n, k);
}

extern "C" __global__ void t04_warp_tile_bf16(const unsigned short* a, const unsigned short* b, float* c,
                                             unsigned m, unsigned n, unsigned k) {
    t04_mma_gemm<true>(a, b, c, m, n, k);
}
