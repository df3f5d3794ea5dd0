//! p2: shared-memory bank conflicts, measured beside the bank model (kernels in
//! `kernels/src/probes/p2_bank_conflicts.rs`).

use super::context::{ProbeContext, ProbeOutput};
use super::model::bank_conflict_degree;
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use common::probes::{BANK_PROBE_SHARED_BYTES, BANK_PROBE_UNROLL, bank_probe_word};

/// Element strides, as in the table of the lab “CUDA optimisation: global memory, shared memory”.
pub const STRIDES: &[u32] = &[1, 2, 4, 8, 16, 32];

/// Element widths in bytes and the kernel that reads each.
pub const WIDTHS: &[(u32, &str)] = &[(2, "shared_read_b16"), (4, "shared_read_b32"), (8, "shared_read_b64")];

/// Reads per thread (a multiple of `BANK_PROBE_UNROLL`).
pub const REPS: u32 = 4096;

const BLOCK: u32 = 256;

/// Blocks per SM: enough resident warps to keep the shared-memory pipe busy.
const BLOCKS_PER_SM: u32 = 8;

/// The value lane `lane` reads at `stride` for `width`-byte elements, as the kernel's fill
/// left it (little-endian words).
pub fn element_value(width: u32, stride: u32, lane: u32) -> u64 {
    let e = lane * stride;
    match width {
        2 => u64::from((bank_probe_word(e / 2) >> (16 * (e % 2))) & 0xffff),
        4 => u64::from(bank_probe_word(e)),
        8 => u64::from(bank_probe_word(2 * e)) | (u64::from(bank_probe_word(2 * e + 1)) << 32),
        _ => panic!("no kernel reads {width}-byte elements"),
    }
}

/// One launch of `kernel` (reading `width`-byte elements) at `stride`, `grid` blocks.
fn launch_bank(gpu: &Gpu, kernel: &str, sums: &DeviceBuffer, stride: u32, grid: u32) -> Result<()> {
    assert!(stride <= 32, "the probe's shared array holds strides up to 32");
    assert!((grid * BLOCK) as usize * 8 <= sums.bytes(), "one u64 per thread");
    let function = gpu.function(kernel)?;
    let args = [Arg::U64(sums.ptr()), Arg::U32(stride), Arg::U32(REPS)];
    // SAFETY: shared_read_bN(out, stride, reps): one u64 per thread and stride ≤ 32 (both
    // checked above), reps a multiple of the unroll, BANK_PROBE_SHARED_BYTES of shared memory.
    unsafe { gpu.launch(&function, launch_config(grid, BLOCK, BANK_PROBE_SHARED_BYTES), &args) }
}

/// Runs `kernel` once at `stride` over `grid` blocks and checks every thread's sum.
/// `None` when right.
pub fn check_bank(
    gpu: &Gpu,
    width: u32,
    kernel: &str,
    stride: u32,
    grid: u32,
    sums: &DeviceBuffer,
) -> Result<Option<String>> {
    let threads = (grid * BLOCK) as usize;
    sums.fill_words(gpu, 0xDEAD_BEEF, threads * 2)?;
    launch_bank(gpu, kernel, sums, stride, grid)?;
    let got = sums.read::<u64>(gpu, threads)?;
    Ok(got.iter().enumerate().find_map(|(t, &g)| {
        let want = u64::from(REPS).wrapping_mul(element_value(width, stride, t as u32 % 32));
        (g != want).then(|| format!("{kernel} stride {stride}: thread {t} summed {g:#x}, expected {want:#x}"))
    }))
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    const { assert!(REPS.is_multiple_of(BANK_PROBE_UNROLL)) };
    let gpu = ctx.gpu;
    let grid = gpu.info.multiprocessors * BLOCKS_PER_SM;
    let threads = (grid * BLOCK) as usize;
    let sums = DeviceBuffer::alloc(gpu, threads * 8, "the bank probe's sums")?;
    let mut out = ProbeOutput::default();
    let mut table = Table::new(
        format!("p2 shared-memory bank conflicts: lane l reads element l·S, {REPS} times, {threads} threads"),
        &["bytes", "stride", "median µs", "GB/s", "predicted ways", "measured slowdown"],
    );
    let mut plot_series = Vec::new();
    for &(width, kernel) in WIDTHS {
        let mut points = Vec::new();
        let mut unit_stride_gbs = None;
        for &stride in STRIDES {
            if let Some(failure) = check_bank(gpu, width, kernel, stride, grid, &sums)? {
                out.failures.push(failure);
                continue;
            }
            let timing = ctx.timer.measure(gpu, || launch_bank(gpu, kernel, &sums, stride, grid))?;
            let gbs = timing.gigabytes_per_second(threads as f64 * f64::from(REPS) * f64::from(width));
            let base = *unit_stride_gbs.get_or_insert(gbs);
            table.push(vec![
                Cell::Int(i64::from(width)),
                Cell::Int(i64::from(stride)),
                Cell::Time(timing),
                Cell::Figure(gbs, 0, "GB/s"),
                Cell::Int(bank_conflict_degree(u64::from(width), u64::from(stride)) as i64),
                Cell::Num(base / gbs, 2),
            ]);
            points.push((f64::from(stride), gbs));
        }
        plot_series.push(Series { name: format!("{width}-byte elements"), points });
    }
    table.notes.push(
        "predicted ways: passes per warp request relative to conflict-free (host::families::probe::model)"
            .into(),
    );
    table
        .notes
        .push("measured slowdown: GB/s at stride 1 over GB/s at this stride, same element width".into());
    out.tables.push(table);
    out.plots.push(Plot {
        name: "p2-bank-conflicts".into(),
        title: format!("Shared-memory reads by stride on {}", gpu.info.name),
        x_label: "stride (elements)".into(),
        y_label: "GB/s (all SMs)".into(),
        x_axis: XAxis::Log2,
        series: plot_series,
        h_lines: vec![],
        v_lines: vec![],
        x_unit: "".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    Ok(out)
}
