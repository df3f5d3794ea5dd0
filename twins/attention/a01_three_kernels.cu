// Twin of kernels/src/attention/a01_three_kernels.rs (step a01): S = Q·Kᵀ·scale (−∞ where the
// mask hides a key) into f32 memory, one thread per score; a block per row turns it into P in
// place and writes the row's log-sum-exp; O = P·V, one thread per output. exp and ln through
// ex2.approx and lg2.approx, as the Rust (device/convert.rs).
//
// Launch: scores and output with a01::TILE_X × a01::TILE_Y threads, grid (keys or head-dim
// columns / TILE_X, seq_q / TILE_Y, batch · heads_q); the softmax with a01::SOFTMAX_THREADS
// threads, one block per row.
#include "attention.cuh"

constexpr float LOG2_E = 1.4426950408889634f;
constexpr float LN_2 = 0.6931471805599453f;
constexpr u32 WARPS = a01::SOFTMAX_THREADS / 32;

template <class T>
__device__ __forceinline__ void scores(const u16* q, const u16* k, float* s, const Dims* dims) {
    const Dims d = *dims;
    const u32 j = blockIdx.x * a01::TILE_X + threadIdx.x;
    const u32 i = blockIdx.y * a01::TILE_Y + threadIdx.y;
    const u32 z = blockIdx.z;
    if (i >= d.seq_q || j >= d.seq_k) return;
    const u32 b = z / d.heads_q, h = z % d.heads_q;
    float score = -__int_as_float(0x7f800000);  // −∞
    if (j < d.visible_keys(i)) {
        const u64 qi = d.q.row_offset(b, h, i), kj = d.k.row_offset(b, h / d.group, j);
        float dot = 0.0f;
        for (u32 c = 0; c < d.head_dim; ++c) dot += T::to_f32(q[qi + c]) * T::to_f32(k[kj + c]);
        score = dot * d.scale;
    }
    const u64 row = (u64)z * d.seq_q + i;
    s[row * d.seq_k + j] = score;
}

__shared__ float softmax_partials[2 * WARPS];

template <class Op>
__device__ __forceinline__ float block_reduce(float v, Op op, u32 base) {
    for (u32 lanes = 16; lanes > 0; lanes /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, lanes));
    if (threadIdx.x % 32 == 0) softmax_partials[base + threadIdx.x / 32] = v;
    __syncthreads();
    float all = softmax_partials[base];
    for (u32 w = 1; w < WARPS; ++w) all = op(all, softmax_partials[base + w]);
    return all;
}

extern "C" __global__ void __launch_bounds__(a01::SOFTMAX_THREADS) a01_softmax(float* s, float* lse, u32 seq_k) {
    const u64 base = (u64)blockIdx.x * seq_k;
    const float NEG_INF = -__int_as_float(0x7f800000);
    float m = NEG_INF;
    for (u32 j = threadIdx.x; j < seq_k; j += blockDim.x) m = fmaxf(m, s[base + j]);
    m = block_reduce(m, [](float a, float b) { return fmaxf(a, b); }, 0);
    float sum = 0.0f;
    for (u32 j = threadIdx.x; j < seq_k; j += blockDim.x) {
        const float p = m == NEG_INF ? 0.0f : exp2_approx((s[base + j] - m) * LOG2_E);
        s[base + j] = p;
        sum += p;
    }
    sum = block_reduce(sum, [](float a, float b) { return a + b; }, WARPS);
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (u32 j = threadIdx.x; j < seq_k; j += blockDim.x) s[base + j] *= inverse;
    if (threadIdx.x == 0) lse[blockIdx.x] = sum > 0.0f ? m + log2_approx(sum) * LN_2 : NEG_INF;
}

template <class T>
__device__ __forceinline__ void output(const float* p, const u16* v, u16* o, const Dims* dims) {
    const Dims d = *dims;
    const u32 c = blockIdx.x * a01::TILE_X + threadIdx.x;
    const u32 i = blockIdx.y * a01::TILE_Y + threadIdx.y;
    const u32 z = blockIdx.z;
    if (i >= d.seq_q || c >= d.head_dim) return;
    const u32 b = z / d.heads_q, h = z % d.heads_q;
    const u64 row = ((u64)z * d.seq_q + i) * d.seq_k;
    float acc = 0.0f;
    const u32 keys = d.visible_keys(i);
    for (u32 j = 0; j < keys; ++j) acc += p[row + j] * T::to_f32(v[d.v.row_offset(b, h / d.group, j) + c]);
    o[d.o.row_offset(b, h, i) + c] = T::from_f32(acc);
}

extern "C" __global__ void __launch_bounds__(a01::TILE_X * a01::TILE_Y)
    a01_scores_f16(const u16* q, const u16* k, float* s, const Dims* dims) {
    scores<F16>(q, k, s, dims);
}
extern "C" __global__ void __launch_bounds__(a01::TILE_X * a01::TILE_Y)
    a01_scores_bf16(const u16* q, const u16* k, float* s, const Dims* dims) {
    scores<Bf16>(q, k, s, dims);
}
extern "C" __global__ void __launch_bounds__(a01::TILE_X * a01::TILE_Y)
    a01_output_f16(const float* p, const u16* v, u16* o, const Dims* dims) {
    output<F16>(p, v, o, dims);
}
extern "C" __global__ void __launch_bounds__(a01::TILE_X * a01::TILE_Y)
    a01_output_bf16(const float* p, const u16* v, u16* o, const Dims* dims) {
    output<Bf16>(p, v, o, dims);
}
