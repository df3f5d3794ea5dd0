//! Launching, verifying and timing any GEMM kernel (and cuBLAS) on one shape.

use super::cublas::{Baseline, Cublas};
use super::cublaslt::Fp8Scaling;
use super::reference::{FP8_SCALES, FULL_CHECK_MAX_MACS, Inputs, relative_error};
use super::registry::{GemmKernel, GridMap, Operands};
use crate::base::error::{Context, Error, Result};
use crate::base::gpu::{Arg, Gpu};
use crate::base::inputs::fill_random;
use crate::base::memory::DeviceBuffer;
use crate::base::precision::{Precision, half_value};
use crate::base::tensor_map::{Element, TensorMaps, encode};
use crate::measure::timing::{Timer, Timing};
use crate::twins::Code;
use cudarc::driver::{CudaEvent, CudaFunction, LaunchConfig};

/// A quiet NaN: written over C before each checked run, so an unwritten entry fails; for a
/// bf16 C, two bf16 quiet NaNs to the word.
const POISON: u32 = 0x7fc0_0000;
const POISON_BF16: u32 = 0x7fc0_7fc0;

/// What a check found.
#[derive(Clone, Debug)]
pub struct GemmCheck {
    pub error: f64,
    pub tolerance: f64,
    /// "all entries" or "N sampled entries".
    pub method: String,
    /// The checked launch's time (CUDA events), ms: the timer's first launch, which tells
    /// it whether the repetitions fit the budget at all.
    pub launch_ms: f64,
    /// Registers per thread of the checked kernel (`None` for cuBLAS).
    pub registers: Option<u32>,
}

impl GemmCheck {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance
    }
}

/// A kernel's function, launch shape and arguments for one bench.
struct PreparedLaunch {
    function: CudaFunction,
    cfg: LaunchConfig,
    /// Blocks per cluster (1: a plain launch).
    cluster: u32,
    args: Vec<Arg>,
    /// The kernel's workspace (kept alive while the launch may run) and the 4-byte words
    /// of it that hold partial tiles, all but the last word per block.
    workspace: Option<(DeviceBuffer, usize)>,
}

/// One shape's A, B (random) and C on the device, with the reference for the entries a
/// check compares.
pub struct GemmBench<'g> {
    gpu: &'g Gpu,
    pub inputs: Inputs,
    a: DeviceBuffer,
    b: DeviceBuffer,
    c: DeviceBuffer,
    /// The scales an FP8 kernel takes after `k`, one pointer each: the per-tensor pair
    /// ([`FP8_SCALES`]), or A's and B's block scales (w19's layouts, which cuBLASLt reads
    /// too); none for 16-bit inputs.
    scales: Vec<DeviceBuffer>,
    entries: Vec<(u32, u32)>,
    want: Vec<f64>,
    /// A's and B's TMA tensor maps, encoded at the first launch that needs them (before
    /// any timing: the check comes first), by box shapes.
    tensor_maps: std::sync::Mutex<Vec<(Operands, std::sync::Arc<TensorMaps>)>>,
    /// Around the checked launch.
    events: (CudaEvent, CudaEvent),
}

