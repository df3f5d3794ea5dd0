//! p6: load latency by pointer chasing (kernels in `kernels/src/probes/p6_latency.rs`).

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use common::input::splitmix64;
use common::probes::CHASE_NODE_STRIDE;

/// Working sets from 2^13 B (8 KiB, well inside L1) to 2^29 B (512 MiB, far past L2).
pub const WORKING_SETS_LOG2: std::ops::RangeInclusive<u32> = 13..=29;

/// Loads per timed chase (after an untimed warm-up lap).
pub const TIMED_STEPS: u64 = 1 << 16;

/// Chains up to this many nodes (128 MiB) are walked one whole lap before the timed chase
/// (so a set that fits a cache is all in it, and one that does not has pushed its first
/// nodes out) and that lap is checked to visit every node once. Longer chains would take
/// seconds per lap; they get an L2 flush instead, so the timed chase starts cold.
pub const LAP_MAX_NODES: usize = 1 << 20;

/// Bytes per node: one 128-byte line.
const NODE_BYTES: usize = CHASE_NODE_STRIDE as usize * 4;

/// The working set `hbm_latency_ns` chases: four times the largest L2 so far.
const HBM_SET_BYTES: usize = 1 << 28;

/// A random cycle through `nodes` nodes, laid out for the chase kernels: element
/// `i · CHASE_NODE_STRIDE` holds the element index of node `i`'s successor. Sattolo's
/// algorithm, so the permutation is one single cycle.
pub fn build_chain(nodes: usize, seed: u64) -> Vec<i32> {
    let mut successor: Vec<usize> = (0..nodes).collect();
    for i in (1..nodes).rev() {
        let j = (splitmix64(seed.wrapping_add(i as u64)) % i as u64) as usize;
        successor.swap(i, j);
    }
    let stride = CHASE_NODE_STRIDE as usize;
    let mut elements = vec![0i32; nodes * stride];
    for (i, &next) in successor.iter().enumerate() {
        elements[i * stride] = (next * stride) as i32;
    }
    elements
}

/// What one lap of a chain of `nodes` nodes adds up to: every node's element index once.
pub fn lap_sum(nodes: usize) -> u64 {
    let n = nodes as u64;
    u64::from(CHASE_NODE_STRIDE) * n * (n - 1) / 2
}

/// The four values a chase writes: cycles, nanoseconds, last node, sum of nodes visited.
pub struct Chase {
    pub cycles: u64,
    pub nanos: u64,
    pub last: u64,
    pub visited: u64,
}

/// One thread of `gpu` walks `steps` nodes of `chain` (which may live on another GPU, with
/// peer access on) with the chase kernel `kernel`.
pub fn chase(gpu: &Gpu, kernel: &str, chain: &DeviceBuffer, steps: u64, out: &DeviceBuffer) -> Result<Chase> {
    let function = gpu.function(kernel)?;
    let args = [Arg::U64(chain.ptr()), Arg::U64(steps), Arg::U64(out.ptr())];
    // SAFETY: pointer_chase_*(next, steps, out) with one thread, a chain of valid indices
    // starting at 0, and four u64 in `out`.
    unsafe { gpu.launch(&function, launch_config(1, 1, 0), &args)? };
    let r = out.read::<u64>(gpu, 4)?;
    Ok(Chase { cycles: r[0], nanos: r[1], last: r[2], visited: r[3] })
}

/// For the tests of hang handling only (`host --inject-hang`): queues a pointer chase
/// with no end in sight (2^64 − 1 steps round a two-node chain, centuries at any clock)
/// and returns; the next wait for the GPU finds it hung.
pub fn queue_endless_chase(gpu: &Gpu, seed: u64) -> Result<()> {
    let (chain, _) = chain_on_device(gpu, 2 * NODE_BYTES, seed)?;
    let out = DeviceBuffer::alloc(gpu, 4 * 8, "the chase's results")?;
    let function = gpu.function("pointer_chase_cached")?;
    let args = [Arg::U64(chain.ptr()), Arg::U64(u64::MAX), Arg::U64(out.ptr())];
    // SAFETY: as in `chase`: one thread, a chain of valid indices from 0, four u64 in
    // `out`. The buffers outlive the kernel: the process ends before they are freed, since
    // freeing waits for the kernel, and the wait that finds it hung stops the process.
    unsafe { gpu.launch(&function, launch_config(1, 1, 0), &args)? };
    std::mem::forget((chain, out));
    Ok(())
}

/// Loads a fresh chain of `bytes` bytes onto the device.
pub fn chain_on_device(gpu: &Gpu, bytes: usize, seed: u64) -> Result<(DeviceBuffer, usize)> {
    let nodes = (bytes / NODE_BYTES).max(2);
    let mut buffer = DeviceBuffer::alloc(gpu, nodes * NODE_BYTES, "a pointer-chase chain")?;
    buffer.upload(gpu, &build_chain(nodes, seed))?;
    Ok((buffer, nodes))
}

