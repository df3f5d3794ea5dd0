//! The GEMM ladder on the host: the registry, cuBLAS as the baseline, the CPU reference,
//! and the runner that launches, verifies and times every step next to cuBLAS.

pub mod cublas;
pub mod reference;
pub mod registry;
pub mod runner;
