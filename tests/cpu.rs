//! CPU-side tests that belong to no one family: they run everywhere, CI included. Each
//! family's own CPU tests live in its folder (`host/src/families/<name>/tests.rs`); here,
//! the registries of every family against the PTX and the twins, selection, the floors'
//! pieces, and the references shared by several families.

use clap::Parser;
use common::input::random_i32;
use host::base::inputs::{reference_sum, sum_range};
use host::base::ptx::{self, Arch, SOURCE_FINGERPRINT, available_archs, entry_points, pick_arch};
use host::cli::Options;
use host::cli::parse_size;
use host::families::{FAMILIES, all_steps, select};
use host::measure::timing::median;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Kernels in the PTX that serve the runner rather than a ladder.
const SUPPORT_KERNELS: &[&str] = &[
    "fill_random_i32",
    "fill_random_f32",
    "fill_random_f16",
    "fill_random_bf16",
    "l2_flush_read",
    // The scan's propagation pass, launched by s01–s05 (each twin defines its own copy
    // through twins/scan.cuh).
    "scan_add_offsets_i32",
    "scan_add_offsets_f32",
];

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
fn tables_render_and_serialize_every_cell() {
    use host::report::table::{Cell, Table};
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
    host::report::table::Table::new("t", &["ns", "ns"]);
}

