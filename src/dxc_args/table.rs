//! Every option of DXC's option table (`include/dxc/Support/HLSLOptions.td`), and OneShader's
//! own, each with what OneShader does with it. docs/cli.md carries the same table; a test
//! (`tests/cli_options_table.rs`) checks that the two agree and that the parser behaves as
//! each row says, so an option can never be accepted and silently ignored.

/// How an option takes its value, as DXC's table spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// No value (`-Zpr`).
    Flag,
    /// The value is attached (`-fspv-target-env=vulkan1.2`, `-Wno-x`).
    Joined,
    /// The value is the next argument (`-HV 2021`).
    Separate,
    /// Attached or the next argument (`-T ps_6_0`, `-Tps_6_0`).
    JoinedOrSeparate,
    /// The next N arguments (`-fvk-b-shift 1 0`).
    Multi(u8),
    /// An attached comma-separated list (`-Oconfig=a,b`).
    CommaJoined,
}

impl Form {
    /// The spelling in docs/cli.md's `form` column.
    pub fn spelling(self) -> String {
        match self {
            Form::Flag => "flag".into(),
            Form::Joined => "joined".into(),
            Form::Separate => "separate".into(),
            Form::JoinedOrSeparate => "joined-or-separate".into(),
            Form::Multi(n) => format!("multi({n})"),
            Form::CommaJoined => "comma-joined".into(),
        }
    }
}

/// What OneShader does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// The option means what it means to DXC (the text says how, where it is not obvious).
    Honoured(&'static str),
    /// Refused with OSC0050 naming the option; the text says why.
    Refused(&'static str),
    /// Accepted because it cannot change what OneShader writes; the text says why.
    NoEffect(&'static str),
}

impl Support {
    /// The spelling in docs/cli.md's `class` column.
    pub fn class(self) -> &'static str {
        match self {
            Support::Honoured(_) => "honoured",
            Support::Refused(_) => "refused",
            Support::NoEffect(_) => "no effect",
        }
    }

    /// The text of the row.
    pub fn reason(self) -> &'static str {
        match self {
            Support::Honoured(r) | Support::Refused(r) | Support::NoEffect(r) => r,
        }
    }
}

/// One option.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The name after the prefix, as DXC's table spells it (`fspv-entrypoint-name=`).
    pub name: &'static str,
    /// How it takes its value.
    pub form: Form,
    /// The prefixes it is spelled with: `-`, `-/` (also `/T`), `--`, or `-/--`.
    pub prefixes: &'static str,
    /// What OneShader does with it.
    pub support: Support,
    /// From DXC's table (`true`) or OneShader's own (`false`).
    pub dxc: bool,
}

impl OptionSpec {
    /// Whether the option can be spelled with `prefix` (`"-"`, `"--"` or `"/"`).
    pub fn takes_prefix(&self, prefix: &str) -> bool {
        match prefix {
            "-" => self.prefixes.contains('-') && self.prefixes != "--",
            "--" => self.prefixes.contains("--"),
            "/" => self.prefixes.contains('/'),
            _ => false,
        }
    }

    /// The option's usual spelling (`-fspv-entrypoint-name=`, `--target`).
    pub fn spelling(&self) -> String {
        let p = if self.prefixes == "--" { "--" } else { "-" };
        format!("{p}{}", self.name)
    }
}

/// The reason the debug-information options beyond line information are refused (`-Zs`,
/// `-Fd`, `-Qsource_in_debug_module`, `-Qpdb_in_private`, and `-fspv-debug=` other than
/// `line`, `vulkan[-with-source]` and `rich[-with-source]`): `-Zi` and `-fspv-debug=line` write
/// SPIR-V line information, `-fspv-debug=vulkan[-with-source]` NonSemantic.Shader.DebugInfo.100,
/// `-fspv-debug=rich[-with-source]` OpenCL.DebugInfo.100.
pub const DEBUG_INFO: &str = "only SPIR-V line information (`-Zi`, `-fspv-debug=line`), NonSemantic.Shader.DebugInfo.100 (`-fspv-debug=vulkan`, `-fspv-debug=vulkan-with-source`) and OpenCL.DebugInfo.100 (`-fspv-debug=rich`, `-fspv-debug=rich-with-source`) are emitted; tool-specific categories and PDB-style outputs are not, so this is refused rather than writing a module without them";

