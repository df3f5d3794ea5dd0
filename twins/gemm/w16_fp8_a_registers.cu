// Twin of kernels/src/gemm/w16_fp8_a_registers.rs (step w16): w15 with A's fragments in
// registers. After a stage's wait each warp loads its 16 rows of the k tile's A with one
// ldmatrix.x4 per k32 (the address undoing the 128-byte swizzle TMA wrote), and both halves'
// wgmma m64n128k32 take them from registers: A is read from shared memory once per k tile,
// not once per half.
//
// Launch as the Rust step: as w14.
#include "fp8_gemm.cuh"

namespace w16 {
using namespace hopper;

// common::gemm::w16: w14's constants.
using Constants = w14::Constants;
constexpr unsigned THREADS = Constants::THREADS;
using w15::PARTIAL_COLUMNS;
// The unit the 128-byte swizzle permutes, and a warp's rows of A (mma.m16n8k32's A fragment).
constexpr unsigned CHUNK_BYTES = 16, WARP_ROWS = 16;
using W16 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// ldmatrix.sync.aligned.m8n8.x4.shared.b16 (device/mma.rs ldmatrix_x4): four 8 x 8 matrices of
// 16-bit values (here pairs of e4m3) into fragment registers; lane l names row l % 8 of matrix
// l / 8. (twins/tensor.cuh has it too, but repeats helpers hopper.cuh defines.)
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// The shared address lane tid % 32 gives ldmatrix.x4 for its warp's A fragment at k32 step kk:
// row l % 8 of matrix l / 8, the matrices (rows 0-7, bytes 0-15), (8-15, 0-15), (0-7, 16-31),
// (8-15, 16-31) of the step's 32 bytes; chunk c of row r lies at c ^ (r % 8).
__device__ __forceinline__ unsigned a_fragment_address(unsigned a_stage, unsigned tid, unsigned kk) {
    const unsigned lane = tid % WARP_SIZE;
    const unsigned warp_row0 = (tid / WARPGROUP) * WARPGROUP_ROWS + (tid % WARPGROUP) / WARP_SIZE * WARP_ROWS;
    const unsigned row = warp_row0 + lane % 8 + 8 * ((lane / 8) % 2);
    const unsigned chunk = kk * W16::MMA_K * W16::INPUT_BYTES / CHUNK_BYTES + lane / 16;
    return a_stage + row * ROW_BYTES + ((chunk ^ (row % 8)) * CHUNK_BYTES);
}

// w15's main loop with A from registers.
struct ARegistersMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        using S = W16;
        const auto& smem = consumer.smem;
        const unsigned tid = threadIdx.x;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
            unsigned a[MMAS_PER_K_TILE][4];
#pragma unroll
            for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) ldmatrix_x4(a[kk], a_fragment_address(smem.a_stage(s), tid, kk));
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                // wgmma reads `a` and writes `partial`, which the additions read.
                wgmma_fence();
#pragma unroll
                for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
                    const unsigned long long b_desc = descriptor(
                        smem.b_stage(s) + half * PARTIAL_COLUMNS * ROW_BYTES + kk * S::MMA_K * S::INPUT_BYTES, 0, ATOM_BYTES);
                    mma_m64n128k32_e4m3_a_regs(partial.r, a[kk], b_desc, kk != 0);
                }
                wgmma_commit_group();
                wgmma_wait_group<0>();
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) acc[half * M64N128_ACC + i] += partial[i];
            }
            release(s);
            state.advance();
        }
    }
};

}  // namespace w16

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w16::THREADS)
w16_fp8_a_registers_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                         const float* scales) {
    w08::trimmed_gemm<w16::W16, false, w16::ARegistersMainLoop>(a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
