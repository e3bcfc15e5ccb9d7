//! HLSL's `GetAttributeAtVertex(attr, vertex)` in SPIR-V through
//! `SPV_KHR_fragment_shader_barycentric` (issue 26 item 6), as DXC's
//! intrinsics.get-attribute-at-vertex.* tests state it: `OpCapability FragmentBarycentricKHR`
//! and the extension; every `nointerpolation` fragment input (read at a vertex or not) is an
//! `Input` array of 3 decorated `PerVertexKHR`, its `Location` unchanged; the call reads
//! element `vertex`, a plain read element 0; other inputs stay as they were. Both validators
//! accept the output for every Vulkan environment. An attribute that is not a
//! `nointerpolation` input, or is computed, is refused at the call. GLSL declares the inputs
//! `pervertexEXT` (GL_EXT_fragment_shader_barycentric) and glslang accepts it; WGSL and MSL
//! refuse the intrinsic by name.
//! Lavapipe has no fragment barycentrics, so nothing here executes.

mod support;

use std::collections::HashMap;

use oneshader::{CompileOptions, Compiler, Target, TargetEnv};
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Decoration, Op};
use support::assert_valid;

fn options(args: &[&str]) -> CompileOptions {
    CompileOptions::from_dxc_args(args.iter().copied())
        .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"))
}

fn spirv(src: &str, args: &[&str]) -> Vec<u32> {
    Compiler::new()
        .compile_source("bary.hlsl", src, &options(args))
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()))
        .spirv
}

/// The rendered diagnostics of a compilation that must fail.
fn refused(src: &str, opts: &CompileOptions) -> String {
    match Compiler::new().compile_source("bary.hlsl", src, opts) {
        Ok(_) => panic!("compiled:\n{src}"),
        Err(e) => e.diagnostics.render(),
    }
}

/// The module, and what the tests ask of it.
struct Spv {
    m: Module,
    by_name: HashMap<String, u32>,
    defs: HashMap<u32, Instruction>,
}

impl Spv {
    fn new(words: &[u32]) -> Spv {
        let m = rspirv::dr::load_words(words).expect("the backend's output parses");
        let mut by_name = HashMap::new();
        for i in &m.debug_names {
            if i.class.opcode == Op::Name
                && let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                    (i.operands.first(), i.operands.get(1))
            {
                by_name.insert(s.clone(), *id);
            }
        }
        let mut defs = HashMap::new();
        for i in m.types_global_values.iter() {
            if let Some(id) = i.result_id {
                defs.insert(id, i.clone());
            }
        }
        Spv { m, by_name, defs }
    }

    fn id(&self, name: &str) -> u32 {
        *self
            .by_name
            .get(name)
            .unwrap_or_else(|| panic!("no `{name}` in {:?}", self.by_name.keys()))
    }