const DXIL: &str = "reads or writes DXIL containers, which OneShader does not produce";
const ROOTSIG: &str = "a D3D12 root signature has no form in SPIR-V, GLSL, WGSL or MSL (DXC's SPIR-V output ignores it too)";
const REWRITER: &str = "an option of DXC's HLSL rewriter, which OneShader does not have";
const WARNINGS: &str = "selects DXC's warnings; OneShader's warnings have their own codes and are always on (`-no-warnings` hides them)";
const PERMITS: &str = "permits floating-point optimizations; OneShader makes none of them, which every such permission allows";
const FORBIDS: &str = "forbids floating-point optimizations OneShader never makes";
const LLVM_PASSES: &str = "names DXC's LLVM passes, which OneShader does not have (`oneshader opt --passes` runs OneShader's)";
const PRINT_PASSES: &str = "prints DXC's LLVM passes; use `oneshader compile --target ir` and `oneshader opt --print-after PASS`";
const TIMING: &str = "DXC's timing report is not implemented (`oneshader opt --time-passes` times OneShader's passes)";

use Form::*;
use Support::*;

macro_rules! o {
    ($name:literal, $form:expr, $prefixes:literal, $support:expr) => {
        OptionSpec {
            name: $name,
            form: $form,
            prefixes: $prefixes,
            support: $support,
            dxc: true,
        }
    };
}

macro_rules! own {
    ($name:literal, $form:expr, $prefixes:literal, $text:literal) => {
        OptionSpec {
            name: $name,
            form: $form,
            prefixes: $prefixes,
            support: Honoured($text),
            dxc: false,
        }
    };
}

