//! Hopper's warpgroup matrix multiply (`wgmma.mma_async`, sm_90a only) and what it needs:
//! shared-memory matrix descriptors, its fences and its commit / wait groups.
//!
//! A *warpgroup* is four consecutive warps whose first warp index is a multiple of 4 (128
//! threads). `wgmma.mma_async.m64nNk16` multiplies a 64 × 16 tile of A by a 16 × N tile of
//! B, both read by the tensor cores straight from shared memory, and adds the product to a
//! 64 × N f32 accumulator spread over the warpgroup's registers (N / 2 per thread). The
//! instruction is asynchronous: it is issued, then grouped with `commit_group`, and its
//! results may be read only after a `wait_group` has seen the group finish.
//!
//! Accumulator layout (m64nNk16, f32): warp `w` of the warpgroup holds rows `16w … 16w + 15`;
//! with `g = lane / 4` and `t = lane % 4`, registers `d[4j]`, `d[4j + 1]` are row `16w + g`,
//! columns `8j + 2t` and `8j + 2t + 1`, and `d[4j + 2]`, `d[4j + 3]` the same columns of row
//! `16w + g + 8`: the `mma.sync` m16n8 accumulator of [`super::mma`], repeated N / 8 times
//! along the row.
//!
//! Shared-memory layouts: see [`descriptor`]. The module exists only in the sm_90a build
//! (`cfg(target_feature = "sm_90a")`): the PTX of every other arch must not contain these
//! instructions, or the driver would refuse the whole module.

use core::arch::asm;

/// A 64-bit shared-memory matrix descriptor for the 128-byte swizzle mode, which `wgmma`
/// reads instead of an address:
///
/// | bits | field |
/// | --- | --- |
/// | 0–13 | start address >> 4 |
/// | 16–29 | leading-dimension byte offset >> 4 |
/// | 32–45 | stride-dimension byte offset >> 4 |
/// | 62–63 | swizzle mode (1 = 128-byte) |
///
/// In the 128-byte swizzle mode the matrix is built from *atoms* of 8 rows of 128 bytes
/// (1024 bytes, 1024-byte aligned), in which the 16-byte chunk `c` of row `r` is stored at
/// chunk `c ^ (r % 8)`: the same XOR swizzle the `ldmatrix` steps use, applied by the
/// hardware to the address bits.
/// - **K-major** operand (A here: a row of the atom is 64 consecutive k values of one row
///   m): `stride_bytes` is the distance between atoms along M (8 rows → next 8 rows); the
///   leading offset is unused. Steps of k16 inside the 64-wide atom move the start address
///   by 32 bytes.
/// - **MN-major** operand (B here: a row of the atom is 64 consecutive n values of one
///   k): `leading_bytes` is the distance between atoms along N (next 64 columns),
///   `stride_bytes` between atoms along K (next 8 k values).
#[inline(always)]
pub fn descriptor(address: u32, leading_bytes: u32, stride_bytes: u32) -> u64 {
    const SWIZZLE_128B: u64 = 1 << 62;
    let encode = |x: u32| u64::from((x & 0x3FFFF) >> 4);
    encode(address) | encode(leading_bytes) << 16 | encode(stride_bytes) << 32 | SWIZZLE_128B
}

/// `wgmma.fence.sync.aligned;`: orders this warpgroup's earlier register writes (the
/// accumulators) before the `wgmma` that follows. Required before the first `wgmma` and
/// whenever the accumulators were touched by other instructions.
#[inline(always)]
pub fn fence() {
    // SAFETY: no operands; every thread of the warpgroup executes it (caller's duty).
    unsafe { asm!("wgmma.fence.sync.aligned;", options(nostack)) }
}

/// `wgmma.commit_group.sync.aligned;`: closes the group of `wgmma` issued since the last
/// commit.
#[inline(always)]
pub fn commit_group() {
    // SAFETY: no operands.
    unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) }
}

/// `wgmma.wait_group.sync.aligned N;`: waits until at most `N` of this warpgroup's
/// committed groups are unfinished. After it, the accumulators of the finished groups may
/// be read and the shared memory they read may be overwritten.
#[inline(always)]
pub fn wait_group<const N: u32>() {
    // SAFETY: no memory operands; N is an immediate. Not `nomem`: it orders later shared
    // writes after the tensor cores' reads.
    unsafe { asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack)) }
}

