//! The GEMM steps' shapes, which the kernels (on the GPU) and the host (which sizes grids,
//! blocks, shared memory and workspaces from them) must agree on: one module per step,
//! named after it, each built from its predecessor's; the grouped tile walk of the
//! persistent steps; and the stream-K schedule ([`stream_k`]).

pub mod stream_k;

/// Output tile side of the one-element-per-thread steps (g01–g03): 32 × 32 threads.
pub const TILE: u32 = 32;

/// g04 (1-D register blocking): a block computes `BM × BN` outputs, each thread `TM` of
/// them in one column, stepping through K `BK` at a time.
pub mod g04 {
    pub const BM: u32 = 64;
    pub const BN: u32 = 64;
    pub const BK: u32 = 8;
    pub const TM: u32 = 8;
    pub const THREADS: u32 = BM * BN / TM;
}

/// g05 (2-D register blocking): a block computes `BM × BN` outputs, each thread a `TM × TN`
/// sub-tile, stepping through K `BK` at a time.
pub mod g05 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 8;
    pub const TM: u32 = 8;
    pub const TN: u32 = 8;
    pub const THREADS: u32 = BM * BN / (TM * TN);
}

/// g06 (16-byte loads, transposed A): the tile shape of g05.
pub mod g06 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 8;
    pub const TM: u32 = 8;
    pub const TN: u32 = 8;
    pub const THREADS: u32 = BM * BN / (TM * TN);
}

/// g07 (no bank conflicts): g06's tiles, with A's transposed tile padded.
pub mod g07 {
    pub use super::g06::{BK, BM, BN, THREADS, TM, TN};
    /// Floats of padding after each k-row of the transposed A tile.
    pub const A_PAD: u32 = 4;
}

/// g08 (double buffering): g07's tiles and padding, two copies of each.
pub mod g08 {
    pub use super::g07::{A_PAD, BK, BM, BN, THREADS, TM, TN};
}

/// g09 (warp tiling): g08's block tile, cut into a 32 × 64 piece per warp.
pub mod g09 {
    pub use super::g08::{A_PAD, BK, BM, BN, THREADS, TM, TN};
}

/// g10 (fewer instructions per FMA): a 128 × 128 block tile of 4 warps (64 × 64 each), a
/// 16 × 8 sub-tile per thread, k tiles of 16; g07's padded A tile.
pub mod g10 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 16;
    pub const TM: u32 = 16;
    pub const TN: u32 = 8;
    pub const THREADS: u32 = BM * BN / (TM * TN);
    pub use super::g07::A_PAD;
}

