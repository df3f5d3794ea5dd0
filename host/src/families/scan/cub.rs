//! CUB's scan and select, the vendor baseline of the scan family, in the same process: CUB is
//! a C++ template library whose host-side dispatch NVRTC cannot compile, so
//! `bench/cub/scan_library.cu` instantiates `cub::DeviceScan::{Inclusive,Exclusive}Sum` and
//! `cub::DeviceSelect::If` behind a C ABI, nvcc builds it into `libscan_cub.so`
//! (`bench/cub/build-scan-library.sh`), and this module opens it at run time. Without the
//! library the run goes on and the tables say how to build it.
//!
//! CUB runs on the host's own stream and buffers (the driver's primary context, which the
//! CUDA runtime inside the library shares), so its time is taken by the same events, after
//! the same L2 flush, as the ladder's.

use super::registry::ElementType;
use crate::base::error::{Error, Result};
use crate::base::gpu::Gpu;
use libloading::Library;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::PathBuf;

/// The environment variable naming the library file, tried first.
pub const LIBRARY_VARIABLE: &str = "GPU_KERNELS_CUB_LIBRARY";

/// The library's file name: looked for in `cub/` beside the executable (where the GPU
/// bundle's run builds it), then in the workspace's `dist/cub/`.
pub const LIBRARY_FILE: &str = "libscan_cub.so";

/// What to do when the library is missing.
pub const BUILD_HINT: &str =
    "build it with bench/cub/build-scan-library.sh (needs nvcc and CUB, which ship with the CUDA toolkit)";

type ScanWorkspace = unsafe extern "C" fn(u64, c_int, *mut u64) -> c_int;
type ScanRun =
    unsafe extern "C" fn(*mut c_void, u64, *const c_void, *mut c_void, u64, c_int, *mut c_void) -> c_int;
type SelectWorkspace = unsafe extern "C" fn(u64, *mut u64) -> c_int;
type SelectRun =
    unsafe extern "C" fn(*mut c_void, u64, *const c_int, *mut c_int, *mut u32, u64, *mut c_void) -> c_int;

/// The library, loaded, and its functions.
pub struct Cub {
    _library: Library,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// `CUB_VERSION` (e.g. 300100 for 3.1.0).
    pub version: i32,
    scan_workspace: ScanWorkspace,
    scan_run: ScanRun,
    select_workspace: SelectWorkspace,
    select_run: SelectRun,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
}

/// The operation code of the C ABI for a scan.
fn op(element: ElementType, exclusive: bool) -> c_int {
    match (element, exclusive) {
        (ElementType::I32, false) => 0,
        (ElementType::I32, true) => 1,
        (ElementType::F32, false) => 2,
        (ElementType::F32, true) => 3,
    }
}

/// The places the library is looked for, in order.
pub fn candidates() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        paths.push(PathBuf::from(path));
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())) {
        paths.push(dir.join("cub").join(LIBRARY_FILE));
        // Test binaries live in target/<profile>/deps.
        if let Some(up) = dir.parent() {
            paths.push(up.join("cub").join(LIBRARY_FILE));
        }
    }
    paths.push(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../dist/cub")).join(LIBRARY_FILE));
    paths
}

impl Cub {
    /// Opens the library, or says why it cannot (not found: where it looked and how to build
    /// it; found but unloadable: the loader's message).
    pub fn open() -> std::result::Result<Cub, String> {
        let candidates = candidates();
        let Some(path) = candidates.iter().find(|p| p.is_file()) else {
            let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            return Err(format!("{LIBRARY_FILE} not found (looked in {}): {BUILD_HINT}", looked.join(", ")));
        };
        // SAFETY: loading a library runs its initializers; this one is ours (a CUDA runtime
        // linked statically and CUB's instantiations) and has no others.
        let library =
            unsafe { Library::new(path) }.map_err(|e| format!("loading {}: {e}", path.display()))?;
        // SAFETY: each symbol has the C signature bench/cub/scan_library.cu declares.
        unsafe {
            let symbol = |name: &str| format!("{}: no symbol {name} ({BUILD_HINT})", path.display());
            let version: unsafe extern "C" fn() -> c_int =
                *library.get(b"scan_cub_version\0").map_err(|_| symbol("scan_cub_version"))?;
            Ok(Cub {
                version: version(),
                scan_workspace: *library
                    .get(b"scan_cub_workspace\0")
                    .map_err(|_| symbol("scan_cub_workspace"))?,
                scan_run: *library.get(b"scan_cub_run\0").map_err(|_| symbol("scan_cub_run"))?,
                select_workspace: *library
                    .get(b"select_cub_workspace\0")
                    .map_err(|_| symbol("select_cub_workspace"))?,
                select_run: *library.get(b"select_cub_run\0").map_err(|_| symbol("select_cub_run"))?,
                error_string: *library
                    .get(b"scan_cub_error_string\0")
                    .map_err(|_| symbol("scan_cub_error_string"))?,
                path: path.clone(),
                _library: library,
            })
        }
    }

