//! The reduction ladder on the host: the registry of kernels, the CPU reference, and the
//! runner that launches, verifies and times them.

pub mod reference;
pub mod registry;
pub mod runner;
