//! Cache keys: the hash of everything that can change what a compilation produces.
//!
//! A compilation's output is decided by its input text and its settings, and by the compiler
//! itself. Two keys describe it:
//!
//! - the **module key** ([`module_key`]) covers the front end's whole input and every setting
//!   up to the optimized module: the text of every file the preprocessor read (the main file,
//!   each `#include` and the `<command line>` macro file, in reading order), the preprocessed
//!   token stream and its `#pragma`s (which also catches what a path or a built-in macro such
//!   as `__FILE__` put into the tokens), the entry point and profile, `-D`/`-U`, the language
//!   and binding options, the buffer layout (the front end reads it too), the optimization level, the spec-constant values, and the [`compiler_identity`].
//!   It is the key an `.osir` file carries (docs/osir.md) and the key under which a build cache
//!   stores the module after `-O`;
//! - an **output key** ([`output_key`]) adds one target and the settings only that target
//!   reads (the SPIR-V target environment, the buffer layout, debug names, the denormal mode).
//!
//! Neither ever includes a path, a modification time or the host: the same inputs give the
//! same keys on every machine, so a cache can be shared. Every file's full text is hashed, not
//! only its tokens, so an edit anywhere in an included file (a comment too) changes the key:
//! diagnostics replayed from a cache then point at the right lines.
//!
//! Each part is tagged and length-prefixed before it is hashed (XXH3-128), so moving bytes
//! from one part to the next changes the key.

use oneshader_frontends::hlsl::{MacroOp, Preprocessed, TokenKind};
use oneshader_ir::diag::SourceMap;

pub use oneshader_serialize::CacheKey;

use crate::compiler::{CompileOptions, SpecConstKey, SpecValue};

/// The compiler's version (`CARGO_PKG_VERSION`).
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The compiler's build identity: a hash of the compiler's source, its dependency versions,
/// the `rustc` version and the target, computed when the library is built (build.rs).
pub const BUILD_ID: &str = env!("ONESHADER_BUILD_ID");

/// The identity every key includes: version, build identity, and whether debug assertions
/// are on (a debug build checks more and may refuse what a release build accepts).
pub fn compiler_identity() -> String {
    format!(
        "oneshader {COMPILER_VERSION} build {BUILD_ID}{}",
        if cfg!(debug_assertions) { " debug" } else { "" }
    )
}

/// A streaming key builder: tagged, length-prefixed parts hashed with XXH3-128.
struct KeyHasher(xxhash_rust::xxh3::Xxh3);

impl KeyHasher {
    fn new() -> KeyHasher {
        KeyHasher(xxhash_rust::xxh3::Xxh3::new())
    }

