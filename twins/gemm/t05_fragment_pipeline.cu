// Twin of kernels/src/gemm/t05_fragment_pipeline.rs (step t05): fragments double-buffered.
// t04's block tile (128 x 128 x 32), warps (4 of 64 x 64) and swizzles; each warp loads the
// fragments of the next k16 step while this one's mma run, and the wait and barrier for the
// next k tile come before the tile's last k16 step, whose mma then run under the next tile's
// first fragment loads. Four stages in 64 KB of dynamic shared memory.
// Requires K and N multiples of 8.
#include "mma_tiles.cuh"

namespace t05 {
using namespace mma_tiles;
constexpr unsigned BM = 128, BN = 128, BK = 32, THREADS = 128, STAGES = 4;
constexpr unsigned A_WORDS = BM * BK / 2;          // 32-bit words in one stage of A
constexpr unsigned B_WORDS = BK * BN / 2;          // 32-bit words in one stage of B
constexpr unsigned B_STAGES_AT = STAGES * A_WORDS;  // B's stages follow A's
constexpr unsigned K_STEPS = BK / 16;              // k16 steps per k tile

// One k16 step's operands of a warp's 64 x 64 tile: A's four 16 x 16 fragments, B's four
// pairs of 16 x 8 fragments.
struct Fragments {
    unsigned a[4][4];
    unsigned b[4][4];
};

// acc += A . B over one k16 step: 4 x 8 mma.sync m16n8k16.
template <bool BF16>
__device__ __forceinline__ void multiply(float (&acc)[4][8][4], const Fragments& f) {
#pragma unroll
    for (unsigned pair = 0; pair < 4; ++pair) {
#pragma unroll
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned ni = 2 * pair + half;
#pragma unroll
            for (unsigned mi = 0; mi < 4; ++mi)
                mma_m16n8k16<BF16>(acc[mi][ni], f.a[mi], f.b[pair][2 * half], f.b[pair][2 * half + 1]);
        }
    }
}
}  // namespace t05

template <bool BF16>
__device__ __forceinline__ void t05_mma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                            unsigned m, unsigned n, unsigned k) {
    using namespace t05;
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned base = smem_u32(smem);

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
                copy_chunk(base + 4 * (stage * A_WORDS + a_chunk(r, cc)), a, m, k, row0 + r, k0 + cc * 8);
                r = chunk / B_CHUNKS, cc = chunk % B_CHUNKS;
                copy_chunk(base + 4 * (B_STAGES_AT + stage * B_WORDS + b_chunk(r, cc)), b, k, n, k0 + r,
                           col0 + cc * 8);
            }
        }
        cp_async_commit();
    };
    // The warp's fragments of k16 step kk of the k tile in stage.
    auto load_fragments = [&](Fragments& f, unsigned stage, unsigned kk) {
#pragma unroll
        for (unsigned mi = 0; mi < 4; ++mi) {
            const unsigned r = warp_m * 64 + mi * 16 + lane % 16;
            ldmatrix_x4(f.a[mi], base + 4 * (stage * A_WORDS + a_chunk(r, kk * 2 + lane / 16)));
        }
#pragma unroll
        for (unsigned pair = 0; pair < 4; ++pair) {
            const unsigned r = kk * 16 + lane % 16, cc = (warp_n * 64 + pair * 16) / 8 + lane / 16;
            ldmatrix_x4_trans(f.b[pair], base + 4 * (B_STAGES_AT + stage * B_WORDS + b_chunk(r, cc)));
        }
    };

    for (unsigned t = 0; t < STAGES - 1; ++t) load_tile(t);
    // Tile 0's group is the oldest but STAGES - 2: wait for it, make it visible, load its
    // first fragments.
    cp_async_wait_group<STAGES - 2>();
    __syncthreads();
    Fragments current, next;
    load_fragments(current, 0, 0);
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned stage = t % STAGES;
#pragma unroll
        for (unsigned kk = 0; kk < K_STEPS; ++kk) {
            if (kk + 1 < K_STEPS) {
                load_fragments(next, stage, kk + 1);
            } else {
                // Tile t + 1's group is the oldest but STAGES - 2: wait for it and for every
                // warp to have loaded its last fragments of tile t, then load its first step.
                // Past the last tile this reads a stage no copy is writing; unused.
                cp_async_wait_group<STAGES - 2>();
                __syncthreads();
                load_fragments(next, (t + 1) % STAGES, 0);
            }
            // Every warp is past the barrier after its last read of tile t - 1, so that
            // stage can be refilled.
            if (kk == 0) load_tile(t + STAGES - 1);
            multiply<BF16>(acc, current);
            current = next;
        }
    }
    store_accumulators<8>(c, acc, m, n, row0 + warp_m * 64, col0 + warp_n * 64, lane);
}

extern "C" __global__ void t05_fragment_pipeline_f16(const unsigned short* a, const unsigned short* b, float* c,
                                                    unsigned m, unsigned n, unsigned k) {
    t05_mma_gemm<false>(a, b, c, m, n, k);
}

extern "C" __global__ void t05_fragment_pipeline_bf16(const unsigned short* a, const unsigned short* b,
                                                     float* c, unsigned m, unsigned n, unsigned k) {
    t05_mma_gemm<true>(a, b, c, m, n, k);
}
