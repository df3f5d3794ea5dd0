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

// common::attention::a03: FlashAttention-2 on mma.sync.
namespace a03 {
constexpr u32 WARP_ROWS = 32;  // query rows per warp (16 per mma row tile)
constexpr u32 WARPS = 4;
constexpr u32 THREADS = WARPS * 32;
constexpr u32 BLOCK_Q = WARPS * WARP_ROWS;  // query rows per block
// Keys per tile: 128 at head dim 64, 64 at 128.
__host__ __device__ constexpr u32 block_k(u32 head_dim) { return head_dim <= 64 ? 128 : 64; }
// Q's mma fragments kept in registers for the whole key loop where Q, S and O take at most 160
// of a lane's registers, else read again per key tile.
__host__ __device__ constexpr bool q_in_registers(u32 head_dim) {
    return WARP_ROWS * head_dim / 64 + WARP_ROWS * block_k(head_dim) / 32 + WARP_ROWS * head_dim / 32 <= 160;
}
constexpr u32 STAGES = 2;                   // K and V tiles in shared memory at once
// Dynamic shared memory: Q's tile, then STAGES stages of a K tile and a V tile.
__host__ __device__ constexpr u32 shared_bytes(u32 head_dim) {
    return (BLOCK_Q + STAGES * 2 * block_k(head_dim)) * head_dim * 2;
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
