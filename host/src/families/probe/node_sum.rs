//! m3: the sum across a node. An i32 array split into contiguous shards, one per GPU; each
//! shard summed by the reduction ladder's best step (x4) on its own GPU, the partial sums
//! combined by an NCCL all-reduce, so that every GPU ends with the total. Run on 1, 2, 4, …
//! and all N GPUs ([`gpu_counts`]) over the same array, against one GPU: strong scaling,
//! verified exactly.
//!
//! The array is the run's input stream (`random_i32(seed, i)`); shard `r` is filled on
//! its GPU by the ordinary fill kernel from [`shard_seed`], so that the shards together
//! are element for element the array one GPU would sum.

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu};
use crate::base::memory::DeviceBuffer;
use crate::measure::nccl::{Comms, DataType, Nccl, buffer_bytes};
use crate::measure::node::{SpanTimer, gpu_counts, shards};
use crate::measure::timing::{Timer, Timing};
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use common::input::shard_seed;
use common::reduce::{STREAM_BLOCK, STREAM_UNROLL};
use cudarc::driver::{CudaFunction, LaunchConfig};

/// Elements of the whole array: 2^24 (64 MiB, where launch and collective costs show) to
/// 2^35 (128 GiB, which one H200 holds; an H100 holds 2^34, 64 GiB). Sizes whose whole
/// array does not fit one GPU are left out: they would have no one-GPU baseline. They are
/// run largest first (see [`run`]) and tabled smallest first.
pub const SIZES_LOG2: [u32; 7] = [24, 26, 28, 30, 32, 34, 35];

/// The step each GPU sums its shard with: the reduction ladder's best.
pub const STEP: &str = "x4_packed_tally";

/// Device memory GPU 0 needs beside the whole array when it sums it alone: the shard's sum,
/// total and tally (a few bytes each, in whole allocation units), with room to spare. The
/// CUDA context, NCCL's communicators and the timers are already allocated when this is
/// asked.
const EXTRA_BYTES: u64 = 64 << 20;

/// The table's columns (the results pages read its records by them).
pub const COLUMNS: &[&str] = &[
    "GPUs",
    "elements",
    "median µs",
    "GB/s",
    "% of linear scaling",
    "local µs",
    "collective µs",
    "speedup",
    "check",
];

/// Written over the shard sums and totals before a checked run: a kernel or collective
/// that forgets to write leaves this.
const POISON: u32 = 0xA5A5_A5A5;

/// x4's elements per thread in one sweep of its grid: four 16-byte loads in flight, each of
/// four `i32`.
const X4_INPUTS_PER_THREAD: u32 = 4 * STREAM_UNROLL;

/// One GPU's shard, summed by [`STEP`] launched as its registry entry in the reduction family
/// says: `STREAM_BLOCK` threads, a grid of one wave at most, and a 64-bit tally that starts
/// at zero and that every launch leaves at zero. (This probe launches it itself: families
/// do not use each other.)
struct ShardSum<'g> {
    gpu: &'g Gpu,
    n: usize,
    /// The CPU's sum of the shard.
    expected: i32,
    /// The GPU's array buffer, its first `n` elements the shard.
    input: &'g DeviceBuffer,
    result: DeviceBuffer,
    tally: DeviceBuffer,
    function: CudaFunction,
    cfg: LaunchConfig,
}

impl<'g> ShardSum<'g> {
    /// `len` elements of stream `seed` on `gpu`, written into `input`, and the launch that
    /// sums them.
    fn new(gpu: &'g Gpu, input: &'g DeviceBuffer, len: usize, seed: u64) -> Result<Self> {
        assert!(len * 4 <= input.bytes(), "a shard past the end of its GPU's array buffer");
        crate::base::inputs::fill_random_i32(gpu, input, len, seed)?;
        let tally = DeviceBuffer::alloc(gpu, 8, "the tally")?;
        tally.fill_words(gpu, 0, 2)?;
        // NCCL's all-reduce reads it: whole read units.
        let result = DeviceBuffer::alloc(gpu, buffer_bytes(1, DataType::I32), "the shard's sum")?;
        let function = gpu.function(STEP)?;
        let wave = gpu.full_wave(&function, STREAM_BLOCK, 0)? as usize;
        let grid = len.div_ceil((STREAM_BLOCK * X4_INPUTS_PER_THREAD) as usize).clamp(1, wave);
        let cfg = crate::base::gpu::launch_config(grid as u32, STREAM_BLOCK, 0);
        let expected = crate::base::inputs::reference_sum(seed, len);
        gpu.sync("filling a shard")?;
        Ok(Self { gpu, n: len, expected, input, result, tally, function, cfg })
    }

