// twins/hopper_gemm.cuh: the machinery the Hopper GEMM twins share from w06 on, the C++ of
// kernels/src/gemm/hopper/ piece for piece and under the same names, so that a twin reads beside
// its Rust step. w01-w05 build these pieces one at a time, in full, inside their own files: they
// are the lesson. From w06 on a twin is its predecessor plus one change, and the pieces it keeps
// unchanged are called from here.
//
// A step's block is warp-specialized: CONSUMER_WARPGROUPS consumer warpgroups of 64 rows each,
// which run the wgmma main loop and the epilogue, then one producer warpgroup, whose first thread
// issues every TMA copy. The two sides meet at a ring of STAGES stages in shared memory, each
// guarded by a "full" and an "empty" mbarrier. A block is one of the CLUSTER_M blocks of a
// cluster that compute a unit (their tiles, stacked along M) and share B's tile through TMA
// multicast.
//
//   piece (namespace hopper)                     Rust (kernels/src/gemm/hopper/)   twins
//   Shape<Constants, Acc, Registers>             mod.rs: Shape, shape!             w06-w13
//   M64n256, M64n128 (Accumulator<N>), mma       mod.rs: Accumulator               w06-w13
//   Reallocate<P, C>, KeepRegisters              mod.rs: Registers                 w06-w13 (*)
//   PipelineState, SharedLayout,                 pipeline.rs                       w06-w13
//     consumer_release, is_producer
//   Units, Producer, Consumer                    mainloop.rs                       w06-w13
//   Epilogue, wait_written, wait_read, pick      epilogue.rs                       w06-w13
//   Workspace, unroll_pieces                     stream_k.rs                       w07, w11-w13
//
// (*) the shapes of w06, w07 and w11 name it, but those twins call setmaxnreg themselves, as
// their Rust steps do; the step kernels written once for several shapes take it from the shape:
// w08's (trimmed_gemm.cuh, for w08-w10) and w12's (pipelined_fixup_gemm.cuh, for w12 and w13).
//
// Why the SASS did not move. Each twin used to be written out in one function, and compiles to
// the same SASS now, instruction for instruction. NVVM simplifies a function on its own before it
// inlines it into its caller (every function here is __forceinline__), and what it makes of a
// piece of arithmetic depends on what else uses its values at that time. So where the written-out
// twins shared a value, the pieces share it too, rather than compute it again on their own as
// the Rust's do (rustc's MIR inlining and LLVM merge what NVVM keeps apart): is_producer takes
// the warpgroup the kernel divides out; Units reads the block's cluster rank and hands it to
// Producer and Workspace; the Epilogue keeps the lane and derives its row group and column pair
// from it in store_tile. The order of a kernel's first declarations (k_tiles before Units;
// in the consumers of the stream-K twins, Pieces before PipelineState) is the written-out
// twins' too. `cargo xtask sass STEP` shows a step's SASS beside its twin's.
//
// sm_90a only (wgmma, TMA, clusters, setmaxnreg), like the twins that include it.
// No system headers: NVRTC compiles this without a toolkit include path.
#pragma once
#include "hopper.cuh"
#include "schedule.cuh"

namespace hopper {

// =============================================================================================
// mod.rs: the constants of the hardware, a step's Shape, its accumulators and register split
// =============================================================================================

// Threads of a warp, and of a warpgroup: four warps, the unit wgmma and setmaxnreg work in.
constexpr unsigned WARP_SIZE = 32;
constexpr unsigned WARPGROUP = 4 * WARP_SIZE;
// Rows of the block tile each consumer warpgroup computes: the M of wgmma m64nNk16.
constexpr unsigned WARPGROUP_ROWS = 64;
// Bytes of one row of the 128-byte swizzle (one TMA box row of A, B and C), and the swizzle
// atom: 8 rows of 128 bytes, 1024-byte aligned (as w01).
constexpr unsigned ROW_BYTES = 128;
constexpr unsigned ATOM_BYTES = 8 * ROW_BYTES;
// k values per wgmma (the k16 of m64nNk16), and the wgmma per k tile of BK = 64.
constexpr unsigned MMA_K = 16;
constexpr unsigned MMAS_PER_K_TILE = 4;
// Bytes of one 16-bit input value (f16 or bf16) and of one f32 of C.
constexpr unsigned INPUT_BYTES = 2;
constexpr unsigned F32_BYTES = 4;

// The f32 accumulators one consumer thread holds for wgmma m64nNk16: N / 2 registers, laid out
// as kernels/src/device/wgmma.rs describes, indexed only by constants (or by pick's selects).
template <unsigned N_>
struct Accumulator {
    // The N of m64nNk16: the width of the block tile; and the registers per thread.
    static constexpr unsigned N = N_;
    static constexpr unsigned REGISTERS = N_ / 2;
    float r[REGISTERS];