/// [`wait_group`], which also holds an m64n128 `wgmma`'s accumulators `acc` back: LLVM sees a `wgmma`'s accumulators as ready
/// when the `asm!` that issues it ends, and may move their first reads above a plain
/// `wait_group` (then ptxas, seeing registers read while a `wgmma` may still write them,
/// waits for every `wgmma` before those reads: C7517). Here the wait names the 64
/// registers as its operands (in a PTX comment), so their reads stay after it.
#[inline(always)]
pub fn wait_group_for_m64n128<const N: u32>(acc: &mut [f32; M64N128_ACC]) {
    wait_group_for_impl!(N, acc, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
}

/// [`wait_group_for_m64n128`] for an m64n192 `wgmma`'s 96 accumulators (w22's partial tile).
#[inline(always)]
pub fn wait_group_for_m64n192<const N: u32>(acc: &mut [f32; M64N192_ACC]) {
    wait_group_for_impl!(N, acc,
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95);
}

macro_rules! wait_group_for_impl {
    ($n:ident, $acc:ident, $($i:literal)*) => {
        // SAFETY: no memory operands; N is an immediate; the operands only name registers.
        unsafe {
            asm!(
                concat!("wgmma.wait_group.sync.aligned {n}; //", $(" {", $i, "}",)*),
                $(inout(reg32) $acc[$i],)*
                n = const $n,
                options(nostack)
            )
        }
    };
}
use wait_group_for_impl;

/// `fence.proxy.async.shared::cta;`: makes this thread's ordinary (generic-proxy) writes to
/// shared memory, `cp.async` included, visible to the async proxy that `wgmma` reads
/// through. Each writing thread executes it after its writes land and before the barrier
/// that precedes the `wgmma`.
#[inline(always)]
pub fn fence_proxy_async_shared() {
    // SAFETY: no operands.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) }
}

/// Accumulator registers per thread of `m64n256k16` with f32 accumulation.
pub const M64N256_ACC: usize = 128;

/// One `wgmma.mma_async` with f32 accumulators: A K-major, B N-major
/// (`imm-trans-b` = 1), both by descriptor. Generated per input type because the type is
/// part of the instruction's name; the 128 accumulators are listed one by one because
/// `asm!` takes no register arrays.
macro_rules! wgmma_f32 {
    ($name:ident, $shape:literal, $acc:expr, $ty:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, "`: `acc += A · B`")]
        /// for the warpgroup, A (64 × 16) and B (16 × N) read from shared memory through
        /// their descriptors ([`descriptor`]); asynchronous until [`wait_group`].
        ///
        /// # Safety
        /// Every thread of the warpgroup calls it, after [`fence`]; the descriptors describe
        /// shared memory that stays unchanged until a [`wait_group`] has seen this `wgmma`
        /// finish, and `acc` is not read before then.
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: u64, b: u64) {
            // SAFETY: the caller's contract above.
            unsafe {
                asm!(
                    concat!(
                        "{{ .reg .pred keep; setp.ne.b32 keep, {one}, 0; ",
                        "wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, " {{",
                        "{", $first, "}", $(", {", $i, "}",)*
                        "}}, {a}, {b}, keep, 1, 1, 0, 1; }}"
                    ),
                    inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                    a = in(reg64) a, b = in(reg64) b, one = in(reg32) 1u32,
                    options(nostack)
                )
            }
        }
    };
}

macro_rules! m64n256k16 {
    ($name:ident, $ty:literal) => {
        wgmma_f32!($name, "m64n256k16", M64N256_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120
            121 122 123 124 125 126 127);
    };
}

m64n256k16!(mma_m64n256k16_f16, "f16");
m64n256k16!(mma_m64n256k16_bf16, "bf16");

/// Accumulator registers per thread of `m64n128k16` with f32 accumulation.
pub const M64N128_ACC: usize = 64;

