//! p3: SAXPY against the theoretical bandwidth and the copy ceiling (kernel in
//! `kernels/src/probes/p3_saxpy.rs`).

use super::context::{ProbeContext, ProbeOutput};
use super::stride_copy::copy_ceiling_gbs;
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::inputs::fill_random_f32;
use crate::base::memory::DeviceBuffer;
use crate::report::table::{Cell, Table};
use common::input::random_f32;

/// Elements per vector: 512 MiB each, far past the L2.
pub const ELEMENTS: usize = 1 << 27;

/// The `a` of `y = a·x + y`.
pub const A: f32 = 2.5;

const BLOCK: u32 = 256;

/// Relative error allowed per element: the GPU may fuse `a·x + y` into one rounding (FMA)
/// where the CPU rounds twice.
const MAX_RELATIVE: f32 = 1e-6;

/// The CPU's `a·x[i] + y[i]` for the inputs of `seed_x` and `seed_y`.
pub fn expected(seed_x: u64, seed_y: u64, i: usize) -> f32 {
    A * random_f32(seed_x, i as u64) + random_f32(seed_y, i as u64)
}

/// The first element where `got` and the reference differ beyond `MAX_RELATIVE` (or is NaN).
pub fn first_mismatch(got: &[f32], seed_x: u64, seed_y: u64) -> Option<String> {
    got.iter().enumerate().find_map(|(i, &g)| {
        let want = expected(seed_x, seed_y, i);
        let close = approx::relative_eq!(g, want, epsilon = f32::EPSILON, max_relative = MAX_RELATIVE);
        (!close).then(|| format!("saxpy: y[{i}] = {g}, expected {want}"))
    })
}

/// One `saxpy` over the first `n` elements of `x` and `y`.
fn launch_saxpy(gpu: &Gpu, x: &DeviceBuffer, y: &DeviceBuffer, n: usize) -> Result<()> {
    assert!(n * 4 <= x.bytes().min(y.bytes()), "saxpy past the end of a buffer");
    let function = gpu.function("saxpy")?;
    let grid = n.div_ceil(BLOCK as usize).max(1) as u32;
    let args = [Arg::U64(x.ptr()), Arg::U64(y.ptr()), Arg::U64(n as u64), Arg::F32(A)];
    // SAFETY: saxpy(x, y, n, a) with x and y holding n f32 (checked above); the grid
    // covers n threads.
    unsafe { gpu.launch(&function, launch_config(grid, BLOCK, 0), &args) }
}

/// Fills `x` and `y` (streams `seed` and `seed ^ 0x5eed`), runs `saxpy` on `n` elements and
/// checks every one against the CPU, and that `y` past `n` is untouched. `None` when right.
pub fn check_saxpy(
    gpu: &Gpu,
    x: &DeviceBuffer,
    y: &DeviceBuffer,
    n: usize,
    seed: u64,
) -> Result<Option<String>> {
    let (seed_x, seed_y) = (seed, seed ^ 0x5eed);
    let capacity = y.bytes() / 4;
    fill_random_f32(gpu, x, n, seed_x)?;
    y.fill_words(gpu, POISON, capacity)?;
    fill_random_f32(gpu, y, n, seed_y)?;
    launch_saxpy(gpu, x, y, n)?;
    let got = y.read::<u32>(gpu, capacity)?;
    let values: Vec<f32> = got[..n].iter().map(|&b| f32::from_bits(b)).collect();
    if let Some(failure) = first_mismatch(&values, seed_x, seed_y) {
        return Ok(Some(failure));
    }
    Ok(got[n..]
        .iter()
        .position(|&w| w != POISON)
        .map(|i| format!("saxpy of {n} elements wrote y[{}]", n + i)))
}

/// Written past the end of `y` before a check: an out-of-bounds write shows.
const POISON: u32 = 0xFFFF_FFFF;

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let bytes = ELEMENTS * 4;
    let x = DeviceBuffer::alloc(gpu, bytes, "SAXPY's x")?;
    let y = DeviceBuffer::alloc(gpu, bytes, "SAXPY's y")?;
    let mut out = ProbeOutput::default();
    out.failures.extend(check_saxpy(gpu, &x, &y, ELEMENTS, ctx.seed)?);
    // Timed runs keep updating y; the values stay finite (|y| grows by at most 2.5 a run).
    let timing = ctx.timer.measure(gpu, || launch_saxpy(gpu, &x, &y, ELEMENTS))?;
    let saxpy = timing.gigabytes_per_second(3.0 * bytes as f64);
    // The copy ceiling, on the same buffers (x copied over y, then y is not needed).
    let (ceiling, copy_timing) = copy_ceiling_gbs(ctx, &x, &y, ELEMENTS, &mut out.failures)?;
    let peak = gpu.info.theoretical_bandwidth() / 1e9;

    let mut table = Table::new(
        format!("p3 SAXPY: y = {A}·x + y, f32, n = 2^{}", ELEMENTS.trailing_zeros()),
        &["kernel", "median µs", "GB/s", "% of theoretical", "% of copy ceiling"],
    );
    table.push(vec![
        "saxpy (2 reads + 1 write)".into(),
        Cell::Time(timing),
        Cell::Figure(saxpy, 1, "GB/s"),
        Cell::OfLimit(100.0 * saxpy / peak, 1),
        Cell::Num(100.0 * saxpy / ceiling, 1),
    ]);
    table.push(vec![
        "copy_16b (1 read + 1 write)".into(),
        Cell::Time(copy_timing),
        Cell::Figure(ceiling, 1, "GB/s"),
        Cell::OfLimit(100.0 * ceiling / peak, 1),
        Cell::Num(100.0, 1),
    ]);
    table.notes.push(format!(
        "verified against the CPU on all {ELEMENTS} elements (relative error ≤ {MAX_RELATIVE:e}); 12 bytes per element counted"
    ));
    out.tables.push(table);
    Ok(out)
}
