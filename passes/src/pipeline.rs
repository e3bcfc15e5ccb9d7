//! The registry of passes by name, and the standard pipelines (ARCHITECTURE.md §3).
//!
//! # Registering a pass
//!
//! A pass is a type implementing [`crate::Pass`]. A tool registers its own passes in a
//! [`PassRegistry`] to name them in pass lists. To make a project pass reachable by name
//! (`oneshader opt --passes`, the test harness, `--print-after`), add one entry to [`PASSES`]: its name (the
//! same string its `Pass::name` returns), a one-line description, and a constructor with
//! default options. To put it into `-O` or into legalization, add it to
//! [`optimize`] or [`legalization_passes`]. A unit test below checks that every
//! registered constructor builds a pass whose `name()` is the registered name.
//!
//! # The pipelines
//!
//! A compilation runs [`optimize`] at its level, then [`legalize`] for its target, then the
//! backend:
//!
//! - [`optimize`]`(O)`: the specializations (`specialize_generic`, `specialize_resources`:
//!   no target can pass resources by value), `inline`, `private_to_local`, then rounds of `sroa`, `mem2reg`,
//!   `combine`, `unroll`, `cse`, `dead_globals` (private and workgroup variables only), `dce`,
//!   `simplify_cfg` until a round changes nothing (at most [`MAX_ROUNDS`] rounds), then
//!   `dead_globals` (resources too). `optimize(O0)`: the specializations only.
//! - [`legalize`]`(target)`: the specializations (nothing to do after `optimize`), then the
//!   target's own passes (`own_merges`, `bool_storage`, `intrinsic_widths`, `image_widths`; `texel_buffers` for WGSL; `transpose_storage` for WGSL and MSL;
//!   `params_to_vars` for the text targets; `case_copies` for WGSL;
//!   [`crate::legalize`] has the table); afterwards
//!   [`crate::legalize::check`] accepts the module.

use crate::Pass;
use crate::manager::PassManager;

/// The most rounds of the `-O` fixed-point group.
pub const MAX_ROUNDS: usize = 8;

/// A registered pass.
pub struct PassInfo {
    /// Its name.
    pub name: &'static str,
    /// What it does, in one line.
    pub description: &'static str,
    /// Builds it with default options.
    pub make: fn() -> Box<dyn Pass>,
}

