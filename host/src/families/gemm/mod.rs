//! The GEMM family: `C = A · B` in three ladders: FP32 steps (g), tensor-core steps on any
//! GPU since Ampere (t: `mma.sync`, `ldmatrix`, `cp.async`) and Hopper's (w: `wgmma`, TMA,
//! clusters, stream-K, FP8). The registry, cuBLAS as the baseline, the CPU reference,
//! the runner that launches, verifies and times every step next to cuBLAS, the suite that
//! walks the shapes into tables, records and charts, and the TMA tensor maps some steps take
//! instead of pointers.

pub mod chart;
pub mod cublas;
pub mod cublaslt;
mod gpu_tests;
pub mod reference;
pub mod registry;
pub mod runner;
pub mod suite;
#[cfg(test)]
mod tests;

use crate::base::error::Result;
use crate::cli::Options;
use crate::families::family::{Family, GpuTest, Ladder, RunContext, Step};
use registry::{GemmKernel, kernels as all_kernels};

/// The family's name on the command line and in the records.
pub const NAME: &str = "gemm";

/// The GEMM family.
pub struct Gemm;

impl Family for Gemm {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "C = A·B (--gemm shapes), beside cuBLAS and the tensor-core ceilings"
    }

    fn ladders(&self) -> &'static [Ladder] {
        &[
            Ladder { prefix: "g", title: "FP32, CUDA cores" },
            Ladder {
                prefix: "t",
                title: "FP16 and BF16 in, f32 out, mma.sync tensor cores (any GPU since Ampere)",
            },
            Ladder { prefix: "w", title: "FP16 and BF16 in, f32 out, Hopper: wgmma, TMA, clusters" },
        ]
    }

    fn steps(&self) -> Vec<Step> {
        all_kernels().map(|k| Step::new(k.id, k.summary, k.arch, &[k.id], true)).collect()
    }

    fn work(&self, selected: &[Step], options: &Options) -> Vec<String> {
        suite::work(&kernels(selected), &options.gemm)
    }

    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool> {
        let run = suite::run(&kernels(selected), ctx)?;
        if let Some(ceilings) = run.ceilings {
            ctx.output.set("tensor_ceilings", ceilings.json());
        }
        Ok(run.passed)
    }

    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest> {
        gpu_tests::all(gpu_present)
    }
}

/// The registry entries of `steps`.
fn kernels(steps: &[Step]) -> Vec<&'static GemmKernel> {
    steps
        .iter()
        .map(|s| all_kernels().find(|k| k.id == s.id).expect("a step of the GEMM family is registered"))
        .collect()
}
