// Twin of kernels/src/gemm/w17_fp8_turns.rs (step w17): w15 with the consumer warpgroups' half
// tiles issued in turns. A warpgroup waits for its turn at named barrier TURN + w, issues its half
// tile's four wgmma m64n128k32, hands the turn over (arrives at the other's barrier), then waits
// for its group and adds the partial in: the other warpgroup's wgmma are queued behind its own
// while it adds. The turns open and close within each unit.
//
// Launch as the Rust step: as w14.
#include "fp8_gemm.cuh"

namespace w17 {
using namespace hopper;

// common::gemm::w17: w14's constants.
using Constants = w14::Constants;
constexpr unsigned THREADS = Constants::THREADS;
using w15::PARTIAL_COLUMNS;
constexpr unsigned TURN = 3, TURN_THREADS = Constants::CONSUMER_WARPGROUPS * WARPGROUP;
static_assert(TURN >= EPILOGUE_BARRIER + Constants::CONSUMER_WARPGROUPS, "the turns follow the epilogue's barriers");
using W17 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// A consumer warpgroup's side of the turns (kernels/src/device/sync.rs Turns).
struct Turns {
    unsigned warpgroup;
    __device__ __forceinline__ explicit Turns(unsigned warpgroup_) : warpgroup(warpgroup_) {}
    // Before the first turn: warpgroup 1 hands warpgroup 0 the first turn.
    __device__ __forceinline__ void open() const {
        if (warpgroup == 1) arrive_named(TURN, TURN_THREADS);
    }
    __device__ __forceinline__ void wait() const { sync_named(TURN + warpgroup, TURN_THREADS); }
    __device__ __forceinline__ void hand_over() const { arrive_named(TURN + (1 - warpgroup), TURN_THREADS); }
    // After the last turn: warpgroup 0 takes warpgroup 1's last arrival.
    __device__ __forceinline__ void close() const {
        if (warpgroup == 0) wait();
    }
};

// w15's main loop with each half tile's issue between the turn's wait and its hand-over.
struct TurnsMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        using S = W17;
        const auto& smem = consumer.smem;
        const Turns turns(consumer.warpgroup);
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        turns.open();
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                turns.wait();
                w15::issue_half<S>(consumer, s, half, partial);
                wgmma_commit_group();
                turns.hand_over();
                wgmma_wait_group<0>();
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) acc[half * M64N128_ACC + i] += partial[i];
            }
            release(s);
            state.advance();
        }
        turns.close();
    }
};

}  // namespace w17

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w17::THREADS)
w17_fp8_turns_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                   const float* scales) {
    w08::trimmed_gemm<w17::W17, false, w17::TurnsMainLoop>(a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
