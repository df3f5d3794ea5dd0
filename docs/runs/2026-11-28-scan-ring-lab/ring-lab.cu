// A laboratory for a persistent scan: a wave of resident blocks, each with a ring of STAGES
// 32 KiB slots that thread 0 refills by bulk copy as they free, s11's rows and stores. Two
// questions: how fast is this structure with no look-back at all (wrong sums: its ceiling,
// against s11's 92.4 % of a copy on an H200), and with a look-back wide enough for it (the
// whole block reads 256 predecessors' words per round trip: in a persistent grid the nearest
// inclusive prefix is about a wave of tiles back, which a warp's 32 reach in many trips).
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -I twins docs/runs/2026-11-28-scan-ring-lab/ring-lab.cu -o ring && ./ring [log2 n]...
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

constexpr u32 TILE = s11::TILE;
constexpr u32 WARPS = s11::THREADS / WARP_SIZE;
constexpr u32 NO_TILE = 0xffffffffu;

// Block-wide look-back: the 256 words before `end` per round trip, all threads.
__device__ __forceinline__ u32 wide_lookback(u64* state, state::Claim claim, u32* flags, u32* sums) {
    u32 before = 0;
    long long end = claim.tile;
    while (true) {
        const long long t = end - 1 - (long long)threadIdx.x;
        const u64 w = t >= 0 ? state::read(state, (u32)t) : status::word(claim.epoch, status::PREFIX, 0);
        const u32 kind = status::kind(w, claim.epoch);
        const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
        const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
        if (lane_idx() == 0) {
            flags[warp_idx()] = prefixes != 0 ? warp_idx() * 32 + __ffs(prefixes) - 1 : 256;
            flags[WARPS + warp_idx()] = unwritten;
        }
        __syncthreads();
        u32 nearest = 256;
        for (u32 k = 0; k < WARPS; ++k) nearest = min(nearest, flags[k]);
        bool again = false;
        for (u32 k = 0; k < WARPS; ++k) {
            const u32 mask = flags[WARPS + k];
            // Positions k*32 + lane up to `nearest` count.
            const u32 counted = nearest >= k * 32 + 31 ? ALL_LANES : (nearest < k * 32 ? 0u : (2u << (nearest - k * 32)) - 1);
            if (mask & counted) again = true;
        }
        if (again) {
            __syncthreads();
            continue;
        }
        u32 mine = threadIdx.x <= nearest ? status::value(w) : 0;
#pragma unroll
        for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(ALL_LANES, mine, d);
        if (lane_idx() == 0) sums[warp_idx()] = mine;
        __syncthreads();
        for (u32 k = 0; k < WARPS; ++k) before += sums[k];
        __syncthreads();
        if (nearest < 256) return before;
        end -= 256;
    }
}

