//! The attention steps' problem as the kernels read it: one `#[repr(C)]` struct the host
//! writes to device memory and every kernel of a step reads (`*const Dims`), so that a launch
//! passes one pointer whatever the layout, mask and grouping.

/// Where element (batch `b`, head `h`, row `s`, column `d`) of a Q, K, V or O tensor lies:
/// `b·batch + h·head + s·row + d` elements from its start (head-dim columns are contiguous in
/// both layouts the family takes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strides {
    pub batch: u64,
    pub head: u64,
    pub row: u64,
}

impl Strides {
    /// The offset of row `s` of head `h` of batch `b`.
    #[inline(always)]
    pub const fn row_offset(&self, b: u32, h: u32, s: u32) -> u64 {
        b as u64 * self.batch + h as u64 * self.head + s as u64 * self.row
    }
}

/// One forward pass's shape, mask and strides.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dims {
    pub batch: u32,
    /// Query heads.
    pub heads_q: u32,
    /// Query heads per key/value head: query head `h` reads key/value head `h / group`.
    pub group: u32,
    pub seq_q: u32,
    pub seq_k: u32,
    pub head_dim: u32,
    /// 1: query `i` sees keys `j ≤ i + seq_k − seq_q` (the causal mask aligned at the bottom
    /// right); 0: every key.
    pub causal: u32,
    /// The softmax scale (1/√head dim unless the caller says otherwise).
    pub scale: f32,
    pub q: Strides,
    pub k: Strides,
    pub v: Strides,
    pub o: Strides,
}

impl Dims {
    /// The keys query row `row` sees: `0..visible_keys(row)` (none when the mask hides all).
    #[inline(always)]
    pub const fn visible_keys(&self, row: u32) -> u32 {
        if self.causal == 0 {
            return self.seq_k;
        }
        let end = row as u64 + 1 + self.seq_k as u64;
        if end <= self.seq_q as u64 {
            0
        } else {
            let keys = end - self.seq_q as u64;
            if keys < self.seq_k as u64 { keys as u32 } else { self.seq_k }
        }
    }

    /// Rows of all (batch, query head) pairs: the scores' and the softmax's rows.
    #[inline(always)]
    pub const fn rows(&self) -> u64 {
        self.batch as u64 * self.heads_q as u64 * self.seq_q as u64
    }
}

/// a01 (three kernels, the scores in memory): threads per block of its softmax kernel, which
/// gives each row a block.
pub mod a01 {
    pub const SOFTMAX_THREADS: u32 = 256;
    /// Threads per block (x by y) of its two products, one output element per thread.
    pub const TILE_X: u32 = 32;
    pub const TILE_Y: u32 = 8;
    /// The largest head dim the host launches it with (its loops take any; the bound keeps
    /// the reference's and the tests' sizes sane).
    pub const MAX_HEAD_DIM: u32 = 512;
}

/// a02 (one fused kernel, the online softmax in f32 on CUDA cores): a warp per query row, a
/// lane per key of a tile.
pub mod a02 {
    /// Query rows per block: one per warp.
    pub const BLOCK_Q: u32 = 8;
    /// Keys per tile: one per lane.
    pub const BLOCK_K: u32 = 32;
    /// Threads per block: a warp per query row.
    pub const THREADS: u32 = BLOCK_Q * 32;
    /// The widest head the step takes (the host refuses wider): it sizes the static shared
    /// tiles and a lane's accumulators (columns `lane + 32·t`, `t < MAX_HEAD_DIM / 32`).
    pub const MAX_HEAD_DIM: u32 = 256;
}

