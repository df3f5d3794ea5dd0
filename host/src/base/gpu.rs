//! The device: opening it with clear errors, what it is, and the kernels loaded on it.

use crate::base::error::{Context, Error, Result};
use crate::base::ptx;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaModule, CudaStream, LaunchConfig, sys};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long one wait for the GPU (a launch, a copy, a repetition) may last before the
/// kernel is called hung, unless `--hang-after` says otherwise. Far above any launch of
/// the suite (the longest, g01 at 16384³, takes seconds), and above the 40 s of one g10
/// launch at 100000³.
pub const DEFAULT_HANG_AFTER: Duration = Duration::from_secs(300);

/// Exit status when a kernel hangs: that of a kernel fault, which it is to the user.
pub const EXIT_HUNG: i32 = 3;

/// One kernel argument, by the PTX parameter type it fills: `.u64` (pointers, `usize`,
/// `u64`), `.u32` or `.f32`.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    U64(u64),
    U32(u32),
    F32(f32),
}

/// A one-dimensional launch shape.
pub fn launch_config(grid: u32, block: u32, shared_bytes: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared_bytes }
}

/// What the runner reports about the device, read from the driver.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    /// Most threads one SM can hold at once (2048 on Volta to Hopper).
    pub max_threads_per_sm: u32,
    /// Peak SM clock, kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`): converts cycles to time.
    pub sm_clock_khz: u64,
    pub l2_bytes: u64,
    pub memory_bytes: u64,
    /// Peak memory clock, kHz (`CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE`).
    pub memory_clock_khz: u64,
    pub memory_bus_bits: u64,
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    pub ptx_arch: ptx::Arch,
}

impl DeviceInfo {
    /// Theoretical DRAM bandwidth in bytes/s: two transfers per memory clock (DDR) across
    /// the whole bus. The datasheet figure, not an achievable one.
    pub fn theoretical_bandwidth(&self) -> f64 {
        2.0 * self.memory_clock_khz as f64 * 1e3 * (self.memory_bus_bits as f64 / 8.0)
    }

    /// The description as JSON, for the machine-readable results.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "ordinal": self.ordinal,
            "compute_capability": format!("{}.{}", self.compute_capability.0, self.compute_capability.1),
            "multiprocessors": self.multiprocessors,
            "max_threads_per_sm": self.max_threads_per_sm,
            "sm_clock_mhz": self.sm_clock_khz / 1000,
            "l2_bytes": self.l2_bytes,
            "memory_bytes": self.memory_bytes,
            "memory_clock_mhz": self.memory_clock_khz / 1000,
            "memory_bus_bits": self.memory_bus_bits,
            "theoretical_bandwidth_gbs": self.theoretical_bandwidth() / 1e9,
            "driver_version": self.driver_version,
            "ptx_arch": self.ptx_arch.to_string(),
        })
    }

    pub fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!(
            "{} (device {}), compute capability {major}.{minor}, {} SMs, L2 {} MiB, {:.1} GiB\n\
             memory: {} MHz × {}-bit bus × 2 = {:.0} GB/s theoretical; driver CUDA {}.{}; PTX {}",
            self.name,
            self.ordinal,
            self.multiprocessors,
            self.l2_bytes >> 20,
            self.memory_bytes as f64 / (1u64 << 30) as f64,
            self.memory_clock_khz / 1000,
            self.memory_bus_bits,
            self.theoretical_bandwidth() / 1e9,
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10,
            self.ptx_arch,
        )
    }
}

/// An open device with the project's PTX loaded and one stream to launch on.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
    module: Arc<CudaModule>,
    ptx_entries: Vec<String>,
    ptx: String,
    /// Kernels already looked up: `function` runs inside timed loops, so it must cost a
    /// hash lookup, not a module search and a driver call.
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// See [`DEFAULT_HANG_AFTER`].
    pub hang_after: Duration,
    /// Recorded by [`Gpu::sync`] and waited on. One for the device, not one per wait: on a
    /// single stream, waiting for the latest record of it covers every earlier one, from
    /// any thread.
    sync_event: CudaEvent,
}

