//! Spec-constant specialization: overrides replace chosen spec constants, in every use.

mod common;
mod support_b;
use common::module;
use oneshader_passes::specialize_spec::{SpecValue, SpecializeSpecConstants};
use support_b::{assert_module, run_passes};

const INPUT: &str = r"
let @WIDTH = spec_const(0, u32 64)
let @SCALE = spec_const(1, f32 1.5)
let @FLAG = spec_const(2, bool false)
let @HALF = spec_const(3, f16 0x3c00)
let @SIZE = vec<u32, 2> {spec_const(0, u32 64), u32 1}

func @scaled(%x: f32, %i: u32) -> f32 {
bb0:
  %a = mul %x, @SCALE : f32
  %b = lt %i, @WIDTH : bool
  %c = select %b, %a, f32 0.0 : f32
  %d = select @FLAG, %c, %x : f32
  return %d
}
func @size() -> vec<u32, 2> {
bb0:
  return @SIZE
}
func @half() -> f16 {
bb0:
  return @HALF
}";

/// Overridden ids become literals everywhere, including inside a composite constant (which
/// is re-interned); others stay spec constants.
#[test]
fn overrides_replace_their_spec_constants() {
    let mut m = module(INPUT);
    let mut pass = SpecializeSpecConstants::new([
        (0, SpecValue::Int(128)),
        (2, SpecValue::Bool(true)),
        (3, SpecValue::Bits(0x4000)),
    ]);
    assert!(run_passes(&mut m, &mut [&mut pass]));
    assert_module(
        &m,
        r"
let @SCALE = spec_const(1, f32 1.5)
let @SIZE = vec<u32, 2> {u32 128, u32 1}

func @scaled(%x: f32, %i: u32) -> f32 {
bb0:
  %a = mul %x, @SCALE : f32
  %b = lt %i, u32 128 : bool
  %c = select %b, %a, f32 0.0 : f32
  %d = select bool true, %c, %x : f32
  return %d
}
func @size() -> vec<u32, 2> {
bb0:
  return @SIZE
}
func @half() -> f16 {
bb0:
  return f16 0x4000
}",
    );
}

#[test]
fn float_overrides() {
    let mut m = module(INPUT);
    let mut pass = SpecializeSpecConstants::default();
    pass.set(1, SpecValue::Float(0.25));
    assert!(run_passes(&mut m, &mut [&mut pass]));
    let text = format!("{m:?}");
    assert!(text.contains("%2 = mul %0, f32 0.25 : f32"), "{text}");
    assert!(!text.contains("@SCALE"), "{text}");
}

/// No overrides, or overrides of ids the module does not have: nothing changes.
#[test]
fn nothing_to_override() {
    for overrides in [vec![], vec![(9, SpecValue::Int(1))]] {
        let mut m = module(INPUT);
        let mut pass = SpecializeSpecConstants::new(overrides);
        assert!(!run_passes(&mut m, &mut [&mut pass]));
        assert_module(&m, INPUT);
    }
}

/// Values that do not fit their spec constant's type fail the pass with a message naming the
/// id and type.
#[test]
fn mismatched_values_fail() {
    let cases = [
        (0, SpecValue::Int(-1), "out of range"),
        (0, SpecValue::Int(1 << 32), "out of range"),
        (1, SpecValue::Float(0.1), "not exact"),
        (2, SpecValue::Int(1), "does not fit"),
        (0, SpecValue::Float(1.0), "does not fit"),
        (3, SpecValue::Float(1.0), "does not fit"),
    ];
    for (id, value, needle) in cases {
        let mut m = module(INPUT);
        let err = SpecializeSpecConstants::new([(id, value)])
            .run_on(&mut m)
            .expect_err("the override must be refused");
        assert!(
            err.message.contains(needle) && err.message.contains(&format!("spec constant {id}")),
            "{value:?}: {}",
            err.message
        );
    }
}

trait RunOn {
    fn run_on(&mut self, m: &mut oneshader_ir::Module)
    -> Result<bool, oneshader_passes::PassError>;
}

impl RunOn for SpecializeSpecConstants {
    fn run_on(
        &mut self,
        m: &mut oneshader_ir::Module,
    ) -> Result<bool, oneshader_passes::PassError> {
        oneshader_passes::Pass::run(self, m)
    }
}
