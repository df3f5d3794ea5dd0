// Pieces shared by the attention twins (twins/attention/*.cu), under the names of their Rust
// originals: the problem the kernels read (common/src/attention.rs) and the 16-bit types
// (kernels/src/attention/mod.rs, kernels/src/device/convert.rs). Tensors travel as their
// 16 bits (`unsigned short`), as in the Rust.
// No system headers (NVRTC compiles this without a toolkit include path): the conversions
// are the Rust's cvt instructions, written out.
#pragma once

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
};
struct Bf16 {
    static __device__ __forceinline__ float to_f32(u16 bits) { return __uint_as_float((u32)bits << 16); }
    static __device__ __forceinline__ u16 from_f32(float x) {
        u16 bits;
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(x));
        return bits;
    }
};
