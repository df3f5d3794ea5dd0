//! Every kernel against the CPU reference, on a real GPU: random inputs of awkward sizes,
//! every block size a kernel can be launched with, outputs poisoned before each run.
//!
//! Without a driver or a device every test is reported as *ignored* with the reason (the
//! harness is libtest-mimic, so that this is decided at run time). With a GPU present, any
//! other problem (missing or stale PTX, a fault) fails the tests.

use common::input::random_i32;
use host::gemm::registry::GemmKernel;
use host::gpu::Gpu;
use host::memory::DeviceBuffer;
use host::ptx;
use host::reduce::registry::{Finish, REDUCE_KERNELS, ReduceKernel};
use host::reduce::runner::ReduceBench;
use host::twins::{Code, Twins};
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Sizes every kernel is checked at: empty, one element, less than a warp, not a multiple
/// of any block or batch, and past the L2 with a ragged end.
const SIZES: &[usize] = &[0, 1, 31, 1000, (1 << 20) + 3, (1 << 24) + 7];

/// A size past 2^32 elements (16 GiB of input): kernels must index in 64 bits.
const LARGE: usize = (1 << 32) + 5;

fn main() {
    let args = Arguments::from_args();
    let absent = host::gpu::absent_reason();
    let mut trials = Vec::new();

    trials.push(Trial::test("fill_matches_the_cpu_generator", fill_matches_the_cpu_generator));
    for kernel in REDUCE_KERNELS {
        for block in kernel.block_sizes() {
            trials.push(Trial::test(format!("{}/block_{block}/awkward_sizes", kernel.id), move || {
                sums_are_exact(kernel, block, SIZES, Code::Rust)
            }));
            let name = format!("{}/block_{block}/cpp_twin/awkward_sizes", kernel.id);
            let twin =
                Trial::test(name.clone(), move || sums_are_exact(kernel, block, SIZES, Code::Cpp(twins()?)));
            trials.push(match absent.is_none().then(host::twins::nvrtc_absent_reason).flatten() {
                Some(reason) => {
                    eprintln!("{name} ignored: {reason}");
                    twin.with_ignored_flag(true)
                }
                None => twin,
            });
        }
    }
    for kernel in
        REDUCE_KERNELS.iter().filter(|k| matches!(k.finish, Finish::LastBlock | Finish::PackedTally))
    {
        trials.push(Trial::test(format!("{}/state_returns_to_zero", kernel.id), move || {
            state_returns_to_zero(kernel)
        }));
    }
    probe_trials(&mut trials);
    multi_gpu_trials(&mut trials, absent.is_none());
    gemm_trials(&mut trials, absent.is_none());
    tensor_ceiling_trials(&mut trials, absent.is_none());
    let conditions = Trial::test("run_conditions/nvml_finds_the_device", nvml_finds_the_device);
    trials.push(match host::conditions::nvml_absent_reason() {
        Some(reason) if absent.is_none() => {
            eprintln!("run_conditions/nvml_finds_the_device ignored: NVML not available ({reason})");
            conditions.with_ignored_flag(true)
        }
        _ => conditions,
    });
    let large = Trial::test("all_kernels/n_past_2^32", all_kernels_past_2_pow_32);
    trials.push(match (&absent, large_input_fits()) {
        (None, Some(false)) => {
            eprintln!("all_kernels/n_past_2^32 ignored: the device has less than {LARGE_NEEDS_GIB} GiB free");
            large.with_ignored_flag(true)
        }
        _ => large,
    });

    if let Some(reason) = absent {
        eprintln!("GPU tests ignored: {reason}");
        trials = trials.into_iter().map(|t| t.with_ignored_flag(true)).collect();
    }
    // NVRTC needs no GPU: this one runs wherever NVRTC is installed.
    let compile = Trial::test("twins/every_twin_compiles_for_sm_80_and_sm_90a", every_twin_compiles);
    trials.push(match host::twins::nvrtc_absent_reason() {
        Some(reason) => {
            eprintln!("twins/every_twin_compiles_for_sm_80_and_sm_90a ignored: {reason}");
            compile.with_ignored_flag(true)
        }
        None => compile,
    });
    if let Some(only) = std::env::var_os(ONLY_TESTS_ENV) {
        trials = only_listed(trials, std::path::Path::new(&only)).unwrap_or_else(|e| {
            eprintln!("error: {ONLY_TESTS_ENV}: {e}");
            std::process::exit(2)
        });
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The environment variable naming a file of test names, one per line: only those run.
/// The sanitizer runs racecheck in parts this way (`RACECHECK_PART_TESTS` in
/// `host/src/sanitize/mod.rs`, whose `ONLY_TESTS_ENV` is the same name).
const ONLY_TESTS_ENV: &str = "GPU_TESTS_ONLY";

/// The trials named in the file at `path`; an error names a line that is no test.
fn only_listed(trials: Vec<Trial>, path: &std::path::Path) -> Result<Vec<Trial>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let names: std::collections::HashSet<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let known: std::collections::HashSet<&str> = trials.iter().map(Trial::name).collect();
    if let Some(unknown) = names.iter().find(|n| !known.contains(*n)) {
        return Err(format!("{}: no test is called `{unknown}`", path.display()));
    }
    Ok(trials.into_iter().filter(|t| names.contains(t.name())).collect())
}

/// The device, opened once for all tests.
fn gpu() -> Result<&'static Gpu, Failed> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::open(0, &ptx::default_dir()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Failed::from(e.as_str()))
}

