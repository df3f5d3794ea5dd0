//! What the links of a GPU can carry, read from the device through NVML: its NVLinks
//! (how many are up, their version and speed, where each one goes) and its PCIe link
//! (generation and width). These are the theoretical figures the interconnect probe
//! measures against; without NVML they are unknown and the tables say so.

use crate::base::gpu::Gpu;
use crate::measure::conditions::{Monitor, pci_bus_id};
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::sys_exports::field_id::{
    NVML_FI_DEV_NVLINK_GET_SPEED, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, NVML_FI_DEV_NVLINK_SPEED_MBPS_L0,
};

/// Most NVLinks one GPU has (`NVML_NVLINK_MAX_LINKS`: 18 on Hopper).
const MAX_NVLINKS: u32 = 18;

/// A GPU's NVLinks that are up.
#[derive(Clone, Debug, Default)]
pub struct NvLinks {
    pub active: u32,
    /// NVLink version as NVML numbers it (`nvmlNvlinkVersion`: 6 is NVLink 4.0, Hopper's).
    pub version: Option<u32>,
    /// One link's rate in one direction, GB/s, and where the figure comes from: NVML's
    /// link speed, or the datasheet rate of the link's version where NVML gives none.
    pub gbs_per_link: Option<f64>,
    pub speed_source: &'static str,
    /// The PCI bus id at the far end of each active link: a GPU, or an NVSwitch.
    pub remote_bus_ids: Vec<String>,
}

/// A GPU's PCIe link now and at best.
#[derive(Clone, Copy, Debug)]
pub struct Pcie {
    pub generation: u32,
    pub width: u32,
    pub max_generation: u32,
    pub max_width: u32,
}

impl Pcie {
    /// One direction's rate of the link as it runs now, GB/s.
    pub fn gbs(&self) -> Option<f64> {
        pcie_lane_gbs(self.generation).map(|lane| lane * f64::from(self.width))
    }

    /// "PCIe Gen5 ×16".
    pub fn describe(&self) -> String {
        let mut text = format!("PCIe Gen{} ×{}", self.generation, self.width);
        if (self.generation, self.width) != (self.max_generation, self.max_width) {
            text += &format!(" (up to Gen{} ×{})", self.max_generation, self.max_width);
        }
        text
    }
}

/// One PCIe lane's rate in one direction, GB/s: the transfer rate times the line code's
/// efficiency (8b/10b to Gen2, 128b/130b from Gen3), over 8 bits.
pub fn pcie_lane_gbs(generation: u32) -> Option<f64> {
    let (gigatransfers, efficiency) = match generation {
        1 => (2.5, 0.8),
        2 => (5.0, 0.8),
        3 => (8.0, 128.0 / 130.0),
        4 => (16.0, 128.0 / 130.0),
        5 => (32.0, 128.0 / 130.0),
        6 => (64.0, 242.0 / 256.0), // FLIT mode with its FEC
        _ => return None,
    };
    Some(gigatransfers * efficiency / 8.0)
}

/// A GPU's links as NVML reports them.
#[derive(Clone, Debug)]
pub struct Links {
    pub bus_id: String,
    pub nvlink: NvLinks,
    pub pcie: Option<Pcie>,
}

impl Links {
    /// Reads `gpu`'s links; `Err` says why NVML could not.
    pub fn read(gpu: &Gpu) -> Result<Links, String> {
        let bus_id = pci_bus_id(gpu)?;
        Monitor::open(gpu).with_device(|device| {
            let mut nvlink = NvLinks::default();
            for link in 0..MAX_NVLINKS {
                let wrapper = device.link_wrapper_for(link);
                if wrapper.is_active().unwrap_or(false) {
                    nvlink.active += 1;
                    nvlink.version = nvlink.version.or(wrapper.version().ok());
                    if let Ok(remote) = wrapper.remote_pci_info() {
                        nvlink.remote_bus_ids.push(remote.bus_id);
                    }
                }
            }
            if nvlink.active > 0 {
                (nvlink.gbs_per_link, nvlink.speed_source) = match nvlink_speed_mbps(device) {
                    Some(mbps) => (Some(mbps / 1e3), "NVML"),
                    None => (nvlink.version.and_then(datasheet_gbs_per_link), "datasheet"),
                };
            }
            let pcie = (|| {
                Some(Pcie {
                    generation: device.current_pcie_link_gen().ok()?,
                    width: device.current_pcie_link_width().ok()?,
                    max_generation: device.max_pcie_link_gen().ok()?,
                    max_width: device.max_pcie_link_width().ok()?,
                })
            })();
            Links { bus_id: bus_id.clone(), nvlink, pcie }
        })
    }