/// Every option, DXC's in the order of its table, then OneShader's own.
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    o!("D", JoinedOrSeparate, "-/", Honoured("define a macro")),
    o!("H", Flag, "-", Refused("the include tree is not printed; `-MD`/`-MF` write the included files")),
    o!("I", JoinedOrSeparate, "-/", Honoured("add an include folder")),
    o!("O0", Flag, "-/", Honoured("legalization only, no optimizer")),
    o!("O1", Flag, "-/", Honoured("the optimizer (OneShader has one `-O` level)")),
    o!("O2", Flag, "-/", Honoured("the optimizer (OneShader has one `-O` level)")),
    o!("O3", Flag, "-/", Honoured("the optimizer (the default)")),
    o!("Odump", Flag, "-/", Refused(PRINT_PASSES)),
    o!("Qunused-arguments", Flag, "-", NoEffect("silences warnings about unused arguments; OneShader has none, every option is used or refused")),
    o!("Wall", Flag, "-", NoEffect(WARNINGS)),
    o!("Wdeprecated", Flag, "-", NoEffect(WARNINGS)),
    o!("W", Joined, "-", NoEffect("`-Wno-NAME` only silences DXC's warning NAME (OneShader's warnings have their own codes); any other `-W` spelling (`-Werror`...) is refused")),
    o!("d", Flag, "-", Refused("clang's dump options are not supported")),
    o!("d", Joined, "-", Refused("clang's dump options are not supported")),
    o!("fdiagnostics-color", Flag, "-", NoEffect("diagnostics are printed without colour either way; the output is the same")),
    o!("fdiagnostics-color=", Joined, "-", NoEffect("diagnostics are printed without colour either way; the output is the same")),
    o!("fconstexpr-depth=", Joined, "-", NoEffect("a clang limit on `constexpr` evaluation, which HLSL does not have")),
    o!("fconstexpr-steps=", Joined, "-", NoEffect("a clang limit on `constexpr` evaluation, which HLSL does not have")),
    o!("fconstexpr-backtrace-limit=", Joined, "-", NoEffect("a clang limit on `constexpr` evaluation, which HLSL does not have")),
    o!("fdiagnostics-format=", Joined, "-", Refused("diagnostics have one format (`file:line:col: error[CODE]: message`); a tool parsing msvc's or vi's would misread them")),
    o!("fdiagnostics-show-option", Flag, "-", NoEffect("every diagnostic already names its code")),
    o!("fno-diagnostics-show-option", Flag, "-", NoEffect("changes only the text of DXC's warnings")),
    o!("fdiagnostics-show-category=", Joined, "-", NoEffect("changes only the text of DXC's warnings")),
    o!("ferror-limit=", Joined, "-", NoEffect("every error is printed; the exit status is the same")),
    o!("import-binding-table", JoinedOrSeparate, "-/", Refused("DXIL binding tables are not supported; use `-fvk-bind-register`")),
    o!("binding-table-define", Separate, "-/", Refused("DXIL binding tables are not supported; use `-fvk-bind-register`")),
    o!("funsafe-math-optimizations", Flag, "-", NoEffect(PERMITS)),
    o!("fno-unsafe-math-optimizations", Flag, "-", NoEffect(FORBIDS)),
    o!("fassociative-math", Flag, "-", NoEffect(PERMITS)),
    o!("fno-associative-math", Flag, "-", NoEffect(FORBIDS)),
    o!("fno-reciprocal-math", Flag, "-", NoEffect(FORBIDS)),
    o!("ffinite-math-only", Flag, "-", NoEffect(PERMITS)),
    o!("fno-finite-math-only", Flag, "-", NoEffect(FORBIDS)),
    o!("fsigned-zeros", Flag, "-", NoEffect(FORBIDS)),
    o!("fhonor-nans", Flag, "-", NoEffect(FORBIDS)),
    o!("fno-honor-nans", Flag, "-", NoEffect(PERMITS)),
    o!("fhonor-infinities", Flag, "-", NoEffect(FORBIDS)),
    o!("fno-honor-infinities", Flag, "-", NoEffect(PERMITS)),
    o!("flimited-precision=", Joined, "-", Refused("limited-precision math functions are not implemented")),
    o!("memdep-block-scan-limit", Separate, "-/", NoEffect("a search limit of DXC's LLVM memory analysis; it changes no result of OneShader's passes")),
    o!("opt-disable", Separate, "-/", Refused(LLVM_PASSES)),
    o!("opt-enable", Separate, "-/", Refused(LLVM_PASSES)),
    o!("opt-select", Multi(2), "-/", Refused(LLVM_PASSES)),
    o!("fdisable-loc-tracking", Flag, "-", NoEffect("only the positions of DXC's late diagnostics; the output is the same")),
    o!("fnew-inlining-behavior", Flag, "-", NoEffect("DXC's library inlining heuristics; OneShader inlines every call into the entry point either way")),
    o!("ftime-report", Flag, "-", Refused(TIMING)),
    o!("ftime-trace", Flag, "-", Refused(TIMING)),
    o!("ftime-trace=", Joined, "-", Refused(TIMING)),
    o!("ftime-trace-granularity=", Joined, "-", Refused(TIMING)),
    o!("verify", Joined, "-", Refused("clang's `-verify` diagnostic tests are not supported")),
    o!("verbose", Flag, "-", NoEffect("OneShader prints no extra information to hide or show")),
    o!("v", Flag, "-", NoEffect("OneShader prints no extra information to hide or show")),
    o!("help", Flag, "-/--", Honoured("print the usage and exit")),
    o!("all-warnings", Flag, "--", NoEffect(WARNINGS)),
    o!("help-hidden", Flag, "--", Honoured("print the usage and exit")),
    o!("?", Flag, "-/", Honoured("print the usage and exit")),
    o!("version", Flag, "--", Honoured("print the version and exit")),
    o!("ast-dump", Flag, "-/", Refused("use `oneshader parse --ast`")),
    o!("ast-dump-implicit", Flag, "-/", Refused("use `oneshader parse --ast`")),
    o!("M", Flag, "-/", Refused("use `-MD` or `-MF FILE` (a Make rule with every included file)")),
    o!("MD", Flag, "-/", Honoured("write a Make dependency file `OUT.d`")),
    o!("MF", JoinedOrSeparate, "-/", Honoured("write the Make dependency file to FILE")),
    o!("external", Separate, "-/", Refused("DXC's external compiler DLL")),
    o!("external-fn", Separate, "-/", Refused("DXC's external compiler DLL")),
    o!("fcgl", Flag, "-/", NoEffect("DXC's SPIR-V before legalization is not a module a driver accepts; OneShader writes its legalized output (`--target ir -O0` gives the module before the optimizer)")),
    o!("preserve-intermediate-values", Flag, "-/", Refused("keeping every intermediate value for a debugger is not implemented")),
    o!("flegacy-macro-expansion", Flag, "-/", Refused("fxc's order of token pasting is not implemented; the preprocessor follows C's")),
    o!("flegacy-resource-reservation", Flag, "-/", Refused("DXIL register reservation; SPIR-V bindings come from `register` and the `-fvk-*` options")),
    o!("no-legacy-cbuf-layout", Flag, "-/", NoEffect("the form of DXIL's cbuffer load instructions; SPIR-V has none")),
    o!("not_use_legacy_cbuf_load", Flag, "-/", NoEffect("the form of DXIL's cbuffer load instructions; SPIR-V has none")),
    o!("pack-prefix-stable", Flag, "-/", NoEffect("DXIL signature packing (the default); SPIR-V stage variables are numbered by `Location`")),
    o!("pack_prefix_stable", Flag, "-/", NoEffect("DXIL signature packing (the default); SPIR-V stage variables are numbered by `Location`")),
    o!("pack-optimized", Flag, "-/", Refused("optimized signature packing is not implemented")),
    o!("pack_optimized", Flag, "-/", Refused("optimized signature packing is not implemented")),
    o!("HV", Separate, "-/", Honoured("the HLSL version (2016, 2017, 2018, 2021, 202x)")),
    o!("no-warnings", Flag, "-/", Honoured("print errors only")),
    o!("rootsig-define", Separate, "-/", NoEffect(ROOTSIG)),
    o!("enable-16bit-types", Flag, "-/", Honoured("`half` and the `min16` types are 16-bit")),
    o!("ignore-line-directives", Flag, "-/", Refused("`#line` is always applied to diagnostics")),
    o!("auto-binding-space", Separate, "-/", Honoured("the descriptor set of resources the source gives none")),
    o!("exports", Separate, "-/", Refused("renaming library exports is not implemented")),
    o!("export-shaders-only", Flag, "-/", Refused("library linkage control is not implemented")),
    o!("default-linkage", Separate, "-/", Refused("library linkage control is not implemented")),
    o!("precise-output", Separate, "-/", Refused("marking an output semantic precise from the command line is not implemented; write `precise` in the source")),
    o!("encoding", Separate, "-/", Honoured("`utf8`, the only encoding OneShader reads and writes; other values are refused")),
    o!("validator-version", Separate, "-/", NoEffect("the DXIL validator's version; OneShader's output is verified by its own rules either way")),
    o!("print-before-all", Flag, "-/", Refused(PRINT_PASSES)),
    o!("print-before", Separate, "-/", Refused(PRINT_PASSES)),
    o!("print-after-all", Flag, "-/", Refused(PRINT_PASSES)),
    o!("print-after", Separate, "-/", Refused(PRINT_PASSES)),
    o!("ignore-opt-semdefs", Flag, "-/", Refused("semantic defines are not implemented")),
    o!("ignore-semdef", Separate, "-/", Refused("semantic defines are not implemented")),
    o!("override-semdef", Separate, "-/", Refused("semantic defines are not implemented")),
    o!("force-zero-store-lifetimes", Flag, "-/", NoEffect("DXIL lifetime intrinsics; the SPIR-V, GLSL, WGSL and MSL outputs have none")),
    o!("enable-lifetime-markers", Flag, "-/", NoEffect("DXIL lifetime intrinsics; the SPIR-V, GLSL, WGSL and MSL outputs have none")),
    o!("disable-lifetime-markers", Flag, "-/", NoEffect("DXIL lifetime intrinsics; the SPIR-V, GLSL, WGSL and MSL outputs have none")),
    o!("enable-payload-qualifiers", Flag, "-/", Refused("ray-tracing payload access qualifiers are not supported")),
    o!("disable-payload-qualifiers", Flag, "-/", Refused("ray-tracing payload access qualifiers are not supported")),
    o!("disable-exception-handling", Flag, "-/", NoEffect("DXC's handling of its own crashes; OneShader reports every failure as a diagnostic")),
    o!("skip-serialization", Flag, "-/", Refused("an option of DXC's API (a module instead of bytes)")),
    o!("metal", Flag, "-", Refused("DXC's metallib output through the Metal shader converter is not produced; `--target msl` writes Metal Shading Language")),
    o!("spirv", Flag, "-", Honoured("SPIR-V output (the default target)")),
    o!("fvk-stage-io-order=", Joined, "-", Refused("stage variables are numbered in declaration order; the alphabetical order is not implemented")),
    o!("fvk-b-shift", Multi(2), "-", Honoured("add N to the binding numbers of `b` registers in SPACE (or `all`)")),
    o!("fvk-t-shift", Multi(2), "-", Honoured("add N to the binding numbers of `t` registers in SPACE (or `all`)")),
    o!("fvk-s-shift", Multi(2), "-", Honoured("add N to the binding numbers of `s` registers in SPACE (or `all`)")),
    o!("fvk-u-shift", Multi(2), "-", Honoured("add N to the binding numbers of `u` registers in SPACE (or `all`)")),
    o!("fvk-bind-globals", Multi(2), "-", Honoured("binding and set of `$Globals`")),
    o!("fvk-bind-register", Multi(4), "-", Honoured("set and binding of one register; then every resource needs one (OSH1031)")),
    o!("vkbr", Multi(4), "-", Honoured("`-fvk-bind-register`")),
    o!("fvk-invert-y", Flag, "-", Honoured("negate `SV_Position.y` in vertex shaders")),
    o!("fvk-use-dx-position-w", Flag, "-", Honoured("`SV_Position.w` is `1 / w` in pixel shaders")),
    o!("fvk-support-nonzero-base-instance", Flag, "-", Honoured("a vertex shader's `SV_InstanceID` is `InstanceIndex - BaseInstance` (without it, `InstanceIndex`)")),
    o!("fvk-support-nonzero-base-vertex", Flag, "-", Honoured("a vertex shader's `SV_VertexID` is `VertexIndex - BaseVertex` (without it, `VertexIndex`)")),
    o!("fvk-use-gl-layout", Flag, "-", Honoured("std140/std430 buffer layout")),
    o!("fvk-use-dx-layout", Flag, "-", Honoured("D3D buffer layout")),
    o!("fvk-use-scalar-layout", Flag, "-", Honoured("scalar buffer layout")),
    o!("fspv-use-legacy-buffer-matrix-order", Flag, "-", Refused("the legacy matrix order of raw-buffer loads is not implemented")),
    o!("fspv-reflect", Flag, "-", Honoured("the SPIR-V output carries DXC's reflection decorations: `UserSemantic` on stage variables, `UserTypeGOOGLE` on bound resources, `CounterBuffer` on buffers with counters (SPV_GOOGLE_hlsl_functionality1, SPV_GOOGLE_user_type); refused for text targets")),
    o!("fspv-debug=", Joined, "-", Honoured("`line`: as `-Zi`; `vulkan`: NonSemantic.Shader.DebugInfo.100 (compilation unit, sources, types, functions, scopes, `DebugLine`, local variables, entry points) instead of `OpLine`; `vulkan-with-source`: the same with each file's text in its `DebugSource`; `rich`: OpenCL.DebugInfo.100 (compilation unit, sources, types, functions, scopes, local and global variables) beside `OpLine`s as `-Zi`; `rich-with-source`: the same with each file's text in its `DebugSource`; GLSL: `#line` directives as `-Zi`, WGSL and MSL: `// file:line` comments; every other category (`file`, `vulkan-with-source-test`...) is refused with DEBUG_INFO's reason")),
    o!("fspv-extension=", Joined, "-", Honoured("once per extension: the only extensions the SPIR-V may declare (`KHR`: every `SPV_KHR_*`); a module needing another is refused with OSB0015 naming it, except where SPIR-V has another form: storage buffers before SPIR-V 1.3 without `SPV_KHR_storage_buffer_storage_class` are `Uniform` + `BufferBlock` (as DXC writes them), compute derivatives take `SPV_KHR_compute_shader_derivatives` when only it is permitted")),
    o!("fspv-target-env=", Joined, "-", Honoured("the target environment (vulkan1.0..vulkan1.3, vulkan1.1spirv1.4, universal1.0..1.6)")),
    o!("fspv-flatten-resource-arrays", Flag, "-", Honoured("each element of a resource array its own binding; a run-time index becomes a switch over the elements, as in DXC")),
    o!("fspv-reduce-load-size", Flag, "-", NoEffect("a spirv-opt rewrite that keeps every loaded value the same")),
    o!("fspv-fix-func-call-arguments", Flag, "-", NoEffect("OneShader passes every call argument as the function declares it")),
    o!("fspv-entrypoint-name=", Joined, "-", Honoured("the `OpEntryPoint` name (SPIR-V output; other targets and `lib_*` profiles refuse it)")),
    o!("fspv-enable-maximal-reconvergence", Flag, "-", Refused("the MaximallyReconvergesKHR execution mode is not emitted")),
    o!("fspv-use-vulkan-memory-model", Flag, "-", Refused("the Vulkan memory model is not emitted")),
    o!("fspv-use-unknown-image-format", Flag, "-", Honoured("storage textures and texel buffers without `[[vk::image_format]]` keep the Unknown format instead of the inferred one")),
    o!("fvk-auto-shift-bindings", Flag, "-", Honoured("resources without a `register` start at their class's `-fvk-*-shift`")),
    o!("Wno-vk-ignored-features", Joined, "-", NoEffect(WARNINGS)),
    o!("Wno-vk-emulated-features", Joined, "-", NoEffect(WARNINGS)),
    o!("fspv-print-all", Flag, "-", Refused(PRINT_PASSES)),
    o!("fspv-use-emulated-heap", Flag, "-", NoEffect("selects DXC's default heap emulation (a runtime array per resource type at the heap's binding), the only one OneShader has")),
    o!("fspv-use-descriptor-heap", Flag, "-", Refused("VK_EXT_descriptor_heap's untyped heaps are not implemented; heaps are emulated (`-fspv-use-emulated-heap`)")),
    o!("Oconfig=", CommaJoined, "-", NoEffect("a spirv-opt recipe: its passes keep what the shader computes; OneShader runs its own `-O` pipeline instead")),
    o!("fspv-preserve-bindings", Flag, "-", Honoured("keep every declared resource, used or not")),
    o!("fspv-preserve-interface", Flag, "-", Honoured("the SPIR-V entry point lists every stage variable, used or not (one entry point)")),
    o!("fspv-max-id", Multi(1), "-", Refused("an id bound other than SPIR-V's 0x3FFFFF is not implemented")),
    o!("fvk-bind-resource-heap", Multi(2), "-", Honoured("binding and set of `ResourceDescriptorHeap` (every view of it)")),
    o!("fvk-bind-sampler-heap", Multi(2), "-", Honoured("binding and set of `SamplerDescriptorHeap`")),
    o!("fvk-bind-counter-heap", Multi(2), "-", Honoured("binding and set of the counters of the buffers of `ResourceDescriptorHeap`")),
    o!("T", JoinedOrSeparate, "-/", Honoured("the profile: `vs`, `ps`, `cs`, `gs`, `hs`, `ds`, `ms`, `as` or `lib`")),
    o!("E", JoinedOrSeparate, "-/", Honoured("the entry point (default `main`)")),
    o!("Vi", Flag, "-/", Refused("the include tree is not printed; `-MD`/`-MF` write the included files")),
    o!("Od", Flag, "-/", Honoured("no optimizer (`-O0`)")),
    o!("WX", Flag, "-/", Honoured("a warning fails the compilation (exit 1)")),
    o!("Vd", Flag, "-/", NoEffect("turns off DXC's validator; OneShader's verifier and legalization run either way and change nothing in a valid module")),
    o!("Zi", Flag, "-/", Honoured("SPIR-V line information: `OpSource` (HLSL, file name), `OpString` per file, `OpLine`/`OpNoLine` from the IR's positions; GLSL: `#line N \"file\"` directives; WGSL and MSL: a `// file:line` comment before each statement of a new line; `--target ir`/`osir`/`reflection` refused (the positions are in the `.osir` source map)")),
    o!("Zs", Flag, "-/", Refused(DEBUG_INFO)),
    o!("recompile", Flag, "-/", Refused(DXIL)),
    o!("Zpr", Flag, "-/", Honoured("row-major matrices by default")),
    o!("Zpc", Flag, "-/", Honoured("column-major matrices by default")),
    o!("Zss", Flag, "-/", NoEffect("the hash DXC stores in a DXIL container; the outputs have none")),
    o!("Zsb", Flag, "-/", NoEffect("the hash DXC stores in a DXIL container; the outputs have none")),
    o!("Gfa", Flag, "-/", Refused("fxc's flow-control preferences are not implemented")),
    o!("Gfp", Flag, "-/", Refused("fxc's flow-control preferences are not implemented")),
    o!("Gec", Flag, "-/", Refused("fxc's backward-compatibility mode is not implemented")),
    o!("Ges", Flag, "-/", Refused("fxc's strict mode is not implemented")),
    o!("Gis", Flag, "-/", NoEffect("IEEE strictness: OneShader makes no float transformation IEEE forbids")),
    o!("denorm", JoinedOrSeparate, "-/", Honoured("`any`, `preserve` or `ftz`: the 32-bit denormal execution mode")),
    o!("Fo", JoinedOrSeparate, "-/", Honoured("the output file")),
    o!("Fc", JoinedOrSeparate, "-/", Honoured("write the SPIR-V disassembly to FILE (SPIR-V output; with `-Fh`/`-Fc` and no `-Fo` only these are written, as DXC)")),
    o!("Fh", JoinedOrSeparate, "-/", Honoured("write a C header holding the SPIR-V as DXC writes it: the disassembly under `#if 0`, then `const unsigned char NAME[]` (CRLF lines, 12 bytes a line)")),
    o!("Fe", JoinedOrSeparate, "-/", Refused("diagnostics are written to standard error only")),
    o!("Fd", JoinedOrSeparate, "-/", Refused(DEBUG_INFO)),
    o!("Fre", Separate, "-/", Honoured("write the reflection to FILE, as `--reflect`: OneShader's reflection JSON (docs/reflection.md), not DXC's DXIL reflection part")),
    o!("Frs", Separate, "-/", Refused(ROOTSIG)),
    o!("Fsh", Separate, "-/", Refused(DXIL)),
    o!("Fi", JoinedOrSeparate, "-/", Honoured("the file `-P` writes (without `-P` it is refused: nothing would be written)")),
    o!("Vn", JoinedOrSeparate, "-/", Honoured("the array's name in the `-Fh` header (default `g_` and the `-E` entry point)")),
    o!("Cc", Flag, "-/", NoEffect("colours an assembly listing; listings are plain text either way")),
    o!("Ni", Flag, "-/", Refused("instruction numbers in listings are not implemented")),
    o!("No", Flag, "-/", Refused("byte offsets in listings are not implemented")),
    o!("Lx", Flag, "-/", Refused("hexadecimal literals in listings are not implemented")),
    o!("P", Flag, "-/", Honoured("preprocess only, to `-Fi FILE` or the input with `.i` (the text `oneshader preprocess` prints, without `#line` markers); an output option beside it is refused, where DXC ignores it")),
    o!("Po", Flag, "-/", Refused("use `oneshader preprocess FILE`")),
    o!("dumpbin", Flag, "-/", Refused(DXIL)),
    o!("link", Flag, "-/", Refused("use `oneshader link`")),
    o!("Qstrip_reflect", Flag, "-/", NoEffect("strips DXIL reflection data, which no output has; it does not remove what `-fspv-reflect` adds (DXC's SPIR-V output ignores it too)")),
    o!("Qstrip_debug", Flag, "-/", Honoured("leave out the debug instructions: `OpName`/`OpMemberName` (as `--no-names`) and the debug information of `-Zi` and `-fspv-debug=`")),
    o!("Qembed_debug", Flag, "-/", Honoured("with `-Zi`: the main file's text in `OpSource` (`OpSourceContinued` past the string limit); with `-fspv-debug=vulkan` as `vulkan-with-source`, with `-fspv-debug=rich` as `rich-with-source`; without any of them refused, as DXC refuses it")),
    o!("Qstrip_priv", Flag, "-/", NoEffect("the outputs carry no private data (`-setprivate` is refused)")),
    o!("Qsource_in_debug_module", Flag, "-/", Refused(DEBUG_INFO)),
    o!("Qpdb_in_private", Flag, "-/", Refused(DEBUG_INFO)),
    o!("Qstrip_rootsignature", Flag, "-/", NoEffect("the outputs carry no root signature")),
    o!("setrootsignature", JoinedOrSeparate, "-/", Refused(ROOTSIG)),
    o!("extractrootsignature", Flag, "-/", Refused(ROOTSIG)),
    o!("verifyrootsignature", JoinedOrSeparate, "-/", Refused(ROOTSIG)),
    o!("force-rootsig-ver", JoinedOrSeparate, "-/", NoEffect(ROOTSIG)),
    o!("force_rootsig_ver", JoinedOrSeparate, "-/", NoEffect(ROOTSIG)),
    o!("Qkeep_reflect_in_dxil", Flag, "-/", NoEffect(DXIL)),
    o!("Qstrip_reflect_from_dxil", Flag, "-/", NoEffect(DXIL)),
    o!("res-may-alias", Flag, "-/", Refused("declaring that resources may alias (the `Aliased` decoration) is not implemented")),
    o!("res_may_alias", Flag, "-/", Refused("declaring that resources may alias (the `Aliased` decoration) is not implemented")),
    o!("all-resources-bound", Flag, "-/", NoEffect("a DXIL flag for the driver; DXC's SPIR-V output does not change with it either")),
    o!("all_resources_bound", Flag, "-/", NoEffect("a DXIL flag for the driver; DXC's SPIR-V output does not change with it either")),
    o!("setprivate", JoinedOrSeparate, "-/", Refused(DXIL)),
    o!("getprivate", JoinedOrSeparate, "-/", Refused(DXIL)),
    o!("nologo", Flag, "-/", NoEffect("OneShader prints no banner")),
    o!("unchanged", Flag, "-/", Refused(REWRITER)),
    o!("skip-fn-body", Flag, "-/", Refused(REWRITER)),
    o!("skip-static", Flag, "-/", Refused(REWRITER)),
    o!("global-extern-by-default", Flag, "-/", Refused(REWRITER)),
    o!("keep-user-macro", Flag, "-/", Refused(REWRITER)),
    o!("extract-entry-uniforms", Flag, "-/", Refused(REWRITER)),
    o!("remove-unused-globals", Flag, "-/", Refused(REWRITER)),
    o!("remove-unused-functions", Flag, "-/", Refused(REWRITER)),
    o!("line-directive", Flag, "-/", Refused(REWRITER)),
    o!("decl-global-cb", Flag, "-/", Refused(REWRITER)),
    // OneShader's own.
    own!("o", Separate, "-", "the output file (`-Fo`)"),
    own!("U", JoinedOrSeparate, "-", "undefine a macro (applied in order with `-D`)"),
    own!("h", Flag, "-", "print the usage and exit"),
    own!("O", Flag, "-", "the optimizer"),
    own!("target", Separate, "--", "what to write: spirv, spirv-asm, glsl, wgsl, msl, ir, osir, reflection"),
    own!("target-env", Separate, "--", "`-fspv-target-env`"),
    own!("reflect", Separate, "--", "write the reflection JSON (docs/reflection.md)"),
    own!("msl-binding-map", Separate, "--", "MSL resource indices from a JSON file (docs/msl-backend.md)"),
    own!("wgsl-binding-map", Separate, "--", "WGSL resource groups and bindings from a JSON file (docs/wgsl-backend.md)"),
    own!("msl-version", Separate, "--", "the MSL version: 2.1, 2.2, 2.3, 2.4, 3.0"),
    own!("msl-buffer-sizes-index", Separate, "--", "the `[[buffer(N)]]` of the MSL buffer-sizes buffer"),
    own!("spec-const", Separate, "--", "fold a spec constant's value in: ID=VALUE or NAME=VALUE"),
    own!("no-names", Flag, "--", "leave out `OpName`/`OpMemberName`"),
];
