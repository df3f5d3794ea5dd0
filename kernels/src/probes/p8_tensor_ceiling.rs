//! Probe p8 — the tensor-core ceiling: the peak rate of `mma.sync` and `wgmma`, operands on chip.
//!
//! Shows: the most FLOP/s `mma.sync` m16n8k16 and `wgmma` m64n256k16 (f16, bf16) and k32 (e4m3)
//!       deliver, f32 accumulate, nothing else in the way: the ceiling no tensor-core GEMM step
//!       can pass, measured on the running GPU, whose clock under load is not the data sheet's.
//! How: warps loop over eight independent `mma.sync` accumulators, 1, 2 or 4 warps per
//!       scheduler; blocks of 1–3 warpgroups loop over `wgmma` on tiles filled once, one group
//!       always queued behind the running one; random non-zero inputs, every result checked.
//! Result: `mma.sync` 640.7 TFLOP/s f16, `wgmma` 948.8 (1.48×); H200, 2026-11-23.
//!
//! How it fills the pipe:
//! - [`ceiling_mma_sync_f16`] / `_bf16`: each warp keeps one A fragment and eight B fragments in
//!   registers and loops over eight independent accumulators. An `mma.sync` waits for the
//!   previous product into its own accumulator, so one chain would measure the instruction's
//!   latency; eight chains keep eight products in flight per warp.
//! - [`ceiling_wgmma_f16`] / `_bf16` (sm_90a build only): one block per SM, of 1, 2 or 3
//!   warpgroups. The block fills a 64 × 64 A tile and a 64 × 256 B tile in shared memory once,
//!   in w01's 128-byte swizzled layout; then each warpgroup loops: four `wgmma` m64n256k16 over
//!   the tile's four k16 steps, commit, and wait until at most one group is unfinished, as in a
//!   GEMM's main loop. Each `wgmma` is 128 cycles of an SM's tensor cores at the nominal rate
//!   (4096 FLOP per cycle per SM, dense f16): issue is never the limit.
//! - [`ceiling_wgmma_e4m3`]: the same loop with `wgmma` m64n256k32 of e4m3 codes. 8-bit
//!   `wgmma` takes both operands K-major, so B is stored as A is, one 128-byte swizzle row
//!   per column n (its 128 k values): the same 8 KB and 32 KB of tiles, twice the k, twice
//!   the FLOPs per instruction. Operands are odd multiples of 1/8 in (−1, 1) (exact in e4m3,
//!   sums of 32 products exact in the narrower sums the 8-bit instruction keeps).
//!
//! Inputs: random odd multiples of 1/256 in (−1, 1)
//! ([`operand`](common::probes::tensor_ceiling::operand)), never zero. Tensor cores draw less
//! power on zeros and the clock then stays higher: a ceiling timed on zeros would be one no GEMM
//! on real data can reach. The GEMM ladder's inputs are random too (k / 1024).
//!
//! Exact results: every product the loop adds is followed by its negation (`mma.sync`: A, then
//! −A with the same B; `wgmma`: the tile's k16 steps are P, −P, Q, −Q against B's steps R, R, S,
//! S). The accumulators return to zero after every second product, and after one last product
//! (A·B, or P·R) they hold it exactly: each partial sum is a multiple of 2^-16 below 16 in
//! magnitude, exact in f32 whatever order the tensor cores add in. Each thread writes the XOR
//! of its accumulators' bits, one word, so that no product can be dropped as dead code; the host
//! rebuilds the operands, multiplies on the CPU and computes the same XOR for every thread.
//! FLOPs counted: 2·M·N·K per instruction (4096 per `mma.sync`, 524 288 per `wgmma`).
//!
//! Cost (ptxas -v, sm_90a): `mma.sync` kernels 64 registers, no stack, no shared memory;
//! `wgmma` kernels 168 registers (128 accumulators; `.maxntid 384` caps them at 168), no stack,
//! no spills, 128 KB of dynamic shared memory (40 KB used; the rest keeps a second block off
//! the SM). The loops are HMMA.16816.F32 (or .BF16) × 16 per trip and HGMMA.64x256x16 × 4 per
//! trip; ptxas serializes no `wgmma` (no warning C7510).
//!
//! More: docs/lessons.md#p8

