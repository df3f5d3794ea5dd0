//! Which GPU architectures the PTX is built for, and the PTX ISA each one gets.

use crate::Result;

/// The archs built by default (by `cargo xtask build-ptx` and by the host's build script):
/// Ampere (A100, sm_80), Hopper (H100/H200, sm_90), and Hopper's arch-specific sm_90a,
/// which alone may hold `wgmma` (its PTX runs only on compute capability 9.0; the host
/// prefers it there). The host loads the newest one that the device can run; the driver
/// compiles PTX forward for newer GPUs.
pub const DEFAULT_ARCHS: &[&str] = &["sm_80", "sm_90", "sm_90a"];

/// The default archs as owned names, the form [`crate::build`] takes.
pub fn default_archs() -> Vec<String> {
    DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect()
}

/// PTX ISA version written into each file. 7.8 is the oldest that knows sm_90, and every
/// driver since CUDA 11.8 (R520) loads it; a newer ISA would lock out older drivers for
/// nothing. sm_90a and its `wgmma` need 8.0 (CUDA 12.0 drivers and newer).
pub fn ptx_isa(arch: &str) -> &'static str {
    if arch.ends_with('a') { "ptx80" } else { "ptx78" }
}

/// Refuses anything but `sm_XY` or `sm_XYa` with XY ≥ 80: the kernels use `cp.async` and
/// `mma.sync`, which older GPUs lack.
pub fn check_arch(arch: &str) -> Result<()> {
    let number = arch.strip_prefix("sm_").unwrap_or("");
    let number = number.strip_suffix('a').unwrap_or(number);
    let supported = number.len() >= 2
        && number.chars().all(|c| c.is_ascii_digit())
        && number.parse::<u32>().is_ok_and(|n| n >= 80);
    if !supported {
        return Err(format!(
            "`{arch}` is not an arch these kernels support (they use cp.async and mma.sync): \
             give sm_80 or newer, e.g. --arch sm_80,sm_90,sm_90a"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archs_from_ampere_on_are_accepted() {
        for arch in ["sm_80", "sm_86", "sm_90", "sm_90a", "sm_100", "sm_120a"] {
            assert_eq!(check_arch(arch), Ok(()), "{arch}");
        }
        for arch in ["sm_75", "sm_8", "compute_90", "sm_9x", "90", ""] {
            assert!(check_arch(arch).is_err(), "{arch} should be refused");
        }
    }

    #[test]
    fn only_arch_specific_targets_get_isa_8() {
        assert_eq!(ptx_isa("sm_80"), "ptx78");
        assert_eq!(ptx_isa("sm_90"), "ptx78");
        assert_eq!(ptx_isa("sm_90a"), "ptx80");
    }
}
