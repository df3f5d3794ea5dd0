// Twin of kernels/src/attention/a03_mma_sync.rs (step a03): FlashAttention-2's forward pass on
// mma.sync. A block takes BLOCK_Q query rows of one (batch, query head), each warp
// WARP_ROWS of them (M_TILES mma row tiles) for the whole key loop; per tile of BLOCK_K keys a warp
// computes S = Q·Kᵀ (Q's A fragments kept in registers, or read from shared memory per key tile
// where q_in_registers says no), the online softmax in f32 registers (row max over a quad by
// two xor shuffles, the scale folded into ex2), P rounded to 16 bits and used as the A
// operand of O += P·V as it is, O in f32 registers. K and V tiles stream through STAGES
// cp.async stages in swizzled dynamic shared memory (chunk c of row r at c ^ (r % 8)). The
// geometry is the head dim's (a03::warp_rows, block_k): 32 rows a warp and 64 keys a tile at
// head dims 64 and 128, 16 and 32 at 256.
//
// Launch: a03::THREADS threads, grid (⌈seq_q / a03::block_q(head dim)⌉, batch · heads_q),
// a03::shared_bytes(head dim) bytes of dynamic shared memory. Requires head dim 64, 128 or 256
// (the entry point's), tensors 16-byte aligned and all strides multiples of 8 elements, scale > 0.
// The same fragment addresses as the Rust: a lane's bases at 4 chunk pairs per tile, every
// fragment a constant offset from one of them (LaneRows).
#include "attention.cuh"

