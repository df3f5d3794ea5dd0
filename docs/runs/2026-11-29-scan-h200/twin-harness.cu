// Why s12 moves 86.8 % of a copy's bytes at 2^30 in the host on an H200 while the laboratory's
// kernel of the same design (ring-lab.cu's producer6-wide-early) moves 91.5 %: the step's own
// twin, built here by nvcc, timed the laboratory's way, with the host's two differences as
// switches: its L2 flush (a read of twice the L2, where the laboratory writes 512 MiB) and its
// inputs (random words over the whole range, where the laboratory's are below 2^24).
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -I twins docs/runs/2026-11-29-scan-h200/twin-harness.cu -o harness && ./harness
#include "scan/s12_producer_ring.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                     \
    do {                                                                                             \
        cudaError_t e = (x);                                                                         \
        if (e != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));       \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

// The host's flush: every block reads its share of the buffer, 16 bytes a thread at a time.
__global__ void read_flush(const uint4* buffer, u64 units, u32* sink) {
    u32 acc = 0;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < units; i += (u64)gridDim.x * blockDim.x) {
        const uint4 u = buffer[i];
        acc ^= u.x ^ u.y ^ u.z ^ u.w;
    }
    if (acc == 0x12345678u) *sink = acc;
}

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    const int lg = 30;
    const u64 n = 1ull << lg, tiles = n / s12::TILE;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, SMs %d, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    u32 *input, *output, *sink;
    u64* state;
    char* flush;
    const size_t flush_bytes = 512ull << 20;
    CHECK(cudaMalloc(&input, n * 4));
    CHECK(cudaMalloc(&output, n * 4));
    CHECK(cudaMalloc(&state, state_words(tiles) * 8));
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(flush, 1, flush_bytes));
    std::vector<u32> small(n), full(n);
    u32 seed = 12345;
    u64 x = 0x9E3779B97F4A7C15ull;
    for (u64 i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        small[i] = seed >> 8;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        full[i] = (u32)(x >> 16);
    }
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaFuncSetAttribute(s12_producer_ring_i32, cudaFuncAttributeMaxDynamicSharedMemorySize, s12::SHARED_BYTES));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, s12_producer_ring_i32, s12::THREADS, s12::SHARED_BYTES));
    const u32 grid = (u32)std::min<u64>(tiles, (u64)per_sm * prop.multiProcessorCount);
    const u32 l2_units = (u32)(2ull * prop.l2CacheSize / 16);
    const int reps = 20;
    for (int data = 0; data < 2; ++data) {
        CHECK(cudaMemcpy(input, data == 0 ? small.data() : full.data(), n * 4, cudaMemcpyHostToDevice));
        for (int flush_kind = 0; flush_kind < 2; ++flush_kind) {
            auto do_flush = [&](int r) {
                if (flush_kind == 0) CHECK(cudaMemsetAsync(flush, r, flush_bytes));
                else read_flush<<<4 * prop.multiProcessorCount, 256>>>((const uint4*)flush, l2_units, sink);
            };
            std::vector<float> copy, scan;
            CHECK(cudaMemset(state, 0, state_words(tiles) * 8));
            for (int r = 0; r < reps + 3; ++r) {
                float ms;
                do_flush(r);
                CHECK(cudaEventRecord(a));
                CHECK(cudaMemcpyAsync(output, input, n * 4, cudaMemcpyDeviceToDevice));
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaEventElapsedTime(&ms, a, b));
                if (r >= 3) copy.push_back(ms);
                do_flush(r);
                CHECK(cudaEventRecord(a));
                s12_producer_ring_i32<<<grid, s12::THREADS, s12::SHARED_BYTES>>>(input, output, n, state, 0, 0);
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaGetLastError());
                CHECK(cudaEventElapsedTime(&ms, a, b));
                if (r >= 3) scan.push_back(ms);
            }
            const double c = median(copy) * 1e3, s = median(scan) * 1e3;
            printf("inputs %-22s flush %-18s copy %7.1f us  s12 twin %7.1f us  %5.1f %% of copy\n",
                   data == 0 ? "below 2^24 (lab)" : "full range (host)", flush_kind == 0 ? "memset (lab)" : "read 2 x L2 (host)",
                   c, s, 100.0 * c / s);
            fflush(stdout);
        }
    }
    return 0;
}
