//! m1: the interconnect. Bandwidth and latency of every way data moves between the host
//! and a GPU and between two GPUs, beside what the link can carry (NVML's figures, see
//! [`super::links`]):
//!
//! - host ↔ GPU through `cuMemcpy*`, from pinned memory (page-locked: the copy engine
//!   reads it directly) and from pageable memory (the driver stages it through a pinned
//!   buffer of its own, on the CPU);
//! - GPU → GPU through `cuMemcpyPeerAsync` with peer access off (staged through the host)
//!   and on (the copy engines over NVLink), and with a kernel (`copy_16b`) on one GPU
//!   reading the other's memory, or writing it;
//! - the latency of one 8-byte transfer of each kind, and of one dependent load from a
//!   kernel on one GPU into the other's memory (p6's pointer chase over NVLink).
//!
//! Every path is verified: its destination poisoned, the copy compared with the source
//! word by word, and nothing written past its end.

use super::context::{ProbeContext, ProbeOutput};
use super::latency::{chain_on_device, chase, size};
use super::stride_copy::launch_copy_16b;
use crate::base::error::{Context, Error, Result};
use crate::base::gpu::Gpu;
use crate::base::inputs::fill_random_i32;
use crate::base::memory::DeviceBuffer;
use crate::measure::links::Links;
use crate::measure::node::{can_access_peer, ordered_pairs, set_all_peer_access};
use crate::measure::timing::{Timer, Timing};
use crate::report::heatmap::{Heatmap, Panel};
use crate::report::plot::{Plot, Series, XAxis};
use crate::report::table::{Cell, Table};
use common::input::random_i32;
use cudarc::driver::sys;
use std::time::Instant;

/// Transfer sizes: 4 KiB to 256 MiB, by fours.
pub const SIZES_LOG2: [u32; 9] = [12, 14, 16, 18, 20, 22, 24, 26, 28];

/// A size that is a multiple of nothing but 16 (the copy kernel moves 16-byte units):
/// every path is verified at it and at the largest size.
pub const AWKWARD_BYTES: usize = 1_000_016;

/// Bytes of one latency transfer, and how many are timed back to back per repetition.
const LATENCY_BYTES: usize = 8;
const LATENCY_BATCH: usize = 64;

/// Chains of the peer load latency: one in an L2 (walked one checked lap first, which
/// warms it), one far past any L2 (the owner's L2 flushed instead: a lap of it over NVLink
/// would take seconds).
const CHASE_IN_L2: usize = 1 << 20;
const CHASE_PAST_L2: usize = 1 << 28;
const CHASE_STEPS: u64 = 1 << 14;

/// Written over every destination before a verification.
const POISON: u32 = 0xDEAD_BEEF;

/// Host memory for the copies: pinned (`cuMemHostAlloc`, portable to every context) or
/// pageable (an ordinary allocation).
struct HostBuffer {
    ptr: *mut u8,
    bytes: usize,
    pinned: bool,
    _pageable: Option<Vec<u32>>,
}

impl HostBuffer {
    fn pinned(gpu: &Gpu, bytes: usize) -> Result<Self> {
        gpu.make_current()?;
        let mut ptr = std::ptr::null_mut();
        // SAFETY: the driver writes the address of `bytes` new bytes; PORTABLE makes them
        // pinned for every context, not only the current one.
        unsafe { sys::cuMemHostAlloc(&mut ptr, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }
            .result()
            .context(&format!("allocating {} of pinned host memory", size(bytes)))?;
        Ok(Self { ptr: ptr.cast(), bytes, pinned: true, _pageable: None })
    }

    fn pageable(bytes: usize) -> Self {
        let mut words = vec![0u32; bytes.div_ceil(4)];
        Self { ptr: words.as_mut_ptr().cast(), bytes, pinned: false, _pageable: Some(words) }
    }

    /// The buffer as words.
    fn words(&mut self) -> &mut [u32] {
        // SAFETY: the allocation holds `bytes` bytes, 4-byte aligned (page-aligned when
        // pinned, a `Vec<u32>` otherwise), and this borrow is the only access meanwhile.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast::<u32>(), self.bytes / 4) }
    }

    fn kind(&self) -> &'static str {
        if self.pinned { "pinned" } else { "pageable" }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if self.pinned {
            // SAFETY: allocated by cuMemHostAlloc, freed once; every copy was waited for.
            unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
        }
    }
}

/// One end of a transfer.
#[derive(Clone, Copy)]
enum End<'a> {
    Device(&'a Gpu, &'a DeviceBuffer),
    Host(*mut u8, usize),
}

