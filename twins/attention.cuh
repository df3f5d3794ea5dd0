// Pieces shared by the attention twins (twins/attention/*.cu), under the names of their Rust
// originals: the problem the kernels read (common/src/attention.rs) and the 16-bit types
// (kernels/src/attention/mod.rs, kernels/src/device/convert.rs). Tensors travel as their
// 16 bits (`unsigned short`), as in the Rust.
// No system headers (NVRTC compiles this without a toolkit include path): the conversions
// are the Rust's cvt instructions, written out; the tensor-core instructions come from
// tensor.cuh.
#pragma once

#include "tensor.cuh"

typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned short u16;

// ---- common/src/attention.rs ---------------------------------------------------------------

// `Strides`: element (b, h, s, d) of a tensor lies b·batch + h·head + s·row + d from its start.
struct Strides {
    u64 batch, head, row;
    __device__ __forceinline__ u64 row_offset(u32 b, u32 h, u32 s) const {
        return (u64)b * batch + (u64)h * head + (u64)s * row;
    }
};

// `Dims`: one forward pass's shape, mask and strides, as the host writes it.
struct Dims {
    u32 batch, heads_q, group, seq_q, seq_k, head_dim, causal;
    float scale;
    Strides q, k, v, o;
    // The keys query row `row` sees: 0..visible_keys(row) (the causal mask at the bottom right).
    __device__ __forceinline__ u32 visible_keys(u32 row) const {
        if (causal == 0) return seq_k;
        const u64 end = (u64)row + 1 + seq_k;
        if (end <= seq_q) return 0;
        const u64 keys = end - seq_q;
        return keys < seq_k ? (u32)keys : seq_k;
    }
};

namespace a01 {
constexpr u32 SOFTMAX_THREADS = 256;
constexpr u32 TILE_X = 32;
constexpr u32 TILE_Y = 8;
}  // namespace a01

namespace a02 {
constexpr u32 BLOCK_Q = 8;                  // query rows per block: one per warp
constexpr u32 BLOCK_K = 32;                 // keys per tile: one per lane
constexpr u32 THREADS = BLOCK_Q * 32;       // a warp per query row
constexpr u32 MAX_HEAD_DIM = 256;           // sizes the shared tiles and a lane's accumulators
}  // namespace a02

// common::attention::a03: FlashAttention-2 on mma.sync; the geometry follows the head dim.
namespace a03 {
constexpr u32 WARPS = 4;
constexpr u32 THREADS = WARPS * 32;
// Query rows per warp (16 per mma row tile): 32 at head dims 64 and 128, 16 at 256.
__host__ __device__ constexpr u32 warp_rows(u32 head_dim) { return head_dim <= 128 ? 32 : 16; }
__host__ __device__ constexpr u32 block_q(u32 head_dim) { return WARPS * warp_rows(head_dim); }
// Keys per tile: 64 at head dims 64 and 128, 32 at 256.
__host__ __device__ constexpr u32 block_k(u32 head_dim) { return head_dim <= 128 ? 64 : 32; }
// Q's mma fragments kept in registers for the whole key loop where Q, S and O take at most 160
// of a lane's registers, else read again per key tile.
__host__ __device__ constexpr bool q_in_registers(u32 head_dim) {
    return warp_rows(head_dim) * head_dim / 64 + warp_rows(head_dim) * block_k(head_dim) / 32 +
               warp_rows(head_dim) * head_dim / 32 <=
           160;
}
constexpr u32 STAGES = 2;                   // K and V tiles in shared memory at once
// Dynamic shared memory: Q's tile, then STAGES stages of a K tile and a V tile.
__host__ __device__ constexpr u32 shared_bytes(u32 head_dim) {
    return (block_q(head_dim) + STAGES * 2 * block_k(head_dim)) * head_dim * 2;
}
}  // namespace a03

// ---- kernels/src/device/convert.rs: exponentials and packed conversions --------------------

