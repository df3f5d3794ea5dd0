//! NCCL, opened at run time: the seven functions the multi-GPU probes call.
//!
//! Why not cudarc's `nccl` feature: its loader looks for `libnccl.so` and
//! `libnccl.so.<CUDA major>` only, while NCCL's runtime packages install `libnccl.so.2`
//! (Debian and Ubuntu's `libnccl2`, the `nvidia-nccl-cu*` wheels); the unversioned name
//! comes only with the development package. And without the library its first call
//! panics. Opening the library here lets the run go on without NCCL and say why.
//!
//! One process drives every GPU ([`Comms::init_all`], `ncclCommInitAll`): the suite is one
//! process already, its CPU reference checks every GPU's result in one place, and no
//! launcher (`mpirun`, `torchrun`) is needed. The cost is one CPU thread queueing work for
//! all GPUs, inside `ncclGroupStart`/`ncclGroupEnd` so that NCCL launches them together.

use crate::base::error::{Error, Result};
use crate::base::gpu::Gpu;
use cudarc::driver::sys::CUstream;
use libloading::Library;
use std::ffi::{CStr, c_char, c_int, c_void};

/// NCCL's opaque communicator handle (`ncclComm_t`).
type RawComm = *mut c_void;

/// `ncclResult_t`; 0 is `ncclSuccess`.
type NcclResult = c_int;

/// The environment variable naming NCCL's library file, tried before the usual names.
pub const LIBRARY_VARIABLE: &str = "NCCL_LIBRARY";

/// The names tried after [`LIBRARY_VARIABLE`]: the runtime's soname, then the
/// development package's link.
pub const LIBRARY_NAMES: &[&str] = &["libnccl.so.2", "libnccl.so"];

/// NCCL's switch for NVLink SHARP (NVLS), which uses NVLink multicast: kept at `0` unless
/// the user set it, since NVLink multicast must not be used on the shared GPU machines this project runs on.
pub const NVLS_VARIABLE: &str = "NCCL_NVLS_ENABLE";

/// Element types of an all-reduce (`ncclDataType_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    I32,
    F32,
}

impl DataType {
    fn raw(self) -> c_int {
        match self {
            DataType::I32 => 2, // ncclInt32
            DataType::F32 => 7, // ncclFloat32
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DataType::I32 => "i32",
            DataType::F32 => "f32",
        }
    }

    /// Bytes of one element.
    pub fn bytes(self) -> usize {
        4
    }
}

/// NCCL reads user buffers in 16-byte units, the last one rounded up past the count (it
/// never writes past it): a buffer a collective reads must be allocated to whole units, or
/// the read crosses its end (compute-sanitizer's memcheck reports it, in NCCL's LL128
/// kernels).
pub const READ_GRANULE: usize = 16;

/// The bytes to allocate for `count` elements of `dtype` that NCCL reads: whole
/// [`READ_GRANULE`]s.
pub fn buffer_bytes(count: usize, dtype: DataType) -> usize {
    (count * dtype.bytes()).next_multiple_of(READ_GRANULE)
}

/// `ncclSum`.
const SUM: c_int = 0;

/// The library, loaded, and its functions.
pub struct Nccl {
    /// Keeps the functions below loaded.
    _library: Library,
    /// The name or path it was loaded by.
    pub loaded_from: String,
    /// `ncclGetVersion`: (major, minor, patch).
    pub version: (u32, u32, u32),
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(RawComm) -> NcclResult,
    all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        CUstream,
    ) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
}

impl Nccl {
    /// Loads NCCL: `$NCCL_LIBRARY` if set, else [`LIBRARY_NAMES`] through the loader's
    /// search path. Sets `NCCL_NVLS_ENABLE=0` first unless the user set it. The error says
    /// what was tried and how to install it.
    pub fn load() -> std::result::Result<Nccl, String> {
        keep_nvls_off();
        match std::env::var(LIBRARY_VARIABLE).ok().filter(|v| !v.is_empty()) {
            Some(path) => Self::load_from(&[path], &format!("check the path in ${LIBRARY_VARIABLE}")),
            None => Self::load_from(
                &LIBRARY_NAMES.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
                &format!(
                    "install NCCL (`libnccl2` on Debian and Ubuntu, or `pip install nvidia-nccl-cu13`) \
                     or set ${LIBRARY_VARIABLE} to its libnccl.so.2"
                ),
            ),
        }
    }

    /// The first of `candidates` (names or paths) that loads; else an error listing what
    /// each attempt said, then `advice`.
    pub fn load_from(candidates: &[String], advice: &str) -> std::result::Result<Nccl, String> {
        let mut errors = Vec::new();
        for candidate in candidates {
            // SAFETY: loading NCCL runs its initialisers, which only set up its own state.
            match unsafe { Library::new(candidate) } {
                Ok(library) => return Self::from_library(library, candidate),
                Err(e) => errors.push(format!("{candidate}: {e}")),
            }
        }
        Err(format!("NCCL could not be loaded ({}); {advice}", errors.join("; ")))
    }