/// How a transfer is made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    /// `cuMemcpy*Async` on the source GPU's stream (the destination's for host → GPU),
    /// timed with CUDA events.
    AsyncCopy,
    /// The synchronous `cuMemcpy*`, timed by the host's clock: a pageable copy returns
    /// only when the driver has staged it, so only the host sees its whole time.
    BlockingCopy,
    /// `copy_16b` on the destination GPU (it reads the source's memory).
    KernelReads,
    /// `copy_16b` on the source GPU (it writes the destination's memory).
    KernelWrites,
}

/// A way data moves, and the link it moves over.
struct Path<'a> {
    name: String,
    from: End<'a>,
    to: End<'a>,
    how: How,
    /// The GPU whose stream (or context) issues it.
    issuer: &'a Gpu,
    /// The link's name and one direction's rate, GB/s.
    link: Option<(String, f64)>,
}

impl Path<'_> {
    /// Queues (or, blocking, makes) one transfer of `bytes`.
    fn transfer(&self, bytes: usize) -> Result<()> {
        let stream = self.issuer.stream.cu_stream();
        self.issuer.make_current()?;
        // SAFETY (all arms): both ends hold at least `bytes` (checked by `Probe::time` and
        // `Probe::verify` against the buffers' sizes); pinned host memory outlives the
        // asynchronous copies, which are waited for before it is freed.
        let result = unsafe {
            match (self.how, self.from, self.to) {
                (How::AsyncCopy, End::Host(src, _), End::Device(_, dst)) => {
                    sys::cuMemcpyHtoDAsync_v2(dst.ptr(), src.cast(), bytes, stream)
                }
                (How::AsyncCopy, End::Device(_, src), End::Host(dst, _)) => {
                    sys::cuMemcpyDtoHAsync_v2(dst.cast(), src.ptr(), bytes, stream)
                }
                (How::AsyncCopy, End::Device(a, src), End::Device(b, dst)) => sys::cuMemcpyPeerAsync(
                    dst.ptr(),
                    b.ctx.cu_ctx(),
                    src.ptr(),
                    a.ctx.cu_ctx(),
                    bytes,
                    stream,
                ),
                (How::BlockingCopy, End::Host(src, _), End::Device(_, dst)) => {
                    sys::cuMemcpyHtoD_v2(dst.ptr(), src.cast(), bytes)
                }
                (How::BlockingCopy, End::Device(_, src), End::Host(dst, _)) => {
                    sys::cuMemcpyDtoH_v2(dst.cast(), src.ptr(), bytes)
                }
                (How::KernelReads | How::KernelWrites, End::Device(_, src), End::Device(_, dst)) => {
                    return launch_copy_16b(self.issuer, src, dst, bytes / 16);
                }
                _ => return Err(Error::new(format!("{}: no such transfer", self.name))),
            }
        };
        result.result().context(&format!("{} of {bytes} bytes", self.name))
    }

    /// The largest transfer both ends hold.
    fn capacity(&self) -> usize {
        let bytes = |end: &End| match end {
            End::Device(_, buffer) => buffer.bytes(),
            End::Host(_, bytes) => *bytes,
        };
        bytes(&self.from).min(bytes(&self.to))
    }

    /// Times transfers of `bytes`, `batch` per repetition; the timing is per transfer.
    fn time(&self, timer: &Timer, bytes: usize, batch: usize) -> Result<Timing> {
        assert!(bytes <= self.capacity(), "a transfer past the end of a buffer");
        let gpu = self.issuer;
        let mut timing = if self.how == How::BlockingCopy {
            timer.measure_repetitions(|| {
                let started = Instant::now();
                (0..batch).try_for_each(|_| self.transfer(bytes))?;
                Ok(started.elapsed().as_secs_f64() * 1e3)
            })?
        } else {
            timer.measure(gpu, || (0..batch).try_for_each(|_| self.transfer(bytes)))?
        };
        timing.scale(1.0 / batch as f64);
        Ok(timing)
    }

    /// One transfer of `bytes` from a random source over a poisoned destination: `None`
    /// when the destination equals the source and nothing past it was written.
    fn verify(&self, bytes: usize, seed: u64) -> Result<Option<String>> {
        assert!(bytes.is_multiple_of(16) && bytes <= self.capacity(), "verification size");
        let words = bytes / 4;
        let source: Vec<u32> = match self.from {
            End::Device(gpu, buffer) => {
                fill_random_i32(gpu, buffer, words, seed)?;
                buffer.read::<u32>(gpu, words)?
            }
            End::Host(ptr, _) => {
                // SAFETY: the host end holds `bytes` bytes, 4-byte aligned, and nothing
                // else touches it now.
                let host = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u32>(), words) };
                for (i, w) in host.iter_mut().enumerate() {
                    *w = random_i32(seed, i as u64) as u32;
                }
                host.to_vec()
            }
        };
        let capacity_words = match self.to {
            End::Device(gpu, buffer) => {
                buffer.fill_words(gpu, POISON, buffer.bytes() / 4)?;
                // The poison is queued on the destination's stream, the transfer on the
                // issuer's: without this wait nothing orders them, and the poison can land
                // over what the transfer wrote.
                gpu.sync("poisoning a destination")?;
                buffer.bytes() / 4
            }
            End::Host(ptr, host_bytes) => {
                // SAFETY: as above, for the destination.
                unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u32>(), host_bytes / 4) }.fill(POISON);
                host_bytes / 4
            }
        };
        self.transfer(bytes)?;
        self.issuer.sync(&format!("waiting for {}", self.name))?;
        let landed: Vec<u32> = match self.to {
            End::Device(gpu, buffer) => buffer.read::<u32>(gpu, capacity_words)?,
            // SAFETY: as above; the copy is complete (synchronized).
            End::Host(ptr, _) => {
                unsafe { std::slice::from_raw_parts(ptr.cast::<u32>(), capacity_words) }.to_vec()
            }
        };
        if let Some(i) = (0..words).find(|&i| landed[i] != source[i]) {
            return Ok(Some(format!(
                "{}, {bytes} bytes: word {i} is {:#010x}, expected {:#010x}",
                self.name, landed[i], source[i]
            )));
        }
        Ok(landed[words..]
            .iter()
            .position(|&w| w != POISON)
            .map(|i| format!("{}, {bytes} bytes: wrote word {} past the end", self.name, words + i)))
    }
}

