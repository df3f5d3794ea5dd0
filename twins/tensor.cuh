// Twin of kernels/src/device/{mma,async_copy}.rs: thin inline-PTX wrappers for the
// sm_80+ tensor-core instructions that CUDA C++ (without headers) has no intrinsic for.
// Each wrapper emits exactly the instruction its Rust counterpart emits. An asm without a
// "memory" clobber is one the Rust marks `nomem` (mma); all others clobber memory.
//
// mma.m16n8k16 fragment layout (g = lane / 4, t = lane % 4), as in mma.rs:
//   A (row-major, 2 x 16-bit per register): a[0] = row g, cols 2t..2t+1; a[1] = row g+8;
//        a[2] = row g, cols 2t+8..2t+9; a[3] = row g+8, cols 2t+8..2t+9
//   B ("col"): b[0] = k rows 2t..2t+1 of column g; b[1] = k rows 2t+8..2t+9
//   C/D (f32): c[0], c[1] = row g, cols 2t, 2t+1; c[2], c[3] = row g+8, same cols
#pragma once

// The 32-bit shared-window address of a shared-memory object (what `ldmatrix` and
// `cp.async` take); the Rust gets it from `mov.u32 %r, SYMBOL;`.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: acc = A·B + acc for the
// warp's fragments; f16 inputs, or bf16 when BF16. Every lane of the warp must call it.
template <bool BF16>
__device__ __forceinline__ void mma_m16n8k16(float (&acc)[4], const unsigned (&a)[4], unsigned b0,
                                             unsigned b1) {
    if constexpr (BF16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

// ldmatrix.sync.aligned.m8n8.x4.shared.b16: four 8 x 8 matrices of 16-bit values into
// fragment registers; lane l gives the address of row l % 8 of matrix l / 8 (16 bytes,
// 16-byte aligned). Matrices (rows 0-7, k 0-7), (8-15, k 0-7), (0-7, k 8-15), (8-15, k 8-15)
// make an mma A fragment.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: as ldmatrix_x4, each matrix transposed.
// From a row-major B[k][n] tile, matrices (k 0-7, n), (k 8-15, n), (k 0-7, n+8),
// (k 8-15, n+8) are the B fragments (b[0], b[1]) of two adjacent n8 tiles.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// cp.async.cg.shared.global [dst], [src], 16, src_bytes: copies src_bytes (0-16) bytes,
// zero-fills the rest of the 16; .cg = through L2 only. dst and src 16-byte aligned; src
// may be any valid address when src_bytes is 0.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, unsigned src_bytes) {
    asm volatile(
        "{ .reg .b64 g; cvta.to.global.u64 g, %1; cp.async.cg.shared.global [%0], [g], 16, %2; }"
        :
        : "r"(dst), "l"(src), "r"(src_bytes)
        : "memory");
}

// cp.async.cg.shared.global [dst], [src], 16: 16 bytes, all read (cp_async_16 with src_bytes
// 16, for copies known to lie inside their source: no operand to select).
__device__ __forceinline__ void cp_async_16_whole(unsigned dst, const void* src) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %1; cp.async.cg.shared.global [%0], [g], 16; }"
                 :
                 : "r"(dst), "l"(src)
                 : "memory");
}

// cp.async.ca.shared.global [dst], [src], 4, src_bytes: one 4-byte element (0 or 4 bytes
// copied, zeros otherwise), for rows that are not 16-byte aligned.
__device__ __forceinline__ void cp_async_4(unsigned dst, const float* src, unsigned src_bytes) {
    asm volatile(
        "{ .reg .b64 g; cvta.to.global.u64 g, %1; cp.async.ca.shared.global [%0], [g], 4, %2; }"
        :
        : "r"(dst), "l"(src), "r"(src_bytes)
        : "memory");
}

// cp.async.commit_group: closes the group of this thread's copies issued so far.
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// cp.async.wait_group N: waits until at most N of this thread's newest groups are in flight.
template <unsigned N>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// cp.async.wait_all: waits until all of this thread's copies have landed.
__device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}
