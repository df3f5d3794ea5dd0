//! Hopper's tensor memory accelerator (TMA: `cp.async.bulk.tensor`) and the shared-memory
//! barriers (`mbarrier`) whose transaction counts tell a waiting thread that its copy landed.
//!
//! A TMA copy moves a whole box of a 2-D tensor (here up to 64 × 256 16-bit values) from
//! global to shared memory on one thread's single instruction: the copy engine generates
//! the addresses, applies the 128-byte swizzle, and fills with zeros whatever lies outside
//! the tensor. The tensor's shape, strides, box and swizzle are in a 128-byte *tensor map*
//! the host encodes (`cuTensorMapEncodeTiled`) and the kernel receives by address.
//!
//! An `mbarrier` is a 64-bit object in shared memory with an expected arrival count and a
//! *phase* bit that flips each time the phase completes: when all expected threads have
//! arrived and all expected bytes (`expect_tx`) have been written by the copies that name
//! it. A thread waits for a phase by its parity (0 for the first phase, 1 for the next, …).
//!
//! sm_90 instructions of PTX ISA 8.0: in this project they live in the sm_90a build only
//! (`cfg(target_feature = "sm_90a")`), beside `wgmma`.

use core::arch::asm;

/// `mbarrier.init.shared::cta.b64 [bar], count;`: a barrier expecting `count` arrivals per
/// phase, in phase 0.
///
/// # Safety
/// `bar` is an 8-byte aligned shared address no other thread uses before a block barrier
/// that follows the initialization (and [`fence_barrier_init`]).
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.init.shared::cta.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count, options(nostack))
    }
}

/// `fence.mbarrier_init.release.cluster;`: makes this thread's `mbarrier_init`s visible to
/// the copy engine (and the other threads, with the block barrier that follows).
#[inline(always)]
pub fn fence_barrier_init() {
    // SAFETY: no operands.
    unsafe { asm!("fence.mbarrier_init.release.cluster;", options(nostack)) }
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;`: arrives on `bar` and tells
/// it to wait, in this phase, for `bytes` more bytes of copies that complete on it.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{b}], {n};", b = in(reg32) bar, n = in(reg32) bytes,
             options(nostack))
    }
}

/// `mbarrier.arrive.shared::cta.b64 _, [bar];`: one arrival on `bar`.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) {
    // SAFETY: the caller's contract.
    unsafe { asm!("mbarrier.arrive.shared::cta.b64 _, [{b}];", b = in(reg32) bar, options(nostack)) }
}

/// `@p mbarrier.arrive.shared::cta.b64 _, [bar];`: one arrival on `bar` when `arrive`, as a
/// predicated instruction rather than a branch around it (see a07's consumer for why that can
/// matter).
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive_if(bar: u32, arrive: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {a}, 0; @p mbarrier.arrive.shared::cta.b64 _, [{b}]; }}",
            b = in(reg32) bar, a = in(reg32) u32::from(arrive), options(nostack)
        )
    }
}

/// `mbarrier.try_wait.parity.shared::cta.b64`: whether the phase of parity `parity` of
/// `bar` has completed. The hardware lets the thread sleep a while before it answers "not
/// yet", so a loop on it does not hammer the barrier.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_try_wait(bar: u32, parity: u32) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {q}; selp.u32 {d}, 1, 0, p; }}",
            b = in(reg32) bar, q = in(reg32) parity, d = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// `mbarrier.test_wait.parity.shared::cta.b64`: whether the phase of parity `parity` of
/// `bar` has completed, answered at once (where `try_wait` may let the thread sleep first):
/// a probe to issue while other work runs.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_test_wait(bar: u32, parity: u32) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [{b}], {q}; selp.u32 {d}, 1, 0, p; }}",
            b = in(reg32) bar, q = in(reg32) parity, d = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// Waits until the phase of parity `parity` of `bar` has completed.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_wait(bar: u32, parity: u32) {
    // SAFETY: the caller's contract.
    while !unsafe { mbarrier_try_wait(bar, parity) } {}
}

/// `mbarrier.arrive.shared::cluster.b64 _, [bar];`: one arrival on the barrier at
/// cluster-window address `bar` (from [`super::cluster::map_shared_to_rank`]), which may
/// be another block's.
///
/// The default semantics (release at CTA scope) are enough for what the GEMM steps order
/// with it, the end of this block's `wgmma` reads of a stage (a `wait_group` before the
/// arrival) before the partner's next TMA write into it; both are async-proxy operations
/// that the arrival and the partner's wait on the barrier order (CUTLASS arrives the same
/// way). Asking for `.release.cluster` instead compiles to `MEMBAR.ALL.GPU` before every
/// arrival, a wait for all of the thread's outstanding global stores, and `.acquire.cluster`
/// on the producer's wait adds an L1 invalidation (`CCTL.IVALL`) after it: with both, w04
/// ran at half w03's speed (H100, 2026-11-22).
///
/// # Safety
/// `bar` is the cluster-window address of an initialized barrier of a block of this
/// cluster that has not exited.
#[inline(always)]
pub unsafe fn mbarrier_arrive_remote(bar: u32) {
    // SAFETY: the caller's contract.
    unsafe { asm!("mbarrier.arrive.shared::cluster.b64 _, [{b}];", b = in(reg32) bar, options(nostack)) }
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`: copies the
/// box at coordinates (`x`, `y`) (`x` the contiguous dimension) of the tensor that `map`
/// describes to shared address `dst`; the copy completes its bytes on `bar`.
///
/// # Safety
/// `map` is the global address of a valid tensor map (64-byte aligned) whose box fits at
/// `dst` (aligned as its swizzle requires: 1024 bytes for 128-byte swizzle); `bar` is an
/// initialized barrier expecting these bytes.
#[inline(always)]
pub unsafe fn copy_tensor_2d(dst: u32, map: *const u8, x: u32, y: u32, bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, b = in(reg32) bar,
            options(nostack)
        )
    }
}