    fn has_cap(&self, c: Capability) -> bool {
        self.m
            .capabilities
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::Capability(c)))
    }

    fn has_ext(&self, e: &str) -> bool {
        self.m
            .extensions
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::LiteralString(e.to_string())))
    }

    /// The decorations of `id` with their first literal operand, if any.
    fn decorations(&self, id: u32) -> Vec<(Decoration, Option<u32>)> {
        self.m
            .annotations
            .iter()
            .filter(|i| i.class.opcode == Op::Decorate)
            .filter(|i| i.operands.first() == Some(&Operand::IdRef(id)))
            .filter_map(|i| match (i.operands.get(1), i.operands.get(2)) {
                (Some(Operand::Decoration(d)), Some(Operand::LiteralBit32(n))) => {
                    Some((*d, Some(*n)))
                }
                (Some(Operand::Decoration(d)), None) => Some((*d, None)),
                _ => None,
            })
            .collect()
    }

    fn def(&self, id: u32) -> &Instruction {
        self.defs
            .get(&id)
            .unwrap_or_else(|| panic!("%{id} is not a global definition"))
    }

    fn id_operand(i: &Instruction, k: usize) -> u32 {
        match i.operands.get(k) {
            Some(Operand::IdRef(id)) => *id,
            other => panic!("operand {k} of {i:?} is {other:?}"),
        }
    }

    /// (storage class, pointee) of a variable's pointer type.
    fn pointee(&self, var: u32) -> (rspirv::spirv::StorageClass, u32) {
        let v = self.def(var);
        let ptr = self.def(v.result_type.expect("a typed variable"));
        assert_eq!(ptr.class.opcode, Op::TypePointer);
        let class = match ptr.operands.first() {
            Some(Operand::StorageClass(c)) => *c,
            other => panic!("{other:?}"),
        };
        (class, Self::id_operand(ptr, 1))
    }

    /// The value of a 32-bit integer constant, or None for anything else.
    fn constant(&self, id: u32) -> Option<u32> {
        let c = self.defs.get(&id)?;
        match (c.class.opcode, c.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(n))) => Some(*n),
            _ => None,
        }
    }

    /// Is `t` `OpTypeArray elem 3` of a float vector of `n` components?
    fn is_per_vertex_vec(&self, t: u32, n: u32) -> bool {
        let a = self.def(t);
        a.class.opcode == Op::TypeArray
            && self.constant(Self::id_operand(a, 1)) == Some(3)
            && self.is_vec(Self::id_operand(a, 0), n)
    }

    fn is_vec(&self, t: u32, n: u32) -> bool {
        let v = self.def(t);
        v.class.opcode == Op::TypeVector && v.operands.get(1) == Some(&Operand::LiteralBit32(n))
    }

    /// The index operands of every access chain based on `var`, constants as `Some`.
    fn chains_on(&self, var: u32) -> Vec<Vec<Option<u32>>> {
        let mut out = Vec::new();
        for f in &self.m.functions {
            for b in &f.blocks {
                for i in &b.instructions {
                    if i.class.opcode == Op::AccessChain && Self::id_operand(i, 0) == var {
                        out.push(
                            (1..i.operands.len())
                                .map(|k| self.constant(Self::id_operand(i, k)))
                                .collect(),
                        );
                    }
                }
            }
        }
        out
    }

    /// Does any instruction other than an access chain use `var` directly (a whole load)?
    fn loaded_whole(&self, var: u32) -> bool {
        self.m.functions.iter().any(|f| {
            f.blocks.iter().any(|b| {
                b.instructions.iter().any(|i| {
                    i.class.opcode == Op::Load && i.operands.first() == Some(&Operand::IdRef(var))
                })
            })
        })
    }
}

const VULKAN: [TargetEnv; 4] = [
    TargetEnv::Vulkan1_0,
    TargetEnv::Vulkan1_1,
    TargetEnv::Vulkan1_2,
    TargetEnv::Vulkan1_3,
];

/// Compiles for every Vulkan environment, asserting both validators accept each, and
/// returns the Vulkan 1.0 module.
fn valid_everywhere(src: &str, args: &[&str]) -> Spv {
    let mut first = None;
    for env in VULKAN {
        let env_flag = format!("-fspv-target-env={env}");
        let mut a: Vec<&str> = args.to_vec();
        a.push(&env_flag);
        let words = spirv(src, &a);
        assert_valid(&words, env, &format!("{args:?}"));
        first.get_or_insert(words);
    }
    Spv::new(&first.expect("four environments"))
}

/// Asserts `name` is a per-vertex input of `n`-float vectors at `location`: an `Input`
/// array of 3 decorated `PerVertexKHR`, not `Flat`.
fn assert_per_vertex(s: &Spv, name: &str, n: u32, location: u32) {
    let v = s.id(name);
    let (class, pointee) = s.pointee(v);
    assert_eq!(class, rspirv::spirv::StorageClass::Input, "{name}");
    assert!(s.is_per_vertex_vec(pointee, n), "{name}: float{n}[3]");
    let d = s.decorations(v);
    assert!(
        d.contains(&(Decoration::PerVertexKHR, None)),
        "{name}: {d:?}"
    );
    assert!(
        d.contains(&(Decoration::Location, Some(location))),
        "{name}: {d:?}"
    );
    assert!(
        !d.iter().any(|(d, _)| *d == Decoration::Flat),
        "{name}: {d:?}"
    );
}

/// Asserts `name` is a plain input of an `n`-float vector, not per vertex.
fn assert_plain(s: &Spv, name: &str, n: u32) {
    let v = s.id(name);
    let (_, pointee) = s.pointee(v);
    assert!(s.is_vec(pointee, n), "{name}: float{n}");
    assert!(
        !s.decorations(v)
            .iter()
            .any(|(d, _)| *d == Decoration::PerVertexKHR),
        "{name}"
    );
}

fn assert_extension(s: &Spv) {
    assert!(s.has_cap(Capability::FragmentBarycentricKHR));
    assert!(s.has_ext("SPV_KHR_fragment_shader_barycentric"));
}

