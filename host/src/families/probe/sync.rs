//! p7: the cost of a block barrier and of a kernel launch (kernels in
//! `kernels/src/probes/p7_sync.rs`).

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::{Context, Result};
use crate::base::gpu::{Arg, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::report::table::{Cell, Table};
use common::probes::BARRIER_UNROLL;
use cudarc::driver::sys::CUevent_flags;
use std::time::Instant;

/// Loop trips of the barrier kernel (each `BARRIER_UNROLL` barriers).
pub const TRIPS: u32 = 1024;

pub const BLOCK_SIZES: &[u32] = &[32, 64, 128, 256, 512, 1024];

/// Back-to-back launches timed together.
pub const LAUNCHES: usize = 2000;

/// Launch-and-wait round trips timed on the host.
pub const ROUND_TRIPS: usize = 500;

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let info = &gpu.info;
    let mut out = ProbeOutput::default();
    let mut table =
        Table::new("p7 synchronization costs", &["what", "threads", "cycles", "µs", "how measured"]);
    table.detail(&["how measured"]);

    let barrier = gpu.function("barrier_cost")?;
    let blocks = info.multiprocessors;
    let cycles_out = DeviceBuffer::alloc(gpu, blocks as usize * 8, "the barrier probe's cycles")?;
    let barriers = f64::from(TRIPS * BARRIER_UNROLL);
    for &block in BLOCK_SIZES {
        cycles_out.fill_words(gpu, 0, blocks as usize * 2)?;
        let args = [Arg::U64(cycles_out.ptr()), Arg::U32(TRIPS)];
        // SAFETY: barrier_cost(out, trips) with one u64 per block.
        unsafe { gpu.launch(&barrier, launch_config(blocks, block, 0), &args)? };
        let cycles = cycles_out.read::<u64>(gpu, blocks as usize)?;
        if cycles.contains(&0) {
            out.failures.push(format!("barrier_cost, block {block}: a block reported no cycles"));
            continue;
        }
        let mean = cycles.iter().sum::<u64>() as f64 / f64::from(blocks) / barriers;
        table.push(vec![
            "block barrier (bar.sync)".into(),
            Cell::Int(i64::from(block)),
            Cell::Num(mean, 1),
            Cell::Num(mean / (info.sm_clock_khz as f64 * 1e3) * 1e6, 4),
            "%clock64 around 8192 barriers, one block per SM".into(),
        ]);
    }

    let empty = gpu.function("empty_kernel")?;
    // SAFETY: empty_kernel takes no arguments.
    let launch = || unsafe { gpu.launch(&empty, launch_config(1, 32, 0), &[]) };
    for _ in 0..10 {
        launch()?;
    }
    gpu.sync("warming up the launch probe")?;
    let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).context("creating an event");
    let (start, stop) = (event()?, event()?);
    start.record(&gpu.stream).context("recording an event")?;
    for _ in 0..LAUNCHES {
        launch()?;
    }
    stop.record(&gpu.stream).context("recording an event")?;
    let per_launch_us =
        f64::from(start.elapsed_ms(&stop).context("timing launches")?) * 1e3 / LAUNCHES as f64;
    table.push(vec![
        "kernel launch boundary, back to back".into(),
        Cell::Int(32),
        Cell::Num(f64::NAN, 0),
        Cell::Num(per_launch_us, 2),
        format!("CUDA events around {LAUNCHES} empty launches").into(),
    ]);

    let begin = Instant::now();
    for _ in 0..ROUND_TRIPS {
        launch()?;
        gpu.sync("a launch round trip")?;
    }
    let round_trip_us = begin.elapsed().as_secs_f64() * 1e6 / ROUND_TRIPS as f64;
    table.push(vec![
        "launch + wait on the host (system-level sync)".into(),
        Cell::Int(32),
        Cell::Num(f64::NAN, 0),
        Cell::Num(round_trip_us, 2),
        format!("host clock around {ROUND_TRIPS} launch + cuStreamSynchronize").into(),
    ]);
    table.notes.push(format!("µs for barriers at the peak SM clock ({} MHz)", info.sm_clock_khz / 1000));
    out.tables.push(table);
    Ok(out)
}