/// The buffers every path moves between: a source and a destination on each GPU, and
/// pinned and pageable host memory.
struct Buffers {
    device: Vec<(DeviceBuffer, DeviceBuffer)>,
    pinned: HostBuffer,
    pageable: HostBuffer,
}

impl Buffers {
    fn new(gpus: &[&Gpu], bytes: usize) -> Result<Self> {
        let device = gpus
            .iter()
            .map(|g| {
                Ok((
                    DeviceBuffer::alloc(g, bytes, "a source")?,
                    DeviceBuffer::alloc(g, bytes, "a destination")?,
                ))
            })
            .collect::<Result<_>>()?;
        let mut pinned = HostBuffer::pinned(gpus[0], bytes)?;
        let mut pageable = HostBuffer::pageable(bytes);
        // Touch every page once, so that no copy times the OS mapping them.
        pageable.words().fill(1);
        pinned.words().fill(1);
        Ok(Self { device, pinned, pageable })
    }
}

/// How one GPU's data reaches another's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerMethod {
    /// `cuMemcpyPeerAsync` with peer access off: the driver stages it through host memory.
    StagedCopy,
    /// `cuMemcpyPeerAsync` with peer access on: the copy engines, over NVLink where there is.
    PeerCopy,
    /// `copy_16b` on the destination GPU, loading from the source's memory.
    ReceiverReads,
    /// `copy_16b` on the source GPU, storing into the destination's memory.
    SenderWrites,
}

impl PeerMethod {
    pub const ALL: [PeerMethod; 4] =
        [PeerMethod::StagedCopy, PeerMethod::PeerCopy, PeerMethod::ReceiverReads, PeerMethod::SenderWrites];

    /// The method's name in tables and charts.
    pub fn label(self) -> &'static str {
        match self {
            PeerMethod::StagedCopy => "copy (peer access off)",
            PeerMethod::PeerCopy => "copy (peer access on)",
            PeerMethod::ReceiverReads => "kernel on the receiver reads",
            PeerMethod::SenderWrites => "kernel on the sender writes",
        }
    }

    /// Whether it needs peer access on (and possible) between the two GPUs.
    pub fn peer_access(self) -> bool {
        self != PeerMethod::StagedCopy
    }

    fn how(self) -> How {
        match self {
            PeerMethod::StagedCopy | PeerMethod::PeerCopy => How::AsyncCopy,
            PeerMethod::ReceiverReads => How::KernelReads,
            PeerMethod::SenderWrites => How::KernelWrites,
        }
    }

    /// Whether its latency is measured (one small copy); a kernel's is a launch's.
    fn is_copy(self) -> bool {
        self.how() == How::AsyncCopy
    }
}