/// n.channel: parameters; the input never passed to GetAttributeAtVertex is per vertex too;
/// the call reads element 1, plain reads and a channel of each read element 0.
const CHANNELS: &str = "\
enum VertexID { FIRST = 0, SECOND = 1, THIRD = 2 };
float3 main(float3 color0 : COLOR0,
            nointerpolation float3 color1 : COLOR1,
            nointerpolation float3 color2 : COLOR2) : SV_Target
{
    float3 vColor0 = color0;
    float3 vColor1 = color1;
    float3 vColor2 = GetAttributeAtVertex(color1, VertexID::SECOND);
    float3 vColor4 = float3(color2.y, color1.z, vColor2.y);
    return vColor0 + vColor1 + vColor2 + vColor4;
}
";

#[test]
fn nointerpolation_parameters_become_per_vertex_arrays_read_at_the_vertex() {
    for opt in ["-O0", "-O3"] {
        let s = valid_everywhere(CHANNELS, &["-T", "ps_6_1", "-E", "main", opt]);
        assert_extension(&s);
        assert_plain(&s, "in.var.COLOR0", 3);
        assert_per_vertex(&s, "in.var.COLOR1", 3, 1);
        assert_per_vertex(&s, "in.var.COLOR2", 3, 2);
        let c1 = s.chains_on(s.id("in.var.COLOR1"));
        assert!(c1.contains(&vec![Some(1)]), "{opt}: vertex 1: {c1:?}");
        assert!(
            c1.iter().any(|c| c.first() == Some(&Some(0))),
            "{opt}: plain reads take vertex 0: {c1:?}"
        );
        assert!(
            c1.iter().all(|c| matches!(c.first(), Some(Some(0 | 1)))),
            "{opt}: {c1:?}"
        );
        let c2 = s.chains_on(s.id("in.var.COLOR2"));
        assert!(
            !c2.is_empty() && c2.iter().all(|c| c.first() == Some(&Some(0))),
            "{opt}: {c2:?}"
        );
        // No whole-array load stands for a plain read.
        assert!(!s.loaded_whole(s.id("in.var.COLOR1")), "{opt}");
        assert!(!s.loaded_whole(s.id("in.var.COLOR2")), "{opt}");
    }
}

/// s.channel and s.nestedStruct: fields of an input struct, a nested struct's field.
const STRUCTS: &str = "\
struct Inner { float3 color3 : COLOR3; };
struct PSInput {
    float4 position : SV_POSITION;
    float3 color0 : COLOR0;
    nointerpolation float3 color1 : COLOR1;
    nointerpolation Inner pi : COLOR2;
};
float3 main(PSInput input) : SV_Target
{
    float3 a = input.color1;
    float3 b = GetAttributeAtVertex(input.color1, 1);
    float3 c = input.pi.color3;
    float3 d = GetAttributeAtVertex(input.pi.color3, 2);
    return a + b + c + d + input.color0;
}
";

#[test]
fn struct_fields_and_nested_struct_fields_are_read_at_the_vertex() {
    for opt in ["-O0", "-O3"] {
        let s = valid_everywhere(STRUCTS, &["-T", "ps_6_1", "-E", "main", opt]);
        assert_extension(&s);
        assert_plain(&s, "in.var.COLOR0", 3);
        assert_per_vertex(&s, "in.var.COLOR1", 3, 1);
        assert_per_vertex(&s, "in.var.COLOR3", 3, 2);
        let c1 = s.chains_on(s.id("in.var.COLOR1"));
        assert!(c1.contains(&vec![Some(1)]), "{opt}: {c1:?}");
        assert!(c1.contains(&vec![Some(0)]), "{opt}: {c1:?}");
        let c3 = s.chains_on(s.id("in.var.COLOR3"));
        assert!(c3.contains(&vec![Some(2)]), "{opt}: {c3:?}");
        assert!(c3.contains(&vec![Some(0)]), "{opt}: {c3:?}");
    }
}

/// A component of the attribute (a swizzle of one channel) read at a vertex: the vertex,
/// then the component.
#[test]
fn a_component_is_read_at_the_vertex_after_the_vertex_index() {
    let src = "float4 main(nointerpolation float4 c : C) : SV_Target {\n  return GetAttributeAtVertex(c.y, 2).xxxx + c;\n}\n";
    for opt in ["-O0", "-O3"] {
        let s = valid_everywhere(src, &["-T", "ps_6_0", "-E", "main", opt]);
        assert_per_vertex(&s, "in.var.C", 4, 0);
        let chains = s.chains_on(s.id("in.var.C"));
        assert!(
            chains.contains(&vec![Some(2), Some(1)]),
            "{opt}: {chains:?}"
        );
    }
}

