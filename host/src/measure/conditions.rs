//! Run conditions: the GPU's SM and memory clocks, temperature, power draw and clock event
//! ("throttle") reasons, read through NVML at the start and at the end of a run, so that a
//! slow run (a hot or power-capped GPU, clocks held down) can be told from a slow kernel.
//!
//! NVML (`libnvidia-ml.so.1`, installed with the NVIDIA driver) is loaded at run time by
//! `nvml-wrapper` (through `libloading`), so the runner builds and runs without it. It is
//! optional: when it cannot be loaded or initialised, or does not know the device, the header
//! says so in one line (`run conditions: NVML not available (…)`) and the run goes on.
//!
//! NVML numbers devices its own way (by PCI order, ignoring `CUDA_VISIBLE_DEVICES`), so the
//! CUDA device is matched by its PCI bus id, or else by its UUID, never by ordinal.

use crate::base::gpu::Gpu;
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::error::{Bits, NvmlError};
use std::ffi::OsStr;

/// The library nvml-wrapper loads by default, named here for the messages.
pub const NVML_LIBRARY: &str = "libnvidia-ml.so.1";

/// What NVML said about the GPU at one moment. A reading the device does not support (some
/// virtual GPUs report no power draw) is `None` and shows as `n/a`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conditions {
    /// Current SM clock, MHz.
    pub sm_mhz: Option<u32>,
    /// Current memory clock, MHz (the figure the device attribute gives as its peak).
    pub mem_mhz: Option<u32>,
    /// GPU die temperature, °C.
    pub temperature_c: Option<u32>,
    /// Power draw, W (NVML's reading, averaged by the driver over about a second).
    pub power_w: Option<f64>,
    /// The power limit the driver enforces, W.
    pub power_limit_w: Option<f64>,
    /// Why the clocks are below their maximum ([`throttle_names`]); empty when nothing
    /// holds them down, `None` when NVML cannot say.
    pub throttle: Option<Vec<String>>,
}

/// NVML's clock event reasons (`nvmlClocksEventReason*`, formerly "throttle reasons"), bit
/// by bit, with the name this project prints. Several can be set at once; none set means
/// the clocks are as high as they go.
pub const THROTTLE_REASONS: &[(u64, &str)] = &[
    (0x1, "idle"),
    (0x2, "applications clocks setting"),
    (0x4, "sw power cap"),
    (0x8, "hw slowdown"),
    (0x10, "sync boost"),
    (0x20, "sw thermal"),
    (0x40, "hw thermal"),
    (0x80, "hw power brake"),
    (0x100, "display clock setting"),
];

/// The names of the reasons set in `bits`, in bit order; a bit NVML added after this list
/// shows as `unknown 0x…`.
pub fn throttle_names(bits: u64) -> Vec<String> {
    let known: u64 = THROTTLE_REASONS.iter().map(|&(bit, _)| bit).fold(0, |a, b| a | b);
    let mut names: Vec<String> = THROTTLE_REASONS
        .iter()
        .filter(|&&(bit, _)| bits & bit != 0)
        .map(|&(_, name)| name.to_string())
        .collect();
    for shift in 0..64 {
        let bit = 1u64 << shift;
        if bits & bit != 0 && known & bit == 0 {
            names.push(format!("unknown {bit:#x}"));
        }
    }
    names
}

impl Conditions {
    /// One line for the header: `SM 1980 MHz, memory 2619 MHz, 41 °C, 118 W of 700 W,
    /// clock event reasons: idle`.
    pub fn describe(&self) -> String {
        fn or_na<T: std::fmt::Display>(value: Option<T>, unit: &str) -> String {
            value.map_or_else(|| "n/a".to_string(), |v| format!("{v}{unit}"))
        }
        let power = match (self.power_w, self.power_limit_w) {
            (Some(p), Some(limit)) => format!("{p:.0} W of {limit:.0} W"),
            (Some(p), None) => format!("{p:.0} W (limit n/a)"),
            (None, Some(limit)) => format!("power n/a (limit {limit:.0} W)"),
            (None, None) => "power n/a".to_string(),
        };
        let reasons = match &self.throttle {
            None => "n/a".to_string(),
            Some(names) if names.is_empty() => "none".to_string(),
            Some(names) => names.join(", "),
        };
        format!(
            "SM {}, memory {}, {}, {power}, clock event reasons: {reasons}",
            or_na(self.sm_mhz, " MHz"),
            or_na(self.mem_mhz, " MHz"),
            or_na(self.temperature_c, " °C"),
        )
    }

