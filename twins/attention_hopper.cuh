// twins/attention_hopper.cuh: the Hopper (sm_90a) pieces of the attention twins from a04 on, the
// C++ of the Rust they stand on, under the same names:
//
//   piece                                            Rust                                  twins
//   descriptor, wgmma_{fence,commit_group,           kernels/src/device/wgmma.rs           a04-a08
//     wait_group}, fence_proxy_async_shared, the
//     attention's wgmma forms, {claim,release}_registers,
//     stmatrix_x4
//   mbarrier_*, copy_tensor_4d, prefetch_tensor_map, kernels/src/device/tma.rs            a05-a08
//     store_tensor_4d_if, bulk_{commit_group,wait_group_read}_if
//   sync_named, arrive_named                         kernels/src/device/sync.rs            a06-a08
//   computed_here                                    kernels/src/device/hint.rs            a08
//   atomic_add_{acq_rel,relaxed}_u32                 kernels/src/device/atomic.rs          a07
//   hopper:: (Wgmma, Panels, LaneRows, the products, kernels/src/attention/hopper.rs       a04-a07 (*)
//     the softmax, the epilogue)
//   a05:: (the barriers, SharedTiles, Sources,       kernels/src/attention/                a05-a07
//     produce, release)                                a05_tma_producer.rs
//   a06:: (Turns, attend: the consumer loop)         kernels/src/attention/a06_pingpong.rs a06, a07
//
// (*) a04's twin takes the constants, the wgmma forms, Wgmma and Panels from here, and writes its
// key-tile math out in its own loop, as it did before these pieces moved here (it compiles to
// the same PTX); a05 to a07 call hopper::issue_scores, softmax, issue_output etc., as their
// Rust steps do.
//
// A header of its own, not part of attention.cuh: attention.cuh (through tensor.cuh) and
// hopper.cuh cannot both be included (each defines smem_u32 and the cp.async wrappers), and the
// sm_80 twins a01-a03 include attention.cuh, whose PTX must hold no sm_90a instruction (the Rust
// has these modules only under cfg(target_feature = "sm_90a")). So the device wrappers are
// written out here, emitting the instructions the Rust wrappers emit, as hopper.cuh writes the
// GEMM's. An asm without a "memory" clobber is one the Rust marks `nomem`; all others clobber
// memory. Accumulators are the Rust's nested arrays (n8 tiles of 4), passed to the asm element by
// element (the Rust's `fragments::flat` view). Every loop over registers is unrolled and indexed
// by constants, so that the arrays stay in registers.
//
// sm_90a only, like the twins that include it. No system headers: NVRTC compiles this without a
// toolkit include path.
#pragma once
#include "attention.cuh"

// The tensor maps travel as bytes, as the Rust's `*const u8`.
typedef unsigned char u8;

// ---- kernels/src/device/wgmma.rs: the pieces attention uses -------------------------------

// The 64-bit shared-memory matrix descriptor, 128-byte swizzle: start >> 4 in bits 0-13,
// leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle mode 1 in 62-63.
__device__ __forceinline__ u64 descriptor(u32 address, u32 leading_bytes, u32 stride_bytes) {
    auto encode = [](u32 x) { return static_cast<u64>((x & 0x3FFFF) >> 4); };
    return encode(address) | encode(leading_bytes) << 16 | encode(stride_bytes) << 32 | (1ull << 62);
}
// wgmma.fence.sync.aligned: orders earlier accumulator register writes before the next wgmma.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// wgmma.commit_group.sync.aligned: closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// wgmma.wait_group.sync.aligned N: at most N of this warpgroup's wgmma groups unfinished.
template <u32 N>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// fence.proxy.async.shared::cta: this thread's generic-proxy shared writes (cp.async included)
// become visible to the async proxy that wgmma reads through.
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// stmatrix.sync.aligned.m8n8.x4.shared.b16: the warp stores four 8 × 8 matrices of 16-bit values;
// lane l gives the address of row l % 8 of matrix l / 8, and r[i] holds row lane / 4, columns
// 2 (lane % 4) and + 1 of matrix i (an accumulator's layout, rounded to 16 bits).
__device__ __forceinline__ void stmatrix_x4(u32 address, const u32 (&r)[4]) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}

// Accumulator registers per thread of m64n128k16 and m64n64k16 with f32 accumulation.
constexpr u32 M64N128_ACC = 64, M64N64_ACC = 32;

// The asm operands of n8 tiles n … n + 7 of an accumulator: 32 floats.
#define ATTENTION_N8(d, n) "+f"(d[n][0]), "+f"(d[n][1]), "+f"(d[n][2]), "+f"(d[n][3])
#define ATTENTION_N8_X8(d, n)                                                                           \
    ATTENTION_N8(d, n + 0), ATTENTION_N8(d, n + 1), ATTENTION_N8(d, n + 2), ATTENTION_N8(d, n + 3),         \
        ATTENTION_N8(d, n + 4), ATTENTION_N8(d, n + 5), ATTENTION_N8(d, n + 6), ATTENTION_N8(d, n + 7)

