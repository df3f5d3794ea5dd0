// Twin of kernels/src/scan/s09_warp_lookback.rs (step s09): the whole of warp 0 looks back,
// reading the status words of 32 predecessors per round trip; two ballots say which lanes saw
// an inclusive prefix and which saw nothing yet, and a butterfly shuffle adds the lanes that
// count. The look-back is scan.cuh's WarpWindow (s10 runs it too), the skeleton s07's
// single_pass. Rust's trailing_zeros of the prefix ballot is __ffs(prefixes) - 1 here.
//
// Launch: as s07: up to s09::THREADS (512) threads, one block per blockDim.x * ITEMS elements, no
// dynamic shared memory, s07's state.
#include "scan.cuh"

extern "C" __global__ void __launch_bounds__(s09::THREADS)
    s09_warp_lookback_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<I32, WarpWindow, 0>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s09::THREADS)
    s09_warp_lookback_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<F32, WarpWindow, 0>(input, output, n, state, exclusive, jitter);
}
