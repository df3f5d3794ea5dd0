//! The arithmetic the probes compare their measurements with: the shared-memory bank
//! model, the global-memory sector model and Little's law.

/// Banks of shared memory, each one 4-byte word wide, on every GPU since Kepler.
pub const BANKS: u64 = 32;

/// Bytes one shared-memory pass can serve: one word from each bank.
const PASS_BYTES: u64 = BANKS * 4;

/// Lanes in a warp.
const LANES: u64 = 32;

/// Passes a warp needs when lane `l` reads the `width`-byte element `l · stride` of a
/// shared array, relative to the conflict-free count: 1 = no conflict, k = k-way.
///
/// The model: a warp's request is split into phases of lanes whose bytes fill one pass
/// (32 lanes for 1- to 4-byte elements, 16 for 8-byte ones); in each phase a bank serves
/// one distinct word per pass, lanes reading the same word share it (broadcast), so a
/// phase takes as many passes as the most-loaded bank has distinct words.
pub fn bank_conflict_degree(width: u64, stride: u64) -> u64 {
    assert!(matches!(width, 1 | 2 | 4 | 8 | 16), "element width {width} is not a power of two up to 16");
    let lanes_per_phase = (PASS_BYTES / width).min(LANES);
    let phases = LANES / lanes_per_phase;
    let mut passes = 0;
    for phase in 0..phases {
        let mut words_per_bank: Vec<Vec<u64>> = vec![Vec::new(); BANKS as usize];
        for lane in phase * lanes_per_phase..(phase + 1) * lanes_per_phase {
            let first_byte = lane * stride * width;
            for word in first_byte / 4..(first_byte + width).div_ceil(4) {
                let bank = &mut words_per_bank[(word % BANKS) as usize];
                if !bank.contains(&word) {
                    bank.push(word);
                }
            }
        }
        passes += words_per_bank.iter().map(Vec::len).max().unwrap_or(0) as u64;
    }
    passes / phases
}

/// Bytes of one memory sector: the unit in which L2 and DRAM move data.
pub const SECTOR_BYTES: u64 = 32;

/// Sectors touched when `count` `width`-byte elements `stride` elements apart are read.
pub fn sectors_touched(count: u64, width: u64, stride: u64) -> u64 {
    let gap = stride * width;
    if gap >= SECTOR_BYTES { count } else { (count * gap).div_ceil(SECTOR_BYTES) }
}

/// Little's law: the bytes that must be in flight to sustain `bandwidth` (bytes/s) when
/// each request takes `latency` seconds.
pub fn bytes_in_flight_needed(bandwidth: f64, latency: f64) -> f64 {
    bandwidth * latency
}