/// a03 (FlashAttention-2 on `mma.sync`): a block takes [`block_q`] query rows of one (batch,
/// query head), each of its `WARPS` warps [`warp_rows`] of them; tiles of [`block_k`] keys and
/// values stream through `STAGES` stages of shared memory. The geometry follows the head dim:
/// at 64 and 128 one shape, at 256 a smaller one that fits the same registers and the 99 KB of
/// shared memory the GPUs of compute capability 8.6 and 8.9 give a block.
pub mod a03 {
    pub const WARPS: u32 = 4;
    pub const THREADS: u32 = WARPS * 32;
    /// Query rows per warp, 16 per `mma` row tile: 32 at head dims 64 and 128 (each K and V
    /// fragment that `ldmatrix` brings feeds both row tiles), 16 at 256, where O's accumulators
    /// alone take 128 of a lane's registers.
    pub const fn warp_rows(head_dim: u32) -> u32 {
        if head_dim <= 128 { 32 } else { 16 }
    }
    /// Query rows per block (the grid's x covers `seq_q` in steps of this).
    pub const fn block_q(head_dim: u32) -> u32 {
        WARPS * warp_rows(head_dim)
    }
    /// Keys (and value rows) per tile of the loop: 64 at head dims 64 and 128 (at 64 a tile of
    /// 128 keys halves the loop's barriers and softmax passes, but its scores take the
    /// registers that keep Q's fragments: 64 keys with Q in registers is 10 % faster, H200);
    /// 32 at 256, so that Q's tile and two stages of K and V fit in 96 KB.
    pub const fn block_k(head_dim: u32) -> u32 {
        if head_dim <= 128 { 64 } else { 32 }
    }
    /// Whether a warp keeps Q's `mma` fragments in registers for the whole key loop, or reads
    /// them again from shared memory for each key tile (as FlashAttention-2 does): kept where
    /// Q, S and O take at most 160 of a lane's registers, so that ptxas has room for the rest
    /// (at head dim 64: 32 + 64 + 64; ptxas: 255 registers, no spills on sm_90a, 8 bytes on sm_80).
    pub const fn q_in_registers(head_dim: u32) -> bool {
        let rows = warp_rows(head_dim);
        let q = rows * head_dim / 64; // 16-bit values, two a register
        let s = rows * block_k(head_dim) / 32;
        let o = rows * head_dim / 32;
        q + s + o <= 160
    }
    /// K and V tiles in shared memory at once: the next tile's copies fly during this one's
    /// math.
    pub const STAGES: u32 = 2;

    /// Dynamic shared memory per block: Q's tile, then `STAGES` stages of a K tile and a V
    /// tile, 16-bit values. 48 KB at head dim 64, 96 KB at 128 and at 256 (above 48 KB the host
    /// raises the kernel's limit).
    pub const fn shared_bytes(head_dim: u32) -> u32 {
        (block_q(head_dim) + STAGES * 2 * block_k(head_dim)) * head_dim * 2
    }
}

/// a04 (Hopper's `wgmma` for both products): the block's shape and shared memory.
pub mod a04 {
    /// Consumer warpgroups per block, each 64 query rows (one `wgmma` m64 tile).
    pub const WARPGROUPS: u32 = 2;
    pub const THREADS: u32 = WARPGROUPS * 128;
    /// Query rows per block.
    pub const BLOCK_Q: u32 = WARPGROUPS * 64;
    /// Keys per tile: the N of the scores' `wgmma` (m64n128k16).
    pub const BLOCK_K: u32 = 128;
    /// K and V tiles in shared memory at once.
    pub const STAGES: u32 = 2;
    /// The 128-byte swizzle's atoms must start on 1024-byte boundaries: the launch gives this
    /// much more than the tiles need, and the kernel rounds its base up.
    pub const ALIGN_SLACK: u32 = 1024;

    /// Dynamic shared memory per block: Q's tile, then `STAGES` stages of a K and a V tile,
    /// 16-bit values, and the alignment slack: 81 KB at head dim 64, 161 KB at 128.
    pub const fn shared_bytes(head_dim: u32) -> u32 {
        (BLOCK_Q + STAGES * 2 * BLOCK_K) * head_dim * 2 + ALIGN_SLACK
    }
}