// wgmma.mma_async.sync.aligned.m64n128k16.f32.TY.TY with B K-major (imm-trans-b 0): d (+)= A·B
// for the warpgroup, A (64 × 16) and B (16 × 128, each column's 16 values contiguous) by
// descriptor; scale-d is a predicate set from `accumulate` (0: d is overwritten).
#define ATTENTION_WGMMA_M64N128K16_B_K_MAJOR(TY)                                                 \
    asm volatile(                                                                               \
        "{ .reg .pred keep; setp.ne.b32 keep, %66, 0; "                                         \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {"                           \
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                \
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "      \
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "      \
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"        \
        "}, %64, %65, keep, 1, 1, 0, 0; }"                                                      \
        : ATTENTION_N8_X8(d, 0), ATTENTION_N8_X8(d, 8)                                          \
        : "l"(a), "l"(b), "r"(static_cast<u32>(accumulate))                                     \
        : "memory")

// wgmma.mma_async.sync.aligned.m64n64k16.f32.TY.TY with A in registers: d += A·B for the
// warpgroup, A (64 × 16) from each thread's four registers (an mma.sync m16n8k16 A fragment of
// its warp's 16 rows), B (16 × 64) N-major by descriptor (imm-trans-b 1); scale-d from a
// register holding 1, as in the Rust.
#define ATTENTION_WGMMA_M64N64K16_A_REGS(TY)                                                     \
    asm volatile(                                                                               \
        "{ .reg .pred keep; setp.ne.b32 keep, %37, 0; "                                         \
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {"                            \
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                \
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"        \
        "}, {%32, %33, %34, %35}, %36, keep, 1, 1, 1; }"                                        \
        : ATTENTION_N8_X8(d, 0)                                                                 \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1u)                           \
        : "memory")

// wgmma.mma_async.sync.aligned.m64n128k16.f32.TY.TY with A in registers: as the m64n64k16 above,
// B (16 × 128) N-major by descriptor over two 64-column panels (a10, head dim 128).
#define ATTENTION_WGMMA_M64N128K16_A_REGS(TY)                                                    \
    asm volatile(                                                                               \
        "{ .reg .pred keep; setp.ne.b32 keep, %69, 0; "                                         \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {"                           \
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                \
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "      \
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "      \
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"        \
        "}, {%64, %65, %66, %67}, %68, keep, 1, 1, 1; }"                                        \
        : ATTENTION_N8_X8(d, 0), ATTENTION_N8_X8(d, 8)                                          \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1u)                           \
        : "memory")

__device__ __forceinline__ void mma_m64n128k16_b_k_major_f16(float (&d)[M64N128_ACC / 4][4], u64 a, u64 b,
                                                             bool accumulate) {
    ATTENTION_WGMMA_M64N128K16_B_K_MAJOR("f16");
}
__device__ __forceinline__ void mma_m64n128k16_b_k_major_bf16(float (&d)[M64N128_ACC / 4][4], u64 a, u64 b,
                                                              bool accumulate) {
    ATTENTION_WGMMA_M64N128K16_B_K_MAJOR("bf16");
}
__device__ __forceinline__ void mma_m64n64k16_a_regs_f16(float (&d)[M64N64_ACC / 4][4], const u32 (&a)[4], u64 b) {
    ATTENTION_WGMMA_M64N64K16_A_REGS("f16");
}
__device__ __forceinline__ void mma_m64n64k16_a_regs_bf16(float (&d)[M64N64_ACC / 4][4], const u32 (&a)[4], u64 b) {
    ATTENTION_WGMMA_M64N64K16_A_REGS("bf16");
}
__device__ __forceinline__ void mma_m64n128k16_a_regs_f16(float (&d)[M64N128_ACC / 4][4], const u32 (&a)[4], u64 b) {
    ATTENTION_WGMMA_M64N128K16_A_REGS("f16");
}
__device__ __forceinline__ void mma_m64n128k16_a_regs_bf16(float (&d)[M64N128_ACC / 4][4], const u32 (&a)[4],
                                                           u64 b) {
    ATTENTION_WGMMA_M64N128K16_A_REGS("bf16");
}
#undef ATTENTION_WGMMA_M64N128K16_B_K_MAJOR
#undef ATTENTION_WGMMA_M64N64K16_A_REGS
#undef ATTENTION_WGMMA_M64N128K16_A_REGS
#undef ATTENTION_N8_X8
#undef ATTENTION_N8

// setmaxnreg.inc.sync.aligned.u32 N: raises this warpgroup's registers per thread to N, waiting
// until another warpgroup has released enough. Takes effect only in a kernel with a register
// cap at its entry (__launch_bounds__) where each warpgroup's role is one branch of an if/else
// (otherwise ptxas ignores it, warning C7508). The whole warpgroup executes it.
template <u32 N>
__device__ __forceinline__ void claim_registers() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
// setmaxnreg.dec.sync.aligned.u32 N: lowers this warpgroup's registers per thread to N.
template <u32 N>
__device__ __forceinline__ void release_registers() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

// ---- kernels/src/device/tma.rs: mbarriers and 4-D tensor copies -----------------------------

// mbarrier.init.shared::cta.b64 [bar], count: a barrier expecting `count` arrivals, phase 0.
__device__ __forceinline__ void mbarrier_init(u32 bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// fence.mbarrier_init.release.cluster: makes this thread's mbarrier inits visible to the copy
// engine (and, with the block barrier that follows, to the other threads).
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// mbarrier.arrive.expect_tx.shared::cta.b64: arrive, and expect `bytes` more copy bytes in this
// phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(u32 bar, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// mbarrier.arrive.shared::cta.b64: one arrival.
__device__ __forceinline__ void mbarrier_arrive(u32 bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// @p mbarrier.arrive.shared::cta.b64: one arrival when `arrive`, predicated rather than branched
// around (the Rust's mbarrier_arrive_if).
__device__ __forceinline__ void mbarrier_arrive_if(u32 bar, bool arrive) {
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p mbarrier.arrive.shared::cta.b64 _, [%0]; }" ::"r"(bar),
                 "r"((u32)arrive)
                 : "memory");
}
// mbarrier.try_wait.parity.shared::cta.b64: whether the phase of parity `parity` completed.
__device__ __forceinline__ bool mbarrier_try_wait(u32 bar, u32 parity) {
    u32 done;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
// Loops on mbarrier.try_wait until the phase of parity `parity` of `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(u32 bar, u32 parity) {
    while (!mbarrier_try_wait(bar, parity)) {
    }
}
// cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes: TMA load of the
// box at coordinates {x, y, z, w} (x innermost; attention's: column, row, head, batch) of tensor
// map `map` to shared `dst`, completing its bytes on `bar`.
__device__ __forceinline__ void copy_tensor_4d(u32 dst, const u8* map, const u32 (&at)[4], u32 bar) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
        "[%6];" ::"r"(dst),
        "l"(map), "r"(at[0]), "r"(at[1]), "r"(at[2]), "r"(at[3]), "r"(bar)
        : "memory");
}
// prefetch.tensormap [map]: fetches the tensor map into the copy engine's descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const u8* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
// cp.async.bulk.tensor.4d.global.shared::cta.bulk_group: TMA store of the box at shared `src` to
// coordinates {x, y, z, w} of tensor map `map` (nothing outside the tensor is written), in this
// thread's current bulk group; cp.async.bulk.commit_group closes the group;
// cp.async.bulk.wait_group.read N: at most N of this thread's bulk groups still reading their
// shared sources.
// The three above when `p`, as predicated instructions rather than branches around them (the
// Rust's *_if wrappers, for a08's storer).
__device__ __forceinline__ void store_tensor_4d_if(bool p, const u8* map, const u32 (&at)[4], u32 src) {
    asm volatile(
        "{ .reg .pred p; setp.ne.u32 p, %0, 0; @p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%1, {%2, %3, "
        "%4, %5}], [%6]; }" ::"r"((u32)p),
        "l"(map), "r"(at[0]), "r"(at[1]), "r"(at[2]), "r"(at[3]), "r"(src)
        : "memory");
}
__device__ __forceinline__ void bulk_commit_group_if(bool p) {
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p cp.async.bulk.commit_group; }" ::"r"((u32)p) : "memory");
}
template <u32 N>
__device__ __forceinline__ void bulk_wait_group_read_if(bool p) {
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p cp.async.bulk.wait_group.read %1; }" ::"r"((u32)p), "n"(N)
                 : "memory");
}

