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
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub repetitions: usize,
}

/// Median of a non-empty sample (mean of the middle two for an even count).
pub fn median(samples: &mut [f64]) -> f64 {
    assert!(!samples.is_empty(), "median of no samples");
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 { samples[mid] } else { (samples[mid - 1] + samples[mid]) / 2.0 }
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
    /// (slowest − fastest) / median, in percent: how much the repetitions disagree.
    pub fn spread_percent(&self) -> f64 {
        100.0 * (self.max_ms - self.min_ms) / self.median_ms
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
        let (min_ms, max_ms) =
            samples.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        let repetitions = samples.len();
        Ok(Timing { median_ms: median(&mut samples), min_ms, max_ms, repetitions })
    }
}
