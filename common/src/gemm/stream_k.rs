//! The stream-K schedule of w07 and w11–w13: which pieces of which output units each
//! cluster of a persistent grid computes, and who adds whose partial tile. The kernels walk
//! it on the GPU ([`StreamK::pieces`]); the host's tests check its properties over every
//! small schedule.

/// How a stream-K grid shares a GEMM's work (units of C, each `k_tiles` k tiles long)
/// among `clusters`. The first ⌊units / clusters⌋ · clusters units go whole, a unit per
/// cluster at a time (data-parallel waves); the rest, fewer than one wave, are cut along K:
/// their k tiles, laid end to end, are split evenly over `sk_clusters` clusters, so every
/// cluster finishes at about the same time instead of some running one whole unit more
/// than others. A share is never longer than a unit, so it is one piece, or the end of one
/// unit and the start of the next. A unit cut among several clusters has one *owner*; the
/// others (its *contributors*) each leave a partial tile in a workspace and raise a flag,
/// and the owner adds their partials before storing the unit. Who owns a unit, and in
/// which order a cluster runs its two pieces, is the [`ShareOrder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamK {
    pub units: u32,
    pub k_tiles: u32,
    pub clusters: u32,
    pub order: ShareOrder,
    /// Whether a cluster runs its stream-K share before its whole units (w13) rather than
    /// after them.
    pub shares_first: bool,
    /// Units computed whole in the data-parallel waves.
    pub dp_units: u32,
    /// Clusters that share the remaining units' k tiles.
    pub sk_clusters: u32,
    /// k tiles of the remaining units, end to end.
    pub sk_iterations: u64,
}

/// In what order a cluster runs the two pieces of a share that spans two units, and so
/// which cluster owns a cut unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareOrder {
    /// As the k tiles lie end to end: the end of one unit, then the start of the next. A
    /// cut unit is owned by the cluster that computes its k tile 0, which it does last
    /// (w07). Clusters start their shares at different k, so at any moment they read
    /// different k tiles of A and B, and rows and columns that neighbouring units share
    /// come from DRAM once per cluster rather than once.
    Offsets,
    /// The start of the next unit first, then the end of the first: every cluster begins
    /// at k tile 0 and, after its first piece, continues at the same distance
    /// (`k_tiles` − its share) ahead, so at any moment the clusters read the same one or
    /// two k tiles of A and B, as they do in the data-parallel waves (w11). A cut unit is
    /// owned by the cluster that computes its *last* k tile, which it does last; its
    /// contributors' pieces run first (or are their whole share).
    KAligned,
}

/// What a cluster does with one piece of its stream-K work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// All of the unit's k tiles: store it.
    Whole,
    /// Part of the unit's k tiles; clusters `first .. first + contributors` computed the
    /// rest: add their partials, then store.
    Owner { first: u32, contributors: u32 },
    /// Part of the unit's k tiles: leave a partial tile for the owner.
    Contributor,
}

/// One piece of a cluster's work: unit `unit`, k tiles `k_begin..k_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub unit: u32,
    pub k_begin: u32,
    pub k_end: u32,
    pub role: Role,
}

impl StreamK {
    /// `max_split` bounds the clusters that share one unit's k tiles.
    pub const fn new(units: u32, k_tiles: u32, clusters: u32, max_split: u32, order: ShareOrder) -> Self {
        let dp_units = units / clusters * clusters;
        let sk_units = units - dp_units;
        let split = if sk_units * max_split < clusters { sk_units * max_split } else { clusters };
        let sk_iterations = sk_units as u64 * k_tiles as u64;
        // Never more sharing clusters than k tiles to share.
        let sk_clusters = if (split as u64) < sk_iterations { split } else { sk_iterations as u32 };
        Self { units, k_tiles, clusters, order, shares_first: false, dp_units, sk_clusters, sk_iterations }
    }

    /// The same schedule with each cluster's stream-K share run first, its whole units
    /// after it. Every cluster then starts its share at the same moment, the launch, instead
    /// of when its last whole unit happens to end, so [`ShareOrder::KAligned`] keeps the
    /// clusters at the same k tiles from the first tile of the share to the last.
    pub const fn with_shares_first(self) -> Self {
        Self { shares_first: true, ..self }
    }

    /// The stream-K k tiles of cluster `c` (`c < sk_clusters`), as offsets into the
    /// remaining units' k tiles laid end to end: `start(c)..start(c + 1)`.
    pub const fn sk_start(&self, c: u32) -> u64 {
        if self.sk_clusters == 0 { 0 } else { c as u64 * self.sk_iterations / self.sk_clusters as u64 }
    }