    /// The reading as JSON; what NVML could not read is `null`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "sm_mhz": self.sm_mhz,
            "mem_mhz": self.mem_mhz,
            "temperature_c": self.temperature_c,
            "power_w": self.power_w,
            "power_limit_w": self.power_limit_w,
            "throttle": self.throttle,
        })
    }
}

/// The device's PCI bus id as CUDA gives it (`cuDeviceGetPCIBusId`: `0000:3b:00.0`), which
/// NVML's `nvmlDeviceGetHandleByPciBusId_v2` accepts.
pub fn pci_bus_id(gpu: &Gpu) -> Result<String, String> {
    use cudarc::driver::sys;
    let mut buffer = [0 as std::ffi::c_char; 64];
    // SAFETY: the driver writes at most `len` bytes, NUL-terminated, into the buffer.
    unsafe { sys::cuDeviceGetPCIBusId(buffer.as_mut_ptr(), buffer.len() as i32, gpu.ctx.cu_device()) }
        .result()
        .map_err(|e| format!("cuDeviceGetPCIBusId failed: {e:?}"))?;
    // SAFETY: the driver NUL-terminated the string inside the buffer.
    let id = unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) };
    Ok(id.to_string_lossy().into_owned())
}

/// A CUDA device UUID in NVML's spelling: `GPU-` and the 16 bytes as 8-4-4-4-12 hex digits.
pub fn uuid_string(bytes: [u8; 16]) -> String {
    let hex =
        |range: std::ops::Range<usize>| bytes[range].iter().map(|b| format!("{b:02x}")).collect::<String>();
    format!("GPU-{}-{}-{}-{}-{}", hex(0..4), hex(4..6), hex(6..8), hex(8..10), hex(10..16))
}

/// Why NVML cannot be loaded and initialised from the driver's library, or `None` when it
/// can (the GPU tests ask this before they check that NVML finds the CUDA device).
pub fn nvml_absent_reason() -> Option<String> {
    Nvml::builder().lib_path(OsStr::new(NVML_LIBRARY)).init().err().map(|e| reason(&e))
}

/// The reason an NVML call failed, in words (a library that would not load says why).
fn reason(e: &NvmlError) -> String {
    match e {
        NvmlError::LibloadingError(inner) => inner.to_string(),
        other => other.to_string(),
    }
}

/// NVML, opened once for the run and matched to the CUDA device; or why it could not be.
pub struct Monitor {
    state: Result<(Nvml, String), String>,
}

impl Monitor {
    /// NVML for `gpu`, from the driver's `libnvidia-ml.so.1`.
    pub fn open(gpu: &Gpu) -> Monitor {
        let uuid = gpu.ctx.uuid().ok().map(|u| uuid_string(u.bytes.map(|b| b as u8)));
        match pci_bus_id(gpu) {
            Ok(bus_id) => Self::open_library(OsStr::new(NVML_LIBRARY), &bus_id, uuid.as_deref()),
            Err(e) => Monitor { state: Err(e) },
        }
    }

