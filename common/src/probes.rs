//! Launch constants of the memory and execution-model probes.

/// Bytes of dynamic shared memory the bank-conflict probe fills and reads: enough for 32
/// lanes at stride 32 with 8-byte elements (31 × 32 × 8 + 8 bytes).
pub const BANK_PROBE_SHARED_BYTES: u32 = 8192;

/// Loads each thread of the bank-conflict probe issues per loop trip (the loop is unrolled
/// this far, so the loop's own instructions do not dilute the shared-memory traffic).
pub const BANK_PROBE_UNROLL: u32 = 8;

/// Elements between two nodes of the pointer chase, in `i32`: one node per 128-byte line,
/// so that no two nodes share a cache line (or a 32-byte sector).
pub const CHASE_NODE_STRIDE: u32 = 32;

/// The value at word `w` of the bank-conflict probe's shared array.
#[inline(always)]
pub const fn bank_probe_word(w: u32) -> u32 {
    w.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995
}

/// Starting value of thread `t`'s chain in the divergence probe: 1024 distinct values.
#[inline(always)]
pub fn divergence_start(global_thread: u64) -> f32 {
    (global_thread % 1024) as f32 * 1e-3
}

/// One step of path A of the divergence probe (one multiply-add).
#[inline(always)]
pub fn divergence_step_a(v: f32) -> f32 {
    v * 0.999 + 0.5
}

/// One step of path B of the divergence probe (one multiply-add with other constants).
#[inline(always)]
pub fn divergence_step_b(v: f32) -> f32 {
    v * 0.998 - 0.25
}

/// Barriers per loop trip in the barrier-cost probe.
pub const BARRIER_UNROLL: u32 = 8;

/// The tensor-core ceiling probe (p8): launch constants and the operands, which the
/// kernels build on the GPU and the host rebuilds to compute the exact result.
pub mod tensor_ceiling {
    use crate::input::random_i32;

    /// Independent accumulators per warp of the `mma.sync` kernel: products in flight per
    /// warp, each waiting only for its own chain's previous product.
    pub const MMA_CHAINS: u32 = 8;

    /// Threads per block of the `mma.sync` kernel: four warps, one per scheduler of an SM.
    pub const MMA_THREADS: u32 = 128;

    /// Threads of a warpgroup, the unit that issues a `wgmma`.
    pub const WARPGROUP_THREADS: u32 = 128;

    /// Most warpgroups per block of the `wgmma` kernel (its `.maxntid` is this × 128).
    pub const MAX_WARPGROUPS: u32 = 3;

    /// The `wgmma` kernel's A tile: 64 rows × 64 k values (one 128-byte swizzle row per
    /// row), and its B tile: 64 k rows × 256 columns, stored as four 64-column panels.
    pub const WGMMA_M: u32 = 64;
    pub const WGMMA_N: u32 = 256;
    pub const WGMMA_TILE_K: u32 = 64;

    /// Bytes of the two tiles, 16-bit values: 8 KB of A and 32 KB of B.
    pub const WGMMA_TILE_BYTES: u32 = (WGMMA_M * WGMMA_TILE_K + WGMMA_TILE_K * WGMMA_N) * 2;

    /// Dynamic shared memory per block of the `wgmma` kernel: the tiles take 40 KB (plus
    /// 1 KB to align them to 1024 bytes); asking for 128 KB leaves no room for a second
    /// block on a Hopper SM (228 KB), so the warpgroups of one block are all the SM holds.
    pub const WGMMA_SHARED_BYTES: u32 = 128 * 1024;

    /// Bytes the `wgmma` kernel's base address is rounded up to (the swizzle atoms').
    pub const WGMMA_ALIGN: u32 = 1024;
    const _: () = assert!(WGMMA_TILE_BYTES + WGMMA_ALIGN <= WGMMA_SHARED_BYTES);

    /// Operand `index` of the stream `seed`: an odd multiple of 1/256 in (−1, 1), never
    /// zero. Exact in f16 and in bf16 (at most 8 significant bits), so the f16 and bf16
    /// kernels multiply the same numbers; a product is a multiple of 2^-16 below 1 in
    /// magnitude, and a sum of 16 of them a multiple of 2^-16 below 16: exact in f32 in
    /// any order of addition.
    #[inline(always)]
    pub fn operand(seed: u64, index: u64) -> f32 {
        let k = random_i32(seed, index) >> 24; // [-128, 127]
        (2 * k + 1) as f32 * (1.0 / 256.0)
    }

    /// Element (`row`, `k`) of the 16 × 16 A tile of the `mma.sync` kernel (every warp
    /// holds the same one).
    #[inline(always)]
    pub fn mma_a(seed: u64, row: u32, k: u32) -> f32 {
        operand(seed, u64::from(row * 16 + k))
    }

    /// Element (`k`, `col`) of the 16 × 8 B tile of accumulator chain `chain`.
    #[inline(always)]
    pub fn mma_b(seed: u64, chain: u32, k: u32, col: u32) -> f32 {
        operand(seed, u64::from(256 + chain * 128 + k * 8 + col))
    }

