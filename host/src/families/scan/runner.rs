//! Launching, verifying and timing any step of the scan ladder, CUB's scan and select, a
//! device-to-device copy and an empty launch, on one input.

use super::cub::Cub;
use super::reference::{self, Check, GUARD, POISON};
use super::registry::{ADD_OFFSETS, ElementType, ScanStep, Scheme};
use crate::base::error::{Context, Error, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::inputs::{fill_random_f32, fill_random_i32};
use crate::base::memory::DeviceBuffer;
use crate::measure::timing::{Timer, Timing};
use crate::twins::Code;
use common::scan::{ADD_THREADS, state_words};
use cudarc::driver::{CudaFunction, LaunchConfig, sys};

/// The most blocks a one-dimensional grid may have.
const MAX_GRID: usize = i32::MAX as usize;

/// Compaction's positions and count are 32-bit.
pub const COMPACTION_MAX_N: usize = u32::MAX as usize;

/// Bytes of one element (both element types are 4 bytes).
const ELEMENT_BYTES: usize = 4;

/// One queued operation.
enum Op {
    Launch { function: CudaFunction, cfg: LaunchConfig, args: Vec<Arg> },
}

/// How the single-pass steps are launched: their block size, and the test-only jitter (ns
/// blocks sleep, each a different time, before claiming a tile and before looking back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub block: u32,
    pub jitter: u32,
}

impl Launch {
    /// The step's own block size, no jitter: what the benchmarks run.
    pub fn of(step: &ScanStep) -> Self {
        Launch { block: step.threads, jitter: 0 }
    }
}

/// Where a plan writes: a separate output, or over its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    OutOfPlace,
    InPlace,
}

/// A step's whole scan (or compaction) of one input, ready to replay: every launch with its
/// grid and arguments, and the workspaces they use, made once so that the timed loop only
/// queues work.
pub struct Plan {
    ops: Vec<Op>,
    pub launches: usize,
    /// Registers per thread of the step's main kernel (the tile scan, or the single pass).
    pub registers: Option<u32>,
    /// Threads per block of the main kernel.
    pub block: u32,
    /// Block sums of every level, the single-pass state, compaction's count.
    _workspaces: Vec<DeviceBuffer>,
    count: Option<DeviceBuffer>,
    pub placement: Placement,
}

/// One input of `n` random elements on the device, and the output every plan writes.
pub struct ScanBench<'g> {
    gpu: &'g Gpu,
    pub n: usize,
    pub seed: u64,
    pub element: ElementType,
    /// `n` elements, then [`GUARD`] poisoned words (in-place plans write here).
    input: DeviceBuffer,
    /// `n` + [`GUARD`] words.
    output: DeviceBuffer,
}

/// The arguments of a plan's launches, as built.
struct Builder<'a> {
    gpu: &'a Gpu,
    ops: Vec<Op>,
    workspaces: Vec<DeviceBuffer>,
}

