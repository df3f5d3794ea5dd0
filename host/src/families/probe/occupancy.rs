//! p5: latency hiding and occupancy (kernels in `kernels/src/probes/p5_occupancy.rs`).

use super::context::{ProbeContext, ProbeOutput};
use super::latency::hbm_latency_ns;
use super::model::bytes_in_flight_needed;
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::inputs::fill_random_i32;
use crate::base::inputs::reference_sum;
use crate::base::memory::DeviceBuffer;
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};

/// Elements summed per run: 1 GiB of `i32`.
pub const ELEMENTS: usize = 1 << 28;

/// Loads in flight per thread, and the kernel that issues that many.
pub const ILPS: &[(u32, &str)] =
    &[(1, "stream_sum_ilp1"), (2, "stream_sum_ilp2"), (4, "stream_sum_ilp4"), (8, "stream_sum_ilp8")];

pub const BLOCK_SIZES: &[u32] = &[64, 128, 256, 512, 1024];

/// Blocks launched per SM (capped by what fits: more would only queue).
pub const BLOCKS_PER_SM: &[u32] = &[1, 2, 4, 8, 16, 32];

/// Bytes one load requests.
const LOAD_BYTES: u32 = 16;

/// One `stream_sum_ilpN` over `n` elements: zero the result, launch.
fn launch_stream_sum(
    gpu: &Gpu,
    kernel: &str,
    input: &DeviceBuffer,
    result: &DeviceBuffer,
    n: usize,
    grid: u32,
    block: u32,
) -> Result<()> {
    assert!(n * 4 <= input.bytes() && block.is_multiple_of(32), "input too small or block not whole warps");
    let function = gpu.function(kernel)?;
    result.fill_words(gpu, 0, 1)?;
    let args = [Arg::U64(input.ptr()), Arg::U64(result.ptr()), Arg::U64(n as u64)];
    // SAFETY: stream_sum_ilpN(input, result, n): block a multiple of 32 and input holding
    // n i32 (checked above), 16-byte aligned; result zeroed just before.
    unsafe { gpu.launch(&function, launch_config(grid, block, 0), &args) }
}

/// Runs `kernel` once over `n` elements and compares the sum with `expected`. `None` when
/// right.
#[allow(clippy::too_many_arguments)]
pub fn check_stream_sum(
    gpu: &Gpu,
    kernel: &str,
    input: &DeviceBuffer,
    result: &DeviceBuffer,
    n: usize,
    expected: i32,
    grid: u32,
    block: u32,
) -> Result<Option<String>> {
    launch_stream_sum(gpu, kernel, input, result, n, grid, block)?;
    let got = result.read::<i32>(gpu, 1)?[0];
    Ok((got != expected)
        .then(|| format!("{kernel}, {grid} blocks of {block}, n = {n}: sum {got}, expected {expected}")))
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let info = &gpu.info;
    let input = DeviceBuffer::alloc(gpu, ELEMENTS * 4, "the occupancy probe's input")?;
    let result = DeviceBuffer::alloc(gpu, 4, "the occupancy probe's result")?;
    fill_random_i32(gpu, &input, ELEMENTS, ctx.seed)?;
    let expected = reference_sum(ctx.seed, ELEMENTS);
    let latency_ns = hbm_latency_ns(ctx)?;
    let peak = info.theoretical_bandwidth();
    let needed_per_sm = bytes_in_flight_needed(peak, latency_ns * 1e-9) / f64::from(info.multiprocessors);

    let mut out = ProbeOutput::default();
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for &(ilp, kernel) in ILPS {
        let function = gpu.function(kernel)?;
        let mut points = Vec::new();
        for &block in BLOCK_SIZES {
            let fits = gpu.full_wave(&function, block, 0)? / info.multiprocessors;
            for &per_sm in BLOCKS_PER_SM.iter().filter(|&&b| b <= fits) {
                let grid = per_sm * info.multiprocessors;
                if let Some(failure) =
                    check_stream_sum(gpu, kernel, &input, &result, ELEMENTS, expected, grid, block)?
                {
                    out.failures.push(failure);
                    continue;
                }
                let timing = ctx.timer.measure(gpu, || {
                    launch_stream_sum(gpu, kernel, &input, &result, ELEMENTS, grid, block)
                })?;
                let gbs = timing.gigabytes_per_second((ELEMENTS * 4) as f64);
                let threads_per_sm = per_sm * block;
                let in_flight = f64::from(threads_per_sm * ilp * LOAD_BYTES);
                rows.push((
                    in_flight,
                    vec![
                        Cell::Int(i64::from(ilp)),
                        Cell::Int(i64::from(block)),
                        Cell::Int(i64::from(per_sm)),
                        Cell::Num(100.0 * f64::from(threads_per_sm) / f64::from(info.max_threads_per_sm), 0),
                        Cell::Num(in_flight / 1024.0, 1),
                        Cell::Figure(gbs, 0, "GB/s"),
                        Cell::OfLimit(100.0 * gbs * 1e9 / peak, 1),
                    ],
                ));
                points.push((in_flight, gbs));
            }
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(Series { name: format!("{ilp} load(s) in flight per thread"), points });
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut table = Table::new(
        format!(
            "p5 latency hiding: sum of 2^{} i32, grid = blocks per SM × {} SMs",
            ELEMENTS.trailing_zeros(),
            info.multiprocessors
        ),
        &[
            "loads per thread",
            "block",
            "blocks per SM",
            "occupancy %",
            "KiB in flight per SM",
            "GB/s",
            "% of theoretical",
        ],
    );
    for (_, row) in rows {
        table.push(row);
    }
    table.notes.push(format!(
        "Little's law: {:.0} GB/s × {latency_ns:.0} ns HBM latency (p6's chase) = {:.1} MiB in flight, {:.1} KiB per SM",
        peak / 1e9,
        needed_per_sm * f64::from(info.multiprocessors) / (1 << 20) as f64,
        needed_per_sm / 1024.0
    ));
    table.notes.push("occupancy % = resident threads per SM / the SM's maximum (blocks that fit, from the occupancy calculator)".into());
    table.notes.push("every configuration's sum checked exactly against the CPU".into());
    out.tables.push(table);
    out.plots.push(Plot {
        name: "p5-occupancy".into(),
        title: format!("Bandwidth against bytes in flight on {}", info.name),
        x_label: "bytes requested and not yet returned, per SM".into(),
        y_label: "GB/s".into(),
        x_axis: XAxis::Log2Bytes,
        series,
        h_lines: vec![(peak / 1e9, "theoretical".into())],
        v_lines: vec![(needed_per_sm, "Little's law".into())],
        x_unit: "bytes".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    Ok(out)
}
