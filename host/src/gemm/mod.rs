//! The GEMM ladder on the host: the registry, cuBLAS as the baseline, the CPU reference,
//! the runner that launches, verifies and times every step next to cuBLAS, the TMA
//! tensor maps some steps take instead of pointers, and the ladder's charts.

pub mod chart;
pub mod cublas;
pub mod reference;
pub mod registry;
pub mod runner;
pub mod tensor_map;
