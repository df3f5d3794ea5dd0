//! The GEMM family's CPU tests: grids that cover C, the split-K slices, the grouped walk,
//! the stream-K schedule over every small case, the reference, and each step's ceiling.

use crate::base::ptx::Arch;

/// The PTX of `arch`, as the host's build script wrote it.
fn read_ptx(arch: &str) -> String {
    let path = std::path::Path::new(crate::base::ptx::BUILT_DIR).join(arch).join("kernels.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn wgmma_steps_are_skipped_with_a_reason_off_hopper() {
    let w1 = super::registry::kernels().find(|k| k.id == "w01_wgmma_f16").expect("w1 registered");
    let (sm90, sm90a) = (Arch::new(90, false), Arch::new(90, true));
    assert_eq!(w1.unavailable((9, 0), sm90a), None);
    let reason = w1.unavailable((8, 0), Arch::new(80, false)).expect("refused on Ampere");
    assert!(reason.contains("sm_90a") && reason.contains("8.0"), "{reason}");
    assert!(w1.unavailable((10, 0), sm90).is_some(), "refused on Blackwell");
    let reason = w1.unavailable((9, 0), sm90).expect("refused without the sm_90a PTX");
    assert!(reason.contains("folder holds none") && reason.contains("--ptx-dir"), "{reason}");
    assert!(reason.contains("build-ptx --arch sm_90a"), "{reason}");
    let t4 = super::registry::kernels().find(|k| k.id == "t04_warp_tile_f16").expect("t4");
    assert_eq!(t4.unavailable((10, 0), sm90), None);
}

#[test]
fn launch_bounds_in_the_ptx_match_the_registered_blocks() {
    let text = read_ptx("sm_90a");
    let mut bounded = 0;
    for g in super::registry::kernels() {
        let Some(start) = text.find(&format!(".entry {}(", g.id)) else { continue };
        let header = &text[start..start + text[start..].find('{').expect("an entry body")];
        if let Some(at) = header.find(".maxntid ") {
            let threads: u32 = header[at + 9..].split(',').next().unwrap().trim().parse().unwrap();
            assert_eq!(threads, g.block.0 * g.block.1, "{}: .maxntid against the registered block", g.id);
            bounded += 1;
        }
    }
    assert!(bounded >= 2, "w2's entries carry .maxntid (from #[kernel(max_threads = …)])");
}

#[test]
fn gemm_grids_cover_c() {
    use super::registry::{GridMap, kernels};
    for kernel in kernels() {
        for (m, n) in [(1, 1), (17, 4097), (4096, 1), (1000, 1000)] {
            let (gx, gy) = kernel.grid(m, n);
            let (rows, cols) = match kernel.grid_map {
                GridMap::RowsOnX => (gx, gy),
                GridMap::ColumnsOnX => (gy, gx),
                // At most one block per tile, in whole clusters: rows rounded up to the
                // cluster's height.
                GridMap::Persistent { cluster, split } => {
                    let cols = n.div_ceil(kernel.tile.1);
                    assert_eq!((gy, gx % (cluster * cols * split)), (1, 0), "{}: whole clusters", kernel.id);
                    let rows = gx / cols / split;
                    assert!(
                        (rows - cluster) * kernel.tile.0 < m,
                        "{}: a cluster with no rows of C",
                        kernel.id
                    );
                    (rows.min(m.div_ceil(kernel.tile.0)), cols)
                }
            };
            assert!(
                rows * kernel.tile.0 >= m && cols * kernel.tile.1 >= n,
                "{} misses part of {m}×{n}",
                kernel.id
            );
            assert!(
                (rows - 1) * kernel.tile.0 < m && (cols - 1) * kernel.tile.1 < n,
                "{}: extra blocks",
                kernel.id
            );
        }
    }
}

#[test]
fn split_k_slices_cover_k_in_order_and_fill_one_wave() {
    use common::gemm::g11::{BK, MAX_SLICES, MIN_SLICE_K_TILES, k_tile_range, slices};
    // 132 SMs, two g10 blocks each.
    let resident = 264;
    assert_eq!(slices(64, 1024, resident), 4, "1024³: 64 tiles, 4 slices");
    assert_eq!(slices(256, 2048, resident), 1, "2048³: the tiles fill the GPU");
    assert_eq!(slices(0, 1024, resident), 1, "an empty C");
    assert_eq!(slices(6, 1000, resident), 15, "a few tiles: as deep as K allows");
    assert_eq!(slices(1, 1 << 20, resident), MAX_SLICES);
    assert_eq!(slices(1, 17, resident), 1, "too shallow to cut");
    for (tiles, k) in [(64, 1024), (6, 1000), (33, 1000), (1, 1), (1, 1 << 20), (300, 4096), (2, 129)] {
        let s = slices(tiles, k, resident);
        assert!((1..=MAX_SLICES).contains(&s));
        assert!(s == 1 || tiles * s <= resident, "{tiles} tiles × {s} slices is more than a wave");
        let k_tiles = k.div_ceil(BK);
        assert!(s == 1 || k_tiles / s >= MIN_SLICE_K_TILES, "slices of k = {k} too thin");
        // The slices are contiguous, in order, and together exactly the k tiles.
        let mut next = 0;
        for slice in 0..s {
            let (begin, end) = k_tile_range(k_tiles, s, slice);
            assert_eq!(begin, next, "slice {slice} of {s} for {k_tiles} k tiles");
            assert!(end >= begin && end - begin <= k_tiles.div_ceil(s));
            next = end;
        }
        assert_eq!(next, k_tiles);
    }
}

#[test]
fn grouped_tile_walk_visits_every_tile_once() {
    use common::gemm::grouped_tile;
    for (rows, cols, group) in [(1, 1, 16), (32, 16, 16), (17, 9, 16), (9, 10, 8), (64, 32, 8), (5, 3, 2)] {
        let mut seen = vec![false; (rows * cols) as usize];
        for unit in 0..rows * cols {
            let (r, c) = grouped_tile(unit, rows, cols, group);
            assert!(r < rows && c < cols, "{unit} → ({r}, {c}) outside {rows} × {cols}");
            assert!(!std::mem::replace(&mut seen[(r * cols + c) as usize], true), "({r}, {c}) twice");
        }
        // Consecutive units walk down a band's column first.
        if rows >= group {
            assert_eq!(grouped_tile(1, rows, cols, group), (1, 0));
            assert_eq!(grouped_tile(group, rows, cols, group), (0, 1));
        }
    }
}

/// The stream-K orders the steps use: w07's, w11/w12's, and w13's.
const STREAM_K_ORDERS: [(common::gemm::stream_k::ShareOrder, bool); 3] = [
    (common::gemm::stream_k::ShareOrder::Offsets, false),
    (common::gemm::stream_k::ShareOrder::KAligned, false),
    (common::gemm::stream_k::ShareOrder::KAligned, true),
];

#[test]
fn stream_k_pieces_cover_every_k_tile_once_and_owners_know_their_contributors() {
    for (order, shares_first) in STREAM_K_ORDERS {
        for (units, k_tiles, clusters) in [
            (256, 64, 66),
            (16, 16, 66),
            (1, 1, 66),
            (1, 3, 66),
            (90, 3, 66),
            (132, 128, 66),
            (67, 2, 66),
            (5, 200, 3),
            (258, 64, 66),
        ] {
            check_stream_k(order, shares_first, units, k_tiles, clusters);
        }
    }
}

/// The same properties over every small schedule: one unit or many, fewer k tiles than
/// clusters, more clusters than units, a share cut by `max_split`. A kernel that met a
/// schedule breaking one of them would hang (an owner waiting for a flag no one raises) or
/// add a partial twice, so the sweep is wide rather than picked.
#[test]
fn stream_k_properties_hold_on_every_small_schedule() {
    for (order, shares_first) in STREAM_K_ORDERS {
        for units in 1..=40 {
            for k_tiles in 1..=10 {
                for clusters in 1..=24 {
                    check_stream_k(order, shares_first, units, k_tiles, clusters);
                }
            }
        }
    }
}

/// Every k tile computed once; a whole unit's pieces and a share's in the schedule's
/// order; at most one contribution per cluster, the first piece of its share, and an
/// ownership only as its last, so that no cluster waits for a flag before it has raised
/// its own (no cycle of waits); each cut unit with one owner that names exactly the
/// clusters that contributed; `contributes()` agreeing with the pieces.
fn check_stream_k(
    order: common::gemm::stream_k::ShareOrder,
    shares_first: bool,
    units: u32,
    k_tiles: u32,
    clusters: u32,
) {
    use common::gemm::stream_k::{Role, ShareOrder, StreamK};
    let case = format!(
        "{order:?} (shares first: {shares_first}), {units} units × {k_tiles} k tiles on {clusters} clusters"
    );
    let mut schedule = StreamK::new(units, k_tiles, clusters, 4, order);
    if shares_first {
        schedule = schedule.with_shares_first();
    }
    let mut covered = vec![0u32; (units * k_tiles) as usize];
    // unit → (owner, the clusters it expects); unit → clusters that contributed.
    let mut owners = std::collections::HashMap::new();
    let mut contributed: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for c in 0..clusters {
        let pieces: Vec<_> = schedule.pieces(c).collect();
        let whole = schedule.dp_units.saturating_sub(c).div_ceil(clusters) as usize;
        let share = pieces.len() - whole;
        assert!(share <= 2, "{case}: cluster {c}: {pieces:?}");
        // Where the share's pieces are: after the whole units, or before them.
        let share_at = if shares_first { 0 } else { whole };
        assert!(
            pieces[share_at..share_at + share].iter().all(|p| p.unit >= schedule.dp_units)
                && pieces.iter().filter(|p| p.unit < schedule.dp_units).count() == whole,
            "{case}: cluster {c}: whole units and share pieces out of order: {pieces:?}"
        );
        for (i, piece) in pieces.iter().enumerate() {
            assert!(piece.k_begin < piece.k_end && piece.k_end <= k_tiles, "{case}: {piece:?}");
            for k in piece.k_begin..piece.k_end {
                covered[(piece.unit * k_tiles + k) as usize] += 1;
            }
            // A share's contribution is its first piece and an ownership its last,
            // so an owner never waits for its own cluster.
            let first_of_share = i == share_at;
            let last_of_share = i + 1 == share_at + share;
            match piece.role {
                Role::Whole => assert_eq!((piece.k_begin, piece.k_end), (0, k_tiles), "{case}"),
                Role::Owner { first, contributors } => {
                    match order {
                        ShareOrder::Offsets => {
                            assert_eq!((piece.k_begin, first), (0, c + 1), "{case}")
                        }
                        ShareOrder::KAligned => {
                            assert_eq!((piece.k_end, first + contributors), (k_tiles, c), "{case}")
                        }
                    }
                    assert!(last_of_share && contributors >= 1, "{case}: cluster {c}: {piece:?}");
                    let expected: Vec<u32> = (first..first + contributors).collect();
                    assert!(owners.insert(piece.unit, (c, expected)).is_none(), "{case}: two owners");
                }
                Role::Contributor => {
                    assert!(first_of_share, "{case}: cluster {c}: a contribution that is not first");
                    contributed.entry(piece.unit).or_default().push(c);
                }
            }
        }
        assert_eq!(
            schedule.contributes(c),
            pieces.iter().any(|p| p.role == Role::Contributor),
            "{case}: cluster {c}: contributes() against its pieces {pieces:?}"
        );
        // In k order, every cluster's share starts at k tile 0 of its unit or is one
        // piece, and its second piece (if any) ends at its unit's last k tile.
        if matches!(order, ShareOrder::KAligned) && share == 2 {
            assert_eq!(pieces[share_at].k_begin, 0, "{case}: cluster {c}");
            assert_eq!(pieces[share_at + 1].k_end, k_tiles, "{case}: cluster {c}");
        }
    }
    assert!(covered.iter().all(|&n| n == 1), "{case}: a k tile computed 0 or 2 times");
    for (unit, (owner, mut expected)) in owners {
        let mut got = contributed.remove(&unit).unwrap_or_default();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "{case}: unit {unit}'s contributors (owner {owner})");
    }
    assert!(contributed.is_empty(), "{case}: contributions to units without an owner");
    // No unit is shared by more clusters than asked.
    assert!(schedule.sk_clusters <= clusters);
}

