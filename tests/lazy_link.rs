//! Linking against a library loaded lazily (only the items the link needs, through the
//! `.osir` symbol index) gives the bytes a full load gives: the linked `.osir` module and the
//! SPIR-V emitted from it. Libraries from HLSL (`lib_6_3`: functions calling each other, a
//! struct, static globals, exports nobody uses) and from IR (the examples/link library with
//! its exported generic, specialized by the shader; a library whose unused functions come
//! first and use the same types and constants as the used ones; a generated large library),
//! against shaders that use some of it or none of it, in either input order.

#[path = "../benches/support/big_library.rs"]
mod big_library;
mod support;

use oneshader::backends::{self, Target, spirv};
use oneshader::ir::Module;
use oneshader::link::{LinkInput, link_files, link_files_full};
use oneshader::passes::link::LinkOptions;
use oneshader::serialize::{IndexPolicy, LazyFile, LoadOptions, SaveOptions, save, save_with};
use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use support::assert_valid;

const LIBRARY: &str = "
struct Light { float3 dir; float power; };
static float table[4] = { 1.0, 2.0, 3.0, 4.0 };
static float gain = 1.5;
float helper(float x) { return x * gain + table[1]; }
float helper2(float x) { return helper(x) * helper(x + 1.0); }
export float shade(Light l, float3 n) { return helper(max(dot(l.dir, n), 0.0)) * l.power; }
export float twice(float x) { return helper2(x) + helper(x * 2.0); }
export float unused_a(float x) { return sin(x) * table[3] + 10.0; }
export int unused_b(int x) { return x * 3; }
";

const SHADER: &str = "
struct Light { float3 dir; float power; };
float shade(Light l, float3 n);
float twice(float x);
RWStructuredBuffer<float> data;
[numthreads(4, 1, 1)]
void main(uint id : SV_DispatchThreadID) {
    Light l;
    l.dir = float3(0.0, 0.0, 1.0);
    l.power = data[id];
    data[id] = twice(shade(l, float3(0.0, 0.6, 0.8)));
}
";

const SHADER_NOTHING: &str = "
RWStructuredBuffer<float> data;
[numthreads(4, 1, 1)]
void main(uint id : SV_DispatchThreadID) { data[id] = data[id] * 2.0; }
";

/// Unused functions before the used one, sharing its types and constants: with a full load
/// they are met first; the output must not show it.
const ORDER_TRAP: &str = r#"
func @dead1(%0: vec<f32, 4>) -> vec<f32, 4> [export("dead1(vec<f32,4>)->vec<f32,4>")] {
bb0:
  %1 = mul %0, %0 : vec<f32, 4>
  return %1
}
func @dead2(%0: f32) -> f32 {
bb0:
  %1 = add %0, f32 7.0 : f32
  %2 = mul %1, f32 3.0 : f32
  return %2
}
func @live(%0.v: vec<f32, 4>, %1.s: f32) -> f32 [export("live(vec<f32,4>,f32)->f32")] {
bb0:
  %2 = extract %0, 0 : f32
  %3 = mul %2, f32 3.0 : f32
  %4 = add %3, f32 7.0 : f32
  %5 = add %4, %1 : f32
  return %5
}
"#;

const ORDER_TRAP_SHADER: &str = r#"
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]
func @live(vec<f32, 4>, f32) -> f32 [import("live(vec<f32,4>,f32)->f32")]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = construct f32 1.0, f32 2.0, f32 3.0, f32 4.0 : vec<f32, 4>
  %1 = call @live(%0, f32 7.0) : f32
  %2 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  store %2, %1
  return
}
"#;

