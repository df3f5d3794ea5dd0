// Twin of kernels/src/scan/s12_persistent.rs (step s12): persistent blocks, as many as the GPU
// holds at once, each running until the tiles run out with a ring of s12::STAGES tiles in
// shared memory: while it scans one (s11's pieces, scan_bulk.cuh), the bulk copies of the next
// ones are in flight; the stage it has just stored is refilled at once with the tile of a
// ticket taken one tile earlier. Each launch hands out tiles + blocks tickets: every block
// stops at the first ticket past the tiles.
//
// Launch: s12::THREADS (256) threads, s12::SHARED_BYTES of dynamic shared memory, at most one
// block per s12::TILE (8192) elements, all resident at once; s07's state for that many tiles;
// `input` and `output` 16-byte aligned. sm_90.
#include "scan_bulk.cuh"

// Each stage's claim (tile, epoch), then the sum of every tile before the one scanned.
__shared__ u32 ring_words[2 * s12::STAGES + 1];

// `Ring`: the block's stages: s12::STAGES tiles of dynamic shared memory, then an mbarrier
// per stage; each stage's claim in ring_words.
struct Ring {
    u32* shared;
    __device__ __forceinline__ u32* tile(u32 stage) const { return shared + stage * s12::TILE; }
    __device__ __forceinline__ u32 barrier(u32 stage) const {
        return smem_u32(shared + s12::STAGES * s12::TILE + 2 * stage);
    }
    __device__ __forceinline__ state::Claim claim(u32 stage) const {
        return {ring_words[2 * stage], ring_words[2 * stage + 1]};
    }
    // `fill`: thread 0 gives the stage to `claim` and starts the copy of its tile when whole;
    // otherwise it arrives on the stage's barrier itself (every fill completes one phase).
    __device__ __forceinline__ void fill(u32 stage, state::Claim claim, u32 tiles, const u32* input, u64 n) const {
        const u32 bar = barrier(stage);
        ring_words[2 * stage] = claim.tile;
        ring_words[2 * stage + 1] = claim.epoch;
        const u64 start = (u64)claim.tile * s12::TILE;
        if (claim.tile < tiles && start + s12::TILE <= n) {
            mbarrier_arrive_expect_tx(bar, s12::TILE * 4);
            copy_bulk(smem_u32(tile(stage)), input + start, s12::TILE * 4, bar);
        } else {
            mbarrier_arrive(bar);
        }
    }
};

// `next_claim`: thread 0's next claim: a new ticket's, unless the last was past the tiles.
__device__ __forceinline__ state::Claim next_claim(u64* state, state::Claim last, u32 tiles, u64 per_launch,
                                                   u32 jitter, u32 salt) {
    if (last.tile >= tiles) return last;
    state::pause(jitter, salt);
    return state::of_ticket(state::take_ticket(state), per_launch);
}

template <class E>
__device__ __forceinline__ void persistent(const u32* input, u32* output, u64 n, u64* state, u32 exclusive,
                                           u32 jitter) {
    using V = typename E::Value;
    extern __shared__ __align__(16) u32 ring_shared[];
    const Ring ring{ring_shared};
    const u32 tiles = (u32)max((n + s12::TILE - 1) / s12::TILE, (u64)1);
    const u64 per_launch = status::tickets_per_launch(tiles, gridDim.x);
    state::Claim next = {tiles, 0};  // thread 0's claim for the next refill, one tile ahead
    if (threadIdx.x == 0) {
        for (u32 stage = 0; stage < s12::STAGES; ++stage) mbarrier_init(ring.barrier(stage), 1);
        fence_barrier_init();
        state::Claim last = {0, 0};  // not past the tiles: the first call takes a ticket
        for (u32 stage = 0; stage < s12::STAGES; ++stage) {
            last = next_claim(state, last, tiles, per_launch, jitter, stage);
            ring.fill(stage, last, tiles, input, n);
        }
        next = next_claim(state, last, tiles, per_launch, jitter, s12::STAGES);
    }
    __syncthreads();
    for (u32 taken = 0;; ++taken) {
        const u32 stage = taken % s12::STAGES;
        const state::Claim claim = ring.claim(stage);
        if (claim.tile >= tiles) break;
        u32* tile_words = ring.tile(stage);
        const u64 start = (u64)claim.tile * s12::TILE;
        if (start + s12::TILE <= n) {
            mbarrier_wait(ring.barrier(stage), (taken / s12::STAGES) % 2);
        } else {
            bulk::copy_partial_tile<E>(tile_words, input, n, start);
        }
        const bulk::Rows<E> rows = bulk::scan_rows<E>(tile_words);
        const V warp_total = lane_idx() == WARP_SIZE - 1 ? rows.warp_total : E::ZERO;
        const auto [before_warp, aggregate] = block_exclusive_scan<E>(warp_total);
        const V before_tile =
            tile_prefix<E, WarpWindow>(state, claim, aggregate, jitter, &ring_words[2 * s12::STAGES]);
        bulk::store_rows<E>(tile_words, output, n, start, E::add(before_tile, before_warp), rows, exclusive);
        __syncthreads();  // every thread is done with the stage: refill it
        if (threadIdx.x == 0) {
            ring.fill(stage, next, tiles, input, n);
            next = next_claim(state, next, tiles, per_launch, jitter, taken + s12::STAGES + 1);
        }
    }
}

extern "C" __global__ void __launch_bounds__(s12::THREADS)
    s12_persistent_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    persistent<I32>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s12::THREADS)
    s12_persistent_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    persistent<F32>(input, output, n, state, exclusive, jitter);
}
