// Twin of kernels/src/gemm/mma_tiles.rs: what the mma.sync steps from t02 on share, named
// once: the swizzled layout of their 128 x 32 A tile and 32 x 128 B tile, the cp.async copy
// of one 16-byte chunk into it (t03 on), and the store of a warp's accumulators into C.
#pragma once
#include "tensor.cuh"

namespace mma_tiles {
constexpr unsigned A_CHUNKS = 32 / 8;   // 16-byte chunks per A row (BK = 32 values)
constexpr unsigned B_CHUNKS = 128 / 8;  // 16-byte chunks per B row (BN = 128 values)

// Word index of chunk c of row r in the swizzled A tile (64-byte rows: XOR with r/2 % 4).
__device__ __forceinline__ unsigned a_chunk(unsigned r, unsigned c) {
    return (r * A_CHUNKS + (c ^ ((r / 2) % 4))) * 4;
}

// Word index of chunk c of row r in the swizzled B tile (256-byte rows: XOR with r % 8).
__device__ __forceinline__ unsigned b_chunk(unsigned r, unsigned c) {
    return (r * B_CHUNKS + (c ^ (r % 8))) * 4;
}

// Starts the copy of eight 16-bit values of a row-major rows x cols matrix at (r, c) to
// shared address dst; zeros (and nothing read) when the row or the chunk is outside.
__device__ __forceinline__ void copy_chunk(unsigned dst, const unsigned short* p, unsigned rows,
                                           unsigned cols, unsigned r, unsigned c) {
    const bool inside = r < rows && c < cols;
    const unsigned short* src = inside ? p + (size_t)r * cols + c : p;
    cp_async_16(dst, src, inside ? 16 : 0);
}

// Stores a warp's accumulators, 4 x N8 mma tiles of 16 x 8 whose first row and column in C
// are row, col; entries past M or N are skipped.
template <unsigned N8>
__device__ __forceinline__ void store_accumulators(float* c, const float (&acc)[4][N8][4], unsigned m,
                                                   unsigned n, unsigned row, unsigned col, unsigned lane) {
    const unsigned group = lane / 4, in_group = lane % 4;
#pragma unroll
    for (unsigned mi = 0; mi < 4; ++mi) {
#pragma unroll
        for (unsigned ni = 0; ni < N8; ++ni) {
            const unsigned r = row + mi * 16 + group;
            const unsigned cc = col + ni * 8 + 2 * in_group;
#pragma unroll
            for (unsigned e = 0; e < 4; ++e) {  // (row, col) offsets (0,0), (0,1), (8,0), (8,1)
                const unsigned rr = r + (e / 2) * 8, ccc = cc + e % 2;
                if (rr < m && ccc < n) c[(size_t)rr * n + ccc] = acc[mi][ni][e];
            }
        }
    }
}
}  // namespace mma_tiles
