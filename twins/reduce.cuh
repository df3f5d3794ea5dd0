// Pieces shared by the reduction twins (twins/reduce/*.cu). Each is the C++ of one helper of
// kernels/src/reduce/ or kernels/src/device/, named in its comment; the constants are those
// of common/src/reduce.rs.
//
// Sums are `int` and wrap modulo 2^32, as Rust's `wrapping_add` does (add.s32 either way;
// CUDA code has always written reductions this way, the seeds included).
#pragma once

// common/src/reduce.rs
constexpr unsigned VECTOR_SUM_BLOCK = 512;  // threads per block of v0..v4 and x1
constexpr unsigned BATCH = 32;           // consecutive inputs per thread in v3, v4, x1
constexpr unsigned STREAM_BLOCK = 512;   // threads per block of x2..x4 (the host's launch)
constexpr unsigned STREAM_UNROLL = 4;    // 16-byte loads in flight per thread in x2..x4

constexpr unsigned WARP_SIZE = 32;
constexpr unsigned ALL_LANES = 0xffffffffu;

// device/index.rs: the thread's index in the grid and the grid's thread count, in 64 bits
// (mul.wide.u32), so that inputs past 2^32 elements index correctly.
__device__ __forceinline__ size_t global_thread_idx() {
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ size_t grid_threads() {
    return (size_t)gridDim.x * blockDim.x;
}

// ---- Harris ladder -------------------------------------------------------------------

// h4_unrolled_last_warp.rs `last_warp_sum`: warp 0 (tid < 32) folds sdata[0..64]; lane 0
// returns the total. Each level: publish, warp barrier, read the partner, warp barrier
// (the race-free form of Harris's volatile warpReduce).
__device__ __forceinline__ int last_warp_sum(int* sdata, unsigned tid) {
    int value = sdata[tid] + sdata[tid + 32];
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        sdata[tid] = value;
        __syncwarp();
        value += sdata[tid + offset];
        __syncwarp();
    }
    return value;
}

// h5_complete_unroll.rs `fold_upper_half`: one level of the tree, then a block barrier.
template <unsigned HALF>
__device__ __forceinline__ void fold_upper_half(int* sdata, unsigned tid) {
    if (tid < HALF) sdata[tid] += sdata[tid + HALF];
    __syncthreads();
}

// h5_complete_unroll.rs `block_tree_sum`: the tree for a BLOCK-thread block with every level
// written out (BLOCK a power of two from 64 to 512); thread 0 returns the total.
template <unsigned BLOCK>
__device__ __forceinline__ int block_tree_sum(int* sdata, unsigned tid) {
    if (BLOCK >= 512) fold_upper_half<256>(sdata, tid);
    if (BLOCK >= 256) fold_upper_half<128>(sdata, tid);
    if (BLOCK >= 128) fold_upper_half<64>(sdata, tid);
    return tid < 32 ? last_warp_sum(sdata, tid) : 0;
}

// ---- the ladder of “Making vector sum really fast” ------------------------------------

// v1_last_warp_synced.rs `block_sum`: the block's total of `value` to thread 0, through
// the static array of v0 (`block_sums`, 512 ints): block-barrier tree down to 64 values,
// then the last warp. For VECTOR_SUM_BLOCK-thread blocks.
__device__ __forceinline__ int block_sum(int value) {
    __shared__ __align__(16) int block_sums[VECTOR_SUM_BLOCK];
    const unsigned tid = threadIdx.x;
    block_sums[tid] = value;
    __syncthreads();
#pragma unroll
    for (unsigned active = VECTOR_SUM_BLOCK / 2; active > 32; active /= 2) {
        if (tid < active) block_sums[tid] += block_sums[tid + active];
        __syncthreads();
    }
    return tid < 32 ? last_warp_sum(block_sums, tid) : 0;
}

