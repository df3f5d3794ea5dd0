//! Every GPU kernel of the project, written in Rust and compiled to PTX by rustc's own
//! NVPTX backend (`cargo xtask build-ptx`; see the README for how to read it as a course).
//!
//! - [`device`] is the device library: one thin, documented wrapper per PTX instruction
//!   the kernels use (indices, barriers, shared memory, shuffles, atomics, cache-hinted
//!   and vector loads, tensor cores, and Hopper's TMA, clusters and `wgmma`).
//! - [`reduce`] is the reduction ladder: Harris's seven steps, the five steps of "Making
//!   vector sum really fast", and the project's own steps to a single launch.
//! - [`gemm`] is the GEMM ladder: FP32 steps from one thread per output, then tensor-core
//!   steps up to Hopper's `wgmma`, TMA and stream-K; [`gemm::hopper`] holds the machinery
//!   the Hopper steps share from w06 on.
//! - [`scan`] is the prefix-scan ladder: from Hillis and Steele's tile scan to a single pass
//!   with a warp-wide decoupled look-back, and stream compaction on it.
//! - [`probes`] are small kernels that each make one property of the hardware visible.
//! - [`support`] writes the pseudo-random inputs and flushes the L2 between timed runs.
//!
//! Every `#[kernel]` function becomes a `.entry` of the same name in the PTX.

#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math)]
// `#[rustc_force_inline]` for the larger pieces of `gemm::hopper`: inlined in rustc's MIR,
// as the code they replace was, so that the steps' SASS stays what it was (the module's
// documentation says why). An attribute of the compiler's own, hence the allowance.
#![feature(rustc_attrs)]
#![allow(internal_features)]

pub mod attention;
pub mod device;
pub mod gemm;
pub mod probes;
pub mod reduce;
pub mod scan;
pub mod support;

/// A kernel has nowhere to report a panic and no unwinding: stop the thread with `trap`,
/// which aborts the launch, and the host sees `CUDA_ERROR_ILLEGAL_INSTRUCTION`.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` has no operands and never returns.
    unsafe { core::arch::asm!("trap;", options(noreturn)) }
}
