//! The machinery the Hopper GEMM steps share from w06 on, each piece written once and named
//! after what it does. w01–w05 build these pieces one at a time, in full, inside their own
//! files: they are the lesson. From w06 on a step is its predecessor plus one change, and
//! the pieces it keeps unchanged are called from here.
//!
//! A step's block is *warp-specialized*: one producer warpgroup, whose first thread issues
//! every TMA copy, and `CONSUMER_WARPGROUPS` consumer warpgroups of 64 rows each, which run
//! the `wgmma` main loop and the epilogue. The two sides meet at a ring of `STAGES` stages in
//! shared memory, each guarded by a "full" and an "empty" `mbarrier`. A block is one of the
//! `CLUSTER_M` blocks of a cluster that compute a *unit* (their tiles, stacked along M) and
//! share B's tile through TMA multicast.
//!
//! | piece | what | steps |
//! | --- | --- | --- |
//! | [`Shape`], [`shape!`] | a step's shapes, read from its module in `common::gemm`; its accumulators and register split | w06–w13 |
//! | [`pipeline::PipelineState`] | where a role is in the stage ring: `index()`, `phase()`, `advance()` | w06–w13 |
//! | [`pipeline::SharedLayout`] | the stages, C's staging boxes and the barriers in dynamic shared memory; the barriers' set-up; the producer's `producer_acquire` | w06–w13 |
//! | [`pipeline::consumer_release`] | a warp gives a stage back to every block of the cluster | w06–w13 |
//! | [`mainloop::Units`] | the units of C and their tiles' origins, in w03's grouped walk | w06–w13 |
//! | [`mainloop::Producer`] | the producer thread's TMA loop over a unit's k tiles | w06–w13 |
//! | [`mainloop::Consumer`] | the consumer warpgroups' `wgmma` loop over a unit's k tiles | w06–w13 |
//! | [`epilogue::Epilogue`], [`epilogue::wait_written`], [`epilogue::wait_read`] | w05's epilogue: C through swizzled staging boxes and TMA stores | w06–w13 |
//! | [`stream_k::Workspace`] | stream-K's partial tiles and flags in global memory; w07's fix-up | w07, w11–w13 |
//! | [`entry_points!`] | a step's two `#[kernel]` entry points, f16 and bf16 | w06–w13 |
//!
//! Two steps' kernels serve later steps whole, with another shape: w08's (macro
//! `trimmed_gemm_for!`, for w09 and w10) and w12's (`pipelined_fixup_gemm_for!`, for w13).
//!
//! **Why the SASS did not move.** Each step used to be written out in one function. rustc
//! inlines small functions into their callers in its own MIR before LLVM sees the code,
//! larger ones only in LLVM, and what LLVM makes of a step depends on which: a piece
//! inlined late is optimized alone first. So the pieces are inlined as the written-out
//! code was: the large ones (the epilogue, the stream-K fix-up and the partial tiles' stores
//! and loads) with `#[rustc_force_inline]`, which inlines in MIR whatever the size; the release of a stage
//! as the closure w02–w05 write ([`pipeline::consumer_release`]); and a step's kernel is
//! compiled for its own constants (a macro, not a generic function, where another step
//! reuses it). Every piece is inlined; the accumulators stay registers because every index
//! into them is a constant once the `unroll!` copies are written out.
//!
//! sm_90a only (`wgmma`, TMA, clusters, `setmaxnreg`), like the steps that use it.

pub mod epilogue;
pub mod mainloop;
pub mod pipeline;
pub mod stream_k;

use crate::device::index::WARP_SIZE;
use crate::device::wgmma::{
    M64N128_ACC, M64N192_ACC, M64N256_ACC, claim_registers, mma_m64n128k16_bf16, mma_m64n128k16_f16, mma_m64n128k32_e4m3,
    mma_m64n192k16_bf16, mma_m64n192k16_f16, mma_m64n192k32_e4m3, mma_m64n256k16_bf16, mma_m64n256k16_f16,
    mma_m64n256k32_e4m3, release_registers,
};