    // All zero, before a unit's first k tile.
    __device__ __forceinline__ static Accumulator zeroed() {
        Accumulator acc;
#pragma unroll
        for (unsigned i = 0; i < REGISTERS; ++i) acc.r[i] = 0.0f;
        return acc;
    }
    __device__ __forceinline__ float& operator[](unsigned i) { return r[i]; }
    __device__ __forceinline__ const float& operator[](unsigned i) const { return r[i]; }
};
// The accumulators of wgmma m64n256k16 (the 128 x 256 tiles of w06-w08 and w11-w13) and of
// m64n128k16 (the 128-wide tiles of w09 and w10).
using M64n256 = Accumulator<256>;
using M64n128 = Accumulator<128>;
// m64n192 (w22's 128 x 192 tile, FP8 only).
using M64n192 = Accumulator<192>;
static_assert(M64n256::REGISTERS == M64N256_ACC && M64n128::REGISTERS == M64N128_ACC &&
                  M64n192::REGISTERS == M64N192_ACC,
              "wgmma accumulators");

// One wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16} (bf16 when BF16): acc += A * B, A
// (64 x 16, K-major) and B (16 x N, N-major) by descriptor. The whole warpgroup calls it, after
// wgmma_fence(); acc is unread until a wgmma_wait_group has seen it finish.
template <bool BF16>
__device__ __forceinline__ void mma(M64n256& acc, unsigned long long a, unsigned long long b) {
    mma_m64n256k16<BF16>(acc.r, a, b);
}
template <bool BF16>
__device__ __forceinline__ void mma(M64n128& acc, unsigned long long a, unsigned long long b) {
    mma_m64n128k16<BF16>(acc.r, a, b);
}
// One wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3: acc += A * B, A (64 x 32) and B
// (32 x N) both K-major by descriptor.
__device__ __forceinline__ void mma_e4m3(M64n256& acc, unsigned long long a, unsigned long long b) {
    mma_m64n256k32_e4m3(acc.r, a, b);
}
__device__ __forceinline__ void mma_e4m3(M64n128& acc, unsigned long long a, unsigned long long b) {
    mma_m64n128k32_e4m3(acc.r, a, b);
}
__device__ __forceinline__ void mma_e4m3(M64n192& acc, unsigned long long a, unsigned long long b) {
    mma_m64n192k32_e4m3(acc.r, a, b);
}

// A step's input type, as the Rust Shape's INPUT_BYTES, MMA_K and B_K_MAJOR: 16-bit values
// (f16, bf16: k16 per wgmma, B N-major), or e4m3 (k32 per wgmma in the same 32 bytes of a
// swizzle row, B K-major as B^T: 8-bit wgmma reads no other layout).
// B_E5M2: B's 8-bit values are e5m2 (w20), A's e4m3.
struct Bits16 {
    static constexpr unsigned BYTES = 2, MMA_K = 16;
    static constexpr bool B_K_MAJOR = false, B_E5M2 = false;
};
struct E4m3 {
    static constexpr unsigned BYTES = 1, MMA_K = 32;
    static constexpr bool B_K_MAJOR = true, B_E5M2 = false;
};
struct E4m3E5m2 {
    static constexpr unsigned BYTES = 1, MMA_K = 32;
    static constexpr bool B_K_MAJOR = true, B_E5M2 = true;
};

// How a block's registers are shared between its roles, each call at the top of its role's
// branch (w06's setmaxnreg). A type rather than two constants because setmaxnreg takes its count
// as an immediate: the step's Shape names the counts, here they become the instruction's.
// Reallocate: the producer warpgroup lowers itself to PRODUCER registers per thread
// (setmaxnreg.dec), the consumers raise themselves to CONSUMER (setmaxnreg.inc, which waits
// until the producer's are free).
template <unsigned PRODUCER, unsigned CONSUMER>
struct Reallocate {
    __device__ __forceinline__ static void producer() { release_registers<PRODUCER>(); }
    __device__ __forceinline__ static void consumers() { claim_registers<CONSUMER>(); }
};
// No reallocation: every thread keeps what ptxas gave it (w10: with 256 threads there is no
// register cap at the entry, and ptxas would ignore setmaxnreg, warning C7508).
struct KeepRegisters {
    __device__ __forceinline__ static void producer() {}
    __device__ __forceinline__ static void consumers() {}
};

// A Hopper step's shape: the constants of its module in common::gemm (Constants: the twin's copy
// of them, a struct of static constexpr members BM, BN, BK, STAGES, STAGE_BYTES, the boxes
// A_BOX_X/Y, B_BOX_X/Y, C_BOX_X/Y (contiguous extent, rows), C_BOX_BYTES, C_BUFFERS,
// C_STAGING_BYTES, CLUSTER_M, CONSUMER_WARPGROUPS, GROUP_ROWS, ALIGN_SLACK, THREADS, and for
// stream-K MAX_SPLIT and PARTIAL_FLOATS), the accumulator type of its tile width and its register
// split. What follows from those is derived here, and what the pieces assume is checked.
// C_BF16_: C stored as bf16 (w21's boxes of 64 columns) rather than f32. C_ROW_ORDER_: an f32
// C's epilogue gives each row its own order of its column groups (w05's, free of bank conflicts)
// rather than one order for all rows (w25: fewer instructions, a 2-way conflict per store).
template <class Constants, class Acc_, class Registers_, class Input = Bits16, bool C_BF16_ = false,
          bool C_ROW_ORDER_ = true>
struct Shape : Constants {
    static constexpr bool C_BF16 = C_BF16_;
    static constexpr bool C_ROW_ORDER = C_ROW_ORDER_;
    static constexpr unsigned C_BYTES = C_BF16 ? 2 : F32_BYTES;
    // The wgmma accumulators of one consumer thread for a WARPGROUP_ROWS x BN piece.
    using Acc = Acc_;
    // How the block shares its registers between the roles.
    using Registers = Registers_;
    // The input type's bytes, k per wgmma and B's layout.
    static constexpr unsigned INPUT_BYTES = Input::BYTES, MMA_K = Input::MMA_K;
    static constexpr bool B_K_MAJOR = Input::B_K_MAJOR, B_E5M2 = Input::B_E5M2;

    // Bytes of A's tile in a stage (one box), and of each of B's panels (one box each:
    // B_PANEL_COLUMNS columns of the tile, 64 N-major, more K-major).
    static constexpr unsigned A_BYTES = Constants::A_BOX_X * Constants::A_BOX_Y * INPUT_BYTES;
    static constexpr unsigned B_PANEL_BYTES = Constants::B_BOX_X * Constants::B_BOX_Y * INPUT_BYTES;
    static constexpr unsigned B_PANEL_COLUMNS = B_K_MAJOR ? Constants::B_BOX_Y : Constants::B_BOX_X;
    // B's panels each block of the cluster copies (and multicasts to all of them).
    static constexpr unsigned PANELS_PER_BLOCK = Constants::BN / B_PANEL_COLUMNS / Constants::CLUSTER_M;
    // Every block of the cluster: the mask of a multicast copy.
    static constexpr unsigned short CLUSTER_MASK = (1 << Constants::CLUSTER_M) - 1;
    // Consumer threads of a block; the consumer warps of a block, of which every block of the
    // cluster's arrive on each block's "empty" barriers.
    static constexpr unsigned CONSUMER_THREADS = Constants::CONSUMER_WARPGROUPS * WARPGROUP;
    static constexpr unsigned CONSUMER_WARPS = Constants::CONSUMER_WARPGROUPS * WARPGROUP / WARP_SIZE;
    // The producer warpgroup's first thread, which issues every copy.
    static constexpr unsigned PRODUCER_THREAD = CONSUMER_THREADS;
    // C's boxes per consumer warpgroup and tile: 64 rows by 32 columns each.
    static constexpr unsigned C_BOXES = Constants::BN / Constants::C_BOX_X;