namespace a03 {
constexpr float LOG2_E = 1.4426950408889634f;
constexpr float LN_2 = 0.6931471805599453f;
constexpr u32 MMA_M = 16, MMA_N = 8;
constexpr u32 CHUNK_BYTES = 16, CHUNK_VALUES = 8;
constexpr u32 SWIZZLE_ROWS = 8;
constexpr u32 PAIRS_PER_PATTERN = SWIZZLE_ROWS / 2;  // chunk pairs in one swizzle pattern

// The geometry of head dim D: rows per warp and block, keys per tile, and the fragment counts.
template <u32 D>
struct Shape {
    static constexpr u32 WARP_ROWS = warp_rows(D), BLOCK_Q = block_q(D), BLOCK_K = block_k(D);
    static constexpr u32 M_TILES = WARP_ROWS / MMA_M;  // 16-row mma tiles per warp
    static constexpr u32 N8 = BLOCK_K / MMA_N;         // n8 tiles of S per key tile
};

// A swizzled tile of rows of D 16-bit values (D / 8 chunks of 16 bytes) at a shared address.
template <u32 D>
struct Tile {
    static constexpr u32 ROW_CHUNKS = D / CHUNK_VALUES;
    static constexpr u32 ROW_BYTES = ROW_CHUNKS * CHUNK_BYTES;
    u32 base;
    __device__ __forceinline__ u32 chunk(u32 row, u32 c) const {
        return base + (row * ROW_CHUNKS + (c ^ (row % SWIZZLE_ROWS))) * CHUNK_BYTES;
    }
};

// This lane's ldmatrix row in a tile at the 4 chunk pairs of one swizzle pattern (chunk
// 2p + odd of pair p); 16 rows further is 16·ROW_BYTES, 4 pairs further 128 bytes.
template <u32 D>
struct LaneRows {
    u32 at[PAIRS_PER_PATTERN];
    __device__ __forceinline__ LaneRows(Tile<D> tile, u32 row, u32 odd) {
#pragma unroll
        for (u32 p = 0; p < PAIRS_PER_PATTERN; ++p) at[p] = tile.chunk(row, 2 * p + odd);
    }
    __device__ __forceinline__ u32 address(u32 rows16, u32 pair) const {
        return at[pair % PAIRS_PER_PATTERN] + rows16 * MMA_M * Tile<D>::ROW_BYTES +
               (pair / PAIRS_PER_PATTERN) * SWIZZLE_ROWS * CHUNK_BYTES;
    }
};

// One head of Q, K or V: its row 0, row stride (elements) and rows.
struct HeadRows {
    const u16* start;
    u64 stride;
    u32 rows;
};

// Starts (does not commit) the block's copies of rows row0 .. row0 + ROWS of head into tile;
// rows past the head's last are zero-filled (src_bytes 0, nothing read). A thread's source
// moves by one add per pass, and a tile whose rows all lie in the head copies with no check.
template <u32 ROWS, u32 D>
__device__ __forceinline__ void copy_tile(Tile<D> tile, HeadRows head, u32 row0) {
    constexpr u32 STEP = THREADS / Tile<D>::ROW_CHUNKS;  // rows per pass, a chunk per thread
    static_assert(THREADS % Tile<D>::ROW_CHUNKS == 0 && ROWS % STEP == 0, "whole rows per pass");
    // Whole swizzle patterns per pass (head dims 64, 128): the same chunk position on every
    // pass. Else (4 rows a pass, head dim 256) a pass's destination is computed as it comes.
    constexpr bool WHOLE_PATTERNS = STEP % SWIZZLE_ROWS == 0;
    static_assert(WHOLE_PATTERNS || SWIZZLE_ROWS % STEP == 0, "a pass is whole patterns or part of one");
    const u32 first = threadIdx.x / Tile<D>::ROW_CHUNKS, chunk = threadIdx.x % Tile<D>::ROW_CHUNKS;
    const u32 dst = tile.chunk(first, chunk), pass_bytes = STEP * Tile<D>::ROW_BYTES;
    auto at = [&](u32 pass) { return WHOLE_PATTERNS ? dst + pass * pass_bytes : tile.chunk(first + pass * STEP, chunk); };
    const u16* src = head.start + ((u64)(row0 + first) * head.stride + chunk * CHUNK_VALUES);
    const u64 pass_stride = STEP * head.stride;
    if (row0 + ROWS <= head.rows) {
#pragma unroll
        for (u32 pass = 0; pass < ROWS / STEP; ++pass, src += pass_stride) cp_async_16_whole(at(pass), src);
    } else {
#pragma unroll
        for (u32 pass = 0; pass < ROWS / STEP; ++pass, src += pass_stride) {
            const bool inside = row0 + first + pass * STEP < head.rows;
            cp_async_16(at(pass), inside ? src : head.start, inside ? 16 : 0);
        }
    }
}

// Q's A fragments of this warp's rows, kept in registers (q_in_registers) or read again from
// Q's tile per key tile: lanes 0-15 rows 0-15 at chunk 2kk, lanes 16-31 the same rows at chunk
// 2kk + 1.
template <u32 D>
struct QOperand {
    static constexpr bool IN_REGISTERS = q_in_registers(D);
    u32 frags[IN_REGISTERS ? Shape<D>::M_TILES : 1][D / 16][4];
    LaneRows<D> rows;
    __device__ __forceinline__ QOperand(Tile<D> tile, u32 warp, u32 lane)
        : rows(tile, warp * Shape<D>::WARP_ROWS + lane % 16, lane / 16) {
        if constexpr (IN_REGISTERS) {
#pragma unroll
            for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
                for (u32 kk = 0; kk < D / 16; ++kk) ldmatrix_x4(frags[mi][kk], rows.address(mi, kk));
        }
    }
    // The A fragments of k16 slice kk, one per row tile.
    __device__ __forceinline__ void slice(u32 (&a)[Shape<D>::M_TILES][4], u32 kk) const {
#pragma unroll
        for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi) {
            if constexpr (IN_REGISTERS) {
#pragma unroll
                for (u32 e = 0; e < 4; ++e) a[mi][e] = frags[mi][kk][e];
            } else {
                ldmatrix_x4(a[mi], rows.address(mi, kk));
            }
        }
    }
};

