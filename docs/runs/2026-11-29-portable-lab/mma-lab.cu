// The portable GEMM's inner loop, taken apart: how much of the `mma.sync` ceiling is left once
// the fragments come from shared memory by `ldmatrix`, once a barrier closes every k tile, and
// once `cp.async` copies refill the tiles, at 1, 2, 3 or 4 warps per scheduler.
//
// Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o mma-lab mma-lab.cu && ./mma-lab
// (sm_90 or sm_80: nothing here needs sm_90a; `-Xptxas -v` shows each variant's registers.)
//
// Each block owns a shared tile like t05's stage (A 128 × 32, B 32 × 128, 16-bit, plus
// STAGES copies of it for the copy modes); each warp multiplies an MI × NI grid of m16n8k16
// tiles (MI = 4, NI = 8 is t05's 64 × 64) over k16 steps, forever re-reading the same tiles.
// No data is checked: the accumulators are written out so that nothing is dead code. Inputs
// are non-zero (tensor cores draw less power on zeros, and the clock then rises).
//
// Modes (what each step of a warp does):
//   0 mma         fragments held in registers, only the `mma` (the per-warp issue ceiling)
//   1 ld+mma      the step's fragments by `ldmatrix`, then its `mma` (t04's order)
//   2 ld-ahead    the next step's `ldmatrix` before this step's `mma` (t05's order)
//   3 +barrier    mode 2 with `__syncthreads` every K_STEPS steps (one k tile of 32)
//   4 +copies     mode 3 with each thread's `cp.async` of a k tile's chunks from global
//                 memory (a small, L2-resident buffer) into the next stage, waited for one
//                 tile later: t05's loop without HBM and without address arithmetic
//   5 +GEMM       mode 4 with a GEMM's addresses: block (bm, bn) of an n × n × n product of
//                 row-major 16-bit A and B copies its 128 × 32 tile of A and 32 × 128 of B
//                 per k tile, walking K, from HBM through L2 (no swizzle, no bounds, no
//                 epilogue): t05's memory traffic without the rest of t05
//   6 +GEMM, hot  mode 5 re-reading its first four k tiles (t % 4): the same instructions,
//                 the data in L2 after the first pass
//   7 +GEMM, lean mode 5's copies from three pointers a thread keeps, each copy at an
//                 immediate offset from one of them, and each copy instruction of a warp
//                 covering whole 32-byte sectors: a thread copies A's chunks (r, c), (r, c + 2)
//                 and (r + 64, same), r = tid / 2, c = tid % 2, and B's (r', c' + 4j), r' =
//                 tid / 4, c' = tid % 4; per k tile the pointers move by 32 columns of A and 32
//                 rows of B (128 threads only)
//   8 +GEMM, deep mode 7 with six stages (96 KB a block; two blocks still fit an SM)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_fp16.h>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));           \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)

constexpr int K_STEPS = 2;               // k16 steps per k tile of 32
constexpr int TILE_BYTES = 16 * 1024;    // one stage: A 128 × 32 + B 32 × 128, 16-bit
constexpr int STAGES = 4;

__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

template <int MI, int NI>
struct Frags {
    uint32_t a[MI][4];
    uint32_t b[NI / 2][4];  // each x4.trans gives two n8 tiles' (b0, b1)
};

// A fragment's address: 8 lanes of a phase read 8 consecutive 16-byte chunks (conflict-free,
// as t05's swizzle makes them), each fragment and step at its own place in the stage.
__device__ __forceinline__ uint32_t frag_addr(uint32_t stage, int slot, int kk, int lane) {
    return stage + ((((slot * K_STEPS + kk) * 32 + lane) * 16) & (TILE_BYTES - 1));
}

template <int MI, int NI>
__device__ __forceinline__ void load(Frags<MI, NI>& f, uint32_t stage, int kk, int lane) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) ldsm_x4(f.a[mi], frag_addr(stage, mi, kk, lane));
#pragma unroll
    for (int p = 0; p < NI / 2; ++p) ldsm_x4_t(f.b[p], frag_addr(stage, MI + p, kk, lane));
}

