//! Every kernel against the CPU reference, on a real GPU: each family's own tests
//! (`Family::gpu_tests`: random inputs of awkward sizes, every block size a kernel can be
//! launched with, outputs poisoned before each run), and the few that belong to no family.
//!
//! Without a driver or a device every test is reported as *ignored* with the reason (the
//! harness is libtest-mimic, so that this is decided at run time). With a GPU present, any
//! other problem (missing or stale PTX, a fault) fails the tests.

use host::families::FAMILIES;
use host::families::family::GpuTest;
use host::testing::gpu;
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let absent = host::base::gpu::absent_reason();
    let gpu_present = absent.is_none();
    let mut tests: Vec<GpuTest> = FAMILIES.iter().flat_map(|f| f.gpu_tests(gpu_present)).collect();
    tests.push(
        GpuTest::new("run_conditions/nvml_finds_the_device", nvml_finds_the_device).ignored_if(
            host::measure::conditions::nvml_absent_reason()
                .filter(|_| gpu_present)
                .map(|reason| format!("NVML not available ({reason})")),
        ),
    );
    let mut trials: Vec<Trial> = tests
        .into_iter()
        .map(|test| {
            if let Some(reason) = &test.ignored {
                eprintln!("{} ignored: {reason}", test.name);
            }
            let ignored = test.ignored.is_some() || !gpu_present;
            let run = test.run;
            Trial::test(test.name, move || run().map_err(Failed::from)).with_ignored_flag(ignored)
        })
        .collect();
    if let Some(reason) = &absent {
        eprintln!("GPU tests ignored: {reason}");
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

/// Every twin compiles with NVRTC for the Hopper target, and every twin of a step the
/// sm_80 PTX holds also for sm_80, with its entry points in the PTX.
fn every_twin_compiles() -> Result<(), Failed> {
    let hopper_only: Vec<&str> = host::families::all_steps()
        .into_iter()
        .filter(|(_, step)| step.twinned && step.arch.specific)
        .flat_map(|(_, step)| step.symbol_names())
        .collect();
    let mut failures = Vec::new();
    for source in host::twins::SOURCES {
        let hopper = hopper_only.iter().any(|symbol| host::twins::defines(source.text, symbol));
        let targets: &[&str] = if hopper { &["compute_90a"] } else { &["compute_80", "compute_90a"] };
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

/// Where NVML loads, it finds the CUDA device by PCI bus id (or UUID), and its readings are
/// plausible: clocks above zero, a temperature a running GPU can have.
fn nvml_finds_the_device() -> Result<(), String> {
    let monitor = host::measure::conditions::Monitor::open(gpu()?);
    let reading = monitor.sample().map_err(|e| e.to_string())?;
    let line = monitor.line("run conditions", &Ok(reading.clone()));
    eprintln!("{line}");
    let (Some(sm), Some(mem), Some(temperature)) = (reading.sm_mhz, reading.mem_mhz, reading.temperature_c)
    else {
        return Err(format!("NVML found the device but read no clocks or temperature: {line}"));
    };
    if sm == 0 || mem == 0 || !(1..=120).contains(&temperature) {
        return Err(format!("implausible reading: {line}"));
    }
    Ok(())
}
