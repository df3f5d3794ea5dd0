//! The two 8-bit floating-point formats Hopper's tensor cores multiply (the OCP FP8 formats,
//! PTX's `e4m3` and `e5m2`), converted exactly to f32 and back as the GPU's conversion
//! (`cvt.rn.satfinite.e4m3x2.f32`, `…e5m2x2.f32`) does: round to nearest, ties to even;
//! finite values past the largest one saturate to it; NaN stays NaN.
//!
//! | format | exponent bits (bias) | mantissa bits | largest | smallest normal, subnormal | specials |
//! | --- | --- | --- | --- | --- | --- |
//! | E4M3 | 4 (7) | 3 | 448 (`0x7E`) | 2^-6, 2^-9 | NaN `0x7F`, `0xFF`; no infinity |
//! | E5M2 | 5 (15) | 2 | 57344 (`0x7B`) | 2^-14, 2^-16 | ±∞ `0x7C`, `0xFC`; NaN `0x7D`–`0x7F` |
//!
//! Every FP8 value is exact in f32 (and every product of two in f32 too: at most 8 significant
//! bits), so a reference built from the decoded values is exact up to the accumulation.

/// An FP8 format: its field widths and the largest finite code's magnitude bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    /// The magnitude bits (code without the sign) of the largest finite value.
    pub max_finite: u8,
    /// The magnitude bits of the NaN the conversion produces.
    pub nan: u8,
    /// Whether the all-ones exponent holds infinities and NaNs (E5M2, as IEEE) rather than
    /// ordinary values (E4M3, whose only non-finite code is the all-ones one).
    pub ieee_specials: bool,
}

/// E4M3: more precision, range ±448.
pub const E4M3: Format =
    Format { exponent_bits: 4, mantissa_bits: 3, max_finite: 0x7E, nan: 0x7F, ieee_specials: false };

/// E5M2: more range (±57344), less precision.
pub const E5M2: Format =
    Format { exponent_bits: 5, mantissa_bits: 2, max_finite: 0x7B, nan: 0x7F, ieee_specials: true };

impl Format {
    const fn bias(self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    /// Whether the magnitude bits `magnitude` (a code without its sign) are a NaN.
    pub const fn is_nan(self, magnitude: u8) -> bool {
        if self.ieee_specials {
            magnitude >> self.mantissa_bits == (1 << self.exponent_bits) - 1
                && magnitude & self.mantissa_mask() != 0
        } else {
            magnitude == self.nan
        }
    }

    /// Whether the magnitude bits are an infinity (E5M2's `0x7C`; E4M3 has none).
    pub const fn is_infinite(self, magnitude: u8) -> bool {
        self.ieee_specials && magnitude == ((1 << self.exponent_bits) - 1) << self.mantissa_bits
    }

    const fn mantissa_mask(self) -> u8 {
        (1 << self.mantissa_bits) - 1
    }

    /// The exact value of the code `bits`.
    pub fn to_f32(self, bits: u8) -> f32 {
        let sign = if bits & 0x80 != 0 { -1.0f32 } else { 1.0 };
        let magnitude = bits & 0x7F;
        if self.is_nan(magnitude) {
            return f32::NAN;
        }
        if self.is_infinite(magnitude) {
            return sign * f32::INFINITY;
        }
        let exponent = i32::from(magnitude >> self.mantissa_bits);
        let mantissa = f32::from(magnitude & self.mantissa_mask());
        let scale = (1u32 << self.mantissa_bits) as f32;
        // Subnormals (exponent field 0) have no implicit 1 and the smallest normal exponent.
        let (significand, power) = if exponent == 0 {
            (mantissa / scale, 1 - self.bias())
        } else {
            (1.0 + mantissa / scale, exponent - self.bias())
        };
        sign * significand * pow2(power)
    }

    /// The code nearest `x` (ties to the even code), saturated to the largest finite value;
    /// NaN to the format's NaN. As `cvt.rn.satfinite` does, infinities saturate too.
    pub fn from_f32(self, x: f32) -> u8 {
        let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
        if x.is_nan() {
            return sign | self.nan;
        }
        let a = if x < 0.0 { -x } else { x };
        let max = self.to_f32(self.max_finite);
        if a >= max {
            return sign | self.max_finite;
        }
        // The spacing of codes around `a`: 2^(e − mantissa bits) for a in [2^e, 2^(e+1)), and
        // the subnormals' spacing below the smallest normal.
        let min_exponent = 1 - self.bias();
        let exponent = if a == 0.0 { min_exponent } else { floor_log2(a).max(min_exponent) };
        let step = pow2(exponent - self.mantissa_bits as i32);
        // a / step is exact (a power-of-two scaling of an f32 within range); round it to an
        // integer, ties to even.
        let units = round_ties_even(a / step);
        // `units` counts steps from zero in this binade (or among the subnormals): with the
        // implicit bit it may reach 2^(mantissa bits + 1), the next binade's first code.
        let value = units * step;
        if value >= max {
            return sign | self.max_finite;
        }
        let encoded = if value < pow2(min_exponent) {
            units as u8 // a subnormal: the exponent field is 0, the mantissa is the count of steps
        } else {
            let e = floor_log2(value);
            let mantissa = (value / pow2(e - self.mantissa_bits as i32)) as u32 - (1 << self.mantissa_bits);
            (((e + self.bias()) as u32) << self.mantissa_bits | mantissa) as u8
        };
        sign | encoded
    }
}

/// 2^e for the exponents FP8 needs (|e| < 64), exact.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// ⌊log2 a⌋ of a positive normal f32.
fn floor_log2(a: f32) -> i32 {
    ((a.to_bits() >> 23) & 0xFF) as i32 - 127
}

/// `v` (non-negative, below 2^23) rounded to the nearest integer, ties to even.
fn round_ties_even(v: f32) -> f32 {
    let floor = v as u32 as f32;
    let fraction = v - floor;
    if fraction > 0.5 || (fraction == 0.5 && (floor as u32) % 2 == 1) { floor + 1.0 } else { floor }
}

#[cfg(test)]
mod tests {
    use super::{E4M3, E5M2, Format};

