// Twin of kernels/src/scan/s01_hillis_steele.rs (step s01): Hillis and Steele's scan of a
// 512-element tile in shared memory, one element per thread: in round r every element adds
// the one 2^r places before it, reading one half of a doubled array and writing the other,
// a barrier between rounds (9 rounds, unrolled). Each tile's total goes to `sums`; the host
// scans those and adds each tile's offset back in with scan.cuh's scan_add_offsets_*.
//
// Launch: s01::THREADS (512) threads, one block per s01::TILE elements, no dynamic shared
// memory (the static 2 x TILE array `rounds`, 4 KiB).
#include "scan.cuh"

// The tile twice: round r reads one half and writes the other.
__shared__ __align__(16) u32 rounds[2 * s01::TILE];

// `hillis_steele`: scans tile blockIdx.x of input[0..n] into output (inclusive, or exclusive
// when `exclusive != 0`) and writes the tile's total to sums[blockIdx.x].
template <class E>
__device__ __forceinline__ void hillis_steele(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    using V = typename E::Value;
    constexpr u32 TILE = s01::TILE;
    const u32 t = threadIdx.x;
    const u64 tile_index = blockIdx.x;
    const u64 i = tile_index * TILE + t;
    rounds[t] = i < n ? input[i] : E::to_bits(E::ZERO);
    __syncthreads();
    u32 from = 0, to = TILE;
#pragma unroll
    for (u32 distance = 1; distance < TILE; distance *= 2) {
        // The barrier before ordered the last round's writes before these reads.
        const V mine = E::from_bits(rounds[from + t]);
        const V sum = t >= distance ? E::add(E::from_bits(rounds[from + t - distance]), mine) : mine;
        rounds[to + t] = E::to_bits(sum);
        __syncthreads();
        const u32 last = from;
        from = to;
        to = last;
    }
    const u32 value = exclusive == 0 ? rounds[from + t]
                      : t == 0       ? E::to_bits(E::ZERO)
                                     : rounds[from + t - 1];
    if (i < n) output[i] = value;
    // The last element's inclusive sum is the tile's total.
    if (t == TILE - 1) sums[tile_index] = rounds[from + t];
}

extern "C" __global__ void __launch_bounds__(s01::THREADS)
    s01_hillis_steele_i32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    hillis_steele<I32>(input, output, n, sums, exclusive);
}
extern "C" __global__ void __launch_bounds__(s01::THREADS)
    s01_hillis_steele_f32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    hillis_steele<F32>(input, output, n, sums, exclusive);
}
