//! Timing kernels honestly: CUDA events around the work, warm-up first, the L2 flushed
//! before every repetition, the median of many, and as many as the kernel needs.
//!
//! How many is adaptive, as in NVIDIA's nvbench: a kernel is timed until it has
//! [`TimingOptions::min_samples`] repetitions *and* [`TimingOptions::min_time`] of
//! measured GPU time, then stops as soon as its median is known to within
//! [`TimingOptions::max_noise_percent`]; it never runs past its [`TimingOptions::budget`]. A quiet
//! millisecond kernel stops at the minimum; a noisy ten-microsecond one takes hundreds of
//! repetitions, still in milliseconds; one that cannot fit its minimum into the budget
//! (g01 at 16384³) is not timed at all past the one launch that showed it. Every
//! [`Timing`] says which of these ended it ([`Stop`]).
//!
//! The noise is the uncertainty of the median, not the spread of the repetitions: the
//! spread of a kernel's times is what it is (a 10 µs GEMM's repetitions differ by a few
//! per cent however long it runs), while the median of more of them is known better and
//! better. For roughly normal repetitions the standard error of the median is
//! √(π/2)·σ/√n, and σ ≈ IQR/1.349, so the relative noise is [`MEDIAN_SE_PER_IQR`] ·
//! (IQR / median) / √n.

use crate::base::error::{Context, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaFunction};
use std::time::{Duration, Instant};

/// Standard error of the median per interquartile range and √n, for normal samples:
/// √(π/2) / 1.349.
pub const MEDIAN_SE_PER_IQR: f64 = 1.253_314 / 1.348_98;

/// Defaults of the command line's timing options (see [`TimingOptions`]).
pub const DEFAULT_MIN_SAMPLES: usize = 20;
pub const DEFAULT_MIN_TIME: Duration = Duration::from_millis(10);
pub const DEFAULT_MAX_NOISE_PERCENT: f64 = 0.5;
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);
pub const DEFAULT_WARMUP: usize = 3;
pub const DEFAULT_HEAT: Duration = Duration::ZERO;

/// With [`TimingOptions::back_to_back`] above 1, a repetition queues launches until they
/// add up to this much GPU time (fewer than the option where one launch is long): past it the
/// host's wait between repetitions idles the GPU for under half a per cent of the time.
const BACK_TO_BACK_SPAN_MS: f64 = 20.0;

/// Warm-up launches take at most this share of the budget.
const WARMUP_SHARE_OF_BUDGET: f64 = 0.1;

/// After the minimum is reached, the noise is checked again once the repetitions have
/// grown by this share (sorting them costs n·log n; checking at every one would make a
/// long run quadratic).
const NOISE_CHECK_GROWTH: f64 = 0.05;

/// How to time: when to stop, the warm-up, and whether to flush the L2 before each
/// repetition (on for HBM figures; off shows what a warm cache gives).
#[derive(Clone, Copy, Debug)]
pub struct TimingOptions {
    /// Repetitions a figure is the median of, at least.
    pub min_samples: usize,
    /// GPU time the repetitions add up to, at least.
    pub min_time: Duration,
    /// Stop once the median's relative standard error is at most this, in percent.
    pub max_noise_percent: f64,
    /// Wall-clock time one kernel's timing may take, warm-up included.
    pub budget: Duration,
    pub warmup: usize,
    /// Wall-clock time the work runs untimed after the warm-up, before its repetitions: long
    /// enough and a kernel that drives the GPU to its power cap is timed at the clock it holds
    /// under steady load, not at the higher one a cool GPU starts with (zero: no heating).
    /// Not counted in the budget.
    pub heat: Duration,
    pub flush_l2: bool,
    /// Launches of the work each repetition queues back to back between its two events (its
    /// time is theirs over this many; the L2 flushed once before them), and heating queues
    /// as many before each wait: at least 1, and no more than fill [`BACK_TO_BACK_SPAN_MS`].
    /// Above 1 the GPU never idles between launches, so a kernel at the power cap is timed
    /// at the clock its own power buys, not at the one the gaps between repetitions lend it.
    pub back_to_back: u32,
}

impl Default for TimingOptions {
    fn default() -> Self {
        Self {
            min_samples: DEFAULT_MIN_SAMPLES,
            min_time: DEFAULT_MIN_TIME,
            max_noise_percent: DEFAULT_MAX_NOISE_PERCENT,
            budget: DEFAULT_BUDGET,
            warmup: DEFAULT_WARMUP,
            heat: DEFAULT_HEAT,
            flush_l2: true,
            back_to_back: 1,
        }
    }
}