    static_assert(Constants::BM == Constants::CONSUMER_WARPGROUPS * WARPGROUP_ROWS &&
                      Constants::THREADS == (Constants::CONSUMER_WARPGROUPS + 1) * WARPGROUP,
                  "a block: 64 rows per consumer warpgroup, then the producer warpgroup");
    static_assert(Constants::BN == Acc::N && Constants::BK == MMAS_PER_K_TILE * MMA_K &&
                      MMA_K * INPUT_BYTES == hopper::MMA_K * hopper::INPUT_BYTES,
                  "the tile: one wgmma wide, MMAS_PER_K_TILE wgmma deep, 32 bytes of a row each");
    static_assert(Constants::A_BOX_X * INPUT_BYTES == ROW_BYTES && Constants::A_BOX_Y == Constants::BM &&
                      Constants::B_BOX_X * INPUT_BYTES == ROW_BYTES &&
                      (B_K_MAJOR ? Constants::B_BOX_X == Constants::BK : Constants::B_BOX_Y == Constants::BK) &&
                      PANELS_PER_BLOCK * Constants::CLUSTER_M * B_PANEL_COLUMNS == Constants::BN,
                  "A's and B's boxes: 128-byte rows, A's the tile's rows, B's panels shared by the cluster");
    static_assert(A_BYTES + Constants::BN / B_PANEL_COLUMNS * B_PANEL_BYTES == Constants::STAGE_BYTES &&
                      Constants::STAGE_BYTES % ATOM_BYTES == 0,
                  "a stage: A's box and B's panels, a whole number of swizzle atoms");
    static_assert(Constants::C_BOX_Y == WARPGROUP_ROWS && Constants::C_BOX_X * C_BYTES == ROW_BYTES,
                  "C's boxes: a warpgroup's rows by one 128-byte row");
};

// =============================================================================================
// pipeline.rs: the stage ring between the producer and the consumers, and the dynamic shared
// memory it lives in.
//
// STAGES stages each hold one k tile (A's tile, then B's panels). Stage s has two mbarriers:
// "full", on which the producer arrives once with the bytes to expect and the TMA copies complete
// those bytes, and "empty", on which every consumer warp of every block of the cluster arrives
// once it has finished reading the stage (the copies into a stage are multicast, so all blocks
// must be done with it). Each side walks the ring in the same order, the n-th k tile (or partial
// chunk, w12) in stage n % STAGES, and waits for the barrier's phase of its lap: lap n / STAGES
// completes phase n / STAGES of both barriers, and a wait names a phase by its parity.
// =============================================================================================

// Bytes of one mbarrier.
constexpr unsigned MBARRIER_BYTES = 8;

// Where one role is in the stage ring (CUTLASS's PipelineState): how many stages it has passed,
// from which the stage (index) and the barrier phase (phase) follow. CUTLASS keeps the index and
// the phase as two fields and wraps the index by hand; this keeps the count and divides, which
// is what w02-w05 write out (it % STAGES, (it / STAGES) % 2; STAGES is a constant).
template <class S>
struct PipelineState {
    // Before the first stage: stage 0, phase 0.
    unsigned count = 0;

    // The stage this role is at: count % STAGES.
    __device__ __forceinline__ unsigned index() const { return count % S::STAGES; }
    // The parity of this lap's phase of the stage's barriers: (count / STAGES) % 2.
    __device__ __forceinline__ unsigned phase() const { return (count / S::STAGES) % 2; }
    // Whether this is the first lap of the ring, in which every stage is free: the producer
    // waits for no "empty" barrier (where the Rust's empty_phase() is None).
    __device__ __forceinline__ bool first_lap() const { return count < S::STAGES; }
    // After the first lap: the parity of the previous lap's phase of the stage's "empty"
    // barrier, for which the producer waits before refilling the stage.
    __device__ __forceinline__ unsigned empty_phase() const { return (count / S::STAGES - 1) % 2; }
    // On to the next stage.
    __device__ __forceinline__ void advance() { ++count; }
    // The state one stage back (after at least one advance): the stage a consumer releases once
    // the next one's wgmma are issued.
    __device__ __forceinline__ PipelineState previous() const { return PipelineState{count - 1}; }
    // The state one stage on: the stage the next k tile lands in, and that lap's phase.
    __device__ __forceinline__ PipelineState next() const { return PipelineState{count + 1}; }
};

// The block's dynamic shared memory (launched with the step's SHARED_BYTES), as C++ sees it.
__device__ __forceinline__ unsigned char* dynamic_shared() {
    extern __shared__ __align__(16) unsigned char smem[];
    return smem;
}

// The dynamic shared memory of a Hopper step, from its base rounded up to 1024 bytes (the
// 128-byte swizzle's alignment):
//
//   STAGES x STAGE_BYTES   the stages: A's tile (A_BYTES), then B's BN / 64 panels
//   C_STAGING_BYTES        C's staging boxes, C_BUFFERS per consumer warpgroup (1024-byte aligned)
//   2 x STAGES x 8         the mbarriers: STAGES "full", then STAGES "empty"
//
// common::gemm's SHARED_BYTES is their sum plus ALIGN_SLACK. All addresses are 32-bit
// shared-window addresses.
template <class S>
struct SharedLayout {
    unsigned base;
    // The first barrier, after the stages and the staging boxes.
    unsigned barriers;

    __device__ __forceinline__ SharedLayout()
        : base((smem_u32(dynamic_shared()) + S::ALIGN_SLACK - 1) & ~(S::ALIGN_SLACK - 1)),
          barriers(base + S::STAGES * S::STAGE_BYTES + S::C_STAGING_BYTES) {}

