//! Step t12 — the start and the end of a launch: what a block waits for before its first
//! `wgmma` and after its last store.
//!
//! Idea: a launch of t10 is a few microseconds of setup and drain around the main loops,
//!       and three of them are waits that need not be. (1) The first copy of each block
//!       names a tensor map that lives in global memory; after the L2 flush that precedes
//!       every timed run (and in a real program, after any other kernel), the copy engine
//!       first fetches the 128-byte map from DRAM, and only then the tile:
//!       `prefetch.tensormap` by the producer at entry overlaps that fetch with the
//!       barriers' setup. (2) The cluster barrier after the barriers' initialization
//!       arrived with release semantics, which compiles to a GPU-wide memory barrier
//!       (`MEMBAR.ALL.GPU`); `fence.mbarrier_init.release.cluster` already publishes the
//!       initialization, so the arrival can be relaxed (`barrier.cluster.arrive.relaxed`).
//!       (3) Before exiting, the storing thread waited for C's last boxes to be *written*
//!       (`cp.async.bulk.wait_group 0`); the block only needs them *read* out of its shared
//!       memory (`.read`), and the launch completes after its writes in any case.
//! Changes from t10: a `prefetch.tensormap` per map, the relaxed cluster arrival at
//!       entry, and `wait_group.read` at exit. (t11, stream-K, is a branch that did not
//!       pay at most sizes; this step continues from t10.)
//! Cost: as t10: 168 registers at entry × 384 threads, 225 KB of shared memory.
//! Requires: as t10.
//! Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): H200 4096³ 100.2 / 99.7,
//!       2048³ 99.9 / 98.8, 8192³ 101.2 / 101.2, 8192×1024×8192 99.3 / 98.7; H100 4096³
//!       99.4 / 99.5, 2048³ 97.3 / 96.9, 4096×4096×512 102.0 / 100.9. +2–3 % over t10 at
//!       1024³–2048³, +0.4–0.7 % at 4096³. At 4096³ it is level with cuBLAS, not ahead: the
//!       same tile, the same bytes through TMA (ncu), both at a power-held SM clock of
//!       about 1.6 GHz (ncu, H100).
//! Variants that did not pay (H100, 4096³): the two consumer warpgroups started 1, 2 or
//!       3 k tiles apart, so that one's epilogue falls in the other's main loop (98.9–99.5
//!       against 99.2–99.5 %: the epilogue is already hidden); walks of 1, 2, 4, 16 or 32
//!       pair rows per group instead of 8 (DRAM reads 174–187 MB against 149 MB, time level
//!       or worse); the tensor maps' L2 promotion off, 64 or 128 bytes instead of 256 (L2
//!       and fabric traffic down to cuBLAS's, time unchanged).

use super::hopper;
use common::gemm::t12::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T12 = t12, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

/// Writes `trimmed_gemm`, `C = A · B` as t10 computes it with shorter waits at entry and
/// exit, for the shape `$shape` (t13 and t14 write it for theirs). A macro rather than a
/// generic function: each step's kernel is then compiled for its own constants from the
/// start, as a written-out copy would be.
macro_rules! trimmed_gemm_for {
    ($shape:ty) => {
        /// `C = A · B` as t10 computes it, with shorter waits at entry and exit.
        ///
        /// # Safety
        /// As t10, with the step's `THREADS` and `SHARED_BYTES`.
        #[inline(always)]
        unsafe fn trimmed_gemm<const BF16: bool>(
            a_map: *const u8,
            b_map: *const u8,
            c_map: *const u8,
            m: u32,
            n: u32,
            k: u32,
        ) {
            use $crate::device::cluster::{cluster_count, cluster_idx, cluster_sync, cluster_sync_relaxed};
            use $crate::device::index::{WARP_SIZE, thread_idx};
            use $crate::device::tma::prefetch_tensor_map;
            use $crate::gemm::hopper::epilogue::{Epilogue, wait_read};
            use $crate::gemm::hopper::mainloop::{Consumer, Producer, Units};
            use $crate::gemm::hopper::pipeline::{
                PipelineState, SharedLayout, consumer_release, is_producer,
            };
            use $crate::gemm::hopper::{Accumulator, Registers, Shape};
            type S = $shape;

            let smem = SharedLayout::<S>::new();
            let tid = thread_idx();
            let units = Units::<S>::new(m, n);
            let k_tiles = k.div_ceil(S::BK);

            if tid == S::PRODUCER_THREAD {
                // SAFETY: the maps' global addresses, as the launch passes them.
                unsafe {
                    prefetch_tensor_map(a_map);
                    prefetch_tensor_map(b_map);
                    prefetch_tensor_map(c_map);
                }
            }
            if tid == 0 {
                smem.init_barriers();
            }
            // The partner's copies complete on this block's "full" barriers and its
            // consumers arrive on the "empty" ones: both blocks' barriers must exist before
            // either starts (relaxed: the fence above released the initialization).
            cluster_sync_relaxed();

            if is_producer::<S>(tid) {
                <S as Shape>::Registers::producer();
                // The producer warpgroup's first thread issues every copy.
                if tid == S::PRODUCER_THREAD {
                    let producer = Producer::new(smem, a_map, b_map);
                    let mut state = PipelineState::start();
                    let mut unit = cluster_idx();
                    while unit < units.count() {
                        // SAFETY: initialized barriers; both blocks of the pair walk the
                        // same units.
                        unsafe { producer.load_k_tiles(&mut state, units.origin(unit), 0, k_tiles) };
                        unit += cluster_count();
                    }
                }
            } else {
                <S as Shape>::Registers::consumers();
                let lane = tid % WARP_SIZE;
                // Stage s is free in this warp: lane 0 tells both blocks of the pair.
                let empty = |s: u32| smem.empty(s);
                let release = consumer_release::<S>(&lane, &empty);
                let consumer = Consumer::new(&smem, tid);
                let mut state = PipelineState::start();
                let mut unit = cluster_idx();
                while unit < units.count() {
                    let origin = units.origin(unit);
                    let mut acc = <S as Shape>::Acc::zeroed();
                    let epilogue = Epilogue::new(smem, c_map, tid);
                    // SAFETY: the whole warpgroup, in step with the producer; then t09's
                    // epilogue.
                    unsafe {
                        consumer.mma_k_tiles::<BF16>(&mut state, 0, k_tiles, &mut acc, &release);
                        epilogue.store_tile(&acc, origin);
                    }
                    unit += cluster_count();
                }
                // C's last boxes are read out of shared memory before the block exits.
                wait_read(tid);
            }
            // The partner may still arrive on this block's barriers: neither block leaves
            // first.
            cluster_sync();
        }
    };
}
pub(super) use trimmed_gemm_for;

trimmed_gemm_for!(T12);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32)
        => t12_latency_trims_f16, t12_latency_trims_bf16
);