/// What ended a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The minimum repetitions and time were reached and the median's noise was under the
    /// target: the figure is as good as asked.
    Settled,
    /// The time budget ran out first: fewer repetitions than asked, or a noisier median.
    Budget,
    /// One launch showed that the minimum repetitions could not fit the budget: the
    /// figure is that launch alone (cold: no warm-up before it).
    OneLaunch,
}

impl Stop {
    /// The mark a table prints after a figure that did not settle, and what it means.
    pub fn mark(self) -> Option<(&'static str, &'static str)> {
        match self {
            Stop::Settled => None,
            Stop::Budget => Some((
                "†",
                "cut short by the time budget (--timeout): fewer repetitions or a noisier median than asked",
            )),
            Stop::OneLaunch => Some((
                "‡",
                "one launch only: the minimum repetitions would not fit the time budget (--timeout)",
            )),
        }
    }
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
    pub stop: Stop,
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
    pub fn from_samples(samples: &mut [f64], stop: Stop) -> Self {
        let median_ms = median(samples); // sorts them
        Self {
            median_ms,
            min_ms: samples[0],
            max_ms: samples[samples.len() - 1],
            q1_ms: quantile(samples, 0.25),
            q3_ms: quantile(samples, 0.75),
            repetitions: samples.len(),
            stop,
        }
    }

    /// `bytes` over the median time, in GB/s: the one conversion every bandwidth figure uses.
    pub fn gigabytes_per_second(&self, bytes: f64) -> f64 {
        bytes / (self.median_ms * 1e-3) / 1e9
    }

    /// `flop` over the median time, in TFLOP/s.
    pub fn teraflops(&self, flop: f64) -> f64 {
        flop / (self.median_ms * 1e-3) / 1e12
    }

    /// The same distribution with every time multiplied by `factor` (a batch of calls
    /// timed together, per call).
    pub fn scale(&mut self, factor: f64) {
        for t in [&mut self.median_ms, &mut self.min_ms, &mut self.max_ms, &mut self.q1_ms, &mut self.q3_ms] {
            *t *= factor;
        }
    }

    /// The relative standard error of the median, in percent (see the module's notes).
    pub fn noise_percent(&self) -> f64 {
        MEDIAN_SE_PER_IQR * self.spread_percent() / (self.repetitions as f64).sqrt()
    }

    /// Interquartile range over the median, in percent: how much the repetitions disagree,
    /// their spread (the median's own noise is [`Timing::noise_percent`]). The middle half rather than slowest − fastest, so that one
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

