//! Loop unrolling by hand, where the compiler's heuristics stop.
//!
//! Rust has no `#pragma unroll`. LLVM unrolls small loops with constant bounds by itself,
//! and that is what keeps a register array (`let mut acc = [0.0; 64]`) in registers: every
//! index becomes a constant. When a loop body is large (64 guarded stores, say) LLVM may
//! keep the loop, the index stays a variable, and the whole array moves to local memory
//! (a `__local_depot` in the PTX; `tests/cpu.rs` refuses those). [`unroll!`] writes the
//! copies out instead, each with its own constant index.

/// `unroll!(8, i => body)` expands to `body` eight times, with `i` bound to the constants
/// 0 to 7 (as `usize`). Counts 2, 4 and 8 are provided.
#[macro_export]
macro_rules! unroll {
    (2, $i:ident => $body:block) => {
        { let $i: usize = 0; $body }
        { let $i: usize = 1; $body }
    };
    (4, $i:ident => $body:block) => {
        $crate::unroll!(2, __u => { let $i: usize = __u; $body });
        $crate::unroll!(2, __u => { let $i: usize = __u + 2; $body });
    };
    (8, $i:ident => $body:block) => {
        $crate::unroll!(4, __v => { let $i: usize = __v; $body });
        $crate::unroll!(4, __v => { let $i: usize = __v + 4; $body });
    };
}