#[test]
fn gemm_reference_checks_everything_small_and_samples_large() {
    use super::reference::{Inputs, SAMPLES, relative_error};
    let small =
        Inputs { precision: crate::base::precision::Precision::F32, m: 3, n: 2, k: 5, seed_a: 1, seed_b: 2 };
    let entries = small.entries();
    assert_eq!(entries.len(), 6);
    let want = small.reference(&entries);
    let direct: f64 = (0..5).map(|p| f64::from(small.a(2, p)) * f64::from(small.b(p, 1))).sum();
    assert_eq!(want[5], direct);
    let large = Inputs {
        precision: crate::base::precision::Precision::F16,
        m: 8192,
        n: 8192,
        k: 8192,
        seed_a: 1,
        seed_b: 2,
    };
    let sample = large.entries();
    assert_eq!(sample.len(), SAMPLES + 4);
    assert!(sample.contains(&(8191, 8191)) && sample.iter().all(|&(i, j)| i < 8192 && j < 8192));
    let got: Vec<f32> = want.iter().map(|&w| w as f32).collect();
    assert!(relative_error(&got, &want) < 1e-7);
    let mut broken = got.clone();
    broken[0] = f32::NAN;
    assert_eq!(relative_error(&broken, &want), f64::INFINITY);
}