// S = Q·Kᵀ for one key tile of N8 n8 tiles: lane l points at key pair·16 + (l / 16)·8 + l % 8,
// chunk 2kk + (l / 8) % 2; the x4 gives b[0], b[1] of n8 tiles 2·pair and 2·pair + 1.
template <class T, u32 D>
__device__ __forceinline__ void tile_scores(float (&s)[Shape<D>::M_TILES][Shape<D>::N8][4], const QOperand<D>& q, Tile<D> k, u32 lane) {
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
        for (u32 n = 0; n < Shape<D>::N8; ++n)
#pragma unroll
            for (u32 e = 0; e < 4; ++e) s[mi][n][e] = 0.0f;
    const LaneRows<D> rows(k, (lane / 16) * 8 + lane % 8, (lane / 8) % 2);
#pragma unroll
    for (u32 kk = 0; kk < D / 16; ++kk) {
        u32 a[Shape<D>::M_TILES][4];
        q.slice(a, kk);
#pragma unroll
        for (u32 pair = 0; pair < Shape<D>::N8 / 2; ++pair) {
            u32 b[4];
            ldmatrix_x4(b, rows.address(pair, kk));
#pragma unroll
            for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi) {
                T::mma(s[mi][2 * pair], a[mi], b[0], b[1]);
                T::mma(s[mi][2 * pair + 1], a[mi], b[2], b[3]);
            }
        }
    }
}

// −∞ for the keys a row does not see: key k0 + 8n + 2t + e % 2 of row g (e < 2) or g + 8.
template <u32 D>
__device__ __forceinline__ void mask_scores(float (&s)[Shape<D>::M_TILES][Shape<D>::N8][4], u32 k0, const u32 (&visible)[Shape<D>::M_TILES][2],
                                            u32 t) {
    const float NEG_INF = -__int_as_float(0x7f800000);
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
        for (u32 n = 0; n < Shape<D>::N8; ++n)
#pragma unroll
            for (u32 e = 0; e < 4; ++e)
                if (k0 + n * MMA_N + 2 * t + e % 2 >= visible[mi][e / 2]) s[mi][n][e] = NEG_INF;
}

// The online-softmax step: each row's new max over its quad, alpha = 2^((m_old − m_new)·scale·
// log2 e), p = 2^((s − m_new)·scale·log2 e), l ← l·alpha + Σp (a lane's own part); a row with
// m still −∞ takes 0 as its reference. P packed to T in pairs, per n8 tile [row g, row g + 8]:
// n8 tiles 2j and 2j + 1 are the A fragment of k16 slice j, element for element.
template <class T, u32 D>
__device__ __forceinline__ void online_softmax(u32 (&p)[Shape<D>::M_TILES][Shape<D>::N8][2], float (&alpha)[Shape<D>::M_TILES][2],
                                               const float (&s)[Shape<D>::M_TILES][Shape<D>::N8][4], float (&m)[Shape<D>::M_TILES][2],
                                               float (&l)[Shape<D>::M_TILES][2], float scale_log2) {
    const float NEG_INF = -__int_as_float(0x7f800000);
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi) {
#pragma unroll
        for (u32 half = 0; half < 2; ++half) {
            float row_max = m[mi][half];
#pragma unroll
            for (u32 n = 0; n < Shape<D>::N8; ++n) row_max = fmaxf(fmaxf(row_max, s[mi][n][2 * half]), s[mi][n][2 * half + 1]);
            row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, 1));
            row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, 2));
            const float reference = row_max == NEG_INF ? 0.0f : row_max;
            const float offset = -reference * scale_log2;
            alpha[mi][half] = exp2_approx(__fmaf_rn(m[mi][half], scale_log2, offset));
            m[mi][half] = row_max;
            float sum = 0.0f;
#pragma unroll
            for (u32 n = 0; n < Shape<D>::N8; ++n) {
                const float p0 = exp2_approx(__fmaf_rn(s[mi][n][2 * half], scale_log2, offset));
                const float p1 = exp2_approx(__fmaf_rn(s[mi][n][2 * half + 1], scale_log2, offset));
                sum += p0;
                sum += p1;
                p[mi][n][half] = T::pack_x2(p0, p1);
            }
            l[mi][half] = __fmaf_rn(l[mi][half], alpha[mi][half], sum);
        }
    }
}

