//! p8: the tensor-core ceiling, measured as the GEMM tables use it
//! ([`crate::ceilings`]): the peak FLOP/s of `mma.sync` and `wgmma` with operands on
//! chip, each kernel checked exactly, then timed at several numbers of warps (or
//! warpgroups) per SM.

use super::context::{ProbeContext, ProbeOutput};
use crate::base::error::Result;
use crate::ceilings;

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let run = ceilings::measure(ctx.gpu, ctx.timer, ctx.seed)?;
    Ok(ProbeOutput { tables: vec![run.table], failures: run.failures, ..ProbeOutput::default() })
}
