//! The probe family's CPU tests: the models the probes print beside their figures, and the
//! checks they run on the GPU's results.

use std::collections::BTreeSet;

#[test]
fn bank_model_matches_the_textbook_cases() {
    use super::model::bank_conflict_degree as ways;
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
    use super::model::sectors_touched;
    assert_eq!(sectors_touched(1024, 4, 1), 128);
    assert_eq!(sectors_touched(1024, 4, 2), 256);
    assert_eq!(sectors_touched(1024, 4, 8), 1024);
    assert_eq!(sectors_touched(1024, 4, 32), 1024);
    assert_eq!(sectors_touched(3, 4, 1), 1);
}

#[test]
fn littles_law_is_bandwidth_times_latency() {
    use super::model::bytes_in_flight_needed;
    let bytes = bytes_in_flight_needed(4.8e12, 700e-9);
    assert!((bytes - 3.36e6).abs() < 1.0, "{bytes}");
    assert_eq!(bytes_in_flight_needed(1e9, 0.0), 0.0);
}

#[test]
fn chase_chain_is_one_cycle_through_every_node() {
    use super::latency::{build_chain, lap_sum};
    use common::probes::CHASE_NODE_STRIDE;
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
    use super::divergence::count_instructions;
    let ptx = "\t@%p1 bra \t$L__BB0_2;\n\tbra.uni \t$L__BB0_1;\n\tselp.f32 %f1, %f2, %f3, %p2;\n\t// bra in a comment\n";
    assert_eq!(count_instructions(ptx, "bra"), 2);
    assert_eq!(count_instructions(ptx, "selp"), 1);
}

#[test]
fn bank_probe_elements_are_views_of_the_same_words() {
    use super::bank_conflicts::element_value;
    use common::probes::bank_probe_word;
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
    use super::saxpy::{expected, first_mismatch};
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
fn ballots_mark_the_lanes_that_take_path_a() {
    use super::divergence::{KERNELS, expected_ballot};
    let [(_, by_warp, _), (_, by_lane, _), ..] = KERNELS else { panic!("three kernels") };
    assert_eq!(expected_ballot(*by_warp, 0), 0xffff_ffff);
    assert_eq!(expected_ballot(*by_warp, 1), 0);
    assert_eq!(expected_ballot(*by_lane, 0), 0x5555_5555);
    assert_eq!(expected_ballot(*by_lane, 7), 0x5555_5555);
}

#[test]
fn node_probes_have_their_own_prefix() {
    let node: Vec<&str> = super::PROBES.iter().map(|p| p.id).filter(|id| id.starts_with('m')).collect();
    assert_eq!(node, ["m1_interconnect", "m2_allreduce", "m3_node_sum"]);
    assert!(super::PROBES.iter().all(|p| p.id.starts_with('m') || p.id.starts_with('p')));
}
