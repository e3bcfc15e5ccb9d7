//! The verifier's rules for the stages beyond vertex, fragment and compute: execution-mode
//! decorations (OSV0015), what each stage may execute and which memory it has (OSV0028),
//! the opaque ray-tracing objects (OSV0029), and the shapes of the stage instructions
//! (OSV0008). Every test module parses; each rejected one breaks one rule.

use oneshader_ir::{parse::parse, print::print_module, verify::verify};

fn rejects(text: &str, code: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}\n{text}"));
    let diags = verify(&m);
    assert!(
        diags.iter().any(|d| d.code == code),
        "expected {code}, got {diags:#?}\n{}",
        print_module(&m)
    );
    let d = diags.iter().find(|d| d.code == code).unwrap();
    assert!(
        d.message.contains('`'),
        "names the construct: {}",
        d.message
    );
}

fn accepts(text: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}\n{text}"));
    let diags = verify(&m);
    assert!(diags.is_empty(), "{diags:#?}");
}

/// A geometry entry point with the given decorations and body.
fn geometry(decos: &str, body: &str) -> String {
    format!(
        "global @pos : ptr<output, vec<f32, 4>> [builtin(position)]\n\
         func @gs() -> void [entry_point(geometry, \"gs\"){decos}] {{\n\
         bb0:\n{body}  return\n}}\n"
    )
}

const GS_MODES: &str =
    ", input_primitive(triangle), output_primitive(triangle_strip), max_vertices(3)";

#[test]
fn geometry_modes_are_required_and_checked() {
    accepts(&geometry(GS_MODES, "  emit_vertex 0\n  end_primitive 0\n"));
    accepts(&geometry(&format!("{GS_MODES}, invocations(40)"), ""));
    rejects(
        &geometry(", output_primitive(triangle_strip), max_vertices(3)", ""),
        "OSV0015",
    );
    // A geometry shader emits strips, not lists.
    rejects(
        &geometry(
            ", input_primitive(triangle), output_primitive(triangle), max_vertices(3)",
            "",
        ),
        "OSV0015",
    );
    rejects(
        &geometry(
            ", input_primitive(line_strip), output_primitive(point), max_vertices(3)",
            "",
        ),
        "OSV0015",
    );
    rejects(
        &geometry(&format!("{GS_MODES}, invocations(0)"), ""),
        "OSV0015",
    );
}

