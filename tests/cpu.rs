//! CPU-side tests: they run everywhere, CI included.

use clap::Parser;
use common::input::random_i32;
use host::cli::Options;
use host::cli::parse_size;
use host::probes::{self, PROBES};
use host::ptx::{self, Arch, SOURCE_FINGERPRINT, available_archs, entry_points, pick_arch};
use host::reduce::reference::{reference_sum, sum_range};
use host::reduce::registry::{BlockShape, REDUCE_KERNELS, select};
use host::timing::median;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Kernels in the PTX that serve the runner rather than a ladder.
const SUPPORT_KERNELS: &[&str] =
    &["fill_random_i32", "fill_random_f32", "fill_random_f16", "fill_random_bf16", "l2_flush_read"];

#[test]
fn reference_matches_a_plain_sequential_sum() {
    for n in [0usize, 1, 31, 1000, (1 << 16) + 1, (1 << 20) + 3] {
        let plain = (0..n).fold(0i32, |acc, i| acc.wrapping_add(random_i32(7, i as u64)));
        assert_eq!(reference_sum(7, n), plain, "n = {n}");
    }
}

#[test]
fn reference_of_an_empty_input_is_zero() {
    assert_eq!(reference_sum(1, 0), 0);
    assert_eq!(sum_range(1, 5, 5), 0);
}

#[test]
fn reference_chunks_add_up() {
    let n = 3 << 16;
    let halves = sum_range(9, 0, n / 2).wrapping_add(sum_range(9, n / 2, n));
    assert_eq!(reference_sum(9, n), halves);
}

#[test]
fn random_inputs_are_spread_and_seeded() {
    let values: Vec<i32> = (0..4096).map(|i| random_i32(42, i)).collect();
    let negative = values.iter().filter(|&&v| v < 0).count();
    assert!((1700..2400).contains(&negative), "{negative} of 4096 negative");
    assert!(values.iter().collect::<BTreeSet<_>>().len() > 4000, "values repeat");
    assert!((0..64).any(|i| random_i32(1, i) != random_i32(2, i)), "seed has no effect");
    assert_eq!(random_i32(5, 77), random_i32(5, 77));
}

#[test]
fn sizes_parse() {
    assert_eq!(parse_size("1000"), Ok(1000));
    assert_eq!(parse_size("2^30"), Ok(1 << 30));
    assert_eq!(parse_size("2^20+3"), Ok((1 << 20) + 3));
    assert_eq!(parse_size("2^16-1"), Ok((1 << 16) - 1));
    assert_eq!(parse_size("0"), Ok(0));
    assert_eq!(parse_size("1_000"), Ok(1000));
}

#[test]
fn bad_sizes_are_refused_with_a_reason() {
    for bad in ["", "abc", "2^", "2^x", "2^10+y", "-5", "2^64", "2^3-9"] {
        let err = parse_size(bad).expect_err(bad);
        assert!(!err.is_empty(), "{bad}");
    }
}

#[test]
fn kernel_ids_and_symbols_are_unique() {
    let mut seen = BTreeSet::new();
    for k in REDUCE_KERNELS {
        assert!(seen.insert(k.id), "duplicate id {}", k.id);
        for s in k.symbols() {
            assert!(s == k.id || !REDUCE_KERNELS.iter().any(|o| o.id == s), "{s} shadows an id");
        }
    }
}

#[test]
fn block_sizes_are_checked() {
    let h0 = select(&["h0".into()])[0];
    assert_eq!(h0.block_size(None).unwrap(), 256);
    assert_eq!(h0.block_size(Some(128)).unwrap(), 128);
    for bad in [0, 32, 100, 2048] {
        assert!(h0.block_size(Some(bad)).is_err(), "block {bad} accepted");
    }
    let h5 = select(&["h5".into()])[0];
    assert_eq!(h5.symbol(h5.block_size(Some(512)).unwrap()), "h5_complete_unroll_512");
    assert!(h5.block_size(Some(64)).is_err(), "h5 has no 64-thread instance");
    let v4 = select(&["v4".into()])[0];
    assert_eq!(
        v4.block_size(Some(128)).unwrap(),
        common::reduce::SEED003_BLOCK,
        "fixed blocks ignore --block"
    );
}

#[test]
fn unknown_kernel_names_are_refused_before_touching_the_gpu() {
    let options = Options::parse_from(["host", "-k", "nope"]);
    let err = host::run(&options).unwrap_err().to_string();
    assert!(
        err.contains("h0_interleaved_modulo") && err.contains("p6_latency"),
        "the error should list the ids: {err}"
    );
}