// ex2.approx.ftz.f32: 2^x (2^−∞ = 0).
__device__ __forceinline__ float exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
// lg2.approx.ftz.f32: log2 x.
__device__ __forceinline__ float log2_approx(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
// cvt.rn.f16x2.f32 d, hi, lo: two values rounded and packed, lo in bits 0-15 (the
// instruction puts its first source in the upper half).
__device__ __forceinline__ u32 pack_f16x2(float lo, float hi) {
    u32 d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}
// cvt.rn.bf16x2.f32 d, hi, lo: the same to bfloat16.
__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
    u32 d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

// ---- kernels/src/attention/mod.rs: the 16-bit types ----------------------------------------

struct F16 {
    static __device__ __forceinline__ float to_f32(u16 bits) {
        float x;
        asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(bits));
        return x;
    }
    static __device__ __forceinline__ u16 from_f32(float x) {
        u16 bits;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(x));
        return bits;
    }
    static __device__ __forceinline__ u32 pack_x2(float lo, float hi) { return pack_f16x2(lo, hi); }
    // acc = A·B + acc on f16 fragments (tensor.cuh).
    static __device__ __forceinline__ void mma(float (&acc)[4], const u32 (&a)[4], u32 b0, u32 b1) {
        mma_m16n8k16<false>(acc, a, b0, b1);
    }
};
struct Bf16 {
    static __device__ __forceinline__ float to_f32(u16 bits) { return __uint_as_float((u32)bits << 16); }
    static __device__ __forceinline__ u16 from_f32(float x) {
        u16 bits;
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(x));
        return bits;
    }
    static __device__ __forceinline__ u32 pack_x2(float lo, float hi) { return pack_bf16x2(lo, hi); }
    static __device__ __forceinline__ void mma(float (&acc)[4], const u32 (&a)[4], u32 b0, u32 b1) {
        mma_m16n8k16<true>(acc, a, b0, b1);
    }
};

// ---- common/src/attention.rs: a04 ----------------------------------------------------------

// common::attention::a04: Hopper's wgmma for both products.
namespace a04 {
constexpr u32 WARPGROUPS = 2;             // consumer warpgroups per block, 64 query rows each
constexpr u32 THREADS = WARPGROUPS * 128;
constexpr u32 BLOCK_Q = WARPGROUPS * 64;  // query rows per block
constexpr u32 BLOCK_K = 128;              // keys per tile: the N of the scores' wgmma (m64n128k16)
constexpr u32 STAGES = 2;                 // K and V tiles in shared memory at once
// The 128-byte swizzle's atoms start on 1024-byte boundaries: the launch gives this much more
// than the tiles need, and the kernel rounds its base up.
constexpr u32 ALIGN_SLACK = 1024;
// Dynamic shared memory: Q's tile, then STAGES stages of a K and a V tile, and the slack.
__host__ __device__ constexpr u32 shared_bytes(u32 head_dim) {
    return (BLOCK_Q + STAGES * 2 * BLOCK_K) * head_dim * 2 + ALIGN_SLACK;
}
}  // namespace a04

// ---- kernels/src/attention/fragments.rs: the online softmax on accumulator fragments --------

