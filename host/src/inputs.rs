//! Random inputs, written on the device by the fill kernels (the CPU reference computes
//! the same values from `common::input`).

use crate::error::Result;
use crate::gpu::{Arg, Gpu, launch_config};
use crate::memory::DeviceBuffer;

/// Threads per block of the fill kernels.
const FILL_BLOCK: u32 = 256;

fn fill(gpu: &Gpu, kernel: &str, buffer: &DeviceBuffer, n: usize, seed: u64) -> Result<()> {
    assert!(n * 4 <= buffer.bytes(), "fill past the end of a buffer");
    let function = gpu.function(kernel)?;
    let grid = gpu.full_wave(&function, FILL_BLOCK, 0)?;
    // SAFETY: fill_random_*(out: *mut T, n: usize, seed: u64) with 4-byte T; `buffer`
    // holds n of them.
    unsafe {
        gpu.launch(&function, launch_config(grid, FILL_BLOCK, 0), &[
            Arg::U64(buffer.ptr()),
            Arg::U64(n as u64),
            Arg::U64(seed),
        ])
    }
}

/// `buffer[i] = common::input::random_i32(seed, i)` for `i < n`.
pub fn fill_random_i32(gpu: &Gpu, buffer: &DeviceBuffer, n: usize, seed: u64) -> Result<()> {
    fill(gpu, "fill_random_i32", buffer, n, seed)
}

/// `buffer[i] = common::input::random_f32(seed, i)` for `i < n`.
pub fn fill_random_f32(gpu: &Gpu, buffer: &DeviceBuffer, n: usize, seed: u64) -> Result<()> {
    fill(gpu, "fill_random_f32", buffer, n, seed)
}
