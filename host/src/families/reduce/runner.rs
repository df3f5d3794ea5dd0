//! Launching, verifying and timing any kernel of the registry on one input.

use super::registry::{Finish, GridShape, ReduceKernel};
use crate::base::error::{Error, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::inputs::fill_random_i32;
use crate::base::inputs::reference_sum;
use crate::base::memory::DeviceBuffer;
use crate::measure::timing::{Timer, Timing};
use crate::twins::Code;
use cudarc::driver::{CudaFunction, LaunchConfig};

/// Written over every output before a verification run: a kernel that forgets to write
/// leaves this, which is not the sum of a random input (except with probability 2^-32).
pub const POISON: u32 = 0xA5A5_A5A5;

/// An address no allocation covers (the first page of the GPU's address space is never
/// mapped): where [`ReduceBench::misdirect_output`] sends a kernel's result.
const UNMAPPED: u64 = 0x10;

/// The most blocks a one-dimensional grid may have.
const MAX_GRID: usize = i32::MAX as usize;

/// One queued operation of a reduction.
enum Step {
    /// `cuMemsetD32Async(ptr, 0, 1)`: zero the result for an atomic kernel.
    ZeroResult,
    Launch {
        function: CudaFunction,
        cfg: LaunchConfig,
        args: Vec<Arg>,
    },
}

/// A kernel's whole reduction of one input, ready to replay: every launch with its grid
/// and arguments, computed once, so the timed loop only queues work.
pub struct Plan {
    steps: Vec<Step>,
    pub block: u32,
    pub launches: usize,
    /// Registers per thread of the kernel.
    pub registers: Option<u32>,
}

/// The outcome of checking one kernel on one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub expected: i32,
    pub got: i32,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.expected == self.got
    }
}

/// One input of `n` random `i32` on the device, its reference sum, and the buffers every
/// kernel's plan writes into.
pub struct ReduceBench<'g> {
    gpu: &'g Gpu,
    pub n: usize,
    pub seed: u64,
    pub expected: i32,
    input: DeviceBuffer,
    result: DeviceBuffer,
    /// Ping-pong buffers for the partials of multi-launch kernels.
    scratch: [DeviceBuffer; 2],
    /// The last-block kernel's per-block partials and, in word 0 of `arrivals`, its counter.
    partials: DeviceBuffer,
    arrivals: DeviceBuffer,
    partials_capacity: usize,
    /// The packed-tally kernel's 64-bit arrivals-and-sum word.
    tally: DeviceBuffer,
}

/// The smallest block any kernel runs with; it bounds the partials of a first launch.
const MIN_BLOCK: usize = 64;

impl<'g> ReduceBench<'g> {
    /// Fills `n` random elements (stream `seed`) on the device and computes the reference.
    pub fn new(gpu: &'g Gpu, n: usize, seed: u64) -> Result<Self> {
        let bytes = n.checked_mul(4).ok_or_else(|| Error::new(format!("--n {n} is too large")))?;
        let input = DeviceBuffer::alloc(gpu, bytes, &format!("the input ({n} i32)"))?;
        fill_random_i32(gpu, &input, n, seed)?;
        let expected = reference_sum(seed, n);
        gpu.sync("filling the input")?;

        let scratch_words = n.div_ceil(MIN_BLOCK).max(1);
        let scratch = [
            DeviceBuffer::alloc(gpu, scratch_words * 4, "partials")?,
            DeviceBuffer::alloc(gpu, scratch_words.div_ceil(MIN_BLOCK) * 4, "partials")?,
        ];
        // One slot per resident block of the largest possible wave (2048 threads per SM
        // at most, 32 threads per block at least).
        let partials_capacity = gpu.info.multiprocessors as usize * 64;
        let partials = DeviceBuffer::alloc(gpu, partials_capacity * 4, "the last-block workspace")?;
        let arrivals = DeviceBuffer::alloc(gpu, 4, "the arrival counter")?;
        arrivals.fill_words(gpu, 0, 1)?;
        let tally = DeviceBuffer::alloc(gpu, 8, "the tally")?;
        tally.fill_words(gpu, 0, 2)?;
        let result = DeviceBuffer::alloc(gpu, 4, "the result")?;
        Ok(Self {
            gpu,
            n,
            seed,
            expected,
            input,
            result,
            scratch,
            partials,
            arrivals,
            partials_capacity,
            tally,
        })
    }

    /// The device this input lives on.
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// The device address of the one-i32 result every plan writes.
    pub fn result_ptr(&self) -> u64 {
        self.result.ptr()
    }

    /// Elements read by one reduction, in bytes: what the bandwidth figures count.
    pub fn bytes_read(&self) -> usize {
        self.n * 4
    }