#[test]
fn kernel_patterns_are_prefixes() {
    assert_eq!(select(&[]).len(), REDUCE_KERNELS.len());
    assert_eq!(select(&["x".into()]).len(), 4);
    assert_eq!(
        probes::select(&["p".into()]).len() + probes::select(&["m".into()]).len(),
        probes::PROBES.len()
    );
    assert_eq!(probes::select(&["p6".into()]).len(), 1);
    assert!(select(&["p".into()]).is_empty());
}

#[test]
fn grids_cover_every_element_and_never_vanish() {
    for k in REDUCE_KERNELS {
        let block = k.block_size(None).unwrap();
        let per_block = block as usize * k.inputs_per_thread as usize;
        assert_eq!(k.cover_grid(0, block), 1, "{}: an empty input still gets one block", k.id);
        for n in [1, per_block - 1, per_block, per_block + 1, (1 << 30) + 3] {
            let grid = k.cover_grid(n, block);
            assert!(grid * per_block >= n, "{}: {grid} blocks miss elements of {n}", k.id);
            assert!((grid - 1) * per_block < n, "{}: {grid} blocks for {n} is one too many", k.id);
        }
    }
}

#[test]
fn arch_choice_takes_the_newest_the_device_runs() {
    let (sm80, sm90, sm90a) = (Arch::new(80, false), Arch::new(90, false), Arch::new(90, true));
    let built = [sm80, sm90, sm90a];
    assert_eq!(pick_arch(&built, 9, 0), Some(sm90a), "Hopper prefers its own arch");
    assert_eq!(pick_arch(&[sm80, sm90], 9, 0), Some(sm90));
    assert_eq!(pick_arch(&built, 8, 9), Some(sm80));
    assert_eq!(pick_arch(&built, 10, 0), Some(sm90), "sm_90a PTX does not run on Blackwell");
    assert_eq!(pick_arch(&built, 7, 5), None);
    assert_eq!(Arch::parse("sm_90a"), Some(sm90a));
    assert_eq!(Arch::parse("sm_80"), Some(sm80));
    assert_eq!(Arch::parse("sm_x"), None);
    assert_eq!(sm90a.to_string(), "sm_90a");
}

#[test]
fn wgmma_steps_are_skipped_with_a_reason_off_hopper() {
    let t5 =
        host::gemm::registry::GEMM_KERNELS.iter().find(|k| k.id == "t05_wgmma_f16").expect("t5 registered");
    let (sm90, sm90a) = (Arch::new(90, false), Arch::new(90, true));
    assert_eq!(t5.unavailable((9, 0), sm90a), None);
    let reason = t5.unavailable((8, 0), Arch::new(80, false)).expect("refused on Ampere");
    assert!(reason.contains("sm_90a") && reason.contains("8.0"), "{reason}");
    assert!(t5.unavailable((10, 0), sm90).is_some(), "refused on Blackwell");
    let reason = t5.unavailable((9, 0), sm90).expect("refused without the sm_90a PTX");
    assert!(reason.contains("build-ptx"), "{reason}");
    let t4 = host::gemm::registry::GEMM_KERNELS.iter().find(|k| k.id == "t04_warp_tile_f16").expect("t4");
    assert_eq!(t4.unavailable((10, 0), sm90), None);
}

#[test]
fn median_of_odd_and_even_samples() {
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
}

fn ptx_dir() -> PathBuf {
    PathBuf::from(ptx::BUILT_DIR)
}

/// The PTX of `arch`, or a failure that says how to build it.
fn read_ptx(arch: &str) -> String {
    let path = ptx_dir().join(arch).join("kernels.ptx");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}. The host's build script should have built it: rebuild (`cargo test`) and read its error", path.display()))
}

#[test]
fn ptx_is_built_for_ampere_and_hopper() {
    let archs: Vec<String> = available_archs(&ptx_dir()).iter().map(Arch::to_string).collect();
    for arch in ["sm_80", "sm_90", "sm_90a"] {
        assert!(
            archs.iter().any(|a| a == arch),
            "no {arch} PTX (found {archs:?}): the host's build script builds it"
        );
    }
    for (arch, isa) in [("sm_80", "7.8"), ("sm_90", "7.8"), ("sm_90a", "8.0")] {
        let text = read_ptx(arch);
        assert!(text.contains(&format!(".target {arch}\n")), "{arch}: wrong .target");
        assert!(text.contains(&format!(".version {isa}")), "{arch}: PTX ISA should be {isa}");
        assert_eq!(text.contains("wgmma"), arch == "sm_90a", "{arch}: wgmma belongs to sm_90a only");
    }
}

