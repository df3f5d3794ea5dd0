//! What the families' GPU tests share: the device and the C++ twins, each opened once for
//! the whole test binary, and the seed of a fresh input. The tests themselves live in each
//! family (`Family::gpu_tests`); `tests/gpu.rs` runs them.

use crate::base::gpu::Gpu;
use crate::base::ptx;
use crate::twins::Twins;
use std::sync::OnceLock;

/// The device the GPU tests run on (ordinal 0, the PTX from the default folder), opened
/// once.
pub fn gpu() -> Result<&'static Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::open(0, &ptx::default_dir()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

/// The C++ twins on that device, opened once.
pub fn twins() -> Result<&'static Twins, String> {
    static TWINS: OnceLock<Result<Twins, String>> = OnceLock::new();
    let gpu = gpu()?;
    TWINS.get_or_init(|| Twins::open(gpu)).as_ref().map_err(Clone::clone)
}

/// Why a twin test cannot run here although the GPU tests do (no NVRTC), or `None`; `None`
/// too without a GPU, where every GPU test is ignored with that reason instead.
pub fn twins_absent(gpu_present: bool) -> Option<String> {
    gpu_present.then(crate::twins::nvrtc_absent_reason).flatten()
}

/// Why the device cannot run a step of `arch`, where a device is present; `None` where it
/// can (or where there is no device: then every GPU test is ignored with that reason).
pub fn arch_unavailable(gpu_present: bool, id: &str, arch: ptx::Arch) -> Option<String> {
    if !gpu_present {
        return None;
    }
    let gpu = gpu().ok()?;
    ptx::unavailable(id, arch, gpu.info.compute_capability, gpu.info.ptx_arch)
}

/// Why a test that needs `gib` GiB of free device memory cannot run here, or `None` (also
/// when no device can be opened: the test then runs and reports why).
pub fn memory_short(gpu_present: bool, gib: u64) -> Option<String> {
    let free = gpu_present.then(|| gpu().ok()?.available_memory().ok()).flatten()?;
    (free < gib << 30).then(|| format!("the device has less than {gib} GiB free"))
}

/// A result with an error as text, as the tests report it.
pub fn text<T>(result: crate::base::error::Result<T>) -> Result<T, String> {
    result.map_err(|e| e.to_string())
}