    /// NVML loaded from `library`, for the device at PCI bus id `bus_id` (or, if NVML knows
    /// no device there, the one with `uuid`).
    pub fn open_library(library: &OsStr, bus_id: &str, uuid: Option<&str>) -> Monitor {
        let nvml = match Nvml::builder().lib_path(library).init() {
            Ok(nvml) => nvml,
            Err(e) => return Monitor { state: Err(reason(&e)) },
        };
        // NVML's own spelling of the bus id, to find the device again at each reading.
        let found = nvml.device_by_pci_bus_id(bus_id).or_else(|by_bus| match uuid {
            Some(uuid) => nvml.device_by_uuid(uuid),
            None => Err(by_bus),
        });
        let key = match found.and_then(|device| device.pci_info()) {
            Ok(pci) => pci.bus_id,
            Err(e) => {
                let uuid = uuid.map_or(String::new(), |u| format!(" or UUID {u}"));
                return Monitor {
                    state: Err(format!("NVML finds no device at PCI bus id {bus_id}{uuid}: {}", reason(&e))),
                };
            }
        };
        Monitor { state: Ok((nvml, key)) }
    }

    /// `read` applied to NVML's handle of the device (for readings beyond the conditions:
    /// the links of [`crate::measure::links`]).
    pub fn with_device<T>(&self, read: impl FnOnce(&nvml_wrapper::Device) -> T) -> Result<T, String> {
        let (nvml, bus_id) = self.state.as_ref().map_err(|e| format!("NVML not available ({e})"))?;
        let device =
            nvml.device_by_pci_bus_id(bus_id.as_str()).map_err(|e| format!("not read ({})", reason(&e)))?;
        Ok(read(&device))
    }

    /// Whether NVML is loaded and knows the device.
    pub fn available(&self) -> bool {
        self.state.is_ok()
    }