/// Every pass, by name.
pub const PASSES: &[PassInfo] = &[
    PassInfo {
        name: "specialize_generic",
        description: "clone generics for the arguments they are specialized with",
        make: || Box::new(crate::specialize_generic::SpecializeGenerics),
    },
    PassInfo {
        name: "specialize_resources",
        description: "clone functions per distinct resource argument",
        make: || Box::new(crate::specialize_resources::SpecializeResources),
    },
    PassInfo {
        name: "required_constants",
        description: "inline and unroll where Vulkan needs it at every level: interpolation of stage inputs, constant texel offsets",
        make: || Box::new(crate::required_constants::RequiredConstants),
    },
    PassInfo {
        name: "own_merges",
        description: "give selections merging into a loop's break or continue block a merge of their own",
        make: || Box::new(crate::own_merges::OwnMerges),
    },
    PassInfo {
        name: "bool_storage",
        description: "store bools in buffers and push constants as u32, converting at each access",
        make: || Box::new(crate::bool_storage::BoolStorage),
    },
    PassInfo {
        name: "intrinsic_widths",
        description: "bit intrinsics on 32-bit integers and derivatives of 32-bit floats only, as Vulkan takes them",
        make: || Box::new(crate::intrinsic_widths::IntrinsicWidths),
    },
    PassInfo {
        name: "image_widths",
        description: "textures and storage images of 16-bit elements hold 32-bit ones, converted at each read and write",
        make: || Box::new(crate::image_widths::ImageWidths),
    },
    PassInfo {
        name: "texel_buffers",
        description: "texel buffers (Buffer<T>, RWBuffer<T>) whose texels are their element's bytes become storage buffers (WGSL)",
        make: || Box::new(crate::texel_buffers::TexelBuffers),
    },
    PassInfo {
        name: "transpose_storage",
        description: "store column-major matrices in buffers and push constants as their row-major transposes (WGSL, MSL)",
        make: || Box::new(crate::transpose_storage::TransposeStorage),
    },
    PassInfo {
        name: "params_to_vars",
        description: "block parameters become function-local variables (text targets)",
        make: || Box::new(crate::params_to_vars::ParamsToVars),
    },
    PassInfo {
        name: "case_copies",
        description: "switch cases falling through get a copy of the case they fall into (WGSL)",
        make: || Box::new(crate::case_copies::CaseCopies),
    },
    PassInfo {
        name: "flatten_resource_arrays",
        description: "-fspv-flatten-resource-arrays: one resource per element of a resource array, a switch over them for a run-time index",
        make: || Box::new(crate::flatten_resource_arrays::FlattenResourceArrays::default()),
    },
    PassInfo {
        name: "specialize_spec",
        description: "replace overridden spec constants (none by default)",
        make: || Box::new(crate::specialize_spec::SpecializeSpecConstants::default()),
    },
    PassInfo {
        name: "inline",
        description: "inline calls, callees first",
        make: || Box::new(crate::inline::Inline::default()),
    },
    PassInfo {
        name: "sroa",
        description: "split struct and small-array variables into one variable per element",
        make: || Box::new(crate::sroa::Sroa),
    },
    PassInfo {
        name: "mem2reg",
        description: "promote variables to SSA values with block parameters",
        make: || Box::new(crate::mem2reg::Mem2Reg),
    },
    PassInfo {
        name: "combine",
        description: "exact constant folding and algebraic identities",
        make: || Box::new(crate::combine::Combine),
    },
    PassInfo {
        name: "unroll",
        description: "fully unroll `unroll` loops whose trip count is known",
        make: || Box::new(crate::unroll::Unroll),
    },
    PassInfo {
        name: "cse",
        description: "common-subexpression elimination along the dominator tree",
        make: || Box::new(crate::cse::Cse),
    },
    PassInfo {
        name: "dce",
        description: "dead-code elimination, including stores nobody reads",
        make: || Box::new(crate::dce::Dce),
    },
    PassInfo {
        name: "private_to_local",
        description: "a private global only one entry point uses becomes its variable",
        make: || Box::new(crate::private_to_local::PrivateToLocal),
    },
    PassInfo {
        name: "dead_globals",
        description: "remove resources and private/workgroup variables nothing uses (and the stores to those nothing reads)",
        make: || Box::new(crate::dead_globals::DeadGlobals::default()),
    },
    PassInfo {
        name: "simplify_cfg",
        description: "constant branches, unreachable blocks, straight-line merging",
        make: || Box::new(crate::simplify_cfg::SimplifyCfg),
    },
];

/// The pass registered as `name`, with default options.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    PASSES.iter().find(|p| p.name == name).map(|p| (p.make)())
}

/// The registered names, in registry order.
pub fn pass_names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).collect()
}

/// Why a pass list could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pass `{name}` (known: {known})")]
pub struct UnknownPass {
    /// The unknown name.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

/// A pass manager running the comma-separated `list` of project passes in order
/// (`"inline,sroa,mem2reg"`); [`PassRegistry`] adds a tool's own.
pub fn pipeline_from_list(list: &str) -> Result<PassManager, UnknownPass> {
    PassRegistry::new().pipeline_from_list(list)
}

/// Passes by name: the registered ones ([`PASSES`]) and those a tool adds, so that its own
/// passes can be named in a pass list (`"inline, my-pass, dce"`) like the project's.
///
/// ```
/// use oneshader_passes::pipeline::PassRegistry;
/// use oneshader_passes::{Pass, PassError};
///
/// struct Nothing;
/// impl Pass for Nothing {
///     fn name(&self) -> &'static str {
///         "nothing"
///     }
///     fn run(&mut self, _m: &mut oneshader_ir::Module) -> Result<bool, PassError> {
///         Ok(false)
///     }
/// }
///
/// let mut registry = PassRegistry::new();
/// registry.register("nothing", "does nothing", || Box::new(Nothing))?;
/// assert!(registry.register("dce", "mine", || Box::new(Nothing)).is_err());
/// let pm = registry.pipeline_from_list("inline, nothing, dce").expect("all known");
/// assert_eq!(pm.describe(), "inline, nothing, dce");
/// assert!(registry.pipeline_from_list("nothing, bogus").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PassRegistry {
    extra: Vec<(String, String, Box<PassMaker>)>,
}