/// a05 (a04's math, the tiles by TMA from a producer warpgroup): the block's shape, shared
/// memory and the registers each role keeps.
pub mod a05 {
    /// Consumer warpgroups per block, each 64 query rows; a producer warpgroup after them.
    pub const CONSUMER_WARPGROUPS: u32 = 2;
    pub const THREADS: u32 = (CONSUMER_WARPGROUPS + 1) * 128;
    /// Query rows per block.
    pub const BLOCK_Q: u32 = CONSUMER_WARPGROUPS * 64;
    /// Keys per tile.
    pub const BLOCK_K: u32 = 128;
    /// K and V tiles in shared memory at once.
    pub const STAGES: u32 = 2;
    /// Registers per thread after `setmaxnreg`: the producer gives back what its one copying
    /// thread does not need, the consumers take it (40·128 + 232·256 ≤ 65536).
    pub const PRODUCER_REGISTERS: u32 = 40;
    pub const CONSUMER_REGISTERS: u32 = 232;
    /// The 128-byte swizzle's atoms (and TMA's boxes) start on 1024-byte boundaries.
    pub const ALIGN_SLACK: u32 = 1024;

    /// Dynamic shared memory per block: Q's tile, then `STAGES` stages of a K and a V tile,
    /// and the alignment slack: 81 KB at head dim 64, 161 KB at 128.
    pub const fn shared_bytes(head_dim: u32) -> u32 {
        (BLOCK_Q + STAGES * 2 * BLOCK_K) * head_dim * 2 + ALIGN_SLACK
    }
}

/// a06 (a05's pipeline; the consumers take turns and overlap each tile's softmax with the
/// previous tile's P·V): a05's shape.
pub mod a06 {
    pub use super::a05::{
        ALIGN_SLACK, BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, PRODUCER_REGISTERS, STAGES,
        THREADS, shared_bytes,
    };
}

/// a07 (a06 with one block per SM drawing the work tiles from a counter): a06's shape; the
/// grid is at most one block per SM.
pub mod a07 {
    pub use super::a06::{
        ALIGN_SLACK, BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, PRODUCER_REGISTERS, STAGES,
        THREADS, shared_bytes,
    };
    /// The K and V bytes of the heads whose tiles are drawn together (a section): a third of
    /// an H100's 50 MB L2, so that the heads the blocks are working on stay in it.
    pub const SECTION_BYTES: u64 = 16 << 20;
    /// The `u32` words of the tile counter the kernel takes.
    pub const COUNTER_WORDS: usize = 2;
}

/// a08 (a07 with O stored through shared memory by the copy engine): a07's shape, and a
/// staging box of O per consumer warpgroup after the stages.
pub mod a08 {
    pub use super::a07::{
        ALIGN_SLACK, BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, COUNTER_WORDS,
        PRODUCER_REGISTERS, SECTION_BYTES, STAGES, THREADS,
    };
    /// Rows of O one consumer warpgroup stages and stores: the rows of a TMA box of O's
    /// tensor map.
    pub const O_BOX_ROWS: u32 = BLOCK_Q / CONSUMER_WARPGROUPS;

    /// Dynamic shared memory per block: a07's, then O's staging (`BLOCK_Q` rows of the head
    /// dim, 16-bit values): 97 KB at head dim 64, 193 KB at 128.
    pub const fn shared_bytes(head_dim: u32) -> u32 {
        super::a07::shared_bytes(head_dim) + BLOCK_Q * head_dim * 2
    }
}

/// a09 (a08 with each row's softmax reductions in independent chains): a08's shape.
pub mod a09 {
    pub use super::a08::{BLOCK_K, BLOCK_Q, THREADS, shared_bytes};
}

/// a10 (a09 with P·V as one `wgmma` across the head dim): a09's shape.
pub mod a10 {
    pub use super::a09::{BLOCK_K, BLOCK_Q, THREADS, shared_bytes};
}
