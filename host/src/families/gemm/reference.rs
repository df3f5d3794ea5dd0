//! The CPU reference, in f64: every entry for small products, a sample for large ones.

use crate::base::precision::Precision;
use common::gemm::w19::SCALE_BLOCK;
use common::input::{random_bf16_value, random_f16_value, random_f32};

/// Above this many multiply-adds (M·N·K) only a sample of C is checked.
pub const FULL_CHECK_MAX_MACS: u64 = 1 << 31;

/// Entries checked at large sizes: the four corners, then spread pseudo-randomly.
pub const SAMPLES: usize = 4096;

/// The per-tensor scales every FP8 product here runs with, `scale_a` and `scale_b`: C =
/// scale_a · scale_b · A · B, as cuBLASLt's FP8 product and PyTorch's `_scaled_mm` take them
/// (one f32 each, on the device). Exact in f32, with an exact product (0.46875), and far
/// enough from 1 that a kernel that dropped either fails its check.
pub const FP8_SCALES: [f32; 2] = [1.25, 0.375];

/// The inputs' streams: `A[i][p] = random_f32(seed_a, i·K + p)`, likewise B.
#[derive(Clone, Copy, Debug)]
pub struct Inputs {
    pub precision: Precision,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub seed_a: u64,
    pub seed_b: u64,
}

impl Inputs {
    /// Element `index` of the stream `seed` in this precision, as its exact f32 value.
    pub fn value(&self, seed: u64, index: u64) -> f32 {
        match self.precision {
            Precision::F32 => random_f32(seed, index),
            Precision::F16 => random_f16_value(seed, index),
            Precision::Bf16 => random_bf16_value(seed, index),
            Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => {
                common::fp8::E4M3.to_f32(common::fp8::E4M3.from_f32(random_f32(seed, index)))
            }
        }
    }

    pub fn a(&self, i: u32, p: u32) -> f32 {
        self.value(self.seed_a, u64::from(i) * u64::from(self.k) + u64::from(p))
    }

    /// `B[p][j]`: element `p·N + j` of B's stream, or `j·K + p` where B comes K-major (as Bᵀ).
    pub fn b(&self, p: u32, j: u32) -> f32 {
        let index = if self.precision.b_k_major() {
            u64::from(j) * u64::from(self.k) + u64::from(p)
        } else {
            u64::from(p) * u64::from(self.n) + u64::from(j)
        };
        match self.precision.b_format() {
            // B's own 8-bit format (e5m2 in an e4m3 × e5m2 product).
            Some(format) => format.to_f32(format.from_f32(random_f32(self.seed_b, index))),
            None => self.value(self.seed_b, index),
        }
    }

    /// What C's entries are multiplied by: [`FP8_SCALES`]' product for FP8 inputs with
    /// per-tensor scales, 1 for the others.
    pub fn scale(&self) -> f64 {
        match self.precision {
            Precision::E4m3 | Precision::E4m3E5m2 => f64::from(FP8_SCALES[0]) * f64::from(FP8_SCALES[1]),
            Precision::F32 | Precision::F16 | Precision::Bf16 | Precision::E4m3Blocks => 1.0,
        }
    }

    /// k blocks of a block-scaled product (`common::gemm::w19::SCALE_BLOCK` k values each),
    /// and column blocks of B.
    pub fn k_blocks(&self) -> u32 {
        self.k.div_ceil(SCALE_BLOCK)
    }
    pub fn n_blocks(&self) -> u32 {
        self.n.div_ceil(SCALE_BLOCK)
    }

    /// The scale of row `i` of A over k block `kb`.
    pub fn a_scale(&self, i: u32, kb: u32) -> f32 {
        block_scale(self.seed_a ^ SCALE_STREAM, u64::from(kb) * u64::from(self.m) + u64::from(i))
    }

    /// The scale of B's 128 × 128 block at column block `nb`, k block `kb`.
    pub fn b_scale(&self, nb: u32, kb: u32) -> f32 {
        block_scale(self.seed_b ^ SCALE_STREAM, u64::from(nb) * u64::from(self.k_blocks()) + u64::from(kb))
    }

