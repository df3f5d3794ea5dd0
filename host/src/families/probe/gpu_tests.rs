//! The probe family's GPU tests: each probe that computes something, checked on sizes that
//! are multiples of nothing; p8's kernels against the exact product; the node probes'
//! transfers, all-reduce and sharded sum (with two GPUs or more and NCCL, else ignored with
//! the reason).

use super::{bank_conflicts, divergence, latency, node_sum, occupancy, saxpy, stride_copy};
use crate::base::error::Result as HostResult;
use crate::base::gpu::Gpu;
use crate::base::memory::DeviceBuffer;
use crate::ceilings::{self, TensorInstruction};
use crate::families::family::GpuTest;
use crate::measure::nccl::{Comms, DataType, Nccl, buffer_bytes};
use crate::measure::node::{Node, gpu_counts};
use crate::testing::{gpu, text};
use std::sync::OnceLock;

pub fn all(gpu_present: bool) -> Vec<GpuTest> {
    let mut tests = single_gpu();
    tests.extend(tensor_ceiling(gpu_present));
    tests.extend(node(gpu_present));
    tests
}

/// A probe check's outcome as a test result.
fn verdict(outcome: HostResult<Option<String>>) -> Result<(), String> {
    match outcome {
        Ok(None) => Ok(()),
        Ok(Some(failure)) => Err(failure),
        Err(e) => Err(e.to_string()),
    }
}

fn buffer(gpu: &Gpu, bytes: usize) -> Result<DeviceBuffer, String> {
    text(DeviceBuffer::alloc(gpu, bytes, "a test buffer"))
}

/// The single-GPU probes that compute something.
fn single_gpu() -> Vec<GpuTest> {
    vec![
        GpuTest::new("p1_stride_copy/copies_land_where_they_should", || {
            let gpu = gpu()?;
            let elements = 1_000_003;
            let (src, dst) = (buffer(gpu, elements * 4)?, buffer(gpu, elements * 4)?);
            text(crate::base::inputs::fill_random_i32(
                gpu,
                &src,
                elements,
                crate::base::clock::clock_seed(),
            ))?;
            let source = text(src.read::<u32>(gpu, elements))?;
            for &stride in stride_copy::STRIDES.iter().chain(&[3, 7]) {
                verdict(stride_copy::check_stride_copy(gpu, &source, &src, &dst, stride))?;
            }
            for units in [1, 31, 250_000] {
                verdict(stride_copy::check_copy_16b(gpu, &src, &dst, units))?;
            }
            Ok(())
        }),
        GpuTest::new("p2_bank_conflicts/every_thread_reads_its_element", || {
            let gpu = gpu()?;
            let grid = 3;
            let sums = buffer(gpu, (grid * 256) as usize * 8)?;
            for &(width, kernel) in bank_conflicts::WIDTHS {
                for &stride in bank_conflicts::STRIDES.iter().chain(&[3, 31]) {
                    verdict(bank_conflicts::check_bank(gpu, width, kernel, stride, grid, &sums))?;
                }
            }
            Ok(())
        }),
        GpuTest::new("p3_saxpy/matches_the_cpu", || {
            let gpu = gpu()?;
            let most = (1 << 20) + 3;
            let (x, y) = (buffer(gpu, most * 4)?, buffer(gpu, (most + 64) * 4)?);
            for n in [1, 31, 1000, most] {
                verdict(saxpy::check_saxpy(gpu, &x, &y, n, crate::base::clock::clock_seed()))?;
            }
            Ok(())
        }),
        GpuTest::new("p4_divergence/every_path_computes_its_chain", || {
            let gpu = gpu()?;
            let grid = 5;
            let buffers = text(divergence::DivergenceBuffers::new(gpu, grid))?;
            for &(kernel, choice, _) in divergence::KERNELS {
                text(divergence::check_divergence(gpu, kernel, choice, grid, &buffers))??;
            }
            Ok(())
        }),
        GpuTest::new("p5_occupancy/every_ilp_sums_exactly", || {
            let gpu = gpu()?;
            let most = (1 << 20) + 3;
            let (input, result) = (buffer(gpu, most * 4)?, buffer(gpu, 4)?);
            let seed = crate::base::clock::clock_seed();
            text(crate::base::inputs::fill_random_i32(gpu, &input, most, seed))?;
            for n in [0, 1, 31, 1000, most] {
                let expected = crate::base::inputs::reference_sum(seed, n);
                for &(_, kernel) in occupancy::ILPS {
                    for (grid, block) in [(1, 32), (7, 96), (3, 1024)] {
                        verdict(occupancy::check_stream_sum(
                            gpu, kernel, &input, &result, n, expected, grid, block,
                        ))?;
                    }
                }
            }
            Ok(())
        }),
        GpuTest::new("p6_latency/one_lap_visits_every_node", || {
            let gpu = gpu()?;
            for nodes in [2, 3, 1000, 4097] {
                verdict(latency::check_lap(gpu, nodes, crate::base::clock::clock_seed()))?;
            }
            Ok(())
        }),
    ]
}