macro_rules! m64n128k16 {
    ($name:ident, $ty:literal) => {
        wgmma_f32!($name, "m64n128k16", M64N128_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
    };
}

m64n128k16!(mma_m64n128k16_f16, "f16");
m64n128k16!(mma_m64n128k16_bf16, "bf16");

/// Accumulator registers per thread of `m64n192k16` with f32 accumulation (w22's 192-wide tile).
pub const M64N192_ACC: usize = 96;

macro_rules! m64n192k16 {
    ($name:ident, $ty:literal) => {
        wgmma_f32!($name, "m64n192k16", M64N192_ACC, $ty,
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95);
    };
}

m64n192k16!(mma_m64n192k16_f16, "f16");
m64n192k16!(mma_m64n192k16_bf16, "bf16");

/// One `wgmma.mma_async` of 8-bit floats with f32 accumulators, B K-major by descriptor: the
/// only layout `wgmma` takes for 8-bit inputs (there is no `imm-trans`), so B's k values of
/// one column n lie contiguous, 128 bytes (k32 × 4) to a swizzle row as A's of one row m. A
/// by descriptor (K-major, as B) or from registers (`a_registers`: four per thread, four
/// values each, `mma.m16n8k32`'s A fragment of the warp's 16 rows, as `ldmatrix.x4` gives it
/// from 16-byte rows). `accumulate`: `acc += A · B`; `fresh`: `scale-d` = 0 and the
/// accumulators are the instruction's outputs only, `acc = A · B`, so the compiler need not
/// keep (or copy) their old values: the first `wgmma` of a fresh partial sum. `$a` and `$b`
/// are `e4m3` or `e5m2` (they may differ).
macro_rules! wgmma_f32_fp8 {
    // The modes, as the operands' direction, `scale-d` and the doc's words.
    ($name:ident, accumulate, $($rest:tt)*) => {
        wgmma_f32_fp8!(@fn $name, inout, 1u32, "`acc += A · B`", $($rest)*);
    };
    ($name:ident, fresh, $($rest:tt)*) => {
        wgmma_f32_fp8!(@fn $name, out, 0u32, "`acc = A · B` (`scale-d` = 0)", $($rest)*);
    };
    (@fn $name:ident, $dir:ident, $keep:expr, $doc:literal, $shape:literal, $acc:expr, $a:literal, $b:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $a, ".", $b, "`: ", $doc)]
        /// for the warpgroup, A (64 × 32) and B (32 × N, each column's 32 bytes contiguous)
        /// read from shared memory through their descriptors ([`descriptor`], both as the
        /// K-major operand there: a k32 step moves the start address by 32 bytes);
        /// asynchronous until [`wait_group`].
        ///
        /// # Safety
        /// As [`mma_m64n256k16_f16`].
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: u64, b: u64) {
            // SAFETY: the caller's contract above.
            unsafe {
                asm!(
                    concat!(
                        "{{ .reg .pred keep; setp.ne.b32 keep, {keep}, 0; ",
                        "wgmma.mma_async.sync.aligned.", $shape, ".f32.", $a, ".", $b, " {{",
                        "{", $first, "}", $(", {", $i, "}",)*
                        "}}, {a}, {b}, keep, 1, 1; }}"
                    ),
                    $dir(reg32) acc[$first], $($dir(reg32) acc[$i],)*
                    a = in(reg64) a, b = in(reg64) b, keep = in(reg32) $keep,
                    options(nostack)
                )
            }
        }
    };
    (@fn $name:ident, $dir:ident, $keep:expr, $doc:literal, a_registers, $shape:literal, $acc:expr, $a:literal, $b:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $a, ".", $b, "` with A in registers: ", $doc)]
        /// for the warpgroup: warp `w` holds rows `16w … 16w + 15` of A (64 × 32); B (32 × N,
        /// each column's 32 bytes contiguous) by its descriptor ([`descriptor`], K-major);
        /// asynchronous until [`wait_group`].
        ///
        /// # Safety
        /// Every thread of the warpgroup calls it, after [`fence`]; B's shared memory stays
        /// unchanged and `acc` unread until a [`wait_group`] has seen it finish.
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: [u32; 4], b: u64) {
            // SAFETY: the caller's contract above.
            unsafe {
                asm!(
                    concat!(
                        "{{ .reg .pred keep; setp.ne.b32 keep, {keep}, 0; ",
                        "wgmma.mma_async.sync.aligned.", $shape, ".f32.", $a, ".", $b, " {{",
                        "{", $first, "}", $(", {", $i, "}",)*
                        "}}, {{{a0}, {a1}, {a2}, {a3}}}, {b}, keep, 1, 1; }}"
                    ),
                    $dir(reg32) acc[$first], $($dir(reg32) acc[$i],)*
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                    b = in(reg64) b, keep = in(reg32) $keep,
                    options(nostack)
                )
            }
        }
    };
}

