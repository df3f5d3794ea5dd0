// Twin of kernels/src/scan/s12_producer_ring.rs (step s12): one resident block per SM with a
// ring of six 32 KiB tiles. Warp 8, the producer, claims tiles as slots free (a launch takes
// tiles + grid tickets: each producer draws one past the last tile), starts their bulk copies
// (the last, partial tile it copies itself), prefetches the tile AHEAD on into L2 and sums the
// tile claimed before, publishing its aggregate (tile 0's as its prefix). Warps 0-7, on a named
// barrier of their own, take the slots in turn: the look-back's first 256 status words loaded,
// s11's rows scanned, the warps' totals added, the block-wide look-back (256 words a round
// trip), the tile's prefix published, the rows stored, the slot freed. The pieces are
// scan_bulk.cuh's and hopper.cuh's, the same instructions as the Rust's.
//
// Launch: s12::THREADS (288) threads, s12::SHARED_BYTES of dynamic shared memory, at most a
// wave of blocks (any number from one works); s07's state sized for max(1, ceil(n / TILE))
// tiles; `input` and `output` 16-byte aligned. sm_90.
#include "scan_bulk.cuh"

namespace ring {
constexpr u32 WARPS = s12::CONSUMERS / WARP_SIZE;
constexpr u32 NO_TILE = 0xffffffffu;
constexpr u32 UNITS = s12::TILE / 4;
constexpr u32 LINES = s12::TILE / 32;

__device__ __forceinline__ void sync_consumers() { sync_named(1, s12::CONSUMERS); }

template <class E>
__device__ __forceinline__ typename E::Value warp_sum(typename E::Value v) {
#pragma unroll
    for (u32 d = WARP_SIZE / 2; d > 0; d /= 2) v = E::add(v, E::from_bits(__shfl_xor_sync(ALL_LANES, E::to_bits(v), d)));
    return v;
}

struct Ring {
    u32* tiles;
    __device__ __forceinline__ u32* slot(u32 s) const { return tiles + s * s12::TILE; }
    __device__ __forceinline__ u32 full(u32 s) const { return smem_u32(tiles + s12::STAGES * s12::TILE) + 8 * s; }
    __device__ __forceinline__ u32 empty(u32 s) const { return full(s12::STAGES) + 8 * s; }
};

// The producer warp (see the file's head).
template <class E>
__device__ __forceinline__ void produce(Ring ring, u32* claims, const u32* input, u64 n, u32 tiles, u64* state,
                                        u32 jitter) {
    const u32 lane = lane_idx();
    const u64 per_launch = (u64)tiles + gridDim.x;
    const u64 tile_len = s12::TILE;
    for (u32 i = 0;; ++i) {
        const u32 s = i % s12::STAGES;
        if (i >= s12::STAGES) mbarrier_wait(ring.empty(s), (i / s12::STAGES - 1) & 1);
        u32 tile = 0, epoch = 0;
        if (lane == 0) {
            state::pause(jitter, 0);
            const u64 ticket = atomicAdd(state, 1ull);
            tile = (u32)(ticket % per_launch);
            epoch = status::epoch(ticket, per_launch);
        }
        tile = __shfl_sync(ALL_LANES, tile, 0);
        epoch = __shfl_sync(ALL_LANES, epoch, 0);
        const u64 start = (u64)tile * tile_len;
        const bool whole = tile < tiles && start + tile_len <= n;
        if (tile < tiles && !whole)
            for (u32 k = lane; k < s12::TILE; k += WARP_SIZE)
                ring.slot(s)[k] = start + k < n ? input[start + k] : E::to_bits(E::ZERO);
        if (lane == 0) {
            claims[2 * s] = tile < tiles ? tile : NO_TILE;
            claims[2 * s + 1] = epoch;
            if (whole) {
                mbarrier_arrive_expect_tx(ring.full(s), s12::TILE * 4);
                copy_bulk(smem_u32(ring.slot(s)), input + start, s12::TILE * 4, ring.full(s));
            }
        }
        if (!whole) {
            __syncwarp();
            if (lane == 0) mbarrier_arrive(ring.full(s));
        }
        if (tile < tiles) {
            const u64 ahead = start + (u64)s12::AHEAD * tile_len;
            for (u32 line = lane; line < LINES; line += WARP_SIZE)
                if (ahead + 32 * (u64)line < n)
                    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %0; prefetch.global.L2 [g]; }" ::"l"(input + ahead + 32 * (u64)line));
        }
        if (i > 0) {
            const u32 p = (i - 1) % s12::STAGES;
            mbarrier_wait(ring.full(p), ((i - 1) / s12::STAGES) & 1);
            const uint4* units = reinterpret_cast<const uint4*>(ring.slot(p));
            typename E::Value sum = E::ZERO;
            for (u32 u = lane; u < UNITS; u += WARP_SIZE) {
                const uint4 b = units[u];
                sum = E::add(sum, E::add(E::add(E::add(E::from_bits(b.x), E::from_bits(b.y)), E::from_bits(b.z)),
                                         E::from_bits(b.w)));
            }
            sum = warp_sum<E>(sum);
            if (lane == 0) {
                const state::Claim before = {claims[2 * p], claims[2 * p + 1]};
                state::publish(state, before, before.tile == 0 ? status::PREFIX : status::AGGREGATE, E::to_bits(sum));
            }
        }
        if (tile >= tiles) break;
    }
}

