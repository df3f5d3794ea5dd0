//! The last pass of the scan-then-propagate steps (s01–s05): each tile's elements get the
//! sum of every tile before it added in.

use super::Element;
use crate::device::index::{block_idx, thread_idx};
use crate::device::load::{I32x4, load_streaming_v4, store_streaming_v4};
use crate::scan_entry_points;
use common::scan::ADD_THREADS;

/// Adds `offsets[t]` to every element of tile `t = block_idx() + 1` of `data[0..n]`, tiles
/// being `tile` elements long (tile 0 has nothing before it and gets no block).
///
/// # Safety
/// Launched with `ADD_THREADS` threads per block and one block per tile but the first;
/// `tile` is a multiple of 4; `data` is 16-byte aligned and holds `n` elements; `offsets`
/// one per tile.
unsafe fn add_offsets<E: Element>(data: *mut u32, n: usize, offsets: *const u32, tile: u32) {
    let t = block_idx() as usize + 1;
    // SAFETY: one offset per tile.
    let offset = E::from_bits(unsafe { *offsets.add(t) });
    let base = t * tile as usize;
    let mut unit = thread_idx();
    while unit < tile / 4 {
        let i = base + 4 * unit as usize;
        if i + 4 <= n {
            let p = data.wrapping_add(i) as *mut I32x4;
            // SAFETY: the four elements lie below n, 16-byte aligned (base and i are
            // multiples of 4); this thread alone touches them.
            unsafe {
                let v = load_streaming_v4(p).0.map(|x| E::from_bits(x as u32).add(offset).to_bits() as i32);
                store_streaming_v4(p, I32x4(v));
            }
        } else {
            for j in i..n.min(i + 4) {
                // SAFETY: j < n.
                unsafe { *data.add(j) = E::from_bits(*data.add(j)).add(offset).to_bits() };
            }
        }
        unit += ADD_THREADS;
    }
}

scan_entry_points!(threads = ADD_THREADS;
    add_offsets(data: *mut u32, n: usize, offsets: *const u32, tile: u32)
    => scan_add_offsets_i32, scan_add_offsets_f32);