/// `cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [dst],
/// [map, {x, y, z, w}], [bar];`: the box of a 4-dimensional tensor map at coordinates
/// (`x` innermost … `w`), as [`copy_tensor_2d`] (attention's tiles: column, row, head,
/// batch).
///
/// # Safety
/// As [`copy_tensor_2d`].
#[inline(always)]
pub unsafe fn copy_tensor_4d(dst: u32, map: *const u8, [x, y, z, w]: [u32; 4], bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}, {z}, {w}}}], [{b}];",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, z = in(reg32) z, w = in(reg32) w,
            b = in(reg32) bar,
            options(nostack)
        )
    }
}

/// [`copy_tensor_2d`] into every block of the cluster named in `cta_mask` (bit r: the block
/// of rank r), `.multicast::cluster`: the box is read from global memory once and written
/// at the same shared offset `dst` in each of those blocks, and each one's barrier at the
/// offset of `bar` counts the bytes. Two blocks that need the same tile each fetch half
/// of it and multicast their half to both.
///
/// # Safety
/// As [`copy_tensor_2d`], in every block of the mask: `dst` is free there (its consumers
/// have released it) and `bar` is initialized there and expects these bytes.
#[inline(always)]
pub unsafe fn copy_tensor_2d_multicast(dst: u32, map: *const u8, x: u32, y: u32, bar: u32, cta_mask: u16) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{x}, {y}}}], [{b}], {k};",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, b = in(reg32) bar,
            k = in(reg16) cta_mask, options(nostack)
        )
    }
}

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes, [bar];`:
/// the copy engine copies `bytes` contiguous bytes from global address `src` to shared
/// address `dst`, no tensor map and no swizzle; the copy completes its bytes on `bar`.
///
/// # Safety
/// `src` and `dst` are 16-byte aligned and `bytes` a multiple of 16; `src..src + bytes` is
/// readable global memory whose ordinary writes by other threads were made visible to the
/// async proxy ([`fence_proxy_async_global`] after acquiring them); `dst..dst + bytes` is
/// this block's free shared memory; `bar` is an initialized barrier expecting these bytes.
#[inline(always)]
pub unsafe fn copy_bulk(dst: u32, src: *const u8, bytes: u32, bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [g], {n}, [{b}]; }}",
            d = in(reg32) dst, s = in(reg64) src, n = in(reg32) bytes, b = in(reg32) bar, options(nostack)
        )
    }
}

/// `cp.async.bulk.prefetch.L2.global [src], bytes;`: asks the copy engine to bring `bytes`
/// contiguous bytes from global address `src` into L2, in one instruction; nothing completes
/// on a barrier and nothing waits for it.
///
/// # Safety
/// `src` is 16-byte aligned, `bytes` a multiple of 16, and `src..src + bytes` global memory
/// of this launch (a prefetch changes no memory).
#[inline(always)]
pub unsafe fn prefetch_bulk_l2(src: *const u8, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.bulk.prefetch.L2.global [g], {n}; }}",
            s = in(reg64) src, n = in(reg32) bytes, options(nostack)
        )
    }
}

/// `fence.proxy.async.global;`: orders this thread's view of global memory through the
/// ordinary (generic) proxy with the async proxy of its later bulk copies, so that a copy
/// issued after acquiring another thread's writes (a flag read with `ld.acquire`) reads
/// those writes.
#[inline(always)]
pub fn fence_proxy_async_global() {
    // SAFETY: no operands.
    unsafe { asm!("fence.proxy.async.global;", options(nostack)) }
}

/// `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [map, {x, y}], [src];`: the copy
/// engine stores the box at shared address `src` to coordinates (`x`, `y`) of the tensor
/// that `map` describes, writing nothing that falls outside the tensor. Asynchronous: the
/// copy joins the thread's current *bulk group*, closed by [`bulk_commit_group`] and
/// awaited by [`bulk_wait_group_read`] / [`bulk_wait_group`].
///
/// # Safety
/// `map` is the global address of a valid tensor map whose box (with its swizzle) is laid
/// out at `src` (1024-byte aligned for the 128-byte swizzle); the writes that filled `src`
/// were made visible to the async proxy (`fence.proxy.async.shared::cta` in each writing
/// thread, then a barrier); nothing writes `src` until a wait says the copy has read it.
#[inline(always)]
pub unsafe fn store_tensor_2d(map: *const u8, x: u32, y: u32, src: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{m}, {{{x}, {y}}}], [{s}];",
            m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, s = in(reg32) src, options(nostack)
        )
    }
}

/// [`store_tensor_2d`] for a 4-dimensional tensor map (attention's O: column, row, head,
/// batch), when `issue`, as a predicated instruction rather than a branch around it, as
/// [`mbarrier_arrive_if`]: `@p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
/// [map, {x, y, z, w}], [src];`.
///
/// # Safety
/// As [`store_tensor_2d`] where `issue` holds.
#[inline(always)]
pub unsafe fn store_tensor_4d_if(issue: bool, map: *const u8, [x, y, z, w]: [u32; 4], src: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {i}, 0; @p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [{m}, {{{x}, {y}, {z}, {w}}}], [{s}]; }}",
            i = in(reg32) u32::from(issue), m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, z = in(reg32) z,
            w = in(reg32) w, s = in(reg32) src, options(nostack)
        )
    }
}