    /// `CUB 3.1.0` from `CUB_VERSION`.
    pub fn describe(&self) -> String {
        format!(
            "CUB {}.{}.{} ({})",
            self.version / 100_000,
            self.version / 100 % 1000,
            self.version % 100,
            self.path.display()
        )
    }

    fn check(&self, status: c_int, what: &str) -> Result<()> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: cudaGetErrorString returns a static string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(status)) }.to_string_lossy().into_owned();
        Err(Error::new(format!("CUB {what}: {text} (CUDA runtime error {status})")))
    }

    /// Bytes of workspace a scan of `n` elements needs.
    pub fn scan_workspace(&self, n: usize, element: ElementType, exclusive: bool) -> Result<usize> {
        let mut bytes = 0u64;
        // SAFETY: writes one u64.
        let status = unsafe { (self.scan_workspace)(n as u64, op(element, exclusive), &mut bytes) };
        self.check(status, "sizing the scan's workspace")?;
        Ok(bytes as usize)
    }

    /// Queues CUB's scan of `input[0..n]` into `output` on the GPU's stream.
    ///
    /// # Safety
    /// `input` and `output` hold `n` elements of `element` on `gpu`; `workspace` holds
    /// `workspace_bytes` (at least what [`Cub::scan_workspace`] asked for).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn scan(
        &self,
        gpu: &Gpu,
        workspace: u64,
        workspace_bytes: usize,
        input: u64,
        output: u64,
        n: usize,
        element: ElementType,
        exclusive: bool,
    ) -> Result<()> {
        gpu.make_current()?;
        // SAFETY: as the caller promises; the stream is the GPU's.
        let status = unsafe {
            (self.scan_run)(
                workspace as *mut c_void,
                workspace_bytes as u64,
                input as *const c_void,
                output as *mut c_void,
                n as u64,
                op(element, exclusive),
                gpu.stream.cu_stream() as *mut c_void,
            )
        };
        self.check(status, "DeviceScan")
    }

    /// Bytes of workspace a select of `n` elements needs.
    pub fn select_workspace(&self, n: usize) -> Result<usize> {
        let mut bytes = 0u64;
        // SAFETY: writes one u64.
        let status = unsafe { (self.select_workspace)(n as u64, &mut bytes) };
        self.check(status, "sizing the select's workspace")?;
        Ok(bytes as usize)
    }

    /// Queues CUB's `DeviceSelect::If` (keep x > 0) of `input[0..n]` into `output`, its count
    /// into `*count`.
    ///
    /// # Safety
    /// `input` and `output` hold `n` `i32` on `gpu`, `count` one `u32`; `workspace` as for
    /// [`Cub::scan`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn select(
        &self,
        gpu: &Gpu,
        workspace: u64,
        workspace_bytes: usize,
        input: u64,
        output: u64,
        count: u64,
        n: usize,
    ) -> Result<()> {
        gpu.make_current()?;
        // SAFETY: as the caller promises.
        let status = unsafe {
            (self.select_run)(
                workspace as *mut c_void,
                workspace_bytes as u64,
                input as *const c_int,
                output as *mut c_int,
                count as *mut u32,
                n as u64,
                gpu.stream.cu_stream() as *mut c_void,
            )
        };
        self.check(status, "DeviceSelect::If")
    }
}
