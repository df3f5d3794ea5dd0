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

/// t05 (Hopper `wgmma`, sm_90a): a 128 × 256 block tile of two warpgroups (each 64 × 256),
/// k tiles of 64, `STAGES` of them in dynamic shared memory.
pub mod t05 {
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

/// t06 (TMA copies, `mbarrier` pipeline, a producer warp; sm_90a): t05's tiles and stages,
/// loaded by the copy engine from tensor maps the host encodes.
pub mod t06 {
    pub use super::t05::{ALIGN, ALIGN_SLACK, BK, BM, BN, STAGE_BYTES, STAGES};
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

/// t07 (a persistent grid; sm_90a): t06's block, tiles, stages and tensor maps, but as many
/// blocks as fit on the GPU at once, each walking output tiles in a grouped order.
pub mod t07 {
    pub use super::t06::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Tile rows in one group of the walk: the blocks running at one time cover a band of
    /// `GROUP_ROWS` tile rows and a few tile columns, so that A's and B's tiles are fetched
    /// from DRAM about once per band and then served from L2.
    pub const GROUP_ROWS: u32 = 16;
}

/// t08 (clusters of two with TMA multicast; sm_90a): t07, with blocks paired along M in
/// clusters; the pair shares B's tile, each block fetching half of it for both.
pub mod t08 {
    pub use super::t06::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, SHARED_BYTES, STAGE_BYTES, STAGES,
        THREADS,
    };
    /// Blocks per cluster, stacked along M: the pair computes a 256 × 256 piece of C.
    pub const CLUSTER_M: u32 = 2;
    /// Pair rows (of `CLUSTER_M` tile rows each) in one group of the walk (t07's 16 tile
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

/// t09 (the epilogue through shared memory and TMA stores; sm_90a): t08, with each consumer
/// warpgroup's 64 × 256 piece of C staged in shared memory one 64 × 32 box at a time and
/// stored by the copy engine from a third tensor map, of C.
pub mod t09 {
    pub use super::t06::{
        A_BOX, ALIGN, ALIGN_SLACK, B_BOX, BARRIER_BYTES, BK, BM, BN, CONSUMER_WARPGROUPS, STAGE_BYTES,
        STAGES, THREADS,
    };
    pub use super::t08::{CLUSTER_M, GROUP_ROWS};
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

/// t10 (register reallocation; sm_90a): t09 with a whole producer warpgroup, which hands
/// most of its registers to the two consumer warpgroups (`setmaxnreg`).
pub mod t10 {
    pub use super::t09::{
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

/// t11 (stream-K; sm_90a): t10, with the work that does not fill a last whole wave of
/// units split evenly along K over all clusters.
pub mod t11 {
    pub use super::t10::{
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

/// How a stream-K grid shares a GEMM's work (units of C, each `k_tiles` k tiles long)
/// among `clusters`. The first ⌊units / clusters⌋ · clusters units go whole, a unit per
/// cluster at a time (data-parallel waves); the rest, fewer than one wave, are cut along K:
/// their k tiles, laid end to end, are split evenly over `sk_clusters` clusters, so every
/// cluster finishes at about the same time instead of some running one whole unit more
/// than others. A share is never longer than a unit, so it is one piece, or the end of one
/// unit and the start of the next. A unit cut among several clusters has one *owner*; the
/// others (its *contributors*) each leave a partial tile in a workspace and raise a flag,
/// and the owner adds their partials before storing the unit. Who owns a unit, and in
/// which order a cluster runs its two pieces, is the [`ShareOrder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamK {
    pub units: u32,
    pub k_tiles: u32,
    pub clusters: u32,
    pub order: ShareOrder,
    /// Whether a cluster runs its stream-K share before its whole units (t17) rather than
    /// after them.
    pub shares_first: bool,
    /// Units computed whole in the data-parallel waves.
    pub dp_units: u32,
    /// Clusters that share the remaining units' k tiles.
    pub sk_clusters: u32,
    /// k tiles of the remaining units, end to end.
    pub sk_iterations: u64,
}

/// In what order a cluster runs the two pieces of a share that spans two units, and so
/// which cluster owns a cut unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareOrder {
    /// As the k tiles lie end to end: the end of one unit, then the start of the next. A
    /// cut unit is owned by the cluster that computes its k tile 0, which it does last
    /// (t11). Clusters start their shares at different k, so at any moment they read
    /// different k tiles of A and B, and rows and columns that neighbouring units share
    /// come from DRAM once per cluster rather than once.
    Offsets,
    /// The start of the next unit first, then the end of the first: every cluster begins
    /// at k tile 0 and, after its first piece, continues at the same distance
    /// (`k_tiles` − its share) ahead, so at any moment the clusters read the same one or
    /// two k tiles of A and B, as they do in the data-parallel waves (t15). A cut unit is
    /// owned by the cluster that computes its *last* k tile, which it does last; its
    /// contributors' pieces run first (or are their whole share).
    KAligned,
}

/// What a cluster does with one piece of its stream-K work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// All of the unit's k tiles: store it.
    Whole,
    /// Part of the unit's k tiles; clusters `first .. first + contributors` computed the
    /// rest: add their partials, then store.
    Owner { first: u32, contributors: u32 },
    /// Part of the unit's k tiles: leave a partial tile for the owner.
    Contributor,
}

/// One piece of a cluster's work: unit `unit`, k tiles `k_begin..k_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub unit: u32,
    pub k_begin: u32,
    pub k_end: u32,
    pub role: Role,
}

impl StreamK {
    /// `max_split` bounds the clusters that share one unit's k tiles.
    pub const fn new(units: u32, k_tiles: u32, clusters: u32, max_split: u32, order: ShareOrder) -> Self {
        let dp_units = units / clusters * clusters;
        let sk_units = units - dp_units;
        let split = if sk_units * max_split < clusters { sk_units * max_split } else { clusters };
        let sk_iterations = sk_units as u64 * k_tiles as u64;
        // Never more sharing clusters than k tiles to share.
        let sk_clusters = if (split as u64) < sk_iterations { split } else { sk_iterations as u32 };
        Self { units, k_tiles, clusters, order, shares_first: false, dp_units, sk_clusters, sk_iterations }
    }