template <int MI, int NI>
__device__ __forceinline__ void multiply(float (&acc)[MI][NI][4], const Frags<MI, NI>& f) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            mma16816(acc[mi][ni], f.a[mi], f.b[ni / 2][2 * (ni % 2)], f.b[ni / 2][2 * (ni % 2) + 1]);
}

// Stages the kernel uses: one tile re-read, or a ring of `STAGES` for the copies.
__host__ __device__ constexpr int stages_of(int mode) { return mode == 8 ? 6 : mode >= 4 ? STAGES : 1; }

template <int MI, int NI, int MODE, int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
lab(float* out, const uint4* src, int tiles, int n) {
    constexpr int S = stages_of(MODE);  // stages in the ring
    extern __shared__ __align__(128) uint8_t smem[];
    const int lane = threadIdx.x % 32;
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    // Fill every stage with small non-zero halves.
    for (int i = threadIdx.x; i < stages_of(MODE) * TILE_BYTES / 4; i += THREADS) {
        const __half h = __float2half(((i * 37 + 11) % 255 + 1) * (1.0f / 4096.0f));
        reinterpret_cast<__half2*>(smem)[i] = __halves2half2(h, __hneg(h));
    }
    __syncthreads();

    float acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[mi][ni][c] = 0.0f;

    Frags<MI, NI> f[2];
    load(f[0], base, 0, lane);
    if (MODE == 0) load(f[1], base, 1, lane);
    // Copies: each thread's share of a stage, in 16-byte chunks, from a buffer that stays in L2.
    constexpr int CHUNKS = TILE_BYTES / 16 / THREADS;
    const uint4* from = src + (blockIdx.x % 64) * (TILE_BYTES / 16) + threadIdx.x;
    // Mode 5: this block's tile of C, and the 16-byte chunk of A's and B's k tile `t` that
    // copy `c` of this thread takes (chunks of 8 halves; A's tile 4 a row, B's 16 a row).
    const int tiles_n = n / 128, bm = blockIdx.x / tiles_n, bn = blockIdx.x % tiles_n;
    auto gemm_chunk = [&](int t, int c) -> const uint4* {
        const int i = c * THREADS + threadIdx.x;
        const __half* h = reinterpret_cast<const __half*>(src);
        if (i < 512) return reinterpret_cast<const uint4*>(h + size_t(bm * 128 + i / 4) * n + t * 32 + (i % 4) * 8);
        const int j = i - 512;
        return reinterpret_cast<const uint4*>(h + size_t(n) * n + size_t(t * 32 + j / 16) * n + bn * 128 + (j % 16) * 8);
    };
    auto copy_tile = [&](int t, uint32_t dst) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c)
            cp_async16(dst + (c * THREADS + threadIdx.x) * 16, MODE == 5 ? gemm_chunk(t, c) : MODE == 6 ? gemm_chunk(t % 4, c) : from + c * THREADS);
        cp_commit();
    };
    // Mode 7: the three pointers (16-bit elements) and the thread's places in a stage.
    const __half* h = reinterpret_cast<const __half*>(src);
    const __half* a_rows = h + size_t(bm * 128 + threadIdx.x / 2) * n + (threadIdx.x % 2) * 8;
    const __half* a_rows64 = a_rows + size_t(64) * n;
    const __half* b_row = h + size_t(n) * n + size_t(threadIdx.x / 4) * n + bn * 128 + (threadIdx.x % 4) * 8;
    const uint32_t a_dst = (threadIdx.x / 2) * 64 + (threadIdx.x % 2) * 16;
    const uint32_t b_dst = 8192 + (threadIdx.x / 4) * 256 + (threadIdx.x % 4) * 16;
    const size_t b_step = size_t(32) * n;
    auto copy_lean = [&](uint32_t dst) {
        cp_async16(dst + a_dst, a_rows);
        cp_async16(dst + a_dst + 32, a_rows + 16);
        cp_async16(dst + a_dst + 64 * 64, a_rows64);
        cp_async16(dst + a_dst + 64 * 64 + 32, a_rows64 + 16);
#pragma unroll
        for (int j = 0; j < 4; ++j) cp_async16(dst + b_dst + 64 * j, b_row + 32 * j);
        cp_commit();
        a_rows += 32;
        a_rows64 += 32;
        b_row += b_step;
    };
    if (MODE >= 4 && MODE <= 6)
        for (int s = 0; s < S - 1; ++s) copy_tile(s, base + s * TILE_BYTES);
    if (MODE >= 7)
        for (int s = 0; s < S - 1; ++s) copy_lean(base + s * TILE_BYTES);

    for (int t = 0; t < tiles; ++t) {
        const uint32_t stage = base + (MODE >= 4 ? (t % S) * TILE_BYTES : 0);
        if constexpr (MODE >= 4) {
            cp_wait<(S >= 2 ? S - 2 : 0)>();
            __syncthreads();
            const uint32_t next = base + ((t + S - 1) % S) * TILE_BYTES;
            if (MODE == 4 || t + S - 1 < tiles) {
                if (MODE >= 7) copy_lean(next);
                else copy_tile(t + S - 1, next);
            } else {
                cp_commit();
            }
        } else if (MODE == 3) {
            __syncthreads();
        }
#pragma unroll
        for (int kk = 0; kk < K_STEPS; ++kk) {
            if (MODE == 0) {
                multiply(acc, f[kk]);
            } else if (MODE == 1) {
                load(f[0], stage, kk, lane);
                multiply(acc, f[0]);
            } else {
                // The next step's fragments first (the next tile's first step from this stage:
                // the lab's copies land in other stages, and the values do not matter).
                load(f[(kk + 1) % 2], stage, (kk + 1) % K_STEPS, lane);
                multiply(acc, f[kk % 2]);
            }
        }
    }
    if constexpr (MODE >= 4) cp_wait<0>();
    float sum = 0.0f;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int c = 0; c < 4; ++c) sum += acc[mi][ni][c];
    out[blockIdx.x * THREADS + threadIdx.x] = sum;
}

