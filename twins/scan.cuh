// Pieces shared by the scan twins (twins/scan/*.cu), under the names of their Rust originals
// in kernels/src/scan/: the element types (mod.rs), the shapes and the status word
// (common/src/scan.rs), s04's warp and block scans, the thread's items (tile.rs), the
// single-pass state (state.rs), the kernel bodies that two steps share (s02's Blelloch tile,
// s07's single-pass skeleton, s09's warp look-back) and the propagation kernel (support.rs).
//
// Elements travel through memory as their 32 bits (`u32`), as in the Rust, and are scanned
// as `E::Value`: `int` for I32, `float` for F32. Rust's `Element` trait is a traits struct
// here, and its `LookBack` trait a template (Chained<E>, Decoupled<E>, WarpWindow<E>) that
// single_pass takes as a template template parameter.
#pragma once

// The Rust kernels' scalar types: elements as bits and counts (u32); lengths, indices and
// status words (u64, Rust's usize on the GPU).
typedef unsigned int u32;
typedef unsigned long long u64;

constexpr u32 WARP_SIZE = 32;
constexpr u32 ALL_LANES = 0xffffffffu;

// device/index.rs: the thread's lane in its warp and its warp in the block.
__device__ __forceinline__ u32 lane_idx() { return threadIdx.x % WARP_SIZE; }
__device__ __forceinline__ u32 warp_idx() { return threadIdx.x / WARP_SIZE; }

// ---- common/src/scan.rs ------------------------------------------------------------------

// The steps' shapes, one namespace per step as the Rust has one module, each built from its
// predecessor's.
namespace s01 {  // Hillis and Steele: one element per thread, a tile per block
constexpr u32 THREADS = 512;
constexpr u32 TILE = THREADS;
}  // namespace s01
namespace s02 {  // Blelloch: two elements per thread
constexpr u32 THREADS = 256;
constexpr u32 TILE = 2 * THREADS;
}  // namespace s02
namespace s03 {  // s02's tile, its shared array padded by one word in 32
using s02::THREADS;
using s02::TILE;
constexpr u32 PADDED = TILE + TILE / 32;  // words of the padded tile in shared memory
}  // namespace s03
namespace s04 {  // warp shuffles: one element per thread, as s01
constexpr u32 THREADS = 512;
constexpr u32 TILE = THREADS;
}  // namespace s04
namespace s05 {  // s04's block, ITEMS consecutive elements per thread
using s04::THREADS;
constexpr u32 ITEMS = 16;
constexpr u32 TILE = THREADS * ITEMS;
}  // namespace s05
namespace s06 {  // reduce, then scan: s05's tiles
using s05::ITEMS;
using s05::THREADS;
using s05::TILE;
}  // namespace s06
namespace s07 {  // chained scan: s05's tiles, claimed through a ticket
using s05::ITEMS;
using s05::THREADS;
using s05::TILE;
}  // namespace s07
namespace s08 {  // decoupled look-back: s07's tiles and state
using s07::ITEMS;
using s07::THREADS;
using s07::TILE;
}  // namespace s08
namespace s09 {  // warp look-back: s08's tiles and state
using s08::ITEMS;
using s08::THREADS;
using s08::TILE;
}  // namespace s09
namespace s10 {  // prefetch ahead: s09's tiles and state; a block prefetches the tile AHEAD past its own
using s09::ITEMS;
using s09::THREADS;
using s09::TILE;
constexpr u32 AHEAD = 256;
}  // namespace s10
namespace s11 {  // the tile through shared memory by bulk copy: 256 threads, 8 rows per warp
constexpr u32 AHEAD = 128;  // tiles to the one prefetched into L2: half s10's distance
constexpr u64 BULK_PREFETCH_BELOW = 1ull << 25;  // shorter inputs: one bulk prefetch per tile
constexpr u32 THREADS = 256;
constexpr u32 ROWS = 8;  // rows of one 16-byte unit per lane that each warp scans
constexpr u32 TILE = THREADS * ROWS * 4;
constexpr u32 TILE_ALIGN = 128;  // the tile starts on a 128-byte line
constexpr u32 SHARED_BYTES = TILE * 4 + 8 + TILE_ALIGN;  // the tile, then its copy's mbarrier, the slack
}  // namespace s11
namespace s12 {  // a resident block per SM: a ring of tiles, eight consumer warps and a producer warp
constexpr u32 AHEAD = s11::AHEAD;
constexpr u32 TILE = s11::TILE;
constexpr u32 CONSUMERS = s11::THREADS;
constexpr u32 THREADS = CONSUMERS + 32;
constexpr u32 STAGES = 6;  // six 32 KiB slots: one block per SM
constexpr u32 WINDOW = CONSUMERS;  // status words read per round trip of the look-back
constexpr u32 RING_ALIGN = s11::TILE_ALIGN;  // the ring starts on a 128-byte line, as s11's tile
constexpr u32 SHARED_BYTES = STAGES * (TILE * 4 + 16) + RING_ALIGN;  // the slots, a "full" and an "empty" mbarrier each, the slack
}  // namespace s12
namespace s13 {  // stream compaction: s10's tiles, state and prefetch
using s10::AHEAD;
using s10::ITEMS;
using s10::THREADS;
using s10::TILE;
}  // namespace s13
namespace s14 {  // compaction staged in shared memory: s11's tile, bulk copy and rows
using s11::AHEAD;
using s11::ROWS;
using s11::SHARED_BYTES;
using s11::THREADS;
using s11::TILE;
}  // namespace s14