    /// The same schedule with each cluster's stream-K share run first, its whole units
    /// after it. Every cluster then starts its share at the same moment, the launch, instead
    /// of when its last whole unit happens to end, so [`ShareOrder::KAligned`] keeps the
    /// clusters at the same k tiles from the first tile of the share to the last.
    pub const fn with_shares_first(self) -> Self {
        Self { shares_first: true, ..self }
    }

    /// The stream-K k tiles of cluster `c` (`c < sk_clusters`), as offsets into the
    /// remaining units' k tiles laid end to end: `start(c)..start(c + 1)`.
    pub const fn sk_start(&self, c: u32) -> u64 {
        if self.sk_clusters == 0 { 0 } else { c as u64 * self.sk_iterations / self.sk_clusters as u64 }
    }

    /// Cluster `c`'s stream-K piece starting at offset `at` (`at` is `sk_start(c)` or, for
    /// the second piece, the first piece's end), which runs to the end of its unit or of
    /// the share, whichever comes first.
    pub const fn sk_piece(&self, c: u32, at: u64) -> Piece {
        let end = self.sk_start(c + 1);
        let k_tiles = self.k_tiles as u64;
        let local = at / k_tiles;
        let k_begin = (at % k_tiles) as u32;
        let unit_start = local * k_tiles;
        let unit_end = unit_start + k_tiles;
        let k_end = if end < unit_end { (end - unit_start) as u32 } else { self.k_tiles };
        let role = if k_begin == 0 && k_end == self.k_tiles {
            Role::Whole
        } else {
            match self.order {
                ShareOrder::Offsets if k_begin == 0 => {
                    // Every later cluster whose share starts inside this unit contributes.
                    let mut contributors = 0;
                    while c + 1 + contributors < self.sk_clusters
                        && self.sk_start(c + 1 + contributors) < unit_end
                    {
                        contributors += 1;
                    }
                    Role::Owner { first: c + 1, contributors }
                }
                ShareOrder::KAligned if k_end == self.k_tiles => {
                    // Every earlier cluster whose share ends inside this unit contributes.
                    let mut first = c;
                    while first > 0 && self.sk_start(first) > unit_start {
                        first -= 1;
                    }
                    Role::Owner { first, contributors: c - first }
                }
                _ => Role::Contributor,
            }
        };
        Piece { unit: self.dp_units + local as u32, k_begin, k_end, role }
    }
}

impl StreamK {
    /// Whether cluster `c` leaves a partial tile for another cluster's unit (one of its
    /// pieces is a [`Role::Contributor`]; a cluster contributes at most once). The piece
    /// that contributes is the share's end in k order ([`ShareOrder::KAligned`]: a share
    /// that ends inside a unit) or its start ([`ShareOrder::Offsets`]: a share that
    /// starts inside one), so this is one division, for a warp that needs no more of the
    /// schedule than that.
    pub const fn contributes(&self, c: u32) -> bool {
        if c >= self.sk_clusters {
            return false;
        }
        let cut = match self.order {
            ShareOrder::Offsets => self.sk_start(c),
            ShareOrder::KAligned => self.sk_start(c + 1),
        };
        cut % self.k_tiles as u64 != 0
    }