// Status word of this consumer in the window that ends before tile `end` (a zero prefix
// before tile 0).
__device__ __forceinline__ u64 window_word(u64* state, state::Claim claim, long long end) {
    const long long tile = end - 1 - (long long)threadIdx.x;
    return tile >= 0 ? state::read(state, (u32)tile) : status::word(claim.epoch, status::PREFIX, 0);
}

// The block-wide look-back (see the file's head); `first` is this consumer's word of the first
// window.
template <class E>
__device__ __forceinline__ typename E::Value look_back(u64* state, state::Claim claim, u64 first, u32* scratch) {
    using V = typename E::Value;
    const u32 lane = lane_idx(), warp = warp_idx();
    V before = E::ZERO;
    long long end = claim.tile;
    u64 word = first;
    while (true) {
        const u32 kind = status::kind(word, claim.epoch);
        const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
        const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
        if (lane == 0) {
            scratch[warp] = prefixes != 0 ? warp * WARP_SIZE + __ffs(prefixes) - 1 : s12::WINDOW;
            scratch[WARPS + warp] = unwritten;
        }
        sync_consumers();
        u32 nearest = s12::WINDOW;
        bool again = false;
        for (u32 k = 0; k < WARPS; ++k) nearest = scratch[k] < nearest ? scratch[k] : nearest;
        for (u32 k = 0; k < WARPS; ++k) {
            const u32 first_lane = k * WARP_SIZE;
            const u32 counted = nearest >= first_lane + WARP_SIZE - 1 ? ALL_LANES
                                : nearest < first_lane               ? 0u
                                                                     : (2u << (nearest - first_lane)) - 1;
            again |= (scratch[WARPS + k] & counted) != 0;
        }
        sync_consumers();
        if (!again) {
            const V mine = threadIdx.x <= nearest ? E::from_bits(status::value(word)) : E::ZERO;
            const V total = warp_sum<E>(mine);
            if (lane == 0) scratch[2 * WARPS + warp] = E::to_bits(total);
            sync_consumers();
            for (u32 k = 0; k < WARPS; ++k) before = E::add(before, E::from_bits(scratch[2 * WARPS + k]));
            sync_consumers();
            if (nearest < s12::WINDOW) return before;
            end -= s12::WINDOW;
        }
        word = window_word(state, claim, end);
    }
}

// The consumers (see the file's head).
template <class E>
__device__ __forceinline__ void consume(Ring ring, const u32* claims, u32* output, u64 n, u64* state, u32 exclusive,
                                        u32 jitter, u32* scratch) {
    using V = typename E::Value;
    u32* totals = scratch + 3 * WARPS;
    for (u32 i = 0;; ++i) {
        const u32 s = i % s12::STAGES;
        mbarrier_wait(ring.full(s), (i / s12::STAGES) & 1);
        const u32 tile = claims[2 * s];
        if (tile == NO_TILE) break;
        const state::Claim claim = {tile, claims[2 * s + 1]};
        const u64 first = tile != 0 ? window_word(state, claim, tile) : 0;
        const bulk::Rows<E> rows = bulk::scan_rows_of<E>(ring.slot(s), bulk::Values<E>{});
        if (lane_idx() == WARP_SIZE - 1) totals[warp_idx()] = E::to_bits(rows.warp_total);
        sync_consumers();
        V before_warp = E::ZERO, aggregate = E::ZERO;
        for (u32 k = 0; k < WARPS; ++k) {
            const V total = E::from_bits(totals[k]);
            if (k < warp_idx()) before_warp = E::add(before_warp, total);
            aggregate = E::add(aggregate, total);
        }
        V before_tile = E::ZERO;
        if (tile != 0) {
            state::pause(jitter, 1);
            before_tile = look_back<E>(state, claim, first, scratch);
        }
        if (threadIdx.x == 0 && tile != 0) state::publish(state, claim, status::PREFIX, E::to_bits(E::add(before_tile, aggregate)));
        bulk::store_rows<E>(ring.slot(s), output, n, (u64)tile * s12::TILE, E::add(before_tile, before_warp), rows, exclusive);
        sync_consumers();
        mbarrier_arrive(ring.empty(s));  // every consumer: its release orders its own reads
    }
}
}  // namespace ring

__shared__ u32 ring_claims[2 * s12::STAGES];
__shared__ u32 ring_scratch[4 * ring::WARPS];

template <class E>
__device__ __forceinline__ void producer_ring(const u32* input, u32* output, u64 n, u64* state, u32 exclusive,
                                              u32 jitter) {
    extern __shared__ __align__(16) u32 dynamic_words[];
    const ring::Ring r = {bulk::aligned_shared<s12::RING_ALIGN>(dynamic_words)};
    const u32 tiles = (u32)(n > 0 ? (n + s12::TILE - 1) / s12::TILE : 1);
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < s12::STAGES; ++s) mbarrier_init(r.full(s), 1), mbarrier_init(r.empty(s), s12::CONSUMERS);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp_idx() == ring::WARPS)
        ring::produce<E>(r, ring_claims, input, n, tiles, state, jitter);
    else
        ring::consume<E>(r, ring_claims, output, n, state, exclusive, jitter, ring_scratch);
}

extern "C" __global__ void __launch_bounds__(s12::THREADS)
    s12_producer_ring_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    producer_ring<I32>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s12::THREADS)
    s12_producer_ring_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    producer_ring<F32>(input, output, n, state, exclusive, jitter);
}