/// g11 (split-K): g10's block, tiles and thread tile, with each tile's k tiles cut into
/// contiguous slices, one block per slice (grid z). Every block leaves its partial tile
/// in a workspace; the last slice of a tile to finish adds them up and stores C.
pub mod g11 {
    pub use super::g10::{A_PAD, BK, BM, BN, THREADS, TM, TN};
    /// f32 of one block's partial tile in the workspace.
    pub const PARTIAL_FLOATS: u32 = BM * BN;
    /// The k tiles `begin..end` of slice `slice` of `slices` (`slices` ≤ [`MAX_SLICES`]), when a
    /// tile's k extent is `k_tiles` tiles: contiguous, in order, and as even as integers
    /// allow (lengths differ by at most one; a slice may be empty when `k_tiles < slices`).
    pub const fn k_tile_range(k_tiles: u32, slices: u32, slice: u32) -> (u32, u32) {
        // k_tiles < 2^28 (K < 2^32, 16 per tile), so slice · k_tiles < 2^32.
        (slice * k_tiles / slices, (slice + 1) * k_tiles / slices)
    }
    /// The most slices per tile.
    pub const MAX_SLICES: u32 = 16;
    /// The fewest k tiles a slice gets when K is cut (64 k values): below that, a block's
    /// pipeline start and its share of the sum cost more than its slice's work.
    pub const MIN_SLICE_K_TILES: u32 = 4;
    /// How many slices to cut each tile's K into, for a grid of `tiles` tiles of depth `k`
    /// on a GPU that holds `resident` blocks at once: as many as still fit in one wave, at
    /// most [`MAX_SLICES`] and with at least [`MIN_SLICE_K_TILES`] k tiles each; 1 (no
    /// split: g10 with one extra branch) when the tiles alone fill a wave. At 1024³ on 132
    /// SMs (64 tiles, 264 blocks at once): 4 slices, 256 blocks.
    pub const fn slices(tiles: u32, k: u32, resident: u32) -> u32 {
        // No tiles: no wave to fill (and no division by zero).
        let by_wave = match resident.checked_div(tiles) {
            Some(blocks) => blocks,
            None => 1,
        };
        let by_depth = k.div_ceil(BK) / MIN_SLICE_K_TILES;
        let s = if by_wave < by_depth { by_wave } else { by_depth };
        if s > MAX_SLICES {
            MAX_SLICES
        } else if s < 1 {
            1
        } else {
            s
        }
    }
    /// The workspace a launch of `blocks` blocks needs, in bytes: a partial tile per block,
    /// then a 4-byte arrival counter per block (one per tile is used; zero between launches:
    /// the last slice of each tile resets its counter).
    pub const fn workspace_bytes(blocks: u32) -> u64 {
        blocks as u64 * (PARTIAL_FLOATS as u64 * 4 + 4)
    }
}

/// t01 (tensor cores, `mma.sync` from shared memory): a 64 × 64 block tile, 4 warps of
/// 32 × 32, k steps of 16.
pub mod t01 {
    pub const BM: u32 = 64;
    pub const BN: u32 = 64;
    pub const BK: u32 = 16;
    pub const THREADS: u32 = 128;
}

/// t02 (`ldmatrix`, swizzled tiles): a 128 × 128 block tile of 8 warps (2 × 4, each 64 × 32),
/// k steps of 32; A, B and N, K rows read 16 bytes at a time.
pub mod t02 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 32;
    pub const THREADS: u32 = 256;
    /// K and N must be multiples of this (16-byte rows of 16-bit values).
    pub const ALIGN: u32 = 8;
}

/// t03 (multi-stage `cp.async` pipeline): t02's tiles, `STAGES` k tiles in flight.
pub mod t03 {
    pub use super::t02::{ALIGN, BK, BM, BN, THREADS};
    pub const STAGES: u32 = 3;
}

/// t04 (larger warp tiles): t03's 128 × 128 × 32 block tile and pipeline, but 4 warps of
/// 64 × 64 each.
pub mod t04 {
    pub use super::t03::{ALIGN, BK, BM, BN, STAGES};
    pub const THREADS: u32 = 128;
}

/// t05 (fragments double-buffered in registers): t04's block tile and warps, one more stage
/// (the wait for the next k tile moves a k16 step earlier), in dynamic shared memory.
pub mod t05 {
    pub use super::t04::{ALIGN, BK, BM, BN, THREADS};
    pub const STAGES: u32 = 4;
    /// Bytes of one stage: a BM × BK tile of A and a BK × BN tile of B, 16-bit values.
    pub const STAGE_BYTES: u32 = (BM * BK + BK * BN) * 2;
    /// Dynamic shared memory per block, 64 KB: above the 48 KB a kernel gets without asking
    /// (the host raises its limit), within what every GPU since Ampere allows a block (99 KB
    /// on the smallest), and two blocks per SM on an A100 or a Hopper.
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES;
}

