//! `ptx-link`: the link step rustc runs for `nvptx64-nvidia-cuda`.
//!
//! For the nvptx target rustc hands its output to a linker of flavour `llbc`: normally
//! rustup's `llvm-bitcode-linker` component, which cannot be downloaded for the pinned
//! nightly. This program does the same job with the `llvm-tools` component:
//!
//! 1. `llvm-link` the LLVM bitcode objects rustc produced (with fat LTO there is one), plus
//!    only the symbols they need from the bitcode inside any `.rlib` (compiler_builtins);
//! 2. `opt` internalizes every symbol but the kernels (`--export-symbol NAME`, one per
//!    `#[kernel]`), so that dead helpers vanish, and optimizes at `-O3`;
//! 3. `llc -mcpu=sm_XX -mattr=+ptxNN` writes the PTX text;
//! 4. each `// ptx-link: maxntid NAME N` line in it (written by `#[kernel(max_threads = N)]`)
//!    becomes a `.maxntid N, 1, 1` directive on entry NAME: CUDA's `__launch_bounds__`,
//!    which rustc cannot express.
//!
//! rustc calls it with: `--export-symbol NAME`…, object and rlib paths, `-L DIR`,
//! `--target nvptx64-nvidia-cuda`, `--target-cpu sm_XX`, `--target-feature=+ptxNN`,
//! `-o OUT.ptx`, `-O<level>` and `--debug`. The PTX build (this crate's library, behind
//! `cargo xtask build-ptx` and the host's build script) builds this binary and names it in
//! `CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER`, with the llvm-tools folder in
//! `PTX_LINK_LLVM_BIN`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// What rustc asked for, parsed from its command line.
#[derive(Default, Debug)]
struct LinkRequest {
    exports: Vec<String>,
    objects: Vec<PathBuf>,
    archives: Vec<PathBuf>,
    target_cpu: Option<String>,
    target_features: Vec<String>,
    output: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<LinkRequest, String> {
    let mut req = LinkRequest::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("`{name}` needs a value"));
        match arg.as_str() {
            "--export-symbol" => req.exports.push(value(arg)?),
            "--target-cpu" => req.target_cpu = Some(value(arg)?),
            "--target-feature" => req.target_features.push(value(arg)?),
            "-o" => req.output = Some(PathBuf::from(value(arg)?)),
            "-L" | "--target" => {
                value(arg)?;
            }
            "--debug" => {}
            s if s.starts_with("--target-feature=") => {
                req.target_features.extend(s["--target-feature=".len()..].split(',').map(str::to_owned));
            }
            s if s.starts_with("-O") => {}
            s if s.ends_with(".rlib") => req.archives.push(PathBuf::from(s)),
            s if s.ends_with(".o") || s.ends_with(".bc") => req.objects.push(PathBuf::from(s)),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    Ok(req)
}

fn llvm_tool(name: &str) -> PathBuf {
    match std::env::var_os("PTX_LINK_LLVM_BIN") {
        Some(dir) => Path::new(&dir).join(name),
        None => PathBuf::from(name),
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{shown} failed with {status}")) }
}

/// Bitcode members of an rlib, extracted into `dir` (rlibs also hold `lib.rmeta`).
fn extract_bitcode(archive: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let listing = Command::new(llvm_tool("llvm-ar"))
        .arg("t")
        .arg(archive)
        .output()
        .map_err(|e| format!("could not run llvm-ar: {e}"))?;
    let members: Vec<String> = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .filter(|m| m.ends_with(".o"))
        .map(str::to_owned)
        .collect();
    if members.is_empty() {
        return Ok(Vec::new());
    }
    run(Command::new(llvm_tool("llvm-ar")).arg("x").arg(archive).args(&members).current_dir(dir))?;
    Ok(members.iter().map(|m| dir.join(m)).collect())
}

fn link(req: &LinkRequest) -> Result<(), String> {
    let output = req.output.as_ref().ok_or("no `-o OUTPUT` given")?;
    let cpu = req.target_cpu.as_deref().ok_or("no `--target-cpu` given")?;
    if req.objects.is_empty() {
        return Err("no bitcode objects given".into());
    }
    let work = output.with_extension("ptx-link.d");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;

    let linked = work.join("linked.bc");
    let mut link = Command::new(llvm_tool("llvm-link"));
    link.args(&req.objects).arg("-o").arg(&linked);
    for archive in &req.archives {
        for member in extract_bitcode(archive, &work)? {
            link.arg("--only-needed").arg(member);
        }
    }
    run(&mut link)?;

    let optimized = work.join("optimized.bc");
    run(Command::new(llvm_tool("opt"))
        .arg(format!("--internalize-public-api-list={}", req.exports.join(",")))
        .arg("--passes=internalize,globaldce,default<O3>")
        .arg(format!("-mcpu={cpu}"))
        .arg(&linked)
        .arg("-o")
        .arg(&optimized))?;

    let mut features = req.target_features.clone();
    if let Ok(isa) = std::env::var("PTX_LINK_ISA") {
        features.push(format!("+{isa}"));
    }
    let mut llc = Command::new(llvm_tool("llc"));
    llc.arg("-O3").arg(format!("-mcpu={cpu}"));
    if !features.is_empty() {
        llc.arg(format!("-mattr={}", features.join(",")));
    }
    run(llc.arg(&optimized).arg("-o").arg(output))?;

    let ptx = std::fs::read_to_string(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let bounded = apply_launch_bounds(&ptx)?;
    if bounded != ptx {
        std::fs::write(output, bounded).map_err(|e| format!("{}: {e}", output.display()))?;
    }
    Ok(())
}

/// Puts `.maxntid N, 1, 1` between the parameter list and the body of each entry that a
/// `// ptx-link: maxntid NAME N` line names.
fn apply_launch_bounds(ptx: &str) -> Result<String, String> {
    let mut out = ptx.to_string();
    for line in ptx.lines() {
        let Some(rest) = line.trim().strip_prefix("// ptx-link: maxntid ") else { continue };
        let (name, threads) = rest
            .split_once(' ')
            .and_then(|(name, n)| Some((name, n.trim().parse::<u32>().ok()?)))
            .ok_or_else(|| format!("malformed launch bound `{line}`"))?;
        let entry = format!(".entry {name}(");
        let start =
            out.find(&entry).ok_or_else(|| format!("launch bound for `{name}`, which is no entry"))?;
        // Parameter declarations hold no parenthesis: the first `)` closes the list.
        let close = out[start..].find(')').ok_or_else(|| format!("no parameter list end for `{name}`"))?;
        let at = start + close + 1;
        out.insert_str(at, &format!("\n.maxntid {threads}, 1, 1"));
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args).and_then(|req| link(&req)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ptx-link: {e}");
            ExitCode::FAILURE
        }
    }
}
