// Twin of kernels/src/scan/s10_prefetch.rs (step s10): s09's single pass, each block first
// asking L2 for the tile s10::AHEAD tickets past its own (one prefetch.global.L2 per 128-byte
// line, scan.cuh's tile::prefetch), so that the block that claims it finds it in L2. The
// skeleton is s07's single_pass, the look-back s09's WarpWindow.
//
// Launch: as s07: up to s10::THREADS (512) threads, one block per blockDim.x * ITEMS elements,
// no dynamic shared memory, s07's state.
#include "scan.cuh"

extern "C" __global__ void __launch_bounds__(s10::THREADS)
    s10_prefetch_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<I32, WarpWindow, s10::AHEAD>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s10::THREADS)
    s10_prefetch_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    single_pass<F32, WarpWindow, s10::AHEAD>(input, output, n, state, exclusive, jitter);
}
