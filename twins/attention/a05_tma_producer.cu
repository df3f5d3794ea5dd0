// Twin of kernels/src/attention/a05_tma_producer.rs (step a05): a04's math, the tiles by TMA from
// a producer warpgroup through mbarrier stages. The block is three warpgroups: two consumer
// warpgroups of 64 query rows each (a05::BLOCK_Q = 128 per block), then a producer warpgroup whose
// first thread alone issues every copy: Q's tile, then per key tile K's and V's, each a 4-D TMA
// box (64 columns × 128 rows of one head) per 64-column panel, into STAGES stages. Each stage's K
// and V have a "full" mbarrier (the producer's expect_tx arrival, the copies' bytes) and an
// "empty" one (an arrival per consumer warp, lane 0, once its warpgroup has read the tile); Q has
// a "full" one. setmaxnreg: the producer warpgroup keeps a05::PRODUCER_REGISTERS = 40 registers,
// the consumers take a05::CONSUMER_REGISTERS = 232. Per key tile a consumer warpgroup waits for
// K, issues its scores (hopper::issue_scores) and waits for them, releases K, waits for V, then
// the online softmax, the rescale of O, P packed to 16 bits, O += P·V (hopper::issue_output) and
// the wait for it, and releases V; a warpgroup past its last visible key only waits and
// releases. No block barrier in the loop: the warpgroups drift apart. The epilogue is a04's
// (hopper::store_output).
//
// Launch: a05::THREADS = 384 threads, grid (⌈seq_q / BLOCK_Q⌉, batch · heads_q),
// a05::shared_bytes(head dim) bytes of dynamic shared memory (Q's tile, then STAGES × (K's, V's),
// from its base rounded up to 1024 by the kernel), the 10 mbarriers in static shared memory (the
// last, Q's "empty", is a07's: initialized, unused here).
// `maps`: three 128-byte CUtensorMaps in global memory, Q's, K's, V's, each of its 16-bit tensor
// as 4-D [column, row, head, batch] with 64 × 128 × 1 × 1 boxes and the 128-byte swizzle (rows
// past a head's sequence are zero-filled by the copy engine). Requires an sm_90a device (compiled
// for compute_90a only), head dim 64 or 128 (the entry point's), strides multiples of 8
// elements, scale > 0.
// What C++ needed that Rust did not: the pieces a06 shares with this step (the barriers,
// SharedTiles, Sources, produce, release) are in attention_hopper.cuh, namespace a05, since a06's twin
// cannot include this file (it would define this step's entry points too); the Rust's a06 imports
// them from this module. The Rust's NonZeroU32 divisors are plain divisions.
#include "attention_hopper.cuh"

namespace a05 {
using hopper::LaneRows;
using hopper::Output;
using hopper::PANEL_N8;
using hopper::S_N8;
using hopper::Scores;
using hopper::WARP_SIZE;
using hopper::WARPGROUP;
using hopper::WARPGROUP_ROWS;

// log2(e): exp(x) = 2^(x·log2 e).
constexpr float LOG2_E = 1.4426950408889634f;

static_assert(BLOCK_K == KEYS && WARPGROUP_ROWS * CONSUMER_WARPGROUPS == BLOCK_Q, "a05's shape");

// The forward pass for one block of BLOCK_Q query rows of one (batch, query head), head dim
// 64·PANELS, 16-bit type T.
template <class T, u32 PANELS>
__device__ __forceinline__ void flash_tma(const u8* maps, u16* o, float* lse, const Dims* dims) {
    static_assert(PANELS == 1 || PANELS == 2, "head dim 64 or 128");
    const Dims d = *dims;
    const u32 tid = threadIdx.x;
    const u32 warpgroup = tid / WARPGROUP;
    const u32 q0 = blockIdx.x * BLOCK_Q;
    const u32 pair = blockIdx.y;
    const u32 b = pair / d.heads_q, h = pair % d.heads_q;
    const SharedTiles<PANELS> tiles = SharedTiles<PANELS>::make();
    const u32 last_row = (q0 + BLOCK_Q < d.seq_q ? q0 + BLOCK_Q : d.seq_q) - 1;
    const u32 key_tiles = (d.visible_keys(last_row) + BLOCK_K - 1) / BLOCK_K;

    init_barriers(tid);
    if (warpgroup == CONSUMER_WARPGROUPS) {
        release_registers<PRODUCER_REGISTERS>();
        if (tid == PRODUCER_THREAD) {
            const Sources sources{maps, {h, b}, {h / d.group, b}};
            produce(tiles, sources, q0, key_tiles);
        }
        return;
    }
    claim_registers<CONSUMER_REGISTERS>();
    const u32 lane_id = tid % WARP_SIZE;
    const u32 group_row0 = q0 + warpgroup * WARPGROUP_ROWS;
    const LaneRows lane(d, group_row0, tid % WARPGROUP);
    // The keys the warpgroup's last row sees: past them it only passes the tiles on.
    const u32 group_keys =
        group_row0 < d.seq_q
            ? d.visible_keys((group_row0 + WARPGROUP_ROWS < d.seq_q ? group_row0 + WARPGROUP_ROWS : d.seq_q) - 1)
            : 0;
    const float scale_log2 = d.scale * LOG2_E;

    fragments::RowStats stats = fragments::RowStats::empty();
    Scores s;
    Output<PANELS> out;
#pragma unroll
    for (u32 n = 0; n < S_N8; ++n)
#pragma unroll
        for (u32 e = 0; e < 4; ++e) s[n][e] = 0.0f;
    hopper::clear(out);
    // Q's tile: its barrier's one phase.
    mbarrier_wait(barrier(Q_FULL), 0);
    for (u32 j = 0; j < key_tiles; ++j) {
        const StagePhase at = stage_of(j);
        const u32 k0 = j * BLOCK_K;
        mbarrier_wait(barrier(K_FULL + at.stage), at.parity);
        if (k0 < group_keys) {
            hopper::issue_scores<T, BLOCK_Q, PANELS>(s, tiles.q(), warpgroup * WARPGROUP_ROWS, tiles.k(at.stage));
            wgmma_wait_group<0>();
        }
        release(barrier(K_EMPTY + at.stage), lane_id);
        mbarrier_wait(barrier(V_FULL + at.stage), at.parity);
        if (k0 < group_keys) {
            float alpha[2];
            hopper::softmax(s, stats, lane, k0, scale_log2, alpha);
            hopper::rescale<PANELS>(out, alpha);
            hopper::Probabilities p;
            hopper::pack_probabilities<T>(p, s);
            hopper::issue_output<T, PANELS>(out, p, tiles.v(at.stage));
            wgmma_wait_group<0>();
        }
        release(barrier(V_EMPTY + at.stage), lane_id);
    }

    u16* o_rows = o + d.o.row_offset(b, h, 0);
    float* lse_rows = lse + (u64)pair * d.seq_q;
    hopper::store_output<T, PANELS>(out, stats, lane, d, o_rows, lse_rows);
}
}  // namespace a05

extern "C" __global__ void __launch_bounds__(a05::THREADS)
    a05_tma_producer_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a05::flash_tma<F16, 1>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a05::THREADS)
    a05_tma_producer_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a05::flash_tma<Bf16, 1>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a05::THREADS)
    a05_tma_producer_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a05::flash_tma<F16, 2>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a05::THREADS)
    a05_tma_producer_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a05::flash_tma<Bf16, 2>(maps, o, lse, dims);
}
