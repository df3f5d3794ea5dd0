//! A thread's `ITEMS` consecutive elements, from s05 on: loaded 16 bytes at a time, summed,
//! scanned and stored from registers.

use super::Element;
use crate::device::index::thread_idx;
use crate::device::load::{I32x4, load_streaming_v4, prefetch_l2, store_streaming_v4};
use common::scan::s05::ITEMS;

/// Elements per thread, as an array length.
pub const N: usize = ITEMS as usize;

/// The thread's elements `first..first + ITEMS` of `input[0..n]`, zero past `n`: four
/// 16-byte loads (`ld.global.cs.v4`) when all lie below `n`, else one by one.
///
/// # Safety
/// `input` is 16-byte aligned and holds `n` elements; `first` is a multiple of 4; nothing
/// but this thread writes those elements while the kernel runs (in place, the thread itself
/// writes them after loading).
#[inline(always)]
pub unsafe fn load<E: Element>(input: *const u32, n: usize, first: usize) -> [E; N] {
    let mut items = [E::ZERO; N];
    if first + N <= n {
        let units = input.wrapping_add(first) as *const I32x4;
        for u in 0..N / 4 {
            // SAFETY: the unit lies below n and is 16-byte aligned.
            let v = unsafe { load_streaming_v4(units.add(u)) }.0;
            for k in 0..4 {
                items[4 * u + k] = E::from_bits(v[k] as u32);
            }
        }
    } else {
        // The elements left below n, and one base address: each element is then an offset
        // from it (no index per element kept alive until the store).
        let left = n.saturating_sub(first);
        let base = input.wrapping_add(first);
        for (k, item) in items.iter_mut().enumerate() {
            if k < left {
                // SAFETY: first + k < n.
                *item = E::from_bits(unsafe { *base.add(k) });
            }
        }
    }
    items
}

/// Elements of one 128-byte line.
const LINE: usize = 32;

/// Asks L2 for the lines of the `len` elements that start at element `start` of
/// `input[0..n]` (those below n): one `prefetch.global.L2` per line, by the block's first
/// `len / 32` threads (the block has at least that many). Nothing waits for them.
///
/// # Safety
/// `input` holds `n` elements.
#[inline(always)]
pub unsafe fn prefetch(input: *const u32, n: usize, start: usize, len: usize) {
    let line = start + thread_idx() as usize * LINE;
    if (thread_idx() as usize * LINE) < len && line < n {
        // SAFETY: line < n.
        unsafe { prefetch_l2(input.add(line)) };
    }
}

/// The sum of the thread's elements, left to right.
#[inline(always)]
pub fn sum<E: Element>(items: &[E; N]) -> E {
    items.iter().fold(E::ZERO, |acc, &x| acc.add(x))
}

/// The thread's outputs given the sum of everything before its first element: each
/// element's inclusive sum, or its exclusive one.
#[inline(always)]
pub fn scan<E: Element>(items: &[E; N], before: E, exclusive: bool) -> [E; N] {
    let mut running = before;
    let mut out = [E::ZERO; N];
    for k in 0..N {
        let next = running.add(items[k]);
        out[k] = if exclusive { running } else { next };
        running = next;
    }
    out
}

/// Stores the thread's outputs at `first..first + ITEMS` of `output[0..n]`, those below `n`:
/// four 16-byte streaming stores when all are, else one by one.
///
/// # Safety
/// `output` is 16-byte aligned and holds `n` elements; `first` is a multiple of 4; no other
/// thread accesses those elements while the kernel runs.
#[inline(always)]
pub unsafe fn store<E: Element>(output: *mut u32, n: usize, first: usize, values: &[E; N]) {
    if first + N <= n {
        let units = output.wrapping_add(first) as *mut I32x4;
        for u in 0..N / 4 {
            let v = [0, 1, 2, 3].map(|k| values[4 * u + k].to_bits() as i32);
            // SAFETY: the unit lies below n and is 16-byte aligned.
            unsafe { store_streaming_v4(units.add(u), I32x4(v)) };
        }
    } else {
        let left = n.saturating_sub(first);
        let base = output.wrapping_add(first);
        for (k, value) in values.iter().enumerate() {
            if k < left {
                // SAFETY: first + k < n.
                unsafe { *base.add(k) = value.to_bits() };
            }
        }
    }
}
