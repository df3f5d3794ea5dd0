//! Step w08 — latency trims: shorter waits at the start and the end of a launch.
//!
//! Idea: three waits around w06's main loops need not be. The first copy names a tensor map
//!       in global memory, fetched from DRAM after any other kernel: `prefetch.tensormap` at
//!       entry overlaps that fetch with the barriers' setup. The cluster barrier after their
//!       initialization can arrive relaxed (the init fence already publishes them). And at
//!       exit C's last boxes need only be *read* out of shared memory, not written.
//! Changes from w06: a `prefetch.tensormap` per map, the relaxed cluster arrival at entry,
//!       `wait_group.read` at exit. (w07 is a branch; this step continues from w06.)
//! Bottleneck: at 4096³ the power-held clock: level with cuBLAS on the same tile and bytes.
//! Cost: as w06: 168 registers at entry × 384 threads, 225 KB of shared memory.
//! Requires: as w06.
//! Result: 100.2 % of cuBLAS f16 at 4096³ (bf16 99.7), H200, 2026-11-23.
//!
//! The kernel is written once, `trimmed_gemm_for!`, for a shape: w09 and w10 are this step on
//! theirs.
//!
//! More: docs/lessons.md#w08

use super::hopper;
use super::hopper::epilogue::NoScales;
use common::gemm::w08::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W08 = w08, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

/// Writes `trimmed_gemm`, `C = A · B` as w06 computes it with shorter waits at entry and
/// exit, for the shape `$shape` (w09 and w10 write it for theirs). A macro rather than a
/// generic function: each step's kernel is then compiled for its own constants from the
/// start, as a written-out copy would be.
macro_rules! trimmed_gemm_for {
    ($shape:ty) => {
        trimmed_gemm_for!($shape, |consumer, state, k_tiles, acc, release| consumer
            .mma_k_tiles::<BF16>(state, 0, k_tiles, acc, release));
    };
    // `$main_loop`: what a consumer warpgroup runs on a unit's k tiles, into `acc` (w15
    // brings its own).
    ($shape:ty, |$consumer:ident, $state:ident, $k_tiles:ident, $acc:ident, $release:ident| $main_loop:expr) => {
        trimmed_gemm_for!(
            $shape,
            impl $crate::gemm::hopper::epilogue::TensorScales,
            |$consumer, $state, $k_tiles, $acc, $release, __origin, __scales| $main_loop
        );
    };
    // A main loop that also reads the unit's origin and the launch's scales, of type
    // `$scales_type` (w19's block scales): each unit's tile summed from zero by `$main_loop`,
    // then stored.
    (
        $shape:ty,
        $scales_type:ty,
        |$consumer:ident, $state:ident, $k_tiles:ident, $acc:ident, $release:ident, $origin:ident, $scales:ident|
            $main_loop:expr
    ) => {
        trimmed_gemm_for!(
            $shape,
            $scales_type,
            units |__consumer, __state, __units, __k_tiles, __release, __epilogue, __factor, __scales| {
                use $crate::device::cluster::{cluster_count, cluster_idx};
                use $crate::gemm::hopper::{Accumulator, Shape};
                let mut unit = cluster_idx();
                while unit < __units.count() {
                    let origin = __units.origin(unit);
                    let mut acc = <$shape as Shape>::Acc::zeroed();
                    let epilogue = __epilogue();
                    // SAFETY: the whole warpgroup, in step with the producer; then w05's
                    // epilogue.
                    unsafe {
                        {
                            let ($consumer, $state, $k_tiles, $acc, $release, $origin, $scales) =
                                (__consumer, &mut *__state, __k_tiles, &mut acc, __release, origin, __scales);
                            $main_loop;
                        }
                        epilogue.store_scaled_tile(&acc, origin, __factor);
                    }
                    unit += cluster_count();
                }
            }
        );
    };
    // The kernel around `$units_loop`: what a consumer warpgroup runs over the units this
    // cluster takes (`$units`, from the cluster's index on, a cluster count apart), with
    // `$consumer`, its pipeline `$state`, `$k_tiles`, `$release`, `$epilogue()` (a thread's
    // [`Epilogue`](super::hopper::epilogue::Epilogue)) and the launch's `$factor` and `$scales`
    // (w24 walks them its own way).
    (
        $shape:ty,
        $scales_type:ty,
        units |$consumer:ident, $state:ident, $units:ident, $k_tiles:ident, $release:ident, $epilogue:ident,
            $factor:ident, $scales:ident| $units_loop:expr
    ) => {
        /// `C = A · B` as w06 computes it, with shorter waits at entry and exit.
        ///
        /// # Safety
        /// As w06, with the step's `THREADS` and `SHARED_BYTES`.
        #[inline(always)]
        unsafe fn trimmed_gemm<const BF16: bool>(
            a_map: *const u8,
            b_map: *const u8,
            c_map: *const u8,
            m: u32,
            n: u32,
            k: u32,
            scales: $scales_type,
        ) {
            use $crate::device::cluster::{cluster_count, cluster_idx, cluster_sync, cluster_sync_relaxed};
            use $crate::device::index::{WARP_SIZE, thread_idx};
            use $crate::device::tma::prefetch_tensor_map;
            use $crate::gemm::hopper::epilogue::{Epilogue, wait_read};
            use $crate::gemm::hopper::mainloop::{Consumer, Producer, Units};
            use $crate::gemm::hopper::pipeline::{
                PipelineState, SharedLayout, consumer_release, is_producer,
            };
            use $crate::gemm::hopper::{Registers, Shape};
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
                // SAFETY: the launch's scales, where the step takes any.
                let factor = unsafe { scales.factor() };
                let lane = tid % WARP_SIZE;
                // Stage s is free in this warp: lane 0 tells both blocks of the pair.
                let empty = |s: u32| smem.empty(s);
                let release = consumer_release::<S>(&lane, &empty);
                let consumer = Consumer::new(&smem, tid);
                let mut state = PipelineState::start();
                let epilogue = || Epilogue::new(smem, c_map, tid);
                {
                    let ($consumer, $state, $units, $k_tiles, $release, $epilogue, $factor, $scales) =
                        (&consumer, &mut state, units, k_tiles, &release, epilogue, factor, scales);
                    $units_loop;
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

trimmed_gemm_for!(W08);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32; NoScales)
        => w08_latency_trims_f16, w08_latency_trims_bf16
);