// MODE 0: no look-back (wrong sums); 1: s09's warp window; 2: the block-wide window.
template <int STAGES, int MODE, int AHEAD>
__global__ void __launch_bounds__(256) ring(const u32* input, u32* output, u64 n, u64* state) {
    using E = I32;
    extern __shared__ __align__(16) u32 smem[];
    __shared__ u32 words[2 * STAGES + 1];
    __shared__ u32 flags[2 * WARPS], sums[WARPS];
    const u32 tiles = (u32)(n / TILE);  // the lab's n are multiples of TILE
    const u64 per_launch = (u64)tiles + gridDim.x;
    auto slot = [&](u32 s) { return smem + s * TILE; };
    auto bar = [&](u32 s) { return smem_u32(smem + STAGES * TILE) + 8 * s; };
    bool done = false;
    auto claim = [&](u32 s) {
        if (done) {
            words[2 * s] = NO_TILE;
            return;
        }
        const u64 ticket = atomicAdd(state, 1ull);
        const u32 t = (u32)(ticket % per_launch);
        if (t >= tiles) {
            done = true;
            words[2 * s] = NO_TILE;
            return;
        }
        words[2 * s] = t;
        words[2 * s + 1] = (u32)(ticket / per_launch) + 1;
        mbarrier_arrive_expect_tx(bar(s), TILE * 4);
        copy_bulk(smem_u32(slot(s)), input + (u64)t * TILE, TILE * 4, bar(s));
    };
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < STAGES; ++s) mbarrier_init(bar(s), 1);
        fence_barrier_init();
        for (u32 s = 0; s < STAGES; ++s) claim(s);
    }
    __syncthreads();
    for (u32 i = 0;; ++i) {
        const u32 s = i % STAGES;
        const u32 t = words[2 * s];
        if (t == NO_TILE) break;
        const state::Claim c = {t, words[2 * s + 1]};
        const u64 start = (u64)t * TILE;
        if (AHEAD > 0) tile::prefetch(input, n, (u64)(t + AHEAD) * TILE, TILE);
        mbarrier_wait(bar(s), (i / STAGES) & 1);
        const bulk::Rows<E> rows = bulk::scan_rows_of<E>(slot(s), bulk::Values<E>{});
        const int warp_total = lane_idx() == WARP_SIZE - 1 ? rows.warp_total : 0;
        const auto [before_warp, aggregate] = block_exclusive_scan<E>(warp_total);
        u32 before_tile = 0;
        if (MODE == 1) {
            if (warp_idx() == 0) {
                int b = 0;
                if (t != 0) b = WarpWindow<E>::prefix_before(state, c, aggregate, 0);
                if (lane_idx() == 0) {
                    state::publish(state, c, status::PREFIX, (u32)(b + aggregate));
                    words[2 * STAGES] = (u32)b;
                }
            }
            __syncthreads();
            before_tile = words[2 * STAGES];
        } else if (MODE == 2) {
            if (threadIdx.x == 0) state::publish(state, c, status::AGGREGATE, (u32)aggregate);
            before_tile = t != 0 ? wide_lookback(state, c, flags, sums) : 0;
            if (threadIdx.x == 0) state::publish(state, c, status::PREFIX, before_tile + (u32)aggregate);
        }
        bulk::store_rows<E>(slot(s), output, n, start, (int)(before_tile + (u32)before_warp), rows, 0);
        __syncthreads();
        if (threadIdx.x == 0) claim(s);
    }
}


// The consumers' barrier (named barrier 1, the 256 consumer threads; the producer warp is not
// in it).
__device__ __forceinline__ void sync_consumers() { sync_named(1, s11::THREADS); }

// As wide_lookback, on the consumers' barrier, reading aggregates the producer published:
// MULT × 256 words per round trip (word j·256 + thread of the window).
__device__ __forceinline__ u64 window_word(u64* state, state::Claim claim, long long end, u32 j) {
    const long long t = end - 1 - (long long)(j * 256 + threadIdx.x);
    return t >= 0 ? state::read(state, (u32)t) : status::word(claim.epoch, status::PREFIX, 0);
}

// `first`: the first window's word, read by the caller (EARLY: before the tile's scan, so
// that its round trip runs under it); 0 reads it here.
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

// A ring whose aggregates a producer warp publishes as each tile lands: warp 8 claims the
// tiles, starts their copies, and sums each landed tile while the consumers (warps 0-7) scan,
// look back (WIDE: 256 words per round trip; else 32) and store the one before. No tile's
// aggregate then waits for a look-back. Launched with 288 threads.
// BULK: the consumers write the scanned tile back into its slot and thread 0 stores it with one
// bulk copy (cp.async.bulk.global.shared::cta), freeing the slot once the copy has read it
// (cp.async.bulk.wait_group.read, one store in flight); the slot is written only after the
// producer has summed it (a third barrier per slot).
__device__ __forceinline__ void store_bulk(u32* global, u32 shared, u32 bytes) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global), "r"(shared), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait_bulk_reads() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void wait_bulk_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

