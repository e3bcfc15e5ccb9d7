//! Placeholder; replaced below.
pub mod diag;
