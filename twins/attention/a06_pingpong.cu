// Twin of kernels/src/attention/a06_pingpong.rs (step a06): a05's block, producer and stages
// (attention_hopper.cuh, namespace a05), with two schedules of FlashAttention-3 in the consumer
// loop (attention_hopper.cuh, namespace a06: Turns and attend, which a07 shares). Ping-pong: the
// two consumer warpgroups issue their products in turns, at named barriers TURN = 1 (warpgroup 0
// waits there) and TURN + 1 (warpgroup 1), each use of either 256 threads: a warpgroup waits at
// its own with bar.sync, issues, then arrives at the other's with bar.arrive. Warpgroup 1 arrives
// at warpgroup 0's once first (turns.open(), so that 0 starts), and 0 waits at its own once more
// after the loop (turns.close(), for 1's last arrival). Inside a warpgroup: tile 0's scores, then
// per later tile j, in one turn, S_j = Q·K_jᵀ and O += P_{j−1}·V_{j−1}; then the wait for S_j
// (wait_group 0 for tile 0, else 1: S_j is the older group) and K_j's release, S_j's softmax while
// P·V runs, the wait for P·V (wait_group 0) and V_{j−1}'s release, O rescaled by alpha_j only
// then, and P_j packed, kept in registers across the iteration. After the loop, the last P·V. The
// epilogue is a05's (hopper::store_output).
//
// Launch: as a05: a06::THREADS = 384 threads, grid (⌈seq_q / BLOCK_Q⌉, batch · heads_q),
// a06::shared_bytes(head dim) bytes of dynamic shared memory (its base rounded up to 1024 by the
// kernel), the 10 mbarriers in static shared memory (Q's "empty" unused here); `maps`: three
// 128-byte CUtensorMaps in global memory, Q's, K's, V's, each 4-D [column, row, head, batch] with
// 64 × 128 × 1 × 1 boxes and the 128-byte swizzle. Requires an sm_90a device (compiled for
// compute_90a only), head dim 64 or 128 (the entry point's), strides multiples of 8 elements,
// scale > 0.
// What C++ needed that Rust did not: see attend in attention_hopper.cuh (one test of j).
#include "attention_hopper.cuh"

namespace a06 {
using a05::barrier;
using a05::init_barriers;
using a05::produce;
using a05::PRODUCER_THREAD;
using a05::Q_FULL;
using a05::SharedTiles;
using a05::Sources;
using hopper::LaneRows;
using hopper::Output;
using hopper::WARPGROUP;
using hopper::WARPGROUP_ROWS;

// One consumer warpgroup's whole work: Q's tile, the key tiles (attend), the epilogue. Every
// thread of consumer warpgroup `warpgroup` calls it, after the barriers were initialized, with
// the producer running; o_rows, lse_rows are this head's.
template <class T, u32 PANELS>
__device__ __forceinline__ void consume(SharedTiles<PANELS> tiles, const Dims& d, u32 warpgroup, u32 q0,
                                        u32 key_tiles, u16* o_rows, float* lse_rows) {
    const LaneRows lane(d, q0 + warpgroup * WARPGROUP_ROWS, threadIdx.x % WARPGROUP);
    fragments::RowStats stats = fragments::RowStats::empty();
    Output<PANELS> out;
    hopper::clear(out);
    const Turns turns(warpgroup);
    turns.open();
    mbarrier_wait(barrier(Q_FULL), 0);
    attend<T, PANELS>(tiles, turns, lane, d.scale * LOG2_E, 0, key_tiles, false, out, stats);
    turns.close();
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
