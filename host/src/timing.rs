//! Timing kernels honestly: CUDA events around the work, warm-up first, the L2 flushed
//! before every repetition, the median of many.

use crate::error::{Context, Result};
use crate::gpu::{Arg, Gpu, launch_config};
use crate::memory::DeviceBuffer;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaFunction};

/// How to time: repetitions, warm-up runs, and whether to flush the L2 before each
/// repetition (on for HBM figures; off shows what a warm cache gives).
#[derive(Clone, Copy, Debug)]
pub struct TimingOptions {
    pub repetitions: usize,
    pub warmup: usize,
    pub flush_l2: bool,
}

/// The distribution of one measurement, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// First and third quartiles: the middle half of the repetitions lies between them.
    pub q1_ms: f64,
    pub q3_ms: f64,
    pub repetitions: usize,
}

/// Median of a non-empty sample (mean of the middle two for an even count).
pub fn median(samples: &mut [f64]) -> f64 {
    assert!(!samples.is_empty(), "median of no samples");
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 { samples[mid] } else { (samples[mid - 1] + samples[mid]) / 2.0 }
}

/// The `q`-quantile (0 ≤ q ≤ 1) of sorted samples, interpolated linearly between the two
/// nearest ranks (the default of NumPy and R), so that quartiles of few samples move
/// smoothly instead of jumping from one repetition to the next.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (below, above) = (at.floor() as usize, at.ceil() as usize);
    sorted[below] + (at - below as f64) * (sorted[above] - sorted[below])
}

/// Threads per block of the flush kernel.
const FLUSH_BLOCK: u32 = 256;

/// Times work on one device; owns the flush buffer (twice the L2) and the events.
pub struct Timer {
    options: TimingOptions,
    flush_buffer: DeviceBuffer,
    flush_sink: DeviceBuffer,
    flush: CudaFunction,
    flush_grid: u32,
    start: CudaEvent,
    stop: CudaEvent,
}

impl Timing {
    /// The distribution of a non-empty sample of repetitions, in milliseconds.
    pub fn from_samples(samples: &mut [f64]) -> Self {
        let median_ms = median(samples); // sorts them
        Self {
            median_ms,
            min_ms: samples[0],
            max_ms: samples[samples.len() - 1],
            q1_ms: quantile(samples, 0.25),
            q3_ms: quantile(samples, 0.75),
            repetitions: samples.len(),
        }
    }

    /// Interquartile range over the median, in percent: how much the repetitions disagree,
    /// the run's noise. The middle half rather than slowest − fastest, so that one
    /// repetition slowed by something outside the kernel (a clock change, another
    /// process) does not make the whole measurement look noisy — `host compare` treats a
    /// difference within this spread as no difference.
    pub fn spread_percent(&self) -> f64 {
        100.0 * (self.q3_ms - self.q1_ms) / self.median_ms
    }
}

impl Timer {
    pub fn new(gpu: &Gpu, options: TimingOptions) -> Result<Self> {
        let bytes = (2 * gpu.info.l2_bytes as usize).max(1 << 20);
        let flush_buffer = DeviceBuffer::alloc(gpu, bytes, "the L2 flush buffer")?;
        flush_buffer.fill_words(gpu, 0x5eed_1e55, bytes / 4)?;
        let flush_sink = DeviceBuffer::alloc(gpu, 4, "the L2 flush sink")?;
        let flush = gpu.function("l2_flush_read")?;
        let flush_grid = gpu.full_wave(&flush, FLUSH_BLOCK, 0)?;
        // Events with timing enabled: cudarc's `None` would disable it.
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).context("creating an event");
        Ok(Self { options, flush_buffer, flush_sink, flush, flush_grid, start: event()?, stop: event()? })
    }

    /// Queues the L2 flush: a read-only pass over twice the L2.
    pub fn flush_l2(&self, gpu: &Gpu) -> Result<()> {
        let (buffer, units, sink) =
            (self.flush_buffer.ptr(), (self.flush_buffer.bytes() / 16) as u64, self.flush_sink.ptr());
        let cfg = launch_config(self.flush_grid, FLUSH_BLOCK, 0);
        // SAFETY: l2_flush_read(buffer: *const I32x4, units: usize, sink: *mut i32) with a
        // 16-byte aligned buffer of `units` units.
        unsafe { gpu.launch(&self.flush, cfg, &[Arg::U64(buffer), Arg::U64(units), Arg::U64(sink)]) }
    }

    pub fn options(&self) -> TimingOptions {
        self.options
    }

    /// Runs `work` `warmup` times, then `repetitions` times between two events, each after
    /// an L2 flush (outside the timed region). `work` only queues launches.
    pub fn measure(&self, gpu: &Gpu, work: impl FnMut() -> Result<()>) -> Result<Timing> {
        self.measure_n(gpu, self.options.repetitions, self.options.warmup, work)
    }

    /// [`Timer::measure`] with its own repetition and warm-up counts.
    pub fn measure_n(
        &self,
        gpu: &Gpu,
        repetitions: usize,
        warmup: usize,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        for _ in 0..warmup {
            work()?;
        }
        gpu.sync("warming up")?;
        let mut samples = Vec::with_capacity(repetitions);
        for _ in 0..repetitions.max(1) {
            if self.options.flush_l2 {
                self.flush_l2(gpu)?;
            }
            self.start.record(&gpu.stream).context("recording an event")?;
            work()?;
            self.stop.record(&gpu.stream).context("recording an event")?;
            let ms = self.start.elapsed_ms(&self.stop).context("timing a repetition")?;
            samples.push(f64::from(ms));
        }
        Ok(Timing::from_samples(&mut samples))
    }
}
