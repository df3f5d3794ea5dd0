// Twin of kernels/src/gemm/w01_wgmma.rs (step w01): Hopper's warpgroup MMA (wgmma.m64n256k16) reads
// both tiles straight from 128-byte-swizzled shared memory, fed by a 4-stage cp.async pipeline.
// 128 x 256 block tile, two warpgroups of 64 x 256, k tiles of 64; 256 threads per block,
// grid ceil(N/256) x ceil(M/128), w01::SHARED_BYTES (4 x 48 KB + 1 KB) of dynamic shared memory.
#include "hopper.cuh"

namespace w01 {
constexpr unsigned BM = 128, BN = 256, BK = 64, THREADS = 256, STAGES = 4;
constexpr unsigned STAGE_BYTES = (BM * BK + BK * BN) * 2;
constexpr unsigned ALIGN_SLACK = 1024;

constexpr unsigned WARPGROUP = 128, WARPGROUP_ROWS = 64;
// The 128-byte swizzle atom: 8 rows of 128 bytes (64 16-bit values).
constexpr unsigned ROW_BYTES = 128, ATOM_BYTES = 8 * ROW_BYTES, ROW_CHUNKS = ROW_BYTES / 16;
// A tile of a stage, then B as BN / 64 panels of BK rows x 64 columns.
constexpr unsigned A_BYTES = BM * BK * 2, B_PANEL_BYTES = BK * ROW_BYTES;
constexpr unsigned MMA_K = 16;
static_assert(BK == ROW_BYTES / 2 && THREADS == 2 * WARPGROUP && BM == 2 * WARPGROUP_ROWS, "w01 shape");
static_assert(BM * ROW_CHUNKS == 4 * THREADS && BK * BN / 8 == 8 * THREADS, "w1 copy split");

// Byte offset of 16-byte chunk c of 128-byte row r in a 128-byte-swizzled tile.
__device__ __forceinline__ unsigned swizzled(unsigned r, unsigned c) {
    return r * ROW_BYTES + ((c ^ (r % 8)) * 16);
}

// cp.async of the 8 values at (r, c) of a rows x cols row-major matrix; zeros outside.
__device__ __forceinline__ void copy_chunk(unsigned dst, const unsigned short* p, unsigned rows, unsigned cols,
                                           unsigned r, unsigned c) {
    bool inside = r < rows && c < cols;
    const unsigned short* src = inside ? p + ((size_t)r * cols + c) : p;
    cp_async_16(dst, src, inside ? 16 : 0);
}

template <bool BF16>
__device__ __forceinline__ void wgmma_gemm(const unsigned short* a, const unsigned short* b, float* c,
                                           unsigned m, unsigned n, unsigned k) {
    extern __shared__ __align__(16) unsigned char smem[];
    // Swizzle atoms sit on 1024-byte boundaries: round the dynamic base up.
    const unsigned base = (smem_u32(smem) + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1);
    auto a_stage = [&](unsigned s) { return base + s * STAGE_BYTES; };
    auto b_stage = [&](unsigned s) { return base + s * STAGE_BYTES + A_BYTES; };
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned tiles = (k + BK - 1) / BK;

    // Copies of k tile t into stage t % STAGES; the group is committed even past the last tile.
    auto load_tile = [&](unsigned t) {
        if (t < tiles) {
            const unsigned k0 = t * BK, stage = t % STAGES;
#pragma unroll
            for (unsigned i = 0; i < 4; ++i) {  // A: 8 consecutive threads per 128-byte row
                unsigned chunk = tid + i * THREADS;
                unsigned r = chunk / ROW_CHUNKS, cc = chunk % ROW_CHUNKS;
                copy_chunk(a_stage(stage) + swizzled(r, cc), a, m, k, row0 + r, k0 + cc * 8);
            }
#pragma unroll
            for (unsigned i = 0; i < 8; ++i) {  // B: chunk cc of a row goes to panel cc / 8
                unsigned chunk = tid + i * THREADS;
                unsigned r = chunk / (BN / 8), cc = chunk % (BN / 8);
                unsigned dst = b_stage(stage) + (cc / ROW_CHUNKS) * B_PANEL_BYTES + swizzled(r, cc % ROW_CHUNKS);
                copy_chunk(dst, b, k, n, k0 + r, col0 + cc * 8);
            }
        }
        cp_async_commit();
    };

    const unsigned warpgroup = tid / WARPGROUP;
    float acc[M64N256_ACC];
#pragma unroll
    for (int j = 0; j < M64N256_ACC; ++j) acc[j] = 0.0f;
    for (unsigned t = 0; t < STAGES - 1; ++t) load_tile(t);
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned stage = t % STAGES;
        // Tile t has landed: make it visible to the async proxy, then to the whole block.
        cp_async_wait_group<STAGES - 2>();
        fence_proxy_async_shared();
        __syncthreads();
        wgmma_fence();
#pragma unroll
        for (unsigned kk = 0; kk < 4; ++kk) {
            // A: this warpgroup's 64 rows, k16 step = 32 bytes; B: 16 k rows, all BN / 64 panels.
            unsigned long long a_desc =
                descriptor(a_stage(stage) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk * MMA_K * 2, 0, ATOM_BYTES);
            unsigned long long b_desc = descriptor(b_stage(stage) + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
            mma_m64n256k16<BF16>(acc, a_desc, b_desc);
        }
        wgmma_commit_group();
        // Tile t - 1 is done in both warpgroups after the barrier: its stage may be refilled.
        wgmma_wait_group<1>();
        __syncthreads();
        load_tile(t + STAGES - 1);
    }
    wgmma_wait_group<0>();

    // Accumulator layout: see device/wgmma.rs.
    const unsigned warp = (tid % WARPGROUP) / 32, lane = tid % 32;
    const unsigned r = row0 + warpgroup * WARPGROUP_ROWS + warp * 16 + lane / 4;
#pragma unroll
    for (unsigned j = 0; j < 32; ++j) {
        const unsigned col = col0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned rr = r + 8 * half;
            if (rr < m && col < n) {  // N is a multiple of 8 and col even: covers col + 1
                size_t at = (size_t)rr * n + col;
                c[at] = acc[4 * j + 2 * half];
                c[at + 1] = acc[4 * j + 2 * half + 1];
            }
        }
    }
}
}  // namespace w01

extern "C" __global__ void w01_wgmma_f16(const unsigned short* a, const unsigned short* b, float* c, unsigned m,
                                        unsigned n, unsigned k) {
    w01::wgmma_gemm<false>(a, b, c, m, n, k);
}
extern "C" __global__ void w01_wgmma_bf16(const unsigned short* a, const unsigned short* b, float* c, unsigned m,
                                         unsigned n, unsigned k) {
    w01::wgmma_gemm<true>(a, b, c, m, n, k);
}
