//! Probes: small kernels that make one property of the hardware visible, each timed and
//! (where it computes something) verified by the host like a ladder step.
//!
//! | probe | what it shows |
//! | --- | --- |
//! | [`p1_stride_copy`] | global memory moves whole 32-byte sectors: strided access wastes them |
//! | [`p2_bank_conflicts`] | shared memory serves 32 banks of 4 bytes per cycle; lanes in one bank queue |
//! | [`p3_saxpy`] | a streaming kernel with two reads and one write against the copy ceiling |
//! | [`p4_divergence`] | lanes of a warp that branch apart run both paths, one after the other |
//! | [`p5_occupancy`] | bandwidth needs bytes in flight: warps per SM × loads per thread (Little's law) |
//! | [`p6_latency`] | how long one load takes from L1, L2 and HBM (a pointer chase) |
//! | [`p7_sync`] | what a block barrier and a kernel launch cost |
//! | [`p8_tensor_ceiling`] | the peak rate of `mma.sync` and `wgmma` with operands on chip: what bounds a tensor-core GEMM step |

pub mod p1_stride_copy;
pub mod p2_bank_conflicts;
pub mod p3_saxpy;
pub mod p4_divergence;
pub mod p5_occupancy;
pub mod p6_latency;
pub mod p7_sync;
pub mod p8_tensor_ceiling;
