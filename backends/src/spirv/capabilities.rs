//! Capabilities and extensions, inferred from what the emitted module uses: the emitter adds
//! a capability when it writes the first type or instruction that needs it (`Int64` with the
//! first 64-bit integer type, `ImageQuery` with the first size query, ...), and an extension
//! when the capability is not core in the target's SPIR-V version. Only what is needed is
//! declared, in a deterministic order (by number).

use std::collections::BTreeSet;

use rspirv::spirv::{self, Capability};

use super::encode::{Words, inst, inst_str};

/// The capabilities and extensions a module declares.
#[derive(Default, Debug, Clone)]
pub(crate) struct Caps {
    caps: BTreeSet<u32>,
    exts: BTreeSet<&'static str>,
}

impl Caps {
    /// Declares a capability.
    #[inline]
    pub fn add(&mut self, c: Capability) {
        self.caps.insert(c as u32);
    }

    /// True when the capability is declared.
    pub fn has(&self, c: Capability) -> bool {
        self.caps.contains(&(c as u32))
    }

    /// Declares an extension.
    pub fn ext(&mut self, e: &'static str) {
        self.exts.insert(e);
    }

    /// Declares a capability that became core in SPIR-V 1.`core_minor`, with its extension
    /// before that.
    pub fn add_ext(&mut self, c: Capability, minor: u8, core_minor: u8, e: &'static str) {
        self.add(c);
        if minor < core_minor {
            self.ext(e);
        }
    }

    /// The declared extensions, in declaration order (by name).
    pub fn extensions(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.exts.iter().copied()
    }

    /// Writes `OpCapability` and `OpExtension` instructions.
    pub fn write(&self, out: &mut Words) {
        for &c in &self.caps {
            inst(out, spirv::Op::Capability, &[c]);
        }
        for e in &self.exts {
            inst_str(out, spirv::Op::Extension, &[], e, &[]);
        }
    }
}
