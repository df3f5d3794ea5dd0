//! p4: warp divergence (kernels in `kernels/src/probes/p4_divergence.rs`).

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::Result;
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::report::table::{Cell, Table};
use common::probes::{divergence_start, divergence_step_a, divergence_step_b};

/// Steps of path A or B per thread.
pub const ITERS: u32 = 4096;

const BLOCK: u32 = 256;
const BLOCKS_PER_SM: u32 = 8;

/// Distinct starting values (`divergence_start` repeats every 1024 threads).
const STARTS: usize = 1024;

/// Relative error allowed: the GPU may fuse each step's multiply-add into one rounding.
const MAX_RELATIVE: f32 = 1e-4;

/// Which path thread `g` of a `BLOCK`-thread grid takes in each kernel: `true` for A.
#[derive(Clone, Copy, Debug)]
pub enum Choice {
    ThreadParity,
    WarpParity,
}

impl Choice {
    fn path_a(self, g: usize) -> bool {
        let t = g % BLOCK as usize;
        match self {
            Choice::ThreadParity => t.is_multiple_of(2),
            Choice::WarpParity => (t / 32).is_multiple_of(2),
        }
    }
}

/// The kernels, how each splits its threads, and that in words.
pub const KERNELS: &[(&str, Choice, &str)] = &[
    ("uniform_by_warp", Choice::WarpParity, "branch on warp index: each warp runs one path"),
    ("diverge_by_lane", Choice::ThreadParity, "branch on thread parity: each warp runs both paths"),
    ("predicated_by_lane", Choice::ThreadParity, "per-step choice: both computed, one selected"),
];

/// `iters` steps of one path from each of the `STARTS` starting values.
fn reference(step: fn(f32) -> f32) -> Vec<f32> {
    (0..STARTS)
        .map(|s| {
            let mut v = divergence_start(s as u64);
            for _ in 0..ITERS {
                v = step(v);
            }
            v
        })
        .collect()
}

/// How many instructions of `ptx` have `mnemonic` (e.g. `bra`, `selp`), guarded or not.
pub fn count_instructions(ptx: &str, mnemonic: &str) -> usize {
    ptx.lines()
        .filter(|line| {
            let mut text = line.trim_start();
            if text.starts_with('@') {
                text = text.split_once(char::is_whitespace).map_or("", |(_, rest)| rest).trim_start();
            }
            text.strip_prefix(mnemonic).is_some_and(|rest| rest.starts_with(['.', ' ', '\t']))
        })
        .count()
}

/// The device buffers of one divergence run: a value per thread, a ballot per warp.
pub struct DivergenceBuffers {
    pub values: DeviceBuffer,
    pub masks: DeviceBuffer,
}

impl DivergenceBuffers {
    pub fn new(gpu: &Gpu, grid: u32) -> Result<Self> {
        let threads = (grid * BLOCK) as usize;
        Ok(Self {
            values: DeviceBuffer::alloc(gpu, threads * 4, "the divergence probe's results")?,
            masks: DeviceBuffer::alloc(gpu, threads / 32 * 4, "the divergence probe's ballots")?,
        })
    }
}

/// One launch of `kernel` over `grid` blocks.
fn launch_divergence(gpu: &Gpu, kernel: &str, buffers: &DivergenceBuffers, grid: u32) -> Result<()> {
    let threads = (grid * BLOCK) as usize;
    assert!(
        threads * 4 <= buffers.values.bytes() && threads / 32 * 4 <= buffers.masks.bytes(),
        "buffers too small"
    );
    let function = gpu.function(kernel)?;
    let args = [Arg::U64(buffers.values.ptr()), Arg::U64(buffers.masks.ptr()), Arg::U32(ITERS)];
    // SAFETY: <kernel>(out: *mut f32, masks: *mut u32, iters: u32) with one f32 per thread
    // and one u32 per warp (checked above), BLOCK a multiple of 32.
    unsafe { gpu.launch(&function, launch_config(grid, BLOCK, 0), &args) }
}