// ---- kernels/src/device/hint.rs --------------------------------------------------------------

// mov.b32 in an asm the compiler keeps in place (volatile): what is computed from the result is
// computed after this point, not hoisted out of a loop.
__device__ __forceinline__ u32 computed_here(u32 x) {
    u32 y;
    asm volatile("mov.b32 %0, %1;" : "=r"(y) : "r"(x));
    return y;
}

// ---- kernels/src/device/sync.rs: named barriers ---------------------------------------------

// bar.sync id, threads: named barrier `id` (1-15; 0 is __syncthreads') for `threads` threads
// (whole warps), with a block barrier's memory ordering among them.
__device__ __forceinline__ void sync_named(u32 id, u32 threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// bar.arrive id, threads: an arrival at named barrier `id` without waiting; whoever waits there
// with sync_named sees this thread's earlier memory accesses.
__device__ __forceinline__ void arrive_named(u32 id, u32 threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- kernels/src/device/atomic.rs: the tile counter of a07 ------------------------------------

// atom.{acq_rel,relaxed}.gpu.global.add.u32, returning the old value (written out on the global
// address, as the Rust does: CUDA's builtin would take the generic one).
__device__ __forceinline__ u32 atomic_add_acq_rel_u32(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(__cvta_generic_to_global(p)), "r"(v)
                 : "memory");
    return old;
}
__device__ __forceinline__ u32 atomic_add_relaxed_u32(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(__cvta_generic_to_global(p)), "r"(v));
    return old;
}

// ---- kernels/src/attention/hopper.rs ---------------------------------------------------------