/// k values per 8-bit `wgmma` (m64nNk32): twice the 16-bit instruction's, in the same 32 bytes
/// of a swizzle row.
pub const FP8_MMA_K: u32 = 32;

macro_rules! m64n256k32 {
    ($name:ident, $a:literal, $b:literal) => {
        wgmma_f32_fp8!($name, accumulate, "m64n256k32", M64N256_ACC, $a, $b,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120
            121 122 123 124 125 126 127);
    };
}

m64n256k32!(mma_m64n256k32_e4m3, "e4m3", "e4m3");
m64n256k32!(mma_m64n256k32_e4m3_e5m2, "e4m3", "e5m2");

wgmma_f32_fp8!(mma_m64n192k32_e4m3, accumulate, "m64n192k32", M64N192_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95);
wgmma_f32_fp8!(mma_m64n192k32_e4m3_fresh, fresh, "m64n192k32", M64N192_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95);
wgmma_f32_fp8!(mma_m64n128k32_e4m3, accumulate, "m64n128k32", M64N128_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
wgmma_f32_fp8!(mma_m64n128k32_e4m3_a_regs, accumulate, a_registers, "m64n128k32", M64N128_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
wgmma_f32_fp8!(mma_m64n128k32_e4m3_a_regs_fresh, fresh, a_registers, "m64n128k32", M64N128_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
wgmma_f32_fp8!(mma_m64n128k32_e4m3_fresh, fresh, "m64n128k32", M64N128_ACC, "e4m3", "e4m3",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
wgmma_f32_fp8!(mma_m64n128k32_e4m3_e5m2, accumulate, "m64n128k32", M64N128_ACC, "e4m3", "e5m2",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
wgmma_f32_fp8!(mma_m64n128k32_e4m3_e5m2_fresh, fresh, "m64n128k32", M64N128_ACC, "e4m3", "e5m2",
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);

/// `setmaxnreg.inc.sync.aligned.u32 N;`: raises this warpgroup's registers per thread to
/// `N` (a multiple of 8, 24 to 256), waiting until another warpgroup of the block has
/// released enough with [`release_registers`]. A block starts with the registers the
/// compiler gave every thread; a producer warpgroup that issues copies needs few, and the
/// consumers that hold accumulators can take what it gives back.
///
/// Takes effect only in a kernel with a register cap at its entry (`.maxntid`) where each
/// warpgroup's role is one branch of an if/else; otherwise ptxas ignores it with warning
/// C7508. Every thread of the warpgroup executes it.
#[inline(always)]
pub fn claim_registers<const N: u32>() {
    // SAFETY: no memory operands; N is an immediate; the whole warpgroup executes it.
    unsafe { asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack, nomem)) }
}

/// `setmaxnreg.dec.sync.aligned.u32 N;`: lowers this warpgroup's registers per thread to
/// `N`, returning the rest to the block's pool for [`claim_registers`].
#[inline(always)]
pub fn release_registers<const N: u32>() {
    // SAFETY: as `claim_registers`.
    unsafe { asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack, nomem)) }
}

/// Accumulator registers per thread of `m64n64k16` with f32 accumulation.
pub const M64N64_ACC: usize = 32;

/// One `wgmma.mma_async` with f32 accumulators, A and B both K-major by descriptor
/// (`imm-trans-b` = 0): B's 16 k values of one column n lie contiguous, as the rows of K do
/// in attention's S = Q·Kᵀ (a column of Kᵀ is a row of K). Otherwise as [`wgmma_f32`].
macro_rules! wgmma_f32_b_k_major {
    ($name:ident, $shape:literal, $acc:expr, $ty:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, "` with B K-major: `acc += A · B`")]
        /// for the warpgroup, A (64 × 16) and B (16 × N, each column's 16 values contiguous in
        /// shared memory) read through their descriptors ([`descriptor`], both as the K-major
        /// A there); asynchronous until [`wait_group`]. With `accumulate` false the accumulators
        /// are overwritten instead (`scale-d` = 0): no zeroing needed.
        ///
        /// # Safety
        /// As [`mma_m64n256k16_f16`].
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: u64, b: u64, accumulate: bool) {
            // SAFETY: the caller's contract above.
            unsafe {
                asm!(
                    concat!(
                        "{{ .reg .pred keep; setp.ne.b32 keep, {keep}, 0; ",
                        "wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, " {{",
                        "{", $first, "}", $(", {", $i, "}",)*
                        "}}, {a}, {b}, keep, 1, 1, 0, 0; }}"
                    ),
                    inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                    a = in(reg64) a, b = in(reg64) b, keep = in(reg32) u32::from(accumulate),
                    options(nostack)
                )
            }
        }
    };
}

