//! p1: strided copies beside the copy ceiling and `memcpy` (kernels in
//! `kernels/src/probes/p1_stride_copy.rs`).

use super::context::{ProbeContext, ProbeOutput};
use super::model::{SECTOR_BYTES, sectors_touched};
use crate::base::error::{Context, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::inputs::fill_random_i32;
use crate::base::memory::DeviceBuffer;
use crate::measure::timing::Timing;
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use cudarc::driver::sys;

/// Elements of each buffer: 256 MiB of `f32`, four times any L2 so far.
pub const ELEMENTS: usize = 1 << 26;

/// The strides of the lab “CUDA optimisation: global memory, shared memory”, and beyond: from stride 8 every element has its own sector.
pub const STRIDES: &[usize] = &[1, 2, 4, 8, 16, 32];

const BLOCK: u32 = 256;

/// Written over the destination before each run: what a skipped element still holds.
const POISON: u32 = 0xFFFF_FFFF;

/// `cuMemcpyDtoDAsync` of `bytes`, timed; GB/s counting the bytes read and written.
pub fn memcpy_gbs(ctx: &ProbeContext, src: &DeviceBuffer, dst: &DeviceBuffer, bytes: usize) -> Result<f64> {
    let stream = ctx.gpu.stream.cu_stream();
    ctx.gpu.make_current()?;
    let timing = ctx.timer.measure(ctx.gpu, || {
        // SAFETY: both buffers hold `bytes` bytes and do not overlap.
        unsafe { sys::cuMemcpyDtoDAsync_v2(dst.ptr(), src.ptr(), bytes, stream) }
            .result()
            .context("device-to-device memcpy")
    })?;
    Ok(timing.gigabytes_per_second(2.0 * bytes as f64))
}

/// One `copy_16b` on `gpu` of `units` 16-byte units from `src` to `dst` (either may be on
/// another GPU, with peer access on).
pub fn launch_copy_16b(gpu: &Gpu, src: &DeviceBuffer, dst: &DeviceBuffer, units: usize) -> Result<()> {
    assert!(units * 16 <= src.bytes().min(dst.bytes()), "copy past the end of a buffer");
    let function = gpu.function("copy_16b")?;
    let grid = gpu.full_wave(&function, BLOCK, 0)?;
    let args = [Arg::U64(src.ptr()), Arg::U64(dst.ptr()), Arg::U64(units as u64)];
    // SAFETY: copy_16b(src, dst, units) over two 16-byte aligned buffers of at least
    // `units` units (checked above).
    unsafe { gpu.launch(&function, launch_config(grid, BLOCK, 0), &args) }
}

/// Copies `units` units with `copy_16b` over a poisoned destination and checks that the
/// copy equals the source and that nothing past it was written. `None` when right.
pub fn check_copy_16b(
    gpu: &Gpu,
    src: &DeviceBuffer,
    dst: &DeviceBuffer,
    units: usize,
) -> Result<Option<String>> {
    let words = dst.bytes() / 4;
    dst.fill_words(gpu, POISON, words)?;
    launch_copy_16b(gpu, src, dst, units)?;
    let (source, copy) = (src.read::<u32>(gpu, units * 4)?, dst.read::<u32>(gpu, words)?);
    if let Some(i) = (0..units * 4).find(|&i| copy[i] != source[i]) {
        return Ok(Some(format!(
            "copy_16b of {units} units: word {i} is {:#010x}, expected {:#010x}",
            copy[i], source[i]
        )));
    }
    Ok(copy[units * 4..]
        .iter()
        .position(|&w| w != POISON)
        .map(|i| format!("copy_16b of {units} units wrote word {}", units * 4 + i)))
}

/// `copy_16b` of `elements` 4-byte elements, verified, then timed; GB/s counting the bytes
/// read and written, and the timing it comes from. A wrong copy is recorded in `failures`.
pub fn copy_ceiling_gbs(
    ctx: &ProbeContext,
    src: &DeviceBuffer,
    dst: &DeviceBuffer,
    elements: usize,
    failures: &mut Vec<String>,
) -> Result<(f64, Timing)> {
    assert!(elements.is_multiple_of(4), "the copy ceiling copies whole 16-byte units");
    failures.extend(check_copy_16b(ctx.gpu, src, dst, elements / 4)?);
    let timing = ctx.timer.measure(ctx.gpu, || launch_copy_16b(ctx.gpu, src, dst, elements / 4))?;
    Ok((timing.gigabytes_per_second(2.0 * (elements * 4) as f64), timing))
}

/// One `stride_copy_f32` of `count` elements at `stride` between buffers of `elements`.
fn launch_strided(
    gpu: &Gpu,
    src: &DeviceBuffer,
    dst: &DeviceBuffer,
    count: usize,
    stride: usize,
) -> Result<()> {
    assert!(count * stride * 4 <= src.bytes().min(dst.bytes()), "strided copy past the end of a buffer");
    let function = gpu.function("stride_copy_f32")?;
    let grid = count.div_ceil(BLOCK as usize).max(1) as u32;
    let args = [Arg::U64(src.ptr()), Arg::U64(dst.ptr()), Arg::U64(count as u64), Arg::U64(stride as u64)];
    // SAFETY: stride_copy_f32(src, dst, count, stride): both buffers hold count·stride f32
    // (checked above) and the grid covers count threads.
    unsafe { gpu.launch(&function, launch_config(grid, BLOCK, 0), &args) }
}

/// Runs one strided copy of `elements / stride` elements over a poisoned destination and
/// checks that exactly the elements `i · stride` landed; `source` is the first `elements`
/// words of `src` as the host read them. `None` when right.
pub fn check_stride_copy(
    gpu: &Gpu,
    source: &[u32],
    src: &DeviceBuffer,
    dst: &DeviceBuffer,
    stride: usize,
) -> Result<Option<String>> {
    let (elements, count) = (source.len(), source.len() / stride);
    dst.fill_words(gpu, POISON, elements)?;
    launch_strided(gpu, src, dst, count, stride)?;
    Ok(strided_mismatch(source, &dst.read::<u32>(gpu, elements)?, stride, count))
}

/// The first element where a strided copy went wrong: copied elements must equal the
/// source, all others must still be poison.
fn strided_mismatch(src: &[u32], dst: &[u32], stride: usize, count: usize) -> Option<String> {
    for (j, (&s, &d)) in src.iter().zip(dst).enumerate() {
        let copied = j % stride == 0 && j / stride < count;
        let want = if copied { s } else { POISON };
        if d != want {
            return Some(format!("stride {stride}: element {j} is {d:#010x}, expected {want:#010x}"));
        }
    }
    None
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let bytes = ELEMENTS * 4;
    let src = DeviceBuffer::alloc(gpu, bytes, "the copy source")?;
    let dst = DeviceBuffer::alloc(gpu, bytes, "the copy destination")?;
    fill_random_i32(gpu, &src, ELEMENTS, ctx.seed)?;
    let mut out = ProbeOutput::default();

    let memcpy = memcpy_gbs(ctx, &src, &dst, bytes)?;
    let (ceiling, _) = copy_ceiling_gbs(ctx, &src, &dst, ELEMENTS, &mut out.failures)?;

    let mut table = Table::new(
        format!("p1 stride copy: dst[i·S] = src[i·S], f32, buffers of {} MiB", bytes >> 20),
        &[
            "stride",
            "elements",
            "median µs",
            "useful GB/s",
            "moved GB/s",
            "% of copy ceiling",
            "bytes moved per useful byte",
        ],
    );
    let (mut useful_series, mut moved_series) = (Vec::new(), Vec::new());
    let source = src.read::<u32>(gpu, ELEMENTS)?;
    for &stride in STRIDES {
        let count = ELEMENTS / stride;
        if let Some(failure) = check_stride_copy(gpu, &source, &src, &dst, stride)? {
            out.failures.push(failure);
            continue;
        }
        let timing = ctx.timer.measure(gpu, || launch_strided(gpu, &src, &dst, count, stride))?;
        let useful = timing.gigabytes_per_second((2 * count * 4) as f64);
        let moved_bytes = 2 * sectors_touched(count as u64, 4, stride as u64) * SECTOR_BYTES;
        let moved = timing.gigabytes_per_second(moved_bytes as f64);
        table.push(vec![
            Cell::Int(stride as i64),
            Cell::Size(count as u64),
            Cell::Time(timing),
            Cell::Figure(useful, 1, "GB/s"),
            Cell::Num(moved, 1),
            Cell::OfLimit(100.0 * useful / ceiling, 1),
            Cell::Num(moved_bytes as f64 / (2 * count * 4) as f64, 1),
        ]);
        useful_series.push((stride as f64, useful));
        moved_series.push((stride as f64, moved));
    }
    table.notes.push(format!(
        "copy ceiling (copy_16b, verified): {ceiling:.1} GB/s; cuMemcpyDtoD: {memcpy:.1} GB/s; both count bytes read + written"
    ));
    table.notes.push(
        "moved = sectors touched × 32 B (read and write): it stays near the ceiling while the useful share falls".into(),
    );
    out.tables.push(table);
    out.plots.push(Plot {
        name: "p1-stride-copy".into(),
        title: format!("Strided copy on {}", gpu.info.name),
        x_label: "stride (elements)".into(),
        y_label: "GB/s (read + write)".into(),
        x_axis: XAxis::Log2,
        series: vec![
            Series { name: "useful bytes".into(), points: useful_series },
            Series { name: "sectors moved".into(), points: moved_series },
        ],
        h_lines: vec![(ceiling, "copy ceiling".into()), (memcpy, "memcpy".into())],
        v_lines: vec![],
        x_unit: "".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    Ok(out)
}