/// Every twin compiles with NVRTC for the Hopper target, and every twin of a step the
/// sm_80 PTX holds also for sm_80, with its entry points in the PTX.
fn every_twin_compiles() -> Result<(), Failed> {
    use host::gemm::registry::GEMM_KERNELS;
    let mut failures = Vec::new();
    for source in host::twins::SOURCES {
        let hopper_only =
            GEMM_KERNELS.iter().any(|g| g.arch.specific && host::twins::defines(source.text, g.id));
        let targets: &[&str] = if hopper_only { &["compute_90a"] } else { &["compute_80", "compute_90a"] };
        for target in targets {
            match host::twins::compile(source, target) {
                Ok(ptx) if ptx.contains(".entry ") => {}
                Ok(_) => {
                    failures.push(format!("twins/{} for {target}: no entry point in the PTX", source.path))
                }
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
}

/// The C++ twins on that device, opened once.
fn twins() -> Result<&'static Twins, Failed> {
    static TWINS: OnceLock<Result<Twins, String>> = OnceLock::new();
    let gpu = gpu()?;
    TWINS.get_or_init(|| Twins::open(gpu)).as_ref().map_err(|e| Failed::from(e.as_str()))
}

/// One input per size, filled once and shared by every test (the lock also keeps the
/// tests from interleaving their launches).
fn with_bench<T>(
    n: usize,
    body: impl FnOnce(&ReduceBench<'static>) -> Result<T, Failed>,
) -> Result<T, Failed> {
    static BENCHES: OnceLock<Mutex<HashMap<usize, ReduceBench<'static>>>> = OnceLock::new();
    let gpu = gpu()?;
    let mut benches = BENCHES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let std::collections::hash_map::Entry::Vacant(e) = benches.entry(n) {
        let seed = host::clock_seed() ^ n as u64;
        e.insert(ReduceBench::new(gpu, n, seed).map_err(|e| e.to_string())?);
    }
    body(&benches[&n])
}

fn check(bench: &ReduceBench, kernel: &ReduceKernel, block: u32, code: Code) -> Result<(), Failed> {
    let plan = bench.plan(kernel, block, code).map_err(|e| e.to_string())?;
    let check = bench.check(&plan).map_err(|e| e.to_string())?;
    if check.passed() {
        Ok(())
    } else {
        Err(format!(
            "{} ({}, block {block}) on n = {} (seed {}): got {}, expected {}",
            kernel.id,
            code.name(),
            bench.n,
            bench.seed,
            check.got,
            check.expected
        )
        .into())
    }
}

fn sums_are_exact(
    kernel: &'static ReduceKernel,
    block: u32,
    sizes: &[usize],
    code: Code,
) -> Result<(), Failed> {
    for &n in sizes {
        with_bench(n, |bench| check(bench, kernel, block, code))?;
    }
    Ok(())
}

fn fill_matches_the_cpu_generator() -> Result<(), Failed> {
    let n = (1 << 20) + 3;
    with_bench(n, |bench| {
        let on_gpu = bench.input_prefix(n).map_err(|e| e.to_string())?;
        for (i, &v) in on_gpu.iter().enumerate() {
            let want = random_i32(bench.seed, i as u64);
            if v != want {
                return Err(format!("element {i}: GPU {v}, CPU {want}").into());
            }
        }
        Ok(())
    })
}

/// A single-launch kernel leaves its counter or tally at 0 after every launch, at every
/// grid size, run after run; state left behind would make the next launch finish early or
/// add a stale sum.
fn state_returns_to_zero(kernel: &'static ReduceKernel) -> Result<(), Failed> {
    let block = kernel.block_size(None).map_err(|e| e.to_string())?;
    for &n in SIZES {
        with_bench(n, |bench| {
            for run in 0..5 {
                check(bench, kernel, block, Code::Rust)?;
                let state = bench.persistent_state().map_err(|e| e.to_string())?;
                if state != [0; 3] {
                    return Err(format!("n = {n}, run {run}: state left at {state:?}").into());
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Device memory the large test needs: the input, the partials and room to spare.
const LARGE_NEEDS_GIB: u64 = 20;

/// Whether the large input fits (`None` when the device cannot be opened: the test then
/// runs and reports why).
fn large_input_fits() -> Option<bool> {
    let free = gpu().ok()?.free_memory().ok()?;
    Some(free >= LARGE_NEEDS_GIB << 30)
}

/// Every kernel (default block) on more than 2^32 elements: any 32-bit index arithmetic
/// on the element index would wrap and miss or repeat elements.
fn all_kernels_past_2_pow_32() -> Result<(), Failed> {
    let gpu = gpu()?;
    let bench = ReduceBench::new(gpu, LARGE, host::clock_seed()).map_err(|e| e.to_string())?;
    let twins = host::twins::nvrtc_absent_reason().is_none().then(twins).transpose()?;
    for kernel in REDUCE_KERNELS {
        let block = kernel.block_size(None).map_err(|e| e.to_string())?;
        check(&bench, kernel, block, Code::Rust)?;
        if let Some(twins) = twins {
            check(&bench, kernel, block, Code::Cpp(twins))?;
        }
    }
    Ok(())
}

/// Where NVML loads, it finds the CUDA device by PCI bus id (or UUID), and its readings are
/// plausible: clocks above zero, a temperature a running GPU can have.
fn nvml_finds_the_device() -> Result<(), Failed> {
    let monitor = host::conditions::Monitor::open(gpu()?);
    let reading = monitor.sample()?;
    let line = monitor.line("run conditions", &Ok(reading.clone()));
    eprintln!("{line}");
    let (Some(sm), Some(mem), Some(temperature)) = (reading.sm_mhz, reading.mem_mhz, reading.temperature_c)
    else {
        return Err(format!("NVML found the device but read no clocks or temperature: {line}").into());
    };
    if sm == 0 || mem == 0 || !(1..=120).contains(&temperature) {
        return Err(format!("implausible reading: {line}").into());
    }
    Ok(())
}

/// A probe check's outcome as a test result.
fn verdict(outcome: host::error::Result<Option<String>>) -> Result<(), Failed> {
    match outcome {
        Ok(None) => Ok(()),
        Ok(Some(failure)) => Err(failure.into()),
        Err(e) => Err(e.to_string().into()),
    }
}

fn buffer(gpu: &Gpu, bytes: usize) -> Result<DeviceBuffer, Failed> {
    DeviceBuffer::alloc(gpu, bytes, "a test buffer").map_err(|e| e.to_string().into())
}

/// The probes that compute something, on sizes that are multiples of nothing.
fn probe_trials(trials: &mut Vec<Trial>) {
    use host::probes::{bank_conflicts, divergence, latency, occupancy, saxpy, stride_copy};

    trials.push(Trial::test("p1_stride_copy/copies_land_where_they_should", || {
        let gpu = gpu()?;
        let elements = 1_000_003;
        let (src, dst) = (buffer(gpu, elements * 4)?, buffer(gpu, elements * 4)?);
        host::inputs::fill_random_i32(gpu, &src, elements, host::clock_seed()).map_err(|e| e.to_string())?;
        let source = src.read::<u32>(gpu, elements).map_err(|e| e.to_string())?;
        for &stride in stride_copy::STRIDES.iter().chain(&[3, 7]) {
            verdict(stride_copy::check_stride_copy(gpu, &source, &src, &dst, stride))?;
        }
        for units in [1, 31, 250_000] {
            verdict(stride_copy::check_copy_16b(gpu, &src, &dst, units))?;
        }
        Ok(())
    }));
    trials.push(Trial::test("p2_bank_conflicts/every_thread_reads_its_element", || {
        let gpu = gpu()?;
        let grid = 3;
        let sums = buffer(gpu, (grid * 256) as usize * 8)?;
        for &(width, kernel) in bank_conflicts::WIDTHS {
            for &stride in bank_conflicts::STRIDES.iter().chain(&[3, 31]) {
                verdict(bank_conflicts::check_bank(gpu, width, kernel, stride, grid, &sums))?;
            }
        }
        Ok(())
    }));
    trials.push(Trial::test("p3_saxpy/matches_the_cpu", || {
        let gpu = gpu()?;
        let most = (1 << 20) + 3;
        let (x, y) = (buffer(gpu, most * 4)?, buffer(gpu, (most + 64) * 4)?);
        for n in [1, 31, 1000, most] {
            verdict(saxpy::check_saxpy(gpu, &x, &y, n, host::clock_seed()))?;
        }
        Ok(())
    }));
    trials.push(Trial::test("p4_divergence/every_path_computes_its_chain", || {
        let gpu = gpu()?;
        let grid = 5;
        let buffers = divergence::DivergenceBuffers::new(gpu, grid).map_err(|e| e.to_string())?;
        for &(kernel, choice, _) in divergence::KERNELS {
            divergence::check_divergence(gpu, kernel, choice, grid, &buffers)
                .map_err(|e| e.to_string())??;
        }
        Ok(())
    }));
    trials.push(Trial::test("p5_occupancy/every_ilp_sums_exactly", || {
        let gpu = gpu()?;
        let most = (1 << 20) + 3;
        let (input, result) = (buffer(gpu, most * 4)?, buffer(gpu, 4)?);
        let seed = host::clock_seed();
        host::inputs::fill_random_i32(gpu, &input, most, seed).map_err(|e| e.to_string())?;
        for n in [0, 1, 31, 1000, most] {
            let expected = host::reduce::reference::reference_sum(seed, n);
            for &(_, kernel) in occupancy::ILPS {
                for (grid, block) in [(1, 32), (7, 96), (3, 1024)] {
                    verdict(occupancy::check_stream_sum(
                        gpu, kernel, &input, &result, n, expected, grid, block,
                    ))?;
                }
            }
        }
        Ok(())
    }));
    trials.push(Trial::test("p6_latency/one_lap_visits_every_node", || {
        let gpu = gpu()?;
        for nodes in [2, 3, 1000, 4097] {
            verdict(latency::check_lap(gpu, nodes, host::clock_seed()))?;
        }
        Ok(())
    }));
}

/// The multi-GPU probes' checks: every transfer path (host ones on one GPU too), and, with
/// two GPUs or more and NCCL, the all-reduce and the sharded sum on awkward sizes. Ignored
/// with the reason where the machine cannot run them.
fn multi_gpu_trials(trials: &mut Vec<Trial>, gpu_present: bool) {
    use host::multi::nccl::{Comms, DataType, Nccl};
    use host::multi::{Node, allreduce, interconnect, node_sum};

    fn node() -> Result<Node<'static>, Failed> {
        Node::around(gpu()?, &ptx::default_dir()).map_err(|e| e.to_string().into())
    }
    fn nccl() -> Result<&'static Nccl, Failed> {
        static NCCL: OnceLock<Result<Nccl, String>> = OnceLock::new();
        NCCL.get_or_init(Nccl::load).as_ref().map_err(|e| Failed::from(e.as_str()))
    }
    trials.push(Trial::test("m1_interconnect/every_path_lands", || {
        let node = node()?;
        let failures =
            interconnect::check_every_path(&node.gpus(), host::clock_seed()).map_err(|e| e.to_string())?;
        if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
    }));
    let allreduce = Trial::test("m2_allreduce/sums_are_exact_on_every_gpu", || {
        let node = node()?;
        let gpus = node.gpus();
        let comms = Comms::init_all(nccl()?, &gpus).map_err(|e| e.to_string())?;
        let most = (1 << 20) + 3;
        let buffers: Vec<(DeviceBuffer, DeviceBuffer)> = gpus
            .iter()
            .map(|g| Ok((buffer(g, most * 4)?, buffer(g, most * 4)?)))
            .collect::<Result<_, Failed>>()?;
        for dtype in [DataType::I32, DataType::F32] {
            for count in [1, 31, 1000, most] {
                verdict(allreduce::verify(&gpus, &comms, &buffers, count, dtype, host::clock_seed()))?;
            }
        }
        Ok(())
    });
    let node_sum = Trial::test("m3_node_sum/shards_add_up_to_the_whole_array", || {
        let node = node()?;
        for n in [0, 1, 31, 1000, (1 << 24) + 7] {
            verdict(node_sum::check_sum(nccl()?, &node.gpus(), n, host::clock_seed()))?;
        }
        Ok(())
    });
    let why_not = || -> Option<String> {
        if !gpu_present {
            return None; // all GPU tests are ignored then, with the reason
        }
        match host::multi::gpu_count() {
            Ok(count) if count < 2 => return Some(format!("needs 2 GPUs, the driver shows {count}")),
            Err(e) => return Some(e.to_string()),
            _ => {}
        }
        Nccl::load().err()
    };
    let reason = why_not();
    for trial in [allreduce, node_sum] {
        trials.push(match &reason {
            Some(reason) => {
                eprintln!("{} ignored: {reason}", trial.name());
                trial.with_ignored_flag(true)
            }
            None => trial,
        });
    }
}

/// GEMM shapes that are multiples of no tile, as the issue lists them.
const GEMM_SHAPES: &[(u32, u32, u32)] = &[
    (1, 1, 1),
    (17, 17, 17),
    (4096, 1, 777),
    (1, 4097, 33),
    (33, 65, 129),
    (1000, 1000, 1000),
    (4097, 17, 1000),
    (17, 24, 40),
    (4097, 8, 8),
    (136, 264, 1000),
    (130, 264, 72),
    // More tiles than a persistent grid has blocks (132 SMs): each block walks several
    // tiles, an odd count of 128-row tiles leaves a cluster pair half outside M, and K
    // gives fewer k tiles than stages, so the stage counter wraps inside a tile.
    (2100, 2312, 136),
    (4100, 2312, 72),
];

type GemmKey = (host::gemm::registry::Precision, (u32, u32, u32));

fn with_gemm_bench<T>(
    precision: host::gemm::registry::Precision,
    shape: (u32, u32, u32),
    body: impl FnOnce(&host::gemm::runner::GemmBench<'static>) -> Result<T, Failed>,
) -> Result<T, Failed> {
    static BENCHES: OnceLock<Mutex<HashMap<GemmKey, host::gemm::runner::GemmBench<'static>>>> =
        OnceLock::new();
    let gpu = gpu()?;
    let mut benches = BENCHES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    let key = (precision, shape);
    if let std::collections::hash_map::Entry::Vacant(e) = benches.entry(key) {
        let (m, n, k) = shape;
        let bench = host::gemm::runner::GemmBench::new(gpu, precision, m, n, k, host::clock_seed())
            .map_err(|e| e.to_string())?;
        e.insert(bench);
    }
    body(&benches[&key])
}

/// `kernel` (the Rust step or its twin: `code`) on every shape of [`GEMM_SHAPES`]: right
/// where it takes the shape, refused with its own message where it does not.
fn gemm_awkward(kernel: &'static GemmKernel, code: Code<'static>) -> Result<(), Failed> {
    let who = format!("{} ({})", kernel.id, code.name());
    for &shape in GEMM_SHAPES {
        let (m, n, k) = shape;
        if let Some(refusal) = kernel.refusal(m, n, k) {
            with_gemm_bench(kernel.precision, shape, |bench| match bench.check_kernel(kernel, code) {
                Err(e) if e.to_string() == refusal => Ok(()),
                Err(e) => Err(format!("{who} on {shape:?}: refused with `{e}`, expected `{refusal}`").into()),
                Ok(_) => Err(format!("{who} ran on {shape:?}, which it must refuse").into()),
            })?;
            continue;
        }
        with_gemm_bench(kernel.precision, shape, |bench| {
            let check = bench.check_kernel(kernel, code).map_err(|e| e.to_string())?;
            if check.passed() {
                Ok(())
            } else {
                Err(format!("{who} on {shape:?}: relative error {:e} ({})", check.error, check.method).into())
            }
        })?;
    }
    Ok(())
}

/// `gpu_present`: a driver and a device were found, so kernels the device cannot run are
/// told apart (ignored, with the reason) from the others.
fn gemm_trials(trials: &mut Vec<Trial>, gpu_present: bool) {
    use host::gemm::registry::GEMM_KERNELS;
    for kernel in GEMM_KERNELS {
        // A kernel this device cannot run (sm_90a's wgmma elsewhere) is ignored, with why.
        let unavailable = if gpu_present {
            gpu().ok().and_then(|g| kernel.unavailable(g.info.compute_capability, g.info.ptx_arch))
        } else {
            None
        };
        if let Some(reason) = &unavailable {
            eprintln!("{}/awkward_shapes ignored: {reason}", kernel.id);
        }
        let trial =
            Trial::test(format!("{}/awkward_shapes", kernel.id), move || gemm_awkward(kernel, Code::Rust));
        trials.push(trial.with_ignored_flag(unavailable.is_some()));
        // Its C++ twin on the same shapes, ignored where the step is, or without NVRTC.
        let name = format!("{}/cpp_twin/awkward_shapes", kernel.id);
        let twin = Trial::test(name.clone(), move || gemm_awkward(kernel, Code::Cpp(twins()?)));
        let no_nvrtc = gpu_present.then(host::twins::nvrtc_absent_reason).flatten();
        if let Some(reason) = &no_nvrtc {
            eprintln!("{name} ignored: {reason}");
        }
        trials.push(twin.with_ignored_flag(unavailable.is_some() || no_nvrtc.is_some()));
    }
    let cublas_trial = Trial::test("cublas/row_major_matches_the_reference", || {
        use host::gemm::registry::Precision;
        let cublas = host::gemm::cublas::Cublas::open(gpu()?)
            .map_err(|e| e.to_string())?
            .ok_or("cuBLAS not loaded")?;
        for (&shape, precision) in
            GEMM_SHAPES.iter().flat_map(|s| [Precision::F32, Precision::F16, Precision::Bf16].map(|p| (s, p)))
        {
            with_gemm_bench(precision, shape, |bench| {
                let check = bench.check_cublas(&cublas).map_err(|e| e.to_string())?;
                if check.passed() {
                    Ok(())
                } else {
                    Err(format!("cuBLAS {precision:?} on {shape:?}: error {:e}", check.error).into())
                }
            })?;
        }
        Ok(())
    });
    trials.push(if host::gemm::cublas::available() {
        cublas_trial
    } else {
        cublas_trial.with_ignored_flag(true)
    });
}

/// p8's kernels, every configuration of the sweep that fits, at a few loop trip counts (0:
/// the last product alone): every thread's accumulators against the CPU's exact product.
/// The `wgmma` kernels are ignored, with the reason, where the device cannot run them.
fn tensor_ceiling_trials(trials: &mut Vec<Trial>, gpu_present: bool) {
    use host::gemm::registry::TensorInstruction;
    use host::probes::tensor_ceiling;
    for (instruction, name) in [(TensorInstruction::MmaSync, "mma_sync"), (TensorInstruction::Wgmma, "wgmma")]
    {
        let test_name = format!("p8_tensor_ceiling/{name}_accumulators_are_exact");
        let unavailable = match (instruction, gpu_present) {
            (TensorInstruction::Wgmma, true) => gpu()
                .ok()
                .and_then(|g| tensor_ceiling::wgmma_unavailable(g.info.compute_capability, g.info.ptx_arch)),
            _ => None,
        };
        if let Some(reason) = &unavailable {
            eprintln!("{test_name} ignored: {reason}");
        }
        let trial = Trial::test(test_name, move || {
            let gpu = gpu()?;
            let out = buffer(gpu, tensor_ceiling::result_bytes(gpu.info.multiprocessors))?;
            let mut checked = 0;
            for config in tensor_ceiling::configs().into_iter().filter(|c| c.instruction == instruction) {
                let Ok(prepared) = tensor_ceiling::prepare(gpu, config).map_err(|e| e.to_string())? else {
                    continue; // does not fit on this GPU at once: the sweep skips it too
                };
                for iters in [0, 1, 7] {
                    verdict(prepared.check(gpu, iters, host::clock_seed(), &out))?;
                }
                checked += 1;
            }
            if checked == 0 {
                return Err(format!("no {name} configuration fits on this GPU").into());
            }
            Ok(())
        });
        trials.push(trial.with_ignored_flag(unavailable.is_some()));
    }
}