#[test]
fn every_tensor_core_gemm_step_has_a_ceiling_and_fp32_steps_none() {
    use super::registry::kernels;
    use crate::base::precision::Precision;
    use crate::ceilings::TensorInstruction;
    for kernel in kernels() {
        let want = match kernel.precision {
            Precision::F32 => None,
            // The t steps issue mma.sync (sm_80 PTX), the w steps wgmma (sm_90a PTX).
            _ if kernel.arch == Arch::new(80, false) => Some(TensorInstruction::MmaSync),
            _ if kernel.arch == Arch::new(90, true) => Some(TensorInstruction::Wgmma),
            _ => panic!(
                "{}: a tensor-core step on {}, which has no ceiling instruction",
                kernel.id, kernel.arch
            ),
        };
        assert_eq!(kernel.tensor_instruction(), want, "{}", kernel.id);
        let ladder = match kernel.tensor_instruction() {
            Some(TensorInstruction::MmaSync) => 't',
            Some(TensorInstruction::Wgmma) => 'w',
            None => 'g',
        };
        assert!(kernel.id.starts_with(ladder), "{}: the {ladder} ladder's instruction", kernel.id);
    }
}

#[test]
fn block_scaled_reference_is_each_k_blocks_sum_times_its_two_scales() {
    use super::reference::{Inputs, block_scale};
    use crate::base::precision::Precision;
    // Three k blocks, the last one short; two column blocks of B, the last one short.
    let inputs = Inputs { precision: Precision::E4m3Blocks, m: 3, n: 130, k: 300, seed_a: 7, seed_b: 8 };
    assert_eq!((inputs.k_blocks(), inputs.n_blocks()), (3, 2));
    let (i, j) = (2, 129);
    let direct: f64 = (0..300)
        .map(|p| {
            let (kb, nb) = (p / 128, j / 128);
            f64::from(inputs.a(i, p))
                * f64::from(inputs.a_scale(i, kb))
                * f64::from(inputs.b(p, j))
                * f64::from(inputs.b_scale(nb, kb))
        })
        .sum();
    let got = inputs.reference(&[(i, j)])[0];
    assert!((got - direct).abs() <= 1e-12 * direct.abs().max(1.0), "{got} against {direct}");
    // The layouts: w19's (k block, row) and its transpose hold the same scales.
    let (by_block, by_row) = (inputs.a_scales(false), inputs.a_scales(true));
    assert_eq!(by_block[2 * 3 + 1], inputs.a_scale(1, 2));
    assert_eq!(by_row[3 + 2], inputs.a_scale(1, 2));
    assert_eq!(inputs.b_scales()[3 + 1], inputs.b_scale(1, 1));
    // Scales from 1/8 to 14 with three significant bits: every product of two is exact in f32.
    for index in 0..1000 {
        let s = block_scale(3, index);
        assert!((0.125..=14.0).contains(&s), "{s}");
        assert_eq!(s.to_bits() & ((1 << 21) - 1), 0, "{s}: more than three significant bits");
    }
}