/// w01 (Hopper `wgmma`, sm_90a): a 128 × 256 block tile of two warpgroups (each 64 × 256),
/// k tiles of 64, `STAGES` of them in dynamic shared memory.
pub mod w01 {
    pub use super::t02::ALIGN;
    pub const BM: u32 = 128;
    pub const BN: u32 = 256;
    pub const BK: u32 = 64;
    pub const THREADS: u32 = 256;
    pub const STAGES: u32 = 4;
    /// Bytes of one stage: a BM × BK tile of A and a BK × BN tile of B, 16-bit values.
    pub const STAGE_BYTES: u32 = (BM * BK + BK * BN) * 2;
    /// The swizzled tiles must start on a 1024-byte boundary (an 8 × 128-byte swizzle
    /// atom); the kernel rounds the dynamic shared base up, so it asks for this much more.
    pub const ALIGN_SLACK: u32 = 1024;
    /// Dynamic shared memory per block (above the default 48 KB limit: the host raises
    /// the kernel's limit before launch).
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + ALIGN_SLACK;
}

/// w02 (TMA copies, `mbarrier` pipeline, a producer warp; sm_90a): w01's tiles and stages,
/// loaded by the copy engine from tensor maps the host encodes.
pub mod w02 {
    pub use super::w01::{ALIGN, ALIGN_SLACK, BK, BM, BN, STAGE_BYTES, STAGES};
    /// Two consumer warpgroups and one producer warp.
    pub const CONSUMER_WARPGROUPS: u32 = 2;
    pub const THREADS: u32 = CONSUMER_WARPGROUPS * 128 + 32;
    /// The box one tensor copy moves, (contiguous extent, rows): one 128-byte swizzle row
    /// of 64 16-bit values wide. A's tile is one box of BM rows; B's tile is BN / 64 boxes
    /// of BK rows.
    pub const A_BOX: (u32, u32) = (64, BM);
    pub const B_BOX: (u32, u32) = (64, BK);
    /// Bytes of the `mbarrier`s after the stages: a "full" and an "empty" one per stage.
    pub const BARRIER_BYTES: u32 = 2 * STAGES * 8;
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + BARRIER_BYTES + ALIGN_SLACK;
}

/// w03 (a persistent grid; sm_90a): w02's block, tiles, stages and tensor maps, but as many
/// blocks as fit on the GPU at once, each walking output tiles in a grouped order.
pub mod w03 {
    pub use super::w02::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Tile rows in one group of the walk: the blocks running at one time cover a band of
    /// `GROUP_ROWS` tile rows and a few tile columns, so that A's and B's tiles are fetched
    /// from DRAM about once per band and then served from L2.
    pub const GROUP_ROWS: u32 = 16;
}

/// w04 (clusters of two with TMA multicast; sm_90a): w03, with blocks paired along M in
/// clusters; the pair shares B's tile, each block fetching half of it for both.
pub mod w04 {
    pub use super::w02::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Blocks per cluster, stacked along M: the pair computes a 256 × 256 piece of C.
    pub const CLUSTER_M: u32 = 2;
    /// Pair rows (of `CLUSTER_M` tile rows each) in one group of the walk (w03's 16 tile
    /// rows).
    pub const GROUP_ROWS: u32 = 8;
}

/// Which output tile (row, column of tiles) is `unit` in a grouped walk over a
/// `rows × cols` grid of tiles: bands of `group` tile rows, each band walked column by
/// column, so that consecutive units (the blocks that run at one time) share rows of A
/// and columns of B. The last band may be shorter.
pub const fn grouped_tile(unit: u32, rows: u32, cols: u32, group: u32) -> (u32, u32) {
    let per_band = group * cols;
    let band = unit / per_band;
    let first = band * group;
    let height = if rows - first < group { rows - first } else { group };
    let within = unit - band * per_band;
    (first + within % height, within / height)
}