impl Builder<'_> {
    fn launch(
        &mut self,
        function: &CudaFunction,
        grid: usize,
        block: u32,
        shared: u32,
        args: Vec<Arg>,
    ) -> Result<()> {
        if grid > MAX_GRID {
            return Err(Error::new(format!("{grid} blocks: more than a grid holds ({MAX_GRID})")));
        }
        self.ops.push(Op::Launch {
            function: function.clone(),
            cfg: launch_config(grid as u32, block, shared),
            args,
        });
        Ok(())
    }

    /// A workspace of `words` 4-byte words, kept alive by the plan; its address.
    fn words(&mut self, words: usize, what: &str) -> Result<u64> {
        let buffer = DeviceBuffer::alloc(self.gpu, words * 4, what)?;
        let ptr = buffer.ptr();
        self.workspaces.push(buffer);
        Ok(ptr)
    }

    /// Scan-then-propagate over `data[0..n]` (recursive on the block sums).
    fn scan_then_propagate(
        &mut self,
        step: &ScanStep,
        [tile_kernel, add]: [&CudaFunction; 2],
        (input, output, n): (u64, u64, usize),
        exclusive: bool,
    ) -> Result<()> {
        let tiles = step.tiles(n);
        let sums = self.words(tiles, "the tiles' sums")?;
        self.launch(
            tile_kernel,
            tiles,
            step.threads,
            step.shared_bytes,
            vec![
                Arg::U64(input),
                Arg::U64(output),
                Arg::U64(n as u64),
                Arg::U64(sums),
                Arg::U32(exclusive.into()),
            ],
        )?;
        if tiles > 1 {
            self.scan_then_propagate(step, [tile_kernel, add], (sums, sums, tiles), true)?;
            self.launch(
                add,
                tiles - 1,
                ADD_THREADS,
                0,
                vec![Arg::U64(output), Arg::U64(n as u64), Arg::U64(sums), Arg::U32(step.tile)],
            )?;
        }
        Ok(())
    }

    /// Reduce-then-scan over `data[0..n]` (recursive on the tiles' sums).
    fn reduce_then_scan(
        &mut self,
        step: &ScanStep,
        [reduce, scan]: [&CudaFunction; 2],
        (input, output, n): (u64, u64, usize),
        exclusive: bool,
    ) -> Result<()> {
        let tiles = step.tiles(n);
        let offsets = if tiles == 1 {
            0 // null: a single tile starts from zero
        } else {
            let sums = self.words(tiles, "the tiles' sums")?;
            self.launch(
                reduce,
                tiles,
                step.threads,
                0,
                vec![Arg::U64(input), Arg::U64(n as u64), Arg::U64(sums)],
            )?;
            self.reduce_then_scan(step, [reduce, scan], (sums, sums, tiles), true)?;
            sums
        };
        self.launch(
            scan,
            tiles,
            step.threads,
            0,
            vec![
                Arg::U64(input),
                Arg::U64(output),
                Arg::U64(n as u64),
                Arg::U64(offsets),
                Arg::U32(exclusive.into()),
            ],
        )
    }

    /// The single-pass state for `tiles` tiles, zeroed once: a ticket counter and a status
    /// word per tile.
    fn state(&mut self, tiles: usize) -> Result<u64> {
        let words = state_words(tiles as u64) as usize;
        let buffer = DeviceBuffer::alloc(self.gpu, words * 8, "the single-pass state")?;
        buffer.fill_words(self.gpu, 0, words * 2)?;
        let ptr = buffer.ptr();
        self.workspaces.push(buffer);
        Ok(ptr)
    }
}

impl<'g> ScanBench<'g> {
    /// Fills `n` random elements of `element` (stream `seed`) on the device.
    pub fn new(gpu: &'g Gpu, n: usize, seed: u64, element: ElementType) -> Result<Self> {
        let words = n.checked_add(GUARD).filter(|w| w.checked_mul(ELEMENT_BYTES).is_some());
        let words = words.ok_or_else(|| Error::new(format!("--n {n} is too large")))?;
        let input =
            DeviceBuffer::alloc(gpu, words * ELEMENT_BYTES, &format!("the input ({n} {})", element.name()))?;
        let output =
            DeviceBuffer::alloc(gpu, words * ELEMENT_BYTES, &format!("the output ({n} {})", element.name()))?;
        let bench = Self { gpu, n, seed, element, input, output };
        bench.refill()?;
        Ok(bench)
    }

    /// Writes the random input again (after an in-place run overwrote it), and poisons the
    /// guard after it.
    fn refill(&self) -> Result<()> {
        match self.element {
            ElementType::I32 => fill_random_i32(self.gpu, &self.input, self.n, self.seed)?,
            ElementType::F32 => fill_random_f32(self.gpu, &self.input, self.n, self.seed)?,
        }
        self.poison_tail(&self.input, self.n)?;
        self.gpu.sync("filling the input")
    }

    /// Sets words `from..` of `buffer` (up to its last whole word) to [`POISON`].
    fn poison_tail(&self, buffer: &DeviceBuffer, from: usize) -> Result<()> {
        let words = buffer.bytes() / 4 - from;
        buffer.fill_words_from(self.gpu, from, POISON, words)
    }

    /// The device this input lives on.
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// Bytes a scan moves at least: every element read once and written once (a copy's).
    pub fn bytes_moved(&self) -> usize {
        2 * ELEMENT_BYTES * self.n
    }

    /// The number of elements compaction keeps of this input.
    pub fn kept(&self) -> usize {
        reference::kept_count(self.seed, self.n)
    }