    // A's tile in stage s; B's tile (its first panel) in stage s.
    __device__ __forceinline__ unsigned a_stage(unsigned s) const { return base + s * S::STAGE_BYTES; }
    __device__ __forceinline__ unsigned b_stage(unsigned s) const { return base + s * S::STAGE_BYTES + S::A_BYTES; }
    // Consumer warpgroup w's staging box b of C.
    __device__ __forceinline__ unsigned c_box(unsigned w, unsigned b) const {
        return base + S::STAGES * S::STAGE_BYTES + (w * S::C_BUFFERS + b) * S::C_BOX_BYTES;
    }
    // Stage s's "full" barrier (the producer's arrival and the copies' bytes) and "empty"
    // barrier (the consumer warps of every block of the cluster).
    __device__ __forceinline__ unsigned full(unsigned s) const { return barriers + s * MBARRIER_BYTES; }
    __device__ __forceinline__ unsigned empty(unsigned s) const { return barriers + (S::STAGES + s) * MBARRIER_BYTES; }
    // The first byte past the barriers: where a step keeps shared data of its own (its
    // SHARED_BYTES reserves the room).
    __device__ __forceinline__ unsigned past_barriers() const { return barriers + 2 * S::STAGES * MBARRIER_BYTES; }

    // A pointer C++ can load and store through (ld/st.shared once inlined) to the shared address
    // `address` of this layout: C++ writes the staging boxes and reads w12's chunks with ordinary
    // accesses where the Rust writes ld/st.shared by address.
    template <class T>
    __device__ __forceinline__ static T* pointer(unsigned address) {
        unsigned char* smem = dynamic_shared();
        return reinterpret_cast<T*>(smem + (address - smem_u32(smem)));
    }

    // Initializes every stage's two barriers (mbarrier.init; "full" expects the producer's one
    // arrival, "empty" one per consumer warp of the cluster) and publishes them to the cluster
    // (fence.mbarrier_init.release.cluster). One thread calls it; a cluster barrier follows
    // before any block uses them, since the other blocks' copies and arrivals land on this
    // block's barriers.
    __device__ __forceinline__ void init_barriers() const {
        for (unsigned s = 0; s < S::STAGES; ++s) {
            mbarrier_init(full(s), 1);
            mbarrier_init(empty(s), S::CONSUMER_WARPS * S::CLUSTER_M);
        }
        fence_barrier_init();
    }

    // The producer thread takes the stage of `state`: waits until the consumers of every block
    // of the cluster have released it (its "empty" barrier's previous phase; not in the first
    // lap), then arrives on its "full" barrier expecting `bytes` of copies
    // (mbarrier.arrive.expect_tx), which it issues before it takes the stage again. Returns the
    // stage.
    __device__ __forceinline__ unsigned producer_acquire(PipelineState<S> state, unsigned bytes) const {
        const unsigned s = state.index();
        if (!state.first_lap()) mbarrier_wait(empty(s), state.empty_phase());
        mbarrier_arrive_expect_tx(full(s), bytes);
        return s;
    }
};

// pipeline::FullWaits: how a consumer warpgroup learns that its k tiles' stages are full. Without
// PROBE (w08-w22) it waits on each k tile's "full" barrier before that k tile's wgmma; with PROBE
// (w23) it asks for the next k tile's stage once this one's wgmma are committed
// (mbarrier.test_wait, answered at once) and waits only where the answer was no.
template <class S, bool PROBE>
struct FullWaits {
    bool landed = false;  // the probe under the last k tile saw the next one's stage full

    // Before the wgmma of the k tile in stage s (state's): waits unless the probe saw it full.
    __device__ __forceinline__ void wait(const SharedLayout<S>& smem, unsigned s, PipelineState<S> state) const {
        if (!(PROBE && landed)) mbarrier_wait(smem.full(s), state.phase());
    }
    // Once k tile state's wgmma are committed (PROBE; else nothing): is the next k tile's stage
    // full? Past a unit's last k tile it asks a barrier that exists; the answer goes unused.
    __device__ __forceinline__ void probe_next(const SharedLayout<S>& smem, PipelineState<S> state) {
        if constexpr (PROBE) {
            const PipelineState<S> next = state.next();
            landed = mbarrier_test_wait(smem.full(next.index()), next.phase());
        }
    }
};

// The consumers' release of a stage, as the lambda the main loop and w12's fix-up call with the
// stage s this warp has finished reading: lane 0 arrives on the stage's "empty" barrier in every
// block of the cluster (mbarrier.arrive.shared::cluster through mapa), since each block's copies
// into the stage land in all of them. Every lane of the warp calls it, after the warp's reads of
// the stage are done (a wgmma wait, or a proxy fence and a warp barrier).
template <class S>
__device__ __forceinline__ auto consumer_release(unsigned lane, SharedLayout<S> smem) {
    return [lane, smem](unsigned s) {
        if (lane == 0) {
            for (unsigned r = 0; r < S::CLUSTER_M; ++r) mbarrier_arrive_remote(map_shared_to_rank(smem.empty(s), r));
        }
    };
}

// Whether warpgroup `warpgroup` (tid / WARPGROUP) is the producer's, which follows the
// consumers'. (The Rust's takes tid and divides. Simplifying this function alone, NVVM would
// compare a mask of tid instead, apart from the consumers' tid / WARPGROUP, and the SASS moves.)
template <class S>
__device__ __forceinline__ bool is_producer(unsigned warpgroup) {
    return warpgroup == S::CONSUMER_WARPGROUPS;
}

// =============================================================================================
// mainloop.rs: which units a cluster computes, the producer thread's TMA copies of a unit's k
// tiles, and the consumer warpgroups' wgmma on them.
// =============================================================================================

// The first row and column of a block's tile (the Rust's (row0, col0)).
struct Origin {
    unsigned row0, col0;
};

// The units of an m x n C: CLUSTER_M tiles stacked along M, one per block of a cluster, numbered
// in w03's grouped order (bands of GROUP_ROWS unit rows, walked column by column, so that the
// clusters running at one time share rows of A and columns of B in L2).
template <class S>
struct Units {
    // Rows of units (of CLUSTER_M tile rows each), columns of tiles, and units.
    unsigned pair_rows, tile_cols, units;
    // This block's rank in its cluster (mov %cluster_ctarank), read once here for Producer and
    // Workspace as well: NVVM keeps every read of it, and in w07 a second one moves the SASS.
    unsigned rank;