/// p8's kernels, every configuration of the sweep that fits, at a few loop trip counts (0:
/// the last product alone): every thread's accumulators against the CPU's exact product.
/// The `wgmma` kernels are ignored, with the reason, where the device cannot run them.
fn tensor_ceiling(gpu_present: bool) -> Vec<GpuTest> {
    [(TensorInstruction::MmaSync, "mma_sync"), (TensorInstruction::Wgmma, "wgmma")]
        .into_iter()
        .map(|(instruction, name)| {
            let unavailable = match instruction {
                TensorInstruction::Wgmma if gpu_present => gpu()
                    .ok()
                    .and_then(|g| ceilings::wgmma_unavailable(g.info.compute_capability, g.info.ptx_arch)),
                _ => None,
            };
            GpuTest::new(format!("p8_tensor_ceiling/{name}_accumulators_are_exact"), move || {
                let gpu = gpu()?;
                let out = buffer(gpu, ceilings::result_bytes(gpu.info.multiprocessors))?;
                let mut checked = 0;
                for config in ceilings::configs().into_iter().filter(|c| c.instruction == instruction) {
                    let Ok(prepared) = text(ceilings::prepare(gpu, config))? else {
                        continue; // does not fit on this GPU at once: the sweep skips it too
                    };
                    for iters in [0, 1, 7] {
                        verdict(prepared.check(gpu, iters, crate::base::clock::clock_seed(), &out))?;
                    }
                    checked += 1;
                }
                if checked == 0 {
                    return Err(format!("no {name} configuration fits on this GPU"));
                }
                Ok(())
            })
            .ignored_if(unavailable)
        })
        .collect()
}

/// The node probes' checks: every transfer path (host ones on one GPU too, every ordered
/// pair of GPUs), and, with two GPUs or more and NCCL, the all-reduce and the sharded sum
/// on awkward sizes over every GPU count the probes run at.
fn node(gpu_present: bool) -> Vec<GpuTest> {
    fn node() -> Result<Node<'static>, String> {
        text(Node::around(gpu()?, &crate::base::ptx::default_dir()))
    }
    fn nccl() -> Result<&'static Nccl, String> {
        static NCCL: OnceLock<Result<Nccl, String>> = OnceLock::new();
        NCCL.get_or_init(Nccl::load).as_ref().map_err(Clone::clone)
    }
    let why_not = || -> Option<String> {
        if !gpu_present {
            return None; // all GPU tests are ignored then, with the reason
        }
        match crate::measure::node::gpu_count() {
            Ok(count) if count < 2 => return Some(format!("needs 2 GPUs, the driver shows {count}")),
            Err(e) => return Some(e.to_string()),
            _ => {}
        }
        Nccl::load().err()
    };
    let reason = why_not();
    vec![
        GpuTest::new("m1_interconnect/every_path_lands", || {
            let node = node()?;
            let failures =
                text(super::interconnect::check_every_path(&node.gpus(), crate::base::clock::clock_seed()))?;
            if failures.is_empty() { Ok(()) } else { Err(failures.join("\n")) }
        }),
        GpuTest::new("m2_allreduce/sums_are_exact_on_every_gpu", || {
            let node = node()?;
            let gpus = node.gpus();
            let most = (1 << 20) + 3;
            let bytes = buffer_bytes(most, DataType::I32);
            let buffers: Vec<(DeviceBuffer, DeviceBuffer)> = gpus
                .iter()
                .map(|g| Ok((buffer(g, bytes)?, buffer(g, bytes)?)))
                .collect::<Result<_, String>>()?;
            // Over the first 2, 4, … GPUs and all of them, as the probe runs.
            for ranks in gpu_counts(gpus.len()).into_iter().filter(|&c| c >= 2) {
                let comms = text(Comms::init_all(nccl()?, &gpus[..ranks]))?;
                for dtype in [DataType::I32, DataType::F32] {
                    for count in [1, 31, 1000, most] {
                        verdict(super::allreduce::verify(
                            &gpus[..ranks],
                            &comms,
                            &buffers[..ranks],
                            count,
                            dtype,
                            crate::base::clock::clock_seed(),
                        ))
                        .map_err(|e| format!("over {ranks} GPUs: {e}"))?;
                    }
                }
            }
            Ok(())
        })
        .ignored_if(reason.clone()),
        GpuTest::new("m3_node_sum/shards_add_up_to_the_whole_array", || {
            let node = node()?;
            let gpus = node.gpus();
            for ranks in gpu_counts(gpus.len()).into_iter().filter(|&c| c >= 2) {
                for n in [0, 1, 31, 1000, (1 << 24) + 7] {
                    verdict(node_sum::check_sum(
                        nccl()?,
                        &gpus[..ranks],
                        n,
                        crate::base::clock::clock_seed(),
                    ))
                    .map_err(|e| format!("{n} elements over {ranks} GPUs: {e}"))?;
                }
            }
            Ok(())
        })
        .ignored_if(reason),
    ]
}