__device__ __forceinline__ void write_rows(u32* tile_words, u32 base, const bulk::Rows<I32>& rows) {
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const u32 u = bulk::first_unit() + r * WARP_SIZE;
        uint4 b = reinterpret_cast<const uint4*>(tile_words)[u];
        b.x += base + (u32)rows.before_lane[r];
        b.y += b.x;
        b.z += b.y;
        b.w += b.z;
        reinterpret_cast<uint4*>(tile_words)[u] = b;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

template <int STAGES, int WIDE, int AHEAD, int EARLY = 0, int BULK = 0>
__global__ void __launch_bounds__(288) ring_producer(const u32* input, u32* output, u64 n, u64* state) {
    using E = I32;
    extern __shared__ __align__(16) u32 smem[];
    __shared__ u32 words[2 * STAGES + 1];
    __shared__ u32 flags[8 * WARPS], sums[WARPS], totals[WARPS];
    const u32 tiles = (u32)(n / TILE);
    const u64 per_launch = (u64)tiles + gridDim.x;
    auto slot = [&](u32 s) { return smem + s * TILE; };
    const u32 bars = smem_u32(smem + STAGES * TILE);
    auto full = [&](u32 s) { return bars + 8 * s; };
    auto empty = [&](u32 s) { return bars + 8 * (STAGES + s); };
    auto summed = [&](u32 s) { return bars + 8 * (2 * STAGES + s); };
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < STAGES; ++s)
            mbarrier_init(full(s), 1), mbarrier_init(empty(s), 1), mbarrier_init(summed(s), 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp_idx() == WARPS) {
        // The producer warp.
        u32 i = 0;
        bool last_pending = false;
        for (;; ++i) {
            const u32 s = i % STAGES;
            if (i >= STAGES) mbarrier_wait(empty(s), ((i / STAGES) - 1) & 1);
            u32 t = 0, epoch = 0;
            if (lane_idx() == 0) {
                const u64 ticket = atomicAdd(state, 1ull);
                t = (u32)(ticket % per_launch);
                epoch = (u32)(ticket / per_launch) + 1;
                words[2 * s] = t < tiles ? t : NO_TILE;
                words[2 * s + 1] = epoch;
                if (t < tiles) {
                    mbarrier_arrive_expect_tx(full(s), TILE * 4);
                    copy_bulk(smem_u32(slot(s)), input + (u64)t * TILE, TILE * 4, full(s));
                } else {
                    mbarrier_arrive(full(s));
                }
            }
            t = __shfl_sync(ALL_LANES, t, 0);
            epoch = __shfl_sync(ALL_LANES, epoch, 0);
            if (t < tiles && AHEAD > 0) {
                const u64 ahead = ((u64)t + AHEAD) * TILE;
                for (u32 k = 0; k < TILE / 32 / 32; ++k) {
                    const u64 line = ahead + (u64)(k * 32 + lane_idx()) * 32;
                    if (line < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(input + line));
                }
            }
            // Sum the tile claimed before this one, which has had a copy's time to land.
            if (last_pending) {
                const u32 p = (i + STAGES - 1) % STAGES;
                mbarrier_wait(full(p), ((i - 1) / STAGES) & 1);
                const uint4* units = reinterpret_cast<const uint4*>(slot(p));
                u32 sum = 0;
#pragma unroll 8
                for (u32 k = 0; k < TILE / 4 / 32; ++k) {
                    const uint4 u = units[k * 32 + lane_idx()];
                    sum += u.x + u.y + u.z + u.w;
                }
#pragma unroll
                for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(ALL_LANES, sum, d);
                if (lane_idx() == 0) {
                    const state::Claim c = {words[2 * p], words[2 * p + 1]};
                    // Tile 0's prefix is its aggregate: the consumers publish it too.
                    state::publish(state, c, c.tile == 0 ? status::PREFIX : status::AGGREGATE, sum);
                    if (BULK) mbarrier_arrive(summed(p));
                }
            }
            if (t >= tiles) break;
            last_pending = true;
        }
        return;
    }
    // The consumers.
    for (u32 i = 0;; ++i) {
        const u32 s = i % STAGES;
        mbarrier_wait(full(s), (i / STAGES) & 1);
        const u32 t = words[2 * s];
        if (t == NO_TILE) break;
        const state::Claim c = {t, words[2 * s + 1]};
        // The window's first words, in flight under the scan (a status word is never 0: its
        // epoch is at least 1).
        const u64 first = EARLY && t != 0 ? window_word(state, c, t, 0) : 0;
        const bulk::Rows<E> rows = bulk::scan_rows_of<E>(slot(s), bulk::Values<E>{});
        if (lane_idx() == WARP_SIZE - 1) totals[warp_idx()] = (u32)rows.warp_total;
        sync_consumers();
        u32 before_warp = 0, aggregate = 0;
        for (u32 k = 0; k < WARPS; ++k) {
            if (k < warp_idx()) before_warp += totals[k];
            aggregate += totals[k];
        }
        u32 before_tile = 0, rounds = 0;
        if (t != 0 && WIDE >= 0) {
            if (WIDE > 0) {
                before_tile = wide_lookback_c<(WIDE > 0 ? WIDE : 1)>(state, c, flags, sums, rounds, first);
            } else {
                // s09's window without its publishing of the aggregate (the producer's).
                if (warp_idx() == 0) {
                    u32 before = 0;
                    long long end = t;
                    while (true) {
                        const long long tt = end - 1 - (long long)lane_idx();
                        const u64 w = tt >= 0 ? state::read(state, (u32)tt) : status::word(c.epoch, status::PREFIX, 0);
                        const u32 kind = status::kind(w, c.epoch);
                        const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
                        const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
                        const u32 last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;
                        const u32 counted = last == 31 ? ALL_LANES : (2u << last) - 1;
                        if (unwritten & counted) continue;
                        u32 mine = lane_idx() <= last ? status::value(w) : 0;
#pragma unroll
                        for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(ALL_LANES, mine, d);
                        before += mine;
                        if (prefixes != 0) break;
                        end -= 32;
                    }
                    if (lane_idx() == 0) words[2 * STAGES] = before;
                }
                sync_consumers();
                before_tile = words[2 * STAGES];
            }
        }
        if (threadIdx.x == 0 && t != 0) state::publish(state, c, status::PREFIX, before_tile + aggregate);
        if (BULK) {
            mbarrier_wait(summed(s), (i / STAGES) & 1);
            write_rows(slot(s), before_tile + before_warp, rows);
            sync_consumers();
            if (threadIdx.x == 0) {
                store_bulk(output + (u64)t * TILE, smem_u32(slot(s)), TILE * 4);
                wait_bulk_reads<1>();
                if (i > 0) mbarrier_arrive(empty((i + STAGES - 1) % STAGES));
            }
        } else {
            bulk::store_rows<E>(slot(s), output, n, (u64)t * TILE, (int)(before_tile + before_warp), rows, 0);
            sync_consumers();
            if (threadIdx.x == 0) mbarrier_arrive(empty(s));
        }
    }
    if (BULK && threadIdx.x == 0) wait_bulk_all();
}