/// A tool tried to register a pass under the name of a project pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is the name of a project pass; register the tool's pass under another name")]
pub struct ReservedPassName(pub String);

/// Builds a pass with default options.
pub type PassMaker = dyn Fn() -> Box<dyn Pass> + Send + Sync;

impl Default for PassRegistry {
    fn default() -> PassRegistry {
        PassRegistry::new()
    }
}

impl PassRegistry {
    /// The project's passes ([`PASSES`]) and nothing else.
    pub fn new() -> PassRegistry {
        PassRegistry { extra: Vec::new() }
    }

    /// Adds (or, for a name already added, replaces) a pass. The name of a project pass is
    /// refused: it keeps meaning the project's pass.
    pub fn register(
        &mut self,
        name: &str,
        description: &str,
        make: impl Fn() -> Box<dyn Pass> + Send + Sync + 'static,
    ) -> Result<&mut PassRegistry, ReservedPassName> {
        if PASSES.iter().any(|p| p.name == name) {
            return Err(ReservedPassName(name.to_string()));
        }
        self.extra.retain(|(n, _, _)| n != name);
        self.extra
            .push((name.to_string(), description.to_string(), Box::new(make)));
        Ok(self)
    }

    /// The pass named `name`, with default options.
    pub fn get(&self, name: &str) -> Option<Box<dyn Pass>> {
        pass_by_name(name).or_else(|| {
            self.extra
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, _, make)| make())
        })
    }

    /// Every name with its description: the project's, then the added ones.
    pub fn names(&self) -> Vec<(&str, &str)> {
        PASSES
            .iter()
            .map(|p| (p.name, p.description))
            .chain(self.extra.iter().map(|(n, d, _)| (n.as_str(), d.as_str())))
            .collect()
    }

    /// A pass manager running the comma-separated `list` in order.
    pub fn pipeline_from_list(&self, list: &str) -> Result<PassManager, UnknownPass> {
        let mut pm = PassManager::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let pass = self.get(name).ok_or_else(|| UnknownPass {
                name: name.to_string(),
                known: self
                    .names()
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            pm.add(pass);
        }
        Ok(pm)
    }
}

/// An optimization level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    /// Legalization only.
    O0,
    /// The full optimizer.
    #[default]
    O,
}

/// The legalization passes, which run at every level.
pub fn legalization_passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(crate::specialize_generic::SpecializeGenerics),
        Box::new(crate::specialize_resources::SpecializeResources),
    ]
}

/// The passes of one `-O` round after inlining.
pub fn scalar_round() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(crate::sroa::Sroa),
        Box::new(crate::mem2reg::Mem2Reg),
        Box::new(crate::combine::Combine),
        Box::new(crate::unroll::Unroll),
        Box::new(crate::cse::Cse),
        Box::new(crate::dead_globals::DeadGlobals {
            keep_resources: true,
        }),
        Box::new(crate::dce::Dce),
        Box::new(crate::simplify_cfg::SimplifyCfg),
    ]
}

/// The legalization pipeline of a target (see [`crate::legalize`]).
pub fn legalize(target: crate::legalize::Target) -> PassManager {
    let mut pm = PassManager::new();
    for p in legalization_passes() {
        pm.add(p);
    }
    // GLSL has Vulkan's rules here too: constant texel offsets outside gathers, and
    // `interpolateAt*` of a stage input itself.
    if matches!(
        target,
        crate::legalize::Target::Spirv | crate::legalize::Target::Glsl
    ) {
        pm.add(Box::new(crate::required_constants::RequiredConstants));
    }
    pm.add(Box::new(crate::own_merges::OwnMerges));
    pm.add(Box::new(crate::bool_storage::BoolStorage));
    pm.add(Box::new(crate::intrinsic_widths::IntrinsicWidths));
    pm.add(Box::new(crate::image_widths::ImageWidths));
    // WGSL has no texel buffers.
    if target == crate::legalize::Target::Wgsl {
        pm.add(Box::new(crate::texel_buffers::TexelBuffers));
    }
    // WGSL and MSL declare buffer matrices by HLSL rows only.
    if target.stores_matrices_by_rows() {
        pm.add(Box::new(crate::transpose_storage::TransposeStorage));
    }
    if target.is_text() {
        pm.add(Box::new(crate::params_to_vars::ParamsToVars));
    }
    // WGSL cases never fall through.
    if target == crate::legalize::Target::Wgsl {
        pm.add(Box::new(crate::case_copies::CaseCopies));
    }
    pm
}