/// w05 (the epilogue through shared memory and TMA stores; sm_90a): w04, with each consumer
/// warpgroup's 64 × 256 piece of C staged in shared memory one 64 × 32 box at a time and
/// stored by the copy engine from a third tensor map, of C.
pub mod w05 {
    pub use super::w02::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BARRIER_BYTES, BK, BM, BN, CONSUMER_WARPGROUPS, STAGE_BYTES,
        STAGES, THREADS,
    };
    pub use super::w04::{CLUSTER_M, GROUP_ROWS};
    /// The box one TMA store writes, (contiguous extent, rows): 32 f32 (one 128-byte
    /// swizzle row) × the 64 rows of a consumer warpgroup.
    pub const C_BOX: (u32, u32) = (32, 64);
    pub const C_BOX_BYTES: u32 = C_BOX.0 * C_BOX.1 * 4;
    /// Staging boxes per consumer warpgroup: one is written while the other is stored.
    pub const C_BUFFERS: u32 = 2;
    pub const C_STAGING_BYTES: u32 = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    /// The stages, then the staging boxes, then the barriers: 225 KB of the 227 KB a Hopper
    /// block may have.
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + C_STAGING_BYTES + BARRIER_BYTES + ALIGN_SLACK;
}

/// w06 (register reallocation; sm_90a): w05 with a whole producer warpgroup, which hands
/// most of its registers to the two consumer warpgroups (`setmaxnreg`).
pub mod w06 {
    pub use super::w05::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES,
        CLUSTER_M, CONSUMER_WARPGROUPS, GROUP_ROWS, SHARED_BYTES, STAGE_BYTES, STAGES,
    };
    /// Two consumer warpgroups and a producer warpgroup (one thread of which issues the
    /// copies): whole warpgroups, as `setmaxnreg` needs.
    pub const THREADS: u32 = (CONSUMER_WARPGROUPS + 1) * 128;
    /// Registers per thread after the reallocation: the block starts with 65536 / 384 =
    /// 168 (rounded down to 8) for everyone; the producer keeps 40 and the consumers take
    /// 232 (2 · 128 · 232 + 128 · 40 = 64512 ≤ 65536).
    pub const PRODUCER_REGISTERS: u32 = 40;
    pub const CONSUMER_REGISTERS: u32 = 232;
    const _: () = assert!(
        CONSUMER_WARPGROUPS * 128 * CONSUMER_REGISTERS + 128 * PRODUCER_REGISTERS <= 65536
            && PRODUCER_REGISTERS.is_multiple_of(8)
            && CONSUMER_REGISTERS.is_multiple_of(8)
    );
}

/// w07 (stream-K; sm_90a): w06, with the work that does not fill a last whole wave of
/// units split evenly along K over all clusters.
pub mod w07 {
    pub use super::w06::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES,
        CLUSTER_M, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, SHARED_BYTES,
        STAGE_BYTES, STAGES, THREADS,
    };
    /// At most this many clusters share one unit's k tiles: each extra one adds a partial
    /// tile (128 KB per block) that the unit's owner reads back and adds.
    pub const MAX_SPLIT: u32 = 4;
    /// f32 per block in the workspace: one partial 128 × 256 tile.
    pub const PARTIAL_FLOATS: u32 = BM * BN;
    /// The workspace a launch of `blocks` blocks needs, in bytes: a partial tile per block,
    /// then a 4-byte flag per block (zero between launches: the kernel resets each flag it
    /// reads).
    pub const fn workspace_bytes(blocks: u32) -> u64 {
        blocks as u64 * (PARTIAL_FLOATS as u64 * 4 + 4)
    }
}

/// w11 (stream-K with the clusters in step; sm_90a): w07's tiles, block and workspace.
pub mod w11 {
    pub use super::w07::*;
}

/// w12 (the partial tiles' round trips off the consumers' path; sm_90a): w11's tiles,
/// block and workspace.
pub mod w12 {
    pub use super::w07::*;
}

/// w13 (the stream-K share first; sm_90a): w12's tiles, block and workspace.
pub mod w13 {
    pub use super::w07::*;
}

/// w08 (the start and the end of a launch trimmed; sm_90a): w06's tiles and block.
pub mod w08 {
    pub use super::w06::*;
}

