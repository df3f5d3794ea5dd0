//! The CUDA C++ twins: for every ladder step, the same algorithm written in CUDA C++
//! (`twins/<ladder>/<step>.cu`), compiled at run time by NVRTC for the same target as the
//! Rust PTX, launched with the same arguments on the same buffers, verified by the same
//! CPU reference. Rust ÷ C++ in the tables answers whether the language costs anything.
//!
//! Both sides reach the GPU the same way: PTX, compiled to SASS by the driver when the
//! module loads. Only the front end differs — rustc's NVPTX backend (LLVM) for the Rust,
//! NVRTC (NVVM) for the C++.
//!
//! NVRTC is loaded at run time (cudarc's `nvrtc`, dynamic loading). Without it, or when a
//! twin does not compile, the twin columns say why and the run goes on.

use crate::base::error::{Context, Error, Result};
use crate::base::gpu::Gpu;
use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use cudarc::nvrtc::sys as nvrtc;
use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char};
use std::sync::{Arc, Mutex};

/// One embedded source file.
#[derive(Clone, Copy, Debug)]
pub struct Source {
    /// The path under `twins/`: `reduce/h0_interleaved_modulo.cu`, `hopper.cuh`.
    pub path: &'static str,
    pub text: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/twin_sources.rs"));

/// The options every twin is compiled with, besides the target: C++17, and otherwise
/// NVRTC's defaults, which are nvcc's (`--fmad=true`, no fast math).
pub const OPTIONS: &[&str] = &["-std=c++17"];

/// Whether `text` defines the `extern "C"` entry point `symbol`: the name followed by `(`,
/// not inside a longer name, in a declaration that says `extern "C"`.
pub fn defines(text: &str, symbol: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(symbol).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + symbol.len()..].trim_start();
        if before.is_some_and(is_ident) || !after.starts_with('(') {
            return false;
        }
        // The declaration: back to the end of the previous statement or block.
        let start = text[..at].rfind([';', '}']).map_or(0, |i| i + 1);
        text[start..at].contains("extern \"C\"") && text[start..at].contains("__global__")
    })
}

/// The twin source that defines entry point `symbol`.
pub fn source_of(symbol: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| defines(s.text, symbol))
}

/// The NVRTC target for PTX built for `arch`: `compute_90a` for `sm_90a`.
pub fn nvrtc_target(arch: crate::base::ptx::Arch) -> String {
    arch.to_string().replacen("sm_", "compute_", 1)
}

/// Why NVRTC cannot be used here, or `None` when it can.
pub fn nvrtc_absent_reason() -> Option<String> {
    // SAFETY: only probes whether the library can be loaded.
    if unsafe { nvrtc::is_culib_present() } {
        None
    } else {
        Some(
            "NVRTC not found (libnvrtc.so is not on the library path): install the CUDA toolkit, \
             or the nvidia-cuda-nvrtc wheel and add its lib folder to LD_LIBRARY_PATH"
                .into(),
        )
    }
}

/// NVRTC's version, `(major, minor)`.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: writes two ints; the library was found (callers check `nvrtc_absent_reason`).
    let status = unsafe { nvrtc::nvrtcVersion(&mut major, &mut minor) };
    check(status, "reading NVRTC's version", None)?;
    Ok((major, minor))
}

fn check(status: nvrtc::nvrtcResult, what: &str, log: Option<String>) -> Result<()> {
    if status == nvrtc::nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    // SAFETY: NVRTC returns a static string for any status.
    let name = unsafe { CStr::from_ptr(nvrtc::nvrtcGetErrorString(status)) }.to_string_lossy();
    Err(Error::new(match log {
        Some(log) => format!("{what}: {name}\n{log}"),
        None => format!("{what}: {name}"),
    }))
}