// What the Hopper steps share: the wgmma forms of the two products, the tiles in 128-byte-
// swizzled panels the tensor cores read, a warpgroup's key-tile math (scores, then the online
// softmax, then P·V) and its epilogue.
//
// Every tile (Q's, K's, V's) is stored as head dim / 64 panels of 64 columns, one after the
// other; in a panel, row r is 128 bytes at 128·r, its 16-byte chunk c at position c ^ (r % 8):
// the 128-byte swizzle the descriptors name, in 8-row atoms of 1 KB (and what TMA writes with
// the 128-byte swizzle). Q (A, K-major) and K (B of the scores, also K-major, since a column of
// Kᵀ is a row of K): a k16 step is 32 bytes into the rows, and every 4 steps the next panel;
// atoms along M (or N) 1 KB apart. V (B of P·V, N-major): a k16 step is 16 rows (2 atoms); one
// wgmma m64n64k16 per panel.
namespace hopper {
constexpr u32 WARP_SIZE = 32;
constexpr u32 WARPGROUP = 4 * WARP_SIZE;  // threads of a warpgroup
constexpr u32 WARPGROUP_ROWS = 64;        // query rows a warpgroup owns: one wgmma m64 tile
constexpr u32 WARP_ROWS = 16;             // rows of one warp within its warpgroup's accumulators
constexpr u32 HALF_ROWS = 8;              // and between a thread's two rows
// Keys per tile: the N of the scores' wgmma (m64n128k16).
constexpr u32 KEYS = 128;
// Columns of a panel; a swizzle row: 128 bytes, 64 16-bit values, 8 chunks; an atom: 8 rows.
constexpr u32 PANEL_COLUMNS = 64;
constexpr u32 ROW_BYTES = 128;
constexpr u32 CHUNK_BYTES = 16;
constexpr u32 ROW_CHUNKS = ROW_BYTES / CHUNK_BYTES;
constexpr u32 ATOM_BYTES = 8 * ROW_BYTES;
// k values per wgmma, and its bytes along a K-major row; k16 steps per 128-byte row.
constexpr u32 MMA_K = 16;
constexpr u32 MMA_K_BYTES = MMA_K * 2;
constexpr u32 STEPS_PER_ROW = ROW_BYTES / MMA_K_BYTES;
// Scores per thread of one key tile (m64n128) and output per thread of one 64-column panel
// (m64n64), as n8 tiles of 4.
constexpr u32 S_N8 = M64N128_ACC / 4;
constexpr u32 PANEL_N8 = M64N64_ACC / 4;
// k16 slices of keys in a tile: the A fragments of P·V.
constexpr u32 KEY_K16 = KEYS / MMA_K;

// A warpgroup's scores of one key tile, as one thread holds them.
typedef float Scores[S_N8][4];
// P rounded to 16 bits as the A fragments of P·V, one per k16 slice of keys.
typedef u32 Probabilities[KEY_K16][4];
// A warpgroup's output accumulators, PANELS panels of 64 columns.
template <u32 PANELS>
using Output = float[PANELS][PANEL_N8][4];

// The wgmma forms of a 16-bit type (the Rust's trait Wgmma): the scores, m64n128k16, A and B
// K-major by descriptor; one output panel, m64n64k16, A from registers, B N-major; both panels
// of head dim 128 at once, m64n128k16, the same way (a10).
template <class T>
struct Wgmma;
template <>
struct Wgmma<F16> {
    static __device__ __forceinline__ void scores(float (&acc)[S_N8][4], u64 a, u64 b, bool accumulate) {
        mma_m64n128k16_b_k_major_f16(acc, a, b, accumulate);
    }
    static __device__ __forceinline__ void output(float (&acc)[PANEL_N8][4], const u32 (&a)[4], u64 b) {
        mma_m64n64k16_a_regs_f16(acc, a, b);
    }
    static __device__ __forceinline__ void output_both(float (&acc)[2 * PANEL_N8][4], const u32 (&a)[4], u64 b) {
        mma_m64n128k16_a_regs_f16(acc, a, b);
    }
};
template <>
struct Wgmma<Bf16> {
    static __device__ __forceinline__ void scores(float (&acc)[S_N8][4], u64 a, u64 b, bool accumulate) {
        mma_m64n128k16_b_k_major_bf16(acc, a, b, accumulate);
    }
    static __device__ __forceinline__ void output(float (&acc)[PANEL_N8][4], const u32 (&a)[4], u64 b) {
        mma_m64n64k16_a_regs_bf16(acc, a, b);
    }
    static __device__ __forceinline__ void output_both(float (&acc)[2 * PANEL_N8][4], const u32 (&a)[4], u64 b) {
        mma_m64n128k16_a_regs_bf16(acc, a, b);
    }
};

// A tile of ROWS rows of the head dim (PANELS × 64 columns) in swizzled panels.
template <u32 ROWS, u32 PANELS>
struct Panels {
    static constexpr u32 PANEL_BYTES = ROWS * ROW_BYTES;
    static constexpr u32 BYTES = PANEL_BYTES * PANELS;
    static constexpr u32 ROW_CHUNKS = PANELS * hopper::ROW_CHUNKS;  // 16-byte chunks per head-dim row
    u32 base;

    // The shared address of chunk `chunk` (of the whole head-dim row) of row `row`.
    __device__ __forceinline__ u32 chunk(u32 row, u32 chunk) const {
        const u32 panel = chunk / hopper::ROW_CHUNKS, c = chunk % hopper::ROW_CHUNKS;
        return base + panel * PANEL_BYTES + row * ROW_BYTES + (c ^ (row % 8)) * CHUNK_BYTES;
    }
    // The shared address of panel `panel`.
    __device__ __forceinline__ u32 panel(u32 panel) const { return base + panel * PANEL_BYTES; }
    // The descriptor of this tile as a K-major operand at k16 step kk, from row row0 (a
    // multiple of 8): 32 bytes into the rows per step, the next panel every 4.
    __device__ __forceinline__ u64 k_major(u32 row0, u32 kk) const {
        const u32 panel = kk / STEPS_PER_ROW, step = kk % STEPS_PER_ROW;
        return descriptor(base + panel * PANEL_BYTES + row0 * ROW_BYTES + step * MMA_K_BYTES, 0, ATOM_BYTES);
    }
    // The descriptor of panel `panel` of this tile as an N-major operand at k16 step kk (rows
    // 16kk …): atoms along N a panel apart, along K 1 KB apart.
    __device__ __forceinline__ u64 n_major(u32 panel, u32 kk) const {
        return descriptor(base + panel * PANEL_BYTES + kk * MMA_K * ROW_BYTES, PANEL_BYTES, ATOM_BYTES);
    }
};

// Where a thread of a warpgroup stands among the block's query rows: its two rows (g and g + 8
// of its warp's 16) and the keys each sees, and the keys every row of its warp sees (below which
// a key tile needs no mask); t = lane % 4, which columns of each n8 tile the lane holds.
struct LaneRows {
    u32 rows[2];
    u32 visible[2];
    u32 unmasked_keys;
    u32 t;