/// Host ↔ every GPU, pinned and pageable, both ways.
fn host_paths<'a>(gpus: &[&'a Gpu], links: &[Option<Links>], buffers: &'a Buffers) -> Vec<Path<'a>> {
    let (pinned, pageable) = (&buffers.pinned, &buffers.pageable);
    let mut paths = Vec::new();
    for (rank, gpu) in gpus.iter().enumerate() {
        let pcie = links[rank].as_ref().and_then(|l| l.pcie).and_then(|p| Some((p.describe(), p.gbs()?)));
        let device = End::Device(gpu, &buffers.device[rank].0);
        for host in [pinned, pageable] {
            let how = if host.pinned { How::AsyncCopy } else { How::BlockingCopy };
            let end = End::Host(host.ptr, host.bytes);
            paths.push(Path {
                name: format!("host → GPU {rank}, {}", host.kind()),
                from: end,
                to: device,
                how,
                issuer: gpu,
                link: pcie.clone(),
            });
            paths.push(Path {
                name: format!("GPU {rank} → host, {}", host.kind()),
                from: device,
                to: end,
                how,
                issuer: gpu,
                link: pcie.clone(),
            });
        }
    }
    paths
}

/// The path from rank `a`'s source buffer to rank `b`'s destination by `method`, with the
/// link it crosses (NVLink between the two, or `a`'s PCIe link for a staged copy); `None`
/// where the method needs peer access and the two GPUs cannot have it.
fn peer_path<'a>(
    gpus: &[&'a Gpu],
    links: &[Option<Links>],
    buffers: &'a Buffers,
    (a, b): (usize, usize),
    method: PeerMethod,
) -> Result<Option<Path<'a>>> {
    if method.peer_access() && !(can_access_peer(gpus[a], gpus[b])? && can_access_peer(gpus[b], gpus[a])?) {
        return Ok(None);
    }
    let link = if method.peer_access() {
        match (&links[a], &links[b]) {
            (Some(la), Some(lb)) => {
                let node_links: Vec<&Links> = links.iter().flatten().collect();
                la.nvlink_to(lb, &node_links).map(|(count, gbs)| (format!("NVLink ×{count}"), gbs))
            }
            _ => None,
        }
    } else {
        links[a].as_ref().and_then(|l| l.pcie).and_then(|p| Some((p.describe(), p.gbs()?)))
    };
    let issuer = if method == PeerMethod::ReceiverReads { gpus[b] } else { gpus[a] };
    Ok(Some(Path {
        name: format!("GPU {a} → GPU {b}, {}", method.label()),
        from: End::Device(gpus[a], &buffers.device[a].0),
        to: End::Device(gpus[b], &buffers.device[b].1),
        how: method.how(),
        issuer,
        link,
    }))
}

/// Every method between each of `pairs` (ordered), each with the peer-access state it
/// needs; a method the pair cannot have is left out.
fn peer_paths<'a>(
    gpus: &[&'a Gpu],
    links: &[Option<Links>],
    buffers: &'a Buffers,
    pairs: &[(usize, usize)],
) -> Result<Vec<(bool, Path<'a>)>> {
    let mut paths = Vec::new();
    for &pair in pairs {
        for method in PeerMethod::ALL {
            if let Some(path) = peer_path(gpus, links, buffers, pair, method)? {
                paths.push((method.peer_access(), path));
            }
        }
    }
    Ok(paths)
}

/// Every path between `gpus` and the host and between every ordered pair of `gpus`,
/// verified (no timing) on `AWKWARD_BYTES`, a single 16-byte unit and 64 KiB + 16: for the
/// GPU tests. The failures, if any.
pub fn check_every_path(gpus: &[&Gpu], seed: u64) -> Result<Vec<String>> {
    let buffers = Buffers::new(gpus, 2 * AWKWARD_BYTES)?;
    let links = vec![None; gpus.len()];
    let host_paths = host_paths(gpus, &links, &buffers);
    let peer_paths = peer_paths(gpus, &links, &buffers, &ordered_pairs(gpus.len()))?;
    let mut failures = Vec::new();
    let all = host_paths.iter().map(|p| (None, p)).chain(peer_paths.iter().map(|(on, p)| (Some(*on), p)));
    for (peer_access, path) in all {
        if let Some(on) = peer_access {
            set_all_peer_access(gpus, on)?;
        }
        for bytes in [AWKWARD_BYTES, 16, (64 << 10) + 16] {
            failures.extend(path.verify(bytes, seed ^ bytes as u64)?);
        }
    }
    set_all_peer_access(gpus, false)?;
    Ok(failures)
}

