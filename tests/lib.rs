//! Correctness tests of the workspace; the tests live in `cpu.rs` and `gpu.rs`.