    /// The NVLinks that join this GPU to `peer`, and one direction's rate over them, GB/s:
    /// the links whose far end is `peer`, or, when they end at NVSwitches (no link reaches
    /// another GPU of `node`), as many as the GPU with fewer has.
    pub fn nvlink_to(&self, peer: &Links, node: &[&Links]) -> Option<(u32, f64)> {
        let speed = self.nvlink.gbs_per_link?;
        let direct = self.nvlink.remote_bus_ids.iter().filter(|r| same_bus(r, &peer.bus_id)).count() as u32;
        let to_gpus =
            self.nvlink.remote_bus_ids.iter().filter(|r| node.iter().any(|g| same_bus(r, &g.bus_id))).count();
        let links = if direct > 0 {
            direct
        } else if to_gpus == 0 && self.nvlink.active > 0 {
            self.nvlink.active.min(peer.nvlink.active)
        } else {
            0
        };
        (links > 0).then(|| (links, f64::from(links) * speed))
    }
}

/// "NVLink 4.0" for NVML's version number.
pub fn nvlink_version_name(version: u32) -> String {
    match version {
        1 => "NVLink 1.0".into(),
        2 => "NVLink 2.0".into(),
        3 => "NVLink 2.2".into(),
        4 => "NVLink 3.0".into(),
        5 => "NVLink 3.1".into(),
        6 => "NVLink 4.0".into(),
        7 => "NVLink 5.0".into(),
        other => format!("NVLink (NVML version {other})"),
    }
}

/// One link's data rate in one direction by the datasheets, GB/s, for NVML's version
/// number: 25 GB/s from NVLink 2.0 (V100) to 4.0 (H100, H200: 18 links, 450 GB/s each way),
/// 50 GB/s for 5.0 (B200).
pub fn datasheet_gbs_per_link(version: u32) -> Option<f64> {
    match version {
        1 => Some(20.0),
        2..=6 => Some(25.0),
        7 => Some(50.0),
        _ => None,
    }
}

/// NVML's NVLink speed in MB/s: the per-link query of newer drivers
/// (`NVML_FI_DEV_NVLINK_GET_SPEED`), then the common and link-0 speeds of older ones.
fn nvlink_speed_mbps(device: &nvml_wrapper::Device) -> Option<f64> {
    use nvml_wrapper::enums::device::SampleValue;
    [NVML_FI_DEV_NVLINK_GET_SPEED, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, NVML_FI_DEV_NVLINK_SPEED_MBPS_L0]
        .into_iter()
        .find_map(|field| {
            let samples = device.field_values_for(&[FieldId(field)]).ok()?;
            match samples.into_iter().next()?.ok()?.value.ok()? {
                SampleValue::U32(v) => Some(f64::from(v)),
                SampleValue::U64(v) => Some(v as f64),
                SampleValue::I64(v) => Some(v as f64),
                SampleValue::F64(v) => Some(v),
            }
            .filter(|&v| v > 0.0)
        })
}

/// Whether two PCI bus ids name one device, whatever their spelling: CUDA writes
/// `0000:3b:00.0`, NVML `00000000:3B:00.0`.
pub fn same_bus(a: &str, b: &str) -> bool {
    let parts = |id: &str| -> Option<Vec<u32>> {
        id.split([':', '.']).map(|p| u32::from_str_radix(p.trim(), 16).ok()).collect()
    };
    matches!((parts(a), parts(b)), (Some(x), Some(y)) if x == y)
}

/// What bounds a collective's bus bandwidth on `gpus`: each GPU's NVLinks together, one
/// direction, for the GPU with the fewest (`None` without NVML or NVLink).
pub fn nvlink_between_all(gpus: &[&Gpu]) -> Option<(String, f64)> {
    let links: Vec<Links> = gpus.iter().map(|g| Links::read(g).ok()).collect::<Option<_>>()?;
    let slowest = links
        .iter()
        .filter_map(|l| Some((l.nvlink.active, f64::from(l.nvlink.active) * l.nvlink.gbs_per_link?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    (slowest.0 > 0).then(|| (format!("NVLink ×{} per GPU", slowest.0), slowest.1))
}
