//! OneShader facade.
//!
//! `oneshader` is the library a tool links to compile HLSL in process, and the home of the
//! `oneshader` command line, which is a thin layer over it. It ties the workspace's crates
//! into one pipeline: the HLSL front end (`oneshader-frontends`) lowers source to the typed
//! IR (`oneshader-ir`); [`reflect`] (`oneshader-reflect`) describes what the shader expects
//! from the host; legalization and, at `-O`, the optimizer (`oneshader-passes`) run; the
//! SPIR-V backend (`oneshader-backends`) writes the words. The crates stay reachable under
//! short names ([`ir`], [`frontends`], [`passes`], [`backends`], [`serialize`], [`reflect`])
//! for tools that work on the IR itself.
//!
//! The command line and its dependencies (clap) sit behind the default `cli` feature: a tool
//! that only links the library turns it off (`oneshader = { version = "...",
//! default-features = false }`) and builds none of them. The text targets are features too
//! (`glsl`, `wgsl`, `msl`, on by default; the CLI needs all three): a tool that needs one
//! target builds one (`default-features = false, features = ["wgsl"]`), and asking a build for
//! a target it left out is OSC0059. SPIR-V is always built.
//!
//! # Compiling a shader
//!
//! A [`Compiler`] holds in-memory include files (and whether the file system may be read);
//! [`CompileOptions`] holds one compilation's settings with dxc's defaults (vulkan1.2,
//! `-O`, DXC's buffer layout, column-major matrices). A successful compilation gives a
//! [`CompileOutput`]: SPIR-V words, warnings, and on request the [`reflect::Reflection`] and
//! the IR modules. A failed one gives a [`CompileError`] whose [`Diagnostics`] render like a
//! compiler's messages (`file:line:col: error[CODE]: message`, the source line and a caret).
//!
//! ```
//! use oneshader::{CompileOptions, Compiler};
//! use oneshader::reflect::{DescriptorType, ResourceKind};
//!
//! let mut compiler = Compiler::new();
//! compiler.add_include("common.hlsli", "#define GROUP 64\n");
//! let source = r#"
//!     #include "common.hlsli"
//!     cbuffer Params : register(b0) { float scale; float3 bias; };
//!     RWStructuredBuffer<float4> data : register(u1);
//!     [numthreads(GROUP, 1, 1)]
//!     void main(uint3 id : SV_DispatchThreadID) { data[id.x] = data[id.x] * scale + float4(bias, 0); }
//! "#;
//! let opts = CompileOptions::new("cs_6_0").entry("main").with_reflection();
//! let out = compiler.compile_source("scale.hlsl", source, &opts).expect("compiles");
//! assert_eq!(out.spirv[0], 0x0723_0203); // the SPIR-V magic number
//!
//! let reflection = out.reflection.expect("asked for");
//! assert_eq!(reflection.entry_points[0].workgroup_size, Some([64, 1, 1]));
//! let params = reflection.resource("Params").expect("the cbuffer");
//! assert_eq!(params.descriptor_type, DescriptorType::UniformBuffer);
//! assert_eq!(params.size, Some(16)); // DXC's layout packs `bias` right after `scale`
//! let data = reflection.resource("data").expect("the buffer");
//! assert_eq!((data.kind, data.binding), (ResourceKind::RwStructuredBuffer, 1));
//!
//! // Errors carry rendered diagnostics.
//! let err = compiler
//!     .compile_source("bad.hlsl", "float4 main() : SV_Target { return missing; }", &CompileOptions::new("ps_6_0"))
//!     .unwrap_err();
//! assert!(err.diagnostics.render().contains("bad.hlsl:1:36: error[OSH1001]: undefined name `missing`"));
//! ```

pub mod build;
mod compiler;
pub mod depfile;
pub mod dxc_args;
pub mod key;
pub mod link;
pub mod target;

pub use compiler::{
    BindingShift, BufferLayout, CompileError, CompileOptions, CompileOutput, Compiler, DebugInfo,
    Diagnostics, IrModules, MacroOp, MatrixOrder, OptLevel, Phase, Preprocessed, RegisterBinding,
    SpecConstKey, SpecValue, Target, TargetEnv, parse_spec_value,
};
pub use oneshader_ir::diag::{Diagnostic, Errors, Severity, SourceMap};
pub use target::OutputKind;

/// The IR: instructions, types, the builder, the verifier, the text form, diagnostics.
pub use oneshader_ir as ir;

/// The HLSL front end.
pub use oneshader_frontends as frontends;

/// Optimization and legalization passes, linking, the reference interpreter.
pub use oneshader_passes as passes;

/// Backends (SPIR-V, GLSL).
pub use oneshader_backends as backends;

/// The `.osir` binary module format.
pub use oneshader_serialize as serialize;

/// Reflection: entry points, resources, buffer layouts, push and specialization constants.
pub use oneshader_reflect as reflect;