fn hlsl(src: &str, profile: &str, level: OptLevel) -> Module {
    let mut opts = CompileOptions::new(profile).opt_level(level);
    opts.emit_spirv = false;
    opts.keep_final_ir = true;
    let out = Compiler::new()
        .compile_source(format!("{profile}.hlsl"), src, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    out.ir.final_module.expect("kept")
}

fn ir(text: &str) -> Module {
    oneshader::ir::parse::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

fn example(name: &str) -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/link")
        .join(name);
    ir(&std::fs::read_to_string(path).expect("example exists"))
}

/// A library's `.osir` bytes, with its index.
fn library_bytes(m: &Module) -> Vec<u8> {
    let bytes = save_with(
        m,
        &SaveOptions {
            index: IndexPolicy::Always,
            ..SaveOptions::default()
        },
    )
    .expect("saves");
    assert!(LazyFile::open(&bytes).expect("opens").has_index());
    bytes
}

/// SPIR-V of a linked module.
fn spirv_of(m: &Module) -> Vec<u32> {
    let mut m = m.clone();
    let legal = backends::prepare(&mut m, Target::Spirv).expect("legal");
    let words = spirv::emit(&legal, &spirv::Options::default()).expect("emits");
    assert_valid(&words, TargetEnv::Vulkan1_2, "the linked module");
    words
}

/// Links `inputs` (shader first) both ways, in both orders, and compares the bytes. Returns
/// the lazily linked module of the first order.
fn same_both_ways(what: &str, inputs: &[Vec<u8>], emit: bool) -> Module {
    let mut first = None;
    for order in [false, true] {
        let mut list: Vec<LinkInput<'_>> = inputs.iter().map(|b| LinkInput::Osir(b)).collect();
        if order {
            list.reverse();
        }
        let opts = LinkOptions::default();
        let lazy = link_files(&list, &opts, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let full = link_files_full(&list, &opts, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            save(&lazy).expect("saves"),
            save(&full).expect("saves"),
            "{what} (reversed: {order}): the .osir bytes differ:\nlazy:\n{}\nfull:\n{}",
            oneshader::ir::print::print_module(&lazy),
            oneshader::ir::print::print_module(&full)
        );
        if emit {
            assert_eq!(
                spirv_of(&lazy),
                spirv_of(&full),
                "{what} (reversed: {order}): the SPIR-V differs"
            );
        }
        first.get_or_insert(lazy);
    }
    first.expect("linked")
}

#[test]
fn hlsl_library_links_to_the_same_bytes_lazily() {
    for level in [OptLevel::O0, OptLevel::O] {
        let lib = library_bytes(&hlsl(LIBRARY, "lib_6_3", level));
        let shader = save(&hlsl(SHADER, "cs_6_0", level)).expect("saves");
        let linked = same_both_ways(&format!("HLSL {level:?}"), &[shader, lib.clone()], true);
        let text = oneshader::ir::print::print_module(&linked);
        assert!(!text.contains("import("), "{text}");
        // The shader that uses nothing of the library.
        let nothing = save(&hlsl(SHADER_NOTHING, "cs_6_0", level)).expect("saves");
        same_both_ways(
            &format!("HLSL nothing {level:?}"),
            &[nothing, lib.clone()],
            true,
        );
        // The lazy load of the library really is partial.
        let file = LazyFile::open(&lib).expect("opens");
        let part = file
            .load(&["twice(f32)->f32"], &LoadOptions::default())
            .expect("loads");
        let whole = oneshader::serialize::load(&lib, &LoadOptions::default()).expect("loads");
        assert!(
            part.module.len() < whole.module.len(),
            "{} of {}",
            part.module.len(),
            whole.module.len()
        );
    }
}

#[test]
fn ir_library_with_a_generic_links_to_the_same_bytes_lazily() {
    let lib = library_bytes(&example("lib.ir"));
    for shader in ["shader_a.ir", "shader_b.ir"] {
        let s = save(&example(shader)).expect("saves");
        same_both_ways(shader, &[s, lib.clone()], true);
    }
    // Both shaders and the library at once.
    let a = save(&example("shader_a.ir")).expect("saves");
    let b = save(&example("shader_b.ir")).expect("saves");
    same_both_ways("both shaders", &[a, b, lib], true);
}

#[test]
fn unused_items_met_first_do_not_change_the_bytes() {
    let lib = library_bytes(&ir(ORDER_TRAP));
    let shader = save(&ir(ORDER_TRAP_SHADER)).expect("saves");
    same_both_ways("order trap", &[shader, lib], true);
}

#[test]
fn generated_library_links_to_the_same_bytes_lazily() {
    let lib_module = ir(&big_library::library_text(400));
    let lib = library_bytes(&lib_module);
    for f in [0usize, 7, 399] {
        let shader = save(&ir(&big_library::small_shader(f))).expect("saves");
        same_both_ways(&format!("generated f{f}"), &[shader, lib.clone()], true);
    }
    // The default policy indexes a library this large.
    let auto = save(&lib_module).expect("saves");
    assert!(LazyFile::open(&auto).expect("opens").has_index());
}

/// A failed link with a partial library reports what a full load reports.
#[test]
fn diagnostics_are_the_full_loads() {
    let lib = library_bytes(&example("lib.ir"));
    let shader = save(&ir(
        "func @apply(f32) -> f32 [import(\"apply(f32)->f32\")]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
         bb0:\n  %0 = call @apply(f32 1.0) : f32\n  return\n}\n",
    ))
    .expect("saves");
    let list = [LinkInput::Osir(&shader), LinkInput::Osir(&lib)];
    let opts = LinkOptions::default();
    let lazy = link_files(&list, &opts, &LoadOptions::default()).expect_err("missing");
    let full = link_files_full(&list, &opts, &LoadOptions::default()).expect_err("missing");
    assert_eq!(lazy.to_string(), full.to_string());
    assert!(lazy.to_string().contains("OSK0001"), "{lazy}");
    // A shader that exports what the library exports: the duplicate is found lazily too.
    let dup = save(&ir(
        "func @lerp3(%0: f32, %1: f32, %2: f32) -> f32 [export(\"lerp3(f32,f32,f32)->f32\")] {\n\
         bb0:\n  return %0\n}\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
         bb0:\n  return\n}\n",
    ))
    .expect("saves");
    let list = [LinkInput::Osir(&dup), LinkInput::Osir(&lib)];
    let lazy = link_files(&list, &opts, &LoadOptions::default()).expect_err("duplicate");
    assert!(lazy.to_string().contains("OSK0002"), "{lazy}");
}