/// Why this machine has no GPU to run on (no driver library, or no device), or `None`
/// when it has one. The GPU tests are ignored, not failed, for these reasons only.
pub fn absent_reason() -> Option<String> {
    // SAFETY: only probes whether the driver library can be loaded.
    if !unsafe { sys::is_culib_present() } {
        return Some(
            "no NVIDIA driver: libcuda could not be loaded. Install the NVIDIA driver \
             (the CUDA toolkit is not needed), or run on a machine with an NVIDIA GPU."
                .into(),
        );
    }
    match CudaContext::device_count() {
        Ok(count) if count > 0 => None,
        Ok(_) => {
            Some("the NVIDIA driver sees no CUDA device: check `nvidia-smi` and CUDA_VISIBLE_DEVICES".into())
        }
        Err(e) => Some(Error::driver("counting CUDA devices", e).to_string()),
    }
}

impl Gpu {
    /// Opens device `ordinal` and loads the PTX that fits it from `ptx_dir`.
    pub fn open(ordinal: usize, ptx_dir: &Path) -> Result<Gpu> {
        if let Some(reason) = absent_reason() {
            return Err(Error::new(reason));
        }
        let count = CudaContext::device_count().context("counting CUDA devices")?;
        if ordinal >= count as usize {
            return Err(Error::new(format!(
                "--device {ordinal}: there are only {count} CUDA device(s), numbered from 0"
            )));
        }
        let ctx = CudaContext::new(ordinal).context("creating a context on the device")?;
        let attr =
            |a: Attr| -> Result<u64> { Ok(ctx.attribute(a).context("reading a device attribute")? as u64) };
        let (major, minor) = (
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        );
        let (ptx_arch, text) = ptx::load(ptx_dir, major, minor)?;
        let mut driver_version = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .context("reading the driver version")?;
        let info = DeviceInfo {
            ordinal,
            name: ctx.name().context("reading the device name")?,
            compute_capability: (major, minor),
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            max_threads_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32,
            sm_clock_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            memory_bytes: ctx.total_mem().context("reading the memory size")? as u64,
            memory_clock_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_bits: attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
            driver_version,
            ptx_arch,
        };
        let ptx_entries = ptx::entry_points(&text).into_iter().map(String::from).collect();
        let module = ctx.load_module(Ptx::from_src(text.clone())).context("loading the PTX")?;
        let stream = ctx.default_stream();
        // No timing on it (cudarc's `None`): a lighter event.
        let sync_event = ctx.new_event(None).context("creating an event")?;
        Ok(Gpu {
            ctx,
            stream,
            info,
            module,
            ptx_entries,
            ptx: text,
            functions: Mutex::default(),
            hang_after: DEFAULT_HANG_AFTER,
            sync_event,
        })
    }

    /// Makes this GPU's context current on the calling thread. cudarc does so for the calls it
    /// makes; the driver calls made here directly need it too, as the GPU tests run on threads
    /// of their own (without it: `CUDA_ERROR_INVALID_CONTEXT`).
    pub fn make_current(&self) -> Result<()> {
        self.ctx.bind_to_thread().context("making the device's context current")
    }