/// [`bulk_commit_group`] when `commit`, predicated.
#[inline(always)]
pub fn bulk_commit_group_if(commit: bool) {
    // SAFETY: no memory operands.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {c}, 0; @p cp.async.bulk.commit_group; }}",
            c = in(reg32) u32::from(commit), options(nostack)
        )
    }
}

/// [`bulk_wait_group_read`] when `wait`, predicated.
#[inline(always)]
pub fn bulk_wait_group_read_if<const N: u32>(wait: bool) {
    // SAFETY: no memory operands; N is an immediate. Not `nomem`, as `bulk_wait_group_read`.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {c}, 0; @p cp.async.bulk.wait_group.read {n}; }}",
            c = in(reg32) u32::from(wait), n = const N, options(nostack)
        )
    }
}

/// `cp.async.bulk.commit_group;`: closes this thread's bulk group (its [`store_tensor_2d`]s
/// since the last commit).
#[inline(always)]
pub fn bulk_commit_group() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.bulk.commit_group;", options(nostack)) }
}

/// `cp.async.bulk.wait_group.read N;`: waits until at most `N` of this thread's committed
/// bulk groups are still *reading* their shared-memory sources, so that the others' sources
/// may be written again (their global writes may still be in flight).
#[inline(always)]
pub fn bulk_wait_group_read<const N: u32>() {
    // SAFETY: no memory operands; N is an immediate. Not `nomem`: it orders later shared
    // writes after the copy engine's reads.
    unsafe { asm!("cp.async.bulk.wait_group.read {n};", n = const N, options(nostack)) }
}

/// `cp.async.bulk.wait_group N;`: waits until at most `N` of this thread's committed bulk
/// groups are unfinished, their global writes included.
#[inline(always)]
pub fn bulk_wait_group<const N: u32>() {
    // SAFETY: no memory operands; N is an immediate.
    unsafe { asm!("cp.async.bulk.wait_group {n};", n = const N, options(nostack)) }
}

/// `prefetch.tensormap [map];`: fetches the tensor map at global address `map` into the
/// cache the copy engine reads descriptors from, so that the first copy that names it does
/// not wait for it (after an L2 flush, a round trip to DRAM).
///
/// # Safety
/// `map` is the global address of a tensor map.
#[inline(always)]
pub unsafe fn prefetch_tensor_map(map: *const u8) {
    // SAFETY: the caller's contract; a prefetch changes no memory.
    unsafe { asm!("prefetch.tensormap [{m}];", m = in(reg64) map, options(nostack)) }
}
