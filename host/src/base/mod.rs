//! The ground floor: errors, the GPU and its memory, the PTX, Ctrl-C, progress lines, the
//! clock, the random inputs and the input types, the TMA tensor maps. Everything above may use it; it uses
//! nothing above it.

pub mod clock;
pub mod error;
pub mod gpu;
pub mod inputs;
pub mod interrupt;
pub mod memory;
pub mod precision;
pub mod progress;
pub mod ptx;
pub mod tensor_map;
