//! Device buffers addressed by raw pointer, so that kernels can be handed offsets and
//! ping-pong buffers without borrowing games.

use crate::base::error::{Context, Error, Result};
use crate::base::gpu::Gpu;
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
        let free = gpu.available_memory()?;
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
        // The null stream is the current context's: that of the GPU this buffer is on.
        gpu.make_current()?;
        // SAFETY: the range lies inside this allocation.
        unsafe { sys::cuMemsetD32Async(self.ptr, value, words, gpu.stream.cu_stream()) }
            .result()
            .context("filling device memory")
    }

    /// Sets words `first..first + words` to `value` (`cuMemsetD32Async`), on the stream.
    pub fn fill_words_from(&self, gpu: &Gpu, first: usize, value: u32, words: usize) -> Result<()> {
        assert!((first + words) * 4 <= self.bytes, "fill past the end of a buffer");
        gpu.make_current()?;
        // SAFETY: the range lies inside this allocation.
        unsafe { sys::cuMemsetD32Async(self.ptr + 4 * first as u64, value, words, gpu.stream.cu_stream()) }
            .result()
            .context("filling device memory")
    }

    /// Copies the first `count` values of type `T` to the host (synchronizes the stream).
    pub fn read<T: Plain>(&self, gpu: &Gpu, count: usize) -> Result<Vec<T>> {
        let bytes = count * std::mem::size_of::<T>();
        assert!(bytes <= self.bytes, "read past the end of a buffer");
        let mut values = vec![T::default(); count];
        // SAFETY: `Plain` types have no padding and accept any bit pattern, so their
        // storage may be written as bytes.
        let raw = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), bytes) };
        // The kernels before the copy first, through the wait that notices a hung one (the
        // copy itself would block for ever behind it).
        gpu.sync("waiting for the kernels before a copy")?;
        gpu.stream.memcpy_dtoh(&self.slice.slice(..bytes), raw).context("copying to the host")?;
        gpu.sync("waiting for a copy")?;
        Ok(values)
    }

    /// A buffer of exactly `values`, copied in (synchronizes the stream); `what` names it in an
    /// error.
    pub fn with_values<T: Plain>(gpu: &Gpu, values: &[T], what: &str) -> Result<Self> {
        let mut buffer = Self::alloc(gpu, std::mem::size_of_val(values), what)?;
        buffer.upload(gpu, values)?;
        Ok(buffer)
    }

    /// Copies `values` to the start of the buffer (synchronizes the stream).
    pub fn upload<T: Plain>(&mut self, gpu: &Gpu, values: &[T]) -> Result<()> {
        let bytes = std::mem::size_of_val(values);
        assert!(bytes <= self.bytes, "upload past the end of a buffer");
        // SAFETY: `Plain` types have no padding, so their storage reads as bytes.
        let raw = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), bytes) };
        let mut view = self.slice.slice_mut(..bytes);
        gpu.stream.memcpy_htod(raw, &mut view).context("copying to the device")?;
        gpu.sync("waiting for a copy")
    }
}

/// Plain numbers that cross between host and device as their bytes.
///
/// # Safety
/// Implementors have no padding bytes and every bit pattern is a valid value.
pub unsafe trait Plain: Copy + Default {}

// SAFETY: primitive integers and floats have no padding and accept any bit pattern.
unsafe impl Plain for u8 {}
// SAFETY: as above.
unsafe impl Plain for i32 {}
// SAFETY: as above.
unsafe impl Plain for u16 {}
// SAFETY: as above.
unsafe impl Plain for u32 {}
// SAFETY: as above.
unsafe impl Plain for u64 {}
// SAFETY: as above.
unsafe impl Plain for f32 {}
