//! The runner: loads the project's PTX, launches every step of every family, verifies each
//! against a CPU reference, times it and reports it next to the hardware's limit.
//!
//! The house, floor by floor (each may use the ones above it in this list, never those
//! below; `tests/house.rs` checks it):
//!
//! - [`base`]: errors, the GPU and its memory, the PTX, Ctrl-C, progress, the clock, the
//!   random inputs and input types;
//! - [`measure`]: timing, run conditions, the node of several GPUs;
//! - [`report`]: tables, records, charts, the output and `host compare`;
//! - [`ceilings`]: the tensor-core ceilings (p8, and the GEMM tables' limit); [`twins`]: the
//!   CUDA C++ twins (NVRTC) and their columns; [`testing`]: what the GPU tests share;
//!   [`cli`]: the options;
//! - [`families`]: the [`Family`](families::family::Family) interface, and each family in a
//!   folder of its own that uses the floors above and never another family;
//! - on top: [`run`] (the suite), [`sass`] (`host sass`) and the binary (`src/main.rs`).

pub mod base;
pub mod ceilings;
pub mod cli;
pub mod families;
pub mod measure;
pub mod report;
pub mod run;
pub mod sanitize;
pub mod sass;
pub mod testing;
pub mod twins;

pub use run::run;
