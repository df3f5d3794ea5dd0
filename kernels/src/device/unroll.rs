//! Loop unrolling by hand, where the compiler's heuristics stop.
//!
//! Rust has no `#pragma unroll`. LLVM unrolls small loops with constant bounds by itself,
//! and that is what keeps a register array (`let mut acc = [0.0; 64]`) in registers: every
//! index becomes a constant. When a loop body is large (64 guarded stores, say) LLVM may
//! keep the loop, the index stays a variable, and the whole array moves to local memory
//! (a `__local_depot` in the PTX; `tests/cpu.rs` refuses those). [`unroll!`] writes the
//! copies out instead, each with its own constant index.

/// `unroll!(8, i => body)` expands to `body` eight times, with `i` bound to the constants
/// 0 to 7 (as `usize`). Counts 2, 4, 8, 16 and 32 are provided.
///
/// `unroll!(N, at most 2, i => body)` takes a count that a tunable sets, a constant `N` no
/// larger than the literal (2, 4, 8, 16 or 32; checked at compile time): the copies are written out
/// to the literal, each but those below `N` behind an `if` on two constants, which folds away.
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
    (16, $i:ident => $body:block) => {
        $crate::unroll!(8, __x => { let $i: usize = __x; $body });
        $crate::unroll!(8, __x => { let $i: usize = __x + 8; $body });
    };
    (32, $i:ident => $body:block) => {
        $crate::unroll!(16, __y => { let $i: usize = __y; $body });
        $crate::unroll!(16, __y => { let $i: usize = __y + 16; $body });
    };
    ($n:expr, at most $max:tt, $i:ident => $body:block) => {
        const { assert!($n <= $max, "unroll!: the count exceeds its bound") };
        $crate::unroll!($max, __n => {
            let $i: usize = __n;
            if $i < $n $body
        });
    };
}

/// Tells ptxas not to unroll the loop whose body starts with this call (PTX
/// `.pragma "nounroll";`, which applies to the loop whose header block it opens).
///
/// Rust cannot ask LLVM for `#pragma unroll N`; LLVM unrolls a simple loop by its own
/// count (8 for g02's), and ptxas, seeing no pragma, may unroll the result again (g02's
/// ×4 more: 64 loads per pass). CUDA C++'s `#pragma unroll 8` makes NVVM emit this
/// pragma after its own unrolling, so ptxas keeps the count. Calling this first in the
/// loop body does the same for Rust: LLVM copies it with the body, the first copy opens
/// the header block, and ptxas ignores the others.
#[inline(always)]
pub fn ptxas_nounroll() {
    // SAFETY: a directive, no instruction: it touches no register or memory.
    unsafe { core::arch::asm!(".pragma \"nounroll\";", options(nomem, nostack, preserves_flags)) };
}