/// The ballot warp `w` must report: bit `l` set when its lane `l` takes path A.
pub fn expected_ballot(choice: Choice, w: usize) -> u32 {
    (0..32).filter(|&l| choice.path_a(w * 32 + l)).fold(0, |bits, l| bits | 1 << l)
}

/// Runs `kernel` once over `grid` blocks and checks every thread's value against the CPU
/// and every warp's ballot. Returns the first two warps' ballots, or the first mismatch.
pub fn check_divergence(
    gpu: &Gpu,
    kernel: &str,
    choice: Choice,
    grid: u32,
    buffers: &DivergenceBuffers,
) -> Result<std::result::Result<[u32; 2], String>> {
    let threads = (grid * BLOCK) as usize;
    let (ref_a, ref_b) = (reference(divergence_step_a), reference(divergence_step_b));
    buffers.values.fill_words(gpu, 0x7fc0_0000, threads)?; // NaN: never passes
    buffers.masks.fill_words(gpu, 0xDEAD_BEEF, threads / 32)?;
    launch_divergence(gpu, kernel, buffers, grid)?;
    let got = buffers.values.read::<f32>(gpu, threads)?;
    let wrong = got.iter().enumerate().find_map(|(g, &v)| {
        let want = if choice.path_a(g) { ref_a[g % STARTS] } else { ref_b[g % STARTS] };
        let close = approx::relative_eq!(v, want, epsilon = f32::EPSILON, max_relative = MAX_RELATIVE);
        (!close).then(|| format!("{kernel}: thread {g} computed {v}, expected {want}"))
    });
    if let Some(failure) = wrong {
        return Ok(Err(failure));
    }
    let masks = buffers.masks.read::<u32>(gpu, threads / 32)?;
    if let Some((w, &m)) = masks.iter().enumerate().find(|&(w, &m)| m != expected_ballot(choice, w)) {
        return Ok(Err(format!(
            "{kernel}: warp {w} voted {m:#010x}, expected {:#010x}",
            expected_ballot(choice, w)
        )));
    }
    Ok(Ok([masks[0], masks[1]]))
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let gpu = ctx.gpu;
    let grid = gpu.info.multiprocessors * BLOCKS_PER_SM;
    let threads = (grid * BLOCK) as usize;
    let buffers = DivergenceBuffers::new(gpu, grid)?;
    let mut out = ProbeOutput::default();
    let mut table = Table::new(
        format!("p4 warp divergence: {ITERS} multiply-adds per thread on path A or B, {threads} threads"),
        &[
            "kernel",
            "median µs",
            "time / uniform",
            "ballot of warps 0 and 1",
            "branches (PTX bra)",
            "selects (PTX selp)",
            "how it splits",
        ],
    );
    table.detail(&["how it splits"]);
    let mut uniform_ms = None;
    for &(kernel, choice, how) in KERNELS {
        let ballots = match check_divergence(gpu, kernel, choice, grid, &buffers)? {
            Ok(ballots) => ballots,
            Err(failure) => {
                out.failures.push(failure);
                continue;
            }
        };
        let timing = ctx.timer.measure(gpu, || launch_divergence(gpu, kernel, &buffers, grid))?;
        let base = *uniform_ms.get_or_insert(timing.median_ms);
        let ptx = gpu.ptx_of(kernel).unwrap_or_default();
        table.push(vec![
            kernel.into(),
            Cell::Time(timing),
            Cell::Num(timing.median_ms / base, 2),
            format!("{:08x} {:08x}", ballots[0], ballots[1]).into(),
            Cell::Int(count_instructions(ptx, "bra") as i64),
            Cell::Int(count_instructions(ptx, "selp") as i64),
            how.into(),
        ]);
    }
    table.notes.push(
        "results checked against the CPU for every thread (relative error ≤ 1e-4), ballots for every warp"
            .into(),
    );
    table.notes.push("ballot (vote.sync.ballot): bit l set when lane l takes path A; a warp diverges when it is neither ffffffff nor 00000000".into());
    out.tables.push(table);
    Ok(out)
}
