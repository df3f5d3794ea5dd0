//! `host sass STEP`: the machine code of a ladder step and of its C++ twin, side by side —
//! how many of each SASS instruction each one holds, and the registers `ptxas` gives
//! them. Where the two differ in time, this is where to look first.
//!
//! Both go through the same `ptxas` (the Rust PTX of `--ptx-dir`, the twin's PTX from
//! NVRTC), then `cuobjdump -sass`. No GPU is needed; the CUDA toolkit's `ptxas` and
//! `cuobjdump` and NVRTC are.

use crate::base::error::{Error, Result};
use crate::base::ptx::Arch;
use crate::cli::SassOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A CUDA toolkit program: on the PATH, under $CUDA_HOME/bin, or /usr/local/cuda/bin.
fn tool(name: &str) -> Result<PathBuf> {
    let dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(std::env::var_os("CUDA_HOME").map(|h| Path::new(&h).join("bin")))
        .chain([PathBuf::from("/usr/local/cuda/bin")]);
    for dir in dirs {
        let path = dir.join(name);
        if path.is_file() {
            return Ok(path);
        }
    }
    Err(Error::new(format!(
        "`{name}` not found on the PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin: `host sass` needs the \
         CUDA toolkit's ptxas and cuobjdump (or the nvidia-cuda-nvcc and nvidia-cuda-cuobjdump wheels' bin folders on the PATH)"
    )))
}

/// Runs `program` with `args`; its stdout and stderr, or an error naming it.
fn output(program: &Path, args: &[&str]) -> Result<(String, String)> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| Error::new(format!("running {}: {e}", program.display())))?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    if !out.status.success() {
        return Err(Error::new(format!(
            "{} {} failed: {}",
            program.display(),
            args.join(" "),
            stderr.trim()
        )));
    }
    Ok((stdout, stderr))
}

/// One side's machine code: its instruction counts and what `ptxas -v` said about it.
pub struct Machine {
    pub counts: BTreeMap<String, usize>,
    pub registers: Option<u32>,
    pub spills: Option<String>,
}

/// Compiles `entry` of the PTX at `ptx` for `arch` into `cubin` and reads its SASS.
fn machine(ptx: &Path, entry: &str, arch: Arch, cubin: &Path) -> Result<Machine> {
    let arch_flag = format!("-arch={arch}");
    let entry_flag = format!("--entry={entry}");
    let (_, report) = output(
        &tool("ptxas")?,
        &[&arch_flag, "-v", &entry_flag, &ptx.to_string_lossy(), "-o", &cubin.to_string_lossy()],
    )?;
    let (sass, _) = output(&tool("cuobjdump")?, &["-sass", "-fun", entry, &cubin.to_string_lossy()])?;
    let registers =
        report.split("Used ").nth(1).and_then(|r| r.split(' ').next()).and_then(|r| r.parse().ok());
    let spills = report
        .lines()
        .find(|l| l.contains("spill stores"))
        .map(|l| l.trim().trim_start_matches("ptxas info    :").trim().to_string());
    Ok(Machine { counts: instruction_counts(&sass), registers, spills })
}

/// How many times each instruction (opcode with its modifiers: `LDG.E.128`, `HMMA.16816.F32`)
/// occurs in `cuobjdump -sass` output; predicates are dropped.
pub fn instruction_counts(sass: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in sass.lines() {
        // An instruction line: `/*0090*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;  /* 0x… */`.
        let Some(rest) = line.trim_start().strip_prefix("/*") else { continue };
        let Some((address, code)) = rest.split_once("*/") else { continue };
        if !address.chars().all(|c| c.is_ascii_hexdigit()) || address.is_empty() {
            continue;
        }
        let mut words = code.split_whitespace();
        let Some(mut opcode) = words.next() else { continue };
        if opcode.starts_with('@') {
            let Some(next) = words.next() else { continue };
            opcode = next;
        }
        let opcode = opcode.trim_end_matches(';');
        if opcode.is_empty() || opcode.starts_with("/*") {
            continue;
        }
        *counts.entry(opcode.to_string()).or_insert(0) += 1;
    }
    counts
}

