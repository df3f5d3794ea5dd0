//! m2: NCCL's all-reduce across the node's GPUs at every count the node probes run at (2,
//! 4, … and all of them: [`gpu_counts`]), i32 and f32, 4 KiB to 4 GiB per GPU: time,
//! algorithm bandwidth and bus bandwidth as nccl-tests defines them, every size verified
//! against the CPU (exactly for i32). `bench/allreduce-torch.py` times PyTorch's
//! `torch.distributed` all-reduce on the same counts and sizes and writes it beside these
//! figures in the run's records.
//!
//! Rank `r` sends elements `r·count … (r+1)·count` of the run's input stream (the
//! generator is counter based, so each rank fills its part on its own GPU); every rank
//! must receive the element-wise sum. The sum of i32 wraps, as two's complement addition
//! does on the GPU; f32 is held to the rounding of `ranks − 1` additions.

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::Result;
use crate::base::gpu::Gpu;
use crate::base::inputs::{fill_random_f32, fill_random_i32};
use crate::base::memory::DeviceBuffer;
use crate::measure::nccl::{Comms, DataType};
use crate::measure::node::{SpanTimer, allreduce_bus_bandwidth, gpu_counts};
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use common::input::{random_f32, random_i32, shard_seed};

/// Bytes per GPU: 4 KiB to 4 GiB, by twos (nccl-tests' `-b 4K -e 4G -f 2`).
pub const SIZES_LOG2: std::ops::RangeInclusive<u32> = 12..=32;

/// All-reduces per timed repetition: about nccl-tests' 20 where one takes microseconds,
/// one where it takes milliseconds (bytes per batch at most this).
const BATCH_BYTES: usize = 64 << 20;
const MOST_PER_BATCH: usize = 20;

/// The table's columns (the results pages read its records by them).
pub const COLUMNS: &[&str] =
    &["GPUs", "type", "bytes", "median µs", "bus GB/s", "% of link", "algorithm GB/s", "check"];