    /// Reads the conditions now. Each reading the device does not support is left `None`;
    /// an error means NVML is not available or lost the device.
    pub fn sample(&self) -> Result<Conditions, String> {
        let (nvml, bus_id) = self.state.as_ref().map_err(|e| format!("NVML not available ({e})"))?;
        let device =
            nvml.device_by_pci_bus_id(bus_id.as_str()).map_err(|e| format!("not read ({})", reason(&e)))?;
        let throttle = match device.current_throttle_reasons_strict() {
            Ok(reasons) => Some(throttle_names(reasons.bits())),
            // Bits newer than the wrapper: keep them, by number.
            Err(NvmlError::IncorrectBits(Bits::U64(bits))) => Some(throttle_names(bits)),
            Err(_) => None,
        };
        Ok(Conditions {
            sm_mhz: device.clock_info(Clock::SM).ok(),
            mem_mhz: device.clock_info(Clock::Memory).ok(),
            temperature_c: device.temperature(TemperatureSensor::Gpu).ok(),
            power_w: device.power_usage().ok().map(|mw| f64::from(mw) / 1e3),
            power_limit_w: device.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1e3),
            throttle,
        })
    }

    /// The header line for `reading`: `PREFIX: SM … MHz, …`, or `PREFIX: NVML not
    /// available (why)`.
    pub fn line(&self, prefix: &str, reading: &Result<Conditions, String>) -> String {
        match reading {
            Ok(conditions) => format!("{prefix}: {}", conditions.describe()),
            Err(e) => format!("{prefix}: {e}"),
        }
    }

    /// The run's `"conditions"` in the JSON: `{"available": true, "start": …, "end": …}`
    /// (a reading that failed is `{"error": why}`), or `{"available": false, "reason": why}`.
    pub fn json(
        &self,
        start: &Result<Conditions, String>,
        end: &Result<Conditions, String>,
    ) -> serde_json::Value {
        let reading = |r: &Result<Conditions, String>| match r {
            Ok(conditions) => conditions.json(),
            Err(e) => serde_json::json!({ "error": e }),
        };
        match &self.state {
            Ok(_) => serde_json::json!({ "available": true, "start": reading(start), "end": reading(end) }),
            Err(e) => serde_json::json!({ "available": false, "reason": e }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200_busy() -> Conditions {
        Conditions {
            sm_mhz: Some(1980),
            mem_mhz: Some(3201),
            temperature_c: Some(52),
            power_w: Some(612.4),
            power_limit_w: Some(700.0),
            throttle: Some(vec!["sw power cap".into()]),
        }
    }

    #[test]
    fn throttle_bits_become_names() {
        assert!(throttle_names(0).is_empty());
        assert_eq!(throttle_names(0x1), ["idle"]);
        assert_eq!(throttle_names(0x4 | 0x8), ["sw power cap", "hw slowdown"]);
        assert_eq!(throttle_names(0x20 | 0x40 | 0x80), ["sw thermal", "hw thermal", "hw power brake"]);
        assert_eq!(throttle_names(0x1 | 0x200), ["idle", "unknown 0x200"]);
        assert_eq!(throttle_names(1 << 63), ["unknown 0x8000000000000000"]);
        let all: u64 = THROTTLE_REASONS.iter().map(|&(bit, _)| bit).sum();
        assert_eq!(throttle_names(all).len(), THROTTLE_REASONS.len());
    }

    #[test]
    fn conditions_describe_in_one_line() {
        assert_eq!(
            h200_busy().describe(),
            "SM 1980 MHz, memory 3201 MHz, 52 °C, 612 W of 700 W, clock event reasons: sw power cap"
        );
        let idle = Conditions { throttle: Some(vec![]), ..h200_busy() };
        assert!(idle.describe().ends_with("clock event reasons: none"));
        let two = Conditions { throttle: Some(throttle_names(0x1 | 0x2)), ..h200_busy() };
        assert!(two.describe().ends_with("clock event reasons: idle, applications clocks setting"));
        assert_eq!(
            Conditions::default().describe(),
            "SM n/a, memory n/a, n/a, power n/a, clock event reasons: n/a"
        );
        let no_draw = Conditions { power_w: None, ..h200_busy() };
        assert!(no_draw.describe().contains(", power n/a (limit 700 W),"));
    }

    #[test]
    fn conditions_as_json() {
        let json = h200_busy().json();
        assert_eq!(json["sm_mhz"], 1980);
        assert_eq!(json["mem_mhz"], 3201);
        assert_eq!(json["temperature_c"], 52);
        assert_eq!(json["power_w"], 612.4);
        assert_eq!(json["power_limit_w"], 700.0);
        assert_eq!(json["throttle"], serde_json::json!(["sw power cap"]));
        assert!(Conditions::default().json()["throttle"].is_null());
    }

    #[test]
    fn uuid_in_nvml_spelling() {
        let bytes =
            [0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef];
        assert_eq!(uuid_string(bytes), "GPU-12345678-9abc-def0-0123-456789abcdef");
    }

    #[test]
    fn unavailable_nvml_is_a_line_not_an_error() {
        let monitor =
            Monitor::open_library(OsStr::new("/nonexistent/libnvidia-ml.so.1"), "0000:3b:00.0", None);
        assert!(!monitor.available());
        let start = monitor.sample();
        let line = monitor.line("run conditions", &start);
        assert!(line.starts_with("run conditions: NVML not available ("), "{line}");
        assert!(line.contains("libnvidia-ml.so.1"), "the reason names the library: {line}");
        assert!(line.ends_with(')') && !line.contains('\n'), "{line}");
        let json = monitor.json(&start, &monitor.sample());
        assert_eq!(json["available"], false);
        assert!(json["reason"].as_str().is_some_and(|r| r.contains("libnvidia-ml.so.1")), "{json}");
    }

    #[test]
    fn readings_in_the_run_json() {
        let monitor = Monitor { state: Err("unused".into()) };
        let line = monitor.line("conditions at the end", &Ok(h200_busy()));
        assert_eq!(line, format!("conditions at the end: {}", h200_busy().describe()));
        let failed: Result<Conditions, String> = Err("not read (GPU is lost)".into());
        assert_eq!(
            monitor.line("conditions at the end", &failed),
            "conditions at the end: not read (GPU is lost)"
        );
    }
}
