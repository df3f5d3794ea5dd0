//! The attention family: the forward pass of softmax(Q·Kᵀ·scale + mask)·V over f16 or bf16
//! inputs with f32 softmax statistics, from three kernels with the scores in memory towards
//! one fused tensor-core kernel; every step checked against an f64 CPU reference, timed, and
//! set beside the tensor-core ceiling (and, through `bench/attention-sdpa.py`, beside cuDNN
//! and FlashAttention-2 as PyTorch runs them).

mod gpu_tests;
pub mod problem;
pub mod reference;
pub mod registry;
pub mod report;
pub mod runner;
#[cfg(test)]
mod tests;

use crate::base::error::{Error, Result};
use crate::base::precision::Precision;
use crate::ceilings::{self, Ceilings};
use crate::cli::Options;
use crate::families::family::{Family, GpuTest, Ladder, RunContext, Step};
use crate::twins::{self, Code, TwinResult};
use problem::{Layout, Mask, Problem};
use registry::{ATTENTION_STEPS, AttentionStep};
use report::{Limit, Row, Setting};
use runner::AttentionBench;

/// The family's name on the command line and in the records.
pub const NAME: &str = "attention";

/// The attention family.
pub struct Attention;

impl Family for Attention {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "attention forward, softmax(Q·Kᵀ·scale + mask)·V (--seq, --head-dim, --mask, --attn-type, --tokens, \
         --hidden), against the tensor-core ceiling"
    }

    fn ladders(&self) -> &'static [Ladder] {
        &[Ladder { prefix: "a", title: "fused attention, from three kernels to FlashAttention" }]
    }

    fn steps(&self) -> Vec<Step> {
        ATTENTION_STEPS.iter().map(|s| Step::new(s.id, s.summary, s.arch, &s.symbols(), true)).collect()
    }

    fn check_options(&self, selected: &[Step], options: &Options) -> Result<()> {
        let settings = settings(options)?;
        for s in selected {
            let step = step(s);
            if !settings.iter().any(|setting| step.takes(setting.problem.head_dim as u32).is_ok()) {
                let dims: Vec<String> = options.head_dim.iter().map(u32::to_string).collect();
                return Err(Error::new(format!(
                    "--head-dim {}: {} (leave it out, or pass a head dim it takes)",
                    dims.join(","),
                    step.takes(options.head_dim[0]).expect_err("no head dim is taken")
                )));
            }
        }
        Ok(())
    }

    fn work(&self, selected: &[Step], options: &Options) -> Vec<String> {
        let settings = settings(options).unwrap_or_default();
        settings
            .iter()
            .flat_map(|setting| steps_of(selected, setting).map(|s| report::item(s.id, setting)))
            .collect()
    }

    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool> {
        let settings = settings(ctx.options)?;
        let ceilings = if ctx.options.verify_only { None } else { Some(self.ceilings(ctx)?) };
        let mut all_passed = true;
        for setting in settings {
            crate::base::interrupt::check()?;
            let steps: Vec<&'static AttentionStep> = steps_of(selected, &setting).collect();
            if steps.is_empty() {
                continue;
            }
            let preparing = format!("preparing {}", report::item("attention", &setting));
            crate::base::progress::begin(preparing.clone());
            let bench = AttentionBench::new(ctx.gpu, setting.problem, setting.precision, ctx.seed)
                .map_err(|e| e.during(&preparing))?;
            let limit = limit(ceilings.as_ref(), setting.precision);
            let mut rows = Vec::new();
            let mut notes = Vec::new();
            for step in steps {
                crate::base::interrupt::check()?;
                let item = report::item(step.id, &setting);
                if let Some(reason) = step.unavailable(ctx.gpu.info.compute_capability, ctx.gpu.info.ptx_arch)
                {
                    notes.push(format!("{reason}: skipped"));
                    ctx.output.finished(&item, Vec::new())?;
                    continue;
                }
                let plan = match bench.plan(step, Code::Rust) {
                    Ok(plan) => plan,
                    // A shape a step cannot launch (a01's scores past the device's memory, a grid
                    // past its limits) is said under the table; the run goes on.
                    Err(e) => {
                        notes.push(format!("{}: not run: {e}", step.id));
                        ctx.output.finished(&item, Vec::new())?;
                        continue;
                    }
                };
                let row = run_step(&bench, step, plan, ctx, &item).map_err(|e| e.during(&item))?;
                all_passed &= row.check.as_ref().is_none_or(|c| c.passed()) && !row.twin.failed();
                ctx.output.finished(&item, vec![report::record(&ctx.gpu.info, &setting, &limit, &row)])?;
                rows.push(row);
            }
            let mut table = report::table(&ctx.gpu.info, &setting, &limit, &rows);
            let records: Vec<_> =
                rows.iter().map(|r| report::record(&ctx.gpu.info, &setting, &limit, r)).collect();
            table.notes.extend(twins::notes(ctx.twins, &records.iter().collect::<Vec<_>>()));
            table.notes.extend(notes);
            ctx.output.table(&table);
        }
        Ok(all_passed)
    }

    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest> {
        gpu_tests::all(gpu_present)
    }
}