use crate::device::index::{global_thread_idx, lane_idx};
use crate::device::mma::{mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::unroll;
use common::input::{bf16_bits_exact, f16_bits_exact};
use common::probes::tensor_ceiling::{MMA_CHAINS, mma_a, mma_b};
use kernel_macros::kernel;

/// The two 16-bit values' sign bits in a packed register: XOR negates both.
const SIGN_BITS: u32 = 0x8000_8000;

const CHAINS: usize = MMA_CHAINS as usize;
const _: () = assert!(CHAINS == 8, "the loops below are unrolled 8 times");

/// The f16 (or, for `BF16`, bf16) bits of `x`, which is exact in that type.
#[inline(always)]
fn bits<const BF16: bool>(x: f32) -> u16 {
    if BF16 { bf16_bits_exact(x) } else { f16_bits_exact(x) }
}

/// Two 16-bit values in one register, the lower index in the low half (the fragment
/// layout of `mma.sync`).
#[inline(always)]
fn pack<const BF16: bool>(low: f32, high: f32) -> u32 {
    u32::from(bits::<BF16>(low)) | u32::from(bits::<BF16>(high)) << 16
}

/// One `mma.sync.m16n8k16` of the kernel's input type: `A·B + C`.
#[inline(always)]
fn mma<const BF16: bool>(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    if BF16 { mma_m16n8k16_bf16(a, b, c) } else { mma_m16n8k16_f16(a, b, c) }
}

/// Every warp: `2·iters + 1` products into each of its [`MMA_CHAINS`] accumulators (A,
/// then −A, …, then A), then each thread writes the XOR of its 32 accumulators' bits to
/// `out[global thread]`.
///
/// # Safety
/// `out` holds one `u32` per thread of the grid; blocks are whole warps.
#[inline(always)]
unsafe fn mma_sync_loop<const BF16: bool>(out: *mut u32, iters: u32, seed: u64) {
    // Fragment layout (device::mma): g = lane / 4 is the row of A and the column of B,
    // t = lane % 4 picks the pair of k values.
    let lane = lane_idx();
    let (g, t) = (lane / 4, lane % 4);
    let a_pair = |row: u32, k: u32| pack::<BF16>(mma_a(seed, row, k), mma_a(seed, row, k + 1));
    let a = [a_pair(g, 2 * t), a_pair(g + 8, 2 * t), a_pair(g, 2 * t + 8), a_pair(g + 8, 2 * t + 8)];
    let minus_a = a.map(|r| r ^ SIGN_BITS);
    let mut b = [[0u32; 2]; CHAINS];
    unroll!(8, j => {
        let b_pair = |k: u32| pack::<BF16>(mma_b(seed, j as u32, k, g), mma_b(seed, j as u32, k + 1, g));
        b[j] = [b_pair(2 * t), b_pair(2 * t + 8)];
    });

    let mut acc = [[0.0f32; 4]; CHAINS];
    for _ in 0..iters {
        unroll!(8, j => { acc[j] = mma::<BF16>(a, b[j], acc[j]); });
        unroll!(8, j => { acc[j] = mma::<BF16>(minus_a, b[j], acc[j]); });
    }
    unroll!(8, j => { acc[j] = mma::<BF16>(a, b[j], acc[j]); });

    let mut fold = 0u32;
    unroll!(8, j => {
        unroll!(4, i => { fold ^= acc[j][i].to_bits(); });
    });
    // SAFETY: one slot per thread (caller's contract).
    unsafe { *out.add(global_thread_idx()) = fold };
}

/// [`mma_sync_loop`] with f16 inputs.
///
/// # Safety
/// As `mma_sync_loop`.
#[kernel]
pub unsafe fn ceiling_mma_sync_f16(out: *mut u32, iters: u32, seed: u64) {
    // SAFETY: forwarded.
    unsafe { mma_sync_loop::<false>(out, iters, seed) }
}

/// [`mma_sync_loop`] with bf16 inputs.
///
/// # Safety
/// As `mma_sync_loop`.
#[kernel]
pub unsafe fn ceiling_mma_sync_bf16(out: *mut u32, iters: u32, seed: u64) {
    // SAFETY: forwarded.
    unsafe { mma_sync_loop::<true>(out, iters, seed) }
}

#[cfg(target_feature = "sm_90a")]
pub use hopper::{ceiling_wgmma_bf16, ceiling_wgmma_e4m3, ceiling_wgmma_f16};

/// The `wgmma` half, in the sm_90a build only (the PTX of other archs must not hold
/// `wgmma`, or the driver would refuse the whole module).
#[cfg(target_feature = "sm_90a")]
mod hopper {
    use super::bits;
    use crate::device::index::{block_dim, block_idx, thread_idx};
    use crate::device::shared::{SharedArray, dynamic_shared_aligned};
    use crate::device::sync::sync_threads;
    use crate::device::wgmma::{
        self, FP8_MMA_K, M64N256_ACC, descriptor, mma_m64n256k16_bf16, mma_m64n256k16_f16, mma_m64n256k32_e4m3,
    };
    use crate::unroll;
    use common::probes::tensor_ceiling::{
        FP8_E4M3_CODES, FP8_TILE_K, MAX_WARPGROUPS, WARPGROUP_THREADS, WGMMA_ALIGN, WGMMA_M, WGMMA_N,
        WGMMA_TILE_BYTES, WGMMA_TILE_K, fp8_a, fp8_b, wgmma_a, wgmma_b,
    };
    use kernel_macros::kernel;

    /// A 128-byte swizzle row (64 16-bit values) and an atom of 8 of them.
    const ROW_BYTES: u32 = 128;
    const ATOM_BYTES: u32 = 8 * ROW_BYTES;
    const _: () = assert!(WGMMA_TILE_K * 2 == ROW_BYTES);
    /// The A tile (64 rows of one swizzle row each); the B tile follows it, as four panels
    /// of 64 k rows × 64 columns.
    const A_BYTES: u32 = WGMMA_M * ROW_BYTES;
    const B_PANEL_BYTES: u32 = WGMMA_TILE_K * ROW_BYTES;
    const _: () = assert!(A_BYTES + (WGMMA_N / 64) * B_PANEL_BYTES == WGMMA_TILE_BYTES);
    /// k values per `wgmma`.
    const MMA_K: u32 = 16;
    /// The 8-bit A tile: 64 rows of 128 k values, one swizzle row each; B follows it.
    const FP8_A_BYTES: u32 = WGMMA_M * ROW_BYTES;
    const _: () = assert!(FP8_TILE_K == ROW_BYTES);

    /// Codes per 32-bit word the 8-bit tiles are written in: 4 consecutive k values of one
    /// row, which the swizzle keeps together (it moves 16-byte chunks).
    const PER_WORD: u32 = 4;

    /// The e4m3 codes of k values `k … k + 3`, `pick(k)` giving each one's index into
    /// `FP8_VALUES`: one word, the lowest k in the low byte.
    #[inline(always)]
    fn codes(k: u32, pick: impl Fn(u32) -> usize) -> u32 {
        (0..PER_WORD).fold(0u32, |w, i| w | u32::from(FP8_E4M3_CODES[pick(k + i) % 8]) << (8 * i))
    }

    /// Byte offset of byte `col` of 128-byte row `row` in a 128-byte-swizzled tile.
    #[inline(always)]
    fn swizzled_byte(row: u32, col: u32) -> u32 {
        row * ROW_BYTES + (((col / 16) ^ (row % 8)) * 16) + col % 16
    }

    /// Byte offset of 16-bit value `col` of 128-byte row `row` in a 128-byte-swizzled
    /// tile: chunk `c` of row `r` is stored at chunk `c ^ (r % 8)` (see `device::wgmma`).
    #[inline(always)]
    fn swizzled(row: u32, col: u32) -> u32 {
        row * ROW_BYTES + (((col / 8) ^ (row % 8)) * 16) + (col % 8) * 2
    }

    /// One `wgmma` m64n256k16 of the kernel's input type: `acc += A · B`.
    ///
    /// # Safety
    /// As `device::wgmma::mma_m64n256k16_f16`.
    #[inline(always)]
    unsafe fn mma<const BF16: bool>(acc: &mut [f32; M64N256_ACC], a: u64, b: u64) {
        // SAFETY: forwarded.
        unsafe { if BF16 { mma_m64n256k16_bf16(acc, a, b) } else { mma_m64n256k16_f16(acc, a, b) } }
    }

    /// The block fills the A and B tiles once; then every warpgroup issues `4·iters + 1`
    /// `wgmma` from them (steps P, −P, Q, −Q per trip, then P once more) and each thread
    /// writes the XOR of its 128 accumulators' bits to `out[block · blockDim + thread]`.
    ///
    /// # Safety
    /// `out` holds one `u32` per thread of the grid; launched with whole warpgroups (at
    /// most `MAX_WARPGROUPS`) and at least `WGMMA_TILE_BYTES + WGMMA_ALIGN` bytes of
    /// dynamic shared memory, on an sm_90a device.
    #[inline(always)]
    unsafe fn wgmma_loop<const BF16: bool>(out: *mut u32, iters: u32, seed: u64) {
        let base = dynamic_shared_aligned(WGMMA_ALIGN);
        let (a_tile, b_tile) = (base, base + A_BYTES);
        let (tid, threads) = (thread_idx(), block_dim());

        // SAFETY: the tiles lie inside the launch's dynamic shared memory (the caller's
        // contract), 2-byte aligned.
        let (a_values, b_values) =
            unsafe { (SharedArray::<u16>::from_address(a_tile), SharedArray::<u16>::from_address(b_tile)) };
        let mut e = tid;
        while e < WGMMA_M * WGMMA_TILE_K {
            let (m, k) = (e / WGMMA_TILE_K, e % WGMMA_TILE_K);
            // SAFETY: inside the A tile; each element is written by one thread, read only
            // after the barrier below.
            unsafe { a_values.store(swizzled(m, k) / 2, bits::<BF16>(wgmma_a(seed, m, k))) };
            e += threads;
        }
        e = tid;
        while e < WGMMA_TILE_K * WGMMA_N {
            let (k, n) = (e / WGMMA_N, e % WGMMA_N);
            let at = (n / 64) * B_PANEL_BYTES + swizzled(k, n % 64);
            // SAFETY: inside the B tile, written once, as above.
            unsafe { b_values.store(at / 2, bits::<BF16>(wgmma_b(seed, k, n))) };
            e += threads;
        }
        // The tensor cores read through the async proxy: make the writes visible to it,
        // then wait for every thread's.
        wgmma::fence_proxy_async_shared();
        sync_threads();

        // Step kk: A's columns 16·kk … (32 bytes into each swizzled row), B's rows 16·kk …
        let a_desc = |kk: u32| descriptor(a_tile + kk * MMA_K * 2, 0, ATOM_BYTES);
        let b_desc = |kk: u32| descriptor(b_tile + kk * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
        // SAFETY: the whole warpgroup; the tiles are never written again.
        unsafe {
            issue_and_write(out, iters, |acc, kk| mma::<BF16>(acc, a_desc(kk), b_desc(kk)))
        }
    }

    /// The loop both tile kinds share: from zeroed accumulators, `iters` trips of four
    /// `wgmma` (`mma(acc, kk)` for the tile's steps kk = 0…3), each trip one committed group
    /// with one more left queued behind it, then step 0 once more; each thread then writes
    /// the XOR of its 128 accumulators' bits to `out[block · blockDim + thread]`.
    ///
    /// # Safety
    /// Every thread of whole warpgroups; `mma` issues one `wgmma` from tiles that stay
    /// unchanged (its contract with the accumulators is `device::wgmma`'s); `out` holds one
    /// `u32` per thread of the grid.
    #[inline(always)]
    unsafe fn issue_and_write(out: *mut u32, iters: u32, mma: impl Fn(&mut [f32; M64N256_ACC], u32)) {
        let mut acc = [0.0f32; M64N256_ACC];
        wgmma::fence();
        for _ in 0..iters {
            unroll!(4, kk => { mma(&mut acc, kk as u32); });
            wgmma::commit_group();
            // One group stays queued behind the running one: the pipe never drains.
            wgmma::wait_group::<1>();
        }
        mma(&mut acc, 0);
        wgmma::commit_group();
        wgmma::wait_group::<0>();

        let mut fold = 0u32;
        unroll!(8, i => {
            unroll!(4, j => {
                unroll!(4, l => { fold ^= acc[i * 16 + j * 4 + l].to_bits(); });
            });
        });
        let (tid, threads) = (thread_idx(), block_dim());
        // SAFETY: one slot per thread (caller's contract).
        unsafe { *out.add(block_idx() as usize * threads as usize + tid as usize) = fold };
    }

    /// The 8-bit kernel: A (64 × 128) and B (128 × 256, K-major: each column n's 128 k
    /// values one swizzle row) filled once with e4m3 codes; then as [`wgmma_loop`], with
    /// `wgmma` m64n256k32 (four k32 steps per tile: P, −P, Q, −Q against R, R, S, S).
    ///
    /// # Safety
    /// As [`wgmma_loop`].
    #[inline(always)]
    unsafe fn wgmma_fp8_loop(out: *mut u32, iters: u32, seed: u64) {
        let base = dynamic_shared_aligned(WGMMA_ALIGN);
        let b_tile = base + FP8_A_BYTES;
        // SAFETY: the tiles lie inside the launch's dynamic shared memory (the caller's
        // contract), 1024-byte aligned.
        let words = unsafe { SharedArray::<u32>::from_address(base) };
        let (tid, threads) = (thread_idx(), block_dim());
        let row_words = FP8_TILE_K / PER_WORD;
        let mut e = tid;
        while e < (WGMMA_M + WGMMA_N) * row_words {
            // Rows 0…63 are A's rows m, then 256 rows of B, one per column n.
            let (row, k) = (e / row_words, e % row_words * PER_WORD);
            let word = if row < WGMMA_M {
                codes(k, |kk| fp8_a(seed, row, kk))
            } else {
                codes(k, |kk| fp8_b(seed, kk, row - WGMMA_M))
            };
            // SAFETY: inside the two tiles (A's rows, then B's, 128 bytes each); each word is
            // written by one thread, read only after the barrier below.
            unsafe { words.store(swizzled_byte(row, k) / 4, word) };
            e += threads;
        }
        wgmma::fence_proxy_async_shared();
        sync_threads();

        // Step kk: k values 32·kk … of every row, 32 bytes into each swizzled row, in A and
        // in B alike (both K-major).
        let a_desc = |kk: u32| descriptor(base + kk * FP8_MMA_K, 0, ATOM_BYTES);
        let b_desc = |kk: u32| descriptor(b_tile + kk * FP8_MMA_K, 0, ATOM_BYTES);
        // SAFETY: the whole warpgroup; the tiles are never written again.
        unsafe { issue_and_write(out, iters, |acc, kk| mma_m64n256k32_e4m3(acc, a_desc(kk), b_desc(kk))) }
    }

    /// [`wgmma_loop`] with f16 inputs.
    ///
    /// # Safety
    /// As `wgmma_loop`.
    #[kernel(max_threads = MAX_WARPGROUPS * WARPGROUP_THREADS)]
    pub unsafe fn ceiling_wgmma_f16(out: *mut u32, iters: u32, seed: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_loop::<false>(out, iters, seed) }
    }

    /// [`wgmma_fp8_loop`]: e4m3 inputs.
    ///
    /// # Safety
    /// As `wgmma_fp8_loop`.
    #[kernel(max_threads = MAX_WARPGROUPS * WARPGROUP_THREADS)]
    pub unsafe fn ceiling_wgmma_e4m3(out: *mut u32, iters: u32, seed: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_fp8_loop(out, iters, seed) }
    }

    /// [`wgmma_loop`] with bf16 inputs.
    ///
    /// # Safety
    /// As `wgmma_loop`.
    #[kernel(max_threads = MAX_WARPGROUPS * WARPGROUP_THREADS)]
    pub unsafe fn ceiling_wgmma_bf16(out: *mut u32, iters: u32, seed: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_loop::<true>(out, iters, seed) }
    }
}