// A warp's 16 rows of an f32 accumulator, mma.sync m16n8's or wgmma's (whose warp w holds rows
// 16w … 16w + 15 in the same layout), as N8 n8 tiles of 4 floats per lane: with g = lane / 4,
// t = lane % 4, tile n holds row g, columns 8n + 2t and 8n + 2t + 1 in [0], [1], the same
// columns of row g + 8 in [2], [3]. A row's values are spread over the 4 lanes of a quad.
// Every loop here is unrolled and every index a constant, so that the caller's arrays stay in
// registers.
namespace fragments {
constexpr float LN_2 = 0.6931471805599453f;

// The column of element e of n8 tile n for the lane with t = lane % 4.
__host__ __device__ constexpr u32 column(u32 n, u32 e, u32 t) { return 8 * n + 2 * t + e % 2; }

// The running state of a lane's two rows: m, the largest score seen (unscaled; −∞ until a
// visible key), and l, this lane's part of the row's Σ 2^((s − m)·scale·log2 e).
struct RowStats {
    float m[2], l[2];
    // RowStats::EMPTY.
    static __device__ __forceinline__ RowStats empty() {
        const float NEG_INF = -__int_as_float(0x7f800000);
        return RowStats{{NEG_INF, NEG_INF}, {0.0f, 0.0f}};
    }
};

// −∞ for the keys a row does not see: element e of tile n is key k0 + column(n, e, t) of row g
// (e < 2) or g + 8, hidden at or past that row's visible count. A select, not a branch.
template <u32 N8>
__device__ __forceinline__ void mask(float (&s)[N8][4], u32 k0, const u32 (&visible)[2], u32 t) {
    const float NEG_INF = -__int_as_float(0x7f800000);
#pragma unroll
    for (u32 n = 0; n < N8; ++n)
#pragma unroll
        for (u32 e = 0; e < 4; ++e) {
            const bool hidden = k0 + column(n, e, t) >= visible[e / 2];
            s[n][e] = hidden ? NEG_INF : s[n][e];
        }
}

// `chains` joined pairwise by `join`, a tree: ((c0 ∘ c1) ∘ (c2 ∘ c3)) for four, c0 for one.
template <u32 CHAINS, class Join>
__device__ __forceinline__ float tree(float (&chains)[CHAINS], Join join) {
    static_assert((CHAINS & (CHAINS - 1)) == 0, "a power of two of chains");
#pragma unroll
    for (u32 width = CHAINS / 2; width > 0; width /= 2)
#pragma unroll
        for (u32 i = 0; i < width; ++i) chains[i] = join(chains[2 * i], chains[2 * i + 1]);
    return chains[0];
}

// One key tile's online-softmax step, in place: each row's new maximum over its quad (two xor
// shuffles), p = 2^((s − m_new)·scale·log2 e) over the scores (one fma, one ex2 each),
// l ← l·alpha + Σp; alpha = 2^((m_old − m_new)·scale·log2 e) per row. A row with m still −∞
// takes 0 as its reference (no −∞ − (−∞)): p = 0, alpha = 0. A lane's part of a row's maximum
// and sum is taken in CHAINS independent chains (n8 tile n into chain n % CHAINS), joined as a
// tree; a04–a08 use one. Every lane of the warp calls it.
template <u32 N8, u32 CHAINS = 1>
__device__ __forceinline__ void softmax_step(float (&s)[N8][4], RowStats& stats, float scale_log2,
                                             float (&alpha)[2]) {
    const float NEG_INF = -__int_as_float(0x7f800000);
#pragma unroll
    for (u32 half = 0; half < 2; ++half) {
        // Chain 0 starts from the running maximum, the others from −∞.
        float maxes[CHAINS];
#pragma unroll
        for (u32 c = 0; c < CHAINS; ++c) maxes[c] = c == 0 ? stats.m[half] : NEG_INF;
#pragma unroll
        for (u32 n = 0; n < N8; ++n)
            maxes[n % CHAINS] = fmaxf(fmaxf(maxes[n % CHAINS], s[n][2 * half]), s[n][2 * half + 1]);
        float row_max = tree(maxes, [](float a, float b) { return fmaxf(a, b); });
        row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, 1));
        row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, 2));
        const float reference = row_max == NEG_INF ? 0.0f : row_max;
        const float offset = -reference * scale_log2;
        alpha[half] = exp2_approx(__fmaf_rn(stats.m[half], scale_log2, offset));
        stats.m[half] = row_max;
        float sums[CHAINS];
#pragma unroll
        for (u32 c = 0; c < CHAINS; ++c) sums[c] = 0.0f;
#pragma unroll
        for (u32 n = 0; n < N8; ++n)
#pragma unroll
            for (u32 e = 2 * half; e < 2 * half + 2; ++e) {
                s[n][e] = exp2_approx(__fmaf_rn(s[n][e], scale_log2, offset));
                sums[n % CHAINS] += s[n][e];
            }
        const float sum = tree(sums, [](float a, float b) { return a + b; });
        stats.l[half] = __fmaf_rn(stats.l[half], alpha[half], sum);
    }
}

// O ← O·alpha, row by row.
template <u32 N8>
__device__ __forceinline__ void rescale(float (&o)[N8][4], const float (&alpha)[2]) {
#pragma unroll
    for (u32 n = 0; n < N8; ++n) {
        o[n][0] *= alpha[0];
        o[n][1] *= alpha[0];
        o[n][2] *= alpha[1];
        o[n][3] *= alpha[1];
    }
}

// The A fragment of k16 slice kk of P, rounded to T: n8 tiles 2kk and 2kk + 1 of the
// probabilities are what an m16 × k16 A fragment asks of this lane, pair by pair.
template <class T, u32 N8>
__device__ __forceinline__ void p_fragment(u32 (&a)[4], const float (&p)[N8][4], u32 kk) {
    const float *lo = p[2 * kk], *hi = p[2 * kk + 1];
    a[0] = T::pack_x2(lo[0], lo[1]);
    a[1] = T::pack_x2(lo[2], lo[3]);
    a[2] = T::pack_x2(hi[0], hi[1]);
    a[3] = T::pack_x2(hi[2], hi[3]);
}