/// Latency of a load from HBM in nanoseconds: a cold chase (L2 flushed) through a working
/// set four times the largest L2. For the occupancy probe's Little's-law line.
pub fn hbm_latency_ns(ctx: &ProbeContext) -> Result<f64> {
    let (chain, _) = chain_on_device(ctx.gpu, HBM_SET_BYTES, ctx.seed)?;
    let out = DeviceBuffer::alloc(ctx.gpu, 32, "the chase's results")?;
    ctx.timer.flush_l2(ctx.gpu)?;
    let timed = chase(ctx.gpu, "pointer_chase_cached", &chain, TIMED_STEPS / 4, &out)?;
    Ok(timed.nanos as f64 / (TIMED_STEPS / 4) as f64)
}

/// Walks one lap of a fresh chain of `nodes` nodes and checks that it returns to node 0
/// having visited every node once. `None` when right.
pub fn check_lap(gpu: &Gpu, nodes: usize, seed: u64) -> Result<Option<String>> {
    let (chain, nodes) = chain_on_device(gpu, nodes * NODE_BYTES, seed)?;
    let out = DeviceBuffer::alloc(gpu, 32, "the chase's results")?;
    lap_mismatch(gpu, &chain, nodes, &out)
}

fn lap_mismatch(gpu: &Gpu, chain: &DeviceBuffer, nodes: usize, out: &DeviceBuffer) -> Result<Option<String>> {
    let lap = chase(gpu, "pointer_chase_cached", chain, nodes as u64, out)?;
    Ok((lap.last != 0 || lap.visited != lap_sum(nodes)).then(|| {
        format!(
            "chase over {nodes} nodes: one lap ended at element {} with sum {} (expected 0 and {})",
            lap.last,
            lap.visited,
            lap_sum(nodes)
        )
    }))
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let out_buffer = DeviceBuffer::alloc(gpu, 32, "the chase's results")?;
    let mut out = ProbeOutput::default();
    let mut table = Table::new(
        format!(
            "p6 load latency: one thread chasing a random cycle of 128-byte-apart nodes, {TIMED_STEPS} loads"
        ),
        &[
            "working set",
            "L1 allowed (.ca) cycles",
            ".ca ns",
            "L2 only (.cg) cycles",
            ".cg ns",
            "one lap visits every node",
        ],
    );
    let (mut cached_series, mut l2_series) = (Vec::new(), Vec::new());
    for log2 in WORKING_SETS_LOG2 {
        let bytes = 1usize << log2;
        let (chain, nodes) = chain_on_device(gpu, bytes, ctx.seed ^ u64::from(log2))?;
        let lap = if nodes <= LAP_MAX_NODES {
            let failure = lap_mismatch(gpu, &chain, nodes, &out_buffer)?;
            let verdict = if failure.is_some() { "NO" } else { "yes" };
            out.failures.extend(failure);
            verdict
        } else {
            "not checked"
        };
        let mut row = vec![Cell::Text(size(bytes))];
        for (kernel, series) in
            [("pointer_chase_cached", &mut cached_series), ("pointer_chase_l2", &mut l2_series)]
        {
            if nodes <= LAP_MAX_NODES {
                chase(gpu, kernel, &chain, nodes as u64, &out_buffer)?; // one lap: warm what fits
            } else {
                ctx.timer.flush_l2(gpu)?;
            }
            let timed = chase(gpu, kernel, &chain, TIMED_STEPS, &out_buffer)?;
            let (cycles, ns) =
                (timed.cycles as f64 / TIMED_STEPS as f64, timed.nanos as f64 / TIMED_STEPS as f64);
            row.push(Cell::Num(cycles, 0));
            row.push(Cell::Num(ns, 1));
            series.push((bytes as f64, ns));
        }
        row.push(lap.into());
        table.push(row);
    }
    let ns_at = |series: &[(f64, f64)], bytes: usize| {
        series.iter().find(|p| p.0 == bytes as f64).map_or(f64::NAN, |p| p.1)
    };
    let (l1, l2, hbm) = (
        ns_at(&cached_series, 1 << *WORKING_SETS_LOG2.start()),
        ns_at(&l2_series, 1 << 20),
        ns_at(&cached_series, 1 << *WORKING_SETS_LOG2.end()),
    );
    table.notes.push(format!(
        "L1 hit {l1:.1} ns (8 KiB, L1 allowed); L2 hit {l2:.1} ns (1 MiB, L1 skipped); HBM {hbm:.1} ns (512 MiB)"
    ));
    table.notes.push(format!(
        "cycles from %clock64 (SM clock, peak {} MHz), ns from %globaltimer",
        gpu.info.sm_clock_khz / 1000
    ));
    out.tables.push(table);
    out.plots.push(Plot {
        name: "p6-latency".into(),
        title: format!("Load latency by working set on {}", gpu.info.name),
        x_label: "working set (bytes)".into(),
        y_label: "ns per dependent load".into(),
        x_axis: XAxis::Log2Bytes,
        series: vec![
            Series { name: "ld.global.ca (L1 allowed)".into(), points: cached_series },
            Series { name: "ld.global.cg (L2 only)".into(), points: l2_series },
        ],
        h_lines: vec![],
        v_lines: vec![(gpu.info.l2_bytes as f64, "L2 size".into())],
        x_unit: "bytes".into(),
        y_unit: "ns".into(),
        ..Plot::default()
    });
    Ok(out)
}

/// `8 KiB`, `512 MiB`.
pub fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}
