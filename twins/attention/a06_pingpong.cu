// Twin of kernels/src/attention/a06_pingpong.rs (step a06): a05's block, producer and stages
// (attention_hopper.cuh, namespace a05), with two schedules of FlashAttention-3 in the consumer
// loop. Ping-pong: the two consumer warpgroups issue their products in turns, at named barriers
// TURN = 1 (warpgroup 0 waits there) and TURN + 1 (warpgroup 1), each use of either 256 threads:
// a warpgroup waits at its own with bar.sync, issues, then arrives at the other's with bar.arrive.
// Warpgroup 1 arrives at warpgroup 0's once first (so that 0 starts), and 0 waits at its own once
// more after the loop (for 1's last arrival). Inside a warpgroup: tile 0's scores, then per later
// tile j, in one turn, S_j = Q·K_jᵀ and O += P_{j−1}·V_{j−1}; then the wait for S_j (wait_group 0
// for tile 0, else 1: S_j is the older group) and K_j's release, S_j's softmax while P·V runs,
// the wait for P·V (wait_group 0) and V_{j−1}'s release, O rescaled by alpha_j only then, and P_j
// packed, kept in registers across the iteration. After the loop, the last P·V. The epilogue is
// a05's (hopper::store_output).
//
// Launch: as a05: a06::THREADS = 384 threads, grid (⌈seq_q / BLOCK_Q⌉, batch · heads_q),
// a06::shared_bytes(head dim) bytes of dynamic shared memory (its base rounded up to 1024 by the
// kernel), the 9 mbarriers in static shared memory; `maps`: three 128-byte CUtensorMaps in global
// memory, Q's, K's, V's, each 4-D [column, row, head, batch] with 64 × 128 × 1 × 1 boxes and the
// 128-byte swizzle. Requires an sm_90a device (compiled for compute_90a only), head dim 64 or 128
// (the entry point's), strides multiples of 8 elements, scale > 0.
// What C++ needed that Rust did not: the Rust tests j > 0 for the P·V, then j == 0 for the
// wait_group after the turn's arrival. LLVM merges the two tests; NVVM kept both, and ptxas, which
// cannot tell that the path with the P·V never takes the wait for 0 groups (nor the other way),
// then serialized the wgmma (info C7514: the softmax might read S_j before it lands). So the twin
// tests once: with the P·V, the arrival and wait_group 1; without, the arrival and wait_group 0:
// the Rust's instructions in the Rust's order on each path.
#include "attention_hopper.cuh"