pub fn run(ctx: &ProbeContext) -> Result<ProbeOutput> {
    let node = ctx.node()?;
    let gpus = node.gpus();
    let largest = 1usize << SIZES_LOG2[SIZES_LOG2.len() - 1];
    let links: Vec<Option<Links>> = gpus.iter().map(|g| Links::read(g).ok()).collect();
    let mut out = ProbeOutput::default();
    out.tables.push(links_table(&gpus, &links));

    let timers: Vec<Timer> =
        gpus.iter().map(|g| Timer::new(g, ctx.timer.options())).collect::<Result<_>>()?;
    let timer_of =
        |issuer: &Gpu| &timers[gpus.iter().position(|g| g.info.ordinal == issuer.info.ordinal).unwrap_or(0)];
    let buffers = Buffers::new(&gpus, largest)?;
    // The sweep over sizes: host ↔ every GPU, and the first two GPUs both ways; every other
    // pair at the largest size only (`every_pair`).
    let swept_pairs: &[(usize, usize)] = if gpus.len() >= 2 { &[(0, 1), (1, 0)] } else { &[] };
    let host_paths = host_paths(&gpus, &links, &buffers);
    let peer_paths = peer_paths(&gpus, &links, &buffers, swept_pairs)?;

    let mut bandwidth = Table::new(
        format!("m1 interconnect: bandwidth of one transfer, 4 KiB to {}", size(largest)),
        &["path", "bytes", "median µs", "GB/s", "% of link", "link", "check"],
    );
    let mut latency = Table::new(
        format!(
            "m1 interconnect: latency of one {LATENCY_BYTES}-byte transfer ({LATENCY_BATCH} back to back per repetition)"
        ),
        &["path", "median µs"],
    );
    let mut series = Vec::new();
    let all: Vec<(Option<bool>, &Path)> =
        host_paths.iter().map(|p| (None, p)).chain(peer_paths.iter().map(|(on, p)| (Some(*on), p))).collect();
    for (peer_access, path) in all {
        if let Some(on) = peer_access {
            set_all_peer_access(&gpus, on)?;
        }
        crate::base::progress::begin(format!("m1: {}", path.name));
        let check = verified(path, largest, ctx.seed, &mut out.failures)?;
        bandwidth.section(path.name.clone());
        let mut points = Vec::new();
        for log2 in SIZES_LOG2 {
            let bytes = 1usize << log2;
            if !check {
                break; // a wrong path is reported, never timed
            }
            let timing = path.time(timer_of(path.issuer), bytes, 1)?;
            let gbs = timing.gigabytes_per_second(bytes as f64);
            points.push((bytes as f64, gbs));
            bandwidth.push(vec![
                path.name.clone().into(),
                Cell::Size(bytes as u64),
                Cell::Time(timing),
                Cell::Figure(gbs, 1, "GB/s"),
                Cell::OfLimit(path.link.as_ref().map_or(f64::NAN, |(_, limit)| 100.0 * gbs / limit), 1),
                link_text(path).into(),
                Cell::Check(check),
            ]);
        }
        if check && matches!(path.how, How::AsyncCopy | How::BlockingCopy) {
            let timing = path.time(timer_of(path.issuer), LATENCY_BYTES, LATENCY_BATCH)?;
            latency.push(vec![path.name.clone().into(), Cell::Time(timing)]);
        }
        if path.name.starts_with("host → GPU 0") || path.name.starts_with("GPU 0 →") {
            series.push(Series { name: path.name.clone(), points });
        }
    }
    if gpus.len() >= 2 && can_access_peer(gpus[0], gpus[1])? {
        set_all_peer_access(&gpus, true)?;
        chase_rows(ctx, [(gpus[0], &timers[0]), (gpus[1], &timers[1])], &mut latency, &mut out.failures)?;
    }
    set_all_peer_access(&gpus, false)?;

    bandwidth.notes.push(format!(
        "GB/s = bytes moved / median time (one direction). Pinned copies and the GPU-to-GPU paths are timed with \
         CUDA events on the issuing GPU; pageable copies with the host's clock around the blocking cuMemcpy, \
         since the driver stages them through its own pinned buffer on the CPU. Every path verified at \
         {AWKWARD_BYTES} and {} bytes: the copy equals the source, nothing past it written.",
        largest
    ));
    bandwidth.notes.push(
        "Read: pinned beats pageable by the CPU copy the driver adds; peer access on sends the copy over NVLink, \
         off stages it through host memory (two PCIe crossings); a kernel's own loads or stores reach the same \
         link as the copy engine once enough are in flight."
            .into(),
    );
    if gpus.len() < 2 {
        bandwidth.notes.push(format!(
            "no GPU-to-GPU rows: {}",
            crate::measure::node::too_few_gpus(&node, 2).unwrap_or_default()
        ));
    } else if gpus.len() > 2 {
        bandwidth
            .notes
            .push("GPU to GPU: GPUs 0 and 1 here; every ordered pair at the largest size below".into());
    }
    latency.notes.push(
        "a transfer's latency: the time of one small copy with the driver's and the copy engine's fixed costs; \
         the chase rows: one thread's dependent loads, the wire and the far memory alone"
            .into(),
    );
    let mut h_lines = Vec::new();
    for (name, gbs) in
        host_paths.iter().chain(peer_paths.iter().map(|(_, p)| p)).filter_map(|p| p.link.clone())
    {
        if !h_lines.iter().any(|(_, n): &(f64, String)| *n == name) {
            h_lines.push((gbs, name));
        }
    }
    out.plots.push(Plot {
        name: "m1-interconnect".into(),
        title: format!("Transfers on {} × {}", gpus.len(), gpus[0].info.name),
        x_label: "bytes per transfer".into(),
        y_label: "GB/s".into(),
        x_axis: XAxis::Log2Bytes,
        series,
        h_lines,
        v_lines: vec![],
        x_unit: "bytes".into(),
        y_unit: "GB/s".into(),
        ..Plot::default()
    });
    out.tables.push(bandwidth);
    out.tables.push(latency);
    if gpus.len() >= 2 {
        every_pair(ctx, &gpus, &links, &buffers, &timer_of, largest, &mut out)?;
    }
    Ok(out)
}

