// twins/schedule.cuh: how the persistent GEMM steps (t7-t14) walk their work, for their CUDA C++
// twins: the C++ of common::gemm's grouped_tile and StreamK, which the Rust steps share the same
// way (from the `common` crate, so that the host sizes grids and workspaces by the same code).
// No system headers: NVRTC compiles this without a toolkit include path.
#pragma once

// u32::div_ceil, as Rust computes it.
__device__ __forceinline__ unsigned div_ceil(unsigned a, unsigned b) { return a / b + (a % b != 0 ? 1 : 0); }

// common::gemm::grouped_tile: tile (row, col) of `unit` in a walk over a rows x cols grid of
// tiles in bands of `group` tile rows, each band walked column by column.
__device__ __forceinline__ void grouped_tile(unsigned unit, unsigned rows, unsigned cols, unsigned group,
                                             unsigned& row, unsigned& col) {
    const unsigned per_band = group * cols;
    const unsigned band = unit / per_band;
    const unsigned first = band * group;
    const unsigned height = rows - first < group ? rows - first : group;
    const unsigned within = unit - band * per_band;
    row = first + within % height;
    col = within / height;
}

// common::gemm::{StreamK, Role, Piece}: how a stream-K grid shares the work. The first
// floor(units / clusters) * clusters units go whole, one per cluster at a time; the k tiles of
// the rest, laid end to end, are split evenly over sk_clusters clusters. A unit cut among
// clusters is owned by the one computing its k tile 0; the others contribute partials.
enum class Role { Whole, Owner, Contributor };

// One piece of a cluster's work: unit `unit`, k tiles k_begin..k_end; `contributors` (the
// clusters owner + 1, ... that computed the rest) is meaningful for Role::Owner only.
struct Piece {
    unsigned unit, k_begin, k_end;
    Role role;
    unsigned contributors;
};

struct Pieces;

struct StreamK {
    unsigned units, k_tiles, clusters;
    unsigned dp_units;                   // units computed whole in the data-parallel waves
    unsigned sk_clusters;                // clusters sharing the remaining units' k tiles
    unsigned long long sk_iterations;    // k tiles of the remaining units, end to end

    __device__ __forceinline__ StreamK(unsigned units_, unsigned k_tiles_, unsigned clusters_, unsigned max_split)
        : units(units_), k_tiles(k_tiles_), clusters(clusters_) {
        dp_units = units / clusters * clusters;
        const unsigned sk_units = units - dp_units;
        const unsigned split = sk_units * max_split < clusters ? sk_units * max_split : clusters;
        sk_iterations = (unsigned long long)sk_units * k_tiles;
        // Never more sharing clusters than k tiles to share.
        sk_clusters = (unsigned long long)split < sk_iterations ? split : (unsigned)sk_iterations;
    }

    // Cluster c's stream-K k tiles are the offsets sk_start(c)..sk_start(c + 1).
    __device__ __forceinline__ unsigned long long sk_start(unsigned c) const {
        return sk_clusters == 0 ? 0 : (unsigned long long)c * sk_iterations / sk_clusters;
    }

    // Cluster c's stream-K piece starting at offset `at`.
    __device__ __forceinline__ Piece sk_piece(unsigned c, unsigned long long at) const {
        const unsigned long long end = sk_start(c + 1);
        const unsigned long long kt = k_tiles;
        const unsigned long long local = at / kt;
        const unsigned k_begin = (unsigned)(at % kt);
        const unsigned long long unit_end = (local + 1) * kt;
        const unsigned k_end = end < unit_end ? (unsigned)(end - local * kt) : k_tiles;
        Role role;
        unsigned contributors = 0;
        if (k_begin != 0) {
            role = Role::Contributor;
        } else if (k_end == k_tiles) {
            role = Role::Whole;
        } else {
            // Every later cluster whose share starts inside this unit contributes.
            while (c + 1 + contributors < sk_clusters && sk_start(c + 1 + contributors) < unit_end) ++contributors;
            role = Role::Owner;
        }
        return Piece{dp_units + (unsigned)local, k_begin, k_end, role, contributors};
    }

    __device__ __forceinline__ Pieces pieces(unsigned c) const;
};

// Cluster c's pieces, in order: its whole units (c, c + clusters, ...), then its stream-K
// share (the Rust iterator; next() returns false at the end).
struct Pieces {
    StreamK schedule;
    unsigned cluster;
    unsigned unit;                // the next whole unit, while below dp_units
    unsigned long long at, end;   // the next stream-K offset, and the end of the share

    __device__ __forceinline__ bool next(Piece& piece) {
        const StreamK& s = schedule;
        if (unit < s.dp_units) {
            piece = Piece{unit, 0, s.k_tiles, Role::Whole, 0};
            unit += s.clusters;
            return true;
        }
        if (at >= end) return false;
        piece = s.sk_piece(cluster, at);
        at += piece.k_end - piece.k_begin;
        return true;
    }
};

__device__ __forceinline__ Pieces StreamK::pieces(unsigned c) const {
    const bool shares = c < sk_clusters;
    return Pieces{*this, c, c, shares ? sk_start(c) : 0, shares ? sk_start(c + 1) : 0};
}
