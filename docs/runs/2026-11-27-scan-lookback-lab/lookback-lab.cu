// A laboratory for s11's look-back: s11's twin (twins/scan_bulk.cuh) with its look-back made
// a template, timed per variant after an L2 flush, checked against the CPU, and (STATS) each
// block's phases in SM cycles written per tile so their distribution can be read.
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -I twins docs/runs/2026-11-27-scan-lookback-lab/lookback-lab.cu -o lab && ./lab [log2 n]...
#include "scan_bulk.cuh"

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

struct Config {
    int lookback;  // 0: none (wrong sums: the structure's ceiling), 1: warp window
    int mult;      // windows of 32 tiles read per round trip
    int backoff;   // ns to sleep before reading a window again that had an unwritten word
    int ahead;     // tiles ahead for the L2 prefetch (0: none)
    int stats;     // write each block's phases
};

// Per tile: claim, copy, scan, look-back cycles; rounds; rereads; SM id; start (globaltimer).
constexpr int STAT_WORDS = 8;

template <int MULT, int BACKOFF>
__device__ __forceinline__ int lookback(u64* state, state::Claim claim, int aggregate, u32& rounds, u32& rereads) {
    using E = I32;
    const u32 lane = lane_idx();
    if (lane == 0) state::publish(state, claim, status::AGGREGATE, E::to_bits(aggregate));
    int before = 0;
    long long end = claim.tile;
    while (true) {
        u64 w[MULT];
#pragma unroll
        for (int j = 0; j < MULT; ++j) {
            const long long tile = end - 1 - 32 * j - (long long)lane;
            w[j] = tile >= 0 ? state::read(state, (u32)tile) : status::word(claim.epoch, status::PREFIX, 0);
        }
        ++rounds;
        bool done = false, again = false;
#pragma unroll
        for (int j = 0; j < MULT; ++j) {
            if (done || again) continue;
            const u32 kind = status::kind(w[j], claim.epoch);
            const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
            const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
            const u32 last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;
            const u32 counted = last == 31 ? ALL_LANES : (2u << last) - 1;
            if (unwritten & counted) {
                again = true;
                continue;
            }
            int mine = lane <= last ? (int)status::value(w[j]) : 0;
#pragma unroll
            for (int d = 16; d > 0; d /= 2) mine = (int)((u32)mine + (u32)__shfl_xor_sync(ALL_LANES, mine, d));
            before = (int)((u32)before + (u32)mine);
            end -= 32;
            if (prefixes != 0) done = true;
        }
        if (done) return before;
        if (again) {
            ++rereads;
            if (BACKOFF > 0) __nanosleep(BACKOFF);
        }
    }
}