/// w14 (FP8 inputs; sm_90a): w08's kernel on e4m3 A and B through `wgmma` m64n256k32. 8-bit
/// `wgmma` reads both operands K-major, so B comes as Bᵀ (N × K, row-major: each row one
/// column of B). A k tile is 128 k values, the same 128-byte swizzle rows as w08's 64, so
/// its stages hold the same bytes (A 16 KB, B 32 KB) and the block the same shared memory.
pub mod w14 {
    pub use super::w06::{
        ALIGN, ALIGN_SLACK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
        CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, SHARED_BYTES, STAGES,
        THREADS,
    };
    pub const BK: u32 = 128;
    /// A's box: 128 k values (one 128-byte swizzle row) × the tile's rows.
    pub const A_BOX: (u32, u32) = (BK, BM);
    /// B's box, of Bᵀ: 128 k values × 128 columns of B; each block of a cluster pair copies
    /// one and multicasts it to both.
    pub const B_BOX: (u32, u32) = (BK, BN / CLUSTER_M);
    pub const STAGE_BYTES: u32 = BM * BK + BN * BK;
    const _: () = assert!(STAGE_BYTES == super::w06::STAGE_BYTES);
}

/// w15 (FP8 sums promoted into f32; sm_90a): w14's tiles, boxes, stages and block. Each k
/// tile's products are summed by the tensor cores into a fresh partial tile, then added into
/// the f32 accumulators, half the tile's columns at a time so that both fit in registers.
pub mod w15 {
    pub use super::w14::*;
    /// The columns of one partial sum: half the tile's, one `wgmma` m64n128k32's.
    pub const PARTIAL_COLUMNS: u32 = BN / 2;
}

/// w19 (FP8 with per-block scales; sm_90a): w15's tiles, stages and block, and DeepSeek-V3's
/// fine-grained scales: one f32 per row of A and 128 k values (1 × 128), one per 128 × 128
/// block of B. A k tile is one block of k and a partial tile's columns one block of B, so each
/// partial is scaled by one factor per row on its way into the f32 accumulators.
///
/// The scales' layouts: A's `ceil(K / 128) × M`, row-major (a k block's scales for every row
/// contiguous), B's `ceil(N / 128) × ceil(K / 128)`, row-major (B's block row by block row of
/// Bᵀ).
pub mod w19 {
    pub use super::w15::*;
    /// The k values one scale of A covers, and the k values and columns of B one scale of B
    /// covers.
    pub const SCALE_BLOCK: u32 = 128;
    const _: () = assert!(BK == SCALE_BLOCK && PARTIAL_COLUMNS == SCALE_BLOCK);

    /// The scales one consumer warp uses per k tile: its 16 rows' of A, then the tile's two
    /// column blocks' of B (one per half tile).
    pub const WARP_SCALES: u32 = 16 + 2;
    /// Each consumer warp stages its scales in shared memory one k tile ahead (`cp.async`):
    /// two slots, the k tile's and the next one's.
    pub const SCALE_SLOTS: u32 = 2;
    pub const SCALE_STAGING_BYTES: u32 = CONSUMER_WARPGROUPS * 4 * SCALE_SLOTS * WARP_SCALES * 4;
    /// w15's shared memory, then the scales' slots past the barriers.
    pub const SHARED_BYTES: u32 = super::w15::SHARED_BYTES + SCALE_STAGING_BYTES;
    const _: () = assert!(SHARED_BYTES <= 227 * 1024);

    /// The scales of an `m × n × k` product: (A's, B's) counts of f32.
    pub const fn scale_counts(m: u32, n: u32, k: u32) -> (u64, u64) {
        let k_blocks = k.div_ceil(SCALE_BLOCK) as u64;
        (k_blocks * m as u64, n.div_ceil(SCALE_BLOCK) as u64 * k_blocks)
    }
}