/// The table of one entry: the instructions whose counts differ most first, then the
/// most frequent, `top` rows, the rest summed, and the totals.
pub fn table(
    entry: &str,
    arch: Arch,
    rust: &Machine,
    cpp: &Machine,
    top: usize,
) -> crate::report::table::Table {
    use crate::report::table::{Cell, Table};
    let mut table = Table::new(
        format!(
            "{entry}: SASS for {arch}, Rust (rustc NVPTX) against its C++ twin (NVRTC), both through ptxas"
        ),
        &["instruction", "Rust", "C++", "Rust − C++"],
    );
    let mut opcodes: Vec<&String> = rust.counts.keys().chain(cpp.counts.keys()).collect();
    opcodes.sort();
    opcodes.dedup();
    let count = |m: &Machine, op: &str| m.counts.get(op).copied().unwrap_or(0) as i64;
    opcodes.sort_by_key(|op| {
        let (r, c) = (count(rust, op), count(cpp, op));
        (std::cmp::Reverse((r - c).abs()), std::cmp::Reverse(r.max(c)))
    });
    let (shown, rest) = opcodes.split_at(top.min(opcodes.len()));
    for op in shown {
        let (r, c) = (count(rust, op), count(cpp, op));
        table.push(vec![Cell::Text(op.to_string()), Cell::Int(r), Cell::Int(c), Cell::Int(r - c)]);
    }
    if !rest.is_empty() {
        let (r, c): (i64, i64) = rest
            .iter()
            .map(|op| (count(rust, op), count(cpp, op)))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        table.push(vec![
            Cell::Text(format!("{} others", rest.len())),
            Cell::Int(r),
            Cell::Int(c),
            Cell::Int(r - c),
        ]);
    }
    let total = |m: &Machine| m.counts.values().sum::<usize>() as i64;
    table.push(vec![
        Cell::Text("all instructions".into()),
        Cell::Int(total(rust)),
        Cell::Int(total(cpp)),
        Cell::Int(total(rust) - total(cpp)),
    ]);
    let registers = |m: &Machine| m.registers.map_or("?".into(), |r| r.to_string());
    table.notes.push(format!("registers per thread: Rust {}, C++ {}", registers(rust), registers(cpp)));
    for (side, m) in [("Rust", rust), ("C++", cpp)] {
        if let Some(spills) = &m.spills {
            table.notes.push(format!("{side}: {spills}"));
        }
    }
    table
}

/// `host sass`: one table per entry point that `options.step` matches.
pub fn run(options: &SassOptions) -> Result<bool> {
    let entries: Vec<&str> = crate::families::all_steps()
        .into_iter()
        .filter(|(_, step)| step.twinned)
        .flat_map(|(_, step)| step.symbol_names())
        .filter(|s| s.starts_with(options.step.as_str()))
        .collect();
    if entries.is_empty() {
        return Err(Error::new(format!(
            "no ladder step's entry point starts with `{}`: see `host --list`",
            options.step
        )));
    }
    if let Some(reason) = crate::twins::nvrtc_absent_reason() {
        return Err(Error::new(reason));
    }
    let dir = options.ptx_dir.clone().unwrap_or_else(crate::base::ptx::default_dir);
    let rust_ptx = dir.join(options.arch.to_string()).join("kernels.ptx");
    if !rust_ptx.is_file() {
        return Err(Error::new(format!(
            "no Rust PTX for {} at {}: build it with `cargo xtask build-ptx --arch {}`",
            options.arch,
            rust_ptx.display(),
            options.arch
        )));
    }
    let scratch = std::env::temp_dir().join(format!("host-sass-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Error::new(format!("creating {}: {e}", scratch.display())))?;
    let result = (|| {
        for entry in entries {
            let source = crate::twins::source_of(entry)
                .ok_or_else(|| Error::new(format!("no C++ twin defines `{entry}`")))?;
            let twin_ptx = scratch.join(format!("{entry}.twin.ptx"));
            let ptx = crate::twins::compile(source, &crate::twins::nvrtc_target(options.arch))?;
            std::fs::write(&twin_ptx, ptx)
                .map_err(|e| Error::new(format!("writing {}: {e}", twin_ptx.display())))?;
            let rust = machine(&rust_ptx, entry, options.arch, &scratch.join(format!("{entry}.rust.cubin")))?;
            let cpp = machine(&twin_ptx, entry, options.arch, &scratch.join(format!("{entry}.twin.cubin")))?;
            println!("{}", table(entry, options.arch, &rust, &cpp, options.top).render());
        }
        Ok(true)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}