    /// Works out every launch of `step` (the Rust step or its C++ twin: `code`) over this
    /// input: out of place or over the input itself, inclusive or exclusive, with the block
    /// size and jitter of `launch`.
    pub fn plan(
        &self,
        step: &ScanStep,
        code: Code,
        placement: Placement,
        exclusive: bool,
        launch: Launch,
    ) -> Result<Plan> {
        let entries = step.entries(self.element).ok_or_else(|| {
            Error::new(format!("{} has no {} form (compaction keeps i32 only)", step.id, self.element.name()))
        })?;
        let functions = entries.iter().map(|&e| code.function(self.gpu, e)).collect::<Result<Vec<_>>>()?;
        if step.shared_bytes > 0 {
            self.gpu.allow_dynamic_shared(&functions[0], step.shared_bytes)?;
        }
        let registers = crate::twins::registers(functions.last().expect("a step has an entry point"));
        let input = self.input.ptr();
        let output = match placement {
            Placement::OutOfPlace => self.output.ptr(),
            Placement::InPlace => input,
        };
        let mut builder = Builder { gpu: self.gpu, ops: Vec::new(), workspaces: Vec::new() };
        let mut count = None;
        let n = self.n;
        let tiles = step.tiles_with(n, launch.block);
        let (block, jitter) = (launch.block, launch.jitter);
        if block != step.threads && !step.block_at_launch() {
            return Err(Error::new(format!(
                "{}: launched with {block} threads, but it takes its own {} only",
                step.id, step.threads
            )));
        }
        match step.scheme {
            Scheme::ScanThenPropagate => {
                // The propagation kernel comes from the same code as the step: its twin's module
                // holds the C++ one.
                let add_entry = ADD_OFFSETS
                    .i32
                    .iter()
                    .chain(ADD_OFFSETS.f32)
                    .copied()
                    .find(|e| e.ends_with(self.element.name()));
                let add = code.function_beside(self.gpu, add_entry.expect("both forms"), entries[0])?;
                builder.scan_then_propagate(step, [&functions[0], &add], (input, output, n), exclusive)?;
            }
            Scheme::ReduceThenScan => {
                builder.reduce_then_scan(
                    step,
                    [&functions[0], &functions[1]],
                    (input, output, n),
                    exclusive,
                )?;
            }
            Scheme::SinglePass | Scheme::Ring => {
                let state = builder.state(tiles)?;
                let args = vec![
                    Arg::U64(input),
                    Arg::U64(output),
                    Arg::U64(n as u64),
                    Arg::U64(state),
                    Arg::U32(exclusive.into()),
                    Arg::U32(jitter),
                ];
                // A ring's blocks stay until the tiles run out: a wave of them at most.
                let grid = if step.scheme == Scheme::Ring {
                    tiles.min(self.gpu.full_wave(&functions[0], block, step.shared_bytes)? as usize)
                } else {
                    tiles
                };
                builder.launch(&functions[0], grid, block, step.shared_bytes, args)?;
            }
            Scheme::Compaction => {
                if n > COMPACTION_MAX_N {
                    return Err(Error::new(format!(
                        "{}: n = {n} is past compaction's 32-bit positions (n ≤ {COMPACTION_MAX_N})",
                        step.id
                    )));
                }
                let state = builder.state(tiles)?;
                let counter = DeviceBuffer::alloc(self.gpu, 4, "the kept count")?;
                let args = vec![
                    Arg::U64(input),
                    Arg::U64(output),
                    Arg::U64(n as u64),
                    Arg::U64(state),
                    Arg::U64(counter.ptr()),
                    Arg::U32(jitter),
                ];
                builder.launch(&functions[0], tiles, block, step.shared_bytes, args)?;
                count = Some(counter);
            }
        }
        let launches = builder.ops.len();
        Ok(Plan {
            ops: builder.ops,
            launches,
            registers,
            block,
            _workspaces: builder.workspaces,
            count,
            placement,
        })
    }

    /// Queues every launch of `plan`.
    pub fn enqueue(&self, plan: &Plan) -> Result<()> {
        for Op::Launch { function, cfg, args } in &plan.ops {
            // SAFETY: the plan passes each kernel the arguments its scheme describes (see
            // `Scheme`), with buffers of n + GUARD words and workspaces sized for its tiles.
            unsafe { self.gpu.launch(function, *cfg, args)? };
        }
        Ok(())
    }

    /// The buffer `plan` writes its result into.
    fn destination(&self, plan: &Plan) -> &DeviceBuffer {
        match plan.placement {
            Placement::OutOfPlace => &self.output,
            Placement::InPlace => &self.input,
        }
    }

    /// Runs `plan` once on a poisoned output and checks all of it, and the guard after it,
    /// against the CPU. In place, the input is written before the run and again after it, so
    /// that every plan after it finds the input it expects.
    pub fn check(&self, plan: &Plan, exclusive: bool) -> Result<Check> {
        self.prepare(plan)?;
        self.enqueue(plan)?;
        let check = self.verify(plan, exclusive)?;
        if plan.placement == Placement::InPlace {
            // The scan is now where the input was: write the input back for the plans after.
            self.refill()?;
        }
        Ok(check)
    }