    fn part(&mut self, tag: u8, bytes: &[u8]) {
        self.0.update(&[tag]);
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn finish(&self) -> CacheKey {
        CacheKey(self.0.digest128().to_le_bytes())
    }
}

/// The preprocessor's part of a key (see the module documentation): every file's text in
/// reading order, then the token stream and the pragmas. Shared by the variants of one
/// preprocessed file; [`module_key`] adds the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceDigest(pub [u8; 16]);

impl SourceDigest {
    /// The digest of a preprocessing run and the source map it filled.
    pub fn new(pre: &Preprocessed, sources: &SourceMap) -> SourceDigest {
        let mut h = KeyHasher::new();
        h.part(b'n', &(sources.len() as u64).to_le_bytes());
        for i in 0..sources.len() {
            let text = sources.text(oneshader_ir::diag::FileId(i as u32));
            h.part(b'f', text.as_bytes());
        }
        // The tokens as one buffer: kind, then the text length-prefixed.
        let mut buf = Vec::with_capacity(pre.tokens.len() * 8);
        for t in &pre.tokens {
            buf.push(token_kind_byte(t.kind));
            buf.extend_from_slice(&(t.text.len() as u32).to_le_bytes());
            buf.extend_from_slice(t.text.as_bytes());
        }
        h.part(b't', &buf);
        for p in &pre.pragmas {
            h.part(b'p', &(p.position as u64).to_le_bytes());
            for t in &p.tokens {
                h.part(b'q', t.text.as_bytes());
            }
        }
        SourceDigest(h.finish().0)
    }
}

fn token_kind_byte(k: TokenKind) -> u8 {
    match k {
        TokenKind::Ident => 0,
        TokenKind::Number => 1,
        TokenKind::String => 2,
        TokenKind::Char => 3,
        TokenKind::Punct => 4,
        TokenKind::Other => 5,
    }
}

/// The module key of a compilation: the preprocessed input ([`SourceDigest`]), every option
/// that reaches the module after `-O`, and `identity` (normally [`compiler_identity`]).
pub fn module_key(source: SourceDigest, opts: &CompileOptions, identity: &str) -> CacheKey {
    let mut h = KeyHasher::new();
    h.part(b'v', identity.as_bytes());
    h.part(b's', &source.0);
    h.part(b'o', module_options(opts).as_bytes());
    h.finish()
}

/// A key of every option of `opts` that can change what a compilation produces (the module,
/// each target's output, what is kept): [`CompileOptions::cache_key`].
pub fn options_key(opts: &CompileOptions) -> CacheKey {
    let mut h = KeyHasher::new();
    h.part(b'o', module_options(opts).as_bytes());
    for d in &opts.include_dirs {
        h.part(b'I', d.to_string_lossy().as_bytes());
    }
    h.part(b't', format!("{:?}", opts.target).as_bytes());
    h.part(b's', spirv_options_text(opts).as_bytes());
    h.part(b'g', glsl_options_text(opts).as_bytes());
    h.part(b'w', wgsl_options_text(opts).as_bytes());
    h.part(b'm', msl_options_text(opts).as_bytes());
    h.part(
        b'k',
        format!(
            "emit={};reflect={};unopt={};final={}",
            opts.emit_spirv, opts.reflect, opts.keep_unoptimized_ir, opts.keep_final_ir
        )
        .as_bytes(),
    );
    h.finish()
}

/// An output key: the module key, the target's name and the settings only that target reads
/// (`target_options`, e.g. [`spirv_options_text`]).
pub fn output_key(module: CacheKey, target: &str, target_options: &str) -> CacheKey {
    let mut h = KeyHasher::new();
    h.part(b'm', &module.0);
    h.part(b'T', target.as_bytes());
    h.part(b'O', target_options.as_bytes());
    h.finish()
}

/// The options that decide the module after `-O`, as canonical text. Every field of
/// [`CompileOptions`] is named here, so a new one cannot be forgotten: it goes into this
/// text, into [`spirv_options_text`], or is said not to change any output.
pub fn module_options(opts: &CompileOptions) -> String {
    let CompileOptions {
        entry,
        profile,
        macros,
        // Paths: which files they find is covered by the files' text and the tokens.
        include_dirs: _,
        opt_level,
        // The SPIR-V backend's settings: in the output keys.
        target_env: _,
        debug_names: _,
        debug_info: _,
        denorm: _,
        spirv_entry_point_name: _,
        spirv_allowed_extensions: _,
        spirv_preserve_interface: _,
        spirv_reflect: _,
        // Read by the front end (D3D packing) and by the backend: in both keys.
        layout,
        matrix_order,
        enable_16bit_types,
        hlsl_version,
        invert_y,
        dx_position_w,
        nonzero_base_instance,
        nonzero_base_vertex,
        binding_shifts,
        default_space,
        bind_registers,
        bind_globals,
        bind_resource_heap,
        bind_sampler_heap,
        bind_counter_heap,
        preserve_bindings,
        unknown_image_format,
        auto_shift_bindings,
        flatten_resource_arrays,
        spec_constants,
        // What to keep or produce, not how (the backend runs after the module is final; the
        // output key names the target).
        target: _,
        // The MSL binding map decides MSL indices only (the MSL output), never the module.
        #[cfg(feature = "msl")]
            msl_binding_map: _,
        // The WGSL binding map decides WGSL places only (the WGSL output and the
        // reflection's `wgsl` places): in those output keys.
        wgsl_binding_map: _,
        #[cfg(feature = "msl")]
            msl_version: _,
        #[cfg(feature = "msl")]
            msl_buffer_sizes_index: _,
        emit_spirv: _,
        reflect: _,
        keep_unoptimized_ir: _,
        keep_final_ir: _,
    } = opts;
    let mut s = String::new();
    use std::fmt::Write as _;
    let _ = write!(
        s,
        "entry={entry:?};profile={profile:?};opt={opt_level:?};major={matrix_order:?};\
         16bit={enable_16bit_types};hv={hlsl_version};invert_y={invert_y};\
         dx_position_w={dx_position_w};base_instance={nonzero_base_instance};\
         base_vertex={nonzero_base_vertex};layout={layout:?};space={default_space:?};\
         globals={bind_globals:?};heaps={bind_resource_heap:?},{bind_sampler_heap:?},\
         {bind_counter_heap:?};\
         preserve={preserve_bindings};\
         unknown_format={unknown_image_format};auto_shift={auto_shift_bindings};\
         flatten={flatten_resource_arrays};"
    );
    for r in bind_registers {
        let _ = write!(s, "bind={r:?};");
    }
    for m in macros {
        match m {
            MacroOp::Define(d) => {
                let _ = write!(s, "D{d:?};");
            }
            MacroOp::Undef(u) => {
                let _ = write!(s, "U{u:?};");
            }
        }
    }
    for b in binding_shifts {
        let _ = write!(s, "shift={}:{}:{:?};", b.class, b.shift, b.space);
    }
    for (constant, value) in spec_constants {
        let c = match constant {
            SpecConstKey::Id(id) => format!("#{id}"),
            SpecConstKey::Name(n) => format!("{n:?}"),
        };
        let v = match value {
            SpecValue::Bool(b) => format!("bool {b}"),
            SpecValue::Int(i) => format!("int {i}"),
            SpecValue::Float(f) => format!("float {:016x}", f.to_bits()),
            SpecValue::Bits(b) => format!("bits {b:016x}"),
        };
        let _ = write!(s, "spec {c}={v};");
    }
    s
}

/// The settings the SPIR-V targets (`spirv`, `spirv-asm`) read, as canonical text.
pub fn spirv_options_text(opts: &CompileOptions) -> String {
    let mut s = format!(
        "env={:?};layout={:?};names={};denorm={:?};entry_name={:?};debug={:?};extensions={:?};\
         preserve_interface={}",
        opts.target_env,
        opts.layout,
        opts.debug_names,
        opts.denorm,
        opts.spirv_entry_point_name,
        opts.debug_info,
        opts.spirv_allowed_extensions,
        opts.spirv_preserve_interface
    );
    // Named only when asked, so the keys without the decorations stay as they were.
    if opts.spirv_reflect {
        s.push_str(";reflect=true");
    }
    s
}

/// The settings the GLSL target reads: the buffer layouts it states and the denormal mode.
pub fn glsl_options_text(opts: &CompileOptions) -> String {
    let mut s = format!("layout={:?};denorm={:?}", opts.layout, opts.denorm);
    // `#line` directives; named only when asked, so the keys without them stay as they were.
    if opts.debug_info != crate::DebugInfo::None {
        s.push_str(&format!(";lines={:?}", opts.debug_info));
    }
    s
}

/// The settings the WGSL target reads: the buffer layouts it states and the binding map.
pub fn wgsl_options_text(opts: &CompileOptions) -> String {
    let map = opts.wgsl_binding_map.as_ref().map(|m| m.entries());
    format!("layout={:?};map={map:?}", opts.layout)
}

/// The settings the MSL target reads: the buffer layouts it states, the binding map, the
/// language version and the buffer-sizes index.
/// Without the MSL backend (cargo feature `msl`), the layout alone: no MSL output is made.
pub fn msl_options_text(opts: &CompileOptions) -> String {
    #[cfg(feature = "msl")]
    {
        let map = opts.msl_binding_map.as_ref().map(|m| m.entries());
        format!(
            "layout={:?};map={map:?};version={};sizes={}",
            opts.layout, opts.msl_version, opts.msl_buffer_sizes_index
        )
    }
    #[cfg(not(feature = "msl"))]
    format!("layout={:?}", opts.layout)
}

/// The settings output `kind` reads beyond the module, as canonical text: the part of an
/// output key ([`output_key`]) that is not the module key or the target's name. The module
/// targets (`ir`, `osir`) read none.
pub fn output_options_text(kind: crate::dxc_args::OutputKind, opts: &CompileOptions) -> String {
    use crate::dxc_args::OutputKind as K;
    match kind {
        K::Spirv | K::SpirvAsm => spirv_options_text(opts),
        K::Glsl => glsl_options_text(opts),
        K::Wgsl => wgsl_options_text(opts),
        K::Msl => msl_options_text(opts),
        K::Reflection => reflection_options_text(opts),
        K::Osir | K::Ir => String::new(),
    }
}

/// The settings the reflection reads: the buffer layout, (for the device requirements,
/// read off the SPIR-V) everything the SPIR-V targets read, and the WGSL binding map (its
/// `wgsl` places).
pub fn reflection_options_text(opts: &CompileOptions) -> String {
    let map = opts.wgsl_binding_map.as_ref().map(|m| m.entries());
    format!("{};wgsl_map={map:?}", spirv_options_text(opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_that_changes_the_module_changes_the_text() {
        let base = CompileOptions::new("ps_6_0");
        let text = module_options(&base);
        let changed = [
            base.clone().entry("other"),
            CompileOptions::new("vs_6_0"),
            base.clone().define("X", Some("1")),
            base.clone().opt_level(crate::OptLevel::O0),
            CompileOptions {
                enable_16bit_types: true,
                ..base.clone()
            },
            CompileOptions {
                hlsl_version: 2018,
                ..base.clone()
            },
            CompileOptions {
                invert_y: true,
                ..base.clone()
            },
            CompileOptions {
                dx_position_w: true,
                ..base.clone()
            },
            CompileOptions {
                matrix_order: crate::MatrixOrder::RowMajor,
                ..base.clone()
            },
            CompileOptions {
                spec_constants: vec![(SpecConstKey::Id(3), SpecValue::Int(4))],
                ..base.clone()
            },
            CompileOptions {
                layout: crate::BufferLayout::Dx,
                ..base.clone()
            },
            CompileOptions {
                preserve_bindings: true,
                ..base.clone()
            },
            CompileOptions {
                unknown_image_format: true,
                ..base.clone()
            },
            CompileOptions {
                auto_shift_bindings: true,
                ..base.clone()
            },
            CompileOptions {
                flatten_resource_arrays: true,
                ..base.clone()
            },
            CompileOptions {
                default_space: Some(2),
                ..base.clone()
            },
        ];
        for c in changed.iter() {
            assert_ne!(module_options(c), text, "{c:?}");
            assert_ne!(options_key(c), options_key(&base), "{c:?}");
        }
        // The options key also covers what only a target or the kept outputs read.
        for c in [
            base.clone().include_dir("/x"),
            base.clone().target(crate::Target::Glsl),
            base.clone().target_env(crate::TargetEnv::Vulkan1_3),
            base.clone().with_reflection(),
            CompileOptions {
                keep_final_ir: true,
                ..base.clone()
            },
            CompileOptions {
                msl_binding_map: Some({
                    let mut map = oneshader_backends::msl::BindingMap::new();
                    map.insert(oneshader_ir::Stage::Fragment, 0, 0, 3);
                    map
                }),
                ..base.clone()
            },
            CompileOptions {
                msl_version: oneshader_backends::msl::MslVersion::V2_1,
                ..base.clone()
            },
            CompileOptions {
                msl_buffer_sizes_index: 7,
                ..base.clone()
            },
        ] {
            assert_ne!(options_key(&c), options_key(&base), "{c:?}");
        }
        // The WGSL binding map: the WGSL output and the reflection's `wgsl` places.
        let wgsl_map = CompileOptions {
            wgsl_binding_map: Some(
                oneshader_backends::bindings::WgslBindingMap::from_json(
                    r#"[{"register": "t0", "group": 1, "binding": 0}]"#,
                )
                .unwrap(),
            ),
            ..base.clone()
        };
        assert_ne!(options_key(&wgsl_map), options_key(&base));
        assert_ne!(wgsl_options_text(&wgsl_map), wgsl_options_text(&base));
        assert_ne!(
            reflection_options_text(&wgsl_map),
            reflection_options_text(&base)
        );
        assert_eq!(module_options(&wgsl_map), text);
        assert_eq!(options_key(&base.clone()), options_key(&base));
        // Settings only the backends read stay out of the module key.
        let env = base.clone().target_env("vulkan1.0".parse().unwrap());
        assert_eq!(module_options(&env), text);
        assert_ne!(spirv_options_text(&env), spirv_options_text(&base));
        // Include folders are paths: they stay out.
        assert_eq!(module_options(&base.clone().include_dir("/x")), text);
    }

    #[test]
    fn keys_depend_on_every_part() {
        let opts = CompileOptions::new("ps_6_0");
        let a = SourceDigest([1; 16]);
        let b = SourceDigest([2; 16]);
        let k = module_key(a, &opts, "id1");
        assert_eq!(k, module_key(a, &opts, "id1"));
        assert_ne!(k, module_key(b, &opts, "id1"));
        assert_ne!(k, module_key(a, &opts, "id2"));
        assert_ne!(output_key(k, "spirv", "x"), output_key(k, "spirv-asm", "x"));
        assert_ne!(output_key(k, "spirv", "x"), output_key(k, "spirv", "y"));
        // Moving bytes between parts changes the key.
        assert_ne!(output_key(k, "ab", "c"), output_key(k, "a", "bc"));
    }
}
