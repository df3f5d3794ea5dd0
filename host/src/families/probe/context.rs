//! What a probe is: a function that gets the device, the timer and the run's seed, and
//! returns its tables, plots and failed checks. The node probes (m1–m3) open the node's
//! other GPUs from here too.

use crate::base::error::Result;
use crate::base::gpu::Gpu;
use crate::measure::nccl::Nccl;
use crate::measure::node::{Node, too_few_gpus};
use crate::measure::timing::Timer;
use crate::report::heatmap::Heatmap;
use crate::report::plot::Plot;
use crate::report::table::Table;

/// What a probe gets: the device, the timer and the run's seed, and where the PTX is (the
/// multi-GPU probes open the node's other GPUs with it).
pub struct ProbeContext<'a> {
    pub gpu: &'a Gpu,
    pub timer: &'a Timer,
    pub seed: u64,
    pub ptx_dir: &'a std::path::Path,
}

/// What a probe returns: its tables and charts, and every check that failed.
#[derive(Default)]
pub struct ProbeOutput {
    /// The tables, printed and kept as records.
    pub tables: Vec<Table>,
    /// Tables printed after them that only rearrange their figures (m1's matrix of GPU
    /// pairs): printed, not kept as records a second time.
    pub views: Vec<Table>,
    pub plots: Vec<Plot>,
    pub heatmaps: Vec<Heatmap>,
    /// One line per failed verification; empty when everything matched.
    pub failures: Vec<String>,
    /// Why the probe did not run here (too few GPUs, no NCCL); the run goes on.
    pub skipped: Option<String>,
}

/// One probe of the suite.
#[derive(Clone, Copy)]
pub struct ProbeInfo {
    /// Stable name on the command line and in reports.
    pub id: &'static str,
    /// What it shows, in a few words.
    pub summary: &'static str,
    /// The PTX entry points it launches, in the PTX of every arch.
    pub kernels: &'static [&'static str],
    /// Entry points only in the sm_90a PTX (Hopper's own instructions), launched only
    /// where that PTX is loaded.
    pub sm90a_kernels: &'static [&'static str],
    /// Runs, verifies and times it.
    pub run: fn(&ProbeContext) -> Result<ProbeOutput>,
}

impl<'a> ProbeContext<'a> {
    /// The node: the probe's GPU and every other one the driver shows.
    pub fn node(&self) -> Result<Node<'a>> {
        Node::around(self.gpu, self.ptx_dir)
    }
}

/// The node and NCCL for a collective probe, or `None` when it cannot run here (fewer
/// than two GPUs, or no NCCL): then `out` says why, the probe reports itself skipped and
/// the run goes on.
pub fn node_with_nccl<'a>(ctx: &ProbeContext<'a>, out: &mut ProbeOutput) -> Result<Option<(Node<'a>, Nccl)>> {
    let node = ctx.node()?;
    let both = match too_few_gpus(&node, 2) {
        Some(reason) => Err(reason),
        None => Nccl::load().map(|nccl| (node, nccl)),
    };
    match both {
        Ok(both) => Ok(Some(both)),
        Err(reason) => {
            out.skipped = Some(reason);
            Ok(None)
        }
    }
}
