//! Hints to the compiler about where code runs.

use core::arch::asm;

/// `mov.b32 %r, x;` in an `asm!` LLVM keeps where it stands (one with side effects, as far as
/// LLVM knows), returning `x`: what is computed from the result is computed after this point.
/// Inside a loop, LLVM's loop-invariant code motion would otherwise compute such values (a
/// tile's 32 store addresses, say) once before the loop, where they stay live in registers
/// across all of it.
#[inline(always)]
pub fn computed_here(x: u32) -> u32 {
    let y: u32;
    // SAFETY: a register move; no memory.
    unsafe { asm!("mov.b32 {y}, {x};", y = out(reg32) y, x = in(reg32) x, options(nostack, nomem)) };
    y
}