    /// Element (`m`, `k`) of the `wgmma` kernel's 64 × 64 A tile. Its four k16 steps are
    /// P, −P, Q, −Q: each odd step undoes the product of the step before.
    #[inline(always)]
    pub fn wgmma_a(seed: u64, m: u32, k: u32) -> f32 {
        let (step, within) = (k / 16, k % 16);
        let value = operand(seed, u64::from(m * WGMMA_TILE_K + (step & !1) * 16 + within));
        if step % 2 == 1 { -value } else { value }
    }

    /// Element (`k`, `n`) of the `wgmma` kernel's 64 × 256 B tile: k16 steps 1 and 3
    /// repeat steps 0 and 2, so that with A's negated steps they add exactly zero.
    #[inline(always)]
    pub fn wgmma_b(seed: u64, k: u32, n: u32) -> f32 {
        let (step, within) = (k / 16, k % 16);
        operand(seed, u64::from((1 << 16) | (((step & !1) * 16 + within) * WGMMA_N + n)))
    }
    /// The 8-bit `wgmma` kernel's tiles: A 64 rows × 128 k values, B 256 columns × 128 k
    /// values, both K-major (the only layout 8-bit `wgmma` takes): one 128-byte swizzle row
    /// per row of A and per column of B, the same 8 KB and 32 KB as the 16-bit tiles. Four
    /// k32 steps per tile.
    pub const FP8_TILE_K: u32 = 128;
    const _: () = assert!(WGMMA_M * FP8_TILE_K + WGMMA_N * FP8_TILE_K == WGMMA_TILE_BYTES);

    /// The eight values the 8-bit operands take: the odd multiples of 1/8 in (−1, 1), from
    /// −7/8 up, each exact in e4m3 and in e5m2. A product is an odd multiple of 1/64 below
    /// 1 in magnitude, and a k32 step's sum of 32 of them a multiple of 1/64 below 32: 11
    /// significant bits at most, exact in f32 and in the narrower sums the tensor cores keep
    /// inside an 8-bit `wgmma`.
    pub const FP8_VALUES: [f32; 8] = [-0.875, -0.625, -0.375, -0.125, 0.125, 0.375, 0.625, 0.875];

    /// Their e4m3 codes (sign bit 0x80; checked against `fp8::E4M3` by the tests).
    pub const FP8_E4M3_CODES: [u8; 8] = [0xB6, 0xB2, 0xAC, 0xA0, 0x20, 0x2C, 0x32, 0x36];

    /// Which of [`FP8_VALUES`] operand `index` of stream `seed` is.
    #[inline(always)]
    pub fn fp8_operand(seed: u64, index: u64) -> usize {
        (random_i32(seed, index) as u32 >> 29) as usize
    }

    /// Element (`m`, `k`) of the 8-bit kernel's 64 × 128 A tile, as an index into
    /// [`FP8_VALUES`]: its four k32 steps are P, −P, Q, −Q (negation reverses the index).
    #[inline(always)]
    pub fn fp8_a(seed: u64, m: u32, k: u32) -> usize {
        let (step, within) = (k / 32, k % 32);
        let value = fp8_operand(seed, u64::from(m * FP8_TILE_K + (step & !1) * 32 + within));
        if step % 2 == 1 { FP8_VALUES.len() - 1 - value } else { value }
    }

    /// Element (`k`, `n`) of the 8-bit kernel's 128 × 256 B tile, as an index into
    /// [`FP8_VALUES`]: k32 steps 1 and 3 repeat steps 0 and 2.
    #[inline(always)]
    pub fn fp8_b(seed: u64, k: u32, n: u32) -> usize {
        let (step, within) = (k / 32, k % 32);
        fp8_operand(seed, u64::from((1 << 16) | (((step & !1) * 32 + within) * WGMMA_N + n)))
    }

    #[cfg(test)]
    mod tests {
        use super::{FP8_E4M3_CODES, FP8_VALUES, fp8_a, fp8_b};
        use crate::fp8::{E4M3, E5M2};

        #[test]
        fn the_fp8_operands_are_exact_in_both_formats_and_their_codes_right() {
            for (value, code) in FP8_VALUES.iter().zip(FP8_E4M3_CODES) {
                assert_eq!(E4M3.from_f32(*value), code, "{value}");
                assert_eq!(E4M3.to_f32(code), *value);
                assert_eq!(E5M2.to_f32(E5M2.from_f32(*value)), *value, "{value} exact in e5m2");
            }
        }

        #[test]
        fn odd_k32_steps_undo_the_step_before() {
            for (m, k) in [(0, 0), (5, 17), (63, 95)] {
                let (a, a_next) = (fp8_a(7, m, k), fp8_a(7, m, k + 32));
                assert_eq!(FP8_VALUES[a], -FP8_VALUES[a_next]);
                assert_eq!(fp8_b(7, k, m), fp8_b(7, k + 32, m));
            }
        }
    }
}