    /// The options it times by.
    pub fn options(&self) -> TimingOptions {
        self.options
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

    /// Times `work` (which only queues launches) as the options ask: one launch first,
    /// then the warm-up, then repetitions, each after an L2 flush (outside the timed
    /// region), until the stopping rule of the module's notes ends it.
    pub fn measure(&self, gpu: &Gpu, mut work: impl FnMut() -> Result<()>) -> Result<Timing> {
        let first_ms = self.repetition(gpu, &mut work, 1)?;
        self.measure_after(gpu, first_ms, work)
    }

    /// [`Timer::measure`] with at most `max_heat` of heating, for work whose clock settles
    /// sooner than the options' heating allows for (a limit measured in every process).
    pub fn measure_heated_at_most(
        &self,
        gpu: &Gpu,
        max_heat: Duration,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        let first_ms = self.repetition(gpu, &mut work, 1)?;
        self.measure_after_with(gpu, first_ms, self.options.heat.min(max_heat), work)
    }

    /// [`Timer::measure`] when one launch of `work` just ran and took `first_ms` (the
    /// verified launch of a check, timed with events): its time counts in the budget, and
    /// it decides alone whether the minimum repetitions can fit.
    pub fn measure_after(
        &self,
        gpu: &Gpu,
        first_ms: f64,
        work: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        self.measure_after_with(gpu, first_ms, self.options.heat, work)
    }

    /// [`Timer::measure_after`] with `heat` of heating.
    fn measure_after_with(
        &self,
        gpu: &Gpu,
        first_ms: f64,
        heat: Duration,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        let started = started_before(first_ms);
        let Some(warmups) = self.warmups(first_ms) else {
            return Ok(Timing::from_samples(&mut [first_ms], Stop::OneLaunch));
        };
        for _ in 0..warmups {
            work()?;
        }
        gpu.sync("warming up")?;
        let launches = self.launches(first_ms);
        let heated = run_for(heat, || {
            (0..launches).try_for_each(|_| work())?;
            gpu.sync("heating the GPU")
        })?;
        self.sample(started + heated, || self.repetition(gpu, &mut work, launches))
    }

    /// The stopping rule of [`Timer::measure`] over repetitions timed by the caller
    /// (`repetition` returns milliseconds), for work that spans several GPUs: a first
    /// repetition, the warm-up ones (not counted), then as many as the rule asks.
    pub fn measure_repetitions(&self, mut repetition: impl FnMut() -> Result<f64>) -> Result<Timing> {
        let first_ms = repetition()?;
        let started = started_before(first_ms);
        let Some(warmups) = self.warmups(first_ms) else {
            return Ok(Timing::from_samples(&mut [first_ms], Stop::OneLaunch));
        };
        for _ in 0..warmups {
            repetition()?;
        }
        let heated = run_for(self.options.heat, || repetition().map(drop))?;
        self.sample(started + heated, repetition)
    }

    /// Warm-up runs after a first one of `first_ms`, or `None` when that one showed the
    /// minimum repetitions cannot fit the budget.
    fn warmups(&self, first_ms: f64) -> Option<usize> {
        let options = &self.options;
        if hopeless(options, first_ms) {
            return None;
        }
        let cap = (WARMUP_SHARE_OF_BUDGET * options.budget.as_secs_f64() / (first_ms * 1e-3)) as usize;
        Some(options.warmup.saturating_sub(1).min(cap))
    }

    /// Repetitions until the stopping rule ends the measurement begun at `started`.
    fn sample(&self, started: Instant, mut repetition: impl FnMut() -> Result<f64>) -> Result<Timing> {
        let mut sampler = Sampler::new(self.options);
        loop {
            crate::base::interrupt::check()?;
            sampler.push(repetition()?);
            let elapsed = started.elapsed();
            if let Some(stop) = sampler.stop(elapsed) {
                return Ok(sampler.timing(stop));
            }
            crate::base::progress::update(&sampler.status(elapsed));
        }
    }

    /// One repetition: the L2 flush if asked, then `work` queued `launches` times between two
    /// events; the time of one, in milliseconds.
    fn repetition(&self, gpu: &Gpu, mut work: impl FnMut() -> Result<()>, launches: u32) -> Result<f64> {
        if self.options.flush_l2 {
            self.flush_l2(gpu)?;
        }
        self.start.record(&gpu.stream).context("recording an event")?;
        (0..launches).try_for_each(|_| work())?;
        self.stop.record(&gpu.stream).context("recording an event")?;
        gpu.wait_for(&self.stop, "waiting for a repetition")?;
        let ms = f64::from(self.start.elapsed_ms(&self.stop).context("timing a repetition")?);
        Ok(ms / f64::from(launches))
    }

    /// Launches a repetition (and a round of heating) queues for work whose one launch took
    /// `first_ms`: [`TimingOptions::back_to_back`], fewer where they would add up to more than
    /// [`BACK_TO_BACK_SPAN_MS`], at least 1.
    fn launches(&self, first_ms: f64) -> u32 {
        back_to_back_launches(self.options.back_to_back, first_ms)
    }
}

/// [`Timer::launches`]: up to `back_to_back` launches of `first_ms`, as many as fit
/// [`BACK_TO_BACK_SPAN_MS`], at least 1.
fn back_to_back_launches(back_to_back: u32, first_ms: f64) -> u32 {
    let fit = (BACK_TO_BACK_SPAN_MS / first_ms.max(1e-6)).floor();
    (fit.min(f64::from(back_to_back)) as u32).max(1)
}

/// Calls `launch` (which runs the work and waits for it) until `duration` of wall time has
/// passed (not at all for zero); returns the time it took.
fn run_for(duration: Duration, mut launch: impl FnMut() -> Result<()>) -> Result<Duration> {
    let begin = Instant::now();
    while begin.elapsed() < duration {
        crate::base::interrupt::check()?;
        launch()?;
    }
    Ok(begin.elapsed())
}

/// When a measurement whose first run took `first_ms` began: its time counts in the budget.
fn started_before(first_ms: f64) -> Instant {
    let first = Duration::from_secs_f64(first_ms.max(0.0) * 1e-3);
    Instant::now().checked_sub(first).unwrap_or_else(Instant::now)
}

/// Whether one launch of `first_ms` shows that the minimum repetitions cannot fit the
/// budget.
pub fn hopeless(options: &TimingOptions, first_ms: f64) -> bool {
    first_ms * 1e-3 * options.min_samples as f64 > options.budget.as_secs_f64()
}

/// The repetitions of one measurement and the rule that ends it.
pub struct Sampler {
    options: TimingOptions,
    samples: Vec<f64>,
    gpu_ms: f64,
    /// The noise is checked again at this many repetitions.
    next_check: usize,
    /// The noise at the last check, in percent.
    noise: Option<f64>,
}

impl Sampler {
    pub fn new(options: TimingOptions) -> Self {
        Self { options, samples: Vec::new(), gpu_ms: 0.0, next_check: 0, noise: None }
    }