/// var.idx: the vertex index computed at run time (an `int` input and a `uint` one).
#[test]
fn a_run_time_vertex_index_indexes_the_array() {
    let src = "\
struct PSInput {
  int idx: INPUT0;
  uint uidx: INPUT1;
  nointerpolation float4 fp_h: FPH;
};
float4 main(PSInput input) : SV_Target {
  float4 a = GetAttributeAtVertex(input.fp_h, input.idx);
  float4 b = GetAttributeAtVertex(input.fp_h, input.uidx);
  return a + b;
}
";
    for opt in ["-O0", "-O3"] {
        let s = valid_everywhere(src, &["-T", "ps_6_0", "-E", "main", opt]);
        assert_per_vertex(&s, "in.var.FPH", 4, 2);
        let chains = s.chains_on(s.id("in.var.FPH"));
        // Two reads at a run-time vertex; at -O0 also the plain read (vertex 0) that builds
        // the input struct.
        let runtime = chains.iter().filter(|c| c == &&vec![None]).count();
        assert_eq!(runtime, 2, "{opt}: {chains:?}");
        assert!(
            chains
                .iter()
                .all(|c| c == &vec![None] || c == &vec![Some(0)]),
            "{opt}: {chains:?}"
        );
        // The integer inputs (implicitly flat) are not per vertex: DXC loads them whole.
        let idx = s.id("in.var.INPUT0");
        let (_, t) = s.pointee(idx);
        assert_eq!(s.def(t).class.opcode, Op::TypeInt, "{opt}");
        assert!(s.loaded_whole(idx), "{opt}");
    }
}

/// n.callChain, s.funcParam: the attribute passed by value through functions at -O0 (the
/// calls are inlined for the backend to follow the copies, as for `EvaluateAttribute*`).
#[test]
fn an_attribute_passed_through_functions_is_read_at_the_vertex() {
    let src = "\
float3 func1(nointerpolation float3 c) { return GetAttributeAtVertex(c, 1) + c; }
float3 func0(nointerpolation float3 c) { return func1(c); }
struct S { float4 a : COLOR1; };
float compute(nointerpolation float4 a) { return GetAttributeAtVertex(a, 2)[0]; }
float4 main(nointerpolation float3 inputColor : COLOR, nointerpolation S s) : SV_Target {
  return float4(func0(inputColor), compute(s.a));
}
";
    for opt in ["-O0", "-O3"] {
        let s = valid_everywhere(src, &["-T", "ps_6_1", "-E", "main", opt]);
        assert_per_vertex(&s, "in.var.COLOR", 3, 0);
        assert_per_vertex(&s, "in.var.COLOR1", 4, 1);
        let c = s.chains_on(s.id("in.var.COLOR"));
        assert!(c.contains(&vec![Some(1)]), "{opt}: {c:?}");
        assert!(c.contains(&vec![Some(0)]), "{opt}: {c:?}");
        let c = s.chains_on(s.id("in.var.COLOR1"));
        assert!(
            c.iter().any(|c| c.first() == Some(&Some(2))),
            "{opt}: {c:?}"
        );
    }
}

/// Without GetAttributeAtVertex a `nointerpolation` input stays a `Flat` value.
#[test]
fn without_the_intrinsic_nointerpolation_inputs_stay_flat() {
    let src = "float4 main(nointerpolation float3 c : C) : SV_Target { return float4(c, 1); }\n";
    let s = valid_everywhere(src, &["-T", "ps_6_0", "-E", "main"]);
    assert!(!s.has_cap(Capability::FragmentBarycentricKHR));
    assert_plain(&s, "in.var.C", 3);
    assert!(
        s.decorations(s.id("in.var.C"))
            .contains(&(Decoration::Flat, None))
    );
}

#[test]
fn an_interpolated_attribute_is_refused_at_the_call() {
    let src = "float4 main(float3 a : A, nointerpolation float3 b : B) : SV_Target {\n  return float4(GetAttributeAtVertex(a, 1) + b, 1);\n}\n";
    for opt in ["-O0", "-O3"] {
        let e = refused(src, &options(&["-T", "ps_6_1", "-E", "main", opt]));
        assert!(e.contains("bary.hlsl:2:17: error[OSB0012]"), "{opt}: {e}");
        assert!(e.contains("is not `nointerpolation`"), "{opt}: {e}");
        assert!(e.contains("in.var.A"), "{opt}: {e}");
    }
}

