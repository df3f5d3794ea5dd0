//! Beyond one GPU: the node's GPUs opened together, peer access between them, timing of
//! work that spans them, and the sharding of an array over them: what the node probes
//! (m1–m3) stand on.
//!
//! Every GPU the driver shows takes part (`CUDA_VISIBLE_DEVICES` chooses them); rank 0 is
//! the run's `--device`, the others follow in ordinal order.

use crate::base::error::{Context, Error, Result};
use crate::base::gpu::Gpu;
use crate::measure::timing::{Timer, Timing};
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaEvent};

/// The GPUs of the node: the run's own, then every other one, opened with the same PTX.
pub struct Node<'a> {
    first: &'a Gpu,
    others: Vec<Gpu>,
}

impl<'a> Node<'a> {
    /// `first`, then every other GPU the driver shows, loaded with the PTX in `ptx_dir`.
    pub fn around(first: &'a Gpu, ptx_dir: &std::path::Path) -> Result<Node<'a>> {
        let mut others = Vec::new();
        for ordinal in (0..gpu_count()?).filter(|&o| o != first.info.ordinal) {
            let mut gpu =
                Gpu::open(ordinal, ptx_dir).map_err(|e| e.during(&format!("opening GPU {ordinal}")))?;
            gpu.hang_after = first.hang_after;
            others.push(gpu);
        }
        Ok(Node { first, others })
    }

    /// Every GPU, rank order.
    pub fn gpus(&self) -> Vec<&Gpu> {
        std::iter::once(self.first).chain(&self.others).collect()
    }

    pub fn len(&self) -> usize {
        1 + self.others.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// How many GPUs the driver shows (`CUDA_VISIBLE_DEVICES` chooses them).
pub fn gpu_count() -> Result<usize> {
    Ok(CudaContext::device_count().context("counting CUDA devices")? as usize)
}

/// Why a probe that needs `needed` GPUs cannot run on `node`, or `None` when it can.
pub fn too_few_gpus(node: &Node, needed: usize) -> Option<String> {
    (node.len() < needed).then(|| {
        format!(
            "needs {needed} GPUs and the driver shows {} ({}); on a machine with several, \
             CUDA_VISIBLE_DEVICES must list them",
            node.len(),
            node.gpus()
                .iter()
                .map(|g| format!("{} #{}", g.info.name, g.info.ordinal))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Whether kernels on `from` can address `to`'s memory once peer access is on
/// (`cuDeviceCanAccessPeer`).
pub fn can_access_peer(from: &Gpu, to: &Gpu) -> Result<bool> {
    let mut can = 0;
    // SAFETY: writes one int.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, from.ctx.cu_device(), to.ctx.cu_device()) }
        .result()
        .context("asking whether peer access is possible")?;
    Ok(can != 0)
}

/// Turns `from`'s access to `to`'s memory on or off; asking for the state it is already
/// in is not an error. Two switches: `cuCtxEnablePeerAccess` maps `to`'s ordinary
/// allocations into `from`'s context, but memory from the stream-ordered allocator
/// (`cuMemAllocAsync`, which cudarc allocates with) lives in `to`'s memory pool, whose
/// access list (`cuMemPoolSetAccess`) must name `from` as well: without it a kernel on
/// `from` faults on the first load, while the copy engines (`cuMemcpyPeer`) never notice.
pub fn set_peer_access(from: &Gpu, to: &Gpu, on: bool) -> Result<()> {
    let what = format!(
        "turning peer access {} from GPU {} to GPU {}",
        if on { "on" } else { "off" },
        from.info.ordinal,
        to.info.ordinal
    );
    from.make_current()?;
    // SAFETY: both contexts are alive; the calls change only the mapping between them.
    let result = unsafe {
        if on {
            sys::cuCtxEnablePeerAccess(to.ctx.cu_ctx(), 0)
        } else {
            sys::cuCtxDisablePeerAccess(to.ctx.cu_ctx())
        }
    };
    use sys::cudaError_enum::{CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED};
    match result {
        CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED | CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => {}
        other => other.result().context(&what)?,
    }
    let mut pool = std::ptr::null_mut();
    // SAFETY: writes one handle.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, to.ctx.cu_device()) }.result().context(&what)?;
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from.ctx.cu_device(),
        },
        flags: if on {
            sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        } else {
            sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE
        },
    };
    // SAFETY: one descriptor, read during the call.
    unsafe { sys::cuMemPoolSetAccess(pool, &access, 1) }.result().context(&what)
}

/// Peer access between every pair of `gpus`, both ways.
pub fn set_all_peer_access(gpus: &[&Gpu], on: bool) -> Result<()> {
    for a in gpus {
        for b in gpus.iter().filter(|b| b.info.ordinal != a.info.ordinal) {
            if !on || can_access_peer(a, b)? {
                set_peer_access(a, b, on)?;
            }
        }
    }
    Ok(())
}

/// Times work that spans several GPUs: each repetition records a start event on every
/// GPU's stream, queues the work, records a stop event on every stream and takes the
/// longest of the GPUs' elapsed times. The stopping rule is the run's ([`Timer`]); no L2
/// flush (the transfers and collectives it times are not HBM figures).
pub struct SpanTimer {
    events: Vec<(CudaEvent, CudaEvent)>,
}

impl SpanTimer {
    pub fn new(gpus: &[&Gpu]) -> Result<Self> {
        let event = |gpu: &Gpu| {
            gpu.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).context("creating an event")
        };
        let events = gpus.iter().map(|g| Ok((event(g)?, event(g)?))).collect::<Result<_>>()?;
        Ok(Self { events })
    }

    /// One repetition of `work` over `gpus` (the GPUs given to [`SpanTimer::new`], in
    /// order), in milliseconds; `before` runs first, outside the timed span.
    pub fn repetition(
        &self,
        gpus: &[&Gpu],
        before: &mut impl FnMut() -> Result<()>,
        work: &mut impl FnMut() -> Result<()>,
    ) -> Result<f64> {
        if gpus.len() != self.events.len() {
            return Err(Error::new("a span timer used over other GPUs than it was made for"));
        }
        before()?;
        for (gpu, (start, _)) in gpus.iter().zip(&self.events) {
            start.record(&gpu.stream).context("recording an event")?;
        }
        work()?;
        for (gpu, (_, stop)) in gpus.iter().zip(&self.events) {
            stop.record(&gpu.stream).context("recording an event")?;
        }
        let mut longest = 0.0f64;
        for (gpu, (start, stop)) in gpus.iter().zip(&self.events) {
            gpu.wait_for(stop, "waiting for work across GPUs")?;
            longest = longest.max(f64::from(start.elapsed_ms(stop).context("timing a repetition")?));
        }
        Ok(longest)
    }

    /// `work` timed by the run's stopping rule, each repetition `batch` calls of it after
    /// `before` (untimed: an L2 flush, or nothing); the figure is per call.
    pub fn measure(
        &self,
        timer: &Timer,
        gpus: &[&Gpu],
        batch: usize,
        mut before: impl FnMut() -> Result<()>,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        let batch = batch.max(1);
        let mut timing = timer.measure_repetitions(|| {
            self.repetition(gpus, &mut before, &mut || (0..batch).try_for_each(|_| work()))
        })?;
        timing.scale(1.0 / batch as f64);
        Ok(timing)
    }
}

/// The GPU counts the node probes run at on a node of `total` GPUs: 1, 2, 4, … up to
/// `total`, and `total` itself (1, 2, 4 on four GPUs; 1, 2, 3 on three). Each count takes
/// the first GPUs in rank order.
pub fn gpu_counts(total: usize) -> Vec<usize> {
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1usize), |c| c.checked_mul(2)).take_while(|&c| c <= total).collect();
    if total > 0 && counts.last() != Some(&total) {
        counts.push(total);
    }
    counts
}

/// Every ordered pair of `total` ranks, `(from, to)` with `from ≠ to`, by `from` then `to`.
pub fn ordered_pairs(total: usize) -> Vec<(usize, usize)> {
    (0..total).flat_map(|a| (0..total).filter(move |&b| b != a).map(move |b| (a, b))).collect()
}

/// Splits `n` elements into `parts` contiguous shards whose lengths differ by at most one:
/// `(first element, length)` of each.
pub fn shards(n: usize, parts: usize) -> Vec<(usize, usize)> {
    (0..parts).map(|r| (r * n / parts, (r + 1) * n / parts - r * n / parts)).collect()
}

/// nccl-tests' bus bandwidth of an all-reduce over `ranks` GPUs from its algorithm
/// bandwidth (bytes / time): each rank sends and receives 2(n − 1)/n of the buffer, so
/// this is the figure to hold against one link's speed, whatever the rank count.
pub fn allreduce_bus_bandwidth(algorithm_bandwidth: f64, ranks: usize) -> f64 {
    algorithm_bandwidth * 2.0 * (ranks as f64 - 1.0) / ranks as f64
}
