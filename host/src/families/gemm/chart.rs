//! The GEMM ladder of one precision at one shape as a chart (`--plots DIR`): each step's
//! TFLOP/s, coloured by the instruction it issues, against cuBLAS in the same run and, for
//! the tensor-core steps, the ceiling of each instruction that p8 measured in the run.

use super::registry::GemmKernel;
use crate::base::gpu::DeviceInfo;
use crate::base::precision::Precision;
use crate::ceilings::TensorInstruction;
use crate::report::plot::ladder::LadderChart;

/// `f32`, `f16`, `bf16`: the precision's tag in file names.
pub fn tag(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => "f32",
        Precision::F16 => "f16",
        Precision::Bf16 => "bf16",
        Precision::E4m3 => "e4m3",
        Precision::E4m3Blocks => "e4m3-blocks",
        Precision::E4m3E5m2 => "e4m3-e5m2",
    }
}

/// An empty chart for `precision` at `m × n × k`: `gemm-f16-4096x4096x4096.svg`.
pub fn new(precision: Precision, shape: (u32, u32, u32), info: &DeviceInfo, date: &str) -> LadderChart {
    LadderChart::gemm(precision.name(), tag(precision), shape, &info.name, date)
}

/// The legend entry of a step's bar: the instruction that does its multiply-adds.
pub fn group(kernel: &GemmKernel) -> &'static str {
    match kernel.tensor_instruction() {
        None => "CUDA cores (FFMA)",
        Some(instruction) => instruction.name(),
    }
}

/// The ceiling of each tensor-core instruction (TFLOP/s for this chart's precision, as
/// `ceiling` gives it: p8's figure from the run), as a dashed line in the colour of the
/// steps that issue it. Nothing where `ceiling` has none (FP32, no measurement).
pub fn add_ceilings(chart: &mut LadderChart, ceiling: impl Fn(TensorInstruction) -> Option<f64>) {
    for instruction in [TensorInstruction::MmaSync, TensorInstruction::Wgmma] {
        if let Some(tflops) = ceiling(instruction) {
            let label = format!("{} ceiling (p8)", instruction.name());
            chart.limit(&label, tflops, Some(instruction.name()));
        }
    }
}