    /// Works out every launch of `kernel` (the Rust step or its C++ twin: `code`) over
    /// this input with `block` threads.
    pub fn plan(&self, kernel: &ReduceKernel, block: u32, code: Code) -> Result<Plan> {
        let function = code.function(self.gpu, kernel.symbol(block))?;
        let registers = crate::twins::registers(&function);
        let shared = kernel.shared_bytes(block);
        let wave = match kernel.grid {
            GridShape::OneWave => self.gpu.full_wave(&function, block, shared)? as usize,
            GridShape::Cover => usize::MAX,
        };
        let grid_for = |count: usize| -> Result<u32> {
            let grid = kernel.cover_grid(count, block).min(wave);
            if grid > MAX_GRID {
                return Err(Error::new(format!(
                    "{} over {count} elements needs {grid} blocks, more than a grid holds ({MAX_GRID})",
                    kernel.id
                )));
            }
            Ok(grid as u32)
        };
        let launch = |grid: u32, args: Vec<u64>| Step::Launch {
            function: function.clone(),
            cfg: launch_config(grid, block, shared),
            args: args.into_iter().map(Arg::U64).collect(),
        };
        let (input, result, n) = (self.input.ptr(), self.result.ptr(), self.n as u64);

        let mut steps = Vec::new();
        match kernel.finish {
            Finish::Relaunch | Finish::SecondPassOneBlock => {
                let (mut source, mut count, mut pass) = (input, self.n, 0);
                loop {
                    let grid = if pass > 0 && kernel.finish == Finish::SecondPassOneBlock {
                        1
                    } else {
                        grid_for(count)?
                    };
                    let dest = if grid == 1 { result } else { self.scratch[pass % 2].ptr() };
                    steps.push(launch(grid, vec![source, dest, count as u64]));
                    if grid == 1 {
                        break;
                    }
                    (source, count, pass) = (dest, grid as usize, pass + 1);
                }
            }
            Finish::AtomicAdd => {
                steps.push(Step::ZeroResult);
                steps.push(launch(grid_for(self.n)?, vec![input, result, n]));
            }
            Finish::LastBlock => {
                let grid = grid_for(self.n)?;
                if grid as usize > self.partials_capacity {
                    return Err(Error::new(format!(
                        "{}: a grid of {grid} blocks exceeds the workspace",
                        kernel.id
                    )));
                }
                steps.push(launch(grid, vec![input, result, n, self.partials.ptr(), self.arrivals.ptr()]));
            }
            Finish::PackedTally => {
                steps.push(launch(grid_for(self.n)?, vec![input, result, n, self.tally.ptr()]));
            }
        }
        let launches = steps.iter().filter(|s| matches!(s, Step::Launch { .. })).count();
        Ok(Plan { steps, block, launches, registers })
    }

    /// For the tests of fault handling only (`host --inject-fault`): points `plan`'s result
    /// argument at unmapped memory, so that its last launch faults with an illegal address.
    pub fn misdirect_output(&self, plan: &mut Plan) {
        let result = self.result.ptr();
        for step in &mut plan.steps {
            if let Step::Launch { args, .. } = step {
                for arg in args.iter_mut().filter(|a| matches!(a, Arg::U64(p) if *p == result)) {
                    *arg = Arg::U64(UNMAPPED);
                }
            }
        }
    }

    /// Queues every step of `plan`.
    pub fn enqueue(&self, plan: &Plan) -> Result<()> {
        for step in &plan.steps {
            match step {
                Step::ZeroResult => self.result.fill_words(self.gpu, 0, 1)?,
                Step::Launch { function, cfg, args } => {
                    // SAFETY: the plan passes each kernel the arguments its registry entry
                    // describes: (input, output, n) with an output of one i32 per block,
                    // (input, result, n, partials, arrivals) for the last-block kernel, or
                    // (input, result, n, tally) for the packed tally, with buffers sized by
                    // `new` for this input.
                    unsafe { self.gpu.launch(function, *cfg, args)? };
                }
            }
        }
        Ok(())
    }

    /// Runs `plan` once on poisoned outputs and compares the sum with the reference.
    pub fn check(&self, plan: &Plan) -> Result<Check> {
        self.result.fill_words(self.gpu, POISON, 1)?;
        for buffer in [&self.scratch[0], &self.scratch[1], &self.partials] {
            buffer.fill_words(self.gpu, POISON, buffer.bytes() / 4)?;
        }
        self.enqueue(plan)?;
        let got = self.result.read::<i32>(self.gpu, 1)?[0];
        Ok(Check { expected: self.expected, got })
    }

    /// Times `plan` with `timer` (the L2 flush and warm-up are the timer's).
    pub fn time(&self, plan: &Plan, timer: &Timer) -> Result<Timing> {
        timer.measure(self.gpu, || self.enqueue(plan))
    }

    /// The single-launch kernels' persistent state (the arrival counter and the two words
    /// of the tally), which every launch must leave at 0.
    pub fn persistent_state(&self) -> Result<[i32; 3]> {
        let tally = self.tally.read::<i32>(self.gpu, 2)?;
        Ok([self.arrivals.read::<i32>(self.gpu, 1)?[0], tally[0], tally[1]])
    }

    /// The first `count` input elements as the GPU holds them (for the fill test).
    pub fn input_prefix(&self, count: usize) -> Result<Vec<i32>> {
        self.input.read::<i32>(self.gpu, count.min(self.n))
    }
}