// Threads per block of the propagation kernel (the scan-then-propagate steps' last pass).
constexpr u32 ADD_THREADS = 256;

// Words of a single-pass step's state for `tiles` tiles: the ticket counter, then one status
// word per tile (all u64, zeroed once when allocated, never reset).
__host__ __device__ constexpr u64 state_words(u64 tiles) { return 1 + tiles; }

// A tile's status word in the single-pass steps, written and read whole: the low 32 bits the
// value (the tile's aggregate or its inclusive prefix, as bits), the high 32 the launch's
// epoch times 4 plus the kind. A word of another epoch reads as not yet written, so the state
// never needs clearing between launches.
namespace status {
constexpr u32 AGGREGATE = 1;  // only the tile's own sum is known
constexpr u32 PREFIX = 2;     // the sum of every element up to the end of the tile is known

// The word for `value` of `kind` in launch `epoch`.
__host__ __device__ constexpr u64 word(u32 epoch, u32 kind, u32 value) {
    return ((u64)((epoch << 2) | kind) << 32) | value;
}
// The kind of `word` if it was written in launch `epoch`, else 0 (not written yet).
__host__ __device__ constexpr u32 kind(u64 word, u32 epoch) {
    const u32 high = (u32)(word >> 32);
    return high >> 2 == epoch ? high & 3 : 0;
}
// The value bits of `word`.
__host__ __device__ constexpr u32 value(u64 word) { return (u32)word; }
// The launch epoch of ticket `ticket` (1 for a state's first launch): every launch over
// `tiles` tiles takes exactly `tiles` tickets, in order.
__host__ __device__ constexpr u32 epoch(u64 ticket, u64 tiles) { return (u32)(ticket / tiles) + 1; }
}  // namespace status

// The predicate of stream compaction (s13): keep the elements greater than zero.
__host__ __device__ constexpr bool keep_i32(int x) { return x > 0; }

// ---- mod.rs: the elements -----------------------------------------------------------------

// i32, its sums wrapping modulo 2^32 as Rust's wrapping_add: added as unsigned (signed
// overflow is undefined in C++), the same add.s32.
struct I32 {
    typedef int Value;
    static constexpr int ZERO = 0;
    static __device__ __forceinline__ int add(int a, int b) { return (int)((u32)a + (u32)b); }
    static __device__ __forceinline__ u32 to_bits(int v) { return (u32)v; }
    static __device__ __forceinline__ int from_bits(u32 bits) { return (int)bits; }
};

// f32, IEEE addition (add.f32 where the Rust emits add.rn.f32: both become FADD, since no
// multiply sits beside an add to be fused with it).
struct F32 {
    typedef float Value;
    static constexpr float ZERO = 0.0f;
    static __device__ __forceinline__ float add(float a, float b) { return a + b; }
    static __device__ __forceinline__ u32 to_bits(float v) { return __float_as_uint(v); }
    static __device__ __forceinline__ float from_bits(u32 bits) { return __uint_as_float(bits); }
};

// ---- s04_warp_shuffles.rs: the warp and block scans ---------------------------------------