// O ← O·alpha, row by row.
template <u32 D>
__device__ __forceinline__ void rescale_output(float (&o)[Shape<D>::M_TILES][D / 16][2][4], const float (&alpha)[Shape<D>::M_TILES][2]) {
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
        for (u32 pair = 0; pair < D / 16; ++pair)
#pragma unroll
            for (u32 h = 0; h < 2; ++h) {
                o[mi][pair][h][0] *= alpha[mi][0];
                o[mi][pair][h][1] *= alpha[mi][0];
                o[mi][pair][h][2] *= alpha[mi][1];
                o[mi][pair][h][3] *= alpha[mi][1];
            }
}

// O += P·V for one key tile: P's n8 tiles 2kk, 2kk + 1 are the A fragment of k16 slice kk;
// lane l points at key 16kk + l % 16, chunk 2·pair + l / 16; the x4.trans gives b[0], b[1] of
// n8 tiles of columns 16·pair and 16·pair + 8.
template <class T, u32 D>
__device__ __forceinline__ void accumulate_pv(float (&o)[Shape<D>::M_TILES][D / 16][2][4], const u32 (&p)[Shape<D>::M_TILES][Shape<D>::N8][2],
                                              Tile<D> v, u32 lane) {
    const LaneRows<D> rows(v, lane % 16, lane / 16);
#pragma unroll
    for (u32 kk = 0; kk < Shape<D>::N8 / 2; ++kk) {
        u32 a[Shape<D>::M_TILES][4];
#pragma unroll
        for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi) {
            a[mi][0] = p[mi][2 * kk][0];
            a[mi][1] = p[mi][2 * kk][1];
            a[mi][2] = p[mi][2 * kk + 1][0];
            a[mi][3] = p[mi][2 * kk + 1][1];
        }
#pragma unroll
        for (u32 pair = 0; pair < D / 16; ++pair) {
            u32 b[4];
            ldmatrix_x4_trans(b, rows.address(kk, pair));
#pragma unroll
            for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi) {
                T::mma(o[mi][pair][0], a[mi], b[0], b[1]);
                T::mma(o[mi][pair][1], a[mi], b[2], b[3]);
            }
        }
    }
}

// st.shared.u32 and ld.shared.v4.u32 at a shared-window address (the Rust's SharedArray<u32>).
__device__ __forceinline__ void st_shared_u32(u32 addr, u32 v) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ uint4 ld_shared_v4(u32 addr) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