template <int LB, int MULT, int BACKOFF, int AHEAD, int STATS, int TICKET>
__global__ void __launch_bounds__(256) lab(const u32* input, u32* output, u64 n, u64* state, u64* stats) {
    using E = I32;
    extern __shared__ __align__(16) u32 tile_words[];
    __shared__ u32 words[3];
    const long long c0 = clock64();
    const u32 bar = smem_u32(tile_words + s11::TILE);
    constexpr u64 TILE = s11::TILE;
    if (threadIdx.x == 0) {
        mbarrier_init(bar, 1);
        fence_barrier_init();
        const state::Claim claim = TICKET ? state::claim_tile(state, 0) : state::Claim{blockIdx.x, 1};
        words[0] = claim.tile;
        words[1] = claim.epoch;
        const u64 start = (u64)claim.tile * TILE;
        if (start + TILE <= n) {
            mbarrier_arrive_expect_tx(bar, s11::TILE * 4);
            copy_bulk(smem_u32(tile_words), input + start, s11::TILE * 4, bar);
        }
    }
    __syncthreads();
    const long long c1 = clock64();
    const state::Claim claim = {words[0], words[1]};
    const u64 start = (u64)claim.tile * TILE;
    if (AHEAD > 0) tile::prefetch(input, n, (u64)(claim.tile + AHEAD) * TILE, TILE);
    if (start + TILE <= n) {
        mbarrier_wait(bar, 0);
    } else {
        bulk::copy_partial_tile<E>(tile_words, input, n, start);
    }
    const long long c2 = clock64();
    u32 rounds = 0, rereads = 0;
    int before_tile = 0, base = 0;
    long long c3, c4;
    bulk::Rows<E> rows;
    if (LB == 2) {
        // Reduce first: the tile's total from each thread's sum, one barrier; warp 0 looks
        // back with it while the other warps scan their rows.
        __shared__ u32 warp_sums[s11::THREADS / WARP_SIZE];
        u32 mine = 0;
#pragma unroll
        for (u32 r = 0; r < s11::ROWS; ++r) {
            const uint4 u = reinterpret_cast<const uint4*>(tile_words)[bulk::first_unit() + r * WARP_SIZE];
            mine += u.x + u.y + u.z + u.w;
        }
#pragma unroll
        for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(ALL_LANES, mine, d);
        if (lane_idx() == 0) warp_sums[warp_idx()] = mine;
        __syncthreads();
        const u32 w = lane_idx() < s11::THREADS / WARP_SIZE ? warp_sums[lane_idx()] : 0;
        u32 below = lane_idx() < warp_idx() ? w : 0, total = w;
#pragma unroll
        for (int d = 16; d > 0; d /= 2) {
            below += __shfl_xor_sync(ALL_LANES, below, d);
            total += __shfl_xor_sync(ALL_LANES, total, d);
        }
        c3 = clock64();
        if (warp_idx() == 0) {
            int b = 0;
            if (claim.tile != 0) b = lookback<MULT, BACKOFF>(state, claim, (int)total, rounds, rereads);
            if (lane_idx() == 0) {
                state::publish(state, claim, status::PREFIX, (u32)b + total);
                words[2] = (u32)b;
            }
        }
        rows = bulk::scan_rows_of<E>(tile_words, bulk::Values<E>{});
        __syncthreads();
        before_tile = (int)words[2];
        base = (int)((u32)before_tile + below);
        c4 = clock64();
    } else {
        rows = bulk::scan_rows_of<E>(tile_words, bulk::Values<E>{});
        const int warp_total = lane_idx() == WARP_SIZE - 1 ? rows.warp_total : 0;
        const auto [before_warp, aggregate] = block_exclusive_scan<E>(warp_total);
        c3 = clock64();
        if (LB != 0) {
            if (warp_idx() == 0) {
                int b = 0;
                if (claim.tile != 0) b = lookback<MULT, BACKOFF>(state, claim, aggregate, rounds, rereads);
                if (lane_idx() == 0) {
                    state::publish(state, claim, status::PREFIX, (u32)(b + aggregate));
                    words[2] = (u32)b;
                }
            }
            __syncthreads();
            before_tile = (int)words[2];
        }
        base = (int)((u32)before_tile + (u32)before_warp);
        c4 = clock64();
    }
    bulk::store_rows<E>(tile_words, output, n, start, base, rows, 0);
    if (STATS && threadIdx.x == 0) {
        u64* s = stats + (u64)claim.tile * STAT_WORDS;
        u32 sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        u64 t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        s[0] = c1 - c0, s[1] = c2 - c1, s[2] = c3 - c2, s[3] = c4 - c3;
        s[4] = rounds, s[5] = rereads, s[6] = sm, s[7] = t;
    }
}

typedef void (*Kernel)(const u32*, u32*, u64, u64*, u64*);

struct Variant {
    const char* name;
    Kernel kernel;
    bool correct;  // sums expected right
    bool stats;
};

