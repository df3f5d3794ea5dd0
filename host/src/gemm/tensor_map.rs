//! TMA tensor maps: the 128-byte descriptors that Hopper's copy engine reads to move boxes
//! of a tensor into shared memory (`cuTensorMapEncodeTiled`), uploaded for the kernels
//! that take them (t6).

use crate::error::{Context, Error, Result};
use crate::gpu::Gpu;
use crate::memory::DeviceBuffer;
use cudarc::driver::sys;

/// Bytes of one encoded tensor map (`CUtensorMap`); the driver wants it 64-byte aligned.
pub const MAP_BYTES: usize = 128;

/// Encodes the map of a row-major `rows × cols` matrix of 16-bit values at device address
/// `ptr`, copied in boxes of `box_cols × box_rows` with the 128-byte swizzle (the layout of
/// `device::wgmma::descriptor`); reads past the matrix's edges fill zeros.
pub fn encode_16bit(ptr: u64, rows: u32, cols: u32, (box_cols, box_rows): (u32, u32)) -> Result<[u64; 16]> {
    const SWIZZLE_ROW_BYTES: u32 = 128;
    if cols % 8 != 0 || box_cols * 2 > SWIZZLE_ROW_BYTES {
        return Err(Error::new(format!(
            "a tensor map of a {rows} × {cols} matrix with {box_cols}-wide boxes: rows must be multiples of \
             16 bytes and boxes at most one 128-byte swizzle row wide"
        )));
    }
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    let dims = [u64::from(cols), u64::from(rows)];
    let row_stride = [u64::from(cols) * 2];
    let boxes = [box_cols, box_rows];
    let element_strides = [1u32, 1];
    // SAFETY: every pointer names a local array of the rank (2) the call is told, the
    // output a CUtensorMap; the driver only reads `ptr`'s value.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
            2,
            ptr as *mut std::ffi::c_void,
            dims.as_ptr(),
            row_stride.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
    .context("encoding a TMA tensor map (cuTensorMapEncodeTiled)")?;
    Ok(map.opaque)
}

/// Tensor maps of A and B, one after the other in device memory: the kernel's first two
/// arguments are [`TensorMaps::a`] and [`TensorMaps::b`].
pub struct TensorMaps {
    buffer: DeviceBuffer,
}

impl TensorMaps {
    pub fn upload(gpu: &Gpu, a: [u64; 16], b: [u64; 16]) -> Result<Self> {
        let mut buffer = DeviceBuffer::alloc(gpu, 2 * MAP_BYTES, "the TMA tensor maps")?;
        let words: Vec<u64> = a.into_iter().chain(b).collect();
        buffer.upload(gpu, &words)?;
        Ok(Self { buffer })
    }

    /// Device address of A's map (cuMemAlloc's 256-byte alignment covers the 64 needed).
    pub fn a(&self) -> u64 {
        self.buffer.ptr()
    }

    pub fn b(&self) -> u64 {
        self.buffer.ptr() + MAP_BYTES as u64
    }
}