/// Threads of a warpgroup: four warps, the unit `wgmma` and `setmaxnreg` work in.
pub const WARPGROUP: u32 = 4 * WARP_SIZE;
/// Rows of the block tile each consumer warpgroup computes: the M of `wgmma` m64nNk16.
pub const WARPGROUP_ROWS: u32 = 64;
/// Bytes of one row of the 128-byte swizzle (one TMA box row of A, B and C).
pub const ROW_BYTES: u32 = 128;
/// The 128-byte swizzle atom: 8 rows of 128 bytes, 1024-byte aligned (as w01).
pub const ATOM_BYTES: u32 = 8 * ROW_BYTES;
/// k values per `wgmma`: the k16 of m64nNk16; and the `wgmma` per k tile (the consumer's
/// `unroll!(4, …)`: `BK` is 64).
pub const MMA_K: u32 = 16;
pub const MMAS_PER_K_TILE: u32 = 4;
/// Bytes of one 16-bit input value (f16 or bf16) and of one f32 of C.
pub const INPUT_BYTES: u32 = 2;
pub const F32_BYTES: u32 = 4;

/// A Hopper step's shapes: the constants of its module in `common::gemm`, from which the
/// host sizes its grid, block, shared memory and tensor maps. Implement it with
/// [`shape!`], which reads every constant from that module, so that the kernel and the host
/// cannot disagree. The constants after [`Shape::THREADS`] follow from the others.
pub trait Shape {
    /// The block tile, `BM × BN` outputs, and the k extent of one k tile.
    const BM: u32;
    const BN: u32;
    const BK: u32;
    /// k tiles in flight: stages of shared memory, each an A tile and a B tile.
    const STAGES: u32;
    const STAGE_BYTES: u32;
    /// The boxes of A, B (16-bit) and C (f32) one TMA copy moves, (contiguous extent, rows).
    const A_BOX: (u32, u32);
    const B_BOX: (u32, u32);
    const C_BOX: (u32, u32);
    const C_BOX_BYTES: u32;
    /// C's staging boxes per consumer warpgroup, and their bytes for all the warpgroups.
    const C_BUFFERS: u32;
    const C_STAGING_BYTES: u32;
    /// Blocks per cluster, stacked along M: a unit is their `CLUSTER_M` tiles.
    const CLUSTER_M: u32;
    const CONSUMER_WARPGROUPS: u32;
    /// Unit rows in one group of the grouped walk (w03).
    const GROUP_ROWS: u32;
    /// Bytes the kernel may skip to round the dynamic shared base up to 1024.
    const ALIGN_SLACK: u32;
    /// Threads per block: the consumer warpgroups, then the producer warpgroup.
    const THREADS: u32;
    /// The `wgmma` accumulators of one consumer thread for a `WARPGROUP_ROWS × BN` piece.
    type Acc: Accumulator;
    /// How the block shares its registers between the roles (w06's `setmaxnreg`).
    type Registers: Registers;
    /// Bytes of one input value (2: f16, bf16; 1: e4m3), k values per `wgmma` (16; 32 for
    /// 8-bit inputs: the same 32 bytes of a swizzle row), and whether B comes K-major (as
    /// Bᵀ, N × K: 8-bit `wgmma` takes no other layout) rather than N-major.
    const INPUT_BYTES: u32 = INPUT_BYTES;
    const MMA_K: u32 = MMA_K;
    const B_K_MAJOR: bool = false;
    /// 8-bit inputs: whether B's values are e5m2 (5 exponent bits, 2 of mantissa: the range
    /// gradients need) rather than e4m3; A's are e4m3 either way.
    const B_E5M2: bool = false;
    /// Whether C is stored as bf16 (w21: boxes of 64 columns) rather than f32 (boxes of 32);
    /// the bytes of one value of C.
    const C_BF16: bool = false;
    const C_BYTES: u32 = if Self::C_BF16 { 2 } else { F32_BYTES };
    /// Whether an f32 C's epilogue gives each row its own order of its column groups (w05's,
    /// free of bank conflicts) rather than one order for all rows (w25: fewer instructions, a
    /// 2-way conflict per store).
    const C_ROW_ORDER: bool = true;

