//! The scan family's CPU tests: the references against plain sequential scans, the checks
//! catching what they must, and the registry's shapes against `common::scan`.

use super::reference::{self, GUARD, POISON, check_compaction, check_scan, input_bits};
use super::registry::{ElementType, SCAN_STEPS, Scheme};

/// A plain sequential scan of stream `seed`, as output words plus the poisoned guard.
fn sequential(element: ElementType, exclusive: bool, seed: u64, n: usize) -> Vec<u32> {
    let mut words = Vec::with_capacity(n + GUARD);
    let (mut int, mut float) = (0i32, 0.0f32);
    for i in 0..n {
        let bits = input_bits(element, seed, i);
        let (next_int, next_float) = (int.wrapping_add(bits as i32), float + f32::from_bits(bits));
        words.push(match (element, exclusive) {
            (ElementType::I32, false) => next_int as u32,
            (ElementType::I32, true) => int as u32,
            (ElementType::F32, false) => next_float.to_bits(),
            (ElementType::F32, true) => float.to_bits(),
        });
        (int, float) = (next_int, next_float);
    }
    words.extend([POISON; GUARD]);
    words
}

#[test]
fn a_sequential_scan_passes_in_both_types_and_modes() {
    // Past one chunk of the parallel check (2^22), so that chunk starts are exercised.
    for n in [0, 1, 31, 1000, (1 << 22) + 5] {
        for element in [ElementType::I32, ElementType::F32] {
            for exclusive in [false, true] {
                let words = sequential(element, exclusive, 11, n);
                let check = check_scan(element, exclusive, 11, n, &words);
                assert!(check.passed(), "{element:?} exclusive {exclusive} n {n}: {}", check.first);
            }
        }
    }
}

#[test]
fn one_wrong_element_a_nan_or_a_written_guard_fails() {
    let n = 5000;
    for element in [ElementType::I32, ElementType::F32] {
        let good = sequential(element, false, 3, n);
        let mut off_by_one = good.clone();
        off_by_one[4321] = match element {
            ElementType::I32 => off_by_one[4321].wrapping_add(1),
            ElementType::F32 => (f32::from_bits(off_by_one[4321]) + 1.0).to_bits(),
        };
        let check = check_scan(element, false, 3, n, &off_by_one);
        assert_eq!(check.wrong, 1, "{element:?}: {check:?}");
        assert!(check.first.contains("element 4321"), "{}", check.first);
        let mut guard = good.clone();
        guard[n + 7] = 0;
        assert!(
            !check_scan(element, false, 3, n, &guard).passed(),
            "{element:?}: a written guard word passed"
        );
        let mut shifted = good.clone();
        shifted.rotate_right(1);
        assert!(
            !check_scan(element, false, 3, n, &shifted).passed(),
            "{element:?}: exclusive passed as inclusive"
        );
    }
    let mut nan = sequential(ElementType::F32, true, 3, n);
    nan[17] = f32::NAN.to_bits();
    assert!(!check_scan(ElementType::F32, true, 3, n, &nan).passed(), "NaN passed");
}

#[test]
fn the_f32_bound_grows_with_the_index_and_stays_below_a_tile_sum() {
    assert!(reference::f32_bound(1 << 30, 100.0) > reference::f32_bound(1000, 100.0));
    // At 2^20 elements of [-1, 1), a missed tile of 512 (its sum ~ 13 in magnitude) is far
    // above the bound on a prefix of a few thousand.
    assert!(reference::f32_bound(1 << 20, 3000.0) < 1.0);
}

#[test]
fn compaction_check_needs_the_kept_elements_in_order_and_their_count() {
    let (seed, n) = (5, 10_000);
    let kept: Vec<u32> = (0..n)
        .map(|i| input_bits(ElementType::I32, seed, i))
        .filter(|&b| reference::kept(b as i32))
        .collect();
    let mut words = kept.clone();
    words.resize(n + GUARD, POISON);
    assert_eq!(reference::kept_count(seed, n), kept.len());
    assert!(check_compaction(seed, n, kept.len() as u32, &words, false).passed());
    assert!(!check_compaction(seed, n, kept.len() as u32 + 1, &words, false).passed(), "wrong count passed");
    let mut swapped = words.clone();
    swapped.swap(3, 4);
    assert!(!check_compaction(seed, n, kept.len() as u32, &swapped, false).passed(), "out of order passed");
    let mut stray = words.clone();
    stray[kept.len() + 2] = 1;
    assert!(!check_compaction(seed, n, kept.len() as u32, &stray, false).passed(), "a stray write passed");
}

#[test]
fn registry_shapes_are_common_scans_and_tiles_cover_every_element() {
    for step in SCAN_STEPS {
        assert_eq!(step.tile % 4, 0, "{}: 16-byte units need tiles of 4k", step.id);
        assert!(step.threads % 32 == 0 && step.threads <= 1024, "{}", step.id);
        assert_eq!(step.tiles(0), 1, "{}: an empty input still gets a block", step.id);
        for n in [1, step.tile as usize - 1, step.tile as usize, step.tile as usize + 1, (1 << 31) + 3] {
            let tiles = step.tiles(n);
            assert!(
                tiles * step.tile as usize >= n && (tiles - 1) * (step.tile as usize) < n,
                "{}: {n}",
                step.id
            );
        }
        let forms = step.entries(ElementType::F32).is_some();
        assert_eq!(
            forms,
            step.scheme != Scheme::Compaction,
            "{}: only compaction lacks an f32 form",
            step.id
        );
        for symbol in step.symbols() {
            assert!(symbol.starts_with(&step.id[..3]), "{}: entry point {symbol}", step.id);
        }
    }
    assert_eq!(common::scan::s03::PADDED, 528);
}

#[test]
fn status_words_of_another_launch_read_as_unwritten() {
    use common::scan::status::{AGGREGATE, PREFIX, epoch, kind, value, word};
    let w = word(3, PREFIX, 0xdead_beef);
    assert_eq!((kind(w, 3), value(w)), (PREFIX, 0xdead_beef));
    assert_eq!(kind(w, 4), 0, "a word of launch 3 read in launch 4");
    assert_eq!(kind(0, 1), 0, "a zeroed word is unwritten");
    assert_eq!(kind(word(1, AGGREGATE, 0), 1), AGGREGATE);
    // Every launch over `tiles` tiles takes `tiles` tickets.
    assert_eq!((epoch(0, 7), epoch(6, 7), epoch(7, 7), epoch(20, 7)), (1, 1, 2, 3));
}