    fn from_library(library: Library, name: &str) -> std::result::Result<Nccl, String> {
        /// One function pointer, copied out of the library (which the struct keeps).
        ///
        /// # Safety
        /// `T` is the C signature of `symbol` in NCCL's `nccl.h`.
        unsafe fn function<T: Copy>(library: &Library, symbol: &str) -> std::result::Result<T, String> {
            // SAFETY: the caller names the symbol's true type.
            unsafe { library.get::<T>(symbol.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("{symbol} is missing from NCCL: {e}"))
        }
        // SAFETY: each type below is the signature in nccl.h (2.x) of the symbol it loads.
        let nccl = unsafe {
            let get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult =
                function(&library, "ncclGetVersion")?;
            let mut code = 0;
            if get_version(&mut code) != 0 {
                return Err(format!("ncclGetVersion failed in {name}"));
            }
            let code = code as u32;
            // NCCL_VERSION(X,Y,Z): X·10000 + Y·100 + Z since 2.9 (X·1000 + Y·100 + Z before).
            let version = if code >= 10_000 {
                (code / 10_000, code / 100 % 100, code % 100)
            } else {
                (code / 1000, code / 100 % 10, code % 100)
            };
            Nccl {
                get_error_string: function(&library, "ncclGetErrorString")?,
                comm_init_all: function(&library, "ncclCommInitAll")?,
                comm_destroy: function(&library, "ncclCommDestroy")?,
                all_reduce: function(&library, "ncclAllReduce")?,
                group_start: function(&library, "ncclGroupStart")?,
                group_end: function(&library, "ncclGroupEnd")?,
                version,
                loaded_from: name.to_string(),
                _library: library,
            }
        };
        Ok(nccl)
    }

    /// "NCCL 2.28.3 (libnccl.so.2), NCCL_NVLS_ENABLE=0".
    pub fn describe(&self) -> String {
        let (major, minor, patch) = self.version;
        let nvls = std::env::var(NVLS_VARIABLE).unwrap_or_else(|_| "unset".into());
        format!("NCCL {major}.{minor}.{patch} ({}), {NVLS_VARIABLE}={nvls}", self.loaded_from)
    }

    /// `Err` with NCCL's own words for a failed call.
    fn check(&self, result: NcclResult, what: &str) -> Result<()> {
        if result == 0 {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr((self.get_error_string)(result)) }.to_string_lossy();
        Err(Error::new(format!(
            "{what} failed: NCCL error {result} ({text}); run with NCCL_DEBUG=WARN for NCCL's own account"
        )))
    }
}

/// Sets `NCCL_NVLS_ENABLE=0` unless the user set it, before NCCL reads it.
fn keep_nvls_off() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os(NVLS_VARIABLE).is_none() {
            // SAFETY: done once, before NCCL is loaded; the runner's own threads (progress,
            // watchdog) never read the environment, and NCCL has no thread yet.
            unsafe { std::env::set_var(NVLS_VARIABLE, "0") };
        }
    });
}

/// One communicator per GPU of a set, rank `r` on `gpus[r]`, made by `ncclCommInitAll`;
/// destroyed on drop.
pub struct Comms<'n> {
    nccl: &'n Nccl,
    comms: Vec<RawComm>,
}

impl<'n> Comms<'n> {
    /// A clique of `gpus` (rank order as given).
    pub fn init_all(nccl: &'n Nccl, gpus: &[&Gpu]) -> Result<Self> {
        let ordinals: Vec<c_int> = gpus.iter().map(|g| g.info.ordinal as c_int).collect();
        let mut comms = vec![std::ptr::null_mut(); gpus.len()];
        // SAFETY: `comms` has room for one handle per ordinal.
        let result =
            unsafe { (nccl.comm_init_all)(comms.as_mut_ptr(), gpus.len() as c_int, ordinals.as_ptr()) };
        nccl.check(result, &format!("ncclCommInitAll over GPUs {ordinals:?}"))?;
        Ok(Self { nccl, comms })
    }

    pub fn ranks(&self) -> usize {
        self.comms.len()
    }

    /// Queues one sum all-reduce of `count` elements on every rank: `recv[r] = Σ send[·]`,
    /// on each GPU's stream. Returns once queued.
    ///
    /// # Safety
    /// `send[r]` and `recv[r]` are device addresses on `gpus[r]` holding `count` elements of
    /// `dtype` each, alive until the work is done, in allocations of whole
    /// [`READ_GRANULE`]s ([`buffer_bytes`]).
    pub unsafe fn all_reduce(
        &self,
        gpus: &[&Gpu],
        send: &[u64],
        recv: &[u64],
        count: usize,
        dtype: DataType,
    ) -> Result<()> {
        assert!(gpus.len() == self.ranks() && send.len() == self.ranks() && recv.len() == self.ranks());
        // SAFETY: group calls take no arguments.
        self.nccl.check(unsafe { (self.nccl.group_start)() }, "ncclGroupStart")?;
        let mut queued = Ok(());
        for (rank, gpu) in gpus.iter().enumerate() {
            // SAFETY: the caller guarantees the buffers; the communicator is rank `rank`'s.
            let result = unsafe {
                (self.nccl.all_reduce)(
                    send[rank] as *const c_void,
                    recv[rank] as *mut c_void,
                    count,
                    dtype.raw(),
                    SUM,
                    self.comms[rank],
                    gpu.stream.cu_stream(),
                )
            };
            queued = self.nccl.check(result, &format!("ncclAllReduce on rank {rank}"));
            if queued.is_err() {
                break;
            }
        }
        // The group is closed whatever happened inside it.
        // SAFETY: as above.
        let ended = self.nccl.check(unsafe { (self.nccl.group_end)() }, "ncclGroupEnd");
        queued.and(ended)
    }
}

impl Drop for Comms<'_> {
    fn drop(&mut self) {
        for &comm in &self.comms {
            // SAFETY: each handle came from ncclCommInitAll and is destroyed once; the
            // callers synchronized their streams (every probe reads its results back).
            unsafe { (self.nccl.comm_destroy)(comm) };
        }
    }
}