    /// Bytes of A's tile in a stage (one box), and of each of B's panels (one box each:
    /// `B_PANEL_COLUMNS` columns of the tile, 64 N-major, more K-major).
    const A_BYTES: u32 = Self::A_BOX.0 * Self::A_BOX.1 * Self::INPUT_BYTES;
    const B_PANEL_BYTES: u32 = Self::B_BOX.0 * Self::B_BOX.1 * Self::INPUT_BYTES;
    const B_PANEL_COLUMNS: u32 = if Self::B_K_MAJOR { Self::B_BOX.1 } else { Self::B_BOX.0 };
    /// B's panels each block of the cluster copies (and multicasts to all of them).
    const PANELS_PER_BLOCK: u32 = Self::BN / Self::B_PANEL_COLUMNS / Self::CLUSTER_M;
    /// Every block of the cluster: the mask of a multicast copy.
    const CLUSTER_MASK: u16 = (1 << Self::CLUSTER_M) - 1;
    /// Consumer threads of a block; the consumer warps of a block, of which every block of
    /// the cluster's arrive on each block's "empty" barriers.
    const CONSUMER_THREADS: u32 = Self::CONSUMER_WARPGROUPS * WARPGROUP;
    const CONSUMER_WARPS: u32 = Self::CONSUMER_WARPGROUPS * WARPGROUP / WARP_SIZE;
    /// The producer warpgroup's first thread, which issues every copy.
    const PRODUCER_THREAD: u32 = Self::CONSUMER_THREADS;
    /// C's boxes per consumer warpgroup and tile: 64 rows by 32 columns each.
    const C_BOXES: u32 = Self::BN / Self::C_BOX.0;
    /// What the shared pieces assume of the shape; checked when a step is compiled
    /// ([`pipeline::SharedLayout::new`] names it).
    const VALID: () = assert!(
        Self::BM == Self::CONSUMER_WARPGROUPS * WARPGROUP_ROWS
            && Self::THREADS == (Self::CONSUMER_WARPGROUPS + 1) * WARPGROUP
            && Self::BN == <Self::Acc as Accumulator>::N
            && Self::BK == MMAS_PER_K_TILE * Self::MMA_K
            && Self::MMA_K * Self::INPUT_BYTES == MMA_K * INPUT_BYTES
            && Self::A_BOX.0 * Self::INPUT_BYTES == ROW_BYTES
            && Self::A_BOX.1 == Self::BM
            && Self::B_BOX.0 * Self::INPUT_BYTES == ROW_BYTES
            && (if Self::B_K_MAJOR { Self::B_BOX.0 == Self::BK } else { Self::B_BOX.1 == Self::BK })
            && Self::PANELS_PER_BLOCK * Self::CLUSTER_M * Self::B_PANEL_COLUMNS == Self::BN
            && Self::A_BYTES + Self::BN / Self::B_PANEL_COLUMNS * Self::B_PANEL_BYTES == Self::STAGE_BYTES
            && Self::STAGE_BYTES.is_multiple_of(ATOM_BYTES)
            && Self::C_BOX.1 == WARPGROUP_ROWS
            && Self::C_BOX.0 * Self::C_BYTES == ROW_BYTES
            && Self::C_BUFFERS == epilogue::C_BUFFERS
            && Self::C_BOXES <= epilogue::MAX_C_BOXES
    );
}

