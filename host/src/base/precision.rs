//! The floating-point input types the ladders take (the reductions' i32 aside): what the
//! GEMM, the tensor-core ceilings, the random inputs and the records name.
//!
//! A GEMM table holds the kernels of one `Precision` on one shape beside the vendor
//! products of the same inputs, so an FP8 product whose inputs differ in more than the
//! element type (block scales, an e5m2 operand) is a variant of its own: its own random
//! inputs and reference, its own baseline and table. [`Precision::element`] is what they
//! share, the tensor-core rate.

/// An input type; C and every accumulation are f32 whatever the inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    F32,
    F16,
    Bf16,
    /// Hopper's 8-bit float with 4 exponent and 3 mantissa bits (`common::fp8::E4M3`).
    E4m3,
    /// e4m3 inputs with the DeepSeek-V3 Technical Report's fine-grained scales, one f32 per
    /// row of A and 128 k values and one per 128 × 128 block of B (`common::gemm::w19`): a
    /// product of its own, since the scales are part of its inputs.
    E4m3Blocks,
    /// e4m3 A and e5m2 B (`common::fp8::E5M2`: 5 exponent bits, 2 of mantissa, the range
    /// gradients need), per-tensor scales.
    E4m3E5m2,
}

impl Precision {
    /// Bytes per input element.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F16 | Precision::Bf16 => 2,
            Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => 1,
        }
    }

    /// As a table title says it: "FP16 (f32 accumulate)".
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "FP32",
            Precision::F16 => "FP16 (f32 accumulate)",
            Precision::Bf16 => "BF16 (f32 accumulate)",
            Precision::E4m3 => "FP8 e4m3 (f32 accumulate)",
            Precision::E4m3Blocks => "FP8 e4m3, 1 × 128 and 128 × 128 block scales (f32 accumulate)",
            Precision::E4m3E5m2 => "FP8 e4m3 × e5m2 (f32 accumulate)",
        }
    }

    /// Whether a GEMM of these inputs takes B K-major, as Bᵀ (N × K, row-major): 8-bit
    /// `wgmma` reads no other layout.
    pub fn b_k_major(self) -> bool {
        self.is_fp8()
    }

    /// The 8-bit format of B's values (A's is e4m3 in every FP8 product), or `None` for
    /// wider inputs.
    pub fn b_format(self) -> Option<common::fp8::Format> {
        match self {
            Precision::E4m3 | Precision::E4m3Blocks => Some(common::fp8::E4M3),
            Precision::E4m3E5m2 => Some(common::fp8::E5M2),
            Precision::F32 | Precision::F16 | Precision::Bf16 => None,
        }
    }

    /// Whether the inputs are 8-bit floats (with per-tensor or per-block scales).
    pub fn is_fp8(self) -> bool {
        matches!(self, Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2)
    }

    /// The element type of the inputs, scales aside: what the tensor-core ceilings are
    /// measured in.
    pub fn element(self) -> Precision {
        match self {
            Precision::E4m3Blocks | Precision::E4m3E5m2 => Precision::E4m3,
            other => other,
        }
    }

    /// As the records and item names say it: "f32", "f16", "bf16".
    pub fn short_name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
            Precision::E4m3 => "e4m3",
            Precision::E4m3Blocks => "e4m3-blocks",
            Precision::E4m3E5m2 => "e4m3-e5m2",
        }
    }
}

/// The f32 value of 16-bit `bits` of `precision` (f16 or bf16), NaN and infinities kept.
pub fn half_value(precision: Precision, bits: u16) -> f32 {
    match precision {
        Precision::Bf16 => f32::from_bits(u32::from(bits) << 16),
        _ => f16_value(bits),
    }
}

/// IEEE half-precision bits as f32 (subnormals, infinities and NaN included).
fn f16_value(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    match exponent {
        0 => sign * mantissa * (2.0f32).powi(-24),
        0x1f if mantissa == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        _ => sign * (1.0 + mantissa / 1024.0) * (2.0f32).powi(exponent - 15),
    }
}