/// Whether `path` lands right at `AWKWARD_BYTES` and at `largest`; each failure goes to
/// `failures`.
fn verified(path: &Path, largest: usize, seed: u64, failures: &mut Vec<String>) -> Result<bool> {
    let mut check = true;
    for bytes in [AWKWARD_BYTES, largest] {
        if let Some(failure) = path.verify(bytes, seed ^ bytes as u64)? {
            failures.push(failure);
            check = false;
        }
    }
    Ok(check)
}

/// A path's link as the tables write it: `NVLink ×18: 478.1 GB/s`.
fn link_text(path: &Path) -> String {
    path.link.as_ref().map_or("unknown".to_string(), |(name, gbs)| format!("{name}: {gbs:.1} GB/s"))
}

/// The columns of the table of every ordered pair (the results pages read its records by
/// them).
pub const PAIR_COLUMNS: &[&str] =
    &["from", "to", "path", "bytes", "median µs", "GB/s", "% of link", "link", "8-byte µs", "check"];

/// Column names of the pair matrices, one per GPU (`&'static str`, as a table's columns
/// are): a node of more GPUs gets the pair table without the matrices.
const GPU_COLUMNS: [&str; 16] = [
    "GPU 0", "GPU 1", "GPU 2", "GPU 3", "GPU 4", "GPU 5", "GPU 6", "GPU 7", "GPU 8", "GPU 9", "GPU 10",
    "GPU 11", "GPU 12", "GPU 13", "GPU 14", "GPU 15",
];