namespace a06 {
using a05::barrier;
using a05::CONSUMER_WARPS;
using a05::init_barriers;
using a05::K_EMPTY;
using a05::K_FULL;
using a05::produce;
using a05::PRODUCER_THREAD;
using a05::Q_FULL;
using a05::SharedTiles;
using a05::Sources;
using a05::stage_of;
using a05::StagePhase;
using a05::V_EMPTY;
using a05::V_FULL;
using hopper::KEYS;
using hopper::LaneRows;
using hopper::Output;
using hopper::PANEL_N8;
using hopper::Probabilities;
using hopper::S_N8;
using hopper::Scores;
using hopper::WARP_SIZE;
using hopper::WARPGROUP;
using hopper::WARPGROUP_ROWS;

// log2(e): exp(x) = 2^(x·log2 e).
constexpr float LOG2_E = 1.4426950408889634f;

static_assert(BLOCK_K == KEYS && CONSUMER_WARPGROUPS == 2 && CONSUMER_WARPS == 8, "a06's shape");

// The named barriers of the turns (0 is the block barrier): warpgroup w waits at TURN + w.
constexpr u32 TURN = 1;
// Threads at each use of a turn barrier: both consumer warpgroups.
constexpr u32 TURN_THREADS = CONSUMER_WARPGROUPS * WARPGROUP;

// One consumer warpgroup's whole loop and epilogue (the order in the comment at the top). Every
// thread of consumer warpgroup `warpgroup` calls it, after the barriers were initialized, with
// the producer running; o_rows, lse_rows are this head's.
template <class T, u32 PANELS>
__device__ __forceinline__ void consume(SharedTiles<PANELS> tiles, const Dims& d, u32 warpgroup, u32 q0,
                                        u32 key_tiles, u16* o_rows, float* lse_rows) {
    const u32 tid = threadIdx.x;
    const u32 lane_id = tid % WARP_SIZE;
    // Stage release: every warp's lane 0, after the warpgroup's reads finished.
    auto release = [&](u32 empty) {
        if (lane_id == 0) mbarrier_arrive(empty);
    };
    const u32 my_turn = TURN + warpgroup, their_turn = TURN + (1 - warpgroup);
    const LaneRows lane(d, q0 + warpgroup * WARPGROUP_ROWS, tid % WARPGROUP);
    const u32 q_row0 = warpgroup * WARPGROUP_ROWS;
    const float scale_log2 = d.scale * LOG2_E;
    fragments::RowStats stats = fragments::RowStats::empty();
    Scores s;
    Output<PANELS> out;
    Probabilities p;
#pragma unroll
    for (u32 n = 0; n < S_N8; ++n)
#pragma unroll
        for (u32 e = 0; e < 4; ++e) s[n][e] = 0.0f;
#pragma unroll
    for (u32 panel = 0; panel < PANELS; ++panel)
#pragma unroll
        for (u32 n = 0; n < PANEL_N8; ++n)
#pragma unroll
            for (u32 e = 0; e < 4; ++e) out[panel][n][e] = 0.0f;
#pragma unroll
    for (u32 kk = 0; kk < hopper::KEY_K16; ++kk)
#pragma unroll
        for (u32 i = 0; i < 4; ++i) p[kk][i] = 0;

    if (warpgroup == 1) arrive_named(their_turn, TURN_THREADS);  // warpgroup 0 goes first
    // Below, every barrier is met in the producer's order, the whole warpgroup issues each wgmma,
    // and a tile is read only after its "full" phase and released only after the wait_group that
    // ends its reads.
    mbarrier_wait(barrier(Q_FULL), 0);
    for (u32 j = 0; j < key_tiles; ++j) {
        const StagePhase at = stage_of(j);
        sync_named(my_turn, TURN_THREADS);
        mbarrier_wait(barrier(K_FULL + at.stage), at.parity);
        hopper::issue_scores<T, BLOCK_Q, PANELS>(s, tiles.q(), q_row0, tiles.k(at.stage));
        // Then the turn handed over, and the wait for S_j: the older group, done when at most the
        // P·V is pending (tile 0 has none). One test of j for both (see the top comment).
        if (j > 0) {
            // P and O untouched until the wait for this group.
            const StagePhase previous = stage_of(j - 1);
            mbarrier_wait(barrier(V_FULL + previous.stage), previous.parity);
            hopper::issue_output<T, PANELS>(out, p, tiles.v(previous.stage));
            arrive_named(their_turn, TURN_THREADS);
            wgmma_wait_group<1>();
        } else {
            arrive_named(their_turn, TURN_THREADS);
            wgmma_wait_group<0>();
        }
        release(barrier(K_EMPTY + at.stage));
        float alpha[2];
        hopper::softmax(s, stats, lane, j * BLOCK_K, scale_log2, alpha);
        wgmma_wait_group<0>();
        if (j > 0) release(barrier(V_EMPTY + stage_of(j - 1).stage));
        hopper::rescale<PANELS>(out, alpha);
        hopper::pack_probabilities<T>(p, s);
    }
    if (key_tiles > 0) {
        const StagePhase last = stage_of(key_tiles - 1);
        mbarrier_wait(barrier(V_FULL + last.stage), last.parity);
        hopper::issue_output<T, PANELS>(out, p, tiles.v(last.stage));
        wgmma_wait_group<0>();
        release(barrier(V_EMPTY + last.stage));
    }
    if (warpgroup == 0) sync_named(my_turn, TURN_THREADS);  // warpgroup 1's last arrival
    hopper::store_output<T, PANELS>(out, stats, lane, d, o_rows, lse_rows);
}

// The forward pass for one block of BLOCK_Q query rows of one (batch, query head), head dim
// 64·PANELS, 16-bit type T.
template <class T, u32 PANELS>
__device__ __forceinline__ void flash_pingpong(const u8* maps, u16* o, float* lse, const Dims* dims) {
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
    u16* o_rows = o + d.o.row_offset(b, h, 0);
    float* lse_rows = lse + (u64)pair * d.seq_q;
    consume<T, PANELS>(tiles, d, warpgroup, q0, key_tiles, o_rows, lse_rows);
}
}  // namespace a06

extern "C" __global__ void __launch_bounds__(a06::THREADS)
    a06_pingpong_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a06::flash_pingpong<F16, 1>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a06::THREADS)
    a06_pingpong_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a06::flash_pingpong<Bf16, 1>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a06::THREADS)
    a06_pingpong_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a06::flash_pingpong<F16, 2>(maps, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a06::THREADS)
    a06_pingpong_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims) {
    a06::flash_pingpong<Bf16, 2>(maps, o, lse, dims);
}
