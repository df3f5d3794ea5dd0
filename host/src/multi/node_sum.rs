//! m3: the sum across a node. An i32 array split into contiguous shards, one per GPU; each
//! shard summed by the reduction ladder's best step (x4) on its own GPU, the partial sums
//! combined by an NCCL all-reduce, so that every GPU ends with the total. Run on 1, 2, …,
//! N GPUs over the same array, against one GPU: strong scaling, verified exactly.
//!
//! The array is the run's input stream (`random_i32(seed, i)`); shard `r` is filled on
//! its GPU by the ordinary fill kernel from [`shard_seed`], so that the shards together
//! are element for element the array one GPU would sum.

use super::nccl::{Comms, DataType, Nccl};
use super::{SpanTimer, shards};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::memory::DeviceBuffer;
use crate::plot::{Plot, Series, XAxis};
use crate::probes::{ProbeContext, ProbeOutput};
use crate::reduce::registry::{REDUCE_KERNELS, ReduceKernel};
use crate::reduce::runner::{POISON, Plan, ReduceBench};
use crate::table::{Cell, Table};
use crate::timing::{Timer, Timing};
use crate::twins::Code;
use common::input::shard_seed;

/// Elements of the whole array: 2^24 (64 MiB, where launch and collective costs show) to
/// 2^34 (64 GiB, the most one H200 or H100 holds with room to spare). Sizes whose whole
/// array does not fit one GPU are left out: they would have no one-GPU baseline.
pub const SIZES_LOG2: [u32; 6] = [24, 26, 28, 30, 32, 34];

/// The step each GPU sums its shard with: the reduction ladder's best.
pub const STEP: &str = "x4_packed_tally";

/// Device memory one GPU needs beyond the array, per element and in all (the reduction's
/// scratch, the timer, the CUDA context's own).
const EXTRA_BYTES_PER_ELEMENT: f64 = 1.0 / 16.0;
const EXTRA_BYTES: u64 = 1 << 30;

/// One GPU's part of a run: its shard, the plan that sums it, and where the total lands.
struct Part<'g> {
    bench: ReduceBench<'g>,
    plan: Plan,
    total: DeviceBuffer,
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let mut out = ProbeOutput::default();
    let Some((node, nccl)) = super::node_with_nccl(ctx, &mut out)? else {
        return Ok(out);
    };
    let kernel = step()?;
    let gpus = node.gpus();
    let timers: Vec<Timer> =
        gpus.iter().map(|g| Timer::new(g, ctx.timer.options())).collect::<Result<_>>()?;
    let comms: Vec<Option<Comms>> = (1..=gpus.len())
        .map(|count| if count == 1 { Ok(None) } else { Comms::init_all(&nccl, &gpus[..count]).map(Some) })
        .collect::<Result<_>>()?;

    let mut table = Table::new(
        format!(
            "m3 sum of an i32 array sharded over 1…{} × {}: {STEP} per shard, NCCL across",
            gpus.len(),
            gpus[0].info.name
        ),
        &[
            "GPUs",
            "elements",
            "median µs",
            "GB/s",
            "% of linear scaling",
            "local µs",
            "collective µs",
            "speedup",
            "check",
        ],
    );
    let mut series: Vec<Series> =
        (1..=gpus.len()).map(|c| Series { name: format!("{c} GPU(s)"), points: Vec::new() }).collect();
    let mut left_out = Vec::new();
    let mut scaling_at_largest = None;
    for log2 in SIZES_LOG2 {
        let n = 1usize << log2;
        let needs = (n as f64 * (4.0 + EXTRA_BYTES_PER_ELEMENT)) as u64 + EXTRA_BYTES;
        if gpus[0].free_memory()? < needs {
            left_out.push(format!("2^{log2}"));
            continue;
        }
        table.section(format!("n = 2^{log2} ({} GiB of i32)", (n * 4) as f64 / (1u64 << 30) as f64));
        let mut one_gpu_ms = f64::NAN;
        for count in 1..=gpus.len() {
            crate::interrupt::check()?;
            crate::progress::begin(format!("m3: 2^{log2} elements over {count} GPU(s)"));
            let used = &gpus[..count];
            let parts = shards(n, count)
                .into_iter()
                .zip(used)
                .map(|((first, len), gpu)| part(gpu, kernel, first, len, ctx.seed))
                .collect::<Result<Vec<_>>>()?;
            let comm = comms[count - 1].as_ref();
            let expected = parts.iter().fold(0i32, |acc, p| acc.wrapping_add(p.bench.expected));
            let failure = verify(used, &parts, comm, expected)?;
            let passed = failure.is_none();
            out.failures.extend(failure.map(|f| format!("m3, 2^{log2} elements over {count} GPU(s): {f}")));
            if !passed {
                continue;
            }
            let span = SpanTimer::new(used)?;
            let flush = || used.iter().zip(&timers).try_for_each(|(gpu, timer)| timer.flush_l2(gpu));
            let local = || parts.iter().try_for_each(|p| p.bench.enqueue(&p.plan));
            let collective = || match comm {
                None => Ok(()),
                // SAFETY: every part's result and total hold one i32 on its GPU.
                Some(comm) => unsafe { combine(used, &parts, comm) },
            };
            let local_timing = span.measure(ctx.timer, used, 1, flush, local)?;
            let collective_timing: Option<Timing> =
                comm.map(|_| span.measure(ctx.timer, used, 1, || Ok(()), collective)).transpose()?;
            let total = span.measure(ctx.timer, used, 1, flush, || {
                local()?;
                collective()
            })?;
            if count == 1 {
                one_gpu_ms = total.median_ms;
            }
            let speedup = one_gpu_ms / total.median_ms;
            let efficiency = 100.0 * speedup / count as f64;
            if count == gpus.len() {
                scaling_at_largest = Some((log2, count, efficiency));
            }
            let gbs = total.gigabytes_per_second((n * 4) as f64);
            series[count - 1].points.push((n as f64, gbs));
            table.push(vec![
                Cell::Int(count as i64),
                Cell::Size(n as u64),
                Cell::Time(total),
                Cell::Figure(gbs, 1, "GB/s"),
                Cell::OfLimit(efficiency, 1),
                Cell::Num(local_timing.median_ms * 1e3, 1),
                Cell::Num(collective_timing.map_or(f64::NAN, |t| t.median_ms * 1e3), 1),
                Cell::Num(speedup, 2),
                Cell::Check(passed),
            ]);
        }
    }
    table.notes.push(format!(
        "median µs: the whole sum, every shard's {STEP} then the all-reduce of the partial sums, timed as one span \
         across the GPUs (the longest GPU's events), L2s flushed first; local µs: the shards' sums alone, all GPUs \
         at once; collective µs: the all-reduce of one i32 per GPU alone ({})",
        nccl.describe()
    ));
    table.notes.push(
        "% of linear scaling = speedup / GPUs, speedup = one GPU's time / this time (the same array); every run \
         verified exactly on every GPU against the CPU's wrapping sum of the whole array"
            .into(),
    );
    if let Some((log2, count, efficiency)) = scaling_at_largest {
        table.notes.push(format!(
            "at the largest size run (2^{log2}), {count} GPUs reach {efficiency:.1} % of linear scaling"
        ));
    }
    if !left_out.is_empty() {
        table.notes.push(format!("left out: {} (the whole array does not fit one GPU)", left_out.join(", ")));
    }
    out.plots.push(Plot {
        name: "m3-node-sum".into(),
        title: format!("Sharded sum on 1…{} × {}", gpus.len(), gpus[0].info.name),
        x_label: "elements (i32)".into(),
        y_label: "GB/s (whole array / time)".into(),
        x_axis: XAxis::Log2,
        series,
        h_lines: vec![],
        v_lines: vec![],
    });
    out.tables.push(table);
    Ok(out)
}