/// Implements [`Shape`] for a step: `shape!(W06 = w06, M64n256, Reallocate<…>)` declares
/// the type `W06` whose constants are those of `common::gemm::w06` (in scope as `w06`),
/// with the accumulator type of its tile width and its register split. A fourth argument,
/// `stream_k`, also implements [`stream_k::StreamKShape`] from the same module; `fp8` makes
/// the inputs e4m3 and B K-major, `fp8_e5m2` the same with B's values e5m2, `fp8_bf16_out`
/// the same as `fp8` with a bf16 C, `fp8_in_order` the same as `fp8` with the f32 C's
/// column groups in one order (w25).
macro_rules! shape {
    ($name:ident = $step:ident, $acc:ty, $registers:ty) => {
        $crate::gemm::hopper::shape!(@impl $name = $step, $acc, $registers, {});
    };
    ($name:ident = $step:ident, $acc:ty, $registers:ty, fp8) => {
        $crate::gemm::hopper::shape!(@fp8 $name = $step, $acc, $registers, {});
    };
    ($name:ident = $step:ident, $acc:ty, $registers:ty, fp8_bf16_out) => {
        $crate::gemm::hopper::shape!(@fp8 $name = $step, $acc, $registers, { const C_BF16: bool = true; });
    };
    ($name:ident = $step:ident, $acc:ty, $registers:ty, fp8_in_order) => {
        $crate::gemm::hopper::shape!(@fp8 $name = $step, $acc, $registers, { const C_ROW_ORDER: bool = false; });
    };
    ($name:ident = $step:ident, $acc:ty, $registers:ty, fp8_e5m2) => {
        $crate::gemm::hopper::shape!(@fp8 $name = $step, $acc, $registers, { const B_E5M2: bool = true; });
    };
    // 8-bit inputs (`wgmma` k32) with B K-major, and what the step adds.
    (@fp8 $name:ident = $step:ident, $acc:ty, $registers:ty, { $($extra:tt)* }) => {
        $crate::gemm::hopper::shape!(@impl $name = $step, $acc, $registers, {
            const INPUT_BYTES: u32 = 1;
            const MMA_K: u32 = $crate::device::wgmma::FP8_MMA_K;
            const B_K_MAJOR: bool = true;
            $($extra)*
        });
    };
    (@impl $name:ident = $step:ident, $acc:ty, $registers:ty, { $($extra:tt)* }) => {
        #[doc = concat!("The shapes of `common::gemm::", stringify!($step), "`, as the host launches them.")]
        pub struct $name;
        impl $crate::gemm::hopper::Shape for $name {
            const BM: u32 = $step::BM;
            const BN: u32 = $step::BN;
            const BK: u32 = $step::BK;
            const STAGES: u32 = $step::STAGES;
            const STAGE_BYTES: u32 = $step::STAGE_BYTES;
            const A_BOX: (u32, u32) = $step::A_BOX;
            const B_BOX: (u32, u32) = $step::B_BOX;
            const C_BOX: (u32, u32) = $step::C_BOX;
            const C_BOX_BYTES: u32 = $step::C_BOX_BYTES;
            const C_BUFFERS: u32 = $step::C_BUFFERS;
            const C_STAGING_BYTES: u32 = $step::C_STAGING_BYTES;
            const CLUSTER_M: u32 = $step::CLUSTER_M;
            const CONSUMER_WARPGROUPS: u32 = $step::CONSUMER_WARPGROUPS;
            const GROUP_ROWS: u32 = $step::GROUP_ROWS;
            const ALIGN_SLACK: u32 = $step::ALIGN_SLACK;
            const THREADS: u32 = $step::THREADS;
            type Acc = $acc;
            type Registers = $registers;
            $($extra)*
        }
    };
    ($name:ident = $step:ident, $acc:ty, $registers:ty, stream_k) => {
        $crate::gemm::hopper::shape!($name = $step, $acc, $registers);
        impl $crate::gemm::hopper::stream_k::StreamKShape for $name {
            const MAX_SPLIT: u32 = $step::MAX_SPLIT;
            const PARTIAL_FLOATS: u32 = $step::PARTIAL_FLOATS;
        }
    };
}
pub(crate) use shape;

/// The f32 accumulators one consumer thread holds for a `wgmma` shape m64nNk16: `N / 2`
/// registers, an array laid out as `device::wgmma` describes, indexed only by constants
/// (or by [`epilogue::pick`]'s selects).
pub trait Accumulator {
    /// The N of m64nNk16: the width of the block tile.
    const N: u32;
    /// All zero, before a unit's first k tile.
    fn zeroed() -> Self;
    /// One `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` (bf16 when `BF16`):
    /// `self += A · B`, A (64 × 16, K-major) and B (16 × N, N-major) by descriptor.
    ///
    /// # Safety
    /// As the wrapper it calls (`device::wgmma::mma_m64n256k16_f16` and its kin): the whole
    /// warpgroup, after `wgmma::fence`, the described shared memory unchanged and `self`
    /// unread until a `wait_group` has seen this `wgmma` finish.
    unsafe fn mma<const BF16: bool>(&mut self, a: u64, b: u64);

