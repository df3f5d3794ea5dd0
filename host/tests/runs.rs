//! Whole runs of the `host` binary, as a user runs it, for what must never be lost:
//!
//! - output paths that cannot be written are refused at once, before any GPU work (these
//!   run everywhere: the refusal comes before the GPU is opened);
//! - on a GPU: a kernel fault (provoked with the test-only `--inject-fault`), Ctrl-C in the
//!   middle of a run, and a step too slow for its time budget, each checked for its message,
//!   its exit status and the records it leaves.
//!
//! Without a driver or a device the GPU runs are reported as ignored, with the reason (the
//! harness is libtest-mimic). The binary is cargo's (`CARGO_BIN_EXE_host`), or `$HOST_BIN`
//! where the tests run from the GPU bundle (its `run.sh` sets it).

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args = Arguments::from_args();
    let absent = host::base::gpu::absent_reason();
    let mut trials = vec![
        Trial::test("bad_output_paths_are_refused_before_any_gpu_work", bad_output_paths_are_refused),
        Trial::test("a_count_of_no_launches_is_refused", no_launches_are_refused),
    ];
    let gpu_trials = [
        Trial::test("gpu/a_fault_is_named_and_keeps_the_records_before_it", a_fault_keeps_the_records),
        Trial::test("gpu/ctrl_c_keeps_the_records_and_exits_130", ctrl_c_keeps_the_records),
        Trial::test("gpu/a_hopeless_step_is_timed_once", a_hopeless_step_is_timed_once),
        Trial::test("gpu/back_to_back_times_one_launch_of_several", back_to_back_times_one_launch),
        Trial::test("gpu/a_hung_kernel_stops_the_run_and_keeps_the_records", a_hung_kernel_stops_the_run),
    ];
    for trial in gpu_trials {
        trials.push(match &absent {
            Some(reason) => {
                eprintln!("{} ignored: {reason}", trial.name());
                trial.with_ignored_flag(true)
            }
            None => trial,
        });
    }
    libtest_mimic::run(&args, trials).exit();
}

fn host_binary() -> PathBuf {
    std::env::var_os("HOST_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_host")), PathBuf::from)
}

fn host(args: &[&str]) -> Output {
    Command::new(host_binary()).args(args).output().expect("the host binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-runs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
    dir
}

fn results(path: &std::path::Path) -> Result<Value, Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()).into())
}

fn ensure(condition: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if condition { Ok(()) } else { Err(what().into()) }
}

fn bad_output_paths_are_refused() -> Result<(), Failed> {
    let dir = scratch("refused");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").map_err(|e| e.to_string())?;
    let missing = dir.join("no/such/dir/r.json");
    let inside_a_file = file.join("charts");
    let cases: [(&[&str], &str); 4] = [
        (&["--json", missing.to_str().unwrap(), "-k", "p6"], "does not exist"),
        (&["--csv", dir.to_str().unwrap(), "-k", "p6"], "is a folder"),
        (&["--plots", inside_a_file.to_str().unwrap(), "-k", "p6"], "cannot be made a folder"),
        (&["--plots", "/proc/nope", "-k", "p6"], "cannot be made a folder"),
    ];
    for (args, why) in cases {
        let start = Instant::now();
        let output = host(args);
        let stderr = text(&output.stderr);
        ensure(output.status.code() == Some(2), || {
            format!("{args:?}: exit {:?}, want 2\n{stderr}", output.status)
        })?;
        ensure(stderr.contains(why) && stderr.contains("nothing was run"), || format!("{args:?}: {stderr}"))?;
        // Refused before the GPU: no device line on stdout, and at once.
        ensure(text(&output.stdout).is_empty(), || format!("{args:?} printed {}", text(&output.stdout)))?;
        ensure(start.elapsed() < Duration::from_secs(10), || format!("{args:?} took {:?}", start.elapsed()))?;
    }
    Ok(())
}