impl<'g> GemmBench<'g> {
    pub fn new(gpu: &'g Gpu, precision: Precision, m: u32, n: u32, k: u32, seed: u64) -> Result<Self> {
        if m == 0 || n == 0 || k == 0 {
            return Err(Error::new(format!("GEMM shape {m}×{n}×{k}: every dimension must be at least 1")));
        }
        let inputs = Inputs { precision, m, n, k, seed_a: seed, seed_b: seed ^ 0xB0B };
        let elements = |r: u32, c: u32| r as usize * c as usize;
        let mut a = DeviceBuffer::alloc(gpu, elements(m, k) * precision.bytes(), "GEMM's A")?;
        let mut b = DeviceBuffer::alloc(gpu, elements(k, n) * precision.bytes(), "GEMM's B")?;
        let c = DeviceBuffer::alloc(gpu, elements(m, n) * 4, "GEMM's C")?;
        if precision.is_fp8() {
            // B as Bᵀ (N × K): the same count of codes, read K-major (`Inputs::b`).
            a.upload(gpu, &crate::base::inputs::e4m3_codes(inputs.seed_a, elements(m, k)))?;
            let b_format = precision.b_format().expect("an FP8 product's B has an 8-bit format");
            b.upload(gpu, &crate::base::inputs::fp8_codes(b_format, inputs.seed_b, elements(k, n)))?;
        } else {
            fill_random(gpu, precision, &a, elements(m, k), inputs.seed_a)?;
            fill_random(gpu, precision, &b, elements(k, n), inputs.seed_b)?;
        }
        let scales = match precision {
            Precision::E4m3 | Precision::E4m3E5m2 => {
                vec![DeviceBuffer::with_values(gpu, &FP8_SCALES, "the FP8 scales")?]
            }
            // In the layouts w19 reads, which are cuBLASLt's too (its GPU test checks them).
            Precision::E4m3Blocks => vec![
                DeviceBuffer::with_values(gpu, &inputs.a_scales(false), "A's block scales")?,
                DeviceBuffer::with_values(gpu, &inputs.b_scales(), "B's block scales")?,
            ],
            Precision::F32 | Precision::F16 | Precision::Bf16 => Vec::new(),
        };
        let entries = inputs.entries();
        let want = inputs.reference(&entries);
        // Events with timing enabled: cudarc's `None` would disable it.
        let event = || {
            gpu.ctx
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .context("creating an event")
        };
        let events = (event()?, event()?);
        Ok(Self { gpu, inputs, a, b, c, scales, entries, want, tensor_maps: Default::default(), events })
    }

    /// 2·M·N·K: the flops of one product.
    pub fn flops(&self) -> f64 {
        2.0 * f64::from(self.inputs.m) * f64::from(self.inputs.n) * f64::from(self.inputs.k)
    }

    /// Everything a launch of `kernel` (the Rust step or its C++ twin: `code`) on this
    /// bench needs, resolved once (checks, the function, its shared-memory limit, the
    /// tensor maps), so that the timed loop only launches.
    fn prepare(&self, kernel: &GemmKernel, code: Code) -> Result<PreparedLaunch> {
        let Inputs { m, n, k, precision, .. } = self.inputs;
        if kernel.precision != precision {
            return Err(Error::new(format!(
                "{} takes {} inputs, this bench holds {}",
                kernel.id,
                kernel.precision.name(),
                precision.name()
            )));
        }
        if let Some(refusal) = kernel.refusal(m, n, k) {
            return Err(Error::new(refusal));
        }
        if let Some(reason) = kernel.unavailable(self.gpu.info.compute_capability, self.gpu.info.ptx_arch) {
            return Err(Error::new(reason));
        }
        let function = code.function(self.gpu, kernel.id)?;
        self.gpu.allow_dynamic_shared(&function, kernel.dynamic_shared)?;
        let (a, b, c) = match kernel.operands {
            Operands::Pointers => (self.a.ptr(), self.b.ptr(), self.c.ptr()),
            Operands::TensorMaps { c_box, .. } => {
                let maps = self.tensor_maps(kernel.operands)?;
                let c = if c_box.is_some() { maps.address(2) } else { self.c.ptr() };
                (maps.address(0), maps.address(1), c)
            }
        };
        let (mut gx, gy) = kernel.grid(m, n);
        let cluster = kernel.cluster();
        if let GridMap::Persistent { .. } = kernel.grid_map {
            // As many blocks as run at once, in whole clusters, and no more than the tiles.
            let threads = kernel.block.0 * kernel.block.1;
            let resident = if cluster == 1 {
                self.gpu.full_wave(&function, threads, kernel.dynamic_shared)?
            } else {
                cluster * self.gpu.max_active_clusters(&function, threads, kernel.dynamic_shared, cluster)?
            };
            gx = gx.min(resident);
        }
        let slices = if kernel.split_k {
            let threads = kernel.block.0 * kernel.block.1;
            let resident = self.gpu.full_wave(&function, threads, kernel.dynamic_shared)?;
            common::gemm::g11::slices(gx * gy, k, resident)
        } else {
            1
        };
        let cfg = LaunchConfig {
            grid_dim: (gx, gy, slices),
            block_dim: (kernel.block.0, kernel.block.1, 1),
            shared_mem_bytes: kernel.dynamic_shared,
        };
        let mut args = vec![Arg::U64(a), Arg::U64(b), Arg::U64(c), Arg::U32(m), Arg::U32(n), Arg::U32(k)];
        args.extend(self.scales.iter().map(|scales| Arg::U64(scales.ptr())));
        let workspace = match kernel.workspace {
            Some(bytes) => {
                let blocks = gx * gy * slices;
                let bytes = bytes(blocks) as usize;
                let buffer = DeviceBuffer::alloc(self.gpu, bytes, &format!("{}'s workspace", kernel.id))?;
                buffer.fill_words(self.gpu, 0, bytes / 4)?;
                args.push(Arg::U64(buffer.ptr()));
                Some((buffer, bytes / 4 - blocks as usize))
            }
            None => None,
        };
        Ok(PreparedLaunch { function, cfg, cluster, args, workspace })
    }