#[test]
fn stage_modes_belong_to_their_stage() {
    rejects(
        "func @vs() -> void [entry_point(vertex, \"vs\"), max_vertices(3)] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    rejects(
        "func @f() -> void [tess_domain(quad)] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    // Isolines have no winding.
    rejects(
        "func @hs() -> void [entry_point(hull, \"hs\"), tess_domain(isoline), \
         output_primitive(triangle_cw), output_control_points(2)] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    rejects(
        "func @hs() -> void [entry_point(hull, \"hs\"), tess_domain(quad)] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    accepts(
        "func @hs() -> void [entry_point(hull, \"hs\"), tess_domain(quad), \
         tess_partitioning(fractional_odd), output_primitive(line), output_control_points(4)] \
         {\nbb0:\n  barrier sync\n  return\n}\n",
    );
    rejects(
        "func @ms() -> void [entry_point(mesh, \"ms\"), numthreads(1, 1, 1), \
         output_primitive(triangle_strip), max_vertices(3), max_primitives(1)] \
         {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    // One hit-attribute global per entry point (Vulkan's rule), but a library's
    // intersection shaders may each have their own.
    let two_attributes = "global @a : ptr<hit_attribute, vec<f32, 2>>\n\
         global @b : ptr<hit_attribute, vec<f32, 4>>\n\
         func @is() -> void [entry_point(intersection, \"is\")] {\nbb0:\n  \
         store @a, vec<f32, 2> {f32 1.0, f32 2.0}\n  %0 = report_hit f32 1.0, u32 0 : bool\n  \
         store @b, vec<f32, 4> {f32 1.0, f32 2.0, f32 3.0, f32 4.0}\n  \
         %1 = report_hit f32 2.0, u32 1 : bool\n  return\n}\n";
    rejects(two_attributes, "OSV0028");
    accepts(
        "global @a : ptr<hit_attribute, vec<f32, 2>>\n\
         global @b : ptr<hit_attribute, vec<f32, 4>>\n\
         func @is1() -> void [entry_point(intersection, \"is1\")] {\nbb0:\n  \
         store @a, vec<f32, 2> {f32 1.0, f32 2.0}\n  %0 = report_hit f32 1.0, u32 0 : bool\n  return\n}\n\
         func @is2() -> void [entry_point(intersection, \"is2\")] {\nbb0:\n  \
         store @b, vec<f32, 4> {f32 1.0, f32 2.0, f32 3.0, f32 4.0}\n  \
         %0 = report_hit f32 2.0, u32 1 : bool\n  return\n}\n",
    );
    // Per-vertex built-ins of the stages that see several vertices are arrays.
    rejects(
        "global @pos : ptr<input, vec<f32, 4>> [builtin(position)]\n\
         func @hs() -> void [entry_point(hull, \"hs\"), output_control_points(3)] \
         {\nbb0:\n  %0 = load @pos : vec<f32, 4>\n  return\n}\n",
        "OSV0028",
    );
    accepts(
        "global @pos : ptr<input, array<vec<f32, 4>, 3>> [builtin(position)]\n\
         func @hs() -> void [entry_point(hull, \"hs\"), output_control_points(3)] \
         {\nbb0:\n  %0 = load @pos : array<vec<f32, 4>, 3>\n  return\n}\n",
    );
    // A domain shader may repeat its hull shader's spacing and winding, with the same
    // rules; the output patch size is the hull shader's alone.
    accepts(
        "func @ds() -> void [entry_point(domain, \"ds\"), tess_domain(triangle), \
         tess_partitioning(integer), output_primitive(triangle_cw)] {\nbb0:\n  return\n}\n",
    );
    rejects(
        "func @ds() -> void [entry_point(domain, \"ds\"), tess_domain(isoline), \
         output_primitive(triangle_cw)] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
    rejects(
        "func @ds() -> void [entry_point(domain, \"ds\"), output_control_points(3)] \
         {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
}

#[test]
fn instructions_only_their_stages_have() {
    // `emit_vertex` in a function a fragment shader reaches.
    rejects(
        "func @emit() -> void {\nbb0:\n  emit_vertex 0\n  return\n}\n\
         func @ps() -> void [entry_point(fragment, \"ps\")] {\nbb0:\n  call @emit()\n  return\n}\n",
        "OSV0028",
    );
    // The same function reached only from a geometry shader is fine.
    accepts(&format!(
        "func @emit() -> void {{\nbb0:\n  emit_vertex 0\n  return\n}}\n{}",
        geometry(GS_MODES, "  call @emit()\n")
    ));
    rejects(
        "func @cs() -> void [entry_point(compute, \"cs\"), numthreads(1, 1, 1)] {\nbb0:\n  discard\n}\n",
        "OSV0028",
    );
    rejects(
        "func @vs() -> void [entry_point(vertex, \"vs\")] {\nbb0:\n  barrier sync|workgroup\n  return\n}\n",
        "OSV0028",
    );
    rejects(
        "func @miss() -> void [entry_point(miss, \"miss\")] {\nbb0:\n  ignore_hit\n}\n",
        "OSV0028",
    );
    // A function no entry point reaches (a library's) is not restricted.
    accepts("func @f() -> void {\nbb0:\n  emit_vertex 0\n  return\n}\n");
}

#[test]
fn memory_only_their_stages_have() {
    rejects(
        "global @shared : ptr<workgroup, u32>\n\
         func @ps() -> void [entry_point(fragment, \"ps\")] {\nbb0:\n  store @shared, u32 1\n  return\n}\n",
        "OSV0028",
    );
    rejects(
        "global @p : ptr<incoming_ray_payload, f32>\n\
         func @rg() -> void [entry_point(raygeneration, \"rg\")] {\nbb0:\n  store @p, f32 1.0\n  return\n}\n",
        "OSV0028",
    );
    accepts(
        "global @p : ptr<incoming_ray_payload, f32>\n\
         func @m() -> void [entry_point(miss, \"m\")] {\nbb0:\n  store @p, f32 1.0\n  return\n}\n",
    );
    // `patch` belongs on hull outputs and domain inputs.
    rejects(
        "global @o : ptr<output, vec<f32, 4>> [location(0), patch]\n\
         func @vs() -> void [entry_point(vertex, \"vs\")] {\nbb0:\n  store @o, vec<f32, 4> zero\n  return\n}\n",
        "OSV0028",
    );
    // ... and only on stage variables at all.
    rejects("global @g : ptr<private, f32> [patch]\n", "OSV0017");
}

#[test]
fn opaque_ray_tracing_objects() {
    accepts(
        "global @q : ptr<private, ray_query>\n\
         global @scene : ptr<uniform_constant, accel_struct> [binding(0, 0)]\n",
    );
    rejects(
        "global @q : ptr<storage_buffer, ray_query> [binding(0, 0)]\n",
        "OSV0029",
    );
    rejects("global @a : ptr<private, accel_struct>\n", "OSV0029");
    rejects("struct @S {\n  q: ray_query\n}\n", "OSV0029");
    rejects(
        "func @f() -> void {\nbb0:\n  %0 = var : ptr<function, ray_query>\n  %1 = load %0 : ray_query\n  return\n}\n",
        "OSV0029",
    );
}

#[test]
fn shapes_of_the_stage_instructions() {
    // The payload of `trace_ray` is a ray-payload variable, not a function one.
    rejects(
        "global @scene : ptr<uniform_constant, accel_struct> [binding(0, 0)]\n\
         func @f() -> void {\nbb0:\n  %0 = var : ptr<function, f32>\n  \
         trace_ray @scene, u32 0, u32 255, u32 0, u32 1, u32 0, vec<f32, 3> zero, f32 0.0, \
         vec<f32, 3> zero, f32 1.0, %0\n  return\n}\n",
        "OSV0008",
    );
    rejects(
        "func @f() -> void {\nbb0:\n  %0 = var : ptr<function, ray_query>\n  \
         %1 = ray_query_get committed_t, %0 : u32\n  return\n}\n",
        "OSV0008",
    );
    accepts(
        "func @f() -> void {\nbb0:\n  %0 = var : ptr<function, ray_query>\n  \
         %1 = ray_query_get committed_object_to_world, %0 : mat<f32, 4, 3>\n  return\n}\n",
    );
    rejects(
        "func @f() -> void {\nbb0:\n  set_mesh_outputs f32 1.0, u32 1\n  return\n}\n",
        "OSV0008",
    );
    rejects(
        "global @p : ptr<workgroup, u32>\n\
         func @f() -> void {\nbb0:\n  dispatch_mesh u32 1, u32 1, u32 1, @p\n}\n",
        "OSV0008",
    );
}