#[test]
fn e5m2_products_read_b_in_e5m2_and_a_in_e4m3() {
    use super::reference::Inputs;
    use crate::base::precision::Precision;
    use common::fp8::{E4M3, E5M2};
    use common::input::random_f32;
    let inputs = Inputs { precision: Precision::E4m3E5m2, m: 4, n: 4, k: 64, seed_a: 1, seed_b: 2 };
    assert_eq!(inputs.a(1, 3), E4M3.to_f32(E4M3.from_f32(random_f32(1, 64 + 3))));
    // B as Bᵀ: B[p][j] is element j·K + p of B's stream, in e5m2.
    assert_eq!(inputs.b(3, 1), E5M2.to_f32(E5M2.from_f32(random_f32(2, 64 + 3))));
    assert!(Precision::E4m3E5m2.b_k_major() && Precision::E4m3E5m2.element() == Precision::E4m3);
    // Some value of the stream tells the formats apart.
    assert!((0..64).any(|p| inputs.b(p, 0) != E4M3.to_f32(E4M3.from_f32(random_f32(2, p as u64)))));
}

#[test]
fn cublaslt_refuses_what_its_block_scaled_product_was_not_verified_on() {
    use super::cublaslt::fp8_refusal;
    assert_eq!(fp8_refusal(272, 80, 1024, true), None);
    assert!(fp8_refusal(272, 80, 256, true).is_some_and(|r| r.contains("multiple of 512")));
    assert_eq!(fp8_refusal(272, 80, 256, false), None);
    assert!(fp8_refusal(272, 80, 100, false).is_some_and(|r| r.contains("multiples of 16")));
}