/// Settings of the optimizer beyond its level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptimizeOptions {
    /// Keep the resources (buffers, textures, samplers) the optimizer made unused
    /// (`-fspv-preserve-bindings`); otherwise they go once the rounds are done.
    pub keep_unused_resources: bool,
}

/// The specializations every module needs once, before the optimizer and the backends
/// ([`legalization_passes`] as a pipeline): SPIR-V and the text targets express neither
/// generics nor resources passed to functions. Their failure is the user's error, not the
/// optimizer's.
pub fn specialize() -> PassManager {
    let mut pm = PassManager::new();
    for p in legalization_passes() {
        pm.add(p);
    }
    pm
}

/// The optimizer of `level` for a module [`specialize`] has run on: nothing at `-O0`; at
/// `-O` inlining, private-to-local, the [`scalar_round`]s to a fixed point, then the unused
/// globals (resources too unless [`OptimizeOptions::keep_unused_resources`]).
pub fn optimizer(level: OptLevel, options: &OptimizeOptions) -> PassManager {
    let mut pm = PassManager::new();
    add_optimizer(&mut pm, level, options);
    pm
}

fn add_optimizer(pm: &mut PassManager, level: OptLevel, options: &OptimizeOptions) {
    if level == OptLevel::O {
        pm.add(Box::new(crate::inline::Inline::default()));
        pm.add(Box::new(crate::private_to_local::PrivateToLocal));
        pm.add_fixed_point(scalar_round(), MAX_ROUNDS);
        pm.add(Box::new(crate::dead_globals::DeadGlobals {
            keep_resources: options.keep_unused_resources,
        }));
    }
}

/// The pipeline of an optimization level: [`specialize`], then [`optimizer`] with default
/// settings. The compiler runs the two separately: a specialization failure is an error, an
/// optimizer failure falls back to the specialized module.
pub fn optimize(level: OptLevel) -> PassManager {
    let mut pm = specialize();
    add_optimizer(&mut pm, level, &OptimizeOptions::default());
    pm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_match_the_passes() {
        let mut seen = std::collections::HashSet::new();
        for info in PASSES {
            assert!(seen.insert(info.name), "`{}` registered twice", info.name);
            assert_eq!((info.make)().name(), info.name);
        }
        assert!(pass_by_name("nope").is_none());
    }

    #[test]
    fn pipelines_are_described() {
        let o = optimize(OptLevel::O).describe();
        assert_eq!(
            o,
            "specialize_generic, specialize_resources, inline, private_to_local, \
             (sroa, mem2reg, combine, unroll, cse, dead_globals, dce, simplify_cfg)*, dead_globals"
        );
        let o0 = optimize(OptLevel::O0).describe();
        assert_eq!(o0, "specialize_generic, specialize_resources");
        use crate::legalize::Target;
        assert_eq!(
            legalize(Target::Spirv).describe(),
            "specialize_generic, specialize_resources, required_constants, own_merges, bool_storage, \
             intrinsic_widths, image_widths"
        );
        assert_eq!(
            legalize(Target::Glsl).describe(),
            "specialize_generic, specialize_resources, required_constants, own_merges, \
             bool_storage, intrinsic_widths, image_widths, params_to_vars"
        );
        assert_eq!(
            legalize(Target::Wgsl).describe(),
            "specialize_generic, specialize_resources, own_merges, bool_storage, \
             intrinsic_widths, image_widths, texel_buffers, transpose_storage, params_to_vars, \
             case_copies"
        );
        assert_eq!(
            legalize(Target::Msl).describe(),
            "specialize_generic, specialize_resources, own_merges, bool_storage, \
             intrinsic_widths, image_widths, transpose_storage, params_to_vars"
        );
        let err = pipeline_from_list("combine, bogus")
            .err()
            .expect("unknown pass");
        assert_eq!(err.name, "bogus");
        assert!(err.known.contains("mem2reg"));
        assert_eq!(
            pipeline_from_list("combine,cse").expect("known").describe(),
            "combine, cse"
        );
    }
}