    // Thread `thread` (of its warpgroup's 128) of the warpgroup whose rows start at group_row0.
    __device__ __forceinline__ LaneRows(const Dims& d, u32 group_row0, u32 thread) {
        const u32 warp = thread / WARP_SIZE, lane = thread % WARP_SIZE;
        const u32 warp_row0 = group_row0 + warp * WARP_ROWS;
        rows[0] = warp_row0 + lane / 4;
        rows[1] = warp_row0 + lane / 4 + HALF_ROWS;
        visible[0] = d.visible_keys(rows[0]);
        visible[1] = d.visible_keys(rows[1]);
        unmasked_keys = d.visible_keys(warp_row0);
        t = lane % 4;
    }
};

// Issues (does not wait for) the warpgroup's scores of one key tile: S = Q·Kᵀ as head dim / 16
// wgmma m64n128k16, the first overwriting the last tile's scores; q_row0 is the warpgroup's
// first row in Q's tile. The whole warpgroup calls it; Q's and K's tiles stay unchanged, and s
// unread, until a wait_group has seen the group finish.
template <class T, u32 Q_ROWS, u32 PANELS>
__device__ __forceinline__ void issue_scores(Scores& s, Panels<Q_ROWS, PANELS> q, u32 q_row0, Panels<KEYS, PANELS> k) {
    wgmma_fence();
#pragma unroll
    for (u32 kk = 0; kk < 4 * PANELS; ++kk) Wgmma<T>::scores(s, q.k_major(q_row0, kk), k.k_major(0, kk), kk > 0);
    wgmma_commit_group();
}

// The probabilities p rounded to T as P·V's A fragments.
template <class T>
__device__ __forceinline__ void pack_probabilities(Probabilities& a, const Scores& p) {
#pragma unroll
    for (u32 kk = 0; kk < KEY_K16; ++kk) fragments::p_fragment<T>(a[kk], p, kk);
}

// The N of P·V's wgmma: a panel at a time (m64n64k16, a04–a09), or, at head dim 128, both
// panels at once (m64n128k16, a10).
constexpr u32 PV_PANEL = 64, PV_BOTH_PANELS = 128;

// Issues (does not wait for) O += P·V for one key tile: P's k16 slices from registers, V's
// panels from shared memory, PV_N columns per wgmma. The whole warpgroup calls it; V's tile and
// p stay unchanged, and out unread, until a wait_group has seen the group finish.
template <class T, u32 PANELS, u32 PV_N = PV_PANEL>
__device__ __forceinline__ void issue_output(Output<PANELS>& out, const Probabilities& p, Panels<KEYS, PANELS> v) {
    static_assert(PV_N == PV_PANEL || (PV_N == PV_BOTH_PANELS && PANELS == 2), "a panel, or both of two");
    wgmma_fence();
    if constexpr (PV_N == PV_BOTH_PANELS) {
        // The two panels' accumulators are the m64n128's n8 tiles 0–7 and 8–15, in order.
        auto& both = reinterpret_cast<float (&)[2 * PANEL_N8][4]>(out);
#pragma unroll
        for (u32 kk = 0; kk < KEY_K16; ++kk) Wgmma<T>::output_both(both, p[kk], v.n_major(0, kk));
    } else {
#pragma unroll
        for (u32 kk = 0; kk < KEY_K16; ++kk)
#pragma unroll
            for (u32 panel = 0; panel < PANELS; ++panel) Wgmma<T>::output(out[panel], p[kk], v.n_major(panel, kk));
    }
    wgmma_commit_group();
}

// The online softmax of one key tile's scores s (in place, into probabilities), keys from k0:
// masked where a row of the warp does not see them all, then fragments::softmax_step in CHAINS
// chains; alpha: the factors that bring the output to the new maxima.
template <u32 CHAINS = 1>
__device__ __forceinline__ void softmax(Scores& s, fragments::RowStats& stats, const LaneRows& lane, u32 k0,
                                        float scale_log2, float (&alpha)[2]) {
    if (k0 + KEYS > lane.unmasked_keys) fragments::mask(s, k0, lane.visible, lane.t);
    fragments::softmax_step<S_N8, CHAINS>(s, stats, scale_log2, alpha);
}

// O ← 0 (the Rust's array literal of zeros: C++ needs the loops).
template <u32 PANELS>
__device__ __forceinline__ void clear(Output<PANELS>& out) {
#pragma unroll
    for (u32 panel = 0; panel < PANELS; ++panel)
#pragma unroll
        for (u32 n = 0; n < PANEL_N8; ++n)
#pragma unroll
            for (u32 e = 0; e < 4; ++e) out[panel][n][e] = 0.0f;
}

// O ← O·alpha, row by row.
template <u32 PANELS>
__device__ __forceinline__ void rescale(Output<PANELS>& out, const float (&alpha)[2]) {
#pragma unroll
    for (u32 panel = 0; panel < PANELS; ++panel) fragments::rescale(out[panel], alpha);
}

// The log-sum-exp of the lane's row `half` (l: its sum over the quad), stored by the quad's lane
// 0. The row lies below seq_q; lse_rows is this head's seq_q log-sum-exps.
__device__ __forceinline__ void store_log_sum_exp(const fragments::RowStats& stats, float l, const LaneRows& lane,
                                                  u32 half, const Dims& d, float* lse_rows) {
    if (lane.t == 0) lse_rows[lane.rows[half]] = fragments::log_sum_exp(stats.m[half], l, d.scale);
}

// The epilogue: each row's sum over its quad, O / l rounded to T and stored (two columns, 4
// bytes, per store), and the log-sum-exp by the quad's lane 0. Rows past seq_q store nothing; a
// row that saw no key (l = 0) gets zeros and −∞. The whole warp calls it; o_rows is row 0 of
// this head's O (row stride d.o.row), lse_rows its seq_q log-sum-exps.
template <class T, u32 PANELS>
__device__ __forceinline__ void store_output(const Output<PANELS>& out, const fragments::RowStats& stats,
                                             const LaneRows& lane, const Dims& d, u16* o_rows, float* lse_rows) {
    float sums[2];
    fragments::row_sums(sums, stats);
#pragma unroll
    for (u32 half = 0; half < 2; ++half) {
        const u32 row = lane.rows[half];
        if (row >= d.seq_q) continue;
        const float l = sums[half];
        const float inverse = l > 0.0f ? 1.0f / l : 0.0f;
        u16* out_row = o_rows + (u64)row * d.o.row;
#pragma unroll
        for (u32 panel = 0; panel < PANELS; ++panel)
#pragma unroll
            for (u32 n = 0; n < PANEL_N8; ++n) {
                const u32 column = PANEL_COLUMNS * panel + fragments::column(n, 0, lane.t);
                const float* c = out[panel][n];
                *reinterpret_cast<u32*>(out_row + column) =
                    T::pack_x2(c[2 * half] * inverse, c[2 * half + 1] * inverse);
            }
        store_log_sum_exp(stats, l, lane, half, d, lse_rows);
    }
}
}  // namespace hopper