/// Compiles `source` to PTX for `target` (`compute_90a`), with every header of `twins/`
/// available by name. Needs NVRTC, no GPU. A compile error carries NVRTC's log.
pub fn compile(source: &Source, target: &str) -> Result<String> {
    let cstring = |s: &str| CString::new(s).map_err(|_| Error::new(format!("{}: a NUL byte", source.path)));
    let text = cstring(source.text)?;
    let name = cstring(source.path)?;
    let header_texts = HEADERS.iter().map(|h| cstring(h.text)).collect::<Result<Vec<_>>>()?;
    let header_names = HEADERS.iter().map(|h| cstring(h.path)).collect::<Result<Vec<_>>>()?;
    let texts: Vec<*const c_char> = header_texts.iter().map(|c| c.as_ptr()).collect();
    let names: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
    let mut program = std::ptr::null_mut();
    // SAFETY: every pointer is to a NUL-terminated string that outlives the call; the
    // header arrays have `HEADERS.len()` entries.
    let status = unsafe {
        nvrtc::nvrtcCreateProgram(
            &mut program,
            text.as_ptr(),
            name.as_ptr(),
            HEADERS.len() as i32,
            texts.as_ptr(),
            names.as_ptr(),
        )
    };
    check(status, &format!("creating the NVRTC program of {}", source.path), None)?;
    let program = Program(program);
    let options: Vec<CString> = std::iter::once(format!("--gpu-architecture={target}"))
        .chain(OPTIONS.iter().map(|o| o.to_string()))
        .map(|o| cstring(&o))
        .collect::<Result<_>>()?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: a live program; the options outlive the call.
    let status =
        unsafe { nvrtc::nvrtcCompileProgram(program.0, option_ptrs.len() as i32, option_ptrs.as_ptr()) };
    let log = program.log();
    check(status, &format!("NVRTC compiling twins/{} for {target}", source.path), Some(log))?;
    let mut size = 0;
    // SAFETY: a compiled program; the buffer has the size NVRTC asked for.
    let ptx = unsafe {
        check(nvrtc::nvrtcGetPTXSize(program.0, &mut size), "reading the PTX size", None)?;
        let mut buffer = vec![0 as c_char; size];
        check(nvrtc::nvrtcGetPTX(program.0, buffer.as_mut_ptr()), "reading the PTX", None)?;
        CStr::from_ptr(buffer.as_ptr()).to_string_lossy().into_owned()
    };
    Ok(ptx)
}

/// An NVRTC program, destroyed on drop.
struct Program(nvrtc::nvrtcProgram);

impl Program {
    /// The compile log, trimmed ("" when empty).
    fn log(&self) -> String {
        let mut size = 0;
        // SAFETY: a live program; the buffer has the size NVRTC asked for.
        unsafe {
            if nvrtc::nvrtcGetProgramLogSize(self.0, &mut size) != nvrtc::nvrtcResult::NVRTC_SUCCESS
                || size == 0
            {
                return String::new();
            }
            let mut buffer = vec![0 as c_char; size];
            if nvrtc::nvrtcGetProgramLog(self.0, buffer.as_mut_ptr()) != nvrtc::nvrtcResult::NVRTC_SUCCESS {
                return String::new();
            }
            CStr::from_ptr(buffer.as_ptr()).to_string_lossy().trim().to_string()
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, destroyed once.
        unsafe { nvrtc::nvrtcDestroyProgram(&mut self.0) };
    }
}

/// The twins on one GPU: each source compiled (once, when a kernel of it is first asked
/// for) for the target of the loaded Rust PTX, and loaded as a module of its own.
pub struct Twins {
    /// `compute_90a` for a run that loaded the sm_90a PTX.
    pub target: String,
    pub nvrtc_version: (i32, i32),
    /// By source path: the module, or why the source did not compile or load.
    modules: Mutex<HashMap<&'static str, std::result::Result<Arc<CudaModule>, String>>>,
    functions: Mutex<HashMap<String, CudaFunction>>,
}

impl Twins {
    /// The twins for `gpu`, or why there are none (no NVRTC).
    pub fn open(gpu: &Gpu) -> std::result::Result<Twins, String> {
        if let Some(reason) = nvrtc_absent_reason() {
            return Err(reason);
        }
        let nvrtc_version = nvrtc_version().map_err(|e| e.to_string())?;
        Ok(Twins {
            target: nvrtc_target(gpu.info.ptx_arch),
            nvrtc_version,
            modules: Mutex::default(),
            functions: Mutex::default(),
        })
    }

