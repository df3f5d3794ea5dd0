//! TMA tensor maps: the 128-byte descriptors that Hopper's copy engine reads to move boxes
//! of a tensor between global and shared memory (`cuTensorMapEncodeTiled`), uploaded for
//! the kernels that take them (the GEMM steps from w02: A and B, from w05 C too; the
//! attention steps from a05: Q, K and V, by head).

use crate::base::error::{Context, Error, Result};
use crate::base::gpu::Gpu;
use crate::base::memory::DeviceBuffer;
use cudarc::driver::sys;

/// Bytes of one encoded tensor map (`CUtensorMap`); the driver wants it 64-byte aligned.
pub const MAP_BYTES: usize = 128;

/// The element type of a tensor map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// e4m3 (or any 8-bit code), to the copy engine an 8-bit integer.
    Bits8,
    /// f16 or bf16: the copy engine only moves bytes, so both are 16-bit integers to it.
    Bits16,
    F32,
}

impl Element {
    fn bytes(self) -> u32 {
        match self {
            Element::Bits8 => 1,
            Element::Bits16 => 2,
            Element::F32 => 4,
        }
    }
}

/// Encodes the map of a row-major `rows × cols` matrix of `element`s at device address
/// `ptr`, copied in boxes of `box_cols × box_rows` with the 128-byte swizzle (the layout of
/// `device::wgmma::descriptor`, and of w05's staged C); loads past the matrix's edges fill
/// zeros, stores past them write nothing. The driver checks `ptr` against the context
/// current on the calling thread, so `gpu`'s is made current first (tests run on threads of
/// their own).
pub fn encode(
    gpu: &Gpu,
    ptr: u64,
    rows: u32,
    cols: u32,
    element: Element,
    (box_cols, box_rows): (u32, u32),
) -> Result<[u64; 16]> {
    const SWIZZLE_ROW_BYTES: u32 = 128;
    let bytes = element.bytes();
    if !(cols * bytes).is_multiple_of(16) || box_cols * bytes > SWIZZLE_ROW_BYTES {
        return Err(Error::new(format!(
            "a tensor map of a {rows} × {cols} matrix of {bytes}-byte elements with {box_cols}-wide boxes: rows \
             must be multiples of 16 bytes and boxes at most one 128-byte swizzle row wide"
        )));
    }
    let data_type = match element {
        Element::Bits8 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        Element::Bits16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        Element::F32 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    };
    let dims = [u64::from(cols), u64::from(rows)];
    let row_stride = [u64::from(cols) * u64::from(bytes)];
    encode_tiled(gpu, data_type, ptr, &dims, &row_stride, &[box_cols, box_rows], "a TMA tensor map")
}

/// Encodes the map of a 4-dimensional tensor of 16-bit values at `ptr`: `dims` elements
/// along each dimension, innermost first (contiguous), `strides` the elements between
/// consecutive indices of dimensions 1 to 3 (any order of sizes: the heads of a
/// [batch, seq, heads, dim] tensor lie closer than its rows), copied in boxes of `boxes`
/// with the 128-byte swizzle; loads past any dimension's end fill zeros. Attention's Q, K and
/// V by (column, row, head, batch): a box is 64 columns of some rows of one head. As
/// [`encode`], on `gpu`'s context.
pub fn encode_4d(
    gpu: &Gpu,
    ptr: u64,
    dims: [u64; 4],
    strides: [u64; 3],
    boxes: [u32; 4],
) -> Result<[u64; 16]> {
    const SWIZZLE_ROW_BYTES: u64 = 128;
    const BYTES: u64 = 2;
    if strides.iter().any(|s| !(s * BYTES).is_multiple_of(16))
        || u64::from(boxes[0]) * BYTES > SWIZZLE_ROW_BYTES
    {
        return Err(Error::new(format!(
            "a tensor map of dims {dims:?}, strides {strides:?} (elements) and boxes {boxes:?}: strides must be \
             multiples of 16 bytes and boxes at most one 128-byte swizzle row wide"
        )));
    }
    let data_type = sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16;
    encode_tiled(
        gpu,
        data_type,
        ptr,
        &dims,
        &strides.map(|s| s * BYTES),
        &boxes,
        "a 4-dimensional TMA tensor map",
    )
}

/// The driver's `cuTensorMapEncodeTiled` for a tensor of `dims.len()` dimensions (1 to 5) at
/// `ptr`: `dims` innermost first, `byte_strides` between consecutive indices of dimensions 1
/// on (one fewer), boxes of `boxes`, every element of a box taken (element strides 1), the
/// 128-byte swizzle, L2 promotion by 256 bytes, zeros for loads out of bounds; on `gpu`'s
/// context (made current first). `what` names the map in an error.
fn encode_tiled(
    gpu: &Gpu,
    data_type: sys::CUtensorMapDataType,
    ptr: u64,
    dims: &[u64],
    byte_strides: &[u64],
    boxes: &[u32],
    what: &str,
) -> Result<[u64; 16]> {
    /// The most dimensions the tiled encoding takes.
    const MAX_RANK: usize = 5;
    let rank = dims.len();
    assert!(
        (1..=MAX_RANK).contains(&rank) && byte_strides.len() + 1 == rank && boxes.len() == rank,
        "encode_tiled: {rank} dims, {} strides, {} boxes",
        byte_strides.len(),
        boxes.len()
    );
    gpu.make_current()?;
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    let element_strides = [1u32; MAX_RANK];
    // SAFETY: `dims`, `boxes` and `element_strides` hold at least `rank` values and
    // `byte_strides` `rank - 1` (asserted above), the rank the call is told; the output is a
    // CUtensorMap; the driver only reads `ptr`'s value.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            data_type,
            rank as u32,
            ptr as *mut std::ffi::c_void,
            dims.as_ptr(),
            byte_strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
    .context(&format!("encoding {what} (cuTensorMapEncodeTiled)"))?;
    Ok(map.opaque)
}

/// Tensor maps in device memory, one after the other: the GEMM's A, B and (for the steps
/// that store through the copy engine) C; attention's Q, K and V.
pub struct TensorMaps {
    buffer: DeviceBuffer,
    count: usize,
}

impl TensorMaps {
    pub fn upload(gpu: &Gpu, maps: &[[u64; 16]]) -> Result<Self> {
        let mut buffer = DeviceBuffer::alloc(gpu, maps.len() * MAP_BYTES, "the TMA tensor maps")?;
        let words: Vec<u64> = maps.iter().flatten().copied().collect();
        buffer.upload(gpu, &words)?;
        Ok(Self { buffer, count: maps.len() })
    }

    /// Device address of the `index`th map (cuMemAlloc's 256-byte alignment covers the 64
    /// needed).
    pub fn address(&self, index: usize) -> u64 {
        assert!(index < self.count, "tensor map {index} of {}", self.count);
        self.buffer.ptr() + (index * MAP_BYTES) as u64
    }
}
