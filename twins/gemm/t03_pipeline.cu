// Twin of kernels/src/gemm/t03_pipeline.rs (step t03): a 3-stage cp.async pipeline; k tiles
// t+1 and t+2 stream into shared memory while the warps compute on tile t.
// t02's 128 x 128 x 32 block tile, 8 warps of 64 x 32 and swizzled layouts; chunks past an
// edge are zero-filled by the copy itself (src_bytes = 0). 48 KB of static shared memory.
// Requires K and N multiples of 8.
// The fragment addresses are written per fragment, as t02 does: NVVM folds the constant
// distances into the ldmatrix offsets by itself, which the Rust step has to spell out.
#include "tensor.cuh"

namespace t03 {
constexpr unsigned BM = 128, BN = 128, BK = 32, THREADS = 256, STAGES = 3;
constexpr unsigned A_CHUNKS = BK / 8;      // 16-byte chunks per A row (BK values)
constexpr unsigned B_CHUNKS = BN / 8;      // 16-byte chunks per B row (BN values)
constexpr unsigned A_WORDS = BM * BK / 2;  // 32-bit words in one stage of A
constexpr unsigned B_WORDS = BK * BN / 2;  // 32-bit words in one stage of B

// Word index of chunk c of row r in the swizzled A tile (64-byte rows: XOR with r/2 % 4).
__device__ __forceinline__ unsigned a_chunk(unsigned r, unsigned c) {
    return (r * A_CHUNKS + (c ^ ((r / 2) % 4))) * 4;
}

// Word index of chunk c of row r in the swizzled B tile (256-byte rows: XOR with r % 8).
__device__ __forceinline__ unsigned b_chunk(unsigned r, unsigned c) {
    return (r * B_CHUNKS + (c ^ (r % 8))) * 4;
}

// Starts the copy of eight 16-bit values of a row-major rows x cols matrix at (r, c) to
// shared address dst; zeros (and nothing read) when the row or the chunk is outside.
__device__ __forceinline__ void copy_chunk(unsigned dst, const unsigned short* p, unsigned rows,
                                           unsigned cols, unsigned r, unsigned c) {
    const bool inside = r < rows && c < cols;
    const unsigned short* src = inside ? p + (size_t)r * cols + c : p;
    cp_async_16(dst, src, inside ? 16 : 0);
}
}  // namespace t03

template <bool BF16>
__device__ __forceinline__ void t03_mma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    using namespace t03;
    __shared__ __align__(16) unsigned a_tiles[STAGES * A_WORDS];
    __shared__ __align__(16) unsigned b_tiles[STAGES * B_WORDS];
    const unsigned a_base = smem_u32(a_tiles), b_base = smem_u32(b_tiles);

    const unsigned tid = threadIdx.x;
    const unsigned warp = tid / 32, lane = tid % 32;
    const unsigned group = lane / 4, in_group = lane % 4;
    const unsigned warp_m = warp / 4, warp_n = warp % 4;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4][4] = {};
    const unsigned tiles = (k + BK - 1) / BK;

    // Starts the copies of k tile t into stage t % STAGES (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    auto load_tile = [&](unsigned t) {
        if (t < tiles) {
            const unsigned k0 = t * BK, stage = t % STAGES;
#pragma unroll
            for (unsigned i = 0; i < 2; ++i) {
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
            for (unsigned pair = 0; pair < 2; ++pair) {
                const unsigned r = kk * 16 + lane % 16, cc = (warp_n * 32 + pair * 16) / 8 + lane / 16;
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
#pragma unroll
    for (unsigned mi = 0; mi < 4; ++mi) {
#pragma unroll
        for (unsigned ni = 0; ni < 4; ++ni) {
            const unsigned r = row0 + warp_m * 64 + mi * 16 + group;
            const unsigned cc = col0 + warp_n * 32 + ni * 8 + 2 * in_group;
#pragma unroll
            for (unsigned e = 0; e < 4; ++e) {  // (row, col) offsets (0,0), (0,1), (8,0), (8,1)
                const unsigned rr = r + (e / 2) * 8, ccc = cc + e % 2;
                if (rr < m && ccc < n) c[(size_t)rr * n + ccc] = acc[mi][ni][e];
            }
        }
    }
}

extern "C" __global__ void t03_pipeline_f16(const unsigned short* a, const unsigned short* b, float* c,
                                           unsigned m, unsigned n, unsigned k) {
    t03_mma_gemm<false>(a, b, c, m, n, k);
}

extern "C" __global__ void t03_pipeline_bf16(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    t03_mma_gemm<true>(a, b, c, m, n, k);
}
