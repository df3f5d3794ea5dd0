// Shared pieces of the FP32 GEMM twins (twins/gemm/g01..g11): the tile constants of
// common/src/gemm/mod.rs (one namespace per step, as there) and the small device helpers that kernels/src/gemm/g06..g11 repeat
// in every file (load4, copy_b_piece, the guarded 16-byte store of C) and the wrappers of
// kernels/src/device/{load,async_copy}.rs.
//
// Instructions, as the Rust wrappers emit them:
//   __ldg(float4*)   -> ld.global.nc.v4.f32   (load_readonly_f32x4)
//   __ldcg(float4*)  -> ld.global.cg.v4.f32   (load_l2_f32x4)
//   *(float4*)p = v  -> st.global.v4.f32      (store_f32x4)
//   cp.async.{cg,ca}, commit_group, wait_all: inline PTX (no intrinsic without headers).
#pragma once

namespace gemm {

// Output tile side of the one-element-per-thread steps (g01-g03).
constexpr unsigned TILE = 32;

namespace g04 {
constexpr unsigned BM = 64, BN = 64, BK = 8, TM = 8;
constexpr unsigned THREADS = BM * BN / TM;
}  // namespace g04

namespace g05 {
constexpr unsigned BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr unsigned THREADS = BM * BN / (TM * TN);
}  // namespace g05

namespace g06 {
constexpr unsigned BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr unsigned THREADS = BM * BN / (TM * TN);
}  // namespace g06

// g07-g09: g06's tiles, A's transposed tile padded (g09 overrides BK locally, as the Rust
// does).
namespace g07 {
using g06::BK;
using g06::BM;
using g06::BN;
using g06::THREADS;
using g06::TM;
using g06::TN;
constexpr unsigned A_PAD = 4;  // floats after each k-row of the transposed A tile
}  // namespace g07

namespace g08 {
using namespace g07;
}  // namespace g08

namespace g09 {
using namespace g08;
}  // namespace g09

namespace g10 {
constexpr unsigned BM = 128, BN = 128, BK = 16, TM = 16, TN = 8;
constexpr unsigned THREADS = BM * BN / (TM * TN);
constexpr unsigned A_PAD = g07::A_PAD;
}  // namespace g10

namespace g11 {
using g10::A_PAD;
using g10::BK;
using g10::BM;
using g10::BN;
using g10::THREADS;
using g10::TM;
using g10::TN;
constexpr unsigned PARTIAL_FLOATS = BM * BN;
constexpr unsigned MAX_SLICES = 16;
}  // namespace g11

constexpr unsigned WARP_SIZE = 32;

}  // namespace gemm

namespace fp32 {

// ---- global memory --------------------------------------------------------------------

// Four consecutive elements of a row-major rows x cols matrix from (r, c): one 16-byte
// read-only load when the row is 16-byte aligned and all four are inside, else element by
// element with zeros outside.
static __device__ __forceinline__ float4 load4(const float* p, unsigned rows, unsigned cols, unsigned r,
                                               unsigned c) {
    if (r >= rows) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const size_t at = (size_t)r * cols + c;
    if (cols % 4 == 0 && c + 4 <= cols) return __ldg(reinterpret_cast<const float4*>(p + at));
    return make_float4(c + 0 < cols ? p[at + 0] : 0.0f, c + 1 < cols ? p[at + 1] : 0.0f,
                       c + 2 < cols ? p[at + 2] : 0.0f, c + 3 < cols ? p[at + 3] : 0.0f);
}

// Four outputs of row r from column cc: one 16-byte store when the row allows it, else
// the elements inside the row one by one.
static __device__ __forceinline__ void store_c4(float* c, unsigned n, unsigned r, unsigned cc, float4 v) {
    float* p = c + ((size_t)r * n + cc);
    if (n % 4 == 0 && cc + 4 <= n) {
        *reinterpret_cast<float4*>(p) = v;
    } else {
        if (cc + 0 < n) p[0] = v.x;
        if (cc + 1 < n) p[1] = v.y;
        if (cc + 2 < n) p[2] = v.z;
        if (cc + 3 < n) p[3] = v.w;
    }
}

// ---- cp.async (kernels/src/device/async_copy.rs) --------------------------------------

// cp.async.cg.shared.global [dst], [src], 16, src_bytes: copies src_bytes (0-16), zero-fills
// the rest of the 16.
static __device__ __forceinline__ void cp_async_16(float* dst, const float* src, unsigned src_bytes) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(__cvta_generic_to_global(src)),
                 "r"(src_bytes)
                 : "memory");
}

// cp.async.ca.shared.global [dst], [src], 4, src_bytes: one element (0 or 4 bytes copied).
static __device__ __forceinline__ void cp_async_4(float* dst, const float* src, unsigned src_bytes) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(__cvta_generic_to_global(src)),
                 "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

static __device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Starts the copy of B's elements (r, c..c+3) of the k x n matrix b to dst (4 floats of a
// shared tile): one 16-byte copy when rows are 16-byte aligned (zero-filled past the row's
// end or below the last row), four 4-byte copies otherwise. B's start is the (unread)
// source of an empty copy.
static __device__ __forceinline__ void copy_b_piece(float* dst, const float* b, unsigned k, unsigned n, unsigned r,
                                                    unsigned c) {
    if (n % 4 == 0) {
        const unsigned bytes = (r < k && c < n) ? (n - c < 4u ? n - c : 4u) * 4 : 0;
        cp_async_16(dst, bytes > 0 ? b + ((size_t)r * n + c) : b, bytes);
    } else {
#pragma unroll
        for (unsigned e = 0; e < 4; ++e) {
            const bool inside = r < k && c + e < n;
            cp_async_4(dst + e, inside ? b + ((size_t)r * n + (c + e)) : b, inside ? 4u : 0u);
        }
    }
}

}  // namespace fp32
