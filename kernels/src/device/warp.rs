//! Warp shuffles: lanes of one warp read each other's registers directly, with no shared
//! memory and no barrier (`shfl.sync`, sm_70+; the `.sync` form names the lanes taking
//! part and waits for them).
//!
//! Each wrapper moves one 32-bit value. In `shfl.sync.MODE.b32 d, a, b, c, mask;` the `c`
//! operand packs the segment mask and clamp value; `0x1f` means "the whole warp is one
//! segment, clamp lane indices at 31", the right value for down, bfly and idx.
//!
//! All lanes named in `mask` must execute the same call (see [`crate::device`] on
//! convergence).

use core::arch::asm;

/// `shfl.sync.down.b32 d, v, delta, 0x1f, mask;` returns `v` from lane `lane + delta`; lanes
/// whose source would be past lane 31 get their own `v` back. Repeated with delta 16, 8,
/// 4, 2, 1 it folds a warp's values into lane 0 (a tree reduction without shared memory).
#[inline(always)]
pub fn shuffle_down_i32(mask: u32, value: i32, delta: u32) -> i32 {
    let out: i32;
    // SAFETY: a register-to-register exchange; callers keep all lanes of `mask` converged.
    unsafe {
        asm!("shfl.sync.down.b32 {o}, {v}, {d}, 0x1f, {m};",
             o = out(reg32) out, v = in(reg32) value, d = in(reg32) delta, m = in(reg32) mask,
             options(nostack, nomem))
    };
    out
}

/// `shfl.sync.bfly.b32 d, v, lanemask, 0x1f, mask;` returns `v` from lane
/// `lane ^ lanemask`. Repeated with lanemask 16, 8, 4, 2, 1 it is a butterfly reduction:
/// afterwards *every* lane holds the total, not only lane 0.
#[inline(always)]
pub fn shuffle_xor_i32(mask: u32, value: i32, lane_mask: u32) -> i32 {
    let out: i32;
    // SAFETY: a register-to-register exchange; callers keep all lanes of `mask` converged.
    unsafe {
        asm!("shfl.sync.bfly.b32 {o}, {v}, {l}, 0x1f, {m};",
             o = out(reg32) out, v = in(reg32) value, l = in(reg32) lane_mask, m = in(reg32) mask,
             options(nostack, nomem))
    };
    out
}

/// `shfl.sync.idx.b32 d, v, src, 0x1f, mask;` returns `v` from lane `src`: a broadcast of
/// one lane's value to the warp.
#[inline(always)]
pub fn shuffle_idx_u32(mask: u32, value: u32, src_lane: u32) -> u32 {
    let out: u32;
    // SAFETY: a register-to-register exchange; callers keep all lanes of `mask` converged.
    unsafe {
        asm!("shfl.sync.idx.b32 {o}, {v}, {s}, 0x1f, {m};",
             o = out(reg32) out, v = in(reg32) value, s = in(reg32) src_lane, m = in(reg32) mask,
             options(nostack, nomem))
    };
    out
}