// ---- kernels/src/attention/a05_tma_producer.rs: the pipeline a06 shares ---------------------

// One thread of a producer warpgroup (after the two consumer warpgroups) hands whole tiles to
// the copy engine; each of the STAGES stages of K and V has a "full" and an "empty" mbarrier.
// The producer waits for stage j % STAGES to be empty (its previous tile released by all 8
// consumer warps), tells its "full" barrier how many bytes to expect, and issues the tile's
// boxes (64 columns × 128 rows each, 128-byte swizzled: the panels of hopper::); a consumer
// warpgroup waits for the phase of the stage's "full" barrier, reads, and each of its warps'
// lane 0 arrives on the stage's "empty" one. K and V have barriers of their own. Rows past a
// head's sequence are filled with zeros by the copy engine (the tensor maps are [column, row,
// head, batch]).
namespace a05 {
using hopper::KEYS;
using hopper::Panels;

// The thread that issues every copy: the producer warpgroup's first.
constexpr u32 PRODUCER_THREAD = CONSUMER_WARPGROUPS * hopper::WARPGROUP;
// Consumer warps: each one's lane 0 releases a stage.
constexpr u32 CONSUMER_WARPS = CONSUMER_WARPGROUPS * hopper::WARPGROUP / hopper::WARP_SIZE;
// Bytes of one tensor map in the array the host passes (Q's, K's, V's).
constexpr u32 MAP_BYTES = 128;
// The rows of a TMA box: a whole tile of Q or of K and V.
constexpr u32 BOX_ROWS = 128;
static_assert(BLOCK_Q == BOX_ROWS && BLOCK_K == BOX_ROWS, "a box is a whole tile");

// The barriers, by index into `barriers`.
constexpr u32 Q_FULL = 0;
constexpr u32 K_FULL = 1;
constexpr u32 V_FULL = K_FULL + STAGES;
constexpr u32 K_EMPTY = V_FULL + STAGES;
constexpr u32 V_EMPTY = K_EMPTY + STAGES;
// Q's "empty": for a block that loads more than one Q tile (a07), released once every consumer
// warp has read Q for the last time.
constexpr u32 Q_EMPTY = V_EMPTY + STAGES;
constexpr u32 BARRIERS = Q_EMPTY + 1;

// The pipeline's mbarriers (static shared memory): Q's "full", K's and V's "full" and "empty"
// per stage, Q's "empty".
__shared__ u64 barriers[BARRIERS];

// The shared address of barrier `index`.
__device__ __forceinline__ u32 barrier(u32 index) { return smem_u32(barriers) + index * 8; }

// Thread 0 initializes every barrier; then the whole block meets, so that none is used before
// it exists. Every thread of the block calls it, once, first.
__device__ __forceinline__ void init_barriers(u32 tid) {
    if (tid == 0) {
#pragma unroll
        for (u32 stage = 0; stage < STAGES; ++stage) {
            mbarrier_init(barrier(K_FULL + stage), 1);
            mbarrier_init(barrier(V_FULL + stage), 1);
            mbarrier_init(barrier(K_EMPTY + stage), CONSUMER_WARPS);
            mbarrier_init(barrier(V_EMPTY + stage), CONSUMER_WARPS);
        }
        mbarrier_init(barrier(Q_FULL), 1);
        mbarrier_init(barrier(Q_EMPTY), CONSUMER_WARPS);
        fence_barrier_init();
    }
    __syncthreads();
}

// A consumer warp's release of a tile: its lane 0 arrives on barrier `empty` (whose phases count
// the consumer warps), once the warp's reads of the tile have finished.
__device__ __forceinline__ void release(u32 empty, u32 lane_id) {
    if (lane_id == 0) mbarrier_arrive(empty);
}

// Stage and phase parity of key tile j of the block's stream of key tiles: its stage's
// (j / STAGES)th use.
struct StagePhase {
    u32 stage, parity;
};
__device__ __forceinline__ StagePhase stage_of(u32 j) { return {j % STAGES, (j / STAGES) % 2}; }

// The block's tiles: Q's, then STAGES × (K's, V's), from a 1024-byte aligned base.
template <u32 PANELS>
struct SharedTiles {
    u32 base;
    // The dynamic shared memory's start, rounded up to 1024 (the Rust's SharedTiles::new).
    static __device__ __forceinline__ SharedTiles make() {
        extern __shared__ __align__(16) unsigned char smem[];
        const u32 start = smem_u32(smem);
        return {(start + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1)};
    }
    __device__ __forceinline__ Panels<BLOCK_Q, PANELS> q() const { return {base}; }
    __device__ __forceinline__ Panels<KEYS, PANELS> k(u32 stage) const {
        constexpr u32 KV = 2 * Panels<KEYS, PANELS>::BYTES;
        return {base + Panels<BLOCK_Q, PANELS>::BYTES + stage * KV};
    }
    __device__ __forceinline__ Panels<KEYS, PANELS> v(u32 stage) const {
        return {k(stage).base + Panels<KEYS, PANELS>::BYTES};
    }
    // The first byte past the last stage (1024-byte aligned): a08's staging of O.
    __device__ __forceinline__ u32 end() const { return v(STAGES - 1).base + Panels<KEYS, PANELS>::BYTES; }
};

// Brings the three tensor maps at `maps` (the host's) into the constant cache ahead of the first
// copy.
__device__ __forceinline__ void prefetch_maps(const u8* maps) {
#pragma unroll
    for (u32 map = 0; map < 3; ++map) prefetch_tensor_map(maps + map * MAP_BYTES);
}

// Issues the copies of rows row0 .. row0 + 128 of one head (head_batch: its head, batch)
// through tensor map `map` into `tile`, a box per panel, all completing on barrier `full`, which
// is told their bytes first. One thread; `tile` free and 1024-byte aligned; `full` initialized,
// its phase expecting this arrival.
template <u32 ROWS, u32 PANELS>
__device__ __forceinline__ void copy_tile(Panels<ROWS, PANELS> tile, const u8* map, u32 row0,
                                          const u32 (&head_batch)[2], u32 full) {
    mbarrier_arrive_expect_tx(full, Panels<ROWS, PANELS>::BYTES);
#pragma unroll
    for (u32 panel = 0; panel < PANELS; ++panel) {
        const u32 at[4] = {panel * hopper::PANEL_COLUMNS, row0, head_batch[0], head_batch[1]};
        copy_tensor_4d(tile.panel(panel), map, at, full);
    }
}

// Where the block's tiles come from: the three tensor maps, and the (head, batch) of its query
// head and of its key/value head; and the producer's copies from there.
struct Sources {
    const u8* maps;
    u32 q_head[2];
    u32 kv_head[2];
    __device__ __forceinline__ const u8* map(u32 index) const { return maps + index * MAP_BYTES; }

