//! The reduction family's CPU tests: block sizes, grids and instances as the registry
//! describes them.

use super::registry::{BlockShape, REDUCE_KERNELS, ReduceKernel};

/// The kernel whose id starts with `prefix`.
fn kernel(prefix: &str) -> &'static ReduceKernel {
    REDUCE_KERNELS.iter().find(|k| k.id.starts_with(prefix)).expect("registered")
}

#[test]
fn block_sizes_are_checked() {
    let h0 = kernel("h0");
    assert_eq!(h0.block_size(None).unwrap(), 256);
    assert_eq!(h0.block_size(Some(128)).unwrap(), 128);
    for bad in [0, 32, 100, 2048] {
        assert!(h0.block_size(Some(bad)).is_err(), "block {bad} accepted");
    }
    let h5 = kernel("h5");
    assert_eq!(h5.symbol(h5.block_size(Some(512)).unwrap()), "h5_complete_unroll_512");
    assert!(h5.block_size(Some(64)).is_err(), "h5 has no 64-thread instance");
    let v4 = kernel("v4");
    assert_eq!(
        v4.block_size(Some(128)).unwrap(),
        common::reduce::VECTOR_SUM_BLOCK,
        "fixed blocks ignore --block"
    );
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
