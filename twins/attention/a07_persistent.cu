// Twin of kernels/src/attention/a07_persistent.rs (step a07): a06's block, producer, stages and
// consumer loop (attention_hopper.cuh, namespaces a05 and a06), in a grid of one block per SM
// whose blocks draw the work tiles from a counter until none is left. The order: the (batch,
// head) pairs in sections whose K and V fit in a07::SECTION_BYTES; within a section, query
// blocks from the last to the first, each over the section's heads (with a causal mask, the
// long tiles first). Block b's first tile is b; then gridDim.x + the counter's next value. The
// producer's thread, per tile: waits for Q's "empty" barrier (the consumers' release of the last
// Q, after their last scores), writes the tile to shared memory, and arrives on Q's
// "full" barrier: with Q's copy and then the tile's K and V through the stages (the ring
// continuing across tiles) when it has keys; plainly when it has none, or when no tile is left
// (the tile handed over is then END_Q0's). The last block to draw past the end zeroes the
// counter. The consumers, per phase of Q's "full" barrier: read the tile (its first row, batch,
// head and key tiles, decoded by the producer), stop at the end, else run a06's
// attend from their count of key tiles with release_q (or, with no keys, release Q at once),
// then the epilogue (hopper::store_output). The turns are opened once before the first tile and
// closed once after the last.
//
// Launch: a07::THREADS = 384 threads, a grid of min(work tiles, blocks that fit at once) along x
// (work tiles < 2^31), a07::shared_bytes(head dim) bytes of dynamic shared memory (its base
// rounded up to 1024 by the kernel), the 10 mbarriers and the tile in static shared
// memory; `maps` as a06's; `counter`: a07::COUNTER_WORDS u32 in global memory, zero (each launch
// leaves them zero). Requires an sm_90a device (compiled for compute_90a only), head dim 64 or
// 128 (the entry point's), strides multiples of 8 elements, scale > 0.
// What C++ needed that Rust did not: the Rust's NonZeroU32 divisors are plain divisions; the
// Rust's array of zeros is hopper::clear. The other way round: the Rust consumers read the
// problem again per tile (LLVM would keep O's strides live across the loop, and ptxas spill
// them); NVVM keeps no such values live, so the twin uses one copy.
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
// released after its last scores) and the epilogue. Every thread of consumer warpgroup
// `warpgroup` calls it, after the barriers were initialized, with the producer running.
template <class T, u32 PANELS>
__device__ __forceinline__ void consume(SharedTiles<PANELS> tiles, const Dims& d, u32 warpgroup, u16* o, float* lse) {
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
            attend<T, PANELS>(tiles, turns, lane, scale_log2, key_loads, w.key_tiles, true, out, stats);
            key_loads += w.key_tiles;
        }
        // A tile without keys releases Q here, by a predicated arrival (see the Rust).
        mbarrier_arrive_if(barrier(Q_EMPTY), lane_id == 0 && w.key_tiles == 0);
        const u32 pair = w.b * d.heads_q + w.h;
        u16* o_rows = o + d.o.row_offset(w.b, w.h, 0);
        float* lse_rows = lse + (u64)pair * d.seq_q;
        hopper::store_output<T, PANELS>(out, stats, lane, d, o_rows, lse_rows);
    }
    turns.close();
}

// The whole forward pass, head dim 64·PANELS, 16-bit type T, by a grid of persistent blocks.
template <class T, u32 PANELS>
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
    consume<T, PANELS>(tiles, d, warpgroup, o, lse);
}
}  // namespace a07

extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, 2>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, 2>(maps, o, lse, dims, counter);
}
