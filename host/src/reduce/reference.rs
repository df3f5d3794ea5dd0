//! The CPU reference: the wrapping sum of the same pseudo-random stream the GPU filled.

use common::input::random_i32;

/// `sum(random_i32(seed, i) for i in 0..n)` modulo 2^32, computed in parallel chunks
/// (wrapping addition is associative, so the chunking cannot change the result).
pub fn reference_sum(seed: u64, n: usize) -> i32 {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(64);
    let chunk = n.div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| {
                let end = (start + chunk).min(n);
                scope.spawn(move || sum_range(seed, start, end))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("reference thread")).fold(0i32, i32::wrapping_add)
    })
}

/// The wrapping sum of elements `start..end` of the stream, on one thread.
pub fn sum_range(seed: u64, start: usize, end: usize) -> i32 {
    (start..end).fold(0i32, |acc, i| acc.wrapping_add(random_i32(seed, i as u64)))
}