#[test]
fn a_computed_attribute_is_refused_at_the_call() {
    let src = "float4 main(nointerpolation float3 b : B) : SV_Target {\n  return float4(GetAttributeAtVertex(b * 2, 1), 1);\n}\n";
    for opt in ["-O0", "-O3"] {
        let e = refused(src, &options(&["-T", "ps_6_1", "-E", "main", opt]));
        assert!(e.contains("bary.hlsl:2:17: error[OSB0012]"), "{opt}: {e}");
        assert!(e.contains("does not lead back"), "{opt}: {e}");
    }
}

#[test]
fn a_wrong_call_is_refused_by_the_front_end() {
    let src = "float4 main(nointerpolation float3 b : B) : SV_Target {\n  return float4(GetAttributeAtVertex(b), 1);\n}\n";
    let e = refused(src, &options(&["-T", "ps_6_1", "-E", "main"]));
    assert!(e.contains("bary.hlsl:2:17: error[OSH"), "{e}");
    assert!(e.contains("GetAttributeAtVertex"), "{e}");
}

#[test]
fn wgsl_and_msl_refuse_the_intrinsic_by_name_at_the_call() {
    let src = "float4 main(nointerpolation float3 b : B) : SV_Target {\n  return float4(GetAttributeAtVertex(b, 1), 1);\n}\n";
    for (target, code) in [(Target::Wgsl, "OSB0208"), (Target::Msl, "OSB0308")] {
        let e = refused(src, &CompileOptions::new("ps_6_1").target(target));
        assert!(
            e.contains(&format!("bary.hlsl:2:17: error[{code}]")),
            "{target}: {e}"
        );
        assert!(e.contains("attribute_at_vertex"), "{target}: {e}");
    }
}

/// GLSL: GL_EXT_fragment_shader_barycentric's `pervertexEXT` arrays of 3 (no `flat`), a
/// plain read `[0]`, the call `[vertex]` then the member and component; glslang compiles it
/// and both validators accept its SPIR-V.
fn glsl(src: &str, args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.extend(["-T", "ps_6_1", "-E", "main"]);
    let text = Compiler::new()
        .compile_source("bary.hlsl", src, &options(&a).target(Target::Glsl))
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()))
        .glsl
        .expect("GLSL asked");
    if let Err(e) =
        oneshader_test_tools::glslang_and_validate(&text, oneshader_test_tools::GlslStage::Fragment)
    {
        panic!("glslang or spirv-val rejects:\n{text}\n{e}");
    }
    text
}

#[test]
fn glsl_declares_pervertex_inputs_and_reads_them_at_the_vertex() {
    for opt in ["-O0", "-O3"] {
        let t = glsl(CHANNELS, &[opt]);
        assert!(
            t.contains("#extension GL_EXT_fragment_shader_barycentric : require"),
            "{t}"
        );
        assert!(
            t.contains("layout(location = 0) in vec3 in_var_COLOR0;"),
            "{opt}: {t}"
        );
        assert!(
            t.contains("layout(location = 1) pervertexEXT in vec3 in_var_COLOR1[3];"),
            "{opt}: {t}"
        );
        assert!(
            t.contains("layout(location = 2) pervertexEXT in vec3 in_var_COLOR2[3];"),
            "{opt}: {t}"
        );
        assert!(!t.contains("flat"), "{opt}: {t}");
        assert!(t.contains("in_var_COLOR1[1u]"), "{opt}: {t}");
        assert!(t.contains("in_var_COLOR1[0]"), "{opt}: {t}");
        let t = glsl(STRUCTS, &[opt]);
        assert!(t.contains("in_var_COLOR1[1u]"), "{opt}: {t}");
        assert!(t.contains("in_var_COLOR3[2u]"), "{opt}: {t}");
    }
    let t = glsl(
        "float4 main(nointerpolation float4 c : C, uint k : K) : SV_Target {\n  return GetAttributeAtVertex(c.y, k).xxxx + c;\n}\n",
        &[],
    );
    assert!(t.contains("in_var_C[in_var_K][1]"), "{t}");
}

#[test]
fn glsl_refuses_an_interpolated_attribute_at_the_call() {
    let src = "float4 main(float3 a : A, nointerpolation float3 b : B) : SV_Target {\n  return float4(GetAttributeAtVertex(a, 1) + b, 1);\n}\n";
    let e = refused(src, &CompileOptions::new("ps_6_1").target(Target::Glsl));
    assert!(e.contains("bary.hlsl:2:17: error[OSB0109]"), "{e}");
    assert!(e.contains("is not `nointerpolation`"), "{e}");
}