    __device__ __forceinline__ Units(unsigned m, unsigned n) {
        rank = cluster_rank();
        const unsigned tile_rows = div_ceil(m, S::BM);
        tile_cols = div_ceil(n, S::BN);
        pair_rows = div_ceil(tile_rows, S::CLUSTER_M);
        units = pair_rows * tile_cols;
    }

    // How many units C has.
    __device__ __forceinline__ unsigned count() const { return units; }

    // The origin of this block's tile of `unit`: the block's cluster rank picks the tile within
    // the unit (past M for the second block of a last, odd row: its A box reads zeros, it stores
    // nothing).
    __device__ __forceinline__ Origin origin(unsigned unit) const {
        unsigned pair_row, col;
        grouped_tile(unit, pair_rows, tile_cols, S::GROUP_ROWS, pair_row, col);
        return Origin{(pair_row * S::CLUSTER_M + rank) * S::BM, col * S::BN};
    }
};

// The producer thread: the one thread of the block that issues the TMA copies of A and B.
// a_map and b_map are the global addresses of the tensor maps of A and B (16-bit, row-major,
// 128-byte swizzle, boxes A_BOX and B_BOX), as the launch passes them.
template <class S>
struct Producer {
    SharedLayout<S> smem;
    const void* a_map;
    const void* b_map;
    // This block's rank in the cluster (Units::rank), which picks the panels of B it copies.
    unsigned rank;

    __device__ __forceinline__ Producer(SharedLayout<S> smem_, const void* a_map_, const void* b_map_, unsigned rank_)
        : smem(smem_), a_map(a_map_), b_map(b_map_), rank(rank_) {}

    // Copies k tiles k_begin..k_end of the tile at `origin` into the next stages: for each, takes
    // the stage (SharedLayout::producer_acquire, STAGE_BYTES expected), copies A's box
    // (cp.async.bulk.tensor) and this block's PANELS_PER_BLOCK of B's panels, multicast to every
    // block of the cluster (.multicast::cluster), all completing on the stage's "full" barrier.
    // Every block of the cluster walks the same k tiles of the same units, so their stages stay
    // in step (each block's "full" barrier expects the bytes that all of them copy into it).
    __device__ __forceinline__ void load_k_tiles(PipelineState<S>& state, Origin origin, unsigned k_begin,
                                                 unsigned k_end) const {
        for (unsigned t = k_begin; t < k_end; ++t) {
            const unsigned s = smem.producer_acquire(state, S::STAGE_BYTES);
            const unsigned full = smem.full(s);
            copy_tensor_2d(smem.a_stage(s), a_map, t * S::BK, origin.row0, full);
            for (unsigned p = 0; p < S::PANELS_PER_BLOCK; ++p) {
                const unsigned panel = rank * S::PANELS_PER_BLOCK + p;
                // N-major B: the box's x is columns, its y k; K-major B^T: x is k, y columns.
                const unsigned x = S::B_K_MAJOR ? t * S::BK : origin.col0 + panel * S::B_PANEL_COLUMNS;
                const unsigned y = S::B_K_MAJOR ? origin.col0 + panel * S::B_PANEL_COLUMNS : t * S::BK;
                copy_tensor_2d_multicast(smem.b_stage(s) + panel * S::B_PANEL_BYTES, b_map, x, y, full,
                                         S::CLUSTER_MASK);
            }
            state.advance();
        }
    }
};

// A consumer warpgroup (consumer thread tid's): multiplies the stages' tiles into its
// accumulators, f16 inputs or bf16 (BF16).
template <class S, bool BF16>
struct Consumer {
    SharedLayout<S> smem;
    unsigned warpgroup;

    __device__ __forceinline__ Consumer(SharedLayout<S> smem_, unsigned tid)
        : smem(smem_), warpgroup(tid / WARPGROUP) {}

    // The descriptor of this warpgroup's 64 rows of stage s's A tile, at the k step kk of the
    // tile (K-major: a step moves the start by its bytes within the swizzle row).
    __device__ __forceinline__ unsigned long long a_descriptor(unsigned s, unsigned kk) const {
        const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
        return descriptor(smem.a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + step_bytes, 0, ATOM_BYTES);
    }

    // The main loop over k tiles k_begin..k_end of one tile, into `acc` (zero before a unit's
    // first k tile): for each, waits until its stage is full (its "full" barrier's phase for
    // this lap), issues MMAS_PER_K_TILE wgmma (k 16 each; A is this warpgroup's 64 rows of the
    // stage's A tile, K-major; B the stage's B tile, N-major), commits them, waits until the
    // previous k tile's group has finished (one group in flight) and releases that k tile's
    // stage (`release`: consumer_release's lambda). The last stage is released after a wait for
    // every group: acc may be read after it (device/wgmma.rs's layout).
    // Every thread of the warpgroup calls it (wgmma is warpgroup-collective); the producer loads
    // the same k tiles, in order.
    template <class Release>
    __device__ __forceinline__ void mma_k_tiles(PipelineState<S>& state, unsigned k_begin, unsigned k_end,
                                                typename S::Acc& acc, const Release& release) const {
        for (unsigned t = k_begin; t < k_end; ++t) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
            wgmma_fence();
#pragma unroll
            for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
                const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
                const unsigned long long a_desc = a_descriptor(s, kk);
                const unsigned long long b_desc =
                    S::B_K_MAJOR ? descriptor(smem.b_stage(s) + step_bytes, 0, ATOM_BYTES)
                                 : descriptor(smem.b_stage(s) + kk * S::MMA_K * ROW_BYTES, S::B_PANEL_BYTES, ATOM_BYTES);
                if constexpr (S::INPUT_BYTES == 1) mma_e4m3(acc, a_desc, b_desc); else mma<BF16>(acc, a_desc, b_desc);
            }
            wgmma_commit_group();
            wgmma_wait_group<1>();
            if (t > k_begin) release(state.previous().index());
            state.advance();
        }
        wgmma_wait_group<0>();
        release(state.previous().index());
    }
};

