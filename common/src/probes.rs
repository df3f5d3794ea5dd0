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
