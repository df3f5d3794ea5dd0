// Twin of kernels/src/attention/a04_wgmma.rs (step a04): Hopper's warpgroup MMA (wgmma) for both
// products. A warpgroup (4 warps) owns 64 query rows; per tile of a04::BLOCK_K = 128 keys its
// scores are head dim / 16 wgmma m64n128k16 that read Q and K straight from shared memory (both
// K-major, no ldmatrix), the online softmax runs on the same fragment layout as a03's
// (fragments:: in attention.cuh), and P, rounded to 16 bits, is the A operand *from registers*
// of O += P·V: one wgmma m64n64k16 per 64-column panel of the head dim and k16 slice of keys,
// V (N-major) read from shared memory. Two warpgroups × 64 rows = a04::BLOCK_Q query rows per
// block; K and V tiles stream through STAGES cp.async stages. Every tile is stored as head
// dim / 64 panels of 64 columns, row r of a panel 128 bytes at 128·r, its 16-byte chunk c at
// c ^ (r % 8): the 128-byte swizzle the descriptors name. A warpgroup past its last visible
// key skips the tile.
//
// Launch: a04::THREADS threads, grid (⌈seq_q / BLOCK_Q⌉, batch · heads_q), a04::shared_bytes(head
// dim) bytes of dynamic shared memory (its base rounded up to 1024 by the kernel). Requires an
// sm_90a device (the host compiles this twin for compute_90a only, as the step's arch says),
// head dim 64 or 128 (the entry point's), tensors 16-byte aligned and all strides multiples of
// 8 elements, scale > 0.
// What C++ needed that Rust did not: attention.cuh and hopper.cuh cannot both be included (each
// defines smem_u32 and the cp.async wrappers), so the wgmma pieces kernels/src/device/wgmma.rs
// gives the attention steps (the B-K-major and A-from-registers forms, the descriptor, the
// fences) are written out in attention_hopper.cuh under the Rust names, as hopper.cuh writes the
// GEMM's, beside the constants, Wgmma and Panels of kernels/src/attention/hopper.rs (namespace
// hopper), which a05 and a06 share. The accumulators are the Rust's nested arrays (n8 tiles of
// 4), passed to the asm element by element (the Rust's `fragments::flat` view). The key-tile
// math is written out in the loop below (P packed slice by slice inside the P·V loop), where the
// Rust calls hopper::issue_scores, softmax, rescale, pack_probabilities and issue_output, as the
// a05 and a06 twins do. Where the Rust works around LLVM's unrolling (the mask by groups of 8
// tiles, `unroll!` over P's slices), the C++ has plain `#pragma unroll` loops doing the same
// arithmetic.
#include "attention_hopper.cuh"