    pub fn push(&mut self, ms: f64) {
        self.samples.push(ms);
        self.gpu_ms += ms;
    }

    /// Whether the minimum repetitions and time are reached.
    fn minimum_reached(&self) -> bool {
        self.samples.len() >= self.options.min_samples.max(1)
            && self.gpu_ms * 1e-3 >= self.options.min_time.as_secs_f64()
    }

    /// What ends the measurement now, `elapsed` after it began, if anything does.
    pub fn stop(&mut self, elapsed: Duration) -> Option<Stop> {
        let n = self.samples.len();
        if self.minimum_reached() && n >= self.next_check {
            self.next_check = n + ((n as f64 * NOISE_CHECK_GROWTH) as usize).max(1);
            let noise = Timing::from_samples(&mut self.samples.clone(), Stop::Settled).noise_percent();
            self.noise = Some(noise);
            if noise <= self.options.max_noise_percent {
                return Some(Stop::Settled);
            }
        }
        (elapsed >= self.options.budget).then_some(Stop::Budget)
    }

    /// The measurement so far.
    pub fn timing(&mut self, stop: Stop) -> Timing {
        Timing::from_samples(&mut self.samples, stop)
    }

    /// For the progress line: the repetitions, and about how long is left.
    pub fn status(&self, elapsed: Duration) -> String {
        let n = self.samples.len();
        let budget_left = self.options.budget.saturating_sub(elapsed);
        let per_repetition = elapsed.as_secs_f64() / n.max(1) as f64;
        let mean_ms = self.gpu_ms / n.max(1) as f64;
        let wanted = self
            .options
            .min_samples
            .max((self.options.min_time.as_secs_f64() * 1e3 / mean_ms.max(1e-6)).ceil() as usize);
        match self.noise {
            None => {
                let left = Duration::from_secs_f64(per_repetition * wanted.saturating_sub(n) as f64);
                format!(
                    "{n} of ≥ {wanted} repetitions, about {} left",
                    crate::base::progress::duration(left.min(budget_left))
                )
            }
            Some(noise) => format!(
                "{n} repetitions, median noise {noise:.2} % (target {} %), at most {} left",
                self.options.max_noise_percent,
                crate::base::progress::duration(budget_left)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> TimingOptions {
        TimingOptions {
            min_samples: 10,
            min_time: Duration::from_millis(5),
            max_noise_percent: 0.5,
            budget: Duration::from_secs(2),
            warmup: 3,
            heat: Duration::ZERO,
            flush_l2: true,
            back_to_back: 1,
        }
    }

    #[test]
    fn back_to_back_launches_fill_the_span_and_no_more() {
        assert_eq!(back_to_back_launches(1, 0.25), 1);
        assert_eq!(back_to_back_launches(8, 0.25), 8);
        assert_eq!(back_to_back_launches(8, 3.4), 5);
        assert_eq!(back_to_back_launches(8, 20.0), 1);
        assert_eq!(back_to_back_launches(8, 500.0), 1);
        assert_eq!(back_to_back_launches(8, 0.0), 8);
        assert_eq!(back_to_back_launches(0, 1.0), 1);
    }

    #[test]
    fn heating_runs_the_work_for_its_duration_and_not_at_all_for_zero() {
        let mut calls = 0;
        let took = run_for(Duration::ZERO, || {
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(calls, 0);
        assert!(took < Duration::from_millis(5));
        let took = run_for(Duration::from_millis(30), || {
            calls += 1;
            std::thread::sleep(Duration::from_millis(2));
            Ok(())
        })
        .unwrap();
        assert!(took >= Duration::from_millis(30), "stopped after {took:?}");
        assert!((1..=16).contains(&calls), "{calls} calls of 2 ms in 30 ms");
    }

    #[test]
    fn heating_stops_at_the_first_error() {
        let mut calls = 0;
        let result = run_for(Duration::from_secs(5), || {
            calls += 1;
            if calls == 3 { Err(crate::base::error::Error::new("a launch failed")) } else { Ok(()) }
        });
        assert!(result.is_err());
        assert_eq!(calls, 3);
    }

    /// Feeds `sampler` repetitions of `ms` (cycling), each `step` of wall time apart,
    /// until it stops; returns how and after how many.
    fn run(sampler: &mut Sampler, ms: &[f64], step: Duration) -> (Stop, usize) {
        for i in 0.. {
            sampler.push(ms[i % ms.len()]);
            if let Some(stop) = sampler.stop(step * (i as u32 + 1)) {
                return (stop, i + 1);
            }
        }
        unreachable!()
    }

    #[test]
    fn rates_divide_by_the_median_not_the_mean() {
        // 0.5, 2 and 4 ms: the median 2 ms. 4 GB in 2 ms is 2000 GB/s; 6 TFLOP in 2 ms, 3000 TFLOP/s.
        let timing = Timing::from_samples(&mut [4.0, 0.5, 2.0], Stop::Settled);
        assert_eq!(timing.gigabytes_per_second(4e9), 2000.0);
        assert_eq!(timing.teraflops(6e12), 3000.0);
    }

    #[test]
    fn a_quiet_kernel_stops_at_the_minimum() {
        // 1 ms repetitions, all alike: 10 of them give 10 ms ≥ 5 ms, and no noise.
        let (stop, n) = run(&mut Sampler::new(options()), &[1.0], Duration::from_millis(2));
        assert_eq!((stop, n), (Stop::Settled, 10));
    }

    #[test]
    fn a_short_kernel_runs_until_the_minimum_time() {
        // 1/64 ms each (exact in binary): the 5 ms minimum needs 320 of them, not 10.
        let (stop, n) = run(&mut Sampler::new(options()), &[1.0 / 64.0], Duration::from_micros(50));
        assert_eq!((stop, n), (Stop::Settled, 320));
    }

    #[test]
    fn a_noisy_kernel_runs_until_its_median_is_known() {
        // Repetitions spread ±5 %: IQR/median ≈ 5 %, so the median's noise 0.93·5/√n falls
        // under 0.5 % only past n ≈ 86.
        let noisy = [0.95, 1.0, 1.05, 0.975, 1.025];
        let (stop, n) = run(&mut Sampler::new(options()), &noisy, Duration::from_millis(2));
        let timing = Sampler::new(options()).timing_of(&noisy, n);
        assert_eq!(stop, Stop::Settled);
        assert!((80..=100).contains(&n), "stopped after {n}");
        assert!(timing.noise_percent() <= 0.5, "{}", timing.noise_percent());
    }

    #[test]
    fn the_budget_cuts_a_kernel_short() {
        // Too noisy ever to settle within a 2 s budget at 0.1 s per repetition.
        let (stop, n) = run(&mut Sampler::new(options()), &[1.0, 2.0], Duration::from_millis(100));
        assert_eq!((stop, n), (Stop::Budget, 20));
        // And the minimum itself, when it cannot fit.
        let (stop, n) = run(&mut Sampler::new(options()), &[1.0], Duration::from_millis(500));
        assert_eq!((stop, n), (Stop::Budget, 4));
    }

    #[test]
    fn one_launch_decides_hopelessness() {
        // 10 repetitions must fit 2 s: 150 ms each do, 250 ms do not.
        assert!(!hopeless(&options(), 150.0));
        assert!(hopeless(&options(), 250.0));
        let timing = Timing::from_samples(&mut [250.0], Stop::OneLaunch);
        assert_eq!((timing.median_ms, timing.repetitions, timing.stop), (250.0, 1, Stop::OneLaunch));
    }

    #[test]
    fn the_status_estimates_what_is_left() {
        let mut sampler = Sampler::new(options());
        sampler.push(1.0);
        sampler.push(1.0);
        // 2 of 10 done in 0.2 s: 8 more at 0.1 s each.
        assert_eq!(sampler.status(Duration::from_millis(200)), "2 of ≥ 10 repetitions, about 800 ms left");
    }

    impl Sampler {
        /// The timing of the first `n` of `ms` cycled.
        fn timing_of(&self, ms: &[f64], n: usize) -> Timing {
            let mut samples: Vec<f64> = (0..n).map(|i| ms[i % ms.len()]).collect();
            Timing::from_samples(&mut samples, Stop::Settled)
        }
    }
}
