//! The scan ladder as data: one entry per step, saying how its kernels make a scan. The
//! runner, the tests and the report iterate over [`SCAN_STEPS`]; adding a step is adding an
//! entry here (and its kernel file and twin).

use crate::base::ptx::Arch;
use common::scan;

/// How a step's kernels make the whole scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Each tile scanned on its own, its total written to a sums array; the sums scanned
    /// (the same kernel, exclusive, in place: recursion); then `scan_add_offsets` adds each
    /// tile's offset. Kernel: `(input, output, n, sums, exclusive)`.
    ScanThenPropagate,
    /// The tiles' sums first (`reduce`), scanned recursively, then each tile scanned from
    /// its offset (`scan`). Kernels: `(input, n, sums)` and `(input, output, n, offsets,
    /// exclusive)`.
    ReduceThenScan,
    /// One launch: tiles claimed by ticket, prefixes passed through status words. Kernel:
    /// `(input, output, n, state, exclusive, jitter)`.
    SinglePass,
    /// As `SinglePass`, by a wave of resident blocks that claim tiles until none are left
    /// (s12): the same kernel arguments; the grid is the tiles or a wave, the fewer.
    Ring,
    /// Stream compaction (i32 only) on the single-pass scan. Kernel: `(input, output, n,
    /// state, count, jitter)`.
    Compaction,
}

/// The element types a scan runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// Wrapping sums: exact in any order.
    I32,
    /// IEEE sums, checked against an f64 reference with a bound.
    F32,
}

impl ElementType {
    pub fn name(self) -> &'static str {
        match self {
            ElementType::I32 => "i32",
            ElementType::F32 => "f32",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "i32" => Some(ElementType::I32),
            "f32" => Some(ElementType::F32),
            _ => None,
        }
    }
}

/// A step's entry points for one element type, in the order of its scheme's roles.
#[derive(Clone, Copy, Debug)]
pub struct Entries {
    pub i32: &'static [&'static str],
    /// Empty when the step has no `f32` form (compaction).
    pub f32: &'static [&'static str],
}

/// One step of the ladder.
#[derive(Clone, Copy, Debug)]
pub struct ScanStep {
    /// Stable name on the command line and in the records; the kernel file's name.
    pub id: &'static str,
    /// The step's idea in a few words.
    pub summary: &'static str,
    pub scheme: Scheme,
    /// Threads per block and elements per tile (`common::scan`).
    pub threads: u32,
    pub tile: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    pub entries: Entries,
    /// The oldest PTX target that holds its entry points (sm_80; sm_90a for the steps on
    /// Hopper's bulk copies).
    pub arch: Arch,
}

/// The PTX target of the portable steps.
pub const SM80: Arch = Arch::new(80, false);

/// The PTX target of the steps that use Hopper's bulk copies and `mbarrier`s.
pub const SM90A: Arch = Arch::new(90, true);

impl ScanStep {
    /// Its entry points for `element`, or `None` when it has no form for it.
    pub fn entries(&self, element: ElementType) -> Option<&'static [&'static str]> {
        let entries = match element {
            ElementType::I32 => self.entries.i32,
            ElementType::F32 => self.entries.f32,
        };
        (!entries.is_empty()).then_some(entries)
    }

    /// Every entry point, `i32` forms first.
    pub fn symbols(&self) -> Vec<&'static str> {
        self.entries.i32.iter().chain(self.entries.f32).copied().collect()
    }

    /// Tiles over `n` elements: at least one, so that every launch has a block (a
    /// single-pass launch over nothing still writes compaction's count).
    pub fn tiles(&self, n: usize) -> usize {
        self.tiles_with(n, self.threads)
    }

    /// Tiles over `n` elements with blocks of `block` threads (the single-pass steps take
    /// their block size at launch: `block × items per thread` elements per tile).
    pub fn tiles_with(&self, n: usize, block: u32) -> usize {
        n.div_ceil(self.tile_with(block) as usize).max(1)
    }

    /// Elements per tile with blocks of `block` threads: a step that takes its block size at
    /// launch has as many elements per thread as its registry's tile; the others have their
    /// tile (s12's 8192 elements are not a multiple of its 288 threads).
    pub fn tile_with(&self, block: u32) -> u32 {
        if self.block_at_launch() { block * (self.tile / self.threads) } else { self.tile }
    }

    /// Whether the step takes its block size at launch (`--block`): the single-pass steps
    /// with a tile per thread's items (s07–s10, compaction), not s11's fixed rows.
    pub fn block_at_launch(&self) -> bool {
        matches!(self.scheme, Scheme::SinglePass | Scheme::Compaction) && self.shared_bytes == 0
    }

    /// Why it cannot run on a device of compute capability `device` that loaded the PTX for
    /// `loaded`, or `None` when it can.
    pub fn unavailable(&self, device: (u32, u32), loaded: Arch) -> Option<String> {
        crate::base::ptx::unavailable(self.id, self.arch, device, loaded)
    }

    /// The block size to launch with: the registry's, or `requested` (`--block`) for the
    /// steps that take one at launch: a power of two from 64 to the registry's.
    pub fn block_size(&self, requested: Option<u32>) -> Result<u32, String> {
        match requested {
            Some(block) if self.block_at_launch() => {
                if block.is_power_of_two() && (MIN_BLOCK..=self.threads).contains(&block) {
                    Ok(block)
                } else {
                    Err(format!(
                        "--block {block}: {} takes a power of two from {MIN_BLOCK} to {} threads",
                        self.id, self.threads
                    ))
                }
            }
            _ => Ok(self.threads),
        }
    }
}