/// Written over every receive buffer before a verification.
const POISON: u32 = 0x7FC0_DEAD;

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let mut out = ProbeOutput::default();
    let Some((node, nccl)) = super::context::node_with_nccl(ctx, &mut out)? else {
        return Ok(out);
    };
    let gpus = node.gpus();
    // Every count of GPUs the node probes run at, but one (no collective there).
    let counts: Vec<usize> = gpu_counts(gpus.len()).into_iter().filter(|&c| c >= 2).collect();
    let links = crate::measure::links::nvlink_between_all(&gpus);

    let most = 1usize << SIZES_LOG2.end();
    let fits = gpus
        .iter()
        .map(|g| Ok(g.available_memory()? / 2 > most as u64 + (256 << 20)))
        .collect::<Result<Vec<_>>>()?;
    let largest = if fits.iter().all(|&f| f) { most } else { 1 << 30 };
    let buffers: Vec<(DeviceBuffer, DeviceBuffer)> = gpus
        .iter()
        .map(|g| {
            Ok((
                DeviceBuffer::alloc(g, largest, "a send buffer")?,
                DeviceBuffer::alloc(g, largest, "a receive buffer")?,
            ))
        })
        .collect::<Result<_>>()?;

    let mut table = Table::new(
        format!(
            "m2 NCCL all-reduce (sum) over {} × {}, out of place",
            counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
            gpus[0].info.name
        ),
        COLUMNS,
    );
    let mut series = Vec::new();
    for &ranks in &counts {
        let (used, used_buffers) = (&gpus[..ranks], &buffers[..ranks]);
        let comms = Comms::init_all(&nccl, used)?;
        let span = SpanTimer::new(used)?;
        let send: Vec<u64> = used_buffers.iter().map(|b| b.0.ptr()).collect();
        let recv: Vec<u64> = used_buffers.iter().map(|b| b.1.ptr()).collect();
        for dtype in [DataType::I32, DataType::F32] {
            table.section(format!("{} over {ranks} GPUs (bytes / 4 elements per GPU)", dtype.name()));
            let mut points = Vec::new();
            for log2 in SIZES_LOG2.filter(|&l| 1usize << l <= largest) {
                crate::base::interrupt::check()?;
                let bytes = 1usize << log2;
                let count = bytes / 4;
                crate::base::progress::begin(format!(
                    "m2: {} all-reduce of {bytes} bytes over {ranks} GPUs",
                    dtype.name()
                ));
                let failure = verify(used, &comms, used_buffers, count, dtype, ctx.seed ^ u64::from(log2))?;
                let passed = failure.is_none();
                out.failures.extend(failure);
                if !passed {
                    continue; // a wrong all-reduce is reported, never timed
                }
                let batch = (BATCH_BYTES / bytes).clamp(1, MOST_PER_BATCH);
                // SAFETY: every rank's buffers hold `count` elements (`largest` bytes each).
                let timing = span.measure(
                    ctx.timer,
                    used,
                    batch,
                    || Ok(()),
                    || unsafe { comms.all_reduce(used, &send, &recv, count, dtype) },
                )?;
                let algorithm = timing.gigabytes_per_second(bytes as f64);
                let bus = allreduce_bus_bandwidth(algorithm, ranks);
                points.push((bytes as f64, bus));
                table.push(vec![
                    Cell::Int(ranks as i64),
                    dtype.name().into(),
                    Cell::Size(bytes as u64),
                    Cell::Time(timing),
                    Cell::Figure(bus, 1, "GB/s"),
                    Cell::OfLimit(links.as_ref().map_or(f64::NAN, |(_, gbs)| 100.0 * bus / gbs), 1),
                    Cell::Num(algorithm, 1),
                    Cell::Check(passed),
                ]);
            }
            series.push(Series { name: format!("{ranks} GPUs, {} bus bandwidth", dtype.name()), points });
        }
    }
    table.notes.push(format!(
        "{}; one process drives the GPUs (ncclCommInitAll over the first n, the ranks' calls in one \
         ncclGroupStart/End); no row for one GPU: an all-reduce of one rank is a copy",
        nccl.describe()
    ));
    table.notes.push(format!(
        "time: one all-reduce, the median of repetitions of up to {MOST_PER_BATCH} back to back (fewer past \
         {} MiB), each the longest of the GPUs' event-timed spans; algorithm GB/s = bytes per GPU / time; bus \
         GB/s = algorithm × 2(n−1)/n (nccl-tests), the figure to hold against one GPU's link{}",
        BATCH_BYTES >> 20,
        links.as_ref().map_or(String::new(), |(name, gbs)| format!(" ({name}, {gbs:.1} GB/s one way)"))
    ));
    table.notes.push(
        "every size verified on every GPU against the CPU: i32 exactly (wrapping sum), f32 within the rounding of \
         n − 1 additions; receive buffers poisoned first"
            .into(),
    );
    if largest < most {
        table.notes.push(format!(
            "stopped at {} MiB per GPU: 4 GiB send and receive buffers do not fit",
            largest >> 20
        ));
    }
    out.plots.push(Plot {
        name: "m2-allreduce".into(),
        title: format!("NCCL all-reduce on {} × {}", gpus.len(), gpus[0].info.name),
        x_label: "bytes per GPU".into(),
        y_label: "bus GB/s".into(),
        x_axis: XAxis::Log2Bytes,
        series,
        h_lines: links.map(|(name, gbs)| vec![(gbs, name)]).unwrap_or_default(),
        v_lines: vec![],
        x_unit: "bytes".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    out.tables.push(table);
    Ok(out)
}

/// One all-reduce of `count` elements over poisoned receive buffers, every rank's result
/// compared with the CPU's sum. `None` when right.
pub fn verify(
    gpus: &[&Gpu],
    comms: &Comms,
    buffers: &[(DeviceBuffer, DeviceBuffer)],
    count: usize,
    dtype: DataType,
    seed: u64,
) -> Result<Option<String>> {
    for (rank, (gpu, (send, recv))) in gpus.iter().zip(buffers).enumerate() {
        let rank_seed = shard_seed(seed, (rank * count) as u64);
        match dtype {
            DataType::I32 => fill_random_i32(gpu, send, count, rank_seed)?,
            DataType::F32 => fill_random_f32(gpu, send, count, rank_seed)?,
        }
        recv.fill_words(gpu, POISON, count)?;
    }
    let send: Vec<u64> = buffers.iter().map(|b| b.0.ptr()).collect();
    let recv: Vec<u64> = buffers.iter().map(|b| b.1.ptr()).collect();
    // SAFETY: every rank's buffers hold `count` 4-byte elements.
    unsafe { comms.all_reduce(gpus, &send, &recv, count, dtype)? };
    let ranks = gpus.len();
    for (rank, (gpu, (_, recv))) in gpus.iter().zip(buffers).enumerate() {
        let got = recv.read::<u32>(gpu, count)?;
        if let Some(wrong) = first_wrong(&got, ranks, count, dtype, seed) {
            return Ok(Some(format!(
                "m2 {} all-reduce of {count} elements over {ranks} GPUs: on rank {rank}, {wrong}",
                dtype.name()
            )));
        }
    }
    Ok(None)
}

/// The first element of one rank's result that differs from the CPU's sum, in parallel
/// chunks.
fn first_wrong(got: &[u32], ranks: usize, count: usize, dtype: DataType, seed: u64) -> Option<String> {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(64);
    let chunk = count.div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .step_by(chunk)
            .map(|start| {
                scope.spawn(move || {
                    (start..(start + chunk).min(count))
                        .find_map(|i| wrong_at(got[i], i, ranks, count, dtype, seed))
                })
            })
            .collect();
        handles.into_iter().find_map(|h| h.join().expect("a verification thread"))
    })
}

/// Element `i` of a result, if it is not the sum of the ranks' element `i`.
fn wrong_at(bits: u32, i: usize, ranks: usize, count: usize, dtype: DataType, seed: u64) -> Option<String> {
    let index = |rank: usize| (rank * count + i) as u64;
    match dtype {
        DataType::I32 => {
            let want = (0..ranks).fold(0i32, |acc, r| acc.wrapping_add(random_i32(seed, index(r))));
            (bits as i32 != want).then(|| format!("element {i} is {}, expected {want}", bits as i32))
        }
        DataType::F32 => {
            let values: Vec<f64> = (0..ranks).map(|r| f64::from(random_f32(seed, index(r)))).collect();
            let want: f64 = values.iter().sum();
            let got = f64::from(f32::from_bits(bits));
            // Each of the ranks − 1 additions rounds once, by at most half an ulp of a
            // partial sum, which is at most the sum of the magnitudes.
            let bound = (ranks as f64 - 1.0) * f64::from(f32::EPSILON) / 2.0
                * values.iter().map(|v| v.abs()).sum::<f64>();
            let close = (got - want).abs() <= bound; // false for NaN
            (!close).then(|| format!("element {i} is {got}, expected {want} (± {bound:e})"))
        }
    }
}