    /// Poisons what `plan` writes (and, in place, writes the input again).
    fn prepare(&self, plan: &Plan) -> Result<()> {
        match plan.placement {
            Placement::OutOfPlace => self.poison_tail(&self.output, 0)?,
            Placement::InPlace => self.refill()?,
        }
        if let Some(count) = &plan.count {
            count.fill_words(self.gpu, POISON, 1)?;
        }
        Ok(())
    }

    /// Reads back what `plan` wrote and checks it.
    fn verify(&self, plan: &Plan, exclusive: bool) -> Result<Check> {
        let words = self.destination(plan).read::<u32>(self.gpu, self.n + GUARD)?;
        Ok(match &plan.count {
            Some(count) => {
                let count = count.read::<u32>(self.gpu, 1)?[0];
                reference::check_compaction(
                    self.seed,
                    self.n,
                    count,
                    &words,
                    plan.placement == Placement::InPlace,
                )
            }
            None => reference::check_scan(self.element, exclusive, self.seed, self.n, &words),
        })
    }

    /// Times `plan` with `timer` (the L2 flush and warm-up are the timer's). Out of place
    /// only: an in-place scan would scan its own output again.
    pub fn time(&self, plan: &Plan, timer: &Timer) -> Result<Timing> {
        assert_eq!(plan.placement, Placement::OutOfPlace, "in-place plans are checked, not timed");
        timer.measure(self.gpu, || self.enqueue(plan))
    }

    /// Times a device-to-device copy of the input to the output (`cuMemcpyDtoDAsync`): the
    /// bandwidth a scan, which reads and writes every element once, is measured against.
    pub fn time_copy(&self, timer: &Timer) -> Result<Timing> {
        let bytes = self.n * ELEMENT_BYTES;
        self.gpu.make_current()?;
        timer.measure(self.gpu, || {
            // SAFETY: both buffers hold n elements; the stream is the GPU's.
            unsafe {
                sys::cuMemcpyDtoDAsync_v2(
                    self.output.ptr(),
                    self.input.ptr(),
                    bytes,
                    self.gpu.stream.cu_stream(),
                )
            }
            .result()
            .context("copying device to device")
        })
    }

    /// Times an empty kernel's launch (one block of one thread), the floor of any one-launch
    /// step at small sizes.
    pub fn time_empty_launch(&self, timer: &Timer) -> Result<Timing> {
        let empty = self.gpu.function("empty_kernel")?;
        // SAFETY: `empty_kernel` takes no arguments.
        timer.measure(self.gpu, || unsafe { self.gpu.launch(&empty, launch_config(1, 1, 0), &[]) })
    }

    /// CUB's scan (or select: `compaction`) of this input, checked, then timed when a
    /// `timer` is given.
    pub fn cub(
        &self,
        cub: &Cub,
        exclusive: bool,
        compaction: bool,
        timer: Option<&Timer>,
    ) -> Result<(Check, Option<Timing>)> {
        let n = self.n;
        let bytes = if compaction {
            cub.select_workspace(n)?
        } else {
            cub.scan_workspace(n, self.element, exclusive)?
        };
        let workspace = DeviceBuffer::alloc(self.gpu, bytes, "CUB's workspace")?;
        let counter = DeviceBuffer::alloc(self.gpu, 4, "CUB's kept count")?;
        let (input, output) = (self.input.ptr(), self.output.ptr());
        let run = || {
            // SAFETY: buffers of n elements (+ guard), the workspace CUB asked for, one count.
            unsafe {
                if compaction {
                    cub.select(self.gpu, workspace.ptr(), bytes, input, output, counter.ptr(), n)
                } else {
                    cub.scan(self.gpu, workspace.ptr(), bytes, input, output, n, self.element, exclusive)
                }
            }
        };
        self.poison_tail(&self.output, 0)?;
        counter.fill_words(self.gpu, POISON, 1)?;
        run()?;
        let words = self.output.read::<u32>(self.gpu, n + GUARD)?;
        let check = if compaction {
            let count = counter.read::<u32>(self.gpu, 1)?[0];
            reference::check_compaction(self.seed, n, count, &words, false)
        } else {
            reference::check_scan(self.element, exclusive, self.seed, n, &words)
        };
        let timing = match timer {
            Some(timer) if check.passed() => Some(timer.measure(self.gpu, run)?),
            _ => None,
        };
        Ok((check, timing))
    }
}
