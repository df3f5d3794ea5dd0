//! What the `mma.sync` steps from t02 on share, named once: the swizzled layout of their
//! 128 × 32 A tile and 32 × 128 B tile (t02 introduces it and says why), the `cp.async` copy
//! of one 16-byte chunk into it (t03 on), and the store of a warp's accumulators into C.

use crate::device::async_copy::cp_async_16;
use crate::device::shared::SharedArray;
use crate::unroll;
use common::gemm::t02::{BK, BN};

/// 16-byte chunks per row of the A tile (BK halves) and of the B tile (BN halves).
pub const A_CHUNKS: u32 = BK / 8;
pub const B_CHUNKS: u32 = BN / 8;

/// Word index of chunk `c` of row `r` in the swizzled A tile: 64-byte rows, two to a
/// 128-byte line, the chunk XORed with the line's index so that the 8 rows one `ldmatrix`
/// matrix reads fall in 8 different 16-byte bank groups.
#[inline(always)]
pub fn a_chunk(r: u32, c: u32) -> u32 {
    (r * A_CHUNKS + (c ^ ((r / 2) % 4))) * 4
}

/// Word index of chunk `c` of row `r` in the swizzled B tile: 256-byte rows, the chunk
/// XORed with the row's index modulo 8.
#[inline(always)]
pub fn b_chunk(r: u32, c: u32) -> u32 {
    (r * B_CHUNKS + (c ^ (r % 8))) * 4
}

/// Starts the copy of eight 16-bit values of a row-major matrix with `cols` columns at
/// (`r`, `c`) to shared word `index` of `tiles` (`cp.async.cg`, 16 bytes); zeros when the
/// row is past `rows` or the chunk past `cols` (nothing is read then).
///
/// # Safety
/// `p` holds `rows × cols` values, `cols` and `c` multiples of 8 (16-byte aligned chunks);
/// `index` is a multiple of 4 inside `tiles`.
#[inline(always)]
pub unsafe fn copy_chunk(tiles: SharedArray<u32>, index: u32, p: *const u16, rows: u32, cols: u32, r: u32, c: u32) {
    let inside = r < rows && c < cols;
    let src = if inside { p.wrapping_add(r as usize * cols as usize + c as usize) } else { p };
    // SAFETY: 16 readable, aligned bytes when inside; none read otherwise.
    unsafe { cp_async_16(tiles.address(index), src, if inside { 16 } else { 0 }) };
}

/// Stores a warp's accumulators, 4 × `N8` `mma` tiles of 16 × 8 (the C layout of
/// `mma.m16n8k16`, `device::mma`), whose first row and column in C are `row`, `col`;
/// entries past M or N are skipped.
///
/// # Safety
/// `c` holds M·N `f32`.
#[inline(always)]
pub unsafe fn store_accumulators<const N8: usize>(
    c: *mut f32,
    acc: &[[[f32; 4]; N8]; 4],
    (m, n): (u32, u32),
    (row, col): (u32, u32),
    lane: u32,
) {
    let (group, in_group) = (lane / 4, lane % 4);
    unroll!(4, mi => {
        unroll!(N8, at most 8, ni => {
            let r = row + mi as u32 * 16 + group;
            let cc = col + ni as u32 * 8 + 2 * in_group;
            for (e, &(dr, dc)) in [(0, 0), (0, 1), (8, 0), (8, 1)].iter().enumerate() {
                let (rr, ccc) = (r + dr, cc + dc);
                if rr < m && ccc < n {
                    // SAFETY: rr < m, ccc < n.
                    unsafe { *c.add(rr as usize * n as usize + ccc as usize) = acc[mi][ni][e] };
                }
            }
        });
    });
}
