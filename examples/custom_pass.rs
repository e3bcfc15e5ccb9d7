//! A tool's own pass on a compiled shader: compile HLSL, run a pass written here on the
//! lowered module (it clamps every constant `numthreads` x size to at most 64 and reports
//! what it changed), then let the compiler finish the module as it finishes its own
//! (legalization, `-O`, SPIR-V, reflection).
//!
//! Run: `cargo run --example custom_pass`

use oneshader::ir::{Module, Op};
use oneshader::passes::manager::PassManager;
use oneshader::passes::{Pass, PassError};
use oneshader::{CompileOptions, Compiler};

/// Clamps the x size of every `numthreads` decoration to `max`.
struct ClampWorkgroup {
    max: u32,
}

impl Pass for ClampWorkgroup {
    fn name(&self) -> &'static str {
        "clamp-workgroup"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            let Some(d) = m.find_decoration(f.id(), Op::NumThreads) else {
                continue;
            };
            let x = m
                .imm_operand(d, 0)
                .ok_or_else(|| PassError::new("clamp-workgroup", "numthreads without an x size"))?;
            if x > self.max {
                // Immediates are interned constants: the decoration's operand is replaced,
                // not the constant (other uses of `u32 x` keep their value).
                let clamped = m.imm(self.max);
                m.replace_operand(d, 0, clamped);
                println!(
                    "{}: numthreads x {x} -> {}",
                    m.name(f.id()).unwrap_or("?"),
                    self.max
                );
                changed = true;
            }
        }
        Ok(changed)
    }
}

const SHADER: &str = "RWStructuredBuffer<uint> o;\n\
[numthreads(256, 1, 1)]\n\
void main(uint i : SV_DispatchThreadID) { o[i] = i * 256; }\n";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let compiler = Compiler::new();
    let opts = CompileOptions::new("cs_6_0").with_reflection();
    let lowered = compiler.compile_source(
        "kernel.hlsl",
        SHADER,
        &CompileOptions {
            keep_unoptimized_ir: true,
            ..opts.clone()
        },
    )?;
    let mut m = lowered
        .ir
        .unoptimized
        .ok_or("the lowered module was asked for")?;

    let mut pm = PassManager::new();
    pm.add(Box::new(ClampWorkgroup { max: 64 }));
    pm.run(&mut m)?;

    let out = compiler.finish_module("kernel.hlsl (clamped)", m, &opts)?;
    let reflection = out.reflection.ok_or("reflection was asked for")?;
    let size = reflection
        .entry_points
        .first()
        .and_then(|e| e.workgroup_size)
        .ok_or("a compute entry point has a workgroup size")?;
    println!("SPIR-V: {} words; workgroup size {size:?}", out.spirv.len());
    assert_eq!(size[0], 64);
    Ok(())
}
