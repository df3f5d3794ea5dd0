//! The attention family (work in progress): the forward pass of
//! softmax(Q·Kᵀ·scale + mask)·V. So far its problem ([`problem`]) and CPU reference
//! ([`reference`]); the steps, their runner and the family's registration come next.
#![allow(dead_code)]

pub mod problem;
pub mod reference;
