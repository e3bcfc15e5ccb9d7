//! `oneshader-backends`: code generation from the OneShader IR.
//!
//! Each backend takes a [`Legal`] module: verified and legalized for its target ([`prepare`]
//! runs the target's legalization pipeline and checks the result), so no backend re-derives
//! what legalization guarantees. Whatever a module holds that the target cannot express is a
//! diagnostic naming the construct (codes `OSB....`), never a panic. Today there are
//! [`spirv`]: SPIR-V words for Vulkan (and universal SPIR-V), written straight into per-section
//! buffers, with buffer layouts from the one layout module shared with reflection
//! ([`oneshader_ir::layout`]); [`glsl`]: GLSL 4.50 for Vulkan, one entry point per output,
//! meaning exactly what the SPIR-V backend's output means; [`wgsl`]: WGSL as naga validates
//! it, one entry point per output, with the same meaning; and [`msl`]: Metal Shading Language
//! 2.4 for compute, vertex and fragment functions (checked with clang against a stand-in
//! header and against spirv-cross's interface; no Metal compiler runs on Linux). The text
//! backends share identifier scopes, the entry-point choice, the inline/local analysis and the
//! locations atomics touch (a private `text` module), and one error type, [`TextError`].

mod attribute;
pub mod bindings;
mod buffers;
#[cfg(feature = "glsl")]
pub mod glsl;
pub mod legal;
#[cfg(feature = "msl")]
pub mod msl;
pub mod precise;
pub mod spirv;
#[cfg(any(feature = "glsl", feature = "wgsl", feature = "msl"))]
// Shared by the three text backends: with some of them off, some helpers have no user.
#[cfg_attr(
    not(all(feature = "glsl", feature = "wgsl", feature = "msl")),
    allow(dead_code)
)]
mod text;
#[cfg(feature = "wgsl")]
pub mod wgsl;
mod words;

pub use legal::{Legal, prepare};
pub use oneshader_passes::legalize::Target;
#[cfg(any(feature = "glsl", feature = "wgsl", feature = "msl"))]
pub use text::error::TextError;
