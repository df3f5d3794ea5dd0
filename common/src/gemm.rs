//! Tile shapes of the GEMM kernels that the host needs to size grids and blocks.

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

/// g06/g07 (16-byte loads, transposed A; g07 pads A): the tile shape of g05.
pub mod g06 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 8;
    pub const TM: u32 = 8;
    pub const TN: u32 = 8;
    pub const THREADS: u32 = BM * BN / (TM * TN);
    /// Floats of padding after each k-row of g07's transposed A tile.
    pub const A_PAD: u32 = 4;
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
    pub use super::g06::A_PAD;
}

/// t1 (tensor cores, `mma.sync` from shared memory): a 64 × 64 block tile, 4 warps of
/// 32 × 32, k steps of 16.
pub mod t1 {
    pub const BM: u32 = 64;
    pub const BN: u32 = 64;
    pub const BK: u32 = 16;
    pub const THREADS: u32 = 128;
}

/// t2 (`ldmatrix`, swizzled tiles): a 128 × 128 block tile of 8 warps (2 × 4, each 64 × 32),
/// k steps of 32; A, B and N, K rows read 16 bytes at a time.
pub mod t2 {
    pub const BM: u32 = 128;
    pub const BN: u32 = 128;
    pub const BK: u32 = 32;
    pub const THREADS: u32 = 256;
    /// K and N must be multiples of this (16-byte rows of 16-bit values).
    pub const ALIGN: u32 = 8;
}

/// t3 (multi-stage `cp.async` pipeline): t2's tiles, `STAGES` k tiles in flight.
pub mod t3 {
    pub use super::t2::{ALIGN, BK, BM, BN, THREADS};
    pub const STAGES: u32 = 3;
}

/// t4 (larger warp tiles): t3's 128 × 128 × 32 block tile and pipeline, but 4 warps of
/// 64 × 64 each.
pub mod t4 {
    pub use super::t3::{ALIGN, BK, BM, BN, STAGES};
    pub const THREADS: u32 = 128;
}

/// t5 (Hopper `wgmma`, sm_90a): a 128 × 256 block tile of two warpgroups (each 64 × 256),
/// k tiles of 64, `STAGES` of them in dynamic shared memory.
pub mod t5 {
    pub use super::t2::ALIGN;
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

/// t6 (TMA copies, `mbarrier` pipeline, a producer warp; sm_90a): t5's tiles and stages,
/// loaded by the copy engine from tensor maps the host encodes.
pub mod t6 {
    pub use super::t5::{ALIGN, ALIGN_SLACK, BK, BM, BN, STAGE_BYTES, STAGES};
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

/// t7 (a persistent grid; sm_90a): t6's block, tiles, stages and tensor maps, but as many
/// blocks as fit on the GPU at once, each walking output tiles in a grouped order.
pub mod t7 {
    pub use super::t6::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Tile rows in one group of the walk: the blocks running at one time cover a band of
    /// `GROUP_ROWS` tile rows and a few tile columns, so that A's and B's tiles are fetched
    /// from DRAM about once per band and then served from L2.
    pub const GROUP_ROWS: u32 = 16;
}

/// t8 (clusters of two with TMA multicast; sm_90a): t7, with blocks paired along M in
/// clusters; the pair shares B's tile, each block fetching half of it for both.
pub mod t8 {
    pub use super::t6::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Blocks per cluster, stacked along M: the pair computes a 256 × 256 piece of C.
    pub const CLUSTER_M: u32 = 2;
    /// Pair rows (of `CLUSTER_M` tile rows each) in one group of the walk (t7's 16 tile
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

/// t9 (the epilogue through shared memory and TMA stores; sm_90a): t8, with each consumer
/// warpgroup's 64 × 256 piece of C staged in shared memory one 64 × 32 box at a time and
/// stored by the copy engine from a third tensor map, of C.
pub mod t9 {
    pub use super::t6::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BARRIER_BYTES, BK, BM, BN, CONSUMER_WARPGROUPS, STAGE_BYTES,
        STAGES, THREADS,
    };
    pub use super::t8::{CLUSTER_M, GROUP_ROWS};
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
