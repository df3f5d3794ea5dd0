//! The probes: experiments that make one property of the hardware visible (seeds 001, 002
//! and 004), and the tensor-core ceiling that the GEMM tables measure against (p8). Each has a stable id, the PTX kernels it launches, and a function that runs,
//! verifies and times it and returns tables and plots.

pub mod bank_conflicts;
pub mod divergence;
pub mod latency;
pub mod model;
pub mod occupancy;
pub mod saxpy;
pub mod stride_copy;
pub mod sync;
pub mod tensor_ceiling;

use crate::error::Result;
use crate::gpu::Gpu;
use crate::plot::Plot;
use crate::table::Table;
use crate::timing::Timer;

/// What a probe gets: the device, the timer and the run's seed, and where the PTX is (the
/// multi-GPU probes open the node's other GPUs with it).
pub struct ProbeContext<'a> {
    pub gpu: &'a Gpu,
    pub timer: &'a Timer,
    pub seed: u64,
    pub ptx_dir: &'a std::path::Path,
}

/// What a probe returns: its tables and plots, and every check that failed.
#[derive(Default)]
pub struct ProbeOutput {
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// One line per failed verification; empty when everything matched.
    pub failures: Vec<String>,
    /// Why the probe did not run here (too few GPUs, no NCCL); the run goes on.
    pub skipped: Option<String>,
}

/// One probe of the suite.
#[derive(Clone, Copy)]
pub struct ProbeInfo {
    /// Stable name on the command line and in reports.
    pub id: &'static str,
    /// What it shows, in a few words.
    pub summary: &'static str,
    /// The PTX entry points it launches, in the PTX of every arch.
    pub kernels: &'static [&'static str],
    /// Entry points only in the sm_90a PTX (Hopper's own instructions), launched only
    /// where that PTX is loaded.
    pub sm90a_kernels: &'static [&'static str],
    /// Runs, verifies and times it.
    pub run: fn(&ProbeContext) -> Result<ProbeOutput>,
}

/// Every probe, in order.
pub const PROBES: &[ProbeInfo] = &[
    ProbeInfo {
        id: "p1_stride_copy",
        summary: "strided copies: 32-byte sectors, useful and moved bandwidth",
        kernels: &["stride_copy_f32", "copy_16b"],
        sm90a_kernels: &[],
        run: stride_copy::run,
    },
    ProbeInfo {
        id: "p2_bank_conflicts",
        summary: "shared-memory reads at stride S for 2-, 4- and 8-byte elements",
        kernels: &["shared_read_b16", "shared_read_b32", "shared_read_b64"],
        sm90a_kernels: &[],
        run: bank_conflicts::run,
    },
    ProbeInfo {
        id: "p3_saxpy",
        summary: "y = a·x + y against the copy ceiling",
        kernels: &["saxpy", "copy_16b"],
        sm90a_kernels: &[],
        run: saxpy::run,
    },
    ProbeInfo {
        id: "p4_divergence",
        summary: "branching on thread parity, on warp index, and predicated",
        kernels: &["diverge_by_lane", "uniform_by_warp", "predicated_by_lane"],
        sm90a_kernels: &[],
        run: divergence::run,
    },
    ProbeInfo {
        id: "p5_occupancy",
        summary: "bandwidth against block size, blocks per SM and loads in flight",
        kernels: &["stream_sum_ilp1", "stream_sum_ilp2", "stream_sum_ilp4", "stream_sum_ilp8"],
        sm90a_kernels: &[],
        run: occupancy::run,
    },
    ProbeInfo {
        id: "p6_latency",
        summary: "pointer-chase load latency across L1, L2 and HBM",
        kernels: &["pointer_chase_cached", "pointer_chase_l2"],
        sm90a_kernels: &[],
        run: latency::run,
    },
    ProbeInfo {
        id: "p7_sync",
        summary: "block barrier and kernel launch cost",
        kernels: &["barrier_cost", "empty_kernel"],
        sm90a_kernels: &[],
        run: sync::run,
    },
    ProbeInfo {
        id: "p8_tensor_ceiling",
        summary: "peak FLOP/s of mma.sync and wgmma with operands on chip: the GEMM steps' ceiling",
        kernels: &["ceiling_mma_sync_f16", "ceiling_mma_sync_bf16"],
        sm90a_kernels: &["ceiling_wgmma_f16", "ceiling_wgmma_bf16"],
        run: tensor_ceiling::run,
    },
    ProbeInfo {
        id: "m1_interconnect",
        summary: "host↔GPU and GPU↔GPU copies and peer loads: bandwidth and latency beside the links",
        kernels: &["copy_16b", "pointer_chase_l2", "fill_random_i32"],
        sm90a_kernels: &[],
        run: crate::multi::interconnect::run,
    },
    ProbeInfo {
        id: "m2_allreduce",
        summary: "NCCL all-reduce of i32 and f32 over every GPU, 4 KiB to 4 GiB (needs 2 GPUs and NCCL)",
        kernels: &["fill_random_i32", "fill_random_f32"],
        sm90a_kernels: &[],
        run: crate::multi::allreduce::run,
    },
    ProbeInfo {
        id: "m3_node_sum",
        summary: "an i32 array sharded over the node: x4 on each shard, NCCL across, 1…N GPUs (needs 2 GPUs and NCCL)",
        kernels: &["fill_random_i32", "x4_packed_tally"],
        sm90a_kernels: &[],
        run: crate::multi::node_sum::run,
    },
];

/// The probes whose id starts with any of `patterns` (all for an empty list).
pub fn select(patterns: &[String]) -> Vec<&'static ProbeInfo> {
    PROBES
        .iter()
        .filter(|p| patterns.is_empty() || patterns.iter().any(|q| p.id.starts_with(q.as_str())))
        .collect()
}
