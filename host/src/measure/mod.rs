//! Measuring: CUDA-event timing with warm-up, L2 flushes and an adaptive stopping rule;
//! the run's conditions (clocks, power, throttling, the node's links); and the node of
//! several GPUs (peer access, NCCL, timing across GPUs). Uses only `base`.

pub mod conditions;
pub mod links;
pub mod nccl;
pub mod node;
pub mod timing;
