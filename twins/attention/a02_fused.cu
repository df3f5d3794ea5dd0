// Twin of kernels/src/attention/a02_fused.rs (step a02): one fused kernel with the online
// softmax, f32 on CUDA cores. A block takes a02::BLOCK_Q query rows, a warp each, and walks
// the keys in tiles of a02::BLOCK_K: K then V pass through one shared f32 tile (rows
// TILE_STRIDE floats apart, so that lane j reading row j hits its own bank); a lane per key
// computes the scores (Q pre-scaled by scale · log2 e, so exp is one ex2.approx), the warp
// keeps its row's running max, sum and accumulator, rescaling them when the max grows; a lane
// per head-dim column (and every 32nd after it) accumulates P·V.
//
// Launch: a02::THREADS threads, grid (⌈seq_q / BLOCK_Q⌉, batch · heads_q), no dynamic shared
// memory. ex2, lg2 and rcp through the approximate instructions, as the Rust
// (device/convert.rs).
#include "attention.cuh"

constexpr float LOG2_E = 1.4426950408889634f;
constexpr float LN_2 = 0.6931471805599453f;
constexpr u32 WARP_SIZE = 32;
constexpr u32 TILE_STRIDE = a02::MAX_HEAD_DIM + 1;
constexpr u32 COLUMN_SLOTS = a02::MAX_HEAD_DIM / WARP_SIZE;
constexpr u32 ROWS_PER_WARP = a02::BLOCK_K / a02::BLOCK_Q;

static_assert(a02::THREADS == a02::BLOCK_Q * WARP_SIZE, "a warp per query row");
static_assert(a02::BLOCK_K == WARP_SIZE, "a lane per key of a tile");
static_assert(a02::BLOCK_K % a02::BLOCK_Q == 0, "whole rows per warp in the tile loads");
static_assert(a02::MAX_HEAD_DIM % WARP_SIZE == 0, "whole column slots");
static_assert(4 * (a02::BLOCK_Q * a02::MAX_HEAD_DIM + a02::BLOCK_K * TILE_STRIDE) <= 48 * 1024,
              "static shared memory");

__shared__ __align__(16) float a02_queries[a02::BLOCK_Q * a02::MAX_HEAD_DIM];  // (BLOCK_Q, MAX_HEAD_DIM)
__shared__ __align__(16) float a02_tile[a02::BLOCK_K * TILE_STRIDE];          // (BLOCK_K, TILE_STRIDE)

__device__ __forceinline__ float reciprocal_approx(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float warp_max(float v) {
    for (u32 lanes = WARP_SIZE / 2; lanes > 0; lanes /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lanes));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (u32 lanes = WARP_SIZE / 2; lanes > 0; lanes /= 2) v += __shfl_xor_sync(0xffffffffu, v, lanes);
    return v;
}
__device__ __forceinline__ float broadcast(float v, u32 src) { return __shfl_sync(0xffffffffu, v, src); }

// The rows of one (batch, head) of a tensor, in elements from its start.
struct HeadRows {
    u64 start, stride;
    __device__ __forceinline__ HeadRows(const Strides& s, u32 b, u32 h) : start(s.row_offset(b, h, 0)), stride(s.row) {}
    __device__ __forceinline__ u64 row(u32 s) const { return start + (u64)s * stride; }
};

// This warp's query row into its row of a02_queries, times factor = scale · log2 e.
template <class T>
__device__ __forceinline__ void load_query(const u16* q, u64 start, u32 head_dim, float factor) {
    const u32 warp = threadIdx.x / WARP_SIZE;
    for (u32 c = threadIdx.x % WARP_SIZE; c < head_dim; c += WARP_SIZE)
        a02_queries[warp * a02::MAX_HEAD_DIM + c] = T::to_f32(q[start + c]) * factor;
}

