//! The probe family: experiments that each make one property of the hardware visible
//! (strided copies, bank conflicts, SAXPY against the copy, divergence, occupancy and
//! Little's law, load latency, barriers and launches), the tensor-core ceiling the GEMM
//! steps are read against (p8), and the node probes (m1–m3): the interconnect, NCCL's
//! all-reduce and a sum sharded over every GPU. Each has a stable id, the PTX kernels it
//! launches, and a function that runs, verifies and times it and returns tables and plots.

pub mod allreduce;
pub mod bank_conflicts;
pub mod context;
pub mod divergence;
mod gpu_tests;
pub mod interconnect;
pub mod latency;
pub mod model;
pub mod node_sum;
pub mod occupancy;
pub mod saxpy;
pub mod stride_copy;
pub mod sync;
pub mod tensor_ceiling;
#[cfg(test)]
mod tests;

use crate::base::error::Result;
use crate::base::ptx::Arch;
use crate::cli::Options;
use crate::families::family::{Family, GpuTest, Ladder, RunContext, Step};
use crate::report::records::from_table;
use context::{ProbeContext, ProbeInfo};

/// The family's name on the command line and in the records.
pub const NAME: &str = "probe";

/// The probe family.
pub struct Probes;

impl Family for Probes {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "experiments that each make one property of the hardware visible"
    }

    fn ladders(&self) -> &'static [Ladder] {
        &[
            Ladder { prefix: "p", title: "one GPU" },
            Ladder { prefix: "m", title: "the node: every GPU the driver shows" },
        ]
    }

    fn steps(&self) -> Vec<Step> {
        let hopper = Arch::new(90, true);
        PROBES
            .iter()
            .map(|p| {
                let mut step = Step::new(p.id, p.summary, Arch::new(80, false), p.kernels, false);
                step.symbols.extend(p.sm90a_kernels.iter().map(|&s| (s, hopper)));
                step
            })
            .collect()
    }

    fn work(&self, selected: &[Step], _: &Options) -> Vec<String> {
        selected.iter().map(|s| s.id.to_string()).collect()
    }

    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool> {
        if ctx.options.inject_hang {
            crate::base::progress::begin("an endless pointer chase (--inject-hang)");
            latency::queue_endless_chase(ctx.gpu, ctx.seed)?;
            ctx.gpu.sync("waiting for the chase")?;
        }
        let context = ProbeContext { gpu: ctx.gpu, timer: ctx.timer, seed: ctx.seed, ptx_dir: ctx.ptx_dir };
        let mut all_passed = true;
        for step in selected {
            let probe =
                PROBES.iter().find(|p| p.id == step.id).expect("a step of the probe family is registered");
            crate::base::interrupt::check()?;
            crate::base::progress::begin(format!("running {}", probe.id));
            let output = (probe.run)(&context).map_err(|e| e.during(probe.id))?;
            if let Some(reason) = &output.skipped {
                ctx.output.skipped(probe.id, reason);
            }
            let mut records = Vec::new();
            for table in &output.tables {
                ctx.output.table(table);
                records.extend(from_table(NAME, probe.id, table));
            }
            for view in &output.views {
                ctx.output.table(view);
            }
            for failure in &output.failures {
                println!("WRONG: {failure}");
                ctx.output.failure(format!("{}: {failure}", probe.id));
            }
            all_passed &= output.failures.is_empty();
            for plot in &output.plots {
                ctx.output.plot(plot)?;
            }
            for map in &output.heatmaps {
                ctx.output.heatmap(map)?;
            }
            ctx.output.finished(probe.id, records)?;
        }
        Ok(all_passed)
    }

    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest> {
        gpu_tests::all(gpu_present)
    }
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
        sm90a_kernels: &["ceiling_wgmma_f16", "ceiling_wgmma_bf16", "ceiling_wgmma_e4m3"],
        run: tensor_ceiling::run,
    },
    ProbeInfo {
        id: "m1_interconnect",
        summary: "host↔GPU and every pair of GPUs: copies and peer loads, bandwidth and latency beside the links",
        kernels: &["copy_16b", "pointer_chase_l2", "fill_random_i32"],
        sm90a_kernels: &[],
        run: interconnect::run,
    },
    ProbeInfo {
        id: "m2_allreduce",
        summary: "NCCL all-reduce of i32 and f32 over 2, 4, … GPUs, 4 KiB to 4 GiB (needs 2 GPUs and NCCL)",
        kernels: &["fill_random_i32", "fill_random_f32"],
        sm90a_kernels: &[],
        run: allreduce::run,
    },
    ProbeInfo {
        id: "m3_node_sum",
        summary: "an i32 array sharded over 1, 2, 4, … GPUs: x4 on each shard, NCCL across (needs 2 GPUs and NCCL)",
        kernels: &["fill_random_i32", "x4_packed_tally"],
        sm90a_kernels: &[],
        run: node_sum::run,
    },
];