    /// The kernel `name` from the PTX (looked up once, then cached).
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        let mut functions = self.functions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(function) = functions.get(name) {
            return Ok(function.clone());
        }
        if !self.ptx_entries.iter().any(|e| e == name) {
            return Err(Error::new(format!(
                "kernel `{name}` is not in the PTX: rebuild it with `cargo xtask build-ptx`"
            )));
        }
        let function = self.module.load_function(name).context(&format!("loading kernel `{name}`"))?;
        functions.insert(name.to_string(), function.clone());
        Ok(function)
    }

    /// Lets `function` be launched with `bytes` of dynamic shared memory. Above 48 KB a
    /// kernel must opt in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), up to the
    /// device's opt-in limit (227 KB on Hopper).
    pub fn allow_dynamic_shared(&self, function: &CudaFunction, bytes: u32) -> Result<()> {
        const DEFAULT_LIMIT: u32 = 48 * 1024;
        if bytes <= DEFAULT_LIMIT {
            return Ok(());
        }
        let limit = self
            .ctx
            .attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .context("reading the shared-memory limit")? as u32;
        if bytes > limit {
            return Err(Error::new(format!(
                "the kernel needs {bytes} bytes of shared memory per block; this device allows {limit}"
            )));
        }
        function
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .context("raising the kernel's shared-memory limit")
    }

    /// The PTX text of entry point `name`, from `.entry` to its closing brace.
    pub fn ptx_of(&self, name: &str) -> Option<&str> {
        let start = self.ptx.find(&format!(".entry {name}("))?;
        let end = self.ptx[start..].find("\n}").map_or(self.ptx.len(), |e| start + e + 2);
        Some(&self.ptx[start..end])
    }

    /// Blocks of `block` threads (with `shared_bytes` of dynamic shared memory) that fit on
    /// the whole GPU at once: the occupancy calculator's blocks per SM × SMs.
    pub fn full_wave(&self, function: &CudaFunction, block: u32, shared_bytes: u32) -> Result<u32> {
        let per_sm = function
            .occupancy_max_active_blocks_per_multiprocessor(block, shared_bytes as usize, None)
            .context("asking the occupancy calculator")?;
        Ok(per_sm.max(1) * self.info.multiprocessors)
    }

    /// Clusters of `cluster` blocks (along x) of `function` that fit on the GPU at once
    /// (`cuOccupancyMaxActiveClusters`): SMs are grouped in GPCs and a cluster must fit in
    /// one, so this can be less than SMs / `cluster`.
    pub fn max_active_clusters(
        &self,
        function: &CudaFunction,
        block: u32,
        shared_bytes: u32,
        cluster: u32,
    ) -> Result<u32> {
        let mut attribute = cluster_attribute(cluster);
        let config = sys::CUlaunchConfig {
            gridDimX: cluster,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: shared_bytes,
            hStream: self.stream.cu_stream(),
            attrs: &mut attribute,
            numAttrs: 1,
        };
        let mut clusters = 0;
        self.make_current()?;
        // SAFETY: `config` and its one attribute outlive the call, which only reads them.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, function.cu_function(), &config) }
            .result()
            .context("asking the occupancy calculator for clusters")?;
        if clusters <= 0 {
            return Err(Error::new(format!(
                "no cluster of {cluster} blocks of {block} threads and {shared_bytes} bytes of shared memory                  fits on this device"
            )));
        }
        Ok(clusters as u32)
    }

    /// Free device memory in bytes, as the driver reports it: memory that buffers already
    /// dropped left in the device's memory pool does not count (see
    /// [`Gpu::available_memory`]).
    pub fn free_memory(&self) -> Result<u64> {
        Ok(self.ctx.mem_get_info().context("reading free memory")?.0 as u64)
    }

    /// Device memory in bytes a new buffer can have: the driver's free memory and what the
    /// device's memory pool holds unused. A dropped buffer is freed in stream order
    /// (`cuMemFreeAsync`) into the pool, which keeps it for the next allocations rather than
    /// giving it back: on an H100, after a 64 GiB buffer was dropped, the driver reported 13
    /// GiB free, and still did after the stream was waited for and the pool trimmed
    /// (`cuMemPoolTrimTo`).
    pub fn available_memory(&self) -> Result<u64> {
        let free = self.free_memory()?;
        let mut pool = std::ptr::null_mut();
        // SAFETY: `pool` is written by the call; the device is this context's, which
        // `free_memory` made current.
        unsafe { sys::cuDeviceGetMemPool(&mut pool, self.ctx.cu_device()) }
            .result()
            .context("finding the device's memory pool")?;
        let pool_bytes = |attribute| -> Result<u64> {
            let mut bytes = 0u64;
            // SAFETY: both attributes are 64-bit values, written into `bytes`.
            unsafe { sys::cuMemPoolGetAttribute(pool, attribute, (&raw mut bytes).cast()) }
                .result()
                .context("reading the memory pool's size")?;
            Ok(bytes)
        };
        let reserved = pool_bytes(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?;
        let used = pool_bytes(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?;
        Ok(free + reserved.saturating_sub(used))
    }

    /// Waits for all queued work and turns a kernel fault into an error (a hang ends the
    /// process: see [`Gpu::wait_for`]).
    pub fn sync(&self, what: &str) -> Result<()> {
        self.sync_event.record(&self.stream).context(what)?;
        self.wait_for(&self.sync_event, what)
    }

    /// Waits until `event` has happened: a fault comes back as an error; work still
    /// running after [`Gpu::hang_after`] is a hung kernel, and then the process stops with
    /// [`EXIT_HUNG`], saying which step hung ([`watchdog`]).
    ///
    /// The wait itself blocks in the driver (`cuEventSynchronize`), as an ordinary
    /// synchronization does; a watchdog thread keeps the time. (Polling the event instead
    /// would make millions of driver calls over a test suite, each of which
    /// compute-sanitizer records: racecheck ran the host out of memory that way.)
    pub fn wait_for(&self, event: &CudaEvent, what: &str) -> Result<()> {
        if event.try_is_complete().context(what)? {
            return Ok(());
        }
        let _watch = watchdog::watch(self.hang_after, what);
        event.synchronize().context(what)
    }

    /// Launches `function` with plain arguments (device pointers and sizes as `u64`).
    ///
    /// # Safety
    /// The arguments match the kernel's parameters in number, order and type, and every
    /// pointer covers what the kernel reads and writes for this launch shape.
    pub unsafe fn launch(&self, function: &CudaFunction, cfg: LaunchConfig, args: &[Arg]) -> Result<()> {
        use cudarc::driver::PushKernelArg;
        let mut builder = self.stream.launch_builder(function);
        for arg in args {
            match arg {
                Arg::U64(v) => builder.arg(v),
                Arg::U32(v) => builder.arg(v),
                Arg::F32(v) => builder.arg(v),
            };
        }
        // SAFETY: the caller guarantees the arguments fit the kernel.
        unsafe { builder.launch(cfg) }.context("launching a kernel")?;
        Ok(())
    }

    /// [`Gpu::launch`] in clusters of `cluster` blocks along x: `cuLaunchKernelEx` with the
    /// cluster-dimension attribute (cudarc's launch builder takes no attributes). The grid's
    /// x must be a multiple of `cluster`.
    ///
    /// # Safety
    /// As [`Gpu::launch`], and the kernel expects clusters of this shape.
    pub unsafe fn launch_clusters(
        &self,
        function: &CudaFunction,
        cfg: LaunchConfig,
        cluster: u32,
        args: &[Arg],
    ) -> Result<()> {
        if !cfg.grid_dim.0.is_multiple_of(cluster) {
            return Err(Error::new(format!(
                "a grid of {} blocks cannot be cut into clusters of {cluster}",
                cfg.grid_dim.0
            )));
        }
        // The driver reads each argument through a pointer to its value, typed as the
        // kernel's parameter.
        let mut params: Vec<*mut std::ffi::c_void> = args
            .iter()
            .map(|arg| match arg {
                Arg::U64(v) => v as *const u64 as *mut std::ffi::c_void,
                Arg::U32(v) => v as *const u32 as *mut std::ffi::c_void,
                Arg::F32(v) => v as *const f32 as *mut std::ffi::c_void,
            })
            .collect();
        let mut attribute = cluster_attribute(cluster);
        let config = sys::CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            hStream: self.stream.cu_stream(),
            attrs: &mut attribute,
            numAttrs: 1,
        };
        self.make_current()?;
        // SAFETY: `params` points at `args`, which outlive the call; the caller guarantees
        // they fit the kernel and the cluster shape.
        unsafe {
            sys::cuLaunchKernelEx(&config, function.cu_function(), params.as_mut_ptr(), std::ptr::null_mut())
        }
        .result()
        .context("launching a kernel in clusters (cuLaunchKernelEx)")
    }
}