constexpr u32 MAX_WARPS = 32;  // the most warps a block of this ladder has (1024 threads)

// Each warp's total, then (after warp 0 scans them) each warp's inclusive prefix.
__shared__ __align__(16) u32 scan_warp_totals[MAX_WARPS];

// `warp_inclusive_scan`: the inclusive scan of the 32 lanes' values: in round r each lane
// adds the value 2^r lanes below it (shfl.sync.up), lanes below 2^r keep theirs. All 32
// lanes call it.
template <class E>
__device__ __forceinline__ typename E::Value warp_inclusive_scan(typename E::Value value) {
    using V = typename E::Value;
    const u32 lane = lane_idx();
#pragma unroll
    for (u32 delta = 1; delta < WARP_SIZE; delta *= 2) {
        const V below = E::from_bits(__shfl_up_sync(ALL_LANES, E::to_bits(value), delta));
        if (lane >= delta) value = E::add(below, value);
    }
    return value;
}

// What block_exclusive_scan returns (the Rust's pair, which a structured binding unpacks):
// the sum of the values of the threads before this one, and the block's total.
template <class E>
struct BlockScan {
    typename E::Value exclusive;
    typename E::Value total;
};

// `block_exclusive_scan`: the block's exclusive scan of one value per thread. Each warp scans
// its lanes; the last lane of each writes the warp's total; after a barrier warp 0 scans the
// totals; after a second each thread adds the totals before its warp. Every thread of a
// block of at most 1024 threads, a multiple of 32, calls it; a second call in the same kernel
// needs a barrier before it (the totals are reused).
template <class E>
__device__ __forceinline__ BlockScan<E> block_exclusive_scan(typename E::Value value) {
    using V = typename E::Value;
    const u32 lane = lane_idx(), warp = warp_idx();
    const u32 warps = blockDim.x / WARP_SIZE;
    const V inclusive = warp_inclusive_scan<E>(value);
    if (lane == WARP_SIZE - 1) scan_warp_totals[warp] = E::to_bits(inclusive);
    __syncthreads();
    if (warp == 0) {
        // Lane l reads and then writes word l alone.
        const V total = lane < warps ? E::from_bits(scan_warp_totals[lane]) : E::ZERO;
        const V scanned = warp_inclusive_scan<E>(total);
        if (lane < warps) scan_warp_totals[lane] = E::to_bits(scanned);
    }
    __syncthreads();
    // The lane before's inclusive sum is this lane's exclusive one within the warp.
    const V below = E::from_bits(__shfl_up_sync(ALL_LANES, E::to_bits(inclusive), 1));
    const V before_warp = warp == 0 ? E::ZERO : E::from_bits(scan_warp_totals[warp - 1]);
    const V block_total = E::from_bits(scan_warp_totals[warps - 1]);
    const V exclusive = lane == 0 ? before_warp : E::add(before_warp, below);
    return {exclusive, block_total};
}

// ---- tile.rs: a thread's ITEMS consecutive elements, from s05 on ---------------------------

namespace tile {
constexpr u32 N = s05::ITEMS;  // elements per thread

// The Rust's [E; N], as a value a function can return.
template <class E>
struct Items {
    typename E::Value at[N];
};

// `load`: the thread's elements first..first + N of input[0..n], zero past n: four 16-byte
// streaming loads (ld.global.cs.v4) when all lie below n, else one by one. `input` 16-byte
// aligned, `first` a multiple of 4.
template <class E>
__device__ __forceinline__ Items<E> load(const u32* input, u64 n, u64 first) {
    Items<E> items;
    if (first + N <= n) {
        const int4* units = reinterpret_cast<const int4*>(input + first);
#pragma unroll
        for (u32 u = 0; u < N / 4; ++u) {
            const int4 v = __ldcs(units + u);
            items.at[4 * u + 0] = E::from_bits(v.x);
            items.at[4 * u + 1] = E::from_bits(v.y);
            items.at[4 * u + 2] = E::from_bits(v.z);
            items.at[4 * u + 3] = E::from_bits(v.w);
        }
    } else {
        // The elements left below n, and one base address: each element an offset from it.
        const u64 left = n > first ? n - first : 0;
        const u32* base = input + first;
#pragma unroll
        for (u32 k = 0; k < N; ++k) items.at[k] = k < left ? E::from_bits(base[k]) : E::ZERO;
    }
    return items;
}

// `prefetch`: asks L2 for the lines of the `len` elements that start at element `start` of
// input[0..n] (those below n): one prefetch.global.L2 per 128-byte line, by the block's first
// len / 32 threads. Nothing waits for them.
__device__ __forceinline__ void prefetch(const u32* input, u64 n, u64 start, u64 len) {
    constexpr u64 LINE = 32;  // elements of one 128-byte line
    const u64 line = start + threadIdx.x * LINE;
    if (threadIdx.x * LINE < len && line < n)
        asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %0; prefetch.global.L2 [g]; }" ::"l"(input + line));
}