#[test]
fn ptx_matches_the_kernel_sources() {
    let written = std::fs::read_to_string(ptx_dir().join("fingerprint")).unwrap_or_default();
    assert_eq!(written.trim(), SOURCE_FINGERPRINT, "stale PTX: the build script should have rebuilt it");
    assert!(ptx::load(&ptx_dir(), 9, 0).is_ok());
}

#[test]
fn every_registered_kernel_is_in_the_ptx_and_every_entry_is_registered() {
    let everywhere: BTreeSet<&str> = REDUCE_KERNELS
        .iter()
        .flat_map(|k| k.symbols())
        .chain(PROBES.iter().flat_map(|p| p.kernels.iter().copied()))
        .chain(SUPPORT_KERNELS.iter().copied())
        .collect();
    for arch in ["sm_80", "sm_90", "sm_90a"] {
        let built = Arch::parse(arch).unwrap();
        // Generic kernels are in every file; an arch-specific one only in its own.
        let gemm = host::gemm::registry::GEMM_KERNELS.iter().filter(|g| !g.arch.specific || g.arch == built);
        let hopper_probes =
            PROBES.iter().filter(|_| built == Arch::new(90, true)).flat_map(|p| p.sm90a_kernels);
        let registered: BTreeSet<&str> =
            everywhere.iter().copied().chain(gemm.map(|g| g.id)).chain(hopper_probes.copied()).collect();
        let text = read_ptx(arch);
        let entries: BTreeSet<&str> = entry_points(&text).into_iter().collect();
        let missing: Vec<_> = registered.difference(&entries).collect();
        let unregistered: Vec<_> = entries.difference(&registered).collect();
        assert!(missing.is_empty(), "{arch}: registered but not in the PTX: {missing:?}");
        assert!(unregistered.is_empty(), "{arch}: in the PTX but not registered: {unregistered:?}");
    }
}

#[test]
fn launch_bounds_in_the_ptx_match_the_registered_blocks() {
    let text = read_ptx("sm_90a");
    let mut bounded = 0;
    for g in host::gemm::registry::GEMM_KERNELS {
        let Some(start) = text.find(&format!(".entry {}(", g.id)) else { continue };
        let header = &text[start..start + text[start..].find('{').expect("an entry body")];
        if let Some(at) = header.find(".maxntid ") {
            let threads: u32 = header[at + 9..].split(',').next().unwrap().trim().parse().unwrap();
            assert_eq!(threads, g.block.0 * g.block.1, "{}: .maxntid against the registered block", g.id);
            bounded += 1;
        }
    }
    assert!(bounded >= 2, "t6's entries carry .maxntid (from #[kernel(max_threads = …)])");
}

#[test]
fn instanced_kernels_name_one_symbol_per_size() {
    for k in REDUCE_KERNELS {
        if let BlockShape::Instances { default, instances } = k.block {
            assert!(instances.iter().any(|&(b, _)| b == default), "{}: default block has no instance", k.id);
            for &(block, symbol) in instances {
                assert!(
                    symbol.ends_with(&format!("_{block}")),
                    "{symbol} is not the {block}-thread instance"
                );
            }
        }
    }
}

#[test]
fn no_kernel_keeps_an_array_in_local_memory() {
    // A register array indexed at run time, or one LLVM failed to unroll over, becomes a
    // `__local_depot` stack frame: slow local memory on every access.
    for arch in ["sm_80", "sm_90", "sm_90a"] {
        let text = read_ptx(arch);
        assert!(
            !text.contains("__local_depot"),
            "{arch}: a kernel uses local memory (look for __local_depot)"
        );
    }
}

#[test]
fn bank_model_matches_the_textbook_cases() {
    use host::probes::model::bank_conflict_degree as ways;
    for (stride, expected) in [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (3, 1), (5, 1)] {
        assert_eq!(ways(4, stride), expected, "4-byte elements, stride {stride}");
    }
    for (stride, expected) in [(1, 1), (2, 1), (4, 2), (8, 4), (16, 8), (32, 16)] {
        assert_eq!(ways(2, stride), expected, "2-byte elements, stride {stride}");
    }
    for (stride, expected) in [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 16)] {
        assert_eq!(ways(8, stride), expected, "8-byte elements, stride {stride}");
    }
}

