// a08's epilogue, StagedStores: each consumer warpgroup's rows of O staged in shared memory by
// stmatrix and stored by the copy engine (twins/attention/a08_tma_store.cu says how); a08 and
// a09 run a07's persistent kernel with it. Twin of kernels/src/attention/a08_tma_store.rs's
// StagedStores.
#pragma once
#include "attention_persistent.cuh"

namespace a08 {
using a05::MAP_BYTES;
using a05::SharedTiles;
using a07::Work;
using hopper::HALF_ROWS;
using hopper::LaneRows;
using hopper::Output;
using hopper::PANEL_COLUMNS;
using hopper::PANEL_N8;
using hopper::Panels;
using hopper::WARP_ROWS;
using hopper::WARP_SIZE;
using hopper::WARPGROUP;

// O's tensor map's index in the array the host passes (after Q's, K's and V's).
constexpr u32 O_MAP = 3;
// The named barrier of consumer warpgroup w's staging is STAGING_BARRIER + w.
constexpr u32 STAGING_BARRIER = 3;

// One consumer thread's side of a08's epilogue. It holds only the maps and its warpgroup: the
// staging box's addresses are computed at the tile's end (see the Rust).
struct StagedStores {
    const u8* maps;
    u32 warpgroup;

    __device__ __forceinline__ StagedStores(const u8* maps_, u32 warpgroup_) : maps(maps_), warpgroup(warpgroup_) {}

    // The storer's waits and copies are predicated instructions, not branches (see the Rust).
    template <class T, u32 PANELS>
    __device__ __forceinline__ void store(SharedTiles<PANELS> tiles, const Output<PANELS>& out,
                                          const fragments::RowStats& stats, const LaneRows& lane, const Dims& d,
                                          Work w, u16*, float* lse) const {
        // The box's base and the thread's place in it computed here, not before the loop over
        // tiles (see the Rust).
        const Panels<O_BOX_ROWS, PANELS> box{
            computed_here(tiles.end() + warpgroup * Panels<O_BOX_ROWS, PANELS>::BYTES)};
        const u8* o_map = maps + O_MAP * MAP_BYTES;
        const u32 thread = computed_here(threadIdx.x) % WARPGROUP;
        const u32 warp = thread / WARP_SIZE, lane_id = thread % WARP_SIZE;
        const bool storer = thread == 0;
        const u32 barrier = STAGING_BARRIER + warpgroup;
        float sums[2];
        fragments::row_sums(sums, stats);
        // The box the copy engine was handed at the last tile has been read out.
        bulk_wait_group_read_if<0>(storer);
        sync_named(barrier, WARPGROUP);
        float* lse_rows = lse + (u64)(w.b * d.heads_q + w.h) * d.seq_q;
        // Two n8 tiles of the warp's 16 rows per stmatrix: matrices (n, rows 0-7), (n, rows 8-15),
        // (n + 1, rows 0-7), (n + 1, rows 8-15); lane l gives row l % 8 of matrix l / 8.
        float inverse[2];
#pragma unroll
        for (u32 half = 0; half < 2; ++half) inverse[half] = sums[half] > 0.0f ? 1.0f / sums[half] : 0.0f;
        const u32 matrix = lane_id / 8;
        const u32 row = warp * WARP_ROWS + HALF_ROWS * (matrix % 2) + lane_id % 8;
#pragma unroll
        for (u32 panel = 0; panel < PANELS; ++panel)
#pragma unroll
            for (u32 pair = 0; pair < PANEL_N8 / 2; ++pair) {
                const float* c = out[panel][2 * pair];
                const float* e = out[panel][2 * pair + 1];
                const u32 packed[4] = {T::pack_x2(c[0] * inverse[0], c[1] * inverse[0]),
                                       T::pack_x2(c[2] * inverse[1], c[3] * inverse[1]),
                                       T::pack_x2(e[0] * inverse[0], e[1] * inverse[0]),
                                       T::pack_x2(e[2] * inverse[1], e[3] * inverse[1])};
                stmatrix_x4(box.chunk(row, PANEL_N8 * panel + 2 * pair + matrix / 2), packed);
            }
#pragma unroll
        for (u32 half = 0; half < 2; ++half)
            if (lane.rows[half] < d.seq_q) hopper::store_log_sum_exp(stats, sums[half], lane, half, d, lse_rows);
        fence_proxy_async_shared();
        sync_named(barrier, WARPGROUP);
#pragma unroll
        for (u32 panel = 0; panel < PANELS; ++panel) {
            const u32 at[4] = {panel * PANEL_COLUMNS, w.q0 + warpgroup * O_BOX_ROWS, w.h, w.b};
            store_tensor_4d_if(storer, o_map, at, box.panel(panel));
        }
        bulk_commit_group_if(storer);
        // The warp meets again, so that ptxas knows the loop over tiles converged (see the Rust).
        __syncwarp();
    }

    // The last box read out before the block's shared memory goes.
    __device__ __forceinline__ void finish() const { bulk_wait_group_read_if<0>(threadIdx.x % WARPGROUP == 0); }
};
}  // namespace a08