// `sum`: the sum of the thread's elements, left to right, from zero.
template <class E>
__device__ __forceinline__ typename E::Value sum(const Items<E>& items) {
    typename E::Value acc = E::ZERO;
#pragma unroll
    for (u32 k = 0; k < N; ++k) acc = E::add(acc, items.at[k]);
    return acc;
}

// `scan`: the thread's outputs given the sum of everything before its first element: each
// element's inclusive sum, or its exclusive one.
template <class E>
__device__ __forceinline__ Items<E> scan(const Items<E>& items, typename E::Value before, bool exclusive) {
    Items<E> out;
    typename E::Value running = before;
#pragma unroll
    for (u32 k = 0; k < N; ++k) {
        const typename E::Value next = E::add(running, items.at[k]);
        out.at[k] = exclusive ? running : next;
        running = next;
    }
    return out;
}

// `store`: the thread's outputs at first..first + N of output[0..n], those below n: four
// 16-byte streaming stores (st.global.cs.v4) when all are, else one by one.
template <class E>
__device__ __forceinline__ void store(u32* output, u64 n, u64 first, const Items<E>& values) {
    if (first + N <= n) {
        int4* units = reinterpret_cast<int4*>(output + first);
#pragma unroll
        for (u32 u = 0; u < N / 4; ++u)
            __stcs(units + u, make_int4(E::to_bits(values.at[4 * u + 0]), E::to_bits(values.at[4 * u + 1]),
                                        E::to_bits(values.at[4 * u + 2]), E::to_bits(values.at[4 * u + 3])));
    } else {
        const u64 left = n > first ? n - first : 0;
        u32* base = output + first;
#pragma unroll
        for (u32 k = 0; k < N; ++k)
            if (k < left) base[k] = E::to_bits(values.at[k]);
    }
}
}  // namespace tile

// ---- state.rs: the single-pass steps' ticket counter and status words ----------------------

namespace state {
// A block's tile and the launch it belongs to (epoch 1 for the state's first launch).
struct Claim {
    u32 tile;
    u32 epoch;
};

// `pause`, the test-only jitter: sleeps 0..jitter ns, a pseudo-random time per block and salt.
__device__ __forceinline__ void pause(u32 jitter, u32 salt) {
    if (jitter != 0) {
        const u32 h = (blockIdx.x ^ (salt * 0x9E3779B9u)) * 0x85EBCA6Bu;
        __nanosleep((h ^ (h >> 15)) % jitter);
    }
}

// `claim_tile`: takes the next ticket from state[0]: its tile is ticket mod tiles, its epoch
// ticket / tiles + 1. Tickets go out in the order blocks reach this line, so a block only
// ever waits for blocks that already run. One thread per block, once; one block per tile.
// atomicAdd on a u64 is atom.global.add.u64, relaxed at GPU scope like the Rust's
// atom.relaxed.gpu.global.add.u64.
__device__ __forceinline__ Claim claim_tile(u64* state, u32 jitter) {
    pause(jitter, 0);
    const u64 ticket = atomicAdd(state, 1ull);
    const u64 tiles = gridDim.x;
    return {(u32)(ticket % tiles), status::epoch(ticket, tiles)};
}

// `claim_for_block`: the block's claim, for every thread: thread 0 takes the ticket and hands
// it to the others through words[0..2], across a barrier. Every thread calls it, once.
__device__ __forceinline__ Claim claim_for_block(u32* words, u64* state, u32 jitter) {
    if (threadIdx.x == 0) {
        const Claim claim = claim_tile(state, jitter);
        words[0] = claim.tile;
        words[1] = claim.epoch;
    }
    __syncthreads();
    return {words[0], words[1]};
}

// `publish`: `value` of `kind` as the claim's tile's status word, whole, with
// st.relaxed.gpu.global.u64 (device/atomic.rs store_relaxed_u64; C++'s builtin
// __nv_atomic_store_n addresses generic memory, so the global-space instruction is written
// out as the Rust does).
__device__ __forceinline__ void publish(u64* state, Claim claim, u32 kind, u32 value) {
    u64* word = state + 1 + claim.tile;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
                 :: "l"(__cvta_generic_to_global(word)), "l"(status::word(claim.epoch, kind, value)) : "memory");
}