// device/load.rs I32x4::wrapping_sum: the four lanes of a 16-byte unit, (a + b) + (c + d).
__device__ __forceinline__ int int4_sum(int4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// ---- the project's steps (x1..x4) ----------------------------------------------------

// x1_warp_shuffles.rs `warp_sum`: shfl.down at 16, 8, 4, 2, 1 folds the warp into lane 0.
__device__ __forceinline__ int warp_sum(int value) {
#pragma unroll
    for (unsigned delta = 16; delta > 0; delta /= 2)
        value += __shfl_down_sync(ALL_LANES, value, delta);
    return value;
}

// x1_warp_shuffles.rs `block_sum_shuffles`: each warp folds by shuffles, lane 0 of each
// writes one total (static array of 32 ints), one block barrier, warp 0 folds the totals.
// Thread 0 returns the block's total. Block size a multiple of 32.
__device__ __forceinline__ int block_sum_shuffles(int value) {
    constexpr unsigned MAX_WARPS = 32;
    __shared__ __align__(16) int warp_totals[MAX_WARPS];
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const unsigned warp = threadIdx.x / WARP_SIZE;
    const int warp_total = warp_sum(value);
    if (lane == 0) warp_totals[warp] = warp_total;
    __syncthreads();
    if (warp != 0) return 0;
    const unsigned warps = blockDim.x / WARP_SIZE;
    const int mine = lane < warps ? warp_totals[lane] : 0;
    return warp_sum(mine);
}

// x2_grid_stride_unrolled.rs `thread_sum_streaming`: this thread's share of input[0..n].
// Whole tiles of blockDim × STREAM_UNROLL 16-byte units, strided over by the grid: thread t
// issues its STREAM_UNROLL streaming loads (units t, t + block, ...) before adding any.
// Then the units after the last whole tile, one per thread across the grid; then the
// last n % 4 elements, one each to the first threads of the grid. `input` 16-byte aligned.
__device__ __forceinline__ int thread_sum_streaming(const int* input, size_t n) {
    const int4* units = reinterpret_cast<const int4*>(input);
    const size_t whole_units = n / 4;
    const size_t block = blockDim.x;
    const size_t tile = block * STREAM_UNROLL;
    const size_t whole_tiles = whole_units / tile;
    int sum = 0;

    for (size_t t = blockIdx.x; t < whole_tiles; t += gridDim.x) {
        const size_t first = t * tile + threadIdx.x;
        int4 loaded[STREAM_UNROLL];
#pragma unroll
        for (unsigned k = 0; k < STREAM_UNROLL; ++k)
            loaded[k] = __ldcs(units + first + k * block);  // ld.global.cs.v4.s32
#pragma unroll
        for (unsigned k = 0; k < STREAM_UNROLL; ++k)
            sum += int4_sum(loaded[k]);
    }
    for (size_t unit = whole_tiles * tile + global_thread_idx(); unit < whole_units;
         unit += grid_threads())
        sum += int4_sum(__ldcs(units + unit));
    const size_t tail = whole_units * 4 + global_thread_idx();
    if (tail < n) sum += __ldcs(input + tail);  // ld.global.cs.s32
    return sum;
}

// device/atomic.rs `atomic_add_acq_rel_u32`: atom.acq_rel.gpu.global.add.u32, returning the
// old value. The CUDA 12.8 builtin __nv_atomic_fetch_add(p, v, __NV_ATOMIC_ACQ_REL,
// __NV_THREAD_SCOPE_DEVICE) is inline PTX on the generic address (SASS ATOM, not ATOMG), so
// the global-space instruction is written out as the Rust does.
__device__ __forceinline__ unsigned atomic_add_acq_rel_gpu(unsigned* p, unsigned v) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(__cvta_generic_to_global(p)), "r"(v) : "memory");
    return old;
}

// device/atomic.rs `store_relaxed_u64`: st.relaxed.gpu.global.u64, a store that takes part
// in the memory model like an atomic (the builtin __nv_atomic_store_n is generic-space too).
__device__ __forceinline__ void store_relaxed_gpu(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
                 :: "l"(__cvta_generic_to_global(p)), "l"(v) : "memory");
}
