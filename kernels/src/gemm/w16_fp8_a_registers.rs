//! Step w16 — A from registers: each k tile's A read from shared memory once.
//!
//! Idea: w15 multiplies each k tile in two halves, and a `wgmma` whose A comes by descriptor
//!       reads A from shared memory each time: A is read twice. Load this warp's 16 rows of
//!       A once per k tile (`ldmatrix.x4` per k32, the 128-byte swizzle undone in the
//!       address) and hand the same registers to both halves' `wgmma`.
//! Changes from w15: A's fragments are loaded after the stage's wait ([`a_fragment_address`])
//!       and both halves' `wgmma` take them from registers.
//! Bottleneck: as w15's, and the loads' latency sits between the stage's wait and the first
//!       `wgmma`. Does not pay: A's second read was not what held w15 back.
//! Cost: 16 more registers per consumer thread, 4 `ldmatrix.x4` per warp and k tile.
//! Requires: as w14.
//! Result: 92.9 / 90.1 % of cuBLASLt FP8 (promoting) at 4096³ / 8192³, H100, 2026-11-27.
//!
//! More: docs/lessons.md#w16

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::PipelineState;
use super::hopper::{ATOM_BYTES, M64n128, M64n256, ROW_BYTES, Shape, WARPGROUP, WARPGROUP_ROWS};
use super::w08_latency_trims::trimmed_gemm_for;
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::mma::ldmatrix_x4;
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, M64N128_ACC, descriptor, mma_m64n128k32_e4m3_a_regs, mma_m64n128k32_e4m3_a_regs_fresh};
use crate::unroll;
use common::gemm::w16::{self, CONSUMER_REGISTERS, PARTIAL_COLUMNS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W16 = w16, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// Bytes of one 16-byte chunk of a swizzled row, the unit the 128-byte swizzle permutes.
const CHUNK_BYTES: u32 = 16;
/// Rows of a warp's share of A: `mma.m16n8k32`'s A fragment, which 8-bit `wgmma` takes.
const WARP_ROWS: u32 = 16;

/// The shared address this lane gives `ldmatrix.x4` for its warp's A fragment at the k32
/// step `kk` of stage `s`: lane `l` names row `l % 8` of matrix `l / 8`, the four matrices
/// being (rows 0–7, bytes 0–15), (rows 8–15, bytes 0–15), (rows 0–7, bytes 16–31), (rows
/// 8–15, bytes 16–31) of the step's 32 bytes. TMA wrote each 128-byte row with its 16-byte
/// chunks permuted (chunk `c` of row `r` at `c ^ (r % 8)`): the address undoes it.
#[inline(always)]
fn a_fragment_address<S: Shape>(a_stage: u32, tid: u32, kk: u32) -> u32 {
    let lane = tid % WARP_SIZE;
    let warp_row0 = (tid / WARPGROUP) * WARPGROUP_ROWS + (tid % WARPGROUP) / WARP_SIZE * WARP_ROWS;
    let row = warp_row0 + lane % 8 + 8 * ((lane / 8) % 2);
    let chunk = kk * S::MMA_K * S::INPUT_BYTES / CHUNK_BYTES + lane / 16;
    a_stage + row * ROW_BYTES + ((chunk ^ (row % 8)) * CHUNK_BYTES)
}

/// w15's main loop, A from registers: after the stage's wait the warp loads its rows of the
/// k tile's A (one `ldmatrix.x4` per k32) and both halves' `wgmma` take them.
///
/// # Safety
/// As w15's: every thread of the warpgroup calls it, the barriers are initialized and the
/// producer loads the same k tiles, in order.
#[inline(always)]
unsafe fn mma_k_tiles_a_registers<S: Shape<Acc = M64n256>>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_begin: u32,
    k_end: u32,
    acc: &mut M64n256,
    release: &impl Fn(u32),
) {
    let smem = consumer.smem();
    let tid = thread_idx();
    // Written by each half's first `wgmma` (`_fresh`) before it is read.
    let mut partial: M64n128 = [0.0; M64N128_ACC];
    for _ in k_begin..k_end {
        let s = state.index();
        // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
        unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        let mut a = [[0u32; 4]; 4];
        unroll!(4, kk => {
            // SAFETY: the whole warp; 16 bytes of the full stage's A tile per lane.
            a[kk] = unsafe { ldmatrix_x4(a_fragment_address::<S>(smem.a_stage(s), tid, kk as u32)) };
        });
        unroll!(2, half => {
            // `wgmma` reads `a` and writes `partial`, which the additions below read.
            wgmma::fence();
            unroll!(4, kk => {
                let b_desc = descriptor(
                    smem.b_stage(s) + half as u32 * PARTIAL_COLUMNS * ROW_BYTES + kk as u32 * S::MMA_K * S::INPUT_BYTES,
                    0,
                    ATOM_BYTES,
                );
                // SAFETY: the whole warpgroup, after the fence; the stage stays full until
                // this warpgroup releases it below.
                unsafe {
                    if kk == 0 {
                        mma_m64n128k32_e4m3_a_regs_fresh(&mut partial, a[kk], b_desc)
                    } else {
                        mma_m64n128k32_e4m3_a_regs(&mut partial, a[kk], b_desc)
                    }
                };
            });
            wgmma::commit_group();
            wgmma::wait_group::<0>();
            // The promotion, as w15's.
            hopper::promote(acc, half * M64N128_ACC, &partial);
        });
        release(s);
        state.advance();
    }
}

trimmed_gemm_for!(W16, |consumer, state, k_tiles, acc, release| mma_k_tiles_a_registers(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w16_fp8_a_registers_e4m3
);

// A k32 step is two 16-byte chunks of each row, the two column halves of ldmatrix's matrices.
const _: () = assert!(w16::BN == 2 * PARTIAL_COLUMNS && 2 * CHUNK_BYTES == 32);