// =============================================================================================
// epilogue.rs: w05's epilogue. A consumer warpgroup writes its 64 x BN piece of C into swizzled
// staging boxes in shared memory, and one of its threads hands each box to the copy engine
// (cp.async.bulk.tensor ... .global.shared::cta), which writes C in whole lines and clips what
// lies outside the matrix. w05's header tells the why; this is the same code.
// =============================================================================================

// Staging boxes per consumer warpgroup: one is written while the copy engine reads the other
// (cp.async.bulk.wait_group.read 1 before a box is refilled).
constexpr unsigned C_BUFFERS = 2;
// The named barrier of consumer warpgroup w is EPILOGUE_BARRIER + w (0 is the block's).
constexpr unsigned EPILOGUE_BARRIER = 1;
// Rows of a warpgroup's piece each warp holds (device/wgmma.rs's layout), and the distance
// between a thread's two rows.
constexpr unsigned WARP_ROWS = 16;
constexpr unsigned HALF_ROWS = 8;
// A swizzled row's 16-byte chunks, and the 8 bytes (two f32) one thread writes at a time.
constexpr unsigned CHUNK_BYTES = 16;
constexpr unsigned PAIR_BYTES = 8;
// Accumulators per 8-column group of a row pair (two rows, two columns), and the groups of a
// 32-column box.
constexpr unsigned GROUP_ACC = 4;
constexpr unsigned BOX_GROUPS = 4;

// acc[first + 4q] for a run-time q in 0..4, by selects: indexing the accumulators at run time
// would move them to local memory.
template <class Acc>
__device__ __forceinline__ float pick(const Acc& acc, unsigned first, unsigned q) {
    const float low = (q & 1) == 0 ? acc[first] : acc[first + GROUP_ACC];
    const float high = (q & 1) == 0 ? acc[first + 2 * GROUP_ACC] : acc[first + 3 * GROUP_ACC];
    return (q & 2) == 0 ? low : high;
}

// cvt.rn.bf16x2.f32 d, hi, lo: lo and hi rounded to bfloat16 and packed, lo in bits 0-15
// (device/convert.rs pack_bf16x2).
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
    unsigned d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

// The factor the epilogue multiplies C by on its way out, if on (Rust: Option<f32>).
struct Factor {
    bool on = false;
    float value = 1.0f;
};

// One consumer thread's part of the epilogue. c_map is the global address of a tensor map of C
// (M x N f32, row-major, 128-byte swizzle, boxes C_BOX).
template <class S>
struct Epilogue {
    static_assert(S::C_BUFFERS == C_BUFFERS, "the staging boxes the step's shared memory holds");
    SharedLayout<S> smem;
    const void* c_map;
    // This thread's warpgroup, its lane and its warp in the warpgroup. (The Rust's also keeps
    // the lane's row group and column pair; here store_tile derives them, as w05 does.)
    unsigned warpgroup, lane, warp;
    // The warpgroup's first thread, which issues the box stores.
    bool storer;

    __device__ __forceinline__ Epilogue(SharedLayout<S> smem_, const void* c_map_, unsigned tid)
        : smem(smem_), c_map(c_map_), warpgroup(tid / WARPGROUP), lane(tid % WARP_SIZE),
          warp((tid % WARPGROUP) / WARP_SIZE), storer(tid % WARPGROUP == 0) {}

    // Before box j of a tile is written into buffer j % C_BUFFERS: the storer waits until the
    // copy engine has read that buffer (the box stored from it two boxes ago). Across tiles that
    // holds for an even number of boxes; with an odd number (w22's three) the previous tile's
    // last box took this tile's first buffer, so there it waits for every read (Rust:
    // Epilogue::wait_buffer_read).
    __device__ __forceinline__ void wait_buffer_read(unsigned j) const {
        if (!storer) return;
        if (j == 0 && S::C_BOXES % C_BUFFERS != 0) bulk_wait_group_read<0>();
        else bulk_wait_group_read<C_BUFFERS - 1>();
    }

    // Stores the warpgroup's piece of the tile at `origin`, one 64 x 32 box at a time. Thread
    // (warp, lane) holds rows warp*16 + lane/4 (+ 8) of the piece and, for box j, columns
    // 32j + 8q + 2(lane % 4) (+ 1), q = 0..3: accumulators 4(4j + q) + ... (device/wgmma.rs). In
    // the box's 128-byte rows, those two values are bytes 32q + 8(lane % 4) ..., in 16-byte chunk
    // 2q + (lane % 4)/2, which the swizzle moves to that chunk XOR (row % 8), and row % 8 is
    // lane / 4. Per box: the storer waits until the box's buffer has been read out, the
    // warpgroup meets (named barrier), writes the box (st.shared.v2.f32), fences it for the async
    // proxy, meets again, and the storer issues the box's TMA store in a bulk group of its own.
    // Returns once the last box is handed over: the copies drain under the next tile's main
    // loop. Every thread of the warpgroup calls it, with the accumulators of
    // Consumer::mma_k_tiles for that tile.
    __device__ __forceinline__ void store_tile(const typename S::Acc& acc, Origin origin) const {
        store_scaled_tile(acc, origin, Factor{});
    }

