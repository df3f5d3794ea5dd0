//! The probes: experiments that make one property of the hardware visible (seeds 001, 002
//! and 004). Each has a stable id, the PTX kernels it launches, and a function that runs,
//! verifies and times it and returns tables and plots.

/// One probe of the suite.
#[derive(Clone, Copy, Debug)]
pub struct ProbeInfo {
    /// Stable name on the command line and in reports.
    pub id: &'static str,
    /// What it shows, in a few words.
    pub summary: &'static str,
    /// The PTX entry points it launches.
    pub kernels: &'static [&'static str],
}

/// Every probe, in order.
pub const PROBES: &[ProbeInfo] = &[
    ProbeInfo {
        id: "p1_stride_copy",
        summary: "strided copies: 32-byte sectors, useful and moved bandwidth",
        kernels: &["stride_copy_f32", "copy_16b"],
    },
    ProbeInfo {
        id: "p2_bank_conflicts",
        summary: "shared-memory reads at stride S for 2-, 4- and 8-byte elements",
        kernels: &["shared_read_b16", "shared_read_b32", "shared_read_b64"],
    },
    ProbeInfo { id: "p3_saxpy", summary: "y = a·x + y against the copy ceiling", kernels: &["saxpy", "copy_16b"] },
    ProbeInfo {
        id: "p4_divergence",
        summary: "branching on thread parity, on warp index, and predicated",
        kernels: &["diverge_by_lane", "uniform_by_warp", "predicated_by_lane"],
    },
    ProbeInfo {
        id: "p5_occupancy",
        summary: "bandwidth against block size, blocks per SM and loads in flight",
        kernels: &["stream_sum_ilp1", "stream_sum_ilp2", "stream_sum_ilp4", "stream_sum_ilp8"],
    },
    ProbeInfo {
        id: "p6_latency",
        summary: "pointer-chase load latency across L1, L2 and HBM",
        kernels: &["pointer_chase_cached", "pointer_chase_l2"],
    },
    ProbeInfo { id: "p7_sync", summary: "block barrier and kernel launch cost", kernels: &["barrier_cost", "empty_kernel"] },
];