/// w20 (e4m3 A × e5m2 B, promoted; sm_90a): w15's tiles, stages and block; B's 8-bit values
/// are e5m2, in the same bytes.
pub mod w20 {
    pub use super::w15::*;
}

/// w21 (FP8 with a bf16 C; sm_90a): w15's tiles, stages and block; C stored as bf16 through
/// boxes of 64 columns (128 bytes of bf16 per row, as 32 f32 columns were), so the staging
/// buffers and the shared memory stay w15's and the epilogue writes half the bytes.
pub mod w21 {
    pub use super::w15::*;
    /// C's box: 64 bf16 columns (one 128-byte swizzle row) × a warpgroup's 64 rows.
    pub const C_BOX: (u32, u32) = (64, 64);
    const _: () = assert!(C_BOX_BYTES == C_BOX.0 * C_BOX.1 * 2);
}

/// w22 (FP8 promoted on a 128 × 192 tile; sm_90a): w21's kernel (e4m3, promoted, a bf16 C)
/// on a tile 192 columns wide, where the f32 accumulators (96 per consumer thread) and a
/// partial of the tile's whole width (96 more) fit the consumers' registers together, so a
/// warpgroup promotes, and waits, once per k tile instead of twice. A stage is 40 KB (A 16 KB,
/// B 24 KB); four of them, as w14 has four of 48 KB.
pub mod w22 {
    pub use super::w21::{
        ALIGN, ALIGN_SLACK, BK, BM, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
        CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, STAGES, THREADS,
    };
    pub const BN: u32 = 192;
    /// A's box: 128 k values (one 128-byte swizzle row) × the tile's rows.
    pub const A_BOX: (u32, u32) = (BK, BM);
    /// B's box, of Bᵀ: 128 k values × 96 columns of B; each block of a cluster pair copies
    /// one and multicasts it to both.
    pub const B_BOX: (u32, u32) = (BK, BN / CLUSTER_M);
    pub const STAGE_BYTES: u32 = BM * BK + BN * BK;
    pub const BARRIER_BYTES: u32 = 2 * STAGES * 8;
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + C_STAGING_BYTES + BARRIER_BYTES + ALIGN_SLACK;
    const _: () = assert!(SHARED_BYTES <= 227 * 1024);
}

/// w23 (the next k tile's barrier probed under the products; sm_90a): w22's tile, stages and
/// block; [`w23_wide`] the same probe on w21's 128 × 256 tile, [`w23_f32`] and
/// [`w23_wide_f32`] both with an f32 C.
pub mod w23 {
    pub use super::w22::*;
}

/// w23's second kernel: w21's 128 × 256 tile, stages and block (fewer, wider tiles: fewer
/// waves where the product is small).
pub mod w23_wide {
    pub use super::w21::*;
}

/// w23's third kernel: w22's 128 × 192 tile, stages and block with w15's f32 C (six boxes of
/// 32 columns per warpgroup, the bytes of w22's three bf16 ones).
pub mod w23_f32 {
    pub use super::w15::C_BOX;
    pub use super::w22::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
        CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, SHARED_BYTES, STAGE_BYTES,
        STAGES, THREADS,
    };
    const _: () = assert!(C_BOX_BYTES == C_BOX.0 * C_BOX.1 * 4);
}

/// w23's fourth kernel: w15's 128 × 256 tile, stages and block, f32 C.
pub mod w23_wide_f32 {
    pub use super::w15::*;
}

/// w24 (a tile's store under the next tile's first k tile; sm_90a): w23's tile, stages and
/// block, with a bf16 C; [`w24_f32`] with an f32 C.
pub mod w24 {
    pub use super::w23::*;
}

/// w24's second kernel: w23_f32's shape (an f32 C).
pub mod w24_f32 {
    pub use super::w23_f32::*;
}

/// w25 (an f32 C's column groups in one order; sm_90a): w24_f32's tile, stages and block;
/// [`w25_wide`] w23_wide_f32's.
pub mod w25 {
    pub use super::w24_f32::*;
}