/// The launch attribute asking for clusters of `blocks` blocks along x.
fn cluster_attribute(blocks: u32) -> sys::CUlaunchAttribute {
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue {
            clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: blocks, y: 1, z: 1 },
        },
    }
}

/// The clock of [`Gpu::wait_for`]: one thread, started at the first wait, that wakes once
/// a second while a wait is in progress, says so on stderr during long ones
/// ([`crate::base::progress::waiting`]), and stops the process when one outlasts its limit.
///
/// Nothing can be freed or synchronized while a kernel hangs (cudarc's drops synchronize),
/// so the process ends from here: the records of every finished kernel are already on
/// disk, and ending the process is what ends the kernel.
pub mod watchdog {
    use super::EXIT_HUNG;
    use std::sync::{Condvar, Mutex, Once};
    use std::time::{Duration, Instant};

    /// How often the thread looks at the waits in progress.
    const TICK: Duration = Duration::from_secs(1);

    struct Wait {
        id: u64,
        since: Instant,
        limit: Duration,
        what: String,
        /// The progress label when the wait began: the step that hangs.
        step: String,
    }

    static WAITS: Mutex<(u64, Vec<Wait>)> = Mutex::new((0, Vec::new()));
    static WAKE: Condvar = Condvar::new();
    static START: Once = Once::new();
    /// What the run says last when it is stopped here ([`last_words`]).
    static LAST_WORDS: Mutex<Option<Box<dyn Fn() + Send>>> = Mutex::new(None);