// ---- Two consumer groups (not yet run): 16 consumer warps in two groups of eight, taking the
// ring's tiles in turn (group g the claims g, g + 2, ...), so that two tiles per SM are in their
// look-back at once; the producer as ring_producer's. 544 threads, one block per SM. After its
// first claim past the last tile the producer also marks the next slot empty of tiles, so that
// the other group stops too.
namespace two {
constexpr u32 GROUP = s11::THREADS;  // threads of a consumer group

__device__ __forceinline__ void sync_group(u32 g) { sync_named(1 + g, GROUP); }

// s11's row scan, by the group's warp `lw`.
__device__ __forceinline__ u32 scan_rows(const u32* tile, u32 lw, u32 (&before_lane)[s11::ROWS]) {
    const u32 first = lw * s11::ROWS * WARP_SIZE + lane_idx();
    u32 carry = 0;
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const uint4 b = reinterpret_cast<const uint4*>(tile)[first + r * WARP_SIZE];
        const u32 sum = b.x + b.y + b.z + b.w;
        u32 inc = sum;
#pragma unroll
        for (u32 d = 1; d < WARP_SIZE; d *= 2) {
            const u32 up = __shfl_up_sync(ALL_LANES, inc, d);
            if (lane_idx() >= d) inc += up;
        }
        const u32 row_total = __shfl_sync(ALL_LANES, inc, WARP_SIZE - 1);
        before_lane[r] = carry + inc - sum;
        carry += row_total;
    }
    return carry;
}

