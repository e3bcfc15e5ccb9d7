//! Literals where DXC gives them a type from context: the 16-bit reinterpretations
//! (`asuint16(1)`, issue 26 reproducer 1) and a variable named in its own initializer
//! (reproducer 3).

mod sema_common;

use oneshader_frontends::hlsl::CompileOptions;
use sema_common::{compile_with, spirv_valid};

fn opts16() -> CompileOptions {
    CompileOptions {
        entry: "main".into(),
        profile: "cs_6_2".into(),
        enable_16bit_types: true,
        ..CompileOptions::default()
    }
}

#[test]
fn as16_of_a_literal_reinterprets_its_half() {
    // DXC's table for as*16 lists half, int16_t and uint16_t and no 32-bit type, so a literal
    // becomes `half` first: asuint16(1) is the bits of 1.0h (0x3C00), as DXC computes it.
    let src = "RWStructuredBuffer<uint16_t> o : register(u0);\n\
               [numthreads(1,1,1)] void main() { o[0] = asuint16(1); o[1] = asuint16(asfloat16(1.0)); }\n";
    let (r, out) = compile_with(src, &opts16());
    let m = r.module.unwrap_or_else(|| panic!("{out}"));
    let ir = oneshader_ir::print::print_module(&m);
    // Both stores reinterpret the half 1.0 (bits 0x3C00).
    assert_eq!(
        ir.matches("bitcast f16 0x3c00 : u16").count(),
        2,
        "both values are the bits of 1.0h:\n{ir}"
    );
}

#[test]
fn as16_of_a_32_bit_value_is_refused_as_in_dxc() {
    let src = "RWStructuredBuffer<half> o : register(u0);\n\
               [numthreads(1,1,1)] void main() { o[0] = asfloat16(uint(1)); }\n";
    let (r, out) = compile_with(src, &opts16());
    assert!(r.module.is_none(), "compiled:\n{out}");
    assert!(out.contains("asfloat16"), "{out}");
    assert!(out.contains("main.hlsl:2:"), "{out}");
}

#[test]
fn a_variable_is_in_scope_in_its_own_initializer() {
    spirv_valid(
        "RWStructuredBuffer<float> o : register(u0);\n\
         float f() { return 2.0; }\n\
         [numthreads(1,1,1)] void main() { float x = x = f(); o[0] = x; }\n",
        "cs_6_0",
    );
    // It names the new variable, not an outer one of the same name.
    let ir = sema_common::ir_text(
        "RWStructuredBuffer<float> o : register(u0);\n\
         static float x = 5.0;\n\
         [numthreads(1,1,1)] void main() { float x = (x = 3.0) + 1.0; o[0] = x; }\n",
        "cs_6_0",
    );
    assert!(ir.contains("3.0"), "{ir}");
}

#[test]
fn vk_scope_constants_have_spirv_values() {
    let ir = sema_common::ir_text(
        "RWStructuredBuffer<uint> o : register(u0);\n\
         [numthreads(1,1,1)] void main() { o[0] = vk::DeviceScope * 10 + vk::QueueFamilyScope; \
         o[1] = vk::SubgroupScope; }\n",
        "cs_6_0",
    );
    // Device = 1, QueueFamily = 5, Subgroup = 3 (SPIR-V's Scope).
    assert!(ir.contains("u32 15"), "{ir}");
    assert!(ir.contains("u32 3"), "{ir}");
}
