//! Random inputs, written on the device by the fill kernels (the CPU reference computes
//! the same values from `common::input`).

use crate::base::error::{Error, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::base::precision::Precision;
use common::input::random_i32;

/// Threads per block of the fill kernels.
const FILL_BLOCK: u32 = 256;

fn fill(
    gpu: &Gpu,
    kernel: &str,
    bytes_per_element: usize,
    buffer: &DeviceBuffer,
    n: usize,
    seed: u64,
) -> Result<()> {
    assert!(n * bytes_per_element <= buffer.bytes(), "fill past the end of a buffer");
    let function = gpu.function(kernel)?;
    let grid = gpu.full_wave(&function, FILL_BLOCK, 0)?;
    // SAFETY: fill_random_*(out: *mut T, n: usize, seed: u64); `buffer` holds n T (checked
    // above with T's size).
    unsafe {
        gpu.launch(
            &function,
            launch_config(grid, FILL_BLOCK, 0),
            &[Arg::U64(buffer.ptr()), Arg::U64(n as u64), Arg::U64(seed)],
        )
    }
}

/// `buffer[i] = common::input::random_i32(seed, i)` for `i < n`.
pub fn fill_random_i32(gpu: &Gpu, buffer: &DeviceBuffer, n: usize, seed: u64) -> Result<()> {
    fill(gpu, "fill_random_i32", 4, buffer, n, seed)
}

/// `buffer[i] = common::input::random_f32(seed, i)` for `i < n`.
pub fn fill_random_f32(gpu: &Gpu, buffer: &DeviceBuffer, n: usize, seed: u64) -> Result<()> {
    fill(gpu, "fill_random_f32", 4, buffer, n, seed)
}

/// `buffer[i]` = element `i` of the `precision` stream `seed` (see
/// `gemm::reference::Inputs::value`), as f32, f16 or bf16 bits.
pub fn fill_random(
    gpu: &Gpu,
    precision: Precision,
    buffer: &DeviceBuffer,
    n: usize,
    seed: u64,
) -> Result<()> {
    match precision {
        Precision::F32 => fill_random_f32(gpu, buffer, n, seed),
        Precision::F16 => fill(gpu, "fill_random_f16", 2, buffer, n, seed),
        Precision::Bf16 => fill(gpu, "fill_random_bf16", 2, buffer, n, seed),
        Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => {
            Err(Error::new("e4m3 inputs are made on the CPU: upload `e4m3_codes`"))
        }
    }
}

/// Elements `0..n` of the e4m3 stream `seed`: the code nearest each value of the f32 stream
/// (`gemm::reference::Inputs::value`). Made on the CPU: an FP8 product's inputs are half a
/// 16-bit one's bytes, and no step fills them on the GPU.
pub fn e4m3_codes(seed: u64, n: usize) -> Vec<u8> {
    fp8_codes(common::fp8::E4M3, seed, n)
}

/// As [`e4m3_codes`], in `format` (e4m3 or e5m2).
pub fn fp8_codes(format: common::fp8::Format, seed: u64, n: usize) -> Vec<u8> {
    (0..n as u64).map(|i| format.from_f32(common::input::random_f32(seed, i))).collect()
}

/// The CPU reference of a sum of the i32 stream (the reductions, p5, m3):
/// `sum(random_i32(seed, i) for i in 0..n)` modulo 2^32, computed in parallel chunks
/// (wrapping addition is associative, so the chunking cannot change the result).
pub fn reference_sum(seed: u64, n: usize) -> i32 {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(64);
    let chunk = n.div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| {
                let end = (start + chunk).min(n);
                scope.spawn(move || sum_range(seed, start, end))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("reference thread")).fold(0i32, i32::wrapping_add)
    })
}

/// The wrapping sum of elements `start..end` of the stream, on one thread.
pub fn sum_range(seed: u64, start: usize, end: usize) -> i32 {
    (start..end).fold(0i32, |acc, i| acc.wrapping_add(random_i32(seed, i as u64)))
}
