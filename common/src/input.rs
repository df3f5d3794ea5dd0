//! The pseudo-random inputs every kernel is checked and timed on.
//!
//! Inputs are generated on the GPU by a fill kernel (`fill_random_i32`) and, where a
//! reference needs them, on the CPU by the same function, so a 4 GiB input never crosses
//! PCIe and the CPU reference can run in parallel chunks. The generator is counter based:
//! element `i` depends only on `(seed, i)`, never on the elements before it.

/// SplitMix64's finalizer: a bijection on `u64` whose output bits all depend on all
/// input bits (Steele, Lea and Flood, 2014).
#[inline(always)]
pub const fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 64-bit golden-ratio increment SplitMix64 steps its state by.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Element `index` of the input stream `seed`: uniform over all of `i32`.
#[inline(always)]
pub const fn random_i32(seed: u64, index: u64) -> i32 {
    let state = seed.wrapping_add(index.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA));
    (splitmix64(state) >> 32) as u32 as i32
}

/// The seed whose stream starts at element `first` of stream `seed`:
/// `random_i32(shard_seed(seed, first), i) == random_i32(seed, first + i)`, and the same for
/// every stream built on [`random_i32`]. A shard of an input spread over several GPUs is
/// filled by the ordinary fill kernel with this seed.
#[inline(always)]
pub const fn shard_seed(seed: u64, first: u64) -> u64 {
    seed.wrapping_add(first.wrapping_mul(GOLDEN_GAMMA))
}

/// Element `index` of the `f32` input stream `seed`: uniform on [-1, 1) with 24 random
/// bits, so every value is exact and none is NaN, infinite or subnormal.
#[inline(always)]
pub fn random_f32(seed: u64, index: u64) -> f32 {
    let bits = (random_i32(seed, index) as u32) >> 8;
    bits as f32 * (2.0 / (1u32 << 24) as f32) - 1.0
}

/// Element `index` of the half-precision input stream `seed`: `k / 1024` for a random
/// integer `k` in [-1024, 1023], exact in f16 (11 significant bits) and in f32, so the
/// CPU reference knows the inputs exactly. Returned as its f32 value.
#[inline(always)]
pub fn random_f16_value(seed: u64, index: u64) -> f32 {
    let k = (random_i32(seed, index) >> 21) as f32; // top 11 bits: [-1024, 1023]
    k * (1.0 / 1024.0)
}

/// Element `index` of the bfloat16 input stream `seed`: `k / 128` for a random integer `k`
/// in [-128, 127], exact in bf16 (8 significant bits). Returned as its f32 value.
#[inline(always)]
pub fn random_bf16_value(seed: u64, index: u64) -> f32 {
    let k = (random_i32(seed, index) >> 24) as f32; // top 8 bits: [-128, 127]
    k * (1.0 / 128.0)
}

/// The IEEE half-precision bits of `x`, for `x` exactly representable as a normal f16 or
/// zero (as `random_f16_value` produces): sign, rebased exponent, top 10 mantissa bits.
#[inline(always)]
pub fn f16_bits_exact(x: f32) -> u16 {
    let bits = x.to_bits();
    if bits << 1 == 0 {
        return (bits >> 16) as u16; // ±0
    }
    let sign = (bits >> 16) & 0x8000;
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = (bits >> 13) & 0x3ff;
    (sign | ((exponent as u32) << 10) | mantissa) as u16
}

/// The bfloat16 bits of `x`, for `x` exactly representable in bf16: the top half of its
/// f32 bits.
#[inline(always)]
pub fn bf16_bits_exact(x: f32) -> u16 {
    (x.to_bits() >> 16) as u16
}