    // Issues the copy of Q's tile, rows q0 .. q0 + BLOCK_Q of the block's query head, completing
    // on Q_FULL. The producer thread; Q's tile free (never loaded, or released on Q_EMPTY).
    template <u32 PANELS>
    __device__ __forceinline__ void load_q(SharedTiles<PANELS> tiles, u32 q0) const {
        copy_tile(tiles.q(), map(0), q0, q_head, barrier(Q_FULL));
    }

    // Issues the copies of `count` key tiles' K and V (keys from 0), the block's key tiles
    // first .. first + count through the stages: each into its stage once the consumers have
    // released the tile STAGES before it there. The producer thread; `first` counts every key
    // tile the block has issued before.
    template <u32 PANELS>
    __device__ __forceinline__ void load_keys(SharedTiles<PANELS> tiles, u32 first, u32 count) const {
        for (u32 j = 0; j < count; ++j) {
            const StagePhase at = stage_of(first + j);
            // The tile STAGES before, this stage's previous use, released by every warp.
            if (first + j >= STAGES) mbarrier_wait(barrier(K_EMPTY + at.stage), at.parity ^ 1);
            copy_tile(tiles.k(at.stage), map(1), j * BLOCK_K, kv_head, barrier(K_FULL + at.stage));
            if (first + j >= STAGES) mbarrier_wait(barrier(V_EMPTY + at.stage), at.parity ^ 1);
            copy_tile(tiles.v(at.stage), map(2), j * BLOCK_K, kv_head, barrier(V_FULL + at.stage));
        }
    }
};

// The producer's thread: Q's tile, then every key tile's K and V. The producer thread alone; the
// barriers initialized.
template <u32 PANELS>
__device__ __forceinline__ void produce(SharedTiles<PANELS> tiles, const Sources& sources, u32 q0, u32 key_tiles) {
    prefetch_maps(sources.maps);
    sources.load_q(tiles, q0);
    sources.load_keys(tiles, 0, key_tiles);
}
}  // namespace a05

// ---- kernels/src/attention/a06_pingpong.rs: the consumer loop a07 shares ------------------