// Each row's whole sum l, over its quad (every lane of the warp calls it).
__device__ __forceinline__ void row_sums(float (&sums)[2], const RowStats& stats) {
#pragma unroll
    for (u32 half = 0; half < 2; ++half) {
        float l = stats.l[half];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        sums[half] = l + __shfl_xor_sync(0xffffffffu, l, 2);
    }
}

// The natural log-sum-exp of a row: m·scale + ln l, or −∞ for a row that saw no key (l = 0).
__device__ __forceinline__ float log_sum_exp(float m, float l, float scale) {
    return l > 0.0f ? m * scale + log2_approx(l) * LN_2 : -__int_as_float(0x7f800000);
}
}  // namespace fragments

// ---- common/src/attention.rs: a05 to a07 --------------------------------------------------

// common::attention::a05: a04's math, the tiles by TMA from a producer warpgroup.
namespace a05 {
constexpr u32 CONSUMER_WARPGROUPS = 2;  // consumer warpgroups, 64 query rows each; a producer's after
constexpr u32 THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
constexpr u32 BLOCK_Q = CONSUMER_WARPGROUPS * 64;  // query rows per block
constexpr u32 BLOCK_K = 128;                       // keys per tile
constexpr u32 STAGES = 2;                          // K and V tiles in shared memory at once
// Registers per thread after setmaxnreg: the producer gives back what its one copying thread
// does not need, the consumers take it (40·128 + 232·256 ≤ 65536).
constexpr u32 PRODUCER_REGISTERS = 40;
constexpr u32 CONSUMER_REGISTERS = 232;
// The 128-byte swizzle's atoms (and TMA's boxes) start on 1024-byte boundaries.
constexpr u32 ALIGN_SLACK = 1024;
// Dynamic shared memory: Q's tile, then STAGES stages of a K and a V tile, and the slack.
__host__ __device__ constexpr u32 shared_bytes(u32 head_dim) {
    return (BLOCK_Q + STAGES * 2 * BLOCK_K) * head_dim * 2 + ALIGN_SLACK;
}
}  // namespace a05

// common::attention::a06: a05's shape (its consumers take turns).
namespace a06 {
using a05::ALIGN_SLACK;
using a05::BLOCK_K;
using a05::BLOCK_Q;
using a05::CONSUMER_REGISTERS;
using a05::CONSUMER_WARPGROUPS;
using a05::PRODUCER_REGISTERS;
using a05::shared_bytes;
using a05::STAGES;
using a05::THREADS;
}  // namespace a06

// common::attention::a07: a06's shape (one block per SM draws the work tiles from a counter).
namespace a07 {
using a06::ALIGN_SLACK;
using a06::BLOCK_K;
using a06::BLOCK_Q;
using a06::CONSUMER_REGISTERS;
using a06::CONSUMER_WARPGROUPS;
using a06::PRODUCER_REGISTERS;
using a06::shared_bytes;
using a06::STAGES;
using a06::THREADS;
// The K and V bytes of the heads whose tiles are drawn together (a section): a third of an H100's
// 50 MB L2.
constexpr u64 SECTION_BYTES = 16ull << 20;
// The u32 words of the tile counter the kernel takes.
constexpr u32 COUNTER_WORDS = 2;
}  // namespace a07

// common::attention::a08: a07's shape, and a staging box of O per consumer warpgroup after the
// stages.
namespace a08 {
using a07::ALIGN_SLACK;
using a07::BLOCK_K;
using a07::BLOCK_Q;
using a07::CONSUMER_REGISTERS;
using a07::CONSUMER_WARPGROUPS;
using a07::COUNTER_WORDS;
using a07::PRODUCER_REGISTERS;
using a07::SECTION_BYTES;
using a07::STAGES;
using a07::THREADS;
// Rows of O one consumer warpgroup stages and stores: the rows of a TMA box of O's tensor map.
constexpr u32 O_BOX_ROWS = BLOCK_Q / CONSUMER_WARPGROUPS;
// Dynamic shared memory per block: a07's, then O's staging (BLOCK_Q rows of the head dim).
__host__ __device__ constexpr u32 shared_bytes(u32 head_dim) {
    return a07::shared_bytes(head_dim) + BLOCK_Q * head_dim * 2;
}
}  // namespace a08