namespace a04 {
// hopper.rs's constants (WARPGROUP, WARPGROUP_ROWS, ROW_BYTES, S_N8, …), Wgmma and Panels, and
// the wgmma wrappers: attention_hopper.cuh.
using namespace hopper;
constexpr float LOG2_E = 1.4426950408889634f;
// mod.rs's tile-copy unit: 16 bytes, eight 16-bit values.
constexpr u32 CHUNK_BYTES = 16, CHUNK_VALUES = 8;
static_assert(BLOCK_K == KEYS && WARPGROUP_ROWS * WARPGROUPS == BLOCK_Q, "a04's shape");

// ---- kernels/src/attention/mod.rs: the heads a block reads ---------------------------------

// One head of Q, K or V: its row 0, row stride (elements) and rows.
struct HeadRows {
    const u16* start;
    u64 stride;
    u32 rows;
    // Chunk `chunk` (8 values) of row `row` and the bytes to copy of it: 16 inside the head, 0
    // past its last row (then the address is the head's start, and nothing is read).
    struct Chunk {
        const u16* src;
        u32 bytes;
    };
    __device__ __forceinline__ Chunk chunk(u32 row, u32 chunk) const {
        if (row < rows) return Chunk{start + ((u64)row * stride + chunk * CHUNK_VALUES), CHUNK_BYTES};
        return Chunk{start, 0};
    }
};

// Where a block stands: its (batch, query head) pair = blockIdx.y = b · heads_q + h, K/V head
// h / group, and the heads of Q, K and V it reads.
struct BlockHeads {
    u32 b, h, pair;
    HeadRows q, k, v;
    __device__ __forceinline__ BlockHeads(const Dims& d, u32 pair_, const u16* q_, const u16* k_, const u16* v_)
        : b(pair_ / d.heads_q), h(pair_ % d.heads_q), pair(pair_) {
        const u32 kv_head = h / d.group;
        q = HeadRows{q_ + d.q.row_offset(b, h, 0), d.q.row, d.seq_q};
        k = HeadRows{k_ + d.k.row_offset(b, kv_head, 0), d.k.row, d.seq_k};
        v = HeadRows{v_ + d.v.row_offset(b, kv_head, 0), d.v.row, d.seq_k};
    }
};

// ---- the step ------------------------------------------------------------------------------

// Starts (does not commit) the block's copies of rows row0 .. row0 + ROWS of head into tile;
// rows past the head's last are zero-filled by the copy.
template <u32 ROWS, u32 PANELS>
__device__ __forceinline__ void copy_tile(Panels<ROWS, PANELS> tile, HeadRows head, u32 row0) {
    // Chunks per row, and rows per pass: a chunk per thread.
    constexpr u32 CHUNKS = Panels<ROWS, PANELS>::ROW_CHUNKS, STEP = THREADS / CHUNKS;
    static_assert(THREADS % CHUNKS == 0 && ROWS % STEP == 0, "whole rows per pass");
    const u32 first = threadIdx.x / CHUNKS, chunk = threadIdx.x % CHUNKS;
#pragma unroll
    for (u32 pass = 0; pass < ROWS / STEP; ++pass) {
        const u32 r = first + pass * STEP;
        const HeadRows::Chunk src = head.chunk(row0 + r, chunk);
        cp_async_16(tile.chunk(r, chunk), src.src, src.bytes);
    }
}

// The block's tiles: Q's, then STAGES × (K's, V's), from a 1024-byte aligned base.
template <u32 PANELS>
struct SharedTiles {
    u32 base;
    __device__ __forceinline__ Panels<BLOCK_Q, PANELS> q() const { return {base}; }
    __device__ __forceinline__ Panels<BLOCK_K, PANELS> k(u32 stage) const {
        constexpr u32 KV = 2 * Panels<BLOCK_K, PANELS>::BYTES;
        return {base + Panels<BLOCK_Q, PANELS>::BYTES + stage * KV};
    }
    __device__ __forceinline__ Panels<BLOCK_K, PANELS> v(u32 stage) const {
        return {k(stage).base + Panels<BLOCK_K, PANELS>::BYTES};
    }
};

// The forward pass for one block of BLOCK_Q query rows of one (batch, query head), head dim
// 64·PANELS, 16-bit type T.
template <class T, u32 PANELS>
__device__ __forceinline__ void flash_wgmma(const u16* q, const u16* k, const u16* v, u16* o, float* lse,
                                            const Dims* dims) {
    static_assert(PANELS == 1 || PANELS == 2, "head dim 64 or 128");
    extern __shared__ __align__(16) unsigned char smem[];
    const Dims d = *dims;
    const u32 tid = threadIdx.x;
    const u32 warpgroup = tid / WARPGROUP, warp = (tid % WARPGROUP) / WARP_SIZE, lane = tid % WARP_SIZE;
    const u32 g = lane / 4, t = lane % 4;
    const u32 q0 = blockIdx.x * BLOCK_Q;
    const BlockHeads heads(d, blockIdx.y, q, k, v);
    const SharedTiles<PANELS> tiles{(smem_u32(smem) + ALIGN_SLACK - 1) & ~(ALIGN_SLACK - 1)};

    // The key tiles the block reads: up to the last key its last row sees.
    const u32 last_row = (q0 + BLOCK_Q < d.seq_q ? q0 + BLOCK_Q : d.seq_q) - 1;
    const u32 key_tiles = (d.visible_keys(last_row) + BLOCK_K - 1) / BLOCK_K;
    // Starts the copies of key tile j into stage j % STAGES (none past the last tile; the group
    // is committed either way, so that group counts stay uniform).
    auto load_kv = [&](u32 j) {
        if (j < key_tiles) {
            const u32 stage = j % STAGES;
            copy_tile(tiles.k(stage), heads.k, j * BLOCK_K);
            copy_tile(tiles.v(stage), heads.v, j * BLOCK_K);
        }
        cp_async_commit();
    };
    copy_tile(tiles.q(), heads.q, q0);
    load_kv(0);

    // This warpgroup's rows, this lane's two (g and g + 8 of its warp's 16) and the keys each
    // sees; the keys every row of the warp sees, below which a tile needs no mask; and the keys
    // the warpgroup's last row sees, past which it skips a tile (none when its rows are all
    // past seq_q).
    const u32 group_row0 = q0 + warpgroup * WARPGROUP_ROWS;
    const u32 warp_row0 = group_row0 + warp * WARP_ROWS;
    const u32 rows[2] = {warp_row0 + g, warp_row0 + g + 8};
    const u32 visible[2] = {d.visible_keys(rows[0]), d.visible_keys(rows[1])};
    const u32 unmasked_keys = d.visible_keys(warp_row0);
    const u32 group_keys =
        group_row0 < d.seq_q
            ? d.visible_keys((group_row0 + WARPGROUP_ROWS < d.seq_q ? group_row0 + WARPGROUP_ROWS : d.seq_q) - 1)
            : 0;
    const float scale_log2 = d.scale * LOG2_E;

    fragments::RowStats stats = fragments::RowStats::empty();
    float s[S_N8][4];
    Output<PANELS> out;
#pragma unroll
    for (u32 n = 0; n < S_N8; ++n)
#pragma unroll
        for (u32 e = 0; e < 4; ++e) s[n][e] = 0.0f;
    clear(out);
    for (u32 j = 0; j < key_tiles; ++j) {
        // Tile j's copies (and Q's, the first time) are the only ones in flight: wait for them,
        // hand them to the tensor cores' proxy, then to the whole block (every warpgroup is
        // then done with tile j − 1, whose stage the next copies refill).
        cp_async_wait_group<0>();
        fence_proxy_async_shared();
        __syncthreads();
        load_kv(j + 1);
        const u32 k0 = j * BLOCK_K;
        if (k0 >= group_keys) continue;  // every row of this warpgroup is past these keys (causal)
        const Panels<BLOCK_K, PANELS> kt = tiles.k(j % STAGES), vt = tiles.v(j % STAGES);
        // S = Q·Kᵀ: head dim / 16 k16 steps, the first overwriting the last tile's scores.
        wgmma_fence();
#pragma unroll
        for (u32 kk = 0; kk < 4 * PANELS; ++kk)
            Wgmma<T>::scores(s, tiles.q().k_major(warpgroup * WARPGROUP_ROWS, kk), kt.k_major(0, kk), kk > 0);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        if (k0 + BLOCK_K > unmasked_keys) fragments::mask(s, k0, visible, t);
        float alpha[2];
        fragments::softmax_step(s, stats, scale_log2, alpha);
#pragma unroll
        for (u32 panel = 0; panel < PANELS; ++panel) fragments::rescale(out[panel], alpha);
        // O += P·V: P's k16 slices from registers, V's panels from shared memory.
        wgmma_fence();
#pragma unroll
        for (u32 kk = 0; kk < KEY_K16; ++kk) {
            u32 p[4];
            fragments::p_fragment<T>(p, s, kk);
#pragma unroll
            for (u32 panel = 0; panel < PANELS; ++panel) Wgmma<T>::output(out[panel], p, vt.n_major(panel, kk));
        }
        wgmma_commit_group();
        wgmma_wait_group<0>();
    }

    // A block with no key tile never waited for Q's copies: none may outlive it.
    cp_async_wait_group<0>();
    // The epilogue: each row's sum over its quad, O / l rounded to T and stored (two columns,
    // 4 bytes, per store), and the log-sum-exp by the quad's lane 0. Rows past seq_q store
    // nothing; a row that saw no key (l = 0) gets zeros and −∞.
    float sums[2];
    fragments::row_sums(sums, stats);
    u16* o_rows = o + d.o.row_offset(heads.b, heads.h, 0);
    float* lse_rows = lse + (u64)heads.pair * d.seq_q;
#pragma unroll
    for (u32 half = 0; half < 2; ++half) {
        const u32 row = rows[half];
        if (row >= d.seq_q) continue;
        const float l = sums[half];
        const float inverse = l > 0.0f ? 1.0f / l : 0.0f;
        u16* out_row = o_rows + (u64)row * d.o.row;
#pragma unroll
        for (u32 panel = 0; panel < PANELS; ++panel)
#pragma unroll
            for (u32 n = 0; n < PANEL_N8; ++n) {
                const u32 column = 64 * panel + fragments::column(n, 0, t);
                const float* c = out[panel][n];
                *reinterpret_cast<u32*>(out_row + column) =
                    T::pack_x2(c[2 * half] * inverse, c[2 * half + 1] * inverse);
            }
        if (t == 0) lse_rows[row] = fragments::log_sum_exp(stats.m[half], l, d.scale);
    }
}
}  // namespace a04

extern "C" __global__ void __launch_bounds__(a04::THREADS)
    a04_wgmma_f16_d64(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a04::flash_wgmma<F16, 1>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a04::THREADS)
    a04_wgmma_bf16_d64(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a04::flash_wgmma<Bf16, 1>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a04::THREADS)
    a04_wgmma_f16_d128(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a04::flash_wgmma<F16, 2>(q, k, v, o, lse, dims);
}
extern "C" __global__ void __launch_bounds__(a04::THREADS)
    a04_wgmma_bf16_d128(const u16* q, const u16* k, const u16* v, u16* o, float* lse, const Dims* dims) {
    a04::flash_wgmma<Bf16, 2>(q, k, v, o, lse, dims);
}