// `read`: tile `tile`'s status word as it is now, with ld.relaxed.gpu.global.u64
// (device/atomic.rs load_relaxed_u64): from L2, never a stale L1 copy. Volatile: a spin loop
// reads it again each time round.
__device__ __forceinline__ u64 read(u64* state, u32 tile) {
    u64 word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
                 : "=l"(word) : "l"(__cvta_generic_to_global(state + 1 + tile)) : "memory");
    return word;
}
}  // namespace state

// ---- s02_blelloch.rs: the Blelloch tile, for s02 and s03 ----------------------------------

// `blelloch_tile<E, L: Layout>`: scans the tile blockIdx.x of input[0..n] into output
// (inclusive, or exclusive when `exclusive != 0`) and writes the tile's total to
// sums[blockIdx.x], keeping the tile in shared memory where `Layout::slot(i)` says: an
// up-sweep builds a tree of partial sums in place, the down-sweep turns it into the exclusive
// scan. A Layout (s02's Unpadded, s03's Padded) has `WORDS`, the words of dynamic shared
// memory the launch gives, and `slot(i)`, the word of element i. s02::THREADS threads per
// block, one block per s02::TILE elements.
template <class E, class Layout>
__device__ __forceinline__ void blelloch_tile(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    using V = typename E::Value;
    constexpr u32 THREADS = s02::THREADS, TILE = s02::TILE;
    extern __shared__ __align__(16) u32 tree[];
    const u32 t = threadIdx.x;
    const u64 base = (u64)blockIdx.x * TILE;
    // Thread t holds elements t and t + THREADS: each load and store of a warp is contiguous.
    const u32 mine[2] = {t, t + THREADS};
    V x[2];
#pragma unroll
    for (u32 k = 0; k < 2; ++k) {
        const u64 i = base + mine[k];
        x[k] = i < n ? E::from_bits(input[i]) : E::ZERO;
        tree[Layout::slot(mine[k])] = E::to_bits(x[k]);
    }
    // The up-sweep: at distance d, thread t < TILE / (2d) adds node (2t + 1)d - 1 into node
    // (2t + 2)d - 1.
    u32 distance = 1;
#pragma unroll
    for (; distance < TILE; distance *= 2) {
        __syncthreads();
        if (t < TILE / (2 * distance)) {
            const u32 left = Layout::slot((2 * t + 1) * distance - 1);
            const u32 right = Layout::slot((2 * t + 2) * distance - 1);
            tree[right] = E::to_bits(E::add(E::from_bits(tree[left]), E::from_bits(tree[right])));
        }
    }
    __syncthreads();
    if (t == 0) {
        sums[blockIdx.x] = tree[Layout::slot(TILE - 1)];
        tree[Layout::slot(TILE - 1)] = E::to_bits(E::ZERO);
    }
    // The down-sweep: at distance d, the right node takes its own value plus the left's, the
    // left takes the right's.
#pragma unroll
    while (distance > 1) {
        distance /= 2;
        __syncthreads();
        if (t < TILE / (2 * distance)) {
            const u32 left = Layout::slot((2 * t + 1) * distance - 1);
            const u32 right = Layout::slot((2 * t + 2) * distance - 1);
            const u32 l = tree[left], r = tree[right];
            tree[left] = r;
            tree[right] = E::to_bits(E::add(E::from_bits(r), E::from_bits(l)));
        }
    }
    __syncthreads();
#pragma unroll
    for (u32 k = 0; k < 2; ++k) {
        const u64 i = base + mine[k];
        if (i < n) {
            const V before = E::from_bits(tree[Layout::slot(mine[k])]);
            output[i] = E::to_bits(exclusive != 0 ? before : E::add(before, x[k]));
        }
    }
}