impl Attention {
    /// The tensor-core ceilings of this run: p8's, measured once per process (its table
    /// printed when measured here).
    fn ceilings(&self, ctx: &mut RunContext) -> Result<Ceilings> {
        if let Some(ceilings) = ceilings::cached(ctx.gpu) {
            return Ok(ceilings);
        }
        crate::base::progress::begin("measuring the tensor-core ceilings");
        let run =
            ceilings::measure(ctx.gpu, ctx.timer, ctx.seed).map_err(|e| e.during("p8_tensor_ceiling"))?;
        for failure in &run.failures {
            ctx.output.failure(format!("p8_tensor_ceiling: {failure}"));
        }
        ctx.output.table(&run.table);
        Ok(run.ceilings)
    }
}

/// The limit line of `precision`'s tables: the best tensor-core rate p8 measured.
fn limit(ceilings: Option<&Ceilings>, precision: Precision) -> Limit {
    let Some(ceilings) = ceilings else { return Limit::default() };
    Limit {
        tflops: ceilings.best(precision),
        name: ceilings.describe(precision).map(|d| format!("tensor-core ceiling (p8), {d}")),
    }
}

/// The registry entry of a step of this family.
fn step(step: &Step) -> &'static AttentionStep {
    registry::step(step.id).expect("a step of the attention family is registered")
}

/// The selected steps that run on `setting` (those that take its head dim).
fn steps_of<'a>(
    selected: &'a [Step],
    setting: &'a Setting,
) -> impl Iterator<Item = &'static AttentionStep> + 'a {
    selected.iter().map(step).filter(move |s| s.takes(setting.problem.head_dim as u32).is_ok())
}

/// The problems the options ask for, one table each: every input type, head dim, mask and
/// sequence length, batch × heads from `--tokens` and `--hidden` (FlashAttention-3's
/// setting) unless `--batch` says otherwise.
fn settings(options: &Options) -> Result<Vec<Setting>> {
    let precisions = options
        .attn_type
        .iter()
        .map(|t| match t.as_str() {
            "bf16" => Ok(Precision::Bf16),
            "f16" => Ok(Precision::F16),
            _ => Err(Error::new(format!("--attn-type {t}: bf16 or f16"))),
        })
        .collect::<Result<Vec<_>>>()?;
    let masks = options
        .mask
        .iter()
        .map(|m| Mask::parse(m).ok_or_else(|| Error::new(format!("--mask {m}: none or causal"))))
        .collect::<Result<Vec<_>>>()?;
    let layout = Layout::parse(&options.layout)
        .ok_or_else(|| Error::new(format!("--layout {}: bshd or bhsd", options.layout)))?;
    let mut settings = Vec::new();
    for &precision in &precisions {
        for &head_dim in &options.head_dim {
            let head_dim = head_dim as usize;
            if head_dim == 0 || !options.hidden.is_multiple_of(head_dim) {
                return Err(Error::new(format!(
                    "--head-dim {head_dim}: must divide --hidden {} (query heads = hidden / head dim)",
                    options.hidden
                )));
            }
            let heads_q = options.hidden / head_dim;
            if options.group == 0 || !heads_q.is_multiple_of(options.group) {
                return Err(Error::new(format!(
                    "--group {}: must divide the {heads_q} query heads (--hidden {} / --head-dim {head_dim})",
                    options.group, options.hidden
                )));
            }
            for &mask in &masks {
                for &seq in &options.seq {
                    let problem = Problem {
                        batch: options.batch.unwrap_or((options.tokens / seq.max(1)).max(1)),
                        heads_q,
                        heads_kv: heads_q / options.group,
                        seq_q: seq,
                        seq_k: options.seq_k.unwrap_or(seq),
                        head_dim,
                        layout,
                        mask,
                        softmax_scale: None,
                    };
                    if let Some(why) = problem.invalid().or_else(|| problem.too_large()) {
                        return Err(Error::new(format!("attention: {}: {why}", problem.describe())));
                    }
                    settings.push(Setting { problem, precision });
                }
            }
        }
    }
    Ok(settings)
}

/// Checks (and, when right and asked, times) one step on one problem, then its C++ twin the
/// same way.
fn run_step(
    bench: &AttentionBench,
    step: &'static AttentionStep,
    plan: runner::Plan,
    ctx: &RunContext,
    item: &str,
) -> Result<Row> {
    let (check, timing) = check_then_time(bench, &plan, ctx, item)?;
    let entries = step
        .entries(bench.precision, bench.problem.head_dim as u32)
        .expect("the settings pick steps that take the head dim");
    let twin = ctx.twins.run(bench.gpu(), entries, |code| {
        let twin_plan = bench.plan(step, code)?;
        let (twin_check, timing) =
            check_then_time(bench, &twin_plan, ctx, &format!("the C++ twin of {item}"))?;
        Ok(TwinResult::Ran {
            passed: twin_check.passed(),
            wrong: (!twin_check.passed()).then(|| twin_check.first.clone()),
            timing,
            registers: twin_plan.registers,
        })
    })?;
    Ok(Row {
        step,
        block: Some(plan.block),
        launches: Some(plan.launches),
        check: Some(check),
        timing,
        registers: plan.registers,
        twin,
    })
}

/// Checks `plan` on a poisoned output and, when it is right and timing was asked, times it.
fn check_then_time(
    bench: &AttentionBench,
    plan: &runner::Plan,
    ctx: &RunContext,
    what: &str,
) -> Result<(reference::Check, Option<crate::measure::timing::Timing>)> {
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