    /// Queues the sum of the shard into `result`.
    fn enqueue(&self) -> Result<()> {
        let args = [self.input.ptr(), self.result.ptr(), self.n as u64, self.tally.ptr()].map(Arg::U64);
        // SAFETY: x4 takes (input, result, n, tally): `n` i32 of input, one i32 of result,
        // the 64-bit tally at zero between launches, all on this GPU.
        unsafe { self.gpu.launch(&self.function, self.cfg, &args) }
    }

    /// The shard's sum on poisoned output, or what it got instead.
    fn check(&self) -> Result<std::result::Result<(), i32>> {
        self.result.fill_words(self.gpu, POISON, 1)?;
        self.enqueue()?;
        let got = self.result.read::<i32>(self.gpu, 1)?[0];
        Ok(if got == self.expected { Ok(()) } else { Err(got) })
    }
}

/// One GPU's part of a run: its shard's sum, and where the total lands.
struct Part<'g> {
    shard: ShardSum<'g>,
    total: DeviceBuffer,
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let mut out = ProbeOutput::default();
    let Some((node, nccl)) = super::context::node_with_nccl(ctx, &mut out)? else {
        return Ok(out);
    };
    let gpus = node.gpus();
    let timers: Vec<Timer> =
        gpus.iter().map(|g| Timer::new(g, ctx.timer.options())).collect::<Result<_>>()?;
    let counts = gpu_counts(gpus.len());
    let comms: Vec<Option<Comms>> = counts
        .iter()
        .map(|&count| if count == 1 { Ok(None) } else { Comms::init_all(&nccl, &gpus[..count]).map(Some) })
        .collect::<Result<_>>()?;

    let mut table = Table::new(
        format!(
            "m3 sum of an i32 array sharded over {} × {}: {STEP} per shard, NCCL across",
            counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
            gpus[0].info.name
        ),
        COLUMNS,
    );
    let mut series: Vec<Series> =
        counts.iter().map(|c| Series { name: format!("{c} GPU(s)"), points: Vec::new() }).collect();
    let mut left_out = Vec::new();
    let mut scaling_at_largest = None;
    // Largest first: the one-GPU run of the largest array needs nearly all of GPU 0, and gets
    // it only before smaller arrays have passed through the device's memory pool (run
    // smallest first on four H100s, 2^34's 64 GiB was not free again after 2^32's buffers
    // were freed). The table lists the sizes smallest first.
    let mut sections: Vec<(u32, Vec<Vec<Cell>>)> = Vec::new();
    for log2 in SIZES_LOG2.into_iter().rev() {
        let n = 1usize << log2;
        let needs = (n * 4) as u64 + EXTRA_BYTES;
        let free = gpus[0].available_memory()?;
        if free < needs {
            left_out.push((log2, needs, free));
            continue;
        }
        let mut rows = Vec::new();
        let arrays = array_buffers(&gpus, n, &counts)?;
        let mut one_gpu_ms = f64::NAN;
        for (index, &count) in counts.iter().enumerate() {
            crate::base::interrupt::check()?;
            crate::base::progress::begin(format!("m3: 2^{log2} elements over {count} GPU(s)"));
            let used = &gpus[..count];
            let parts = shards(n, count)
                .into_iter()
                .zip(used.iter().zip(&arrays))
                .map(|((first, len), (gpu, input))| part(gpu, input, first, len, ctx.seed))
                .collect::<Result<Vec<_>>>()?;
            let comm = comms[index].as_ref();
            let expected = parts.iter().fold(0i32, |acc, p| acc.wrapping_add(p.shard.expected));
            let failure = verify(used, &parts, comm, expected)?;
            let passed = failure.is_none();
            out.failures.extend(failure.map(|f| format!("m3, 2^{log2} elements over {count} GPU(s): {f}")));
            if !passed {
                continue;
            }
            let span = SpanTimer::new(used)?;
            let flush = || used.iter().zip(&timers).try_for_each(|(gpu, timer)| timer.flush_l2(gpu));
            let local = || parts.iter().try_for_each(|p| p.shard.enqueue());
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
            if count == gpus.len() && scaling_at_largest.is_none() {
                scaling_at_largest = Some((log2, count, efficiency));
            }
            let gbs = total.gigabytes_per_second((n * 4) as f64);
            series[index].points.push((n as f64, gbs));
            rows.push(vec![
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
        sections.push((log2, rows));
    }
    for (log2, rows) in sections.into_iter().rev() {
        table.section(format!("n = 2^{log2} ({} GiB of i32)", (4u64 << log2) as f64 / (1u64 << 30) as f64));
        rows.into_iter().for_each(|row| table.push(row));
    }
    series.iter_mut().for_each(|s| s.points.sort_by(|a, b| a.0.total_cmp(&b.0)));
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
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let sizes: Vec<String> = left_out
            .iter()
            .rev()
            .map(|&(log2, needs, free)| {
                format!("2^{log2} (needs {:.1} GiB, {:.1} free)", gib(needs), gib(free))
            })
            .collect();
        table.notes.push(format!(
            "left out: {}: one GPU sums the whole array, and it does not fit GPU 0's free memory",
            sizes.join(", ")
        ));
    }
    out.plots.push(Plot {
        name: "m3-node-sum".into(),
        title: format!("Sharded sum on 1 to {} × {}", gpus.len(), gpus[0].info.name),
        x_label: "elements (i32)".into(),
        y_label: "GB/s (whole array / time)".into(),
        x_axis: XAxis::Log2,
        series,
        h_lines: vec![],
        v_lines: vec![],
        x_unit: "".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    out.tables.push(table);
    Ok(out)
}

/// The sum of `n` elements of stream `seed` sharded over all of `gpus`, verified on every
/// GPU against the CPU's sum of the whole stream (not of the shards: this also checks
/// that the shards are the array), without timing: for the GPU tests.
pub fn check_sum(nccl: &Nccl, gpus: &[&Gpu], n: usize, seed: u64) -> Result<Option<String>> {
    let arrays = array_buffers(gpus, n, &[gpus.len()])?;
    let parts = shards(n, gpus.len())
        .into_iter()
        .zip(gpus.iter().zip(&arrays))
        .map(|((first, len), (gpu, input))| part(gpu, input, first, len, seed))
        .collect::<Result<Vec<_>>>()?;
    let comm = Comms::init_all(nccl, gpus)?;
    verify(gpus, &parts, Some(&comm), crate::base::inputs::reference_sum(seed, n))
}

/// The array buffer of each of `gpus` for `n` elements: as large as the largest shard the
/// GPU gets at any of `counts`. Made once per size and shared by the counts, so that no GPU
/// needs a new shard while a freed one may still hold its memory (on four H100s, after one
/// GPU's 64 GiB shard was freed, two GPUs' 32 GiB ones did not fit).
fn array_buffers(gpus: &[&Gpu], n: usize, counts: &[usize]) -> Result<Vec<DeviceBuffer>> {
    gpus.iter()
        .enumerate()
        .map(|(rank, gpu)| {
            let most = counts.iter().filter(|&&c| c > rank).map(|&c| shards(n, c)[rank].1).max().unwrap_or(0);
            DeviceBuffer::alloc(gpu, most.max(1) * 4, &format!("GPU {rank}'s shards (up to {most} i32)"))
        })
        .collect()
}

/// GPU `gpu`'s shard `first … first + len` of stream `seed` in its array buffer `input`, and
/// its total.
fn part<'g>(gpu: &'g Gpu, input: &'g DeviceBuffer, first: usize, len: usize, seed: u64) -> Result<Part<'g>> {
    let shard = ShardSum::new(gpu, input, len, shard_seed(seed, first as u64))?;
    let total = DeviceBuffer::alloc(gpu, buffer_bytes(1, DataType::I32), "the total")?;
    Ok(Part { shard, total })
}

/// Queues the all-reduce of every part's result into its total.
///
/// # Safety
/// `comm`'s ranks are `gpus`, in order, and each part's buffers are on its GPU.
unsafe fn combine(gpus: &[&Gpu], parts: &[Part], comm: &Comms) -> Result<()> {
    let send: Vec<u64> = parts.iter().map(|p| p.shard.result.ptr()).collect();
    let recv: Vec<u64> = parts.iter().map(|p| p.total.ptr()).collect();
    // SAFETY: each is one i32 on its rank's GPU (the caller's promise).
    unsafe { comm.all_reduce(gpus, &send, &recv, 1, DataType::I32) }
}

/// Every shard's sum checked against its reference, then the combined total on every GPU
/// against `expected` (totals poisoned first). `None` when right.
fn verify(gpus: &[&Gpu], parts: &[Part], comm: Option<&Comms>, expected: i32) -> Result<Option<String>> {
    for (rank, p) in parts.iter().enumerate() {
        if let Err(got) = p.shard.check()? {
            return Ok(Some(format!("shard {rank}: {STEP} gave {got}, expected {}", p.shard.expected)));
        }
        p.total.fill_words(p.shard.gpu, POISON, 1)?;
    }
    let Some(comm) = comm else {
        return Ok(None); // one GPU: its shard's sum is the total, checked above
    };
    // SAFETY: `comm` spans `gpus`, whose parts hold one i32 result and total each.
    unsafe { combine(gpus, parts, comm)? };
    for (rank, p) in parts.iter().enumerate() {
        let got = p.total.read::<i32>(p.shard.gpu, 1)?[0];
        if got != expected {
            return Ok(Some(format!("the total on GPU {rank} is {got}, expected {expected}")));
        }
    }
    Ok(None)
}