// Two schedules of FlashAttention-3 in a consumer warpgroup's loop. Ping-pong: the two consumer
// warpgroups issue their products in turns, at named barriers TURN = 1 (warpgroup 0 waits there)
// and TURN + 1 (warpgroup 1), each use of either 256 threads: a warpgroup waits at its own with
// bar.sync, issues, then arrives at the other's with bar.arrive. Inside a warpgroup: tile 0's
// scores, then per later tile j, in one turn, S_j = Q·K_jᵀ and O += P_{j−1}·V_{j−1}; the wait
// for S_j and K_j's release, S_j's softmax while P·V runs, the wait for P·V and V_{j−1}'s
// release, O rescaled by alpha_j only then, and P_j packed, kept in registers across the
// iteration. After the loop, the last P·V.
namespace a06 {
using a05::barrier;
using a05::K_EMPTY;
using a05::K_FULL;
using a05::Q_EMPTY;
using a05::release;
using a05::SharedTiles;
using a05::stage_of;
using a05::StagePhase;
using a05::V_EMPTY;
using a05::V_FULL;

// log2(e): exp(x) = 2^(x·log2 e).
constexpr float LOG2_E = 1.4426950408889634f;

static_assert(BLOCK_K == hopper::KEYS && CONSUMER_WARPGROUPS == 2 && a05::CONSUMER_WARPS == 8, "a06's shape");

// The named barriers of the turns (0 is the block barrier): warpgroup w waits at TURN + w.
constexpr u32 TURN = 1;
// Threads at each use of a turn barrier: both consumer warpgroups.
constexpr u32 TURN_THREADS = CONSUMER_WARPGROUPS * hopper::WARPGROUP;

// A consumer warpgroup's side of the turns; the whole warpgroup uses it.
struct Turns {
    u32 warpgroup;
    __device__ __forceinline__ explicit Turns(u32 warpgroup) : warpgroup(warpgroup) {}
    // Before the first key tile: warpgroup 1 hands warpgroup 0 the first turn.
    __device__ __forceinline__ void open() const {
        if (warpgroup == 1) arrive_named(TURN, TURN_THREADS);
    }
    // Waits for this warpgroup's turn.
    __device__ __forceinline__ void wait() const { sync_named(TURN + warpgroup, TURN_THREADS); }
    // Hands the turn to the other warpgroup.
    __device__ __forceinline__ void hand_over() const { arrive_named(TURN + (1 - warpgroup), TURN_THREADS); }
    // After the last key tile: warpgroup 0 takes warpgroup 1's last arrival, so that every use of
    // either barrier had its 256 threads.
    __device__ __forceinline__ void close() const {
        if (warpgroup == 0) wait();
    }
};

// One consumer warpgroup's loop over `count` key tiles, the block's key tiles first .. first +
// count through the stages, into `out` and `stats`; with release_q, Q's tile is released once the
// last scores are in. Every thread of a consumer warpgroup calls it, with the producer running,
// after Q's tile landed; both warpgroups run the same tiles between turns.open() and
// turns.close().
// What C++ needed that Rust did not: the Rust tests j > 0 for the P·V, then j == 0 for the
// wait_group after the turn's arrival. LLVM merges the two tests; NVVM kept both, and ptxas, which
// cannot tell that the path with the P·V never takes the wait for 0 groups (nor the other way),
// then serialized the wgmma (info C7514: the softmax might read S_j before it lands). So the twin
// tests once: with the P·V, the arrival and wait_group 1; without, the arrival and wait_group 0:
// the Rust's instructions in the Rust's order on each path.
template <class T, u32 PANELS, u32 CHAINS = 1, u32 PV_N = hopper::PV_PANEL>
__device__ __forceinline__ void attend(SharedTiles<PANELS> tiles, const Turns& turns, const hopper::LaneRows& lane,
                                       float scale_log2, u32 first, u32 count, bool release_q,
                                       hopper::Output<PANELS>& out, fragments::RowStats& stats) {
    const u32 lane_id = threadIdx.x % hopper::WARP_SIZE;
    const u32 q_row0 = turns.warpgroup * hopper::WARPGROUP_ROWS;
    hopper::Scores s;
    hopper::Probabilities p;
#pragma unroll
    for (u32 n = 0; n < hopper::S_N8; ++n)
#pragma unroll
        for (u32 e = 0; e < 4; ++e) s[n][e] = 0.0f;
#pragma unroll
    for (u32 kk = 0; kk < hopper::KEY_K16; ++kk)
#pragma unroll
        for (u32 i = 0; i < 4; ++i) p[kk][i] = 0;
    // Below, every barrier is met in the producer's order, the whole warpgroup issues each wgmma,
    // and a tile is read only after its "full" phase and released only after the wait_group that
    // ends its reads.
    for (u32 j = 0; j < count; ++j) {
        const StagePhase at = stage_of(first + j);
        turns.wait();
        mbarrier_wait(barrier(K_FULL + at.stage), at.parity);
        hopper::issue_scores<T, BLOCK_Q, PANELS>(s, tiles.q(), q_row0, tiles.k(at.stage));
        // Then the turn handed over, and the wait for S_j: the older group, done when at most the
        // P·V is pending (tile 0 has none). One test of j for both (see above).
        if (j > 0) {
            // P and O untouched until the wait for this group.
            const StagePhase previous = stage_of(first + j - 1);
            mbarrier_wait(barrier(V_FULL + previous.stage), previous.parity);
            hopper::issue_output<T, PANELS, PV_N>(out, p, tiles.v(previous.stage));
            turns.hand_over();
            wgmma_wait_group<1>();
        } else {
            turns.hand_over();
            wgmma_wait_group<0>();
        }
        release(barrier(K_EMPTY + at.stage), lane_id);
        if (release_q && j + 1 == count) release(barrier(Q_EMPTY), lane_id);
        float alpha[2];
        hopper::softmax<CHAINS>(s, stats, lane, j * BLOCK_K, scale_log2, alpha);
        wgmma_wait_group<0>();
        if (j > 0) release(barrier(V_EMPTY + stage_of(first + j - 1).stage), lane_id);
        hopper::rescale<PANELS>(out, alpha);
        hopper::pack_probabilities<T>(p, s);
    }
    if (count > 0) {
        const StagePhase last = stage_of(first + count - 1);
        mbarrier_wait(barrier(V_FULL + last.stage), last.parity);
        hopper::issue_output<T, PANELS, PV_N>(out, p, tiles.v(last.stage));
        wgmma_wait_group<0>();
        release(barrier(V_EMPTY + last.stage), lane_id);
    }
}
}  // namespace a06
