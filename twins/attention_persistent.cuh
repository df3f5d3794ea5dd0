// twins/attention_persistent.cuh: the persistent kernel of a07–a10 (the twins of
// kernels/src/attention/a07_persistent.rs's Work, Schedule, produce, consume, TileOutput's
// DirectStores and flash_persistent): a06's block, producer, stages and consumer loop
// (attention_hopper.cuh, namespaces a05 and a06), in a grid of one block per SM whose blocks
// draw the work tiles from a counter until none is left, each tile's output stored by a type E
// the step chooses (a07: DirectStores; a08: StagedStores, in its twin). The order, the
// hand-over and the launch are a07's twin's header's.
#pragma once
#include "attention_hopper.cuh"

namespace a07 {
using a05::barrier;
using a05::CONSUMER_WARPS;
using a05::init_barriers;
using a05::prefetch_maps;
using a05::PRODUCER_THREAD;
using a05::Q_EMPTY;
using a05::Q_FULL;
using a05::SharedTiles;
using a05::Sources;
using a06::attend;
using a06::LOG2_E;
using a06::Turns;
using hopper::LaneRows;
using hopper::Output;
using hopper::WARP_SIZE;
using hopper::WARPGROUP;
using hopper::WARPGROUP_ROWS;

static_assert(CONSUMER_WARPS == 8, "a06's shape");

// The words of the counter: the next tile to draw, less the grid's first ones; the blocks that
// have drawn their last.
constexpr u32 NEXT = 0;
constexpr u32 DONE = 1;

// One work tile: a block of query rows of one (batch, query head); as the four words of the
// shared slot.
struct Work {
    u32 q0;  // its first query row (END_Q0: no tile is left)
    u32 b, h;  // its batch and query head
    u32 key_tiles;  // key tiles its last row sees
};
// What the producer hands over when no tile is left.
constexpr u32 END_Q0 = 0xffffffffu;

// The work tile the producer hands the consumers with each phase of Q's "full" barrier.
__shared__ __align__(16) Work work_tile;

// The tiles of the pass in the order the blocks draw them (the comment at the top).
struct Schedule {
    u32 blocks;   // query blocks per (batch, head)
    u32 pairs;
    u32 section;  // heads per section
    u32 tiles;
    __device__ __forceinline__ explicit Schedule(const Dims& d) {
        blocks = (d.seq_q + BLOCK_Q - 1) / BLOCK_Q;
        pairs = d.batch * d.heads_q;
        // K and V of one head, 16-bit values.
        u64 head_bytes = (u64)d.seq_k * d.head_dim * 4;
        if (head_bytes == 0) head_bytes = 1;
        const u64 fit = SECTION_BYTES / head_bytes;
        const u64 most = pairs > 0 ? pairs : 1;
        section = d.causal == 0 ? 1 : (u32)(fit < 1 ? 1 : fit > most ? most : fit);
        tiles = blocks * pairs;
    }
    // Work tile t (< tiles): section t / (section · blocks), in it query block rank
    // local / heads from the last, head local % heads.
    __device__ __forceinline__ Work work(const Dims& d, u32 t) const {
        const u32 first_pair = t / (section * blocks) * section;
        const u32 local = t - first_pair * blocks;
        const u32 heads = section < pairs - first_pair ? section : pairs - first_pair;
        const u32 pair = first_pair + local % heads;
        const u32 q0 = (blocks - 1 - local / heads) * BLOCK_Q;
        const u32 last_row = (q0 + BLOCK_Q < d.seq_q ? q0 + BLOCK_Q : d.seq_q) - 1;
        return {q0, pair / d.heads_q, pair % d.heads_q, (d.visible_keys(last_row) + BLOCK_K - 1) / BLOCK_K};
    }
};

// The producer's thread: draws the block's tiles (its own index first, then from the counter),
// and per tile, once the consumers released the last one's Q: hands its index over with Q's
// "full" barrier, loading Q's tile and its K and V tiles (the stage ring continuing) when it has
// keys. The last block to finish drawing zeroes the counter. The producer thread alone; the
// barriers initialized; `counter` zero at the launch's start, touched by its blocks alone.
template <u32 PANELS>
__device__ __forceinline__ void produce(SharedTiles<PANELS> tiles, const u8* maps, const Dims& d, Schedule schedule,
                                        u32* counter) {
    prefetch_maps(maps);
    u32 handed = 0, key_loads = 0;
    u32 t = blockIdx.x;
    for (;;) {
        const Work w = t < schedule.tiles ? schedule.work(d, t) : Work{END_Q0, 0, 0, 0};
        if (handed > 0) mbarrier_wait(barrier(Q_EMPTY), (handed - 1) % 2);
        work_tile = w;
        handed += 1;
        if (w.q0 == END_Q0) {
            mbarrier_arrive(barrier(Q_FULL));
            break;
        }
        // The next tile, drawn now: the atomic's round trip runs under this tile's loads.
        t = gridDim.x + atomic_add_relaxed_u32(counter + NEXT, 1);
        if (w.key_tiles == 0) {
            mbarrier_arrive(barrier(Q_FULL));
        } else {
            const Sources sources{maps, {w.h, w.b}, {w.h / d.group, w.b}};
            sources.load_q(tiles, w.q0);
            sources.load_keys(tiles, key_loads, w.key_tiles);
            key_loads += w.key_tiles;
        }
    }
    // Every block that drew past the end has drawn its last: the last one zeroes both.
    if (atomic_add_acq_rel_u32(counter + DONE, 1) == gridDim.x - 1) {
        counter[NEXT] = 0;
        counter[DONE] = 0;
    }
}

// One consumer warpgroup's work tiles, as the producer hands them: per tile, a06's loop (Q
// released after its last scores) and the epilogue, E's (a07's DirectStores, a08's
// StagedStores: E(maps, warpgroup), E::store<T, PANELS>(tiles, out, stats, lane, d, w, o, lse)
// per tile, E::finish() after the last). Every thread of consumer warpgroup `warpgroup` calls
// it, after the barriers were initialized, with the producer running.
template <class T, class E, u32 PANELS, u32 CHAINS = 1, u32 PV_N = hopper::PV_PANEL>
__device__ __forceinline__ void consume(SharedTiles<PANELS> tiles, const u8* maps, const Dims& d, u32 warpgroup,
                                        u16* o, float* lse) {
    const E output(maps, warpgroup);
    const Turns turns(warpgroup);
    const float scale_log2 = d.scale * LOG2_E;
    const u32 lane_id = threadIdx.x % WARP_SIZE;
    u32 handed = 0, key_loads = 0;
    turns.open();
    for (;;) {
        // The producer wrote the slot before this phase's arrival, and rewrites it only after
        // every consumer warp released the phase's Q.
        mbarrier_wait(barrier(Q_FULL), handed % 2);
        const Work w = work_tile;
        handed += 1;
        if (w.q0 == END_Q0) break;
        const LaneRows lane(d, w.q0 + warpgroup * WARPGROUP_ROWS, threadIdx.x % WARPGROUP);
        fragments::RowStats stats = fragments::RowStats::empty();
        Output<PANELS> out;
        hopper::clear(out);
        if (w.key_tiles > 0) {
            attend<T, PANELS, CHAINS, PV_N>(tiles, turns, lane, scale_log2, key_loads, w.key_tiles, true, out, stats);
            key_loads += w.key_tiles;
        }
        // A tile without keys releases Q here, by a predicated arrival (see the Rust).
        mbarrier_arrive_if(barrier(Q_EMPTY), lane_id == 0 && w.key_tiles == 0);
        output.template store<T, PANELS>(tiles, out, stats, lane, d, w, o, lse);
    }
    turns.close();
    output.finish();
}

// a07's output: hopper::store_output, from the registers to global memory.
struct DirectStores {
    __device__ __forceinline__ DirectStores(const u8*, u32) {}
    template <class T, u32 PANELS>
    __device__ __forceinline__ void store(SharedTiles<PANELS>, const Output<PANELS>& out,
                                          const fragments::RowStats& stats, const LaneRows& lane, const Dims& d,
                                          Work w, u16* o, float* lse) const {
        const u32 pair = w.b * d.heads_q + w.h;
        u16* o_rows = o + d.o.row_offset(w.b, w.h, 0);
        float* lse_rows = lse + (u64)pair * d.seq_q;
        hopper::store_output<T, PANELS>(out, stats, lane, d, o_rows, lse_rows);
    }
    __device__ __forceinline__ void finish() const {}
};

// The whole forward pass, head dim 64·PANELS, 16-bit type T, by a grid of persistent blocks
// whose consumers store each tile's output as E does.
template <class T, class E, u32 PANELS, u32 CHAINS = 1, u32 PV_N = hopper::PV_PANEL>
__device__ __forceinline__ void flash_persistent(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    static_assert(PANELS == 1 || PANELS == 2, "head dim 64 or 128");
    const Dims d = *dims;
    const u32 tid = threadIdx.x;
    const u32 warpgroup = tid / WARPGROUP;
    const SharedTiles<PANELS> tiles = SharedTiles<PANELS>::make();
    init_barriers(tid);

    if (warpgroup == CONSUMER_WARPGROUPS) {
        release_registers<PRODUCER_REGISTERS>();
        if (tid == PRODUCER_THREAD) produce(tiles, maps, d, Schedule(d), counter);
        return;
    }
    claim_registers<CONSUMER_REGISTERS>();
    consume<T, E, PANELS, CHAINS, PV_N>(tiles, maps, d, warpgroup, o, lse);
}
}  // namespace a07