    /// Launches a prepared kernel on this bench's buffers.
    fn launch(&self, launch: &PreparedLaunch) -> Result<()> {
        // SAFETY: every GEMM kernel is (a, b, c, m, n, k[, workspace]) over row-major buffers of M·K and
        // K·N inputs of its precision (checked in `prepare`), or tensor maps of them with the
        // boxes its registry entry names (kept alive by this bench), and M·N f32, launched
        // with its registry block, dynamic shared memory and cluster shape, and a grid
        // covering C (or, persistent, at most one block per tile, or per split of one;
        // times its K slices along z), and the workspace its entry asks for, zeroed at
        // allocation and left zero by every launch.
        unsafe {
            if launch.cluster > 1 {
                self.gpu.launch_clusters(&launch.function, launch.cfg, launch.cluster, &launch.args)
            } else {
                self.gpu.launch(&launch.function, launch.cfg, &launch.args)
            }
        }
    }

    /// The tensor maps of A, B (and C) for `operands`' boxes, encoded and uploaded once.
    fn tensor_maps(&self, operands: Operands) -> Result<std::sync::Arc<TensorMaps>> {
        let Operands::TensorMaps { a_box, b_box, c_box, c_bf16 } = operands else {
            return Err(Error::new("tensor maps asked for a kernel that takes pointers"));
        };
        let mut cache = self.tensor_maps.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, maps)) = cache.iter().find(|(o, _)| *o == operands) {
            return Ok(maps.clone());
        }
        let Inputs { m, n, k, .. } = self.inputs;
        let (element, b_rows, b_cols) =
            if self.inputs.precision.is_fp8() { (Element::Bits8, n, k) } else { (Element::Bits16, k, n) };
        let mut encoded = vec![
            encode(self.gpu, self.a.ptr(), m, k, element, a_box)?,
            encode(self.gpu, self.b.ptr(), b_rows, b_cols, element, b_box)?,
        ];
        if let Some(c_box) = c_box {
            let element = if c_bf16 { Element::Bits16 } else { Element::F32 };
            encoded.push(encode(self.gpu, self.c.ptr(), m, n, element, c_box)?);
        }
        let maps = std::sync::Arc::new(TensorMaps::upload(self.gpu, &encoded)?);
        cache.push((operands, maps.clone()));
        Ok(maps)
    }

    /// Runs `work` once on a poisoned C (f32, or bf16 where `c_bf16`), timed, and compares
    /// the checked entries with the reference.
    fn check(&self, c_bf16: bool, work: impl FnOnce() -> Result<()>) -> Result<GemmCheck> {
        let Inputs { m, n, .. } = self.inputs;
        let poison = if c_bf16 { POISON_BF16 } else { POISON };
        self.c.fill_words(self.gpu, poison, m as usize * n as usize)?;
        self.gpu.sync("poisoning C")?;
        let (start, stop) = &self.events;
        start.record(&self.gpu.stream).context("recording an event")?;
        work()?;
        stop.record(&self.gpu.stream).context("recording an event")?;
        self.gpu.wait_for(stop, "running the checked launch")?;
        let launch_ms = f64::from(start.elapsed_ms(stop).context("timing the checked launch")?);
        let c: Vec<f32> = if c_bf16 {
            let bits = self.c.read::<u16>(self.gpu, m as usize * n as usize)?;
            bits.into_iter().map(|b| half_value(Precision::Bf16, b)).collect()
        } else {
            self.c.read::<f32>(self.gpu, m as usize * n as usize)?
        };
        let got: Vec<f32> =
            self.entries.iter().map(|&(i, j)| c[i as usize * n as usize + j as usize]).collect();
        let full = u64::from(m) * u64::from(n) * u64::from(self.inputs.k) <= FULL_CHECK_MAX_MACS;
        let method =
            if full { "all entries".to_string() } else { format!("{} sampled entries", self.entries.len()) };
        Ok(GemmCheck {
            error: relative_error(&got, &self.want),
            tolerance: super::registry::tolerance(self.inputs.precision),
            method,
            launch_ms,
            registers: None,
        })
    }

    pub fn check_kernel(&self, kernel: &GemmKernel, code: Code) -> Result<GemmCheck> {
        let launch = self.prepare(kernel, code)?;
        if let Some((workspace, partial_words)) = &launch.workspace {
            // The timed runs reuse one workspace: check the launch that finds it as the
            // first one left it, so that a kernel which does not leave its flags clean fails
            // here. Its partial tiles, though, are poisoned in between: a second launch on
            // the same inputs writes the same partials, so a reader that ran ahead of a
            // writer's stores (a missing fence) would otherwise find the right values left
            // by the first launch, and pass.
            self.launch(&launch)?;
            workspace.fill_words(self.gpu, POISON, *partial_words)?;
        }
        let check = self.check(kernel.c_bf16(), || self.launch(&launch))?;
        Ok(GemmCheck { registers: crate::twins::registers(&launch.function), ..check })
    }

    pub fn check_cublas(&self, cublas: &Cublas, baseline: Baseline) -> Result<GemmCheck> {
        self.check(baseline == Baseline::Fp8Bf16Out, || self.cublas(cublas, baseline))
    }

    fn cublas(&self, cublas: &Cublas, baseline: Baseline) -> Result<()> {
        let Inputs { m, n, k, precision, .. } = self.inputs;
        let [scale_a, scale_b] = FP8_SCALES;
        let (scaling, c_bf16) = match baseline {
            Baseline::Sgemm | Baseline::GemmEx => {
                // SAFETY: the buffers hold M·K and K·N inputs of `precision` and M·N f32.
                return unsafe { cublas.gemm(precision, m, n, k, self.a.ptr(), self.b.ptr(), self.c.ptr()) };
            }
            Baseline::Fp8 { fast_accumulation } => {
                (Fp8Scaling::Tensor { scale_a, scale_b, fast_accumulation }, false)
            }
            Baseline::Fp8Bf16Out => (Fp8Scaling::Tensor { scale_a, scale_b, fast_accumulation: false }, true),
            Baseline::Fp8Blocks => match self.scales.as_slice() {
                [a_scales, b_scales] => {
                    (Fp8Scaling::Blocks { a_scales: a_scales.ptr(), b_scales: b_scales.ptr() }, false)
                }
                _ => return Err(Error::new("cuBLASLt's block scales asked of a bench without them")),
            },
        };
        let types = (precision == Precision::E4m3E5m2, c_bf16);
        // SAFETY: the buffers hold M·K e4m3 codes, N·K codes of B's format (as Bᵀ) and room
        // for M·N f32; block scales their counts.
        unsafe { cublas.fp8(self.gpu, scaling, types, (m, n, k), (self.a.ptr(), self.b.ptr(), self.c.ptr())) }
    }

    /// Times `kernel` after its check (whose launch is the timer's first).
    pub fn time_kernel(
        &self,
        kernel: &GemmKernel,
        code: Code,
        check: &GemmCheck,
        timer: &Timer,
    ) -> Result<Timing> {
        let launch = self.prepare(kernel, code)?;
        timer.measure_after(self.gpu, check.launch_ms, || self.launch(&launch))
    }

    /// Times cuBLAS after its check.
    pub fn time_cublas(
        &self,
        cublas: &Cublas,
        baseline: Baseline,
        check: &GemmCheck,
        timer: &Timer,
    ) -> Result<Timing> {
        timer.measure_after(self.gpu, check.launch_ms, || self.cublas(cublas, baseline))
    }
}