    /// The finite codes of `format`, magnitude bits from 0 (zero) up, each with its value.
    fn finite(format: Format) -> Vec<(u8, f32)> {
        (0..=format.max_finite).map(|code| (code, format.to_f32(code))).collect()
    }

    #[test]
    fn values_at_the_landmarks() {
        assert_eq!(E4M3.to_f32(0x7E), 448.0);
        assert_eq!(E4M3.to_f32(0x08), 2f32.powi(-6)); // smallest normal
        assert_eq!(E4M3.to_f32(0x01), 2f32.powi(-9)); // smallest subnormal
        assert_eq!(E4M3.to_f32(0x38), 1.0);
        assert_eq!(E4M3.to_f32(0xB8), -1.0);
        assert!(E4M3.to_f32(0x7F).is_nan() && E4M3.to_f32(0xFF).is_nan());
        assert_eq!(E5M2.to_f32(0x7B), 57344.0);
        assert_eq!(E5M2.to_f32(0x04), 2f32.powi(-14));
        assert_eq!(E5M2.to_f32(0x01), 2f32.powi(-16));
        assert_eq!(E5M2.to_f32(0x3C), 1.0);
        assert_eq!(E5M2.to_f32(0x7C), f32::INFINITY);
        assert_eq!(E5M2.to_f32(0xFC), f32::NEG_INFINITY);
        assert!((0x7D..=0x7F).all(|c| E5M2.to_f32(c).is_nan()));
    }

    #[test]
    fn every_finite_code_comes_back_and_codes_grow_with_values() {
        for format in [E4M3, E5M2] {
            let codes = finite(format);
            for pair in codes.windows(2) {
                assert!(
                    pair[0].1 < pair[1].1,
                    "{format:?}: {:#04x} is not below {:#04x}",
                    pair[0].0,
                    pair[1].0
                );
            }
            for &(code, value) in &codes {
                assert_eq!(format.from_f32(value), code, "{format:?} {value}");
                assert_eq!(format.from_f32(-value), code | 0x80, "{format:?} -{value}");
            }
        }
    }

    #[test]
    fn rounding_is_to_nearest_with_ties_to_the_even_code() {
        for format in [E4M3, E5M2] {
            let codes = finite(format);
            for pair in codes.windows(2) {
                let ((low, a), (high, b)) = (pair[0], pair[1]);
                let middle = (a + b) / 2.0; // exact: both have few bits
                let even = if low % 2 == 0 { low } else { high };
                assert_eq!(format.from_f32(middle), even, "{format:?}: the tie between {a} and {b}");
                let quarter = (b - a) / 4.0;
                assert_eq!(format.from_f32(a + quarter), low, "{format:?}: just above {a}");
                assert_eq!(format.from_f32(b - quarter), high, "{format:?}: just below {b}");
            }
        }
    }

    #[test]
    fn beyond_the_range_saturates_and_nan_stays_nan() {
        assert_eq!(E4M3.from_f32(449.0), 0x7E);
        assert_eq!(E4M3.from_f32(1e30), 0x7E);
        assert_eq!(E4M3.from_f32(f32::NEG_INFINITY), 0xFE);
        assert_eq!(E5M2.from_f32(f32::INFINITY), 0x7B);
        assert_eq!(E5M2.from_f32(-1e9), 0xFB);
        assert!(E4M3.to_f32(E4M3.from_f32(f32::NAN)).is_nan());
        assert!(E5M2.to_f32(E5M2.from_f32(f32::NAN)).is_nan());
        // Below half the smallest subnormal: zero, with its sign.
        assert_eq!(E4M3.from_f32(2f32.powi(-11)), 0x00);
        assert_eq!(E4M3.from_f32(-2f32.powi(-11)), 0x80);
        assert_eq!(E4M3.from_f32(1e-30), 0x00);
    }
}
