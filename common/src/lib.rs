//! Definitions that the kernels (compiled for the GPU) and the host (compiled for the CPU)
//! must agree on. `no_std`, so that both can use it.

#![cfg_attr(not(test), no_std)]

pub mod attention;
pub mod fp8;
pub mod gemm;
pub mod input;
pub mod probes;
pub mod reduce;
pub mod scan;