    /// Cluster `c`'s stream-K piece starting at offset `at` (`at` is `sk_start(c)` or, for
    /// the second piece, the first piece's end), which runs to the end of its unit or of
    /// the share, whichever comes first.
    pub const fn sk_piece(&self, c: u32, at: u64) -> Piece {
        let end = self.sk_start(c + 1);
        let k_tiles = self.k_tiles as u64;
        let local = at / k_tiles;
        let k_begin = (at % k_tiles) as u32;
        let unit_start = local * k_tiles;
        let unit_end = unit_start + k_tiles;
        let k_end = if end < unit_end { (end - unit_start) as u32 } else { self.k_tiles };
        let role = if k_begin == 0 && k_end == self.k_tiles {
            Role::Whole
        } else {
            match self.order {
                ShareOrder::Offsets if k_begin == 0 => {
                    // Every later cluster whose share starts inside this unit contributes.
                    let mut contributors = 0;
                    while c + 1 + contributors < self.sk_clusters
                        && self.sk_start(c + 1 + contributors) < unit_end
                    {
                        contributors += 1;
                    }
                    Role::Owner { first: c + 1, contributors }
                }
                ShareOrder::KAligned if k_end == self.k_tiles => {
                    // Every earlier cluster whose share ends inside this unit contributes.
                    let mut first = c;
                    while first > 0 && self.sk_start(first) > unit_start {
                        first -= 1;
                    }
                    Role::Owner { first, contributors: c - first }
                }
                _ => Role::Contributor,
            }
        };
        Piece { unit: self.dp_units + local as u32, k_begin, k_end, role }
    }
}

impl StreamK {
    /// Whether cluster `c` leaves a partial tile for another cluster's unit (one of its
    /// pieces is a [`Role::Contributor`]; a cluster contributes at most once). The piece
    /// that contributes is the share's end in k order ([`ShareOrder::KAligned`]: a share
    /// that ends inside a unit) or its start ([`ShareOrder::Offsets`]: a share that
    /// starts inside one), so this is one division, for a warp that needs no more of the
    /// schedule than that.
    pub const fn contributes(&self, c: u32) -> bool {
        if c >= self.sk_clusters {
            return false;
        }
        let cut = match self.order {
            ShareOrder::Offsets => self.sk_start(c),
            ShareOrder::KAligned => self.sk_start(c + 1),
        };
        cut % self.k_tiles as u64 != 0
    }

    /// Cluster `c`'s pieces of work, in order: its whole units (`c`, `c + clusters`, …),
    /// then its stream-K share's pieces in the schedule's [`ShareOrder`] (or the share
    /// first, for a schedule [`with_shares_first`](Self::with_shares_first)). An iterator
    /// rather than a callback, so that a kernel's
    /// loop body is written (and inlined) once.
    pub const fn pieces(&self, c: u32) -> Pieces {
        let (at, end) = if c < self.sk_clusters { (self.sk_start(c), self.sk_start(c + 1)) } else { (0, 0) };
        Pieces { schedule: *self, cluster: c, unit: c, at, end }
    }
}

/// The iterator of [`StreamK::pieces`].
#[derive(Clone, Copy, Debug)]
pub struct Pieces {
    schedule: StreamK,
    cluster: u32,
    /// The next whole unit, while below `dp_units`.
    unit: u32,
    /// The next stream-K offset, and the end of the share.
    at: u64,
    end: u64,
}

impl Iterator for Pieces {
    type Item = Piece;

    #[inline(always)]
    fn next(&mut self) -> Option<Piece> {
        if self.schedule.shares_first {
            self.next_share_piece().or_else(|| self.next_whole_unit())
        } else {
            self.next_whole_unit().or_else(|| self.next_share_piece())
        }
    }
}

impl Pieces {
    #[inline(always)]
    fn next_whole_unit(&mut self) -> Option<Piece> {
        let s = &self.schedule;
        if self.unit >= s.dp_units {
            return None;
        }
        let unit = self.unit;
        self.unit += s.clusters;
        Some(Piece { unit, k_begin: 0, k_end: s.k_tiles, role: Role::Whole })
    }

    #[inline(always)]
    fn next_share_piece(&mut self) -> Option<Piece> {
        let s = &self.schedule;
        if self.at >= self.end {
            return None;
        }
        let piece = s.sk_piece(self.cluster, self.at);
        let after = self.at + (piece.k_end - piece.k_begin) as u64;
        if matches!(s.order, ShareOrder::KAligned) && after < self.end {
            // Two pieces: the second first; the share then ends where the first does, and
            // the next call returns the first.
            self.end = after;
            return Some(s.sk_piece(self.cluster, after));
        }
        self.at = after;
        Some(piece)
    }
}