    /// Sets what the watchdog prints after its error, before it stops the process: the
    /// run's note of what it did not run, which the run's own error path cannot print
    /// when the process ends from here.
    pub fn last_words(say: impl Fn() + Send + 'static) {
        *LAST_WORDS.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(say));
    }

    /// A wait in progress, watched until dropped.
    pub struct Watch(u64);

    impl Drop for Watch {
        fn drop(&mut self) {
            let mut waits = WAITS.lock().unwrap_or_else(|p| p.into_inner());
            waits.1.retain(|w| w.id != self.0);
        }
    }

    /// Watches a wait for the GPU (`what`) that may last `limit`.
    pub fn watch(limit: Duration, what: &str) -> Watch {
        START.call_once(|| {
            std::thread::Builder::new()
                .name("gpu-watchdog".into())
                .spawn(run)
                .expect("the watchdog thread starts");
        });
        let mut waits = WAITS.lock().unwrap_or_else(|p| p.into_inner());
        waits.0 += 1;
        let id = waits.0;
        let step = crate::base::progress::current();
        waits.1.push(Wait { id, since: Instant::now(), limit, what: what.to_string(), step });
        WAKE.notify_one();
        Watch(id)
    }

    fn run() {
        let mut waits = WAITS.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(longest) = waits.1.iter().map(|w| w.since.elapsed()).max() {
                if let Some(hung) = waits.1.iter().find(|w| w.since.elapsed() >= w.limit) {
                    crate::base::progress::finish();
                    eprintln!(
                        "error: {}: {}: the GPU is still busy after {} (--hang-after): the kernel hangs, \
                         or is far slower than that limit allows. Stopping the process, which ends the \
                         kernel; the records written so far are kept.",
                        hung.step,
                        hung.what,
                        crate::base::progress::duration(hung.limit)
                    );
                    if let Some(say) = LAST_WORDS.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                        say();
                    }
                    std::process::exit(EXIT_HUNG);
                }
                crate::base::progress::waiting(longest);
                waits = WAKE.wait_timeout(waits, TICK).unwrap_or_else(|p| p.into_inner()).0;
            } else {
                waits = WAKE.wait(waits).unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}
