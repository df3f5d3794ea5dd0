//! The reduction family: the sum of `n` `i32`, from Harris's seven classic steps and the
//! steps of "Making vector sum really fast" to the project's single-launch kernels. The
//! registry of kernels, the CPU reference, the runner that launches, verifies and times
//! them, their table, chart and GPU tests.

pub mod chart;
mod gpu_tests;
pub mod registry;
pub mod report;
pub mod runner;
#[cfg(test)]
mod tests;

use crate::base::error::{Error, Result};
use crate::base::ptx::Arch;
use crate::cli::Options;
use crate::families::family::{Family, GpuTest, Ladder, RunContext, Step};
use crate::measure::timing::Timing;
use crate::twins::{self, Code, TwinResult};
use registry::{REDUCE_KERNELS, ReduceKernel};
use report::Row;
use runner::{Check, Plan, ReduceBench};

/// The family's name on the command line and in the records.
pub const NAME: &str = "reduce";

/// The reduction family.
pub struct Reduce;

/// Every reduction kernel runs on sm_80 and newer (the PTX of every arch holds them).
const ARCH: Arch = Arch::new(80, false);

impl Family for Reduce {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "the sum of n i32 (-n sizes), against the theoretical HBM bandwidth"
    }

    fn ladders(&self) -> &'static [Ladder] {
        &[
            Ladder { prefix: "h", title: "Harris, “Optimizing Parallel Reduction in CUDA”" },
            Ladder { prefix: "v", title: "“Making vector sum really fast”" },
            Ladder { prefix: "x", title: "the project's own steps" },
        ]
    }

    fn steps(&self) -> Vec<Step> {
        REDUCE_KERNELS.iter().map(|k| Step::new(k.id, k.summary, ARCH, &k.symbols(), true)).collect()
    }

    fn check_options(&self, selected: &[Step], options: &Options) -> Result<()> {
        for step in selected {
            kernel(step).block_size(options.block)?;
        }
        match &options.inject_fault {
            Some(target) if !selected.iter().any(|s| s.id.starts_with(target.as_str())) => Err(Error::new(
                format!("--inject-fault {target}: no selected reduction kernel starts with it"),
            )),
            _ => Ok(()),
        }
    }

    fn work(&self, selected: &[Step], options: &Options) -> Vec<String> {
        options.n.iter().flat_map(|&n| selected.iter().map(move |s| report::item(s.id, n))).collect()
    }

    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool> {
        let kernels: Vec<&'static ReduceKernel> = selected.iter().map(kernel).collect();
        let mut all_passed = true;
        for &n in &ctx.options.n {
            crate::base::interrupt::check()?;
            let preparing = format!("preparing n = {n}");
            crate::base::progress::begin(preparing.clone());
            let bench = ReduceBench::new(ctx.gpu, n, ctx.seed).map_err(|e| e.during(&preparing))?;
            let mut rows = Vec::new();
            for &kernel in &kernels {
                crate::base::interrupt::check()?;
                let item = report::item(kernel.id, n);
                let row = reduce_one(&bench, kernel, ctx).map_err(|e| e.during(&item))?;
                all_passed &= row.check.passed() && !row.twin.failed();
                ctx.output
                    .finished(&item, vec![report::record(&ctx.gpu.info, n, bench.bytes_read(), &row)])?;
                rows.push(row);
            }
            let mut table = report::table(&ctx.gpu.info, n, bench.bytes_read(), &rows);
            let records = report::records(&ctx.gpu.info, n, bench.bytes_read(), &rows);
            table.notes.extend(twins::notes(ctx.twins, &records.iter().collect::<Vec<_>>()));
            ctx.output.table(&table);
            // No CUB figure: the host does not measure CUB (bench/cub does, beside it).
            ctx.output.chart(&chart::ladder(&ctx.gpu.info, ctx.date, n, bench.bytes_read(), &rows, None))?;
        }
        Ok(all_passed)
    }

    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest> {
        gpu_tests::all(gpu_present)
    }
}

/// The registry entry of a step of this family.
fn kernel(step: &Step) -> &'static ReduceKernel {
    REDUCE_KERNELS.iter().find(|k| k.id == step.id).expect("a step of the reduction family is registered")
}

/// Checks (and, when right and asked, times) one reduction kernel on one input, then its
/// C++ twin the same way.
fn reduce_one(bench: &ReduceBench, kernel: &'static ReduceKernel, ctx: &RunContext) -> Result<Row> {
    let options = ctx.options;
    let block = kernel.block_size(options.block)?;
    let mut plan = bench.plan(kernel, block, Code::Rust)?;
    if options.inject_fault.as_deref().is_some_and(|target| kernel.id.starts_with(target)) {
        bench.misdirect_output(&mut plan);
    }
    let item = report::item(kernel.id, bench.n);
    let (check, timing) = check_then_time(bench, &plan, ctx, &item)?;
    let twin = ctx.twins.run(bench.gpu(), &kernel.symbols(), |code| {
        let plan = bench.plan(kernel, block, code)?;
        let (twin_check, timing) = check_then_time(bench, &plan, ctx, &format!("the C++ twin of {item}"))?;
        Ok(TwinResult::Ran {
            passed: twin_check.passed(),
            wrong: (!twin_check.passed())
                .then(|| format!("got {}, expected {}", twin_check.got, twin_check.expected)),
            timing,
            registers: plan.registers,
        })
    })?;
    Ok(Row { kernel, block, launches: plan.launches, check, timing, registers: plan.registers, twin })
}

/// Checks `plan` on poisoned outputs and, when it is right and timing was asked, times it
/// (`what` names it in the progress lines). A wrong kernel is reported, never timed: its
/// speed would mean nothing.
fn check_then_time(
    bench: &ReduceBench,
    plan: &Plan,
    ctx: &RunContext,
    what: &str,
) -> Result<(Check, Option<Timing>)> {
    crate::base::progress::begin(format!("checking {what}"));
    let check = bench.check(plan)?;
    let timing = if check.passed() && !ctx.options.verify_only {
        crate::base::progress::begin(format!("timing {what}"));
        Some(bench.time(plan, ctx.timer)?)
    } else {
        None
    };
    Ok((check, timing))
}
