//! The device library: what a kernel needs from the hardware, one documented wrapper per
//! PTX instruction.
//!
//! Rust has no CUDA dialect. rustc's NVPTX backend gives kernels (`extern "ptx-kernel"`,
//! made by `#[kernel]`), the special registers and `bar.sync` through `core::arch::nvptx`;
//! everything else is inline PTX through `asm!`. Each wrapper here is that one instruction,
//! named after what it does, with the instruction in its doc comment, so a kernel reads as
//! its algorithm and a wrapper reads as a line of the PTX manual.
//!
//! Two rules the wrappers follow (the design notes say why):
//! - **Convergence.** LLVM does not know that an `asm!` block is a collective operation: it
//!   may duplicate it into both sides of a branch. Call the warp-collective wrappers
//!   (shuffles, `bar.warp.sync`) only where every lane named in the mask reaches the call,
//!   and never inside lane-dependent control flow.
//! - **Shared memory by address.** Rust has no `__shared__`; shared arrays are declared
//!   in module-level PTX and used through 32-bit shared-window addresses with explicit
//!   `ld.shared`/`st.shared`. (A generic pointer to shared memory works too, but compiles
//!   to slower generic loads.)
//!
//! | module | what |
//! | --- | --- |
//! | [`index`] | thread, block and grid indices and sizes; lanes and warps |
//! | [`sync`] | block barrier (`bar.sync`), warp barrier (`bar.warp.sync`) |
//! | [`shared`] | static and dynamic shared memory, `ld.shared` / `st.shared` |
//! | [`warp`] | shuffles (`shfl.sync` down / bfly / idx) and the ballot vote (`vote.sync.ballot`) |
//! | [`atomic`] | `red` and `atom` on global memory, fences |
//! | [`load`] | 16-byte vector loads, read-only (`.nc`) and streaming (`.cs`, `.cg`) hints; 8- and 16-byte stores |
//! | [`async_copy`] | `cp.async` global → shared copies, their groups and waits |
//! | [`mma`] | tensor-core `mma.sync.m16n8k16` (f16 and bf16 in, f32 accumulate), `ldmatrix` |
//! | [`hint`] | where the compiler computes a value (`computed_here`: not hoisted out of a loop) |
//! | [`cluster`] | thread-block clusters: ranks, the cluster barrier, addresses in another block's shared memory (sm_90a build only) |
//! | [`tma`] | Hopper's tensor copies (`cp.async.bulk.tensor`) and the `mbarrier`s they complete (sm_90a build only) |
//! | [`wgmma`] | Hopper's warpgroup MMA (`wgmma.mma_async`, sm_90a build only), its descriptors and fences |
//! | [`clock`] | the SM cycle counter and the GPU-wide nanosecond timer |
//! | [`unroll`] | `unroll!`: loop copies with constant indices, where LLVM would keep a loop |

pub mod async_copy;
pub mod atomic;
pub mod clock;
pub mod convert;
pub mod hint;
#[cfg(target_feature = "sm_90a")]
pub mod cluster;
pub mod index;
pub mod load;
pub mod mma;
pub mod shared;
pub mod sync;
#[cfg(target_feature = "sm_90a")]
pub mod tma;
pub mod unroll;
pub mod warp;
#[cfg(target_feature = "sm_90a")]
pub mod wgmma;
