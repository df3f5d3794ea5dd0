// twins/schedule.cuh: how the persistent GEMM steps (w03-w10) walk their work, for their CUDA C++
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

// common::gemm::{StreamK, ShareOrder, Role, Piece}: how a stream-K grid shares the work. The
// first floor(units / clusters) * clusters units go whole, one per cluster at a time; the k tiles
// of the rest, laid end to end, are split evenly over sk_clusters clusters. A unit cut among
// clusters has one owner; the others contribute partials. Which cluster owns a cut unit, and in
// which order a cluster runs the two pieces of a share that spans two units, is the ShareOrder.
enum class ShareOrder {
    Offsets,    // the end of one unit, then the start of the next; owner: k tile 0's cluster (w07)
    KAligned,   // the start of the next unit first; owner: the last k tile's cluster (w11-w13)
};

enum class Role { Whole, Owner, Contributor };

// One piece of a cluster's work: unit `unit`, k tiles k_begin..k_end; `first` and
// `contributors` (the clusters first .. first + contributors computed the rest) are
// meaningful for Role::Owner only.
struct Piece {
    unsigned unit, k_begin, k_end;
    Role role;
    unsigned first, contributors;
};

struct Pieces;

struct StreamK {
    unsigned units, k_tiles, clusters;
    ShareOrder order;
    bool shares_first;                   // the share before the whole units (w13)
    unsigned dp_units;                   // units computed whole in the data-parallel waves
    unsigned sk_clusters;                // clusters sharing the remaining units' k tiles
    unsigned long long sk_iterations;    // k tiles of the remaining units, end to end

    __device__ __forceinline__ StreamK(unsigned units_, unsigned k_tiles_, unsigned clusters_, unsigned max_split,
                                       ShareOrder order_)
        : units(units_), k_tiles(k_tiles_), clusters(clusters_), order(order_), shares_first(false) {
        dp_units = units / clusters * clusters;
        const unsigned sk_units = units - dp_units;
        const unsigned split = sk_units * max_split < clusters ? sk_units * max_split : clusters;
        sk_iterations = (unsigned long long)sk_units * k_tiles;
        // Never more sharing clusters than k tiles to share.
        sk_clusters = (unsigned long long)split < sk_iterations ? split : (unsigned)sk_iterations;
    }

    // The same schedule with each cluster's share run before its whole units.
    __device__ __forceinline__ StreamK with_shares_first() const {
        StreamK s = *this;
        s.shares_first = true;
        return s;
    }

    // Cluster c's stream-K k tiles are the offsets sk_start(c)..sk_start(c + 1).
    __device__ __forceinline__ unsigned long long sk_start(unsigned c) const {
        return sk_clusters == 0 ? 0 : (unsigned long long)c * sk_iterations / sk_clusters;
    }

    // Cluster c's stream-K piece starting at offset `at`, to the end of its unit or of the
    // share, whichever comes first.
    __device__ __forceinline__ Piece sk_piece(unsigned c, unsigned long long at) const {
        const unsigned long long end = sk_start(c + 1);
        const unsigned long long kt = k_tiles;
        const unsigned long long local = at / kt;
        const unsigned k_begin = (unsigned)(at % kt);
        const unsigned long long unit_start = local * kt;
        const unsigned long long unit_end = unit_start + kt;
        const unsigned k_end = end < unit_end ? (unsigned)(end - unit_start) : k_tiles;
        Role role = Role::Contributor;
        unsigned first = 0, contributors = 0;
        if (k_begin == 0 && k_end == k_tiles) {
            role = Role::Whole;
        } else if (order == ShareOrder::Offsets && k_begin == 0) {
            // Every later cluster whose share starts inside this unit contributes.
            while (c + 1 + contributors < sk_clusters && sk_start(c + 1 + contributors) < unit_end) ++contributors;
            role = Role::Owner;
            first = c + 1;
        } else if (order == ShareOrder::KAligned && k_end == k_tiles) {
            // Every earlier cluster whose share ends inside this unit contributes.
            first = c;
            while (first > 0 && sk_start(first) > unit_start) --first;
            role = Role::Owner;
            contributors = c - first;
        }
        return Piece{dp_units + (unsigned)local, k_begin, k_end, role, first, contributors};
    }

    // Whether cluster c leaves a partial tile for another cluster's unit (once at most): its
    // share starts (Offsets) or ends (KAligned) inside a unit.
    __device__ __forceinline__ bool contributes(unsigned c) const {
        if (c >= sk_clusters) return false;
        const unsigned long long cut = order == ShareOrder::Offsets ? sk_start(c) : sk_start(c + 1);
        return cut % k_tiles != 0;
    }

    __device__ __forceinline__ Pieces pieces(unsigned c) const;
};

// Cluster c's pieces, in order: its whole units (c, c + clusters, ...), then its stream-K
// share's pieces in the schedule's ShareOrder, or the share first (with_shares_first) (the Rust
// iterator; next() returns false at the end).
struct Pieces {
    StreamK schedule;
    unsigned cluster;
    unsigned unit;                // the next whole unit, while below dp_units
    unsigned long long at, end;   // the next stream-K offset, and the end of the share

    __device__ __forceinline__ bool next(Piece& piece) {
        if (schedule.shares_first) return next_share_piece(piece) || next_whole_unit(piece);
        return next_whole_unit(piece) || next_share_piece(piece);
    }

    __device__ __forceinline__ bool next_whole_unit(Piece& piece) {
        const StreamK& s = schedule;
        if (unit >= s.dp_units) return false;
        piece = Piece{unit, 0, s.k_tiles, Role::Whole, 0, 0};
        unit += s.clusters;
        return true;
    }

    __device__ __forceinline__ bool next_share_piece(Piece& piece) {
        const StreamK& s = schedule;
        if (at >= end) return false;
        piece = s.sk_piece(cluster, at);
        const unsigned long long after = at + (piece.k_end - piece.k_begin);
        if (s.order == ShareOrder::KAligned && after < end) {
            // Two pieces: the second first; the share then ends where the first does, and the
            // next call returns the first.
            end = after;
            piece = s.sk_piece(cluster, after);
            return true;
        }
        at = after;
        return true;
    }
};

__device__ __forceinline__ Pieces StreamK::pieces(unsigned c) const {
    const bool shares = c < sk_clusters;
    return Pieces{*this, c, c, shares ? sk_start(c) : 0, shares ? sk_start(c + 1) : 0};
}