    // store_tile with each value multiplied by factor.value on its way out when factor.on (an
    // FP8 product's scale_a * scale_b); without it, this is store_tile.
    __device__ __forceinline__ void store_scaled_tile(const typename S::Acc& acc, Origin origin, Factor factor) const {
        if constexpr (S::C_BF16) {
            store_bf16_tile(acc, origin, factor);
            return;
        }
        const auto scaled = [&](float x) { return factor.on ? x * factor.value : x; };
        // This thread's row group g = lane / 4 and column pair t4 = lane % 4, and the order in
        // which the row takes its four column groups (below).
        const unsigned g = lane / 4, t4 = lane % 4;
        const unsigned row_order = (g % 4) ^ (g % 4 / 2);
#pragma unroll
        for (unsigned j = 0; j < S::C_BOXES; ++j) {
            const unsigned buffer = smem.c_box(warpgroup, j % C_BUFFERS);
            wait_buffer_read(j);
            sync_named(EPILOGUE_BARRIER + warpgroup, WARPGROUP);
            float* staging = SharedLayout<S>::template pointer<float>(buffer);
#pragma unroll
            for (unsigned step = 0; step < 4; ++step) {
                // An 8-byte store is served in two half-warp phases: rows g and g ^ 1 of a half
                // would XOR the same column group onto the same two chunks (a 2-way conflict per
                // phase), so each row takes the groups in its own order, q = step ^ gray(g % 4),
                // which keeps the four rows of a half on four different pairs of chunks. That
                // order is a run-time index into the accumulators (pick's selects); a shape without
                // C_ROW_ORDER (w25) takes the groups in one order and the conflict.
                const unsigned q = S::C_ROW_ORDER ? step ^ row_order : step;
#pragma unroll
                for (unsigned half = 0; half < 2; ++half) {
                    const unsigned row = warp * WARP_ROWS + g + HALF_ROWS * half;
                    const unsigned chunk = (2 * q + t4 / 2) ^ g;
                    const unsigned at = (row * ROW_BYTES + chunk * CHUNK_BYTES + (t4 % 2) * PAIR_BYTES) / F32_BYTES;
                    const unsigned first = GROUP_ACC * BOX_GROUPS * j + 2 * half;
                    *reinterpret_cast<float2*>(staging + at) =
                        make_float2(scaled(pick(acc, first, q)), scaled(pick(acc, first + 1, q)));
                }
            }
            fence_proxy_async_shared();
            sync_named(EPILOGUE_BARRIER + warpgroup, WARPGROUP);
            if (storer) {
                // The engine clips what lies outside M x N.
                store_tensor_2d(c_map, origin.col0 + j * S::C_BOX_X, origin.row0 + warpgroup * WARPGROUP_ROWS, buffer);
                bulk_commit_group();
            }
        }
    }
    // store_scaled_tile for a bf16 C (w21, epilogue.rs store_bf16_tile): boxes of 64 columns,
    // 128 bytes of bf16 per row as 32 f32 columns were. For box j the thread's values of column
    // group q (q = 0..7) are accumulators 4(8j + q) + ..., packed as a bf16 pair (cvt.rn.bf16x2)
    // at byte 16q + 4(lane % 4) of the row, chunk q, swizzled to q XOR (lane / 4): the eight
    // rows of a store take eight chunks, its 32 lanes 32 banks.
    __device__ __forceinline__ void store_bf16_tile(const typename S::Acc& acc, Origin origin, Factor factor) const {
        const auto scaled = [&](float x) { return factor.on ? x * factor.value : x; };
        const unsigned g = lane / 4, t4 = lane % 4;
#pragma unroll
        for (unsigned j = 0; j < S::C_BOXES; ++j) {
            const unsigned buffer = smem.c_box(warpgroup, j % C_BUFFERS);
            wait_buffer_read(j);
            sync_named(EPILOGUE_BARRIER + warpgroup, WARPGROUP);
            unsigned* staging = SharedLayout<S>::template pointer<unsigned>(buffer);
#pragma unroll
            for (unsigned q = 0; q < 8; ++q) {
#pragma unroll
                for (unsigned half = 0; half < 2; ++half) {
                    const unsigned row = warp * WARP_ROWS + g + HALF_ROWS * half;
                    const unsigned at = (row * ROW_BYTES + (q ^ g) * CHUNK_BYTES + t4 * 4) / 4;
                    const unsigned first = GROUP_ACC * (8 * j + q) + 2 * half;
                    staging[at] = pack_bf16x2(scaled(acc[first]), scaled(acc[first + 1]));
                }
            }
            fence_proxy_async_shared();
            sync_named(EPILOGUE_BARRIER + warpgroup, WARPGROUP);
            if (storer) {
                store_tensor_2d(c_map, origin.col0 + j * S::C_BOX_X, origin.row0 + warpgroup * WARPGROUP_ROWS, buffer);
                bulk_commit_group();
            }
        }
    }
};

// Where a kernel's per-tensor scales come from (epilogue.rs's TensorScales): an FP8 product
// multiplies C by scale_a * scale_b (as cuBLASLt's FP8 product and PyTorch's _scaled_mm take
// them, one f32 each on the device), a 16-bit one by nothing.
// BLOCKS: whether the main loop applies them per block (w19's BlockScales) rather than the
// epilogue per tensor.
struct NoScales {
    static constexpr bool BLOCKS = false;
    __device__ __forceinline__ Factor factor() const { return Factor{}; }
};
struct ScalesAt {
    static constexpr bool BLOCKS = false;
    const float* p;  // scale_a, scale_b
    __device__ __forceinline__ Factor factor() const { return Factor{true, p[0] * p[1]}; }
};

// Before the block exits: each consumer warpgroup's storer (thread tid % 128 = 0) waits until
// C's last boxes are written (cp.async.bulk.wait_group 0), as w05 does.
__device__ __forceinline__ void wait_written(unsigned tid) {
    if (tid % WARPGROUP == 0) bulk_wait_group<0>();
}

// Before the block exits: each storer waits only until C's last boxes are read out of shared
// memory (cp.async.bulk.wait_group.read 0); the launch completes after their writes in any case
// (w08's trim).
__device__ __forceinline__ void wait_read(unsigned tid) {
    if (tid % WARPGROUP == 0) bulk_wait_group_read<0>();
}

// =============================================================================================
// stream_k.rs: stream-K's pieces in global memory (w07, w11-w13): the workspace where a
// contributor leaves its partial tile and raises a flag, and the owner that waits for the flag
// and adds the partial. Which cluster does what is schedule.cuh's StreamK.
//
// The workspace holds, per block of the grid, a partial tile (PARTIAL_FLOATS f32), and after all
// of them a 4-byte flag per block: zero between launches (the owner resets each flag it has seen
// raised), 1 while a partial waits for its owner. A partial is stored as [piece][consumer
// thread], 16 bytes a piece, so that each warp's 16-byte stores and loads are contiguous; every
// consumer thread writes and reads its own slots only.
// =============================================================================================

