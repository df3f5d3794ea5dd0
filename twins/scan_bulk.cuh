// The pieces of the scan steps whose tiles come into shared memory by bulk copy (s11 on), as
// kernels/src/scan/s11_bulk_copy.rs names them: a warp owns 8 rows of 32 16-byte units, row r
// of warp w being units (8w + r)·32 + lane of the tile, so that each row's loads and stores
// are 512 contiguous bytes. sm_90 (hopper.cuh's bulk copy and mbarrier).
#pragma once
#include "scan.cuh"
#include "hopper.cuh"

namespace bulk {
// `aligned_shared`: `words` (the dynamic shared memory, which starts where the static arrays
// end) from its first ALIGN-byte boundary; the launch gives ALIGN bytes of slack.
template <u32 ALIGN>
__device__ __forceinline__ u32* aligned_shared(u32* words) {
    const u32 start = smem_u32(words);
    return words + (((start + ALIGN - 1) & ~(ALIGN - 1)) - start) / 4;
}

// `scan_row`: a row's lane offsets given `carry`, the sum of the warp's rows before it:
// (this lane's sum of everything before its unit in the warp, the row's total).
template <class E>
struct RowScan {
    typename E::Value before, total;
};
template <class E>
__device__ __forceinline__ RowScan<E> scan_row(const typename E::Value (&x)[4], typename E::Value carry) {
    using V = typename E::Value;
    const V sum = E::add(E::add(E::add(x[0], x[1]), x[2]), x[3]);
    const V inclusive = warp_inclusive_scan<E>(sum);
    const V row_total = E::from_bits(__shfl_sync(0xffffffffu, E::to_bits(inclusive), WARP_SIZE - 1));
    const V below = E::from_bits(__shfl_up_sync(0xffffffffu, E::to_bits(inclusive), 1));
    return {lane_idx() == 0 ? carry : E::add(carry, below), row_total};
}

// `copy_partial_tile`: the last, partial tile, which no bulk copy brings: the block copies
// input[start..n] into the shared tile with ordinary loads, zeros after, across a barrier.
template <class E>
__device__ __forceinline__ void copy_partial_tile(u32* tile_words, const u32* input, u64 n, u64 start) {
    for (u32 i = threadIdx.x; i < s11::TILE; i += s11::THREADS)
        tile_words[i] = start + i < n ? input[start + i] : E::to_bits(E::ZERO);
    __syncthreads();
}

// `first_unit`: the first of this lane's units in the tile.
__device__ __forceinline__ u32 first_unit() { return warp_idx() * s11::ROWS * WARP_SIZE + lane_idx(); }

// `unit`: a unit's four words as values.
template <class E>
struct Values {
    __device__ __forceinline__ void operator()(uint4 bits, typename E::Value (&x)[4]) const {
        x[0] = E::from_bits(bits.x), x[1] = E::from_bits(bits.y), x[2] = E::from_bits(bits.z),
        x[3] = E::from_bits(bits.w);
    }
};

// `scan_rows_of`, pass 1: the warp's rows in order, each unit's four words seen through `view`
// (s11 adds the values, compaction counts the kept ones): for each row what comes before this
// lane's unit in the warp (before_lane), and the warp's total (to every lane).
template <class E>
struct Rows {
    typename E::Value before_lane[s11::ROWS];
    typename E::Value warp_total;
};
template <class E, class View>
__device__ __forceinline__ Rows<E> scan_rows_of(const u32* tile_words, View view) {
    using V = typename E::Value;
    Rows<E> rows;
    V carry = E::ZERO;
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const uint4 bits = reinterpret_cast<const uint4*>(tile_words)[first_unit() + r * WARP_SIZE];
        V x[4];
        view(bits, x);
        const RowScan<E> row = scan_row<E>(x, carry);
        rows.before_lane[r] = row.before;
        carry = E::add(carry, row.total);
    }
    rows.warp_total = carry;
    return rows;
}

// `load_tile`: brings the block's tile into `tile_words`: thread 0 claims it (through
// words[0..2], to every thread) and starts one bulk copy of it when whole, its mbarrier right
// after the tile; the block prefetches the tile s11::AHEAD tickets on into L2 (below
// s11::BULK_PREFETCH_BELOW elements thread 0 in one bulk prefetch, else every thread a line),
// then waits for the copy, or copies the last, partial tile itself. Every thread, once.
template <class E>
__device__ __forceinline__ state::Claim load_tile(u32* tile_words, u32* words, const u32* input, u64 n, u64* state,
                                                  u32 jitter) {
    const u32 bar = smem_u32(tile_words + s11::TILE);  // the mbarrier right after the tile
    constexpr u64 TILE = s11::TILE;
    if (threadIdx.x == 0) {
        mbarrier_init(bar, 1);
        fence_barrier_init();
        const state::Claim claim = state::claim_tile(state, jitter);
        words[0] = claim.tile;
        words[1] = claim.epoch;
        const u64 start = (u64)claim.tile * TILE;
        if (start + TILE <= n) {
            mbarrier_arrive_expect_tx(bar, s11::TILE * 4);
            copy_bulk(smem_u32(tile_words), input + start, s11::TILE * 4, bar);
        }
        const u64 ahead = start + s11::AHEAD * TILE;
        if (s11::AHEAD > 0 && n < s11::BULK_PREFETCH_BELOW && ahead + TILE <= n)
            prefetch_bulk_l2(input + ahead, s11::TILE * 4);
    }
    __syncthreads();
    const state::Claim claim = {words[0], words[1]};
    const u64 start = (u64)claim.tile * TILE;
    if (s11::AHEAD > 0 && n >= s11::BULK_PREFETCH_BELOW) tile::prefetch(input, n, (u64)(claim.tile + s11::AHEAD) * TILE, TILE);
    if (start + TILE <= n) {
        mbarrier_wait(bar, 0);
    } else {
        copy_partial_tile<E>(tile_words, input, n, start);
    }
    return claim;
}

// `store_rows`, pass 2: the outputs of the tile that starts at element `start`, row by row,
// each lane's first one base + before_lane[r] plus its unit's elements before it (exclusive)
// or up to it; 16-byte streaming stores (st.global.cs.v4) when the tile lies below n, else one
// by one below n.
template <class E>
__device__ __forceinline__ void store_rows(const u32* tile_words, u32* output, u64 n, u64 start,
                                           typename E::Value base, const Rows<E>& rows, u32 exclusive) {
    using V = typename E::Value;
    const bool whole = start + s11::TILE <= n;
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const u32 u = first_unit() + r * WARP_SIZE;
        const uint4 bits = reinterpret_cast<const uint4*>(tile_words)[u];
        const V x[4] = {E::from_bits(bits.x), E::from_bits(bits.y), E::from_bits(bits.z), E::from_bits(bits.w)};
        V running = E::add(base, rows.before_lane[r]);
        u32 out[4];
#pragma unroll
        for (u32 k = 0; k < 4; ++k) {
            const V next = E::add(running, x[k]);
            out[k] = E::to_bits(exclusive != 0 ? running : next);
            running = next;
        }
        const u64 at = start + 4 * (u64)u;
        if (whole) {
            __stcs(reinterpret_cast<int4*>(output + at), make_int4(out[0], out[1], out[2], out[3]));
        } else {
#pragma unroll
            for (u32 k = 0; k < 4; ++k)
                if (at + k < n) output[at + k] = out[k];
        }
    }
}
}  // namespace bulk