/// Every ordered pair of GPUs by every method at `bytes` (the sweep's largest), with the
/// latency of one small copy: a table (the records), a matrix per method (GB/s, from a
/// row's GPU to a column's), the matrices of the links and of the latency, and a heat map.
fn every_pair<'t>(
    ctx: &ProbeContext,
    gpus: &[&Gpu],
    links: &[Option<Links>],
    buffers: &Buffers,
    timer_of: &dyn Fn(&Gpu) -> &'t Timer,
    bytes: usize,
    out: &mut ProbeOutput,
) -> Result<()> {
    let n = gpus.len();
    let pairs = ordered_pairs(n);
    let mut table = Table::new(
        format!("m1 interconnect: every ordered pair of the {n} GPUs, {} a transfer", size(bytes)),
        PAIR_COLUMNS,
    );
    // Per method, GB/s (and a copy's latency, µs) from row to column.
    let mut gbs = vec![vec![vec![None; n]; n]; PeerMethod::ALL.len()];
    let mut copy_latency = vec![vec![None; n]; n];
    let mut without_peer_access = Vec::new();
    for (m, method) in PeerMethod::ALL.into_iter().enumerate() {
        set_all_peer_access(gpus, method.peer_access())?;
        table.section(method.label());
        for &(a, b) in &pairs {
            crate::base::interrupt::check()?;
            let Some(path) = peer_path(gpus, links, buffers, (a, b), method)? else {
                if method == PeerMethod::PeerCopy {
                    without_peer_access.push(format!("{a} → {b}"));
                }
                continue;
            };
            crate::base::progress::begin(format!("m1: {}, {}", path.name, size(bytes)));
            let check = verified(&path, bytes, ctx.seed, &mut out.failures)?;
            let (timing, latency) = if check {
                let timing = path.time(timer_of(path.issuer), bytes, 1)?;
                let latency = method
                    .is_copy()
                    .then(|| path.time(timer_of(path.issuer), LATENCY_BYTES, LATENCY_BATCH))
                    .transpose()?;
                (Some(timing), latency)
            } else {
                (None, None) // a wrong path is reported, never timed
            };
            let rate = timing.as_ref().map_or(f64::NAN, |t| t.gigabytes_per_second(bytes as f64));
            let latency_us = latency.as_ref().map_or(f64::NAN, |t| t.median_ms * 1e3);
            gbs[m][a][b] = timing.is_some().then_some(rate);
            if method == PeerMethod::PeerCopy {
                copy_latency[a][b] = latency.is_some().then_some(latency_us);
            }
            table.push(vec![
                Cell::Int(a as i64),
                Cell::Int(b as i64),
                method.label().into(),
                Cell::Size(bytes as u64),
                timing.map_or(Cell::Num(f64::NAN, 1), Cell::Time),
                Cell::Figure(rate, 1, "GB/s"),
                Cell::OfLimit(path.link.as_ref().map_or(f64::NAN, |(_, limit)| 100.0 * rate / limit), 1),
                link_text(&path).into(),
                Cell::Num(latency_us, 1),
                Cell::Check(check),
            ]);
        }
    }
    set_all_peer_access(gpus, false)?;
    table.notes.push(format!(
        "each ordered pair (from → to) by each method at {} (verified at {AWKWARD_BYTES} bytes and at that \
         size first); 8-byte µs: one small copy's latency, {LATENCY_BATCH} back to back per repetition (a \
         kernel's would be its launch)",
        size(bytes)
    ));
    if !without_peer_access.is_empty() {
        table.notes.push(format!(
            "no peer access (cuDeviceCanAccessPeer) between {}: only the staged copy",
            without_peer_access.join(", ")
        ));
    }
    out.tables.push(table);

    if n > GPU_COLUMNS.len() {
        return Ok(()); // the table above has every figure; a matrix would not fit a screen
    }
    let columns: Vec<&'static str> =
        std::iter::once("from \\ to").chain(GPU_COLUMNS[..n].iter().copied()).collect();
    let matrix = |title: String, values: &[Vec<Option<f64>>], decimals: usize, note: &str| {
        let mut view = Table::new(title, &columns);
        for (a, row) in values.iter().enumerate() {
            let mut cells = vec![Cell::Text(format!("GPU {a}"))];
            cells.extend(row.iter().map(|v| Cell::Num(v.unwrap_or(f64::NAN), decimals)));
            view.push(cells);
        }
        view.notes.push(note.to_string());
        view
    };
    for (m, method) in PeerMethod::ALL.into_iter().enumerate() {
        out.views.push(matrix(
            format!(
                "m1 interconnect: GB/s from each GPU (row) to each (column), {}, {}",
                method.label(),
                size(bytes)
            ),
            &gbs[m],
            1,
            "the figures of the pair table above, arranged by pair",
        ));
    }
    out.views.push(matrix(
        format!("m1 interconnect: latency of one {LATENCY_BYTES}-byte copy (peer access on), µs"),
        &copy_latency,
        1,
        "the pair table's 8-byte µs of the copy with peer access on",
    ));
    let node_links: Vec<&Links> = links.iter().flatten().collect();
    let nvlink: Vec<Vec<Option<f64>>> = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| match (&links[a], &links[b]) {
                    (Some(la), Some(lb)) if a != b => la.nvlink_to(lb, &node_links).map(|(_, gbs)| gbs),
                    _ => None,
                })
                .collect()
        })
        .collect();
    out.views.push(matrix(
        "m1 interconnect: NVLink between each pair as NVML reports it, GB/s one way".into(),
        &nvlink,
        1,
        "the links that join the two GPUs × one link's rate (through NVSwitches: the fewer of the two GPUs' links)",
    ));
    out.heatmaps.push(Heatmap {
        name: "m1-pairs".into(),
        title: format!("GB/s between each pair of {n} × {}, {} a transfer", gpus[0].info.name, size(bytes)),
        row_axis: "from".into(),
        column_axis: "to".into(),
        labels: GPU_COLUMNS[..n].iter().map(|c| c.to_string()).collect(),
        unit: "GB/s".into(),
        panels: PeerMethod::ALL
            .into_iter()
            .zip(gbs)
            .map(|(method, values)| Panel { title: method.label().into(), values })
            .collect(),
        ..Heatmap::default()
    });
    Ok(())
}