// f32 in one 16-byte piece of a partial tile, and its bytes.
constexpr unsigned PIECE_FLOATS = 4;
constexpr unsigned PIECE_BYTES = 16;
// 16-byte pieces of a consumer thread's accumulators (stream-K's tiles are m64n256's).
constexpr unsigned ACC_PIECES = M64n256::REGISTERS / PIECE_FLOATS;
// The named barrier at which a block's consumer threads meet around the workspace (ids 1 and 2
// are the consumer warpgroups' own, in the epilogue).
constexpr unsigned CONSUMERS_BARRIER = 3;

// Calls f(i) for each 16-byte piece index i (0 to ACC_PIECES - 1) of a consumer thread's
// accumulators, unrolled (a loop would index the accumulators at run time and move them to local
// memory).
template <class F>
__device__ __forceinline__ void unroll_pieces(F f) {
#pragma unroll
    for (unsigned i = 0; i < ACC_PIECES; ++i) f(i);
}

// This block's view of the launch's workspace, at `base`, for a grid of `clusters` clusters.
template <class S>
struct Workspace {
    static_assert(S::Acc::N == 256 && ACC_PIECES * PIECE_FLOATS * S::CONSUMER_THREADS == S::PARTIAL_FLOATS,
                  "a partial tile: every consumer thread's m64n256 accumulators");
    float* base;
    // Blocks in the grid: the flags start after their partial tiles.
    unsigned blocks;
    // This block's rank in its cluster (Units::rank): its partial and flag are those of the
    // blocks of that rank.
    unsigned rank;

    __device__ __forceinline__ Workspace(float* base_, unsigned clusters, unsigned rank_)
        : base(base_), blocks(clusters * S::CLUSTER_M), rank(rank_) {}

    // The partial tile of this block's counterpart (same rank) in cluster `cluster`.
    __device__ __forceinline__ float* partial(unsigned cluster) const {
        return base + (cluster * S::CLUSTER_M + rank) * S::PARTIAL_FLOATS;
    }
    // The flag of this block's counterpart in cluster `cluster`.
    __device__ __forceinline__ unsigned* flag(unsigned cluster) const {
        return reinterpret_cast<unsigned*>(base + blocks * S::PARTIAL_FLOATS) + (cluster * S::CLUSTER_M + rank);
    }

    // A contributor's consumer thread tid stores its accumulators in its slots of this block's
    // partial (cluster `cluster`'s), 16 bytes at a time (st.global.v4.f32). The owner reads the
    // partial only after this block's flag is raised; this block writes it at most once per
    // launch.
    __device__ __forceinline__ void store_partial(unsigned cluster, unsigned tid, const M64n256& acc) const {
        float4* mine = reinterpret_cast<float4*>(partial(cluster)) + tid;
        unroll_pieces([&](unsigned i) {
            mine[i * S::CONSUMER_THREADS] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
        });
    }

    // One thread raises this block's flag once every consumer's partial stores are done (after a
    // barrier with them): fence.acq_rel.gpu, then st.release.gpu of 1, so that an owner who sees
    // the flag sees the partial. The flag is zero, as the last launch left it.
    __device__ __forceinline__ void raise_flag(unsigned cluster) const {
        fence_acq_rel_gpu();
        store_release_u32(flag(cluster), 1);
    }

    // One thread of the owner waits until cluster `contributor`'s flag is raised (ld.acquire.gpu
    // in a loop) and resets it for the next launch. That cluster contributes to this block's unit
    // (so it raises the flag once), and is resident: every cluster of the grid runs at once.
    __device__ __forceinline__ void take_flag(unsigned contributor) const {
        while (load_acquire_u32(flag(contributor)) == 0) {
        }
        store_relaxed_u32(flag(contributor), 0);
    }

    // An owner's consumer thread tid adds its slots of cluster `contributor`'s partial to its
    // accumulators, 16 bytes at a time from L2 (ld.global.cg.v4.f32), after a thread that has
    // since met this one at a barrier saw the contributor's flag raised (take_flag).
    __device__ __forceinline__ void add_partial(unsigned contributor, unsigned tid, M64n256& acc) const {
        const float4* theirs = reinterpret_cast<const float4*>(partial(contributor)) + tid;
        unroll_pieces([&](unsigned i) {
            const float4 p = __ldcg(theirs + i * S::CONSUMER_THREADS);
            acc[4 * i] += p.x;
            acc[4 * i + 1] += p.y;
            acc[4 * i + 2] += p.z;
            acc[4 * i + 3] += p.w;
        });
    }

    // w07's fix-up of one piece's accumulators, by every consumer thread (tid) of the block of
    // cluster `cluster`. A contributor stores its partial, the consumers meet
    // (CONSUMERS_BARRIER) and thread 0 raises the flag: the tile is not stored here (false). An
    // owner, for each contributor, has thread 0 take its flag, meets, and adds its partial: the
    // tile is complete (true), as a whole unit's is. `piece` is the schedule's.
    __device__ __forceinline__ bool fix_up(const Piece& piece, unsigned cluster, unsigned tid, M64n256& acc) const {
        if (piece.role == Role::Contributor) {
            // Leave the partial tile for the owner, then raise this block's flag.
            store_partial(cluster, tid, acc);
            sync_named(CONSUMERS_BARRIER, S::CONSUMER_THREADS);
            if (tid == 0) raise_flag(cluster);
            return false;
        }
        if (piece.role == Role::Owner) {
            for (unsigned j = piece.first; j < piece.first + piece.contributors; ++j) {
                if (tid == 0) take_flag(j);
                sync_named(CONSUMERS_BARRIER, S::CONSUMER_THREADS);
                add_partial(j, tid, acc);
            }
        }
        return true;
    }
};

}  // namespace hopper