__device__ __forceinline__ void store_rows(const u32* tile, u32* output, u64 start, u32 base, u32 lw,
                                           const u32 (&before_lane)[s11::ROWS]) {
    const u32 first = lw * s11::ROWS * WARP_SIZE + lane_idx();
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const u32 u = first + r * WARP_SIZE;
        const uint4 b = reinterpret_cast<const uint4*>(tile)[u];
        const u32 x0 = base + before_lane[r] + b.x, x1 = x0 + b.y, x2 = x1 + b.z, x3 = x2 + b.w;
        __stcs(reinterpret_cast<int4*>(output + start + 4 * (u64)u), make_int4(x0, x1, x2, x3));
    }
}

__device__ __forceinline__ u64 window_word(u64* state, state::Claim claim, long long end, u32 lt) {
    const long long t = end - 1 - (long long)lt;
    return t >= 0 ? state::read(state, (u32)t) : status::word(claim.epoch, status::PREFIX, 0);
}

// The block-wide (group-wide) look-back of 256 words a round trip, `first` read under the scan.
__device__ __forceinline__ u32 look_back(u64* state, state::Claim claim, u64 first, u32 g, u32 lt, u32* scratch) {
    const u32 lw = lt / WARP_SIZE;
    u32 before = 0;
    long long end = claim.tile;
    u64 word = first;
    while (true) {
        const u32 kind = status::kind(word, claim.epoch);
        const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
        const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
        if (lane_idx() == 0) {
            scratch[lw] = prefixes != 0 ? lw * 32 + __ffs(prefixes) - 1 : 256;
            scratch[WARPS + lw] = unwritten;
        }
        sync_group(g);
        u32 nearest = 256;
        bool again = false;
        for (u32 k = 0; k < WARPS; ++k) nearest = min(nearest, scratch[k]);
        for (u32 k = 0; k < WARPS; ++k) {
            const u32 counted = nearest >= k * 32 + 31 ? ALL_LANES : (nearest < k * 32 ? 0u : (2u << (nearest - k * 32)) - 1);
            if (scratch[WARPS + k] & counted) again = true;
        }
        sync_group(g);
        if (!again) {
            u32 mine = lt <= nearest ? status::value(word) : 0;
#pragma unroll
            for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(ALL_LANES, mine, d);
            if (lane_idx() == 0) scratch[2 * WARPS + lw] = mine;
            sync_group(g);
            for (u32 k = 0; k < WARPS; ++k) before += scratch[2 * WARPS + k];
            sync_group(g);
            if (nearest < 256) return before;
            end -= 256;
        }
        word = window_word(state, claim, end, lt);
    }
}
}  // namespace two

