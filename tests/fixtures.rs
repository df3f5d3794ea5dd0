//! What the CPU-side tests of the host's output share: a device described as the driver
//! describes it, with no GPU needed. Included by each test file (`#[path]` module): the
//! `tests` crate's library cannot see the host, a dev-dependency.

use host::base::gpu::DeviceInfo;
use host::base::ptx::Arch;

/// An H200 as the driver describes it: 4814 GB/s theoretical.
pub fn h200() -> DeviceInfo {
    DeviceInfo {
        ordinal: 0,
        name: "NVIDIA H200".into(),
        compute_capability: (9, 0),
        multiprocessors: 132,
        max_threads_per_sm: 2048,
        sm_clock_khz: 1_980_000,
        l2_bytes: 60 << 20,
        memory_bytes: 150 << 30,
        memory_clock_khz: 3_201_000,
        memory_bus_bits: 6016,
        driver_version: 13000,
        ptx_arch: Arch::new(90, true),
    }
}