/// One `wgmma.mma_async` with f32 accumulators, A from registers, B N-major by descriptor
/// (`imm-trans-b` = 1): attention's O += P·V, P straight from the softmax's registers, V's
/// rows (one key each, the head dim contiguous) as B's k rows.
macro_rules! wgmma_f32_a_registers {
    ($name:ident, $shape:literal, $acc:expr, $ty:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, "` with A in registers: `acc += A · B`")]
        /// for the warpgroup: A (64 × 16) from each thread's four registers of two 16-bit
        /// values, laid out as `mma.sync` m16n8k16's A fragment for the warp's 16 rows (warp
        /// `w` of the warpgroup holds rows `16w … 16w + 15`); B (16 × N) N-major in shared
        /// memory through its descriptor ([`descriptor`], the MN-major case); asynchronous until
        /// [`wait_group`].
        ///
        /// # Safety
        /// Every thread of the warpgroup calls it, after [`fence`]; B's shared memory stays
        /// unchanged and `acc` unread until a [`wait_group`] has seen it finish.
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: [u32; 4], b: u64) {
            // SAFETY: the caller's contract above.
            unsafe {
                asm!(
                    concat!(
                        "{{ .reg .pred keep; setp.ne.b32 keep, {one}, 0; ",
                        "wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, " {{",
                        "{", $first, "}", $(", {", $i, "}",)*
                        "}}, {{{a0}, {a1}, {a2}, {a3}}}, {b}, keep, 1, 1, 1; }}"
                    ),
                    inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                    b = in(reg64) b, one = in(reg32) 1u32,
                    options(nostack)
                )
            }
        }
    };
}

macro_rules! attention_shapes {
    ($ty:literal, $scores64:ident, $scores128:ident, $out64:ident, $out128:ident) => {
        wgmma_f32_b_k_major!($scores64, "m64n64k16", M64N64_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
        wgmma_f32_b_k_major!($scores128, "m64n128k16", M64N128_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
        wgmma_f32_a_registers!($out64, "m64n64k16", M64N64_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
        wgmma_f32_a_registers!($out128, "m64n128k16", M64N128_ACC, $ty,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
    };
}

attention_shapes!("f16", mma_m64n64k16_b_k_major_f16, mma_m64n128k16_b_k_major_f16, mma_m64n64k16_a_regs_f16,
    mma_m64n128k16_a_regs_f16);
attention_shapes!("bf16", mma_m64n64k16_b_k_major_bf16, mma_m64n128k16_b_k_major_bf16, mma_m64n64k16_a_regs_bf16,
    mma_m64n128k16_a_regs_bf16);

/// `stmatrix.sync.aligned.m8n8.x4.shared.b16 [addr], {r0, r1, r2, r3};`: the warp stores four
/// 8 × 8 matrices of 16-bit values from registers to shared memory, `ldmatrix` the other way
/// round: lane `l` gives the address of row `l % 8` of matrix `l / 8` (16 contiguous bytes), and
/// each lane's `r[i]` holds row `lane / 4`, columns `2·(lane % 4)` and `2·(lane % 4) + 1` of
/// matrix `i`: an `mma` or `wgmma` accumulator's layout, rounded to 16 bits. sm_90.
///
/// # Safety
/// Every lane of the warp calls it (not under lane-dependent control flow); `address` is a
/// 16-byte aligned shared address of 16 bytes no other thread accesses before a barrier.
#[inline(always)]
pub unsafe fn stmatrix_x4(address: u32, [r0, r1, r2, r3]: [u32; 4]) {
    // SAFETY: the caller guarantees the warp and the address.
    unsafe {
        asm!("stmatrix.sync.aligned.m8n8.x4.shared.b16 [{a}], {{{r0}, {r1}, {r2}, {r3}}};",
             a = in(reg32) address, r0 = in(reg32) r0, r1 = in(reg32) r1, r2 = in(reg32) r2, r3 = in(reg32) r3,
             options(nostack))
    }
}