// ---- s07_chained.rs: the single-pass skeleton, for s07, s08 and s09 -----------------------

// The block's claim (tile, epoch), then the sum of every tile before it: from the thread that
// learns them to the others. 4-byte aligned where the Rust's static is 16: NVVM splits the
// three words into scalars, each 16-byte aligned if the array is (156 B of shared memory
// in all where the Rust has 144; 140 this way).
__shared__ u32 single_pass_words[3];

// `tile_prefix<E, L: LookBack>`: the sum of every tile before claim.tile, to every thread:
// warp 0 learns it as LookBack says (zero for tile 0), publishes the tile's inclusive prefix
// (that sum plus `aggregate`) and hands the sum to the others through `*word`, across a
// barrier. Every thread calls it, once per tile.
template <class E, template <class> class LookBack>
__device__ __forceinline__ typename E::Value tile_prefix(u64* state, state::Claim claim, typename E::Value aggregate,
                                                         u32 jitter, u32* word) {
    if (warp_idx() == 0) {
        typename E::Value before_tile = E::ZERO;
        if (claim.tile != 0) {
            state::pause(jitter, 1);
            before_tile = LookBack<E>::prefix_before(state, claim, aggregate, jitter);
        }
        if (lane_idx() == 0) {
            state::publish(state, claim, status::PREFIX, E::to_bits(E::add(before_tile, aggregate)));
            *word = E::to_bits(before_tile);
        }
    }
    __syncthreads();
    return E::from_bits(*word);
}

// `single_pass<E, L: LookBack, AHEAD>`: one pass of the scan over input[0..n] into output:
// claim a tile, prefetch the tile AHEAD past it into L2 (from s10 on; 0: none), load it, scan it in the block, learn the sum of every tile before it as LookBack says,
// publish the inclusive prefix, store. A LookBack<E> (s07's Chained, s08's Decoupled, s09's
// WarpWindow) has
//     static E::Value prefix_before(u64* state, state::Claim claim, E::Value aggregate, u32 jitter)
// called by all 32 lanes of warp 0, once per block, for claim.tile > 0: the sum of every
// element before the tile, whose own total is `aggregate`, to lane 0.
// Launched with a power of two of 64 to s07::THREADS threads per block, one block per
// blockDim.x * ITEMS elements; `input` and `output` 16-byte aligned (they may be the same buffer); `state` holds state_words(gridDim.x) words,
// zeroed before the state's first launch, every launch on it with this grid.
template <class E, template <class> class LookBack, u32 AHEAD>
__device__ __forceinline__ void single_pass(const u32* input, u32* output, u64 n, u64* state, u32 exclusive,
                                            u32 jitter) {
    using V = typename E::Value;
    const state::Claim claim = state::claim_for_block(single_pass_words, state, jitter);
    // The tile is the block's: blockDim.x threads of ITEMS elements (the host may launch fewer
    // than THREADS threads: more, smaller tiles).
    const u64 tile = (u64)blockDim.x * s07::ITEMS;
    const u64 first = (u64)claim.tile * tile + threadIdx.x * s07::ITEMS;
    if (AHEAD > 0) tile::prefetch(input, n, (u64)(claim.tile + AHEAD) * tile, tile);
    const tile::Items<E> items = tile::load<E>(input, n, first);
    const auto [before_thread, aggregate] = block_exclusive_scan<E>(tile::sum<E>(items));
    const V before =
        E::add(tile_prefix<E, LookBack>(state, claim, aggregate, jitter, &single_pass_words[2]), before_thread);
    tile::store<E>(output, n, first, tile::scan<E>(items, before, exclusive != 0));
}

// ---- s09_warp_lookback.rs: the warp look-back, for s09, s10 and s11 ----------------------------

// `warp_total`: the sum of the 32 lanes' values, to every lane (shfl.sync.bfly at 16 to 1).
template <class E>
__device__ __forceinline__ typename E::Value warp_total(typename E::Value value) {
#pragma unroll
    for (u32 distance = WARP_SIZE / 2; distance > 0; distance /= 2) {
        const u32 other = __shfl_xor_sync(ALL_LANES, E::to_bits(value), distance);
        value = E::add(value, E::from_bits(other));
    }
    return value;
}

