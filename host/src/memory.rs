//! Device buffers addressed by raw pointer, so that kernels can be handed offsets and
//! ping-pong buffers without borrowing games.

use crate::error::{Context, Error, Result};
use crate::gpu::Gpu;
use cudarc::driver::{CudaSlice, DevicePtr, sys};

/// Bytes of device memory, freed on drop.
pub struct DeviceBuffer {
    slice: CudaSlice<u8>,
    ptr: u64,
    bytes: usize,
}

impl DeviceBuffer {
    /// Allocates `bytes` (at least 16, so that even an empty input has an address), after
    /// checking that the device has that much free.
    pub fn alloc(gpu: &Gpu, bytes: usize, what: &str) -> Result<Self> {
        let bytes = bytes.max(16);
        let free = gpu.free_memory()?;
        if bytes as u64 > free {
            return Err(Error::new(format!(
                "{what} needs {:.2} GiB of device memory and {:.2} GiB are free: pass a smaller --n",
                bytes as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            )));
        }
        // SAFETY: the memory is written (filled, poisoned or zeroed) before any kernel reads it.
        let slice = unsafe { gpu.stream.alloc::<u8>(bytes) }.context(&format!("allocating {what}"))?;
        let ptr = slice.device_ptr(&gpu.stream).0;
        Ok(Self { slice, ptr, bytes })
    }

    /// The device address of byte 0 (256-byte aligned, from `cuMemAlloc`).
    pub fn ptr(&self) -> u64 {
        self.ptr
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Sets the first `words` 4-byte words to `value` (`cuMemsetD32Async`), on the stream.
    pub fn fill_words(&self, gpu: &Gpu, value: u32, words: usize) -> Result<()> {
        assert!(words * 4 <= self.bytes, "fill past the end of a buffer");
        // SAFETY: the range lies inside this allocation.
        unsafe { sys::cuMemsetD32Async(self.ptr, value, words, gpu.stream.cu_stream()) }
            .result()
            .context("filling device memory")
    }

    /// Copies the `i32` at word `index` to the host (synchronizes the stream).
    pub fn read_i32(&self, gpu: &Gpu, index: usize) -> Result<i32> {
        assert!((index + 1) * 4 <= self.bytes, "read past the end of a buffer");
        let mut value = [0u8; 4];
        let view = self.slice.slice(index * 4..index * 4 + 4);
        gpu.stream.memcpy_dtoh(&view, &mut value).context("copying a result to the host")?;
        gpu.sync("waiting for a result")?;
        Ok(i32::from_ne_bytes(value))
    }

    /// Copies the first `count` `i32` to the host (synchronizes the stream).
    pub fn read_i32s(&self, gpu: &Gpu, count: usize) -> Result<Vec<i32>> {
        assert!(count * 4 <= self.bytes, "read past the end of a buffer");
        let mut bytes = vec![0u8; count * 4];
        gpu.stream.memcpy_dtoh(&self.slice.slice(..count * 4), &mut bytes).context("copying to the host")?;
        gpu.sync("waiting for a copy")?;
        Ok(bytes.chunks_exact(4).map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}