template <int STAGES, int AHEAD>
__global__ void __launch_bounds__(544) ring_producer2(const u32* input, u32* output, u64 n, u64* state) {
    static_assert(STAGES % 2 == 0, "the groups take alternate slots");
    extern __shared__ __align__(16) u32 smem[];
    __shared__ u32 words[2 * STAGES];
    __shared__ u32 scratch[2][4 * WARPS];
    const u32 tiles = (u32)(n / TILE);
    const u64 per_launch = (u64)tiles + gridDim.x;
    auto slot = [&](u32 s) { return smem + s * TILE; };
    const u32 bars = smem_u32(smem + STAGES * TILE);
    auto full = [&](u32 s) { return bars + 8 * s; };
    auto empty = [&](u32 s) { return bars + 8 * (STAGES + s); };
    constexpr u32 PRODUCER = 2 * WARPS;
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < STAGES; ++s) mbarrier_init(full(s), 1), mbarrier_init(empty(s), 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp_idx() == PRODUCER) {
        bool last_pending = false, ended = false;
        for (u32 i = 0;; ++i) {
            const u32 s = i % STAGES;
            if (i >= STAGES) mbarrier_wait(empty(s), ((i / STAGES) - 1) & 1);
            u32 t = NO_TILE, epoch = 0;
            if (lane_idx() == 0) {
                if (!ended) {
                    const u64 ticket = atomicAdd(state, 1ull);
                    t = (u32)(ticket % per_launch);
                    epoch = (u32)(ticket / per_launch) + 1;
                    if (t >= tiles) t = NO_TILE;
                }
                words[2 * s] = t;
                words[2 * s + 1] = epoch;
                if (t != NO_TILE) {
                    mbarrier_arrive_expect_tx(full(s), TILE * 4);
                    copy_bulk(smem_u32(slot(s)), input + (u64)t * TILE, TILE * 4, full(s));
                } else {
                    mbarrier_arrive(full(s));
                }
            }
            t = __shfl_sync(ALL_LANES, t, 0);
            if (t != NO_TILE && AHEAD > 0) {
                const u64 ahead = ((u64)t + AHEAD) * TILE;
                for (u32 k = 0; k < TILE / 32 / 32; ++k) {
                    const u64 line = ahead + (u64)(k * 32 + lane_idx()) * 32;
                    if (line < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(input + line));
                }
            }
            if (last_pending) {
                const u32 p = (i + STAGES - 1) % STAGES;
                mbarrier_wait(full(p), ((i - 1) / STAGES) & 1);
                const uint4* units = reinterpret_cast<const uint4*>(slot(p));
                u32 sum = 0;
#pragma unroll 8
                for (u32 k = 0; k < TILE / 4 / 32; ++k) {
                    const uint4 u = units[k * 32 + lane_idx()];
                    sum += u.x + u.y + u.z + u.w;
                }
#pragma unroll
                for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(ALL_LANES, sum, d);
                if (lane_idx() == 0) {
                    const state::Claim c = {words[2 * p], words[2 * p + 1]};
                    state::publish(state, c, c.tile == 0 ? status::PREFIX : status::AGGREGATE, sum);
                }
            }
            last_pending = t != NO_TILE;
            if (t == NO_TILE) {
                if (ended) break;  // the second empty slot: both groups have been told
                ended = true;
            }
        }
        return;
    }
    const u32 g = warp_idx() / WARPS, lt = threadIdx.x % two::GROUP, lw = lt / WARP_SIZE;
    u32* scr = scratch[g];
    u32* totals = scr + 3 * WARPS;
    for (u32 i = g;; i += 2) {
        const u32 s = i % STAGES;
        mbarrier_wait(full(s), (i / STAGES) & 1);
        const u32 t = words[2 * s];
        if (t == NO_TILE) break;
        const state::Claim c = {t, words[2 * s + 1]};
        const u64 first = t != 0 ? two::window_word(state, c, t, lt) : 0;
        u32 before_lane[s11::ROWS];
        const u32 warp_total = two::scan_rows(slot(s), lw, before_lane);
        if (lane_idx() == 0) totals[lw] = warp_total;
        two::sync_group(g);
        u32 before_warp = 0, aggregate = 0;
        for (u32 k = 0; k < WARPS; ++k) {
            if (k < lw) before_warp += totals[k];
            aggregate += totals[k];
        }
        const u32 before_tile = t != 0 ? two::look_back(state, c, first, g, lt, scr) : 0;
        if (lt == 0 && t != 0) state::publish(state, c, status::PREFIX, before_tile + aggregate);
        two::store_rows(slot(s), output, (u64)t * TILE, before_tile + before_warp, lw, before_lane);
        two::sync_group(g);
        if (lt == 0) mbarrier_arrive(empty(s));
    }
}

