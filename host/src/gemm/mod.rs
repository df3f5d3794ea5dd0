//! The GEMM ladder on the host: the registry, cuBLAS as the baseline, the CPU reference,
//! the runner that launches, verifies and times every step next to cuBLAS, the suite that
//! walks the shapes into tables, records and charts, the charts, and the TMA tensor maps
//! some steps take instead of pointers.

pub mod chart;
pub mod cublas;
pub mod reference;
pub mod registry;
pub mod runner;
pub mod suite;
pub mod tensor_map;