#[test]
fn results_are_dated_in_utc() {
    let now = host::base::clock::utc_now();
    assert_eq!(now.len(), 20, "{now}");
    assert!(now.starts_with("20") && now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
}

#[test]
fn gemm_shapes_parse_and_refuse() {
    use host::cli::parse_shape;
    assert_eq!(parse_shape("4096"), Ok((4096, 4096, 4096)));
    assert_eq!(parse_shape("4096x1x777"), Ok((4096, 1, 777)));
    for bad in ["", "0", "4x4", "1x0x3", "axbxc", "1x2x3x4"] {
        assert!(parse_shape(bad).is_err(), "{bad} accepted");
    }
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
    use host::ceilings::{mma_expected, wgmma_expected, wgmma_fp8_expected};
    let (mma, wgmma, fp8) = (mma_expected(11), wgmma_expected(11), wgmma_fp8_expected(11));
    assert_eq!(wgmma.len(), 128);
    assert_eq!(fp8.len(), 128);
    assert!(fp8.iter().collect::<BTreeSet<_>>().len() > 120, "threads should differ (8-bit)");
    assert_ne!(fp8, wgmma, "the 8-bit operands are their own");
    assert!(mma.iter().collect::<BTreeSet<_>>().len() > 28, "lanes should differ: {mma:x?}");
    assert!(wgmma.iter().collect::<BTreeSet<_>>().len() > 120, "threads should differ");
    assert!(!mma.contains(&0) && !mma.contains(&0xDEAD_BEEF));
    assert_ne!(mma_expected(12), mma, "the seed changes the operands");
}

#[test]
fn ceiling_sweep_counts_instructions_and_flops() {
    use host::base::precision::Precision;
    use host::ceilings::TensorInstruction;
    use host::ceilings::{Config, LAUNCH_FLOP, configs, instruction_flop, wgmma_unavailable};
    assert_eq!(instruction_flop(TensorInstruction::MmaSync, Precision::F16), 4096.0);
    assert_eq!(instruction_flop(TensorInstruction::Wgmma, Precision::Bf16), 524_288.0);
    assert_eq!(instruction_flop(TensorInstruction::Wgmma, Precision::E4m3), 1_048_576.0, "k32");
    let all = configs();
    assert_eq!(all.len(), 2 * 4 + 3 * 3, "mma.sync: 2 types × 4 counts; wgmma: 3 types × 3 counts");
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
        precision: host::base::precision::Precision::F16,
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
    let sharded = host::measure::node::shards(n, 3).into_iter().fold(0i32, |acc, (first, len)| {
        acc.wrapping_add(reference_sum(common::input::shard_seed(9, first as u64), len))
    });
    assert_eq!(sharded, reference_sum(9, n));
}

#[test]
fn shards_cover_the_array_in_order_and_differ_by_at_most_one() {
    for (n, parts) in [(0usize, 2usize), (1, 2), (7, 3), (1 << 34, 2), (1000, 8), (5, 8)] {
        let shards = host::measure::node::shards(n, parts);
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
fn node_probes_run_at_powers_of_two_and_the_whole_node() {
    use host::measure::node::gpu_counts;
    assert_eq!(gpu_counts(1), [1]);
    assert_eq!(gpu_counts(2), [1, 2]);
    assert_eq!(gpu_counts(3), [1, 2, 3]);
    assert_eq!(gpu_counts(4), [1, 2, 4]);
    assert_eq!(gpu_counts(6), [1, 2, 4, 6]);
    assert_eq!(gpu_counts(8), [1, 2, 4, 8]);
    assert!(gpu_counts(0).is_empty());
}

#[test]
fn every_ordered_pair_of_gpus_once() {
    use host::measure::node::ordered_pairs;
    assert!(ordered_pairs(1).is_empty());
    assert_eq!(ordered_pairs(2), [(0, 1), (1, 0)]);
    let pairs = ordered_pairs(4);
    assert_eq!(pairs.len(), 12);
    assert!(pairs.iter().all(|(a, b)| a != b && *a < 4 && *b < 4));
    let unique: std::collections::BTreeSet<_> = pairs.iter().collect();
    assert_eq!(unique.len(), 12, "no pair twice");
    assert!(pairs.windows(2).all(|w| w[0] < w[1]), "by sender, then receiver");
}

#[test]
fn all_reduce_bus_bandwidth_is_nccl_tests_factor() {
    use host::measure::node::allreduce_bus_bandwidth;
    assert_eq!(allreduce_bus_bandwidth(100.0, 2), 100.0);
    assert_eq!(allreduce_bus_bandwidth(100.0, 4), 150.0);
    assert_eq!(allreduce_bus_bandwidth(100.0, 8), 175.0);
}

#[test]
fn link_figures_from_pcie_generation_and_bus_ids_in_either_spelling() {
    use host::measure::links::{pcie_lane_gbs, same_bus};
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
    let Err(message) = host::measure::nccl::Nccl::load_from(std::slice::from_ref(&missing), "install it")
    else {
        panic!("a library that does not exist loaded");
    };
    assert!(message.contains(&missing) && message.ends_with("install it"), "{message}");
}

#[test]
fn step_ids_and_entry_points_are_unique_across_families() {
    let (mut ids, mut symbols) = (BTreeSet::new(), BTreeSet::new());
    for (family, step) in all_steps() {
        assert!(ids.insert(step.id), "{}: duplicate id {}", family.name(), step.id);
        assert!(step.number().is_some(), "{}: `{}` has no ladder letter and number", family.name(), step.id);
        assert!(
            family.ladders().iter().any(|l| l.prefix == step.ladder()),
            "{}: `{}` is in none of its family's ladders",
            family.name(),
            step.id
        );
        for symbol in step.symbol_names() {
            // p1 and p3 share copy_16b; a ladder step's entry points are its own.
            assert!(!step.twinned || symbols.insert(symbol), "{}: entry point {symbol} twice", step.id);
        }
    }
    let names: BTreeSet<&str> = FAMILIES.iter().map(|f| f.name()).collect();
    assert_eq!(names.len(), FAMILIES.len(), "two families with one name");
}

#[test]
fn steps_sort_in_ladder_order_within_each_ladder() {
    for family in FAMILIES {
        let steps = family.steps();
        for ladder in family.ladders() {
            // Zero-padded numbers: the files and ids sort in ladder order (`t02` before `w06`).
            let numbers: Vec<u32> =
                steps.iter().filter(|s| s.ladder() == ladder.prefix).filter_map(|s| s.number()).collect();
            assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{}: {numbers:?}", ladder.prefix);
            let widths: BTreeSet<usize> = steps
                .iter()
                .filter(|s| s.ladder() == ladder.prefix)
                .map(|s| s.id[ladder.prefix.len()..].chars().take_while(char::is_ascii_digit).count())
                .collect();
            assert_eq!(
                widths.len(),
                1,
                "{}: numbers of different widths sort out of ladder order",
                ladder.prefix
            );
        }
    }
}

#[test]
fn every_registered_entry_point_is_in_the_ptx_and_every_entry_is_registered() {
    for arch in ["sm_80", "sm_90", "sm_90a"] {
        let built = Arch::parse(arch).unwrap();
        // Generic entry points are in every file; an arch-specific one only in its own.
        let registered: BTreeSet<&str> = all_steps()
            .iter()
            .flat_map(|(_, step)| step.symbols.clone())
            .filter(|&(_, needs)| !needs.specific || needs == built)
            .map(|(symbol, _)| symbol)
            .chain(SUPPORT_KERNELS.iter().copied())
            .collect();
        let text = read_ptx(arch);
        let entries: BTreeSet<&str> = entry_points(&text).into_iter().collect();
        let missing: Vec<_> = registered.difference(&entries).collect();
        let unregistered: Vec<_> = entries.difference(&registered).collect();
        assert!(missing.is_empty(), "{arch}: registered but not in the PTX: {missing:?}");
        assert!(unregistered.is_empty(), "{arch}: in the PTX but not registered: {unregistered:?}");
    }
}

#[test]
fn every_ladder_step_has_exactly_one_cpp_twin_in_its_familys_folder() {
    use host::twins::{SOURCES, defines};
    let mut missing = Vec::new();
    for (family, step) in all_steps().into_iter().filter(|(_, s)| s.twinned) {
        for symbol in step.symbol_names() {
            let defining: Vec<&str> =
                SOURCES.iter().filter(|s| defines(s.text, symbol)).map(|s| s.path).collect();
            match defining[..] {
                [] => missing.push(symbol),
                [path] => assert!(
                    path.starts_with(&format!("{}/", family.name())),
                    "twins/{path} defines {symbol} of the {} family: it belongs under twins/{}/",
                    family.name(),
                    family.name()
                ),
                _ => panic!("`{symbol}` is defined by several twins: {defining:?}"),
            }
        }
    }
    assert!(missing.is_empty(), "steps without a C++ twin in twins/: {missing:?}");
}

#[test]
fn every_twin_file_is_named_for_its_step_and_defines_only_its_entries() {
    use host::twins::{SOURCES, defines};
    let steps: Vec<_> = all_steps().into_iter().filter(|(_, s)| s.twinned).map(|(_, s)| s).collect();
    for source in SOURCES {
        let stem = source.path.rsplit('/').next().unwrap().trim_end_matches(".cu");
        let defined: Vec<&str> =
            steps.iter().flat_map(|s| s.symbol_names()).filter(|s| defines(source.text, s)).collect();
        assert!(!defined.is_empty(), "twins/{} defines no ladder step's entry point", source.path);
        // The file is the Rust module's name (`t02_ldmatrix.cu` holds `t02_ldmatrix_f16`,
        // `s06_reduce_then_scan.cu` the step's `s06_reduce_tiles_i32` and `s06_scan_tiles_i32`).
        let owner = |symbol: &str| steps.iter().find(|s| s.symbol_names().contains(&symbol)).map(|s| s.id);
        for symbol in &defined {
            let step = owner(symbol).unwrap_or_default();
            assert!(
                symbol.starts_with(stem) || stem.starts_with(step) || step.starts_with(stem),
                "twins/{} defines {symbol}, not of its step {stem}",
                source.path
            );
        }
    }
}

#[test]
fn selection_picks_families_ladders_steps_and_ranges() {
    let ids = |patterns: &[&str]| -> Vec<&'static str> {
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        select(&patterns)
            .unwrap()
            .into_iter()
            .flat_map(|(_, steps)| steps.into_iter().map(|s| s.id))
            .collect()
    };
    let every = all_steps().len();
    assert_eq!(ids(&[]).len(), every, "no pattern: everything");
    let gemm = host::families::family("gemm").unwrap().steps().len();
    assert_eq!(ids(&["gemm"]).len(), gemm);
    assert_eq!(ids(&["GEMM"]).len(), gemm, "case-insensitive");
    assert_eq!(
        ids(&["g"]).len() + ids(&["t"]).len() + ids(&["w"]).len(),
        gemm,
        "the GEMM family is ladders g, t and w"
    );
    assert_eq!(ids(&["probes"]), ids(&["probe"]));
    assert_eq!(ids(&["t1"]), ["t01_mma_sync_f16", "t01_mma_sync_bf16"], "t1 is step 1 of its ladder");
    assert_eq!(ids(&["t01"]), ids(&["t1"]));
    assert_eq!(ids(&["w01_wgmma_f16"]), ["w01_wgmma_f16"]);
    assert_eq!(ids(&["w1"]), ["w01_wgmma_f16", "w01_wgmma_bf16"], "w1 is step 1, not w10-w13");
    assert_eq!(ids(&["t05_wgmma_f16"]), ["w01_wgmma_f16"], "an id from before the Hopper ladder");
    assert_eq!(ids(&["t5_wgmma_f16"]), ["w01_wgmma_f16"], "an id from before the zero padding");
    assert_eq!(ids(&["w08_latency_trims_b"]), ["w08_latency_trims_bf16"]);
    assert_eq!(ids(&["w06-w13"]).len(), 16);
    assert_eq!(ids(&["w06..13"]).len(), 16);
    assert_eq!(ids(&["x4"]), ["x4_packed_tally"]);
    assert_eq!(ids(&["p6", "x4"]), ["x4_packed_tally", "p6_latency"], "run order, not pattern order");
    assert_eq!(ids(&["x", "x4"]).len(), 4, "each step once");
    assert!(ids(&["p"]).iter().all(|id| id.starts_with('p')), "`-k p` stays on one GPU");
    assert_eq!(ids(&["m"]), ["m1_interconnect", "m2_allreduce", "m3_node_sum"]);
}

#[test]
fn a_pattern_that_picks_nothing_names_the_closest_ids() {
    for (pattern, near) in [
        ("t99", "t"),
        ("wgmma", "w01_wgmma"),
        ("gem", "gemm"),
        ("x4_packed_taly", "x4_packed_tally"),
        ("t12", "t05–t17 are w01–w13"),
    ] {
        let Err(err) = select(&[pattern.to_string()]) else { panic!("`{pattern}` picked something") };
        let err = err.to_string();
        assert!(err.contains(pattern) && err.contains("--list"), "{err}");
        assert!(err.contains(near), "`{pattern}`: {err}");
    }
    for bad in ["", "7", "w06-t5", "-"] {
        assert!(select(&[bad.to_string()]).is_err(), "`{bad}` accepted");
    }
}

#[test]
fn unknown_step_names_are_refused_before_touching_the_gpu() {
    let options = Options::parse_from(["host", "-k", "nope"]);
    let err = host::run(&options).unwrap_err().to_string();
    assert!(err.contains("nope") && err.contains("--list"), "{err}");
}

#[test]
fn the_list_names_every_family_and_step() {
    let list = host::families::list();
    for (family, step) in all_steps() {
        assert!(list.contains(family.name()) && list.contains(step.id), "{} missing from --list", step.id);
    }
    assert!(list.contains("(needs sm_90a)"), "Hopper-only steps say so");
}