// `WarpWindow`: lane 0 publishes the aggregate; then the warp reads the words of the 32 tiles
// before the window's end at once. The nearest prefix closes the sum: if every lane up to it
// saw at least an aggregate, the warp adds those lanes' values and is done; if none saw a
// prefix but all saw aggregates, it adds all 32 and moves the window back by 32; if a lane
// that counts saw nothing yet, it reads the window again.
template <class E>
struct WarpWindow {
    static __device__ __forceinline__ typename E::Value prefix_before(u64* state, state::Claim claim,
                                                                      typename E::Value aggregate, u32) {
        using V = typename E::Value;
        const u32 lane = lane_idx();
        if (lane == 0) state::publish(state, claim, status::AGGREGATE, E::to_bits(aggregate));
        V before = E::ZERO;
        // The window's lane l reads tile end - 1 - l; lanes before tile 0 read a zero prefix
        // (tile 0 publishes a prefix, so no window goes further back).
        long long end = claim.tile;
        while (true) {
            const long long tile = end - 1 - (long long)lane;
            const u64 word = tile >= 0 ? state::read(state, (u32)tile)
                                       : status::word(claim.epoch, status::PREFIX, E::to_bits(E::ZERO));
            const u32 kind = status::kind(word, claim.epoch);
            const u32 prefixes = __ballot_sync(ALL_LANES, kind == status::PREFIX);
            const u32 unwritten = __ballot_sync(ALL_LANES, kind == 0);
            // The lanes that count: up to the nearest prefix (its trailing zeros), or all 32.
            const u32 last = prefixes != 0 ? __ffs(prefixes) - 1 : WARP_SIZE - 1;
            const u32 counted = last == WARP_SIZE - 1 ? ALL_LANES : (2u << last) - 1;
            if (unwritten & counted) continue;  // a tile that counts has published nothing yet
            const V mine = lane <= last ? E::from_bits(status::value(word)) : E::ZERO;
            before = E::add(warp_total<E>(mine), before);
            if (prefixes != 0) return before;
            end -= WARP_SIZE;
        }
    }
};

// ---- support.rs: the propagation kernel ---------------------------------------------------

// `add_offsets`: adds offsets[t] to every element of tile t = blockIdx.x + 1 of data[0..n],
// tiles being `tile` elements long (tile 0 has nothing before it and gets no block): 16-byte
// streaming loads and stores where the unit is whole. ADD_THREADS threads per block; `tile`
// a multiple of 4; `data` 16-byte aligned.
template <class E>
__device__ __forceinline__ void add_offsets(u32* data, u64 n, const u32* offsets, u32 tile) {
    using V = typename E::Value;
    const u64 t = (u64)blockIdx.x + 1;
    const V offset = E::from_bits(offsets[t]);
    const u64 base = t * tile;
    for (u32 unit = threadIdx.x; unit < tile / 4; unit += ADD_THREADS) {
        const u64 i = base + 4 * (u64)unit;
        if (i + 4 <= n) {
            int4* p = reinterpret_cast<int4*>(data + i);
            int4 v = __ldcs(p);
            v.x = E::to_bits(E::add(E::from_bits(v.x), offset));
            v.y = E::to_bits(E::add(E::from_bits(v.y), offset));
            v.z = E::to_bits(E::add(E::from_bits(v.z), offset));
            v.w = E::to_bits(E::add(E::from_bits(v.w), offset));
            __stcs(p, v);
        } else {
            // A loop, as the Rust's stays (NVVM would unroll it four times).
            const u64 end = n < i + 4 ? n : i + 4;
#pragma unroll 1
            for (u64 j = i; j < end; ++j) data[j] = E::to_bits(E::add(E::from_bits(data[j]), offset));
        }
    }
}

// The propagation's entry points, here because every scan-then-propagate twin (s01..s05)
// includes this header: the host takes them from the module of the step's own twin.
extern "C" __global__ void __launch_bounds__(ADD_THREADS)
    scan_add_offsets_i32(u32* data, u64 n, const u32* offsets, u32 tile) {
    add_offsets<I32>(data, n, offsets, tile);
}
extern "C" __global__ void __launch_bounds__(ADD_THREADS)
    scan_add_offsets_f32(u32* data, u64 n, const u32* offsets, u32 tile) {
    add_offsets<F32>(data, n, offsets, tile);
}