struct Result { double tflops; float ms; };

template <int MI, int NI, int MODE, int THREADS, int MIN_BLOCKS>
Result run(const char* name, int sms, float* out, const uint4* src, int min_smem = 0, int n = 0) {
    // LAB_ONLY=text: run only the variants whose name holds it (for ncu: one launch each then).
    const char* only = std::getenv("LAB_ONLY");
    if (only && !std::strstr(name, only)) return {1.0, 0.0f};
    auto kernel = lab<MI, NI, MODE, THREADS, MIN_BLOCKS>;
    // min_smem: more dynamic shared memory than the kernel uses, to keep blocks off an SM.
    const int smem = std::max(stages_of(MODE) * TILE_BYTES, min_smem);
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, kernel));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, smem));
    // Four waves of blocks, 4096 k tiles each; or, for mode 5, the n × n × n product's.
    const int blocks = MODE >= 5 ? (n / 128) * (n / 128) : sms * per_sm * 4;
    const int tiles = MODE >= 5 ? n / 32 : 4096;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    kernel<<<blocks, THREADS, smem>>>(out, src, tiles, n);  // warm-up
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int r = 0; r < 7; ++r) {
        CK(cudaEventRecord(a));
        kernel<<<blocks, THREADS, smem>>>(out, src, tiles, n);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    const float ms = times[times.size() / 2];
    const double flops = 2.0 * 16 * 8 * 16 * MI * NI * K_STEPS * double(tiles) * (THREADS / 32) * blocks;
    const double tflops = flops / (ms * 1e-3) / 1e12;
    std::printf("%-34s %3d regs %2d spill-B  %d blk/SM  %d warps/sched  %7.1f TFLOP/s  %6.2f ms\n", name,
                attr.numRegs, int(attr.localSizeBytes), per_sm, per_sm * THREADS / 32 / 4, tflops, ms);
    return {tflops, ms};
}