    /// How the twins are built, for the run's header.
    pub fn describe(&self) -> String {
        let (major, minor) = self.nvrtc_version;
        format!("NVRTC {major}.{minor}, --gpu-architecture={} {}", self.target, OPTIONS.join(" "))
    }

    /// The twin of entry point `symbol`, compiled and loaded on `gpu` (cached).
    pub fn function(&self, gpu: &Gpu, symbol: &str) -> Result<CudaFunction> {
        self.function_beside(gpu, symbol, symbol)
    }

    /// Entry point `symbol` of the twin module that defines `beside` (cached).
    pub fn function_beside(&self, gpu: &Gpu, symbol: &str, beside: &str) -> Result<CudaFunction> {
        let key = format!("{beside}/{symbol}");
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(function) = functions.get(&key) {
            return Ok(function.clone());
        }
        let source = source_of(beside).ok_or_else(|| {
            Error::new(format!("no C++ twin defines `{beside}` (twins/ has no such entry point)"))
        })?;
        let module = {
            let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
            modules
                .entry(source.path)
                .or_insert_with(|| {
                    let ptx = compile(source, &self.target).map_err(|e| e.to_string())?;
                    gpu.ctx
                        .load_module(Ptx::from_src(ptx))
                        .map_err(|e| format!("loading the PTX of twins/{}: {e}", source.path))
                })
                .clone()
                .map_err(Error::new)?
        };
        let function = module
            .load_function(symbol)
            .context(&format!("loading twin `{symbol}` (from twins/{})", source.path))?;
        functions.insert(key, function.clone());
        Ok(function)
    }
}

/// Which code a launch runs: the Rust step (the project's PTX) or its C++ twin.
#[derive(Clone, Copy)]
pub enum Code<'t> {
    Rust,
    Cpp(&'t Twins),
}

impl Code<'_> {
    /// Entry point `symbol` of this code on `gpu`.
    pub fn function(self, gpu: &Gpu, symbol: &str) -> Result<CudaFunction> {
        match self {
            Code::Rust => gpu.function(symbol),
            Code::Cpp(twins) => twins.function(gpu, symbol),
        }
    }

    /// Entry point `symbol` from the module that holds `beside`: for a kernel several steps
    /// launch (the scan's propagation), which each C++ twin defines through a shared header
    /// and which is no step's own. The Rust PTX holds every entry point in one module.
    pub fn function_beside(self, gpu: &Gpu, symbol: &str, beside: &str) -> Result<CudaFunction> {
        match self {
            Code::Rust => gpu.function(symbol),
            Code::Cpp(twins) => twins.function_beside(gpu, symbol, beside),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Code::Rust => "Rust",
            Code::Cpp(_) => "C++ twin",
        }
    }
}

/// Registers per thread of a loaded kernel (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
pub fn registers(function: &CudaFunction) -> Option<u32> {
    function.num_regs().ok().and_then(|r| u32::try_from(r).ok())
}

/// Whether this run measures the twins.
pub enum TwinMode<'t> {
    /// `--twins off`.
    Off,
    /// Asked for, but they cannot run here: why.
    Unavailable(String),
    On(&'t Twins),
}

impl TwinMode<'_> {
    /// What a step's twin cells say when this mode runs no twin.
    fn not_run(&self) -> Option<TwinResult> {
        match self {
            TwinMode::Off => Some(TwinResult::NotRun("--twins off".into())),
            TwinMode::Unavailable(reason) => Some(TwinResult::NotRun(reason.clone())),
            TwinMode::On(_) => None,
        }
    }

    /// Runs a step's twin, whose entry points are `symbols`, through `run` (its check,
    /// then its timing), or says why not: a twin that cannot be compiled or loaded is not
    /// run (the first line of the reason is shown); any error of `run` — a fault — is the
    /// run's error.
    pub fn run(
        &self,
        gpu: &Gpu,
        symbols: &[&str],
        run: impl FnOnce(Code) -> Result<TwinResult>,
    ) -> Result<TwinResult> {
        if let Some(result) = self.not_run() {
            return Ok(result);
        }
        let TwinMode::On(twins) = self else { unreachable!("not_run covers the others") };
        for symbol in symbols {
            if let Err(e) = twins.function(gpu, symbol) {
                return Ok(TwinResult::NotRun(first_line(&e.to_string())));
            }
        }
        run(Code::Cpp(twins))
    }
}

