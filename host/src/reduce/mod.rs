//! The reduction ladder on the host: the registry of kernels, the CPU reference, the
//! runner that launches, verifies and times them, and their chart.

pub mod chart;
pub mod reference;
pub mod registry;
pub mod runner;