    /// One `wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3`: `self += A · B`, A (64 ×
    /// 32) and B (32 × N) both K-major by descriptor.
    ///
    /// # Safety
    /// As [`Accumulator::mma`].
    unsafe fn mma_e4m3(&mut self, a: u64, b: u64);
}

/// The accumulators of `wgmma` m64n256k16: the 128 × 256 tiles of w06–w08 and w11–w13.
pub type M64n256 = [f32; M64N256_ACC];
/// The accumulators of `wgmma` m64n128k16: the 128-wide tiles of w09 and w10.
pub type M64n128 = [f32; M64N128_ACC];
/// The accumulators of `wgmma` m64n192k16: w22's 128 × 192 tile.
pub type M64n192 = [f32; M64N192_ACC];

impl Accumulator for M64n256 {
    const N: u32 = 256;
    #[inline(always)]
    fn zeroed() -> Self {
        [0.0; M64N256_ACC]
    }
    #[inline(always)]
    unsafe fn mma<const BF16: bool>(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { if BF16 { mma_m64n256k16_bf16(self, a, b) } else { mma_m64n256k16_f16(self, a, b) } }
    }
    #[inline(always)]
    unsafe fn mma_e4m3(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { mma_m64n256k32_e4m3(self, a, b) }
    }
}

impl Accumulator for M64n128 {
    const N: u32 = 128;
    #[inline(always)]
    fn zeroed() -> Self {
        [0.0; M64N128_ACC]
    }
    #[inline(always)]
    unsafe fn mma<const BF16: bool>(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { if BF16 { mma_m64n128k16_bf16(self, a, b) } else { mma_m64n128k16_f16(self, a, b) } }
    }
    #[inline(always)]
    unsafe fn mma_e4m3(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { mma_m64n128k32_e4m3(self, a, b) }
    }
}

impl Accumulator for M64n192 {
    const N: u32 = 192;
    #[inline(always)]
    fn zeroed() -> Self {
        [0.0; M64N192_ACC]
    }
    #[inline(always)]
    unsafe fn mma<const BF16: bool>(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { if BF16 { mma_m64n192k16_bf16(self, a, b) } else { mma_m64n192k16_f16(self, a, b) } }
    }
    #[inline(always)]
    unsafe fn mma_e4m3(&mut self, a: u64, b: u64) {
        // SAFETY: the caller's contract, which is the wrapper's.
        unsafe { mma_m64n192k32_e4m3(self, a, b) }
    }
}

/// The promotion of FP8 partial sums (w15 on): `acc[offset + i] += partial[i]` for the `P`
/// accumulators of an m64n128 or m64n192 `wgmma` (its column chunks of 8, four registers each
/// in `device::wgmma`'s layout), `offset` a constant (the half of a 256-wide tile, or 0), so
/// that every index stays a constant and the arrays in registers.
#[inline(always)]
pub fn promote<const N: usize, const P: usize>(acc: &mut [f32; N], offset: usize, partial: &[f32; P]) {
    const { assert!(P.is_multiple_of(4) && P <= N, "whole chunks, no more than acc holds") };
    crate::unroll!(P / 4, at most 32, chunk => {
        crate::unroll!(4, r => {
            let i = chunk * 4 + r;
            acc[offset + i] += partial[i];
        });
    });
}

/// w19's promotion under per-block scales: `acc[offset + i] += partial[i] · factors[row]`,
/// one fused multiply-add (`fma.rn.f32`) each, as many instructions as [`promote`]'s
/// additions. `factors` are the thread's two rows' (`g` and `g + 8` of its warp's 16, the
/// registers `4j, 4j + 1` and `4j + 2, 4j + 3` of `device::wgmma`'s layout).
#[inline(always)]
pub fn promote_scaled<const N: usize>(acc: &mut [f32; N], offset: usize, partial: &M64n128, factors: [f32; 2]) {
    crate::unroll!(16, chunk => {
        crate::unroll!(4, r => {
            let i = chunk * 4 + r;
            acc[offset + i] = core::f32::math::mul_add(partial[i], factors[r / 2], acc[offset + i]);
        });
    });
}

