//! Errors that say what happened and what to do about it.

use cudarc::driver::{DriverError, sys::cudaError_enum as Code};
use std::fmt;

/// An error the runner reports to the user and exits non-zero on.
#[derive(Debug)]
pub struct Error {
    message: String,
    kind: Kind,
}

/// What kind of failure an error is: the exit status tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A bad argument, a missing file, no device, out of memory: exit status 2.
    Other,
    /// A kernel faulted (illegal address or instruction, launch failure) and the context is
    /// lost: exit status 3.
    Fault,
    /// The user pressed Ctrl-C: exit status 130, as a shell reports SIGINT.
    Interrupted,
}

impl Kind {
    /// The process exit status for an error of this kind.
    pub fn exit_status(self) -> u8 {
        match self {
            Kind::Other => 2,
            Kind::Fault => 3,
            Kind::Interrupted => 130,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), kind: Kind::Other }
    }

    /// The error of a run stopped by Ctrl-C.
    pub fn interrupted() -> Self {
        Self { message: "interrupted (Ctrl-C)".into(), kind: Kind::Interrupted }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The same error with what was running in front: `x4_packed_tally, n = 2^30: …`.
    pub fn during(self, what: &str) -> Self {
        Self { message: format!("{what}: {}", self.message), kind: self.kind }
    }

    /// A driver error during `what`, with the advice that fits its code.
    pub fn driver(what: &str, e: DriverError) -> Self {
        let name =
            e.error_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
        let kind = match e.0 {
            Code::CUDA_ERROR_ILLEGAL_ADDRESS
            | Code::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | Code::CUDA_ERROR_MISALIGNED_ADDRESS
            | Code::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | Code::CUDA_ERROR_INVALID_PC
            | Code::CUDA_ERROR_HARDWARE_STACK_ERROR
            | Code::CUDA_ERROR_ASSERT
            | Code::CUDA_ERROR_LAUNCH_FAILED => Kind::Fault,
            _ => Kind::Other,
        };
        let advice = match e.0 {
            Code::CUDA_ERROR_OUT_OF_MEMORY => {
                "The GPU has too little free memory for this size: pass a smaller --n, or free the GPU."
            }
            Code::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
                "The driver is older than the PTX ISA version in the PTX (7.8, CUDA 11.8): update the NVIDIA driver."
            }
            Code::CUDA_ERROR_NO_BINARY_FOR_GPU | Code::CUDA_ERROR_INVALID_PTX => {
                "The PTX does not fit this GPU: rebuild it with `cargo xtask build-ptx --arch sm_XX` for the GPU's compute capability."
            }
            Code::CUDA_ERROR_NO_DEVICE => {
                "No CUDA device is visible: check `nvidia-smi` and CUDA_VISIBLE_DEVICES."
            }
            Code::CUDA_ERROR_INVALID_DEVICE => {
                "No such device: list them with `nvidia-smi` and pass --device N."
            }
            Code::CUDA_ERROR_NOT_FOUND => {
                "A kernel is missing from the PTX: rebuild it with `cargo xtask build-ptx`."
            }
            _ if kind == Kind::Fault => {
                "A kernel faulted; the context is lost and no later result can be trusted. Rerun under \
                 `compute-sanitizer` to find the access."
            }
            _ => "",
        };
        Self { message: format!("{what}: CUDA driver error {name}. {advice}").trim_end().to_string(), kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// `result.context("what was being done")` for driver calls.
pub trait Context<T> {
    fn context(self, what: &str) -> Result<T>;
}

impl<T> Context<T> for std::result::Result<T, DriverError> {
    fn context(self, what: &str) -> Result<T> {
        self.map_err(|e| Error::driver(what, e))
    }
}