typedef void (*Kernel)(const u32*, u32*, u64, u64*);
struct Variant {
    const char* name;
    Kernel kernel;
    int stages;
    bool correct;
    int threads;
};
#define V(name, S, M, A) {name, ring<S, M, A>, S, M != 0, 256}
#define P(name, S, W, A) {name, ring_producer<S, W, A>, S, W >= 0, 288}
#define PE(name, S, W, A) {name, ring_producer<S, W, A, 1>, S, W >= 0, 288}
#define P2(name, S, A) {name, ring_producer2<S, A>, S, true, 544}
#define PB(name, S, W, A) {name, ring_producer<S, W, A, 1, 1>, S, W >= 0, 288}
static const Variant VARIANTS[] = {
    P("producer6-nolb", 6, -1, 128), PE("producer6-wide-early", 6, 1, 128), PE("producer7-wide-early", 7, 1, 128),
    P2("two-groups6", 6, 128), P2("two-groups4", 4, 128),
    PB("bulkstore6-nolb", 6, -1, 128), PB("bulkstore6-wide-early", 6, 1, 128), PB("bulkstore7-wide-early", 7, 1, 128),
};

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    std::vector<int> logs;
    for (int i = 1; i < argc; ++i) logs.push_back(atoi(argv[i]));
    if (logs.empty()) logs = {30, 26, 24};
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, SMs %d\n", prop.name, prop.multiProcessorCount);
    const u64 max_n = 1ull << *std::max_element(logs.begin(), logs.end());
    u32 *input, *output;
    u64* state;
    char* flush;
    const size_t flush_bytes = 512ull << 20;
    CHECK(cudaMalloc(&input, max_n * 4));
    CHECK(cudaMalloc(&output, max_n * 4));
    CHECK(cudaMalloc(&state, state_words(max_n / TILE + 1) * 8));
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
    const int count = sizeof(VARIANTS) / sizeof(VARIANTS[0]);
    for (const Variant& v : VARIANTS)
        CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, v.stages * (TILE * 4 + 24)));
    const int reps = 20;
    for (int lg : logs) {
        const u64 n = 1ull << lg;
        const u64 tiles = n / TILE;
        std::vector<u32> expect(n);
        u32 run = 0;
        for (u64 i = 0; i < n; ++i) expect[i] = run += host_in[i];
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
        for (int pass = 0; pass < 2; ++pass) {
            for (int k = 0; k < count; ++k) {
                const Variant& v = VARIANTS[pass == 0 ? k : count - 1 - k];
                const int shared = v.stages * (TILE * 4 + 24);
                int per_sm = 0;
                CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, v.threads, shared));
                const u64 grid = std::min<u64>(tiles, (u64)per_sm * prop.multiProcessorCount);
                CHECK(cudaMemset(state, 0, state_words(tiles) * 8));
                CHECK(cudaMemset(output, 0xff, n * 4));
                std::vector<float> times;
                bool ok = true;
                for (int r = 0; r < reps + 3; ++r) {
                    CHECK(cudaMemsetAsync(flush, r, flush_bytes));
                    CHECK(cudaEventRecord(a));
                    v.kernel<<<grid, v.threads, shared>>>(input, output, n, state);
                    CHECK(cudaEventRecord(b));
                    CHECK(cudaEventSynchronize(b));
                    CHECK(cudaGetLastError());
                    float ms;
                    CHECK(cudaEventElapsedTime(&ms, a, b));
                    if (r >= 3) times.push_back(ms);
                    if (v.correct && (r == 0 || r == reps + 2)) {  // the first launch, and one on a reused state
                        CHECK(cudaMemcpy(host_out.data(), output, n * 4, cudaMemcpyDeviceToHost));
                        ok = ok && std::equal(expect.begin(), expect.end(), host_out.begin());
                        CHECK(cudaMemset(output, 0xff, n * 4));
                    }
                }
                const double us = median(times) * 1e3;
                printf("pass %d %-20s %d/SM %9.1f us %7.1f GB/s %5.1f %% of copy  check %s\n", pass, v.name, per_sm, us,
                       8.0 * n / us / 1e3, 100.0 * copy_us / us, v.correct ? (ok ? "ok" : "WRONG") : "-");
                fflush(stdout);
            }
        }
    }
    return 0;
}