#[test]
fn sector_model_counts_whole_sectors() {
    use host::probes::model::sectors_touched;
    assert_eq!(sectors_touched(1024, 4, 1), 128);
    assert_eq!(sectors_touched(1024, 4, 2), 256);
    assert_eq!(sectors_touched(1024, 4, 8), 1024);
    assert_eq!(sectors_touched(1024, 4, 32), 1024);
    assert_eq!(sectors_touched(3, 4, 1), 1);
}

#[test]
fn littles_law_is_bandwidth_times_latency() {
    use host::probes::model::bytes_in_flight_needed;
    let bytes = bytes_in_flight_needed(4.8e12, 700e-9);
    assert!((bytes - 3.36e6).abs() < 1.0, "{bytes}");
    assert_eq!(bytes_in_flight_needed(1e9, 0.0), 0.0);
}

#[test]
fn chase_chain_is_one_cycle_through_every_node() {
    use common::probes::CHASE_NODE_STRIDE;
    use host::probes::latency::{build_chain, lap_sum};
    for nodes in [2, 3, 64, 1000, 4097] {
        let chain = build_chain(nodes, 99);
        let (mut element, mut seen, mut sum) = (0usize, BTreeSet::new(), 0u64);
        for _ in 0..nodes {
            element = chain[element] as usize;
            assert_eq!(element % CHASE_NODE_STRIDE as usize, 0, "nodes sit one line apart");
            assert!(seen.insert(element), "node {element} visited twice in {nodes}");
            sum += element as u64;
        }
        assert_eq!(element, 0, "one lap of {nodes} nodes returns to the start");
        assert_eq!(sum, lap_sum(nodes));
    }
}

#[test]
fn ptx_instruction_counts_see_guarded_instructions() {
    use host::probes::divergence::count_instructions;
    let ptx = "\t@%p1 bra \t$L__BB0_2;\n\tbra.uni \t$L__BB0_1;\n\tselp.f32 %f1, %f2, %f3, %p2;\n\t// bra in a comment\n";
    assert_eq!(count_instructions(ptx, "bra"), 2);
    assert_eq!(count_instructions(ptx, "selp"), 1);
}

#[test]
fn bank_probe_elements_are_views_of_the_same_words() {
    use common::probes::bank_probe_word;
    use host::probes::bank_conflicts::element_value;
    for lane in 0..32 {
        let e = lane * 3;
        let word = u64::from(bank_probe_word(e / 2));
        let half = if e % 2 == 0 { word & 0xffff } else { word >> 16 };
        assert_eq!(element_value(2, 3, lane), half);
        assert_eq!(element_value(4, 3, lane), u64::from(bank_probe_word(e)));
        let (lo, hi) = (u64::from(bank_probe_word(2 * e)), u64::from(bank_probe_word(2 * e + 1)));
        assert_eq!(element_value(8, 3, lane), lo | hi << 32);
    }
}

#[test]
fn saxpy_check_refuses_wrong_values_and_nan() {
    use host::probes::saxpy::{expected, first_mismatch};
    let good: Vec<f32> = (0..100).map(|i| expected(1, 2, i)).collect();
    assert_eq!(first_mismatch(&good, 1, 2), None);
    let mut off = good.clone();
    off[37] *= 1.001;
    assert!(first_mismatch(&off, 1, 2).unwrap().contains("y[37]"));
    let mut nan = good;
    nan[5] = f32::NAN;
    assert!(first_mismatch(&nan, 1, 2).unwrap().contains("y[5]"));
}

#[test]
fn tables_render_and_serialize_every_cell() {
    use host::table::{Cell, Table};
    let mut table = Table::new("t", &["name", "value"]);
    table.push(vec!["a".into(), Cell::Num(1.25, 1)]);
    table.push(vec!["b".into(), Cell::Num(f64::NAN, 1)]);
    let text = table.render();
    assert!(text.contains("a      1.2") || text.contains("a     1.2") || text.contains("1.2"), "{text}");
    assert_eq!(table.row_json(0)["value"], 1.25);
    assert!(table.row_json(1)["value"].is_null(), "NaN is written as null");
}