    /// Cluster `c`'s pieces of work, in order: its whole units (`c`, `c + clusters`, …),
    /// then its stream-K share's pieces in the schedule's [`ShareOrder`] (or the share
    /// first, for a schedule [`with_shares_first`](Self::with_shares_first)). An iterator
    /// rather than a callback, so that a kernel's
    /// loop body is written (and inlined) once.
    pub const fn pieces(&self, c: u32) -> Pieces {
        let (at, end) = if c < self.sk_clusters { (self.sk_start(c), self.sk_start(c + 1)) } else { (0, 0) };
        Pieces { schedule: *self, cluster: c, unit: c, at, end }
    }
}

/// The iterator of [`StreamK::pieces`].
#[derive(Clone, Copy, Debug)]
pub struct Pieces {
    schedule: StreamK,
    cluster: u32,
    /// The next whole unit, while below `dp_units`.
    unit: u32,
    /// The next stream-K offset, and the end of the share.
    at: u64,
    end: u64,
}

impl Iterator for Pieces {
    type Item = Piece;

    #[inline(always)]
    fn next(&mut self) -> Option<Piece> {
        if self.schedule.shares_first {
            self.next_share_piece().or_else(|| self.next_whole_unit())
        } else {
            self.next_whole_unit().or_else(|| self.next_share_piece())
        }
    }
}

impl Pieces {
    #[inline(always)]
    fn next_whole_unit(&mut self) -> Option<Piece> {
        let s = &self.schedule;
        if self.unit >= s.dp_units {
            return None;
        }
        let unit = self.unit;
        self.unit += s.clusters;
        Some(Piece { unit, k_begin: 0, k_end: s.k_tiles, role: Role::Whole })
    }

    #[inline(always)]
    fn next_share_piece(&mut self) -> Option<Piece> {
        let s = &self.schedule;
        if self.at >= self.end {
            return None;
        }
        let piece = s.sk_piece(self.cluster, self.at);
        let after = self.at + (piece.k_end - piece.k_begin) as u64;
        if matches!(s.order, ShareOrder::KAligned) && after < self.end {
            // Two pieces: the second first; the share then ends where the first does, and
            // the next call returns the first.
            self.end = after;
            return Some(s.sk_piece(self.cluster, after));
        }
        self.at = after;
        Some(piece)
    }
}

/// t15 (stream-K with the clusters in step; sm_90a): t11's tiles, block and workspace.
pub mod t15 {
    pub use super::t11::*;
}

/// t16 (the partial tiles' round trips off the consumers' path; sm_90a): t15's tiles,
/// block and workspace.
pub mod t16 {
    pub use super::t11::*;
}

/// t17 (the stream-K share first; sm_90a): t16's tiles, block and workspace.
pub mod t17 {
    pub use super::t11::*;
}

/// t12 (the start and the end of a launch trimmed; sm_90a): t10's tiles and block.
pub mod t12 {
    pub use super::t10::*;
}

/// t13 (a tile for small products; sm_90a): t12 with a 128 × 128 block tile, so a product
/// has twice as many tiles, and six 32 KB stages in the shared memory that held four.
pub mod t13 {
    pub use super::t10::{
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

/// t14 (a narrow tile for the smallest products; sm_90a): t13 with a 64 × 128 block tile
/// (one consumer warpgroup) and eight 24 KB stages.
pub mod t14 {
    pub use super::t10::{
        ALIGN, ALIGN_SLACK, B_BOX, BK, C_BOX, C_BOX_BYTES, C_BUFFERS, CLUSTER_M, GROUP_ROWS,
    };
    pub use super::t13::BN;
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
