//! CPU-side tests: they run everywhere, CI included.

use common::input::random_i32;
use host::cli::parse_size;
use clap::Parser;
use host::cli::Options;
use host::probes::{self, PROBES};
use host::ptx::{self, SOURCE_FINGERPRINT, available_archs, entry_points, pick_arch};
use host::reduce::reference::{reference_sum, sum_range};
use host::reduce::registry::{BlockShape, REDUCE_KERNELS, select};
use host::timing::median;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Kernels in the PTX that serve the runner rather than a ladder.
const SUPPORT_KERNELS: &[&str] = &["fill_random_i32", "fill_random_f32", "l2_flush_read"];

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
    assert!(err.contains("h0_interleaved_modulo") && err.contains("p6_latency"), "the error should list the ids: {err}");
}

#[test]
fn kernel_patterns_are_prefixes() {
    assert_eq!(select(&[]).len(), REDUCE_KERNELS.len());
    assert_eq!(select(&["x".into()]).len(), 4);
    assert_eq!(probes::select(&["p".into()]).len(), probes::PROBES.len());
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
    assert_eq!(pick_arch(&[80, 90], 9, 0), Some(90));
    assert_eq!(pick_arch(&[80, 90], 8, 9), Some(80));
    assert_eq!(pick_arch(&[80, 90], 12, 0), Some(90));
    assert_eq!(pick_arch(&[80, 90], 7, 5), None);
}

#[test]
fn median_of_odd_and_even_samples() {
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
}

fn ptx_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ptx")
}

/// The PTX of `arch`, or a failure that says how to build it.
fn read_ptx(arch: &str) -> String {
    let path = ptx_dir().join(arch).join("kernels.ptx");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}. Build the PTX first: `cargo xtask build-ptx`", path.display()))
}

#[test]
fn ptx_is_built_for_ampere_and_hopper() {
    assert_eq!(available_archs(&ptx_dir()), vec![80, 90], "run `cargo xtask build-ptx`");
    for arch in ["sm_80", "sm_90"] {
        let text = read_ptx(arch);
        assert!(text.contains(&format!(".target {arch}")), "{arch}: wrong .target");
        assert!(text.contains(".version 7.8"), "{arch}: PTX ISA should be 7.8");
    }
}

#[test]
fn ptx_matches_the_kernel_sources() {
    let written = std::fs::read_to_string(ptx_dir().join("fingerprint")).unwrap_or_default();
    assert_eq!(written.trim(), SOURCE_FINGERPRINT, "stale PTX: run `cargo xtask build-ptx`");
    assert!(ptx::load(&ptx_dir(), 9, 0).is_ok());
}

#[test]
fn every_registered_kernel_is_in_the_ptx_and_every_entry_is_registered() {
    let registered: BTreeSet<&str> = REDUCE_KERNELS
        .iter()
        .flat_map(|k| k.symbols())
        .chain(PROBES.iter().flat_map(|p| p.kernels.iter().copied()))
        .chain(SUPPORT_KERNELS.iter().copied())
        .collect();
    for arch in ["sm_80", "sm_90"] {
        let text = read_ptx(arch);
        let entries: BTreeSet<&str> = entry_points(&text).into_iter().collect();
        let missing: Vec<_> = registered.difference(&entries).collect();
        let unregistered: Vec<_> = entries.difference(&registered).collect();
        assert!(missing.is_empty(), "{arch}: registered but not in the PTX: {missing:?}");
        assert!(unregistered.is_empty(), "{arch}: in the PTX but not registered: {unregistered:?}");
    }
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
    for arch in ["sm_80", "sm_90"] {
        let text = read_ptx(arch);
        assert!(
            !text.contains("__local_depot"),
            "{arch}: a kernel uses local memory (look for __local_depot)"
        );
    }
}