/// How a block's registers are shared between its roles, each call at the top of its
/// role's branch. A type rather than two constants because `setmaxnreg` takes its count as
/// an immediate, and a generic kernel body cannot pass its shape's constant as one: the
/// step's [`shape!`] names the counts, here they become the instruction's.
pub trait Registers {
    /// The producer warpgroup, first thing in its branch.
    fn producer();
    /// Each consumer warpgroup, first thing in its branch.
    fn consumers();
}

/// w06's reallocation: the producer warpgroup lowers itself to `PRODUCER` registers per
/// thread (`setmaxnreg.dec`), the consumers raise themselves to `CONSUMER`
/// (`setmaxnreg.inc`, which waits until the producer's are free).
pub struct Reallocate<const PRODUCER: u32, const CONSUMER: u32>;

impl<const PRODUCER: u32, const CONSUMER: u32> Registers for Reallocate<PRODUCER, CONSUMER> {
    #[inline(always)]
    fn producer() {
        release_registers::<PRODUCER>();
    }
    #[inline(always)]
    fn consumers() {
        claim_registers::<CONSUMER>();
    }
}

/// No reallocation: every thread keeps what ptxas gave it (w10: with 256 threads there is
/// no register cap at the entry, and ptxas would ignore `setmaxnreg`, warning C7508).
pub struct KeepRegisters;

impl Registers for KeepRegisters {
    #[inline(always)]
    fn producer() {}
    #[inline(always)]
    fn consumers() {}
}

/// Writes a step's two `#[kernel]` entry points, f16 and bf16, around the body that takes
/// the input type as `const BF16: bool` (last generic argument):
///
/// ```ignore
/// entry_points!(trimmed_gemm::<W09>(a_map: *const u8, …, k: u32) => w09_small_tile_f16, w09_small_tile_bf16);
/// ```
///
/// The entry points take the listed parameters and pass them on; arguments after a `;`
/// are passed on after them (w13 passes its schedule's order). Each entry point carries
/// `max_threads = THREADS` (the `THREADS` in scope: the step's own), the register cap
/// `setmaxnreg` needs at the entry.
macro_rules! entry_points {
    (
        $body:ident $(::<$shape:ty>)? ($($arg:ident: $ty:ty),* $(; $($extra:expr),*)?)
            => $f16:ident, $bf16:ident
    ) => {
        #[doc = concat!("[`", stringify!($body), "`] for f16 inputs.")]
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($body), "`.")]
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $f16($($arg: $ty),*) {
            // SAFETY: forwarded.
            unsafe { $body::<$($shape,)? false>($($arg,)* $($($extra),*)?) }
        }

        #[doc = concat!("[`", stringify!($body), "`] for bf16 inputs.")]
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($body), "`.")]
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $bf16($($arg: $ty),*) {
            // SAFETY: forwarded.
            unsafe { $body::<$($shape,)? true>($($arg,)* $($($extra),*)?) }
        }
    };
}
pub(crate) use entry_points;

/// Writes an FP8 step's `#[kernel]` entry point (8-bit A and Bᵀ, C in the shape's type, f32 or
/// bf16, and the per-tensor scales: `scales` points to `scale_a`, `scale_b`, and
/// C = scale_a · scale_b · A · B) around the body that takes the input type as
/// `const BF16: bool`: false, and unused, since the shape's 8-bit input decides
/// (`trimmed_gemm::<false>`), and the scales last:
///
/// ```ignore
/// fp8_entry_point!(trimmed_gemm(a_map: *const u8, …, k: u32) => w15_fp8_promoted_e4m3);
/// ```
///
/// As [`entry_points`], with `max_threads = THREADS` (the step's own).
macro_rules! fp8_entry_point {
    ($body:ident ($($arg:ident: $ty:ty),*) => $name:ident) => {
        #[doc = concat!("[`", stringify!($body), "`] for 8-bit A and Bᵀ, scaled by `scales[0] · scales[1]`.")]
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($body), "`; `scales` holds two f32.")]
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name($($arg: $ty,)* scales: *const f32) {
            // SAFETY: forwarded; the input type is the shape's, not the flag's.
            unsafe { $body::<false>($($arg,)* $crate::gemm::hopper::epilogue::ScalesAt(scales)) }
        }
    };
}
pub(crate) use fp8_entry_point;
