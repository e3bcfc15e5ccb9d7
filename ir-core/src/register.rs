//! The D3D register a resource was declared at, as the HLSL front end records it (the
//! `hlsl_register` decoration): what reflection reports and what targets with their own
//! binding models (WGSL) place resources by.

use crate::module::{InstId, Module};
use crate::ops::Op;

/// A D3D register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterClass {
    /// `b`: constant buffers.
    B,
    /// `t`: shader resource views (textures, read-only buffers).
    T,
    /// `s`: samplers.
    S,
    /// `u`: unordered access views (read-write textures and buffers, counters).
    U,
}

impl RegisterClass {
    /// Its letter.
    pub fn letter(self) -> char {
        match self {
            RegisterClass::B => 'b',
            RegisterClass::T => 't',
            RegisterClass::S => 's',
            RegisterClass::U => 'u',
        }
    }

    /// The class of a letter (either case).
    pub fn from_letter(c: char) -> Option<RegisterClass> {
        match c.to_ascii_lowercase() {
            'b' => Some(RegisterClass::B),
            't' => Some(RegisterClass::T),
            's' => Some(RegisterClass::S),
            'u' => Some(RegisterClass::U),
            _ => None,
        }
    }

    /// The class of a `hlsl_register` operand (0 `b`, 1 `t`, 2 `s`, 3 `u`).
    pub fn from_index(i: u32) -> Option<RegisterClass> {
        [
            RegisterClass::B,
            RegisterClass::T,
            RegisterClass::S,
            RegisterClass::U,
        ]
        .get(i as usize)
        .copied()
    }
}

/// The register a resource global was declared at (its `hlsl_register` decoration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HlslRegister {
    /// The class: the `register` letter, else what the resource's type binds as.
    pub class: RegisterClass,
    /// The number; `None` when the source gave no `register(...)`.
    pub number: Option<u32>,
    /// The space.
    pub space: u32,
    /// The user chose the Vulkan binding (`[[vk::binding]]`, a `-fvk-*-shift`,
    /// `-fvk-bind-register`, ...) rather than DXC's default rule.
    pub chosen: bool,
}

impl HlslRegister {
    /// `t3`, or `t` without a number.
    pub fn spelling(&self) -> String {
        match self.number {
            Some(n) => format!("{}{n}", self.class.letter()),
            None => self.class.letter().to_string(),
        }
    }
}

/// The register of resource global `g`, when the HLSL front end recorded one.
pub fn hlsl_register(m: &Module, g: InstId) -> Option<HlslRegister> {
    let d = m.find_decoration(g, Op::HlslRegister)?;
    let op = |k| m.imm_operand(d, k);
    Some(HlslRegister {
        class: RegisterClass::from_index(op(0)?)?,
        number: op(1).filter(|&n| n != u32::MAX),
        space: op(2)?,
        chosen: op(3)? != 0,
    })
}
