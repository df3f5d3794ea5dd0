//! The GEMM ladder as data: one entry per kernel, saying how to launch it.

use common::gemm::{TILE, g04, g05, g06};

/// How a kernel maps its grid onto C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridMap {
    /// x over rows of C (g01's uncoalesced mapping), tiles of `tile_m × tile_n`.
    RowsOnX,
    /// x over columns of C, y over rows.
    ColumnsOnX,
}

/// One kernel of the ladder.
#[derive(Clone, Copy, Debug)]
pub struct GemmKernel {
    /// Stable name on the command line and in reports; the PTX symbol.
    pub id: &'static str,
    /// The step's idea in a few words.
    pub summary: &'static str,
    /// Threads per block, (x, y).
    pub block: (u32, u32),
    /// The C tile one block computes, (rows, columns).
    pub tile: (u32, u32),
    pub grid_map: GridMap,
}

impl GemmKernel {
    /// The grid that covers an `m × n` C.
    pub fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        let (rows, cols) = (m.div_ceil(self.tile.0), n.div_ceil(self.tile.1));
        match self.grid_map {
            GridMap::RowsOnX => (rows, cols),
            GridMap::ColumnsOnX => (cols, rows),
        }
    }
}

/// Every FP32 GEMM kernel, in ladder order.
pub const GEMM_KERNELS: &[GemmKernel] = &[
    GemmKernel {
        id: "g01_naive",
        summary: "one thread per output, rows on x",
        block: (TILE, TILE),
        tile: (TILE, TILE),
        grid_map: GridMap::RowsOnX,
    },
    GemmKernel {
        id: "g02_coalesced",
        summary: "columns on x: coalesced B and C",
        block: (TILE, TILE),
        tile: (TILE, TILE),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g03_shared_tiles",
        summary: "32 × 32 tiles in shared memory",
        block: (TILE, TILE),
        tile: (TILE, TILE),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g04_register_1d",
        summary: "8 outputs per thread (1-D register tile)",
        block: (g04::THREADS, 1),
        tile: (g04::BM, g04::BN),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g05_register_2d",
        summary: "8 × 8 outputs per thread (2-D register tile)",
        block: (g05::THREADS, 1),
        tile: (g05::BM, g05::BN),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g06_vectorized",
        summary: "16-byte loads, A transposed in shared memory",
        block: (g06::THREADS, 1),
        tile: (g06::BM, g06::BN),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g07_bank_conflict_free",
        summary: "padded A tile, split B columns: no bank conflicts",
        block: (g06::THREADS, 1),
        tile: (g06::BM, g06::BN),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g08_double_buffer",
        summary: "double-buffered tiles, B by cp.async",
        block: (g06::THREADS, 1),
        tile: (g06::BM, g06::BN),
        grid_map: GridMap::ColumnsOnX,
    },
    GemmKernel {
        id: "g09_warp_tiling",
        summary: "32 × 64 piece per warp (block → warp → thread)",
        block: (g06::THREADS, 1),
        tile: (g06::BM, g06::BN),
        grid_map: GridMap::ColumnsOnX,
    },
];

/// The kernels whose id starts with any of `patterns` (all of them for an empty list).
pub fn select(patterns: &[String]) -> Vec<&'static GemmKernel> {
    GEMM_KERNELS.iter().filter(|k| patterns.is_empty() || patterns.iter().any(|p| k.id.starts_with(p.as_str()))).collect()
}