/// The links of every GPU, as NVML reports them.
fn links_table(gpus: &[&Gpu], links: &[Option<Links>]) -> Table {
    let mut table = Table::new(
        "m1 interconnect: the links, as NVML reports them",
        &["GPU", "name", "NVLinks up", "NVLink version", "GB/s per link", "from", "PCIe link", "PCIe GB/s"],
    );
    for (rank, (gpu, links)) in gpus.iter().zip(links).enumerate() {
        let nvlink = links.as_ref().map(|l| &l.nvlink);
        let pcie = links.as_ref().and_then(|l| l.pcie);
        table.push(vec![
            Cell::Int(rank as i64),
            gpu.info.name.clone().into(),
            nvlink.map_or(Cell::Num(f64::NAN, 0), |n| Cell::Num(f64::from(n.active), 0)),
            nvlink
                .and_then(|n| n.version)
                .map_or("-".to_string(), crate::measure::links::nvlink_version_name)
                .into(),
            Cell::Num(nvlink.and_then(|n| n.gbs_per_link).unwrap_or(f64::NAN), 3),
            nvlink.map_or("-", |n| n.speed_source).into(),
            pcie.map_or("unknown".to_string(), |p| p.describe()).into(),
            Cell::Num(pcie.and_then(|p| p.gbs()).unwrap_or(f64::NAN), 1),
        ]);
    }
    table.notes.push(
        "GB/s per link and PCIe GB/s are one direction's rate: an NVLink's from NVML's common link speed, PCIe's \
         from its generation (transfer rate × line-code efficiency) and width. The link column below multiplies \
         the links that join two GPUs (or, through NVSwitches, the fewer of the two GPUs' links)."
            .into(),
    );
    if links.iter().any(Option::is_none) {
        table.notes.push("NVML not available for some GPUs: their link figures are unknown (-)".into());
    }
    table
}

/// Latency of one thread's dependent loads on `near`, from its own memory and from
/// `far`'s (peer access on), for a chain in an L2 and one past it.
fn chase_rows(
    ctx: &ProbeContext,
    [(near, near_timer), (far, far_timer)]: [(&Gpu, &Timer); 2],
    table: &mut Table,
    failures: &mut Vec<String>,
) -> Result<()> {
    let out = DeviceBuffer::alloc(near, 32, "the chase's results")?;
    for bytes in [CHASE_IN_L2, CHASE_PAST_L2] {
        for (owner, timer, label) in
            [(near, near_timer, "its own memory"), (far, far_timer, "the other GPU's memory")]
        {
            let (chain, nodes) = chain_on_device(owner, bytes, ctx.seed ^ bytes as u64)?;
            if bytes == CHASE_IN_L2 {
                let lap = chase(near, "pointer_chase_l2", &chain, nodes as u64, &out)?;
                if lap.last != 0 || lap.visited != super::latency::lap_sum(nodes) {
                    failures.push(format!(
                        "m1 chase of {} in {label}: one lap did not visit every node once",
                        size(bytes)
                    ));
                    continue;
                }
            } else {
                timer.flush_l2(owner)?;
                owner.sync("flushing the L2")?;
            }
            let timed = chase(near, "pointer_chase_l2", &chain, CHASE_STEPS, &out)?;
            let ns = timed.nanos as f64 / CHASE_STEPS as f64;
            table.push(vec![
                format!(
                    "GPU {} loads from {label}, {} chain (dependent ld.global.cg)",
                    near.info.ordinal,
                    size(bytes)
                )
                .into(),
                Cell::Num(ns / 1e3, 3),
            ]);
        }
    }
    Ok(())
}