/// The first line of a message (a compile error's log follows it).
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// What became of a step's twin.
#[derive(Clone, Debug)]
pub enum TwinResult {
    /// Checked against the same reference, and timed when it passed and timing was asked.
    Ran {
        passed: bool,
        /// What was wrong, when it failed.
        wrong: Option<String>,
        timing: Option<crate::measure::timing::Timing>,
        registers: Option<u32>,
    },
    /// Not run, and why.
    NotRun(String),
}

impl TwinResult {
    /// A check that failed counts against the run, as a wrong Rust step does.
    pub fn failed(&self) -> bool {
        matches!(self, TwinResult::Ran { passed: false, .. })
    }

    /// Fills the twin fields of `record` (whose own timing is already set) and its
    /// registers.
    pub fn fill(&self, record: &mut crate::report::records::Record, registers: Option<u32>) {
        record.registers = registers.map(u64::from);
        match self {
            TwinResult::Ran { passed, wrong, timing, registers } => {
                record.cpp_passed = Some(*passed);
                record.cpp_registers = registers.map(u64::from);
                record.cpp_median_us = timing.and_then(|t| crate::report::records::finite(t.median_ms * 1e3));
                record.rust_over_cpp = record
                    .median_us
                    .zip(record.cpp_median_us)
                    .and_then(|(r, c)| crate::report::records::finite(r / c));
                record.cpp_note = wrong.clone();
            }
            TwinResult::NotRun(reason) => record.cpp_note = Some(reason.clone()),
        }
    }
}

/// The columns the twins add to a ladder's table, after its time.
pub const COLUMNS: &[&str] = &["C++ µs", "Rust ÷ C++", "regs Rust/C++"];

/// Those columns' cells, read from a record that [`TwinResult::fill`] completed.
pub fn cells(record: &crate::report::records::Record) -> Vec<crate::report::table::Cell> {
    use crate::report::table::Cell;
    let registers = |r: Option<u64>| r.map_or("-".to_string(), |r| r.to_string());
    let time = match (record.cpp_passed, record.cpp_median_us) {
        (Some(false), _) => Cell::Text("WRONG".into()),
        (_, Some(us)) => Cell::Num(us, 1),
        _ => Cell::Text("-".into()),
    };
    vec![
        time,
        Cell::Num(record.rust_over_cpp.unwrap_or(f64::NAN), 3),
        Cell::Text(format!("{}/{}", registers(record.registers), registers(record.cpp_registers))),
    ]
}

/// The notes a table gets about its twins: how they were built, then each twin that did
/// not run or was wrong, once per reason.
pub fn notes(mode: &TwinMode, records: &[&crate::report::records::Record]) -> Vec<String> {
    let mut notes = vec![match mode {
        TwinMode::On(twins) => format!(
            "C++ µs: the step's CUDA C++ twin (twins/), same launch and buffers, built by {}; Rust ÷ C++ > 1: Rust slower",
            twins.describe()
        ),
        TwinMode::Off => "C++ twins: not run (--twins off)".into(),
        TwinMode::Unavailable(reason) => format!("C++ twins: not run: {reason}"),
    }];
    if let TwinMode::On(_) = mode {
        for record in records {
            if let Some(note) = &record.cpp_note {
                let line = match record.cpp_passed {
                    Some(false) => format!("{}'s C++ twin is WRONG: {note}", record.kernel),
                    _ => format!("{}'s C++ twin not run: {note}", record.kernel),
                };
                if !notes.contains(&line) {
                    notes.push(line);
                }
            }
        }
    }
    notes
}
