//! Probe p2 — shared-memory bank conflicts.
//!
//! Shared memory is 32 banks, each 4 bytes wide; word `w` lives in bank `w mod 32`. A
//! warp's access is served in one pass when its lanes touch distinct banks (or the same
//! word: a broadcast); lanes that need different words of one bank wait for one pass each.
//! Here lane `l` reads element `l·S` of an array of 2-, 4- or 8-byte elements, over and
//! over, so the time per read is the number of passes the pattern needs:
//! - 4-byte elements: stride 1 is conflict-free, stride 2 puts two lanes in each used bank
//!   (2-way), stride 4 4-way, …, stride 32 all lanes in bank 0 (32-way);
//! - 2-byte elements: stride 1 and 2 are free (two lanes share a word, which is a
//!   broadcast), stride 4 is 2-way, … 16-way at 32;
//! - 8-byte elements: a warp's 256 bytes take two passes even at stride 1; stride 2 is
//!   2-way per pass, … 16-way at 32.
//! The host prints beside each measurement the conflict degree this bank model predicts
//! (`host::probes::bank_model`, tested on the CPU).
//!
//! The loads are explicit `ld.volatile.shared`: each lane reads the same element every
//! time, and a plain `ld.shared` lets ptxas keep the first value and drop the rest (the
//! first run of this probe measured 61 TB/s at every stride for exactly that reason).
//!
//! Measured (H200, 2026-11-22, all 132 SMs): 4-byte reads at stride 1 deliver 32.4 TB/s,
//! 97 % of 128 bytes per clock per SM at 1.98 GHz; each doubling of the stride halves it,
//! down to 1.04 TB/s at stride 32, the 31× the model predicts. 2-byte reads: 16.2 TB/s at
//! strides 1 and 2 (half the bytes per pass), then halving; 8-byte: 33.0 TB/s at stride 1,
//! 16-way (2.09 TB/s) at both 16 and 32. Every measured slowdown is within 3 % of the
//! predicted ways. Seed 001's table has the same shape at a quarter of the scale (its
//! older GPU: fewer SMs, lower clock).

use crate::device::index::{block_dim, global_thread_idx, lane_idx, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_threads;
use common::probes::{BANK_PROBE_SHARED_BYTES, BANK_PROBE_UNROLL, bank_probe_word};
use kernel_macros::kernel;

/// Fills the probe's shared array with `bank_probe_word(w)` at word `w`.
///
/// # Safety
/// Called by every thread of the block; the launch gives `BANK_PROBE_SHARED_BYTES` of
/// dynamic shared memory.
#[inline(always)]
unsafe fn fill(words: SharedArray<u32>) {
    let mut w = thread_idx();
    while w < BANK_PROBE_SHARED_BYTES / 4 {
        // SAFETY: w < the array's length in words.
        unsafe { words.store(w, bank_probe_word(w)) };
        w += block_dim();
    }
    sync_threads();
}

macro_rules! shared_read_kernel {
    ($name:ident, $elem:ty, $bytes:literal) => {
        #[doc = concat!("Each lane reads its ", $bytes, "-byte element `lane · stride` `reps` times; ")]
        /// `out[thread]` is the wrapping sum of what it read.
        ///
        /// # Safety
        /// `out` holds one `u64` per thread of the grid; `stride <= 32`; `reps` is a multiple of
        /// `BANK_PROBE_UNROLL`; the launch gives `BANK_PROBE_SHARED_BYTES` of dynamic shared
        /// memory.
        #[kernel]
        pub unsafe fn $name(out: *mut u64, stride: u32, reps: u32) {
            // SAFETY: the launch shape the caller guarantees.
            unsafe { fill(dynamic_shared::<u32>()) };
            let elements = dynamic_shared::<$elem>();
            let index = lane_idx() * stride;
            let mut sum = 0u64;
            for _ in 0..reps / BANK_PROBE_UNROLL {
                for _ in 0..BANK_PROBE_UNROLL {
                    // SAFETY: lane · stride · bytes <= 31 · 32 · 8 < BANK_PROBE_SHARED_BYTES.
                    sum = sum.wrapping_add(unsafe { elements.load_volatile(index) } as u64);
                }
            }
            // SAFETY: one slot per thread.
            unsafe { *out.add(global_thread_idx()) = sum };
        }
    };
}

shared_read_kernel!(shared_read_b16, u16, "2");
shared_read_kernel!(shared_read_b32, u32, "4");
shared_read_kernel!(shared_read_b64, u64, "8");