// The epilogue: sums completed over the quad (shuffles first, every lane), the log-sum-exp
// m·scale + ln l by the quad's lane 0; O / l rounded, two columns (4 bytes) a lane, into the
// warp's own rows of Q's tile (staging), then read back 16 bytes a lane and stored by whole
// rows (st.global.cs.v4). l = 0 gives O = 0 and −∞; rows at or past seq_q store nothing.
template <class T, u32 D>
__device__ __forceinline__ void store_output(const float (&o)[Shape<D>::M_TILES][D / 16][2][4], const float (&m)[Shape<D>::M_TILES][2],
                                             const float (&l)[Shape<D>::M_TILES][2], const u32 (&rows)[Shape<D>::M_TILES][2], u32 seq_q,
                                             float scale, Tile<D> staging, u32 warp_row0, u16* o_rows, u64 o_stride,
                                             float* lse_rows, u32 lane) {
    const float NEG_INF = -__int_as_float(0x7f800000);
    const u32 g = lane / 4, t = lane % 4;
    float sum[Shape<D>::M_TILES][2];
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
        for (u32 half = 0; half < 2; ++half) {
            float x = l[mi][half];
            x += __shfl_xor_sync(0xffffffffu, x, 1);
            x += __shfl_xor_sync(0xffffffffu, x, 2);
            sum[mi][half] = x;
        }
#pragma unroll
    for (u32 mi = 0; mi < Shape<D>::M_TILES; ++mi)
#pragma unroll
        for (u32 half = 0; half < 2; ++half) {
            const float total = sum[mi][half];
            const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
            const u32 r = mi * MMA_M + 8 * half + g;  // columns 16·pair + 8·n8 + 2t: chunk 2·pair + n8, word t
#pragma unroll
            for (u32 pair = 0; pair < D / 16; ++pair)
#pragma unroll
                for (u32 n8 = 0; n8 < 2; ++n8) {
                    const float* c = o[mi][pair][n8];
                    st_shared_u32(staging.chunk(r, 2 * pair + n8) + 4 * t,
                                  T::pack_x2(c[2 * half] * inverse, c[2 * half + 1] * inverse));
                }
            const u32 row = rows[mi][half];
            if (t == 0 && row < seq_q)
                lse_rows[row] = total > 0.0f ? m[mi][half] * scale + log2_approx(total) * LN_2 : NEG_INF;
        }
    __syncwarp();
    // Chunk unit % ROW_CHUNKS of row unit / ROW_CHUNKS: a pass covers whole rows.
    constexpr u32 CHUNKS = Tile<D>::ROW_CHUNKS;
#pragma unroll
    for (u32 pass = 0; pass < Shape<D>::WARP_ROWS * CHUNKS / 32; ++pass) {
        const u32 unit = pass * 32 + lane, r = unit / CHUNKS, chunk = unit % CHUNKS;
        const u32 row = warp_row0 + r;
        if (row < seq_q) {
            const uint4 v = ld_shared_v4(staging.chunk(r, chunk));
            __stcs(reinterpret_cast<int4*>(o_rows + (u64)row * o_stride + chunk * CHUNK_VALUES),
                   make_int4((int)v.x, (int)v.y, (int)v.z, (int)v.w));
        }
    }
}
}  // namespace a03