#[test]
#[should_panic(expected = "appears twice")]
fn table_columns_must_differ() {
    host::table::Table::new("t", &["ns", "ns"]);
}

#[test]
fn results_are_dated_in_utc() {
    let now = host::utc_now();
    assert_eq!(now.len(), 20, "{now}");
    assert!(now.starts_with("20") && now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
}

#[test]
fn ballots_mark_the_lanes_that_take_path_a() {
    use host::probes::divergence::{KERNELS, expected_ballot};
    let [(_, by_warp, _), (_, by_lane, _), ..] = KERNELS else { panic!("three kernels") };
    assert_eq!(expected_ballot(*by_warp, 0), 0xffff_ffff);
    assert_eq!(expected_ballot(*by_warp, 1), 0);
    assert_eq!(expected_ballot(*by_lane, 0), 0x5555_5555);
    assert_eq!(expected_ballot(*by_lane, 7), 0x5555_5555);
}

#[test]
fn gemm_shapes_parse_and_refuse() {
    use host::gemm::runner::parse_shape;
    assert_eq!(parse_shape("4096"), Ok((4096, 4096, 4096)));
    assert_eq!(parse_shape("4096x1x777"), Ok((4096, 1, 777)));
    for bad in ["", "0", "4x4", "1x0x3", "axbxc", "1x2x3x4"] {
        assert!(parse_shape(bad).is_err(), "{bad} accepted");
    }
}

#[test]
fn gemm_grids_cover_c() {
    use host::gemm::registry::{GEMM_KERNELS, GridMap};
    for kernel in GEMM_KERNELS {
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

/// The stream-K orders the steps use: t11's, t15/t16's, and t17's.
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
    use host::gemm::reference::{Inputs, SAMPLES, relative_error};
    let small =
        Inputs { precision: host::gemm::registry::Precision::F32, m: 3, n: 2, k: 5, seed_a: 1, seed_b: 2 };
    let entries = small.entries();
    assert_eq!(entries.len(), 6);
    let want = small.reference(&entries);
    let direct: f64 = (0..5).map(|p| f64::from(small.a(2, p)) * f64::from(small.b(p, 1))).sum();
    assert_eq!(want[5], direct);
    let large = Inputs {
        precision: host::gemm::registry::Precision::F16,
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
fn half_precision_inputs_are_exact() {
    use common::input::{bf16_bits_exact, f16_bits_exact, random_bf16_value, random_f16_value};
    for i in 0..20_000u64 {
        let h = random_f16_value(7, i);
        assert_eq!(half::f16::from_f32(h).to_bits(), f16_bits_exact(h), "f16 bits of {h}");
        assert_eq!(half::f16::from_bits(f16_bits_exact(h)).to_f32(), h, "{h} is not exact in f16");
        let b = random_bf16_value(7, i);
        assert_eq!(half::bf16::from_f32(b).to_bits(), bf16_bits_exact(b), "bf16 bits of {b}");
        assert_eq!(half::bf16::from_bits(bf16_bits_exact(b)).to_f32(), b, "{b} is not exact in bf16");
    }
    assert!(
        (0..1000).any(|i| random_f16_value(1, i) < 0.0) && (0..1000).any(|i| random_f16_value(1, i) > 0.5)
    );
}

#[test]
fn every_tensor_core_gemm_step_has_a_ceiling_and_fp32_steps_none() {
    use host::gemm::registry::{GEMM_KERNELS, Precision, TensorInstruction};
    for kernel in GEMM_KERNELS {
        let want = match kernel.precision {
            Precision::F32 => None,
            // t01–t04 issue mma.sync (sm_80 PTX); t05 onward wgmma (sm_90a PTX).
            _ if kernel.arch == Arch::new(80, false) => Some(TensorInstruction::MmaSync),
            _ if kernel.arch == Arch::new(90, true) => Some(TensorInstruction::Wgmma),
            _ => panic!(
                "{}: a tensor-core step on {}, which has no ceiling instruction",
                kernel.id, kernel.arch
            ),
        };
        assert_eq!(kernel.tensor_instruction(), want, "{}", kernel.id);
        let step: u32 =
            kernel.id.strip_prefix('t').and_then(|r| r.split('_').next()).map_or(0, |n| n.parse().unwrap());
        match kernel.tensor_instruction() {
            Some(TensorInstruction::MmaSync) => assert!((1..=4).contains(&step), "{}", kernel.id),
            Some(TensorInstruction::Wgmma) => assert!(step >= 5, "{}", kernel.id),
            None => assert!(kernel.id.starts_with('g'), "{}", kernel.id),
        }
    }
}

#[test]
fn ceiling_operands_are_exact_non_zero_and_every_partial_sum_exact() {
    use common::input::{bf16_bits_exact, f16_bits_exact};
    use common::probes::tensor_ceiling::operand;
    let mut distinct = BTreeSet::new();
    for i in 0..20_000u64 {
        let x = operand(3, i);
        assert!(x != 0.0 && x.abs() < 1.0, "{x}");
        assert_eq!((x * 256.0).fract(), 0.0, "{x} is not a multiple of 1/256");
        assert!((x * 256.0) as i32 % 2 != 0, "{x}: even numerator");
        assert_eq!(half::f16::from_bits(f16_bits_exact(x)).to_f32(), x, "{x} is not exact in f16");
        assert_eq!(half::bf16::from_bits(bf16_bits_exact(x)).to_f32(), x, "{x} is not exact in bf16");
        distinct.insert(x.to_bits());
    }
    assert_eq!(distinct.len(), 256, "every odd numerator in [-255, 255] appears");
    // 16 products of at most (255/256)² each: any partial sum stays a multiple of 2^-16
    // below 16, 20 significant bits, exact in f32 in any order.
    assert!(16.0 * (255.0f64 / 256.0).powi(2) < 16.0);
}

#[test]
fn ceiling_accumulators_return_to_zero_and_end_at_the_product() {
    use common::probes::tensor_ceiling::{mma_a, mma_b, wgmma_a, wgmma_b};
    // Simulate the kernels' sequences in f32, one product at a time, in two orders.
    let seed = 0x5eed;
    for (row, col, chain) in [(0, 0, 0), (15, 7, 7), (9, 3, 4)] {
        let product = |sign: f32, k: u32| sign * mma_a(seed, row, k) * mma_b(seed, chain, k, col);
        for order in [(0..16).collect::<Vec<u32>>(), (0..16).rev().collect()] {
            let mut acc = 0.0f32;
            for _ in 0..3 {
                order.iter().for_each(|&k| acc += product(1.0, k));
                order.iter().for_each(|&k| acc += product(-1.0, k));
                assert_eq!(acc, 0.0, "A then −A leaves zero");
            }
            order.iter().for_each(|&k| acc += product(1.0, k));
            let exact: f64 = (0..16).map(|k| f64::from(product(1.0, k))).sum();
            assert_eq!(f64::from(acc), exact);
        }
    }
    for (m, n) in [(0, 0), (63, 255), (17, 130)] {
        let step = |kk: u32| -> f32 {
            (0..16).map(|k| wgmma_a(seed, m, 16 * kk + k) * wgmma_b(seed, 16 * kk + k, n)).sum()
        };
        assert_eq!(step(0), -step(1), "k16 steps 0 and 1 cancel");
        assert_eq!(step(2), -step(3), "k16 steps 2 and 3 cancel");
        assert_ne!(step(0), step(2), "steps 0 and 2 hold different data");
        let mut acc = 0.0f32;
        for _ in 0..3 {
            for kk in 0..4 {
                for k in 0..16 {
                    acc += wgmma_a(seed, m, 16 * kk + k) * wgmma_b(seed, 16 * kk + k, n);
                }
                if kk % 2 == 1 {
                    assert_eq!(acc, 0.0);
                }
            }
        }
    }
}

#[test]
fn ceiling_results_are_not_trivial() {
    use host::probes::tensor_ceiling::{mma_expected, wgmma_expected};
    let (mma, wgmma) = (mma_expected(11), wgmma_expected(11));
    assert_eq!(wgmma.len(), 128);
    assert!(mma.iter().collect::<BTreeSet<_>>().len() > 28, "lanes should differ: {mma:x?}");
    assert!(wgmma.iter().collect::<BTreeSet<_>>().len() > 120, "threads should differ");
    assert!(!mma.contains(&0) && !mma.contains(&0xDEAD_BEEF));
    assert_ne!(mma_expected(12), mma, "the seed changes the operands");
}

#[test]
fn ceiling_sweep_counts_instructions_and_flops() {
    use host::gemm::registry::TensorInstruction;
    use host::probes::tensor_ceiling::{Config, LAUNCH_FLOP, configs, instruction_flop, wgmma_unavailable};
    assert_eq!(instruction_flop(TensorInstruction::MmaSync), 4096.0);
    assert_eq!(instruction_flop(TensorInstruction::Wgmma), 524_288.0);
    let all = configs();
    assert_eq!(all.len(), 14);
    assert!(all.iter().all(|c| c.kernel().is_ok()));
    for config in all {
        let threads = config.threads(132);
        let launch = config.launch(132);
        assert_eq!(threads, (launch.grid_dim.0 * launch.block_dim.0) as usize);
        let iters = config.iterations_for(132, LAUNCH_FLOP);
        let flop = config.flop(132, iters);
        assert!((LAUNCH_FLOP..1.1 * LAUNCH_FLOP).contains(&flop), "{config:?}: {flop:e} for {iters} trips");
    }
    let mma = Config {
        instruction: TensorInstruction::MmaSync,
        precision: host::gemm::registry::Precision::F16,
        per_sm: 2,
    };
    // 132 SMs × 8 warps × 8 chains × (2·10 + 1) products.
    assert_eq!(mma.instructions(132, 10), 132.0 * 8.0 * 8.0 * 21.0);
    let wgmma = Config { instruction: TensorInstruction::Wgmma, per_sm: 3, ..mma };
    assert_eq!(wgmma.instructions(132, 10), 132.0 * 3.0 * 41.0);
    assert_eq!(wgmma.launch(132).shared_mem_bytes, common::probes::tensor_ceiling::WGMMA_SHARED_BYTES);
    let (sm90, sm90a) = (Arch::new(90, false), Arch::new(90, true));
    assert_eq!(wgmma_unavailable((9, 0), sm90a), None);
    assert!(wgmma_unavailable((8, 0), Arch::new(80, false)).unwrap().contains("8.0"));
    assert!(wgmma_unavailable((9, 0), sm90).unwrap().contains("build-ptx"));
}

/// Every entry point of every ladder step: each must have a CUDA C++ twin.
fn ladder_symbols() -> Vec<&'static str> {
    REDUCE_KERNELS
        .iter()
        .flat_map(|k| k.symbols())
        .chain(host::gemm::registry::GEMM_KERNELS.iter().map(|g| g.id))
        .collect()
}

#[test]
fn every_ladder_step_has_exactly_one_cpp_twin() {
    use host::twins::{SOURCES, defines};
    let mut missing = Vec::new();
    for symbol in ladder_symbols() {
        let defining: Vec<&str> =
            SOURCES.iter().filter(|s| defines(s.text, symbol)).map(|s| s.path).collect();
        match defining.len() {
            0 => missing.push(symbol),
            1 => {}
            _ => panic!("`{symbol}` is defined by several twins: {defining:?}"),
        }
    }
    assert!(missing.is_empty(), "steps without a C++ twin in twins/: {missing:?}");
}

#[test]
fn every_twin_file_is_named_for_its_step_and_defines_only_ladder_entries() {
    use host::twins::{SOURCES, defines};
    let symbols = ladder_symbols();
    for source in SOURCES {
        let defined: Vec<&str> = symbols.iter().copied().filter(|s| defines(source.text, s)).collect();
        assert!(!defined.is_empty(), "twins/{} defines no ladder step's entry point", source.path);
        // The file is the Rust module's name: every entry it defines starts with the
        // step's number (`t02_ldmatrix.cu` defines `t02_ldmatrix_f16`).
        let stem = source.path.rsplit('/').next().unwrap().trim_end_matches(".cu");
        let step = stem.split('_').next().unwrap();
        for symbol in &defined {
            assert_eq!(symbol.split('_').next(), Some(step), "twins/{} defines {symbol}", source.path);
        }
        let ladder_dir = if REDUCE_KERNELS.iter().any(|k| k.symbols().contains(&defined[0])) {
            "reduce/"
        } else {
            "gemm/"
        };
        assert!(
            source.path.starts_with(ladder_dir),
            "twins/{} belongs under twins/{ladder_dir}",
            source.path
        );
    }
}

#[test]
fn twin_entry_points_are_found_only_where_declared_extern_c() {
    use host::twins::defines;
    let text = "template <int B> __device__ void body(int* x) { h0_helper(x); }\n\
                extern \"C\" __global__ void __launch_bounds__(256)\n  h0_interleaved_modulo(int* x) { body<1>(x); }\n";
    assert!(defines(text, "h0_interleaved_modulo"));
    assert!(!defines(text, "h0_helper"), "a call is not a definition");
    assert!(!defines(text, "h0_interleaved"), "a prefix of a longer name is not the name");
    assert!(!defines(text, "body"), "not extern \"C\"");
}

#[test]
fn nvrtc_targets_follow_the_loaded_ptx() {
    assert_eq!(host::twins::nvrtc_target(Arch::new(90, true)), "compute_90a");
    assert_eq!(host::twins::nvrtc_target(Arch::new(80, false)), "compute_80");
}

#[test]
fn a_shard_seed_starts_the_stream_at_the_shards_first_element() {
    use common::input::{random_f32, shard_seed};
    for (seed, first) in [(7u64, 0u64), (7, 1), (12345, 1 << 33), (u64::MAX, 999)] {
        for i in [0u64, 1, 1000] {
            assert_eq!(random_i32(shard_seed(seed, first), i), random_i32(seed, first + i));
            assert_eq!(random_f32(shard_seed(seed, first), i), random_f32(seed, first + i));
        }
    }
    let n = 100_003;
    let sharded = host::multi::shards(n, 3).into_iter().fold(0i32, |acc, (first, len)| {
        acc.wrapping_add(reference_sum(common::input::shard_seed(9, first as u64), len))
    });
    assert_eq!(sharded, reference_sum(9, n));
}

#[test]
fn shards_cover_the_array_in_order_and_differ_by_at_most_one() {
    for (n, parts) in [(0usize, 2usize), (1, 2), (7, 3), (1 << 34, 2), (1000, 8), (5, 8)] {
        let shards = host::multi::shards(n, parts);
        assert_eq!(shards.len(), parts);
        let mut next = 0;
        for &(first, len) in &shards {
            assert_eq!(first, next, "n = {n}, {parts} parts: a gap or an overlap");
            next = first + len;
        }
        assert_eq!(next, n, "n = {n}, {parts} parts: the shards do not reach the end");
        let (short, long) = (shards.iter().map(|s| s.1).min(), shards.iter().map(|s| s.1).max());
        assert!(long.unwrap() - short.unwrap() <= 1, "n = {n}, {parts} parts: uneven shards {shards:?}");
    }
}

#[test]
fn all_reduce_bus_bandwidth_is_nccl_tests_factor() {
    use host::multi::allreduce_bus_bandwidth;
    assert_eq!(allreduce_bus_bandwidth(100.0, 2), 100.0);
    assert_eq!(allreduce_bus_bandwidth(100.0, 4), 150.0);
    assert_eq!(allreduce_bus_bandwidth(100.0, 8), 175.0);
}

#[test]
fn link_figures_from_pcie_generation_and_bus_ids_in_either_spelling() {
    use host::multi::links::{pcie_lane_gbs, same_bus};
    let x16 = |generation| pcie_lane_gbs(generation).map(|lane| lane * 16.0);
    assert!((x16(5).unwrap() - 63.015).abs() < 0.01, "Gen5 ×16 is 63.0 GB/s each way");
    assert!((x16(4).unwrap() - 31.508).abs() < 0.01, "Gen4 ×16 is 31.5 GB/s each way");
    assert!((x16(3).unwrap() - 15.754).abs() < 0.01);
    assert_eq!(x16(2), Some(8.0));
    assert_eq!(pcie_lane_gbs(9), None);
    assert!(same_bus("0000:3b:00.0", "00000000:3B:00.0"));
    assert!(!same_bus("0000:3b:00.0", "00000000:3C:00.0"));
    assert!(!same_bus("0000:3b:00.0", "not a bus id"));
}

#[test]
fn nccl_that_cannot_be_loaded_is_explained() {
    let missing = "/nonexistent/libnccl.so.2".to_string();
    let Err(message) = host::multi::nccl::Nccl::load_from(std::slice::from_ref(&missing), "install it")
    else {
        panic!("a library that does not exist loaded");
    };
    assert!(message.contains(&missing) && message.ends_with("install it"), "{message}");
}

#[test]
fn multi_gpu_probes_have_their_own_prefix() {
    let multi: Vec<&str> = PROBES.iter().map(|p| p.id).filter(|id| id.starts_with('m')).collect();
    assert_eq!(multi, ["m1_interconnect", "m2_allreduce", "m3_node_sum"]);
    assert!(probes::select(&["p".into()]).iter().all(|p| !p.id.starts_with('m')), "`-k p` stays single-GPU");
}
