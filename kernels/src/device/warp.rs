//! Warp-wide exchanges: shuffles, where lanes of one warp read each other's registers
//! directly (`shfl.sync`), and votes, where the warp combines one predicate from every lane
//! (`vote.sync`); no shared memory, no barrier (sm_70+; the `.sync` forms name the lanes
//! taking part and wait for them).
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

/// [`shuffle_xor_i32`] of an `f32`'s bits: `value` from lane `lane ^ lane_mask` of the whole
/// warp (`shfl.sync.bfly.b32`, every lane taking part).
#[inline(always)]
pub fn shuffle_xor_f32(value: f32, lane_mask: u32) -> f32 {
    f32::from_bits(shuffle_xor_i32(u32::MAX, value.to_bits() as i32, lane_mask) as u32)
}

/// `shfl.sync.up.b32 d, v, delta, 0, mask;` returns `v` from lane `lane - delta`; lanes
/// below `delta` get their own `v` back. Repeated with delta 1, 2, 4, 8, 16, each lane adding
/// what it receives when `lane >= delta`, it is a warp's inclusive scan (Hillis and Steele
/// in registers).
#[inline(always)]
pub fn shuffle_up_u32(mask: u32, value: u32, delta: u32) -> u32 {
    let out: u32;
    // SAFETY: a register-to-register exchange; callers keep all lanes of `mask` converged.
    unsafe {
        asm!("shfl.sync.up.b32 {o}, {v}, {d}, 0, {m};",
             o = out(reg32) out, v = in(reg32) value, d = in(reg32) delta, m = in(reg32) mask,
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

/// `vote.sync.ballot.b32 d, p, mask;` returns a 32-bit mask with bit `l` set when lane `l`
/// passed `predicate = true`: the whole warp's view of one condition, in one instruction.
/// (The other votes, `.any` and `.all`, are the same instruction reduced to one bit.)
#[inline(always)]
pub fn ballot(mask: u32, predicate: bool) -> u32 {
    let bits: u32;
    // SAFETY: a warp vote on registers; callers keep all lanes of `mask` converged.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {b}, p, {m}; }}",
             b = out(reg32) bits, x = in(reg32) u32::from(predicate), m = in(reg32) mask,
             options(nostack, nomem))
    };
    bits
}