int main() {
    int dev = 0, sms = 0;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    std::printf("%s, %d SMs\n", prop.name, sms);
    float* out;
    uint4* src;
    // `out`: a word per thread of the largest grid (8192² / 128² blocks of up to 256 threads);
    // `src`: A and B of an 8192³ product, 16-bit (modes 4 and 5 read their first 1 MB or all).
    constexpr size_t N_MAX = 8192;
    CK(cudaMalloc(&out, (N_MAX / 128) * (N_MAX / 128) * 256 * sizeof(float)));
    CK(cudaMalloc(&src, 2 * N_MAX * N_MAX * 2));
    CK(cudaMemset(src, 0x11, 2 * N_MAX * N_MAX * 2));

    // The ceiling: mma only, small warp tiles, many warps per scheduler (p8's kind of kernel).
    const double ceiling = run<2, 4, 0, 256, 2>("ceiling: 32x32 mma only, 8 warps x2", sms, out, src).tflops;
    auto pct = [&](Result r) { std::printf("%80s %.1f %% of the ceiling\n", "", 100.0 * r.tflops / ceiling); };
    std::printf("-- 64x64 warp tile (t05's), 4 warps a block\n");
    pct(run<4, 8, 0, 128, 2>("64x64 mode 0 mma only", sms, out, src));
    pct(run<4, 8, 1, 128, 2>("64x64 mode 1 ld+mma", sms, out, src));
    pct(run<4, 8, 2, 128, 2>("64x64 mode 2 ld-ahead", sms, out, src));
    pct(run<4, 8, 3, 128, 2>("64x64 mode 3 +barrier", sms, out, src));
    pct(run<4, 8, 4, 128, 2>("64x64 mode 4 +copies", sms, out, src));
    pct(run<4, 8, 2, 128, 1>("64x64 mode 2, 1 warp/sched", sms, out, src, 160 * 1024));
    pct(run<4, 8, 5, 128, 2>("64x64 mode 5 +GEMM 4096", sms, out, src, 0, 4096));
    pct(run<4, 8, 5, 128, 2>("64x64 mode 5 +GEMM 8192", sms, out, src, 0, 8192));
    pct(run<4, 8, 6, 128, 2>("64x64 mode 6 +GEMM 4096, hot", sms, out, src, 0, 4096));
    pct(run<4, 8, 6, 128, 2>("64x64 mode 6 +GEMM 8192, hot", sms, out, src, 0, 8192));
    pct(run<4, 8, 7, 128, 2>("64x64 mode 7 +GEMM 4096, lean", sms, out, src, 0, 4096));
    pct(run<4, 8, 7, 128, 2>("64x64 mode 7 +GEMM 8192, lean", sms, out, src, 0, 8192));
    pct(run<4, 8, 8, 128, 2>("64x64 mode 8 +GEMM 4096, lean, 6 st", sms, out, src, 0, 4096));
    pct(run<4, 8, 8, 128, 2>("64x64 mode 8 +GEMM 8192, lean, 6 st", sms, out, src, 0, 8192));
    std::printf("-- 64x64 warp tile, 8 warps a block (one block an SM)\n");
    pct(run<4, 8, 2, 256, 1>("64x64 mode 2 ld-ahead, 256 thr", sms, out, src));
    pct(run<4, 8, 3, 256, 1>("64x64 mode 3 +barrier, 256 thr", sms, out, src));
    pct(run<4, 8, 4, 256, 1>("64x64 mode 4 +copies, 256 thr", sms, out, src));
    std::printf("-- 64x32 warp tile, 3 warps per scheduler\n");
    pct(run<4, 4, 0, 128, 3>("64x32 mode 0 mma only", sms, out, src));
    pct(run<4, 4, 2, 128, 3>("64x32 mode 2 ld-ahead", sms, out, src));
    pct(run<4, 4, 3, 128, 3>("64x32 mode 3 +barrier", sms, out, src));
    pct(run<4, 4, 4, 128, 3>("64x32 mode 4 +copies", sms, out, src));
    std::printf("-- 32x64 warp tile, 4 warps per scheduler\n");
    pct(run<2, 8, 2, 128, 4>("32x64 mode 2 ld-ahead", sms, out, src));
    pct(run<2, 8, 3, 128, 4>("32x64 mode 3 +barrier", sms, out, src));
    pct(run<2, 8, 4, 128, 3>("32x64 mode 4 +copies (3 blocks: 64 KB each)", sms, out, src));
    std::printf("-- the ceiling's kernel at fewer warps per scheduler\n");
    pct(run<2, 4, 0, 128, 2>("32x32 mode 0, 4 warps a block", sms, out, src));
    pct(run<2, 4, 0, 128, 1>("32x32 mode 0, 1 warp/sched", sms, out, src, 160 * 1024));
    return 0;
}