/// `--back-to-back 0` is refused by the command line, before any GPU work, with exit status 2.
fn no_launches_are_refused() -> Result<(), Failed> {
    let output = host(&["--back-to-back", "0", "-k", "p6"]);
    let stderr = text(&output.stderr);
    ensure(output.status.code() == Some(2), || format!("exit {:?}, want 2\n{stderr}", output.status))?;
    ensure(stderr.contains("--back-to-back") && stderr.contains("0 is not in 1..=1000"), || stderr.clone())?;
    ensure(text(&output.stdout).is_empty(), || format!("printed {}", text(&output.stdout)))
}

/// x4 is sent to write its sum into unmapped memory: the run stops at it with exit status
/// 3, names it and its size, and keeps h6's record (run before it) in the JSON and CSV.
fn a_fault_keeps_the_records() -> Result<(), Failed> {
    let dir = scratch("fault");
    let (json, csv) = (dir.join("r.json"), dir.join("r.csv"));
    let output = host(&[
        "-k",
        "h6,x4",
        "-n",
        "2^20",
        "--inject-fault",
        "x4",
        "--seed",
        "7",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let stderr = text(&output.stderr);
    ensure(output.status.code() == Some(3), || {
        format!("exit {:?}, want 3 (a fault)\n{stderr}", output.status)
    })?;
    ensure(
        stderr.contains("x4_packed_tally, n = 2^20") && stderr.contains("CUDA_ERROR_ILLEGAL_ADDRESS"),
        || format!("the error does not name the kernel, the size and the fault:\n{stderr}"),
    )?;
    ensure(stderr.contains("not run (1 of the selection): x4_packed_tally, n = 2^20"), || stderr.clone())?;
    let doc = results(&json)?;
    let kernels: Vec<&str> =
        doc["records"].as_array().into_iter().flatten().filter_map(|r| r["kernel"].as_str()).collect();
    ensure(kernels == ["h6_grid_stride"], || format!("records kept: {kernels:?}, want h6 alone"))?;
    ensure(doc["records"][0]["passed"] == true && doc["records"][0]["median_us"].is_number(), || {
        format!("h6's record is not a timed, passed one: {}", doc["records"][0])
    })?;
    ensure(
        doc["complete"] == false && doc["not_run"] == serde_json::json!(["x4_packed_tally, n = 2^20"]),
        || format!("complete {} not_run {}", doc["complete"], doc["not_run"]),
    )?;
    let csv = std::fs::read_to_string(&csv).map_err(|e| e.to_string())?;
    ensure(csv.lines().count() == 2 && csv.contains("h6_grid_stride"), || format!("CSV:\n{csv}"))?;
    Ok(())
}

/// Ctrl-C (SIGINT) once the first record is on disk: the run ends with 130, the records
/// so far kept, and says what it did not run.
fn ctrl_c_keeps_the_records() -> Result<(), Failed> {
    let dir = scratch("interrupt");
    let json = dir.join("r.json");
    // Every h-step timed for at least a second: long enough to be interrupted midway.
    let child = Command::new(host_binary())
        .args(["-k", "h", "-n", "2^26", "--min-time", "1", "--json", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(120);
    let measured = || results(&json).ok().and_then(|d| d["records"].as_array().map(Vec::len)).unwrap_or(0);
    while measured() == 0 {
        if Instant::now() > deadline {
            return Err("no record appeared within 2 minutes".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let kill =
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().map_err(|e| e.to_string())?;
    ensure(kill.success(), || "kill -INT failed".into())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = text(&output.stderr);
    ensure(output.status.code() == Some(130), || format!("exit {:?}, want 130\n{stderr}", output.status))?;
    ensure(stderr.contains("interrupted (Ctrl-C)") && stderr.contains("not run ("), || stderr.clone())?;
    let doc = results(&json)?;
    let kept = doc["records"].as_array().map_or(0, Vec::len);
    let not_run = doc["not_run"].as_array().map_or(0, Vec::len);
    ensure(kept >= 1 && not_run >= 1 && kept + not_run == 7, || {
        format!("{kept} records kept and {not_run} not run, of the 7 h-steps")
    })?;
    ensure(doc["complete"] == false, || "an interrupted run is marked complete".into())?;
    Ok(())
}

/// A kernel that never ends is queued after h6 ran (the test-only `--inject-hang`): with
/// `--hang-after 3` the run stops in seconds with exit status 3, naming the step, saying
/// what it did not run, and h6's record kept.
fn a_hung_kernel_stops_the_run() -> Result<(), Failed> {
    let dir = scratch("hang");
    let json = dir.join("r.json");
    let start = Instant::now();
    let output = host(&[
        "-k",
        "h6,p7",
        "-n",
        "2^20",
        "--inject-hang",
        "--hang-after",
        "3",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stderr = text(&output.stderr);
    ensure(output.status.code() == Some(3), || format!("exit {:?}, want 3\n{stderr}", output.status))?;
    ensure(start.elapsed() < Duration::from_secs(60), || format!("took {:?}", start.elapsed()))?;
    ensure(
        stderr.contains("endless pointer chase") && stderr.contains("still busy after 3 s (--hang-after)"),
        || format!("the error does not name the hung step and the limit:\n{stderr}"),
    )?;
    ensure(
        stderr.contains("not run (1 of the selection): p7_sync; the records of what finished are in"),
        || format!("no note of what was not run:\n{stderr}"),
    )?;
    let doc = results(&json)?;
    let kernels: Vec<&str> =
        doc["records"].as_array().into_iter().flatten().filter_map(|r| r["kernel"].as_str()).collect();
    ensure(kernels == ["h6_grid_stride"], || format!("records kept: {kernels:?}, want h6 alone"))?;
    ensure(doc["not_run"] == serde_json::json!(["p7_sync"]), || format!("not_run {}", doc["not_run"]))?;
    Ok(())
}

/// g01 (naive FP32) at 2048³ under a 50 ms budget: its checked launch alone shows that 20
/// repetitions cannot fit, so its figure is that one launch, marked as such.
fn a_hopeless_step_is_timed_once() -> Result<(), Failed> {
    let dir = scratch("hopeless");
    let json = dir.join("r.json");
    let output =
        host(&["-k", "g01", "--gemm", "2048", "--timeout", "0.05", "--json", json.to_str().unwrap()]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    ensure(output.status.success(), || format!("exit {:?}\n{stderr}", output.status))?;
    let doc = results(&json)?;
    let g01 = doc["records"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["kernel"] == "g01_naive")
        .ok_or("no g01 record")?;
    ensure(g01["stop"] == "one_launch" && g01["repetitions"] == 1, || format!("g01: {g01}"))?;
    ensure(stdout.contains("‡ one launch only"), || format!("no ‡ note in the table:\n{stdout}"))?;
    ensure(doc["complete"] == true, || "a finished run is not marked complete".into())?;
    Ok(())
}

/// x2 at 2^26 (256 MB, past any L2) timed one launch a repetition and four back to back: the
/// run's header and text say how, and the figure is one launch's in both (not four's).
fn back_to_back_times_one_launch() -> Result<(), Failed> {
    let dir = scratch("back-to-back");
    let mut medians = vec![];
    for launches in ["1", "4"] {
        let json = dir.join(format!("r{launches}.json"));
        let output = host(&[
            "-k",
            "x2",
            "-n",
            "2^26",
            "--back-to-back",
            launches,
            "--twins",
            "off",
            "--json",
            json.to_str().unwrap(),
        ]);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        ensure(output.status.success(), || {
            format!("--back-to-back {launches}: exit {:?}\n{stderr}", output.status)
        })?;
        let doc = results(&json)?;
        ensure(doc["timing"]["back_to_back"].as_u64() == launches.parse().ok(), || {
            format!("timing: {}", doc["timing"])
        })?;
        let words = stdout.split_whitespace().collect::<Vec<_>>().join(" "); // the method's text is wrapped
        ensure((launches == "4") == words.contains("up to 4 launches back to back"), || stdout.clone())?;
        let record = doc["records"].as_array().and_then(|r| r.first()).ok_or("no record")?;
        ensure(record["passed"] == true, || format!("x2: {record}"))?;
        medians.push(record["median_us"].as_f64().ok_or_else(|| format!("x2 untimed: {record}"))?);
    }
    let ratio = medians[1] / medians[0];
    ensure((0.75..1.25).contains(&ratio), || {
        format!("one launch {:.1} µs alone, {:.1} µs of four", medians[0], medians[1])
    })
}