template <class T, u32 D>
__device__ __forceinline__ void a03_flash_attention(const u16* q, const u16* k, const u16* v, u16* o, float* lse,
                                                    const Dims* dims) {
    using namespace a03;
    constexpr u32 WARP_ROWS = Shape<D>::WARP_ROWS, BLOCK_Q = Shape<D>::BLOCK_Q, BLOCK_K = Shape<D>::BLOCK_K;
    constexpr u32 M_TILES = Shape<D>::M_TILES, N8 = Shape<D>::N8;
    static_assert(D == 64 || D == 128 || D == 256, "the chunk-pair patterns of LaneRows assume rows of 8, 16 or 32 chunks");
    extern __shared__ __align__(16) unsigned char smem[];
    const u32 base = smem_u32(smem);
    const Dims d = *dims;
    const u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const u32 g = lane / 4, t = lane % 4;
    const u32 q0 = blockIdx.x * BLOCK_Q, y = blockIdx.y;
    const u32 b = y / d.heads_q, h = y % d.heads_q, kv_head = h / d.group;
    const Tile<D> q_tile{base};
    auto k_tile = [&](u32 stage) { return Tile<D>{base + (BLOCK_Q + stage * 2 * BLOCK_K) * Tile<D>::ROW_BYTES}; };
    auto v_tile = [&](u32 stage) {
        return Tile<D>{base + (BLOCK_Q + stage * 2 * BLOCK_K + BLOCK_K) * Tile<D>::ROW_BYTES};
    };
    const HeadRows q_head{q + d.q.row_offset(b, h, 0), d.q.row, d.seq_q};
    const HeadRows k_head{k + d.k.row_offset(b, kv_head, 0), d.k.row, d.seq_k};
    const HeadRows v_head{v + d.v.row_offset(b, kv_head, 0), d.v.row, d.seq_k};

    // The key tiles this block reads: up to the last key its last row sees.
    const u32 last_row = (q0 + BLOCK_Q < d.seq_q ? q0 + BLOCK_Q : d.seq_q) - 1;
    const u32 key_tiles = (d.visible_keys(last_row) + BLOCK_K - 1) / BLOCK_K;
    // Starts the copies of key tile j into stage j % STAGES (none past the last tile; the
    // group is committed either way).
    auto load_kv = [&](u32 j) {
        if (j < key_tiles) {
            copy_tile<BLOCK_K>(k_tile(j % STAGES), k_head, j * BLOCK_K);
            copy_tile<BLOCK_K>(v_tile(j % STAGES), v_head, j * BLOCK_K);
        }
        cp_async_commit();
    };

    // Prologue: Q's tile (its own group, the oldest), then the first STAGES − 1 key tiles.
    copy_tile<BLOCK_Q>(q_tile, q_head, q0);
    cp_async_commit();
    for (u32 j = 0; j < STAGES - 1; ++j) load_kv(j);
    cp_async_wait_group<STAGES - 1>();
    __syncthreads();
    const QOperand<D> q_frags(q_tile, warp, lane);

    // This lane's rows and the keys each sees; the keys every row of the warp sees.
    const u32 warp_row0 = q0 + warp * WARP_ROWS;
    u32 rows[M_TILES][2], visible[M_TILES][2];
#pragma unroll
    for (u32 mi = 0; mi < M_TILES; ++mi)
#pragma unroll
        for (u32 half = 0; half < 2; ++half) {
            rows[mi][half] = warp_row0 + mi * MMA_M + g + 8 * half;
            visible[mi][half] = d.visible_keys(rows[mi][half]);
        }
    const u32 unmasked_keys = d.visible_keys(warp_row0);
    const float scale_log2 = d.scale * LOG2_E;

    float m[M_TILES][2], l[M_TILES][2], acc[M_TILES][D / 16][2][4];
#pragma unroll
    for (u32 mi = 0; mi < M_TILES; ++mi) {
        m[mi][0] = m[mi][1] = -__int_as_float(0x7f800000);
        l[mi][0] = l[mi][1] = 0.0f;
#pragma unroll
        for (u32 pair = 0; pair < D / 16; ++pair)
#pragma unroll
            for (u32 h2 = 0; h2 < 2; ++h2)
#pragma unroll
                for (u32 e = 0; e < 4; ++e) acc[mi][pair][h2][e] = 0.0f;
    }
    for (u32 j = 0; j < key_tiles; ++j) {
        // Tile j's group is the oldest but STAGES − 2 in flight: wait for it, then make every
        // thread's copies visible (and every warp done with tile j − 1, whose stage the next
        // load reuses).
        cp_async_wait_group<STAGES - 2>();
        __syncthreads();
        load_kv(j + STAGES - 1);
        const u32 stage = j % STAGES;
        float s[M_TILES][N8][4];
        tile_scores<T, D>(s, q_frags, k_tile(stage), lane);
        const u32 k0 = j * BLOCK_K;
        if (k0 + BLOCK_K > unmasked_keys) mask_scores<D>(s, k0, visible, t);
        u32 p[M_TILES][N8][2];
        float alpha[M_TILES][2];
        online_softmax<T, D>(p, alpha, s, m, l, scale_log2);
        rescale_output<D>(acc, alpha);
        accumulate_pv<T, D>(acc, p, v_tile(stage), lane);
    }

    const Tile<D> staging{base + warp * WARP_ROWS * Tile<D>::ROW_BYTES};  // the warp's rows of Q's tile
    store_output<T, D>(acc, m, l, rows, d.seq_q, d.scale, staging, warp_row0, o + d.o.row_offset(b, h, 0), d.o.row,
                       lse + (u64)y * d.seq_q, lane);
}

extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_f16_d64(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<F16, 64>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_bf16_d64(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<Bf16, 64>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_f16_d128(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<F16, 128>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_bf16_d128(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<Bf16, 128>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_f16_d256(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<F16, 256>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a03::THREADS)
    a03_mma_sync_bf16_d256(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a03_flash_attention<Bf16, 256>(q, k, v, o, lse, dims);
}
