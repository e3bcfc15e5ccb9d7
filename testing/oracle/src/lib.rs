//! The executed differential oracle: one compute shader, several **voices** (ways through
//! the compiler to a program), the same inputs, and what each leaves in its buffers and
//! images compared bit for bit on lavapipe.
//!
//! Voices ([`Voice`]): our SPIR-V at `-O0` and at `-O` (an optimizer differential), our GLSL
//! compiled by glslang (plugged in at [`voice::glsl_words`]), and for IR sources the
//! reference interpreter ([`interp`]), which runs the module before legalization and
//! optimization. A disagreement is a claim about one of them: an emitter, the optimizer, or
//! the interpreter.
//!
//! A run ([`Oracle::run`]) takes a [`Case`] (source + reflection), the voices, [`Inputs`]
//! (given by a test, or [`data::seeded`] from the reflection with seeded random data under
//! stated rules) and per-resource [`Rules`]. Every writable resource of every voice is
//! compared with the first voice's ([`compare`]: exact bits except that NaNs compare as a
//! class; ULP bounds and order-free comparison only where a caller names them). A
//! [`Disagreement`] names the shader, both voices, the resource and its first differing
//! element, with both values in hex and as their type.
//!
//! ```no_run
//! use oneshader_oracle::{Case, Inputs, Oracle, Rules, Source, Voice, data};
//! use oneshader_vulkan_harness::Gpu;
//!
//! let gpu = Gpu::new();
//! let source = Source::Hlsl {
//!     path: "examples/hlsl/prefix_sum.hlsl".into(),
//!     options: oneshader::CompileOptions::new("cs_6_0"),
//! };
//! let case = Case::new("prefix_sum", source).unwrap();
//! let opts = data::InputOptions::for_workgroup(case.workgroup_size().unwrap());
//! let inputs = data::seeded(&case.reflection, 42, &opts).unwrap();
//! let report = Oracle::new(&gpu)
//!     .run(&case, &Voice::gpu_voices(), &inputs, &Rules::new())
//!     .unwrap();
//! report.assert_agreement();
//! ```
//!
//! The corpus runner (`cargo xtask oracle`, the `oneshader-oracle` binary) runs every
//! compute shader of the HLSL corpus this way.

pub mod compare;
pub mod data;
pub mod interp;
pub mod layout;
pub mod rng;
pub mod run;
pub mod voice;

pub use compare::{Difference, Rule};
pub use data::{InputOptions, Inputs};
pub use run::{Case, Disagreement, Oracle, Report, Rules, VoiceRun};
pub use voice::{Program, Source, Voice};

use oneshader_vulkan_harness::HarnessError;

/// Why a voice could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    /// A compiler on the voice's path refused the shader.
    #[error("{voice}: compilation failed: {message}")]
    Compile {
        /// The voice (or `reflection`).
        voice: String,
        /// The diagnostics.
        message: String,
    },
    /// A validator rejected the voice's program (it is not run: running invalid SPIR-V is
    /// undefined).
    #[error("{voice}: the program is invalid: {message}")]
    Invalid {
        /// The voice.
        voice: String,
        /// The validator's output.
        message: String,
    },
    /// The shader binds something the harness does not make.
    #[error("unsupported resource: {0}")]
    Unsupported(String),
    /// The dispatch failed.
    #[error("{voice}: the dispatch failed: {error}")]
    Dispatch {
        /// The voice.
        voice: String,
        /// The harness's error.
        error: HarnessError,
    },
    /// The interpreter does not model the shader, or stopped (step limit, out of bounds...).
    #[error("interp: {0}")]
    Interp(String),
    /// [`voice::compile`] was asked for the interpreter, which makes no GPU program.
    #[error("the interpreter makes no GPU program")]
    NotGpu,
}
