// Twin of kernels/src/scan/s11_bulk_copy.rs (step s11): thread 0 claims the tile and starts
// one cp.async.bulk of its 32 KiB into shared memory, completed on an mbarrier; each warp then
// scans its 8 rows of one 16-byte unit per lane (a warp scan per row, the row's total carried
// into the next), lane 31 hands the warp's total to s04's block_exclusive_scan, warp 0 looks
// back (s09's WarpWindow), and the outputs are written row by row, coalesced. The last,
// partial tile is copied by the block with ordinary loads. The bulk copy and the mbarrier are
// hopper.cuh's, the same instructions as kernels/src/device/tma.rs.
//
// Launch: s11::THREADS (256) threads, s11::SHARED_BYTES of dynamic shared memory, one block
// per s11::TILE (8192) elements, s07's state; `input` and `output` 16-byte aligned. sm_90.
#include "scan.cuh"
#include "hopper.cuh"

// The block's claim (tile, epoch), then the sum of every tile before it.
__shared__ u32 bulk_copy_words[3];

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

template <class E>
__device__ __forceinline__ void bulk_copy(const u32* input, u32* output, u64 n, u64* state, u32 exclusive,
                                          u32 jitter) {
    using V = typename E::Value;
    extern __shared__ __align__(16) u32 tile_words[];
    const u32 bar = smem_u32(tile_words + s11::TILE);  // the mbarrier right after the tile
    constexpr u64 TILE = s11::TILE;
    if (threadIdx.x == 0) {
        mbarrier_init(bar, 1);
        fence_barrier_init();
        const state::Claim claim = state::claim_tile(state, jitter);
        bulk_copy_words[0] = claim.tile;
        bulk_copy_words[1] = claim.epoch;
        const u64 start = (u64)claim.tile * TILE;
        if (start + TILE <= n) {
            mbarrier_arrive_expect_tx(bar, s11::TILE * 4);
            copy_bulk(smem_u32(tile_words), input + start, s11::TILE * 4, bar);
        }
    }
    __syncthreads();
    const state::Claim claim = {bulk_copy_words[0], bulk_copy_words[1]};
    const u64 start = (u64)claim.tile * TILE;
    if (s11::AHEAD > 0) tile::prefetch(input, n, (u64)(claim.tile + s11::AHEAD) * TILE, TILE);
    const bool whole = start + TILE <= n;
    if (whole) {
        mbarrier_wait(bar, 0);
    } else {
        // The last, partial tile: the block copies what lies below n, zeros after.
        for (u32 i = threadIdx.x; i < s11::TILE; i += s11::THREADS)
            tile_words[i] = start + i < n ? input[start + i] : E::to_bits(E::ZERO);
        __syncthreads();
    }
    // Pass 1: each row's lane offsets, and the warp's total.
    const u32 first_unit = warp_idx() * s11::ROWS * WARP_SIZE + lane_idx();
    V before_lane[s11::ROWS];
    V carry = E::ZERO;
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const uint4 bits = reinterpret_cast<const uint4*>(tile_words)[first_unit + r * WARP_SIZE];
        const V x[4] = {E::from_bits(bits.x), E::from_bits(bits.y), E::from_bits(bits.z), E::from_bits(bits.w)};
        const RowScan<E> row = scan_row<E>(x, carry);
        before_lane[r] = row.before;
        carry = E::add(carry, row.total);
    }
    const V warp_total = lane_idx() == WARP_SIZE - 1 ? carry : E::ZERO;
    const auto [before_warp, aggregate] = block_exclusive_scan<E>(warp_total);
    if (warp_idx() == 0) {
        V before_tile = E::ZERO;
        if (claim.tile != 0) {
            state::pause(jitter, 1);
            before_tile = WarpWindow<E>::prefix_before(state, claim, aggregate, jitter);
        }
        if (lane_idx() == 0) {
            state::publish(state, claim, status::PREFIX, E::to_bits(E::add(before_tile, aggregate)));
            bulk_copy_words[2] = E::to_bits(before_tile);
        }
    }
    __syncthreads();
    // Pass 2: the outputs, row by row, from the tile in shared memory.
    const V base = E::add(E::from_bits(bulk_copy_words[2]), before_warp);
#pragma unroll
    for (u32 r = 0; r < s11::ROWS; ++r) {
        const u32 u = first_unit + r * WARP_SIZE;
        const uint4 bits = reinterpret_cast<const uint4*>(tile_words)[u];
        const V x[4] = {E::from_bits(bits.x), E::from_bits(bits.y), E::from_bits(bits.z), E::from_bits(bits.w)};
        V running = E::add(base, before_lane[r]);
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

extern "C" __global__ void __launch_bounds__(s11::THREADS)
    s11_bulk_copy_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    bulk_copy<I32>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s11::THREADS)
    s11_bulk_copy_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    bulk_copy<F32>(input, output, n, state, exclusive, jitter);
}