/// The smallest block a single-pass step may be launched with (two warps: warp 0 looks back
/// while the block scan has another warp to wait for).
pub const MIN_BLOCK: u32 = 64;

/// The propagation kernels (`scan_add_offsets_*`) of the scan-then-propagate steps: not a
/// step of their own, launched by s01–s05.
pub const ADD_OFFSETS: Entries = Entries { i32: &["scan_add_offsets_i32"], f32: &["scan_add_offsets_f32"] };

/// A step with one kernel per element type, named `<id>_i32` and `<id>_f32`.
macro_rules! step {
    ($id:literal, $scheme:ident, $shape:ident, $shared:expr, $summary:literal) => {
        ScanStep {
            id: $id,
            summary: $summary,
            scheme: Scheme::$scheme,
            threads: scan::$shape::THREADS,
            tile: scan::$shape::TILE,
            shared_bytes: $shared,
            entries: Entries { i32: &[concat!($id, "_i32")], f32: &[concat!($id, "_f32")] },
            arch: SM80,
        }
    };
}

/// Every step, in ladder order.
pub const SCAN_STEPS: &[ScanStep] = &[
    step!("s01_hillis_steele", ScanThenPropagate, s01, 0, "tile scan by doubling distances in shared memory"),
    step!("s02_blelloch", ScanThenPropagate, s02, scan::s02::TILE * 4, "Blelloch's up-sweep and down-sweep"),
    step!(
        "s03_conflict_free",
        ScanThenPropagate,
        s03,
        scan::s03::PADDED * 4,
        "s02 with padding: no bank conflicts"
    ),
    step!(
        "s04_warp_shuffles",
        ScanThenPropagate,
        s04,
        0,
        "warp scans with shfl.sync.up, two barriers per tile"
    ),
    step!("s05_items_per_thread", ScanThenPropagate, s05, 0, "16 elements per thread, 16-byte loads"),
    ScanStep {
        id: "s06_reduce_then_scan",
        summary: "tile sums first, then one scan pass: 2 reads, 1 write",
        scheme: Scheme::ReduceThenScan,
        threads: scan::s06::THREADS,
        tile: scan::s06::TILE,
        shared_bytes: 0,
        entries: Entries {
            i32: &["s06_reduce_tiles_i32", "s06_scan_tiles_i32"],
            f32: &["s06_reduce_tiles_f32", "s06_scan_tiles_f32"],
        },
        arch: SM80,
    },
    step!("s07_chained", SinglePass, s07, 0, "one pass, each tile waits for its predecessor"),
    step!(
        "s08_decoupled_lookback",
        SinglePass,
        s08,
        0,
        "publish the aggregate, look back one tile at a time"
    ),
    step!("s09_warp_lookback", SinglePass, s09, 0, "a warp looks back 32 tiles at a time"),
    step!("s10_prefetch", SinglePass, s10, 0, "s09, each block prefetching a tile 256 ahead into L2"),
    ScanStep {
        id: "s11_bulk_copy",
        summary: "the tile into shared memory by one bulk copy, scanned in rows",
        scheme: Scheme::SinglePass,
        threads: scan::s11::THREADS,
        tile: scan::s11::TILE,
        shared_bytes: scan::s11::SHARED_BYTES,
        entries: Entries { i32: &["s11_bulk_copy_i32"], f32: &["s11_bulk_copy_f32"] },
        arch: SM90A,
    },
    ScanStep {
        id: "s12_producer_ring",
        summary: "a resident block per SM, a ring of six tiles, a producer warp publishing each tile's sum",
        scheme: Scheme::Ring,
        threads: scan::s12::THREADS,
        tile: scan::s12::TILE,
        shared_bytes: scan::s12::SHARED_BYTES,
        entries: Entries { i32: &["s12_producer_ring_i32"], f32: &["s12_producer_ring_f32"] },
        arch: SM90A,
    },
    ScanStep {
        id: "s13_compaction",
        summary: "stream compaction (keep x > 0) on s10's scan",
        scheme: Scheme::Compaction,
        threads: scan::s13::THREADS,
        tile: scan::s13::TILE,
        shared_bytes: 0,
        entries: Entries { i32: &["s13_compaction"], f32: &[] },
        arch: SM80,
    },
    ScanStep {
        id: "s14_staged_compaction",
        summary: "compaction on s11: warps pack their rows in shared memory, store them contiguous",
        scheme: Scheme::Compaction,
        threads: scan::s14::THREADS,
        tile: scan::s14::TILE,
        shared_bytes: scan::s14::SHARED_BYTES,
        entries: Entries { i32: &["s14_staged_compaction"], f32: &[] },
        arch: SM90A,
    },
];

/// The step called `id`.
pub fn step(id: &str) -> Option<&'static ScanStep> {
    SCAN_STEPS.iter().find(|s| s.id == id)
}