#define V(name, LB, M, B, A, S, T) {name, lab<LB, M, B, A, S, T>, LB != 0, S != 0}
static const Variant VARIANTS[] = {
    V("s11", 1, 1, 0, 128, 0, 1),
    V("no-lookback", 0, 1, 0, 128, 0, 1),
    V("no-lookback-no-ticket", 0, 1, 0, 128, 0, 0),
    V("backoff-100ns", 1, 1, 100, 128, 0, 1),
    V("reduce-first", 2, 1, 0, 128, 0, 1),
    V("reduce-first-backoff-100", 2, 1, 100, 128, 0, 1),
    V("reduce-first-ahead-64", 2, 1, 0, 64, 0, 1),
    V("s11-stats", 1, 1, 0, 128, 1, 1),
    V("reduce-first-stats", 2, 1, 0, 128, 1, 1),
};

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static double percentile(std::vector<double>& v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

int main(int argc, char** argv) {
    std::vector<int> logs;
    for (int i = 1; i < argc; ++i) logs.push_back(atoi(argv[i]));
    if (logs.empty()) logs = {30, 26, 23};
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, SMs %d, clock %d MHz\n", prop.name, prop.multiProcessorCount, clock_khz / 1000);
    const u64 max_n = 1ull << *std::max_element(logs.begin(), logs.end());
    u32 *input, *output;
    u64 *state, *stats;
    char* flush;
    const size_t flush_bytes = 512ull << 20;
    CHECK(cudaMalloc(&input, max_n * 4));
    CHECK(cudaMalloc(&output, max_n * 4));
    const u64 max_tiles = max_n / s11::TILE + 1;
    CHECK(cudaMalloc(&state, state_words(max_tiles) * 8));
    CHECK(cudaMalloc(&stats, max_tiles * STAT_WORDS * 8));
    CHECK(cudaMalloc(&flush, flush_bytes));
    std::vector<u32> host_in(max_n), host_out(max_n);
    u32 seed = 12345;
    for (u64 i = 0; i < max_n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        host_in[i] = seed >> 8;
    }
    CHECK(cudaMemcpy(input, host_in.data(), max_n * 4, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (const Variant& v : VARIANTS)
        CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, s11::SHARED_BYTES));
    const int reps = 30;
    for (int lg : logs) {
        const u64 n = 1ull << lg;
        const u64 tiles = (n + s11::TILE - 1) / s11::TILE;
        std::vector<u32> expect(n);
        u32 run = 0;
        for (u64 i = 0; i < n; ++i) expect[i] = run += host_in[i];
        // The copy, for the limit.
        std::vector<float> copy;
        for (int r = 0; r < reps + 3; ++r) {
            CHECK(cudaMemsetAsync(flush, r, flush_bytes));
            CHECK(cudaEventRecord(a));
            CHECK(cudaMemcpyAsync(output, input, n * 4, cudaMemcpyDeviceToDevice));
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            if (r >= 3) copy.push_back(ms);
        }
        const double copy_us = median(copy) * 1e3;
        printf("\nn = 2^%d: copy %.1f us, %.1f GB/s\n", lg, copy_us, 8.0 * n / copy_us / 1e3);
        // Twice through the variants, interleaved order the second time reversed.
        for (int pass = 0; pass < 2; ++pass) {
            const int count = sizeof(VARIANTS) / sizeof(VARIANTS[0]);
            for (int k = 0; k < count; ++k) {
                const Variant& v = VARIANTS[pass == 0 ? k : count - 1 - k];
                CHECK(cudaMemset(state, 0, state_words(tiles) * 8));
                CHECK(cudaMemset(output, 0xff, n * 4));
                std::vector<float> times;
                for (int r = 0; r < reps + 3; ++r) {
                    CHECK(cudaMemsetAsync(flush, r, flush_bytes));
                    CHECK(cudaEventRecord(a));
                    v.kernel<<<tiles, s11::THREADS, s11::SHARED_BYTES>>>(input, output, n, state, stats);
                    CHECK(cudaEventRecord(b));
                    CHECK(cudaEventSynchronize(b));
                    CHECK(cudaGetLastError());
                    float ms;
                    CHECK(cudaEventElapsedTime(&ms, a, b));
                    if (r >= 3) times.push_back(ms);
                }
                const double us = median(times) * 1e3;
                const char* check = "-";
                if (v.correct) {
                    CHECK(cudaMemcpy(host_out.data(), output, n * 4, cudaMemcpyDeviceToHost));
                    check = std::equal(expect.begin(), expect.end(), host_out.begin()) ? "ok" : "WRONG";
                }
                printf("pass %d %-26s %9.1f us %7.1f GB/s %5.1f %% of copy  check %s\n", pass, v.name, us,
                       8.0 * n / us / 1e3, 100.0 * copy_us / us, check);
                if (v.stats && pass == 0) {
                    std::vector<u64> s(tiles * STAT_WORDS);
                    CHECK(cudaMemcpy(s.data(), stats, s.size() * 8, cudaMemcpyDeviceToHost));
                    const char* names[] = {"claim", "copy", "scan", "lookback"};
                    for (int p = 0; p < 6; ++p) {
                        std::vector<double> x(tiles);
                        double sum = 0;
                        for (u64 t = 0; t < tiles; ++t) {
                            x[t] = p < 4 ? s[t * STAT_WORDS + p] * 1e3 / clock_khz : s[t * STAT_WORDS + p];
                            sum += x[t];
                        }
                        printf("    %-9s mean %8.2f p10 %8.2f p50 %8.2f p90 %8.2f p99 %8.2f max %8.2f %s\n",
                               p < 4 ? names[p] : (p == 4 ? "rounds" : "rereads"), sum / tiles,
                               percentile(x, 0.1), percentile(x, 0.5), percentile(x, 0.9), percentile(x, 0.99),
                               percentile(x, 1.0), p < 4 ? "us" : "");
                    }
                    // Finish times (globaltimer) in tile order: how far out of order do tiles end?
                    std::vector<double> late(tiles);
                    for (u64 t = 1; t < tiles; ++t)
                        late[t] = (double)(long long)(s[t * STAT_WORDS + 7] - s[(t - 1) * STAT_WORDS + 7]);
                    printf("    end(t) - end(t-1) ns: p10 %.0f p50 %.0f p90 %.0f p99 %.0f\n", percentile(late, 0.1),
                           percentile(late, 0.5), percentile(late, 0.9), percentile(late, 0.99));
                }
            }
        }
    }
    return 0;
}
