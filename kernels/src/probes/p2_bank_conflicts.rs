//! Probe p2 — shared-memory bank conflicts.
//!
//! Shows: shared memory is 32 banks, each 4 bytes wide (word `w` in bank `w mod 32`): a warp's
//!       access takes one pass when its lanes touch distinct banks or the same word, and one
//!       pass more for each further word that lanes need from one bank.
//! How: lane `l` reads element `l·S` of an array of 2-, 4- or 8-byte elements over and over, on
//!       every SM, so the time per read is the number of passes the pattern needs; beside each
//!       measurement the host prints the passes the bank model predicts (tested on the CPU).
//! Result: 4-byte reads 32.4 TB/s at stride 1, 31× slower at 32 (the model: 32×); H200, 2026-11-22.
//!
//! The model's cases:
//! - 4-byte elements: stride 1 is conflict-free, stride 2 puts two lanes in each used bank
//!   (2-way), stride 4 4-way, …, stride 32 all lanes in bank 0 (32-way);
//! - 2-byte elements: stride 1 and 2 are free (two lanes share a word, which is a broadcast),
//!   stride 4 is 2-way, … 16-way at 32;
//! - 8-byte elements: a warp's 256 bytes take two passes even at stride 1; stride 2 is 2-way per
//!   pass, … 16-way at 32.
//!
//! The loads are explicit `ld.volatile.shared`: each lane reads the same element every time,
//! and a plain `ld.shared` lets ptxas keep the first value and drop the rest.
//!
//! More: docs/lessons.md#p2

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