// Rows first..first + rows of K or V into rows 0..rows of the tile, a warp per row, a lane every
// 32nd column; zeros from head_dim to the next multiple of 32.
template <class T>
__device__ __forceinline__ void load_tile(const u16* src, HeadRows head, u32 head_dim, u32 first, u32 rows) {
    const u32 lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    const u32 padded_cols = (head_dim + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE;
    for (u32 i = 0; i < ROWS_PER_WARP; ++i) {
        const u32 r = warp + a02::BLOCK_Q * i;
        if (r >= rows) break;
        const u64 start = head.row(first + r);
        for (u32 c = lane; c < padded_cols; c += WARP_SIZE)
            a02_tile[r * TILE_STRIDE + c] = c < head_dim ? T::to_f32(src[start + c]) : 0.0f;
    }
}

// This lane's score in log2 units, −∞ where its key is masked (lane ≥ keys).
__device__ __forceinline__ float score(u32 keys, u32 head_dim) {
    const u32 lane = threadIdx.x % WARP_SIZE;
    if (lane >= keys) return -__int_as_float(0x7f800000);
    const float* q_row = a02_queries + threadIdx.x / WARP_SIZE * a02::MAX_HEAD_DIM;
    const float* k_row = a02_tile + lane * TILE_STRIDE;
    float dot = 0.0f;
    for (u32 c = 0; c < head_dim; ++c) dot = fmaf(q_row[c], k_row[c], dot);
    return dot;
}

// One query row's running state, in the registers of its warp's lanes.
struct RowState {
    float max = -__int_as_float(0x7f800000);  // the largest score so far (log2 units)
    float sum = 0.0f;                          // this lane's share of Σ 2^(score − max)
    float acc[COLUMN_SLOTS] = {};              // Σ 2^(score − max) · v at columns lane + 32·t

    // The online softmax: the new max, the rescale of sum and acc, this lane's p.
    __device__ __forceinline__ float update(float s) {
        const float new_max = fmaxf(max, warp_max(s));
        const float rescale = exp2_approx(max - new_max);
        const float p = exp2_approx(s - new_max);
        sum = sum * rescale + p;
        for (u32 t = 0; t < COLUMN_SLOTS; ++t) acc[t] *= rescale;
        max = new_max;
        return p;
    }

    // P·V for one tile: p_j from lane j times row j of the V tile, for the first `keys` keys.
    __device__ __forceinline__ void accumulate(float p, u32 keys, u32 head_dim) {
        const u32 lane = threadIdx.x % WARP_SIZE;
        for (u32 j = 0; j < keys; ++j) {
            const float p_j = broadcast(p, j);
#pragma unroll
            for (u32 t = 0; t < COLUMN_SLOTS; ++t) {
                const u32 slot = WARP_SIZE * t;
                if (slot < head_dim) acc[t] = fmaf(p_j, a02_tile[j * TILE_STRIDE + slot + lane], acc[t]);
            }
        }
    }

    // O = acc / l rounded to T, lse = ln l + max · ln 2; zeros and −∞ for a row that saw no key.
    template <class T>
    __device__ __forceinline__ void finish(bool inside, u16* o, u64 o_start, u32 head_dim, float* lse) {
        const float total = warp_sum(sum);
        if (!inside) return;
        const bool any = total > 0.0f;
        const float inverse = any ? reciprocal_approx(total) : 0.0f;
        const float log_sum_exp = any ? (max + log2_approx(total)) * LN_2 : -__int_as_float(0x7f800000);
        const u32 lane = threadIdx.x % WARP_SIZE;
#pragma unroll
        for (u32 t = 0; t < COLUMN_SLOTS; ++t) {
            const u32 c = lane + WARP_SIZE * t;
            if (c < head_dim) o[o_start + c] = T::from_f32(acc[t] * inverse);
        }
        if (lane == 0) *lse = log_sum_exp;
    }
};

template <class T>
__device__ __forceinline__ void fused(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    const Dims d = *dims;
    const u32 y = blockIdx.y;
    const u32 b = y / d.heads_q, h = y % d.heads_q;
    const HeadRows k_head(d.k, b, h / d.group), v_head(d.v, b, h / d.group);
    const u32 first_row = blockIdx.x * a02::BLOCK_Q;
    const u32 row = first_row + threadIdx.x / WARP_SIZE;
    const bool inside = row < d.seq_q;
    // The row's visible keys, and the block's: its last row's (the mask is monotone in the row).
    const u32 row_keys = inside ? d.visible_keys(row) : 0;
    const u32 last_row = (d.seq_q < first_row + a02::BLOCK_Q ? d.seq_q : first_row + a02::BLOCK_Q) - 1;
    const u32 block_keys = d.visible_keys(last_row);
    if (inside) load_query<T>(q, d.q.row_offset(b, h, row), d.head_dim, d.scale * LOG2_E);
    const u64 o_start = d.o.row_offset(b, h, row);
    const u64 lse_at = (u64)y * d.seq_q + row;
    RowState state;
    // Every thread runs every tile and reaches its four barriers, whatever its row sees.
    for (u32 first = 0; first < block_keys; first += a02::BLOCK_K) {
        const u32 tile_keys = block_keys - first < a02::BLOCK_K ? block_keys - first : a02::BLOCK_K;
        const u32 ahead = row_keys > first ? row_keys - first : 0;
        const u32 keys = ahead < a02::BLOCK_K ? ahead : a02::BLOCK_K;
        load_tile<T>(k, k_head, d.head_dim, first, tile_keys);
        __syncthreads();  // the K tile (and the first time the query rows) written
        const float p = keys > 0 ? state.update(score(keys, d.head_dim)) : 0.0f;
        __syncthreads();  // every warp done with K
        load_tile<T>(v, v_head, d.head_dim, first, tile_keys);
        __syncthreads();  // the V tile written
        if (keys > 0) state.accumulate(p, keys, d.head_dim);
        __syncthreads();  // every warp done with V
    }
    state.finish<T>(inside, o, o_start, d.head_dim, lse + lse_at);
}

extern "C" __global__ void __launch_bounds__(a02::THREADS)
    a02_fused_f16(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    fused<F16>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a02::THREADS)
    a02_fused_bf16(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    fused<Bf16>(q, k, v, o, lse, dims);
}