/// The registry entry of [`STEP`].
fn step() -> Result<&'static ReduceKernel> {
    REDUCE_KERNELS
        .iter()
        .find(|k| k.id == STEP)
        .ok_or_else(|| Error::new(format!("the reduction step {STEP} is not registered")))
}

/// The sum of `n` elements of stream `seed` sharded over all of `gpus`, verified on every
/// GPU against the CPU's sum of the whole stream (not of the shards: this also checks
/// that the shards are the array), without timing: for the GPU tests.
pub fn check_sum(nccl: &Nccl, gpus: &[&Gpu], n: usize, seed: u64) -> Result<Option<String>> {
    let kernel = step()?;
    let parts = shards(n, gpus.len())
        .into_iter()
        .zip(gpus)
        .map(|((first, len), gpu)| part(gpu, kernel, first, len, seed))
        .collect::<Result<Vec<_>>>()?;
    let comm = Comms::init_all(nccl, gpus)?;
    verify(gpus, &parts, Some(&comm), crate::reduce::reference::reference_sum(seed, n))
}

/// GPU `gpu`'s shard `first … first + len` of stream `seed`, its plan and its total.
fn part<'g>(gpu: &'g Gpu, kernel: &ReduceKernel, first: usize, len: usize, seed: u64) -> Result<Part<'g>> {
    let bench = ReduceBench::new(gpu, len, shard_seed(seed, first as u64))?;
    let plan = bench.plan(kernel, kernel.block_size(None)?, Code::Rust)?;
    let total = DeviceBuffer::alloc(gpu, 4, "the total")?;
    Ok(Part { bench, plan, total })
}

/// Queues the all-reduce of every part's result into its total.
///
/// # Safety
/// `comm`'s ranks are `gpus`, in order, and each part's buffers are on its GPU.
unsafe fn combine(gpus: &[&Gpu], parts: &[Part], comm: &Comms) -> Result<()> {
    let send: Vec<u64> = parts.iter().map(|p| p.bench.result_ptr()).collect();
    let recv: Vec<u64> = parts.iter().map(|p| p.total.ptr()).collect();
    // SAFETY: each is one i32 on its rank's GPU (the caller's promise).
    unsafe { comm.all_reduce(gpus, &send, &recv, 1, DataType::I32) }
}

/// Every shard's sum checked against its reference, then the combined total on every GPU
/// against `expected` (totals poisoned first). `None` when right.
fn verify(gpus: &[&Gpu], parts: &[Part], comm: Option<&Comms>, expected: i32) -> Result<Option<String>> {
    for (rank, p) in parts.iter().enumerate() {
        let check = p.bench.check(&p.plan)?;
        if !check.passed() {
            return Ok(Some(format!("shard {rank}: {STEP} gave {}, expected {}", check.got, check.expected)));
        }
        p.total.fill_words(p.bench.gpu(), POISON, 1)?;
    }
    let Some(comm) = comm else {
        return Ok(None); // one GPU: its shard's sum is the total, checked above
    };
    // SAFETY: `comm` spans `gpus`, whose parts hold one i32 result and total each.
    unsafe { combine(gpus, parts, comm)? };
    for (rank, p) in parts.iter().enumerate() {
        let got = p.total.read::<i32>(p.bench.gpu(), 1)?[0];
        if got != expected {
            return Ok(Some(format!("the total on GPU {rank} is {got}, expected {expected}")));
        }
    }
    Ok(None)
}