/// w25's second kernel: w23_wide_f32's 128 × 256 tile (w15's).
pub mod w25_wide {
    pub use super::w23_wide_f32::*;
}

/// w16 (FP8 promotion with A from registers; sm_90a): w15's tiles, stages and block.
pub mod w16 {
    pub use super::w15::*;
}

/// w17 (FP8 promotion in turns; sm_90a): w15's tiles, stages and block; the two consumer
/// warpgroups issue their half tiles' `wgmma` in turns, at named barriers `TURN` and
/// `TURN + 1` (1 and 2 are the epilogue's).
pub mod w17 {
    pub use super::w15::*;
    pub const TURN: u32 = 3;
}

/// w18 (FP8 promotion with double-buffered partials; sm_90a): w15's loop on w09's 128 × 128
/// tile, where the f32 accumulators (64 per thread) and two partial tiles (64 each) fit in
/// registers together. A k tile is 128 k values as w14's; six 32 KB stages, as w09's.
pub mod w18 {
    pub use super::w09::{
        ALIGN, ALIGN_SLACK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
        CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, SHARED_BYTES, STAGES,
        THREADS,
    };
    pub const BK: u32 = 128;
    /// A's box: 128 k values (one 128-byte swizzle row) × the tile's rows.
    pub const A_BOX: (u32, u32) = (BK, BM);
    /// B's box, of Bᵀ: 128 k values × 64 columns of B; each block of a cluster pair copies
    /// one and multicasts it to both.
    pub const B_BOX: (u32, u32) = (BK, BN / CLUSTER_M);
    pub const STAGE_BYTES: u32 = BM * BK + BN * BK;
    const _: () = assert!(STAGE_BYTES == super::w09::STAGE_BYTES);
}

/// w09 (a tile for small products; sm_90a): w08 with a 128 × 128 block tile, so a product
/// has twice as many tiles, and six 32 KB stages in the shared memory that held four.
pub mod w09 {
    pub use super::w06::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
        CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, PRODUCER_REGISTERS, THREADS,
    };
    pub const BN: u32 = 128;
    pub const STAGES: u32 = 6;
    pub const STAGE_BYTES: u32 = (BM * BK + BK * BN) * 2;
    pub const BARRIER_BYTES: u32 = 2 * STAGES * 8;
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + C_STAGING_BYTES + BARRIER_BYTES + ALIGN_SLACK;
    const _: () = assert!(SHARED_BYTES <= 227 * 1024);
}

/// w10 (a narrow tile for the smallest products; sm_90a): w09 with a 64 × 128 block tile
/// (one consumer warpgroup) and eight 24 KB stages.
pub mod w10 {
    pub use super::w06::{
        ALIGN, ALIGN_SLACK, B_BOX, BK, C_BOX, C_BOX_BYTES, C_BUFFERS, CLUSTER_M, GROUP_ROWS,
    };
    pub use super::w09::BN;
    pub const BM: u32 = 64;
    /// One consumer warpgroup (its 64 rows are the tile) and the producer warpgroup.
    pub const CONSUMER_WARPGROUPS: u32 = 1;
    pub const THREADS: u32 = (CONSUMER_WARPGROUPS + 1) * 128;
    /// A's box: the tile's 64 rows, one 128-byte swizzle row of k wide.
    pub const A_BOX: (u32, u32) = (64, BM);
    pub const STAGES: u32 = 8;
    pub const STAGE_BYTES: u32 = (BM * BK + BK * BN) * 2;
    pub const C_STAGING_BYTES: u32 = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    pub const BARRIER_BYTES: u32 = 2 * STAGES * 8;
    pub const SHARED_BYTES: u32 = STAGES * STAGE_BYTES + C_STAGING_BYTES + BARRIER_BYTES + ALIGN_SLACK;
    const _: () = assert!(SHARED_BYTES <= 227 * 1024);
}
