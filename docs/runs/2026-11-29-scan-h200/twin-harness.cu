// Why s12 moves 86.8 % of a copy's bytes at 2^30 in the host on an H200 while the laboratory's
// kernel of the same design (ring-lab.cu's producer6-wide-early) moves 91.5 %. The first run of
// this file timed the step's own twin, built here by nvcc, the laboratory's way, with the host's
// L2 flush (a read of twice the L2, where the laboratory writes 512 MiB) and inputs (random
// words over the whole range, where the laboratory's are below 2^24) as switches: 86.5-86.7 %
// of the copy in all four (harness-1.txt), so neither the host nor its inputs are the cause
// (that version is in the repository's history; this one keeps the host's inputs and the
// laboratory's flush).
// This version times the laboratory's kernel beside the twin in one process, with the way the
// consumers free a slot as a switch (the difference the H100 measurements did not cover).
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

// The laboratory's kernel (ring-lab.cu's ring_producer<6, 1, 128, EARLY = 1>), copied, with the
// one difference from the step still untried on an H200 as a switch: how the consumers free a
// slot. ARRIVE 0: thread 0 after the consumers' barrier (the laboratory, and the step measured
// on the H100); 1: lane 0 of each consumer warp; 2: every consumer (the step now).
namespace lab {
constexpr u32 TILE = s12::TILE;
constexpr u32 WARPS = s12::CONSUMERS / WARP_SIZE;
constexpr u32 NO_TILE = 0xffffffffu;
constexpr u32 STAGES = 6;
constexpr u32 AHEAD = 128;
__device__ __forceinline__ void sync_consumers() { sync_named(1, s11::THREADS); }
__device__ __forceinline__ u64 window_word(u64* state, state::Claim claim, long long end, u32 j) {
    const long long t = end - 1 - (long long)(j * 256 + threadIdx.x);
    return t >= 0 ? state::read(state, (u32)t) : status::word(claim.epoch, status::PREFIX, 0);
}

template <int MULT>
__device__ __forceinline__ u32 wide_lookback_c(u64* state, state::Claim claim, u32* flags, u32* sums, u32& rounds,
                                               u64 first = 0) {
    constexpr u32 SPAN = 256 * MULT;
    u32 before = 0;
    long long end = claim.tile;
    bool use_first = first != 0;
    while (true) {
        ++rounds;
        u64 w[MULT];
#pragma unroll
        for (int j = 0; j < MULT; ++j) w[j] = (j == 0 && use_first) ? first : window_word(state, claim, end, j);
        use_first = false;
#pragma unroll
        for (int j = 0; j < MULT; ++j) {
            const u32 kind = status::kind(w[j], claim.epoch);
            const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
            const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
            if (lane_idx() == 0) {
                flags[j * WARPS + warp_idx()] = prefixes != 0 ? j * 256 + warp_idx() * 32 + __ffs(prefixes) - 1 : SPAN;
                flags[(MULT + j) * WARPS + warp_idx()] = unwritten;
            }
        }
        sync_consumers();
        u32 nearest = SPAN;
        for (u32 k = 0; k < MULT * WARPS; ++k) nearest = min(nearest, flags[k]);
        bool again = false;
        for (u32 k = 0; k < MULT * WARPS; ++k) {
            const u32 first = (k / WARPS) * 256 + (k % WARPS) * 32;  // the position of the warp's lane 0
            const u32 counted = nearest >= first + 31 ? ALL_LANES : (nearest < first ? 0u : (2u << (nearest - first)) - 1);
            if (flags[MULT * WARPS + k] & counted) again = true;
        }
        if (again) {
            sync_consumers();
            continue;
        }
        u32 mine = 0;
#pragma unroll
        for (int j = 0; j < MULT; ++j)
            if (j * 256 + threadIdx.x <= nearest) mine += status::value(w[j]);
#pragma unroll
        for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(ALL_LANES, mine, d);
        if (lane_idx() == 0) sums[warp_idx()] = mine;
        sync_consumers();
        for (u32 k = 0; k < WARPS; ++k) before += sums[k];
        sync_consumers();
        if (nearest < SPAN) return before;
        end -= SPAN;
    }
}


// Flags: ARRIVE as above. The step's producer, one difference at a time: PARTIAL, the
// partial-tile copy in the loop (never taken here: n is a multiple of the tile); FULLSUM, the
// tile's sum unrolled in full (64 loads) instead of by eight; PFLOOP, the prefetch as a loop
// over lines with a bound check each; SHFLFIRST, the claim shared with the warp before lane 0
// issues the copy. And two candidate fixes: OVERLAP, the claim's atomic issued before the
// previous tile's sum and its result used after it; DIV32, the ticket's division in 32 bits
// while the ticket fits in 32 bits. SHIFT: the ring placed that many bytes past the dynamic
// shared memory's start. The laboratory's static shared arrays take 372 bytes, so its ring
// starts 128-byte aligned (0x180); the step's take 176, so its ring starts at 48 bytes past a
// 128-byte line (0xb0): SHIFT 48 puts the laboratory's ring where the step's is.
template <int ARRIVE, int PARTIAL = 0, int FULLSUM = 0, int PFLOOP = 0, int SHFLFIRST = 0, int OVERLAP = 0,
          int DIV32 = 0, int SHIFT = 0>
__global__ void __launch_bounds__(288) ring_producer(const u32* input, u32* output, u64 n, u64* state) {
    using E = I32;
    extern __shared__ __align__(16) u32 smem[];
    __shared__ u32 words[2 * STAGES + 1];
    __shared__ u32 flags[8 * WARPS], sums[WARPS], totals[WARPS];
    const u32 tiles = (u32)(n / TILE);
    const u64 per_launch = (u64)tiles + gridDim.x;
    auto slot = [&](u32 s) { return smem + SHIFT / 4 + s * TILE; };
    const u32 bars = smem_u32(smem + SHIFT / 4 + STAGES * TILE);
    auto full = [&](u32 s) { return bars + 8 * s; };
    auto empty = [&](u32 s) { return bars + 8 * (STAGES + s); };
    constexpr u32 ARRIVALS = ARRIVE == 0 ? 1 : ARRIVE == 1 ? WARPS : s12::CONSUMERS;
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < STAGES; ++s) mbarrier_init(full(s), 1), mbarrier_init(empty(s), ARRIVALS);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp_idx() == WARPS) {
        u32 i = 0;
        bool last_pending = false;
        // The sum of the tile claimed before, published (tile 0's as its prefix).
        auto sum_previous = [&]() {
            const u32 p = (i + STAGES - 1) % STAGES;
            mbarrier_wait(full(p), ((i - 1) / STAGES) & 1);
            const uint4* units = reinterpret_cast<const uint4*>(slot(p));
            u32 sum = 0;
            if constexpr (FULLSUM) {
#pragma unroll
                for (u32 k = 0; k < TILE / 4 / 32; ++k) {
                    const uint4 u = units[k * 32 + lane_idx()];
                    sum += u.x + u.y + u.z + u.w;
                }
            } else {
#pragma unroll 8
                for (u32 k = 0; k < TILE / 4 / 32; ++k) {
                    const uint4 u = units[k * 32 + lane_idx()];
                    sum += u.x + u.y + u.z + u.w;
                }
            }
#pragma unroll
            for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(ALL_LANES, sum, d);
            if (lane_idx() == 0) {
                const state::Claim c = {words[2 * p], words[2 * p + 1]};
                state::publish(state, c, c.tile == 0 ? status::PREFIX : status::AGGREGATE, sum);
            }
        };
        for (;; ++i) {
            const u32 s = i % STAGES;
            if (i >= STAGES) mbarrier_wait(empty(s), ((i / STAGES) - 1) & 1);
            u64 ticket = 0;
            if (lane_idx() == 0) ticket = atomicAdd(state, 1ull);
            if constexpr (OVERLAP) {
                if (last_pending) sum_previous();
            }
            u32 t = 0;
            if (lane_idx() == 0) {
                u32 epoch;
                if (DIV32 && (ticket >> 32) == 0 && (per_launch >> 32) == 0) {
                    const u32 q = (u32)ticket / (u32)per_launch;
                    t = (u32)ticket - q * (u32)per_launch;
                    epoch = q + 1;
                } else {
                    t = (u32)(ticket % per_launch);
                    epoch = (u32)(ticket / per_launch) + 1;
                }
                words[2 * s] = t < tiles ? t : NO_TILE;
                words[2 * s + 1] = epoch;
                if (!SHFLFIRST) {
                    if (t < tiles) {
                        mbarrier_arrive_expect_tx(full(s), TILE * 4);
                        copy_bulk(smem_u32(slot(s)), input + (u64)t * TILE, TILE * 4, full(s));
                    } else {
                        mbarrier_arrive(full(s));
                    }
                }
            }
            t = __shfl_sync(ALL_LANES, t, 0);
            if constexpr (PARTIAL) {
                const u64 start = (u64)t * TILE;
                if (t < tiles && start + TILE > n)
                    for (u32 k = lane_idx(); k < TILE; k += WARP_SIZE) slot(s)[k] = start + k < n ? input[start + k] : 0;
            }
            if (SHFLFIRST && lane_idx() == 0) {
                if (t < tiles) {
                    mbarrier_arrive_expect_tx(full(s), TILE * 4);
                    copy_bulk(smem_u32(slot(s)), input + (u64)t * TILE, TILE * 4, full(s));
                } else {
                    mbarrier_arrive(full(s));
                }
            }
            if (t < tiles) {
                if constexpr (PFLOOP) {
                    const u64 ahead = ((u64)t + AHEAD) * TILE;
                    for (u32 line = lane_idx(); line < TILE / 32; line += WARP_SIZE)
                        if (ahead + 32 * (u64)line < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(input + ahead + 32 * (u64)line));
                } else {
                    const u64 ahead = ((u64)t + AHEAD) * TILE;
                    for (u32 k = 0; k < TILE / 32 / 32; ++k) {
                        const u64 line = ahead + (u64)(k * 32 + lane_idx()) * 32;
                        if (line < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(input + line));
                    }
                }
            }
            if constexpr (!OVERLAP) {
                if (last_pending) sum_previous();
            }
            if (t >= tiles) break;
            last_pending = true;
        }
        return;
    }
    for (u32 i = 0;; ++i) {
        const u32 s = i % STAGES;
        mbarrier_wait(full(s), (i / STAGES) & 1);
        const u32 t = words[2 * s];
        if (t == NO_TILE) break;
        const state::Claim c = {t, words[2 * s + 1]};
        const u64 first = t != 0 ? window_word(state, c, t, 0) : 0;
        const bulk::Rows<E> rows = bulk::scan_rows_of<E>(slot(s), bulk::Values<E>{});
        if (lane_idx() == WARP_SIZE - 1) totals[warp_idx()] = (u32)rows.warp_total;
        sync_consumers();
        u32 before_warp = 0, aggregate = 0;
        for (u32 k = 0; k < WARPS; ++k) {
            if (k < warp_idx()) before_warp += totals[k];
            aggregate += totals[k];
        }
        u32 before_tile = 0, rounds = 0;
        if (t != 0) before_tile = wide_lookback_c<1>(state, c, flags, sums, rounds, first);
        if (threadIdx.x == 0 && t != 0) state::publish(state, c, status::PREFIX, before_tile + aggregate);
        bulk::store_rows<E>(slot(s), output, n, (u64)t * TILE, (int)(before_tile + before_warp), rows, 0);
        sync_consumers();
        if (ARRIVE == 0 ? threadIdx.x == 0 : ARRIVE == 1 ? lane_idx() == 0 : true) mbarrier_arrive(empty(s));
    }
}
}  // namespace lab

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
    u32 *input, *output;
    u64* state;
    char* flush;
    const size_t flush_bytes = 512ull << 20;
    CHECK(cudaMalloc(&input, n * 4));
    CHECK(cudaMalloc(&output, n * 4));
    CHECK(cudaMalloc(&state, state_words(tiles) * 8));
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMemset(flush, 1, flush_bytes));
    std::vector<u32> full(n);  // random words over the whole range, as the host's
    u64 x = 0x9E3779B97F4A7C15ull;
    for (u64 i = 0; i < n; ++i) {
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
    const int reps = 20;
    CHECK(cudaMemcpy(input, full.data(), n * 4, cudaMemcpyHostToDevice));
    typedef void (*Kernel)(const u32*, u32*, u64, u64*);
    struct Variant {
        const char* name;
        Kernel kernel;
    };
    const Variant variants[] = {
        {"lab", lab::ring_producer<0>},
        {"lab + partial copy", lab::ring_producer<0, 1>},
        {"lab + full unroll", lab::ring_producer<0, 0, 1>},
        {"lab + prefetch loop", lab::ring_producer<0, 0, 0, 1>},
        {"lab + shuffle first", lab::ring_producer<0, 0, 0, 0, 1>},
        {"lab + all four", lab::ring_producer<0, 1, 1, 1, 1>},
        {"lab + overlap claim", lab::ring_producer<0, 0, 0, 0, 0, 1>},
        {"lab + 32-bit division", lab::ring_producer<0, 0, 0, 0, 0, 0, 1>},
        {"lab + overlap + div32", lab::ring_producer<0, 0, 0, 0, 0, 1, 1>},
        {"lab, ring at +48 bytes", lab::ring_producer<0, 0, 0, 0, 0, 0, 0, 48>},
        {"lab, ring at +16 bytes", lab::ring_producer<0, 0, 0, 0, 0, 0, 0, 16>},
        {"lab, ring at +64 bytes", lab::ring_producer<0, 0, 0, 0, 0, 0, 0, 64>},
        {"s12 twin", nullptr},
    };
    const int count = sizeof(variants) / sizeof(variants[0]);
    for (const Variant& v : variants)
        if (v.kernel) CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, s12::SHARED_BYTES + 128));
    std::vector<u32> expect(n), got(n);
    u32 run = 0;
    for (u64 i = 0; i < n; ++i) expect[i] = run += full[i];
    for (int pass = 0; pass < 2; ++pass) {
        for (int kk = 0; kk < count; ++kk) {
            const int k = pass == 0 ? kk : count - 1 - kk;
            std::vector<float> copy, scan;
            CHECK(cudaMemset(state, 0, state_words(tiles) * 8));
            CHECK(cudaMemset(output, 0xff, n * 4));
            for (int r = 0; r < reps + 3; ++r) {
                float ms;
                CHECK(cudaMemsetAsync(flush, r, flush_bytes));
                CHECK(cudaEventRecord(a));
                CHECK(cudaMemcpyAsync(output, input, n * 4, cudaMemcpyDeviceToDevice));
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaEventElapsedTime(&ms, a, b));
                if (r >= 3) copy.push_back(ms);
                CHECK(cudaMemsetAsync(flush, r, flush_bytes));
                CHECK(cudaEventRecord(a));
                if (variants[k].kernel) variants[k].kernel<<<grid, s12::THREADS, s12::SHARED_BYTES + 128>>>(input, output, n, state);
                else s12_producer_ring_i32<<<grid, s12::THREADS, s12::SHARED_BYTES>>>(input, output, n, state, 0, 0);
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaGetLastError());
                CHECK(cudaEventElapsedTime(&ms, a, b));
                if (r >= 3) scan.push_back(ms);
            }
            CHECK(cudaMemcpy(got.data(), output, n * 4, cudaMemcpyDeviceToHost));
            const bool ok = std::equal(expect.begin(), expect.end(), got.begin());
            const double c = median(copy) * 1e3, sc = median(scan) * 1e3;
            printf("pass %d %-24s copy %7.1f us  scan %7.1f us  %5.1f %% of copy  check %s\n", pass, variants[k].name, c, sc,
                   100.0 * c / sc, ok ? "ok" : "WRONG");
            fflush(stdout);
        }
    }
    return 0;
}