    /// A's block scales as `w19` reads them: `ceil(K / 128) × M`, row-major; or, `rows_first`,
    /// `M × ceil(K / 128)`.
    pub fn a_scales(&self, rows_first: bool) -> Vec<f32> {
        let (m, kb) = (self.m, self.k_blocks());
        if rows_first {
            (0..m).flat_map(|i| (0..kb).map(move |b| self.a_scale(i, b))).collect()
        } else {
            (0..kb).flat_map(|b| (0..m).map(move |i| self.a_scale(i, b))).collect()
        }
    }

    /// B's block scales: `ceil(N / 128) × ceil(K / 128)`, row-major.
    pub fn b_scales(&self) -> Vec<f32> {
        (0..self.n_blocks()).flat_map(|nb| (0..self.k_blocks()).map(move |kb| self.b_scale(nb, kb))).collect()
    }

    /// Which entries of C a check compares: all of them, or a sample.
    pub fn entries(&self) -> Vec<(u32, u32)> {
        let (m, n) = (self.m, self.n);
        if u64::from(m) * u64::from(n) * u64::from(self.k) <= FULL_CHECK_MAX_MACS {
            return (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
        }
        let mut entries = vec![(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
        entries.extend((0..SAMPLES as u64).map(|s| {
            let h = common::input::splitmix64(self.seed_a ^ s.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            ((h % u64::from(m)) as u32, ((h >> 32) % u64::from(n)) as u32)
        }));
        entries
    }

    /// `C[i][j]` in f64 (times [`Inputs::scale`]), for each entry (in parallel).
    pub fn reference(&self, entries: &[(u32, u32)]) -> Vec<f64> {
        let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(64);
        let chunk = entries.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = entries
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|&(i, j)| {
                                if self.precision == Precision::E4m3Blocks {
                                    return self.block_scaled(i, j);
                                }
                                let sum: f64 = (0..self.k)
                                    .map(|p| f64::from(self.a(i, p)) * f64::from(self.b(p, j)))
                                    .sum();
                                sum * self.scale()
                            })
                            .collect::<Vec<f64>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("reference thread")).collect()
        })
    }
}

impl Inputs {
    /// `C[i][j]` of a block-scaled product: each k block's sum times its two scales.
    fn block_scaled(&self, i: u32, j: u32) -> f64 {
        (0..self.k_blocks())
            .map(|kb| {
                let ks = kb * SCALE_BLOCK..((kb + 1) * SCALE_BLOCK).min(self.k);
                let sum: f64 = ks.map(|p| f64::from(self.a(i, p)) * f64::from(self.b(p, j))).sum();
                sum * f64::from(self.a_scale(i, kb)) * f64::from(self.b_scale(j / SCALE_BLOCK, kb))
            })
            .sum()
    }
}

/// Mixed into a seed for the block scales' stream.
const SCALE_STREAM: u64 = 0x005C_A1E5;

/// A block scale: `2^e · (1 + q / 4)` with e in -3..=3 and q in 0..4, so from 0.125 to 14,
/// spread over a factor above 100 (a scale applied to the wrong block fails the check), with
/// three significant bits (the product of two is exact in f32).
pub fn block_scale(seed: u64, index: u64) -> f32 {
    let h = common::input::splitmix64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let (e, q) = ((h % 7) as i32 - 3, ((h >> 8) % 4) as f32);
    2f32.powi(e) * (1.0 + q / 4.0)
}

/// ‖got − want‖ / ‖want‖ over the checked entries (Frobenius); NaN or infinity anywhere
/// gives infinity, so it never passes.
pub fn relative_error(got: &[f32], want: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&g, &w) in got.iter().zip(want) {
        if !g.is_finite() {
            return f64::INFINITY;
        }
        diff += (f64::from(g) - w).powi(2);
        norm += w * w;
    }
    if norm == 0.0 { diff.sqrt() } else { (diff / norm).sqrt() }
}
