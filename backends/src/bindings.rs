//! Where resources go on targets whose binding model is not Vulkan's.
//!
//! The HLSL front end places every resource at a Vulkan (set, binding) by DXC's rules and
//! records the register it came from (`hlsl_register`). DXC's default rule ignores the
//! register class, so `t0` and `s0` share binding 0: Vulkan accepts one descriptor there
//! (a combined image sampler, or the user's shifts), WGSL binds one resource per
//! `@binding`. This module decides each resource's WGSL `@group`/`@binding`:
//!
//! 1. An entry of the binding map ([`WgslBindingMap`], `--wgsl-binding-map`) that names the
//!    resource's register (`"register": "t3", "space": 0`) or its Vulkan set and binding
//!    (`"set": 0, "binding": 3`) gives both numbers.
//! 2. Otherwise, when the user chose the Vulkan binding (`[[vk::binding]]`, a
//!    `-fvk-*-shift` of its register class, `-fvk-bind-register`, `-fvk-bind-globals`,
//!    `[[vk::counter_binding]]`), or the module does not come from HLSL: the Vulkan set and
//!    binding.
//! 3. Otherwise (DXC's default rule placed it): `@group` is the set, `@binding` is the Vulkan
//!    binding plus [`WGSL_CLASS_STRIDE`] times the register class (`b` 0, `t` 1, `s` 2,
//!    `u` 3): `b3` at 3, `t3` at 253, `s3` at 503, `u3` at 753. It depends on the resource
//!    alone, so every compile of a shader and every stage of a pipeline that declares the
//!    resource put it at the same place. A binding at or past [`WGSL_MAX_BINDING`] (WebGPU's
//!    default `maxBindingsPerBindGroup`) is refused: a map places it.
//!
//! Two resources an entry point uses at one group and binding are refused by the WGSL
//! backend, naming both. Reflection reports each resource's register and, for WGSL, where it
//! went.

use oneshader_ir::diag::Diagnostic;
pub use oneshader_ir::register::{HlslRegister, RegisterClass, hlsl_register};
use oneshader_ir::{InstId, Module, Op, Stage};
use rustc_hash::FxHashMap;

/// The distance between register classes in rule 3 (module docs).
pub const WGSL_CLASS_STRIDE: u32 = 250;

/// WebGPU's default `maxBindingsPerBindGroup`: rule 3 refuses a binding at or past it.
pub const WGSL_MAX_BINDING: u32 = 1000;

/// What a map entry names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKey {
    /// A register and space.
    Register {
        /// The class.
        class: RegisterClass,
        /// The number.
        number: u32,
        /// The space.
        space: u32,
    },
    /// A Vulkan descriptor set and binding (after `-fvk-*-shift` and friends).
    Vulkan {
        /// The set.
        set: u32,
        /// The binding.
        binding: u32,
    },
}

/// One entry of a [`WgslBindingMap`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WgslMapEntry {
    /// What it places.
    pub key: MapKey,
    /// The stage it is for; `None` for every stage.
    pub stage: Option<Stage>,
    /// The `@group`.
    pub group: u32,
    /// The `@binding`.
    pub binding: u32,
}

/// An explicit WGSL placement of resources, read from JSON:
///
/// ```json
/// [
///   {"register": "t3", "space": 0, "group": 1, "binding": 0},
///   {"set": 0, "binding": 5, "group": 1, "wgsl_binding": 1, "stage": "fragment"}
/// ]
/// ```
///
/// An entry names a register (`"register"`, with `"space"`, default 0) or a Vulkan set and
/// binding (`"set"` and `"binding"`), and gives `"group"` and the WGSL binding (`"binding"`
/// for a register entry, `"wgsl_binding"` for a set/binding entry, whose `"binding"` is the
/// Vulkan one). `"stage"` (`vertex`, `fragment`, `compute`) limits it to one stage.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct WgslBindingMap {
    entries: Vec<WgslMapEntry>,
}

/// A binding map that does not parse: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError {
    /// Line and column (1-based) of a JSON syntax error.
    pub position: Option<(usize, usize)>,
    /// The JSON path of the entry at fault (`[2].register`), for errors of content.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.position, &self.path) {
            (Some((l, c)), _) => write!(f, "{l}:{c}: {}", self.message),
            (None, Some(p)) => write!(f, "{p}: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for MapError {}

impl WgslBindingMap {
    /// An empty map.
    pub fn new() -> WgslBindingMap {
        WgslBindingMap::default()
    }

    /// Adds an entry.
    pub fn insert(&mut self, entry: WgslMapEntry) {
        self.entries.push(entry);
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[WgslMapEntry] {
        &self.entries
    }

    /// Reads the JSON form (the type's docs). Two entries that name one resource for one
    /// stage are an error.
    pub fn from_json(text: &str) -> Result<WgslBindingMap, MapError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            // serde_json's text ends in "at line L column C", which the position states.
            let text = e.to_string();
            let what = text
                .rsplit_once(" at line ")
                .map_or(text.as_str(), |(w, _)| w);
            MapError {
                position: Some((e.line(), e.column())),
                path: None,
                message: format!("not JSON: {what}"),
            }
        })?;
        let content = |path: String, message: String| MapError {
            position: None,
            path: Some(path),
            message,
        };
        let list = v.as_array().ok_or_else(|| {
            content(
                "$".to_string(),
                "the binding map is not a JSON array of entries".to_string(),
            )
        })?;
        let mut map = WgslBindingMap::new();
        for (k, e) in list.iter().enumerate() {
            let Some(obj) = e.as_object() else {
                return Err(content(format!("[{k}]"), "not an object".to_string()));
            };
            for key in obj.keys() {
                if ![
                    "register",
                    "space",
                    "set",
                    "binding",
                    "wgsl_binding",
                    "group",
                    "stage",
                ]
                .contains(&key.as_str())
                {
                    return Err(content(
                        format!("[{k}].{key}"),
                        "unknown field (expected register, space, set, binding, \
                         wgsl_binding, group, stage)"
                            .to_string(),
                    ));
                }
            }
            let num = |name: &str| -> Result<Option<u32>, MapError> {
                match obj.get(name) {
                    None => Ok(None),
                    Some(x) => x
                        .as_u64()
                        .and_then(|x| u32::try_from(x).ok())
                        .map(Some)
                        .ok_or_else(|| content(format!("[{k}].{name}"), "not a u32".to_string())),
                }
            };
            let need = |name: &str| -> Result<u32, MapError> {
                num(name)?.ok_or_else(|| content(format!("[{k}]"), format!("`{name}` is missing")))
            };
            let stage = match obj.get("stage") {
                None => None,
                Some(s) => Some(match s.as_str() {
                    Some("vertex") => Stage::Vertex,
                    Some("fragment" | "pixel") => Stage::Fragment,
                    Some("compute") => Stage::Compute,
                    _ => {
                        return Err(content(
                            format!("[{k}].stage"),
                            "expected \"vertex\", \"fragment\" or \"compute\"".to_string(),
                        ));
                    }
                }),
            };
            let group = need("group")?;
            let (key, binding) = match obj.get("register") {
                Some(r) => {
                    let parsed = r.as_str().and_then(|r| {
                        let class = RegisterClass::from_letter(r.chars().next()?)?;
                        let number = r.get(1..)?.parse::<u32>().ok()?;
                        Some((class, number))
                    });
                    let Some((class, number)) = parsed else {
                        return Err(content(
                            format!("[{k}].register"),
                            format!(
                                "{r} is not a register such as \"t3\" (b, t, s or u and a number)"
                            ),
                        ));
                    };
                    if obj.contains_key("set") || obj.contains_key("wgsl_binding") {
                        return Err(content(
                            format!("[{k}]"),
                            "a register entry takes `space` and `binding`, not `set` or \
                             `wgsl_binding`"
                                .to_string(),
                        ));
                    }
                    let space = num("space")?.unwrap_or(0);
                    (
                        MapKey::Register {
                            class,
                            number,
                            space,
                        },
                        need("binding")?,
                    )
                }
                None => {
                    if obj.contains_key("space") {
                        return Err(content(
                            format!("[{k}].space"),
                            "`space` goes with `register`; a Vulkan entry names `set`".to_string(),
                        ));
                    }
                    let set = num("set")?.ok_or_else(|| {
                        content(
                            format!("[{k}]"),
                            "an entry names a `register` or a Vulkan `set` and `binding`"
                                .to_string(),
                        )
                    })?;
                    (
                        MapKey::Vulkan {
                            set,
                            binding: need("binding")?,
                        },
                        need("wgsl_binding")?,
                    )
                }
            };
            if let Some(j) = map.entries.iter().position(|x| {
                x.key == key && (x.stage.is_none() || stage.is_none() || x.stage == stage)
            }) {
                return Err(content(
                    format!("[{k}]"),
                    format!("places the resource entry [{j}] places already"),
                ));
            }
            map.insert(WgslMapEntry {
                key,
                stage,
                group,
                binding,
            });
        }
        Ok(map)
    }

    /// The entry for a resource of `stage` at `register` (if known) and Vulkan `(set,
    /// binding)`: a register entry first.
    fn find(
        &self,
        stage: Option<Stage>,
        register: Option<&HlslRegister>,
        vulkan: (u32, u32),
    ) -> Option<usize> {
        let for_stage = |e: &WgslMapEntry| e.stage.is_none() || stage.is_none() || e.stage == stage;
        let by_register = register.and_then(|r| {
            let number = r.number?;
            self.entries.iter().position(|e| {
                for_stage(e)
                    && e.key
                        == MapKey::Register {
                            class: r.class,
                            number,
                            space: r.space,
                        }
            })
        });
        by_register.or_else(|| {
            self.entries.iter().position(|e| {
                for_stage(e)
                    && e.key
                        == MapKey::Vulkan {
                            set: vulkan.0,
                            binding: vulkan.1,
                        }
            })
        })
    }
}

/// How a resource's WGSL place was decided (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WgslRule {
    /// Rule 1: the binding map's entry of this index.
    Map(usize),
    /// Rule 2: the Vulkan set and binding, which the user chose (or which did not come from
    /// HLSL).
    Vulkan,
    /// Rule 3: the set, and the binding spread by register class.
    ByClass,
}

/// A resource's WGSL place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgslPlace {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Which rule placed it.
    pub rule: WgslRule,
}

/// Each resource global's WGSL place.
pub type WgslPlaces = FxHashMap<InstId, WgslPlace>;

/// The WGSL place of every resource global of `m` (those with a `binding` decoration), for
/// an entry point of `stage` (`None`: entries of every stage apply), and the warnings: a map
/// entry that places no resource of the module. Errors: a rule-3 binding at or past
/// [`WGSL_MAX_BINDING`] (`OSB0211`, naming the resource and its register).
pub fn wgsl_places(
    m: &Module,
    stage: Option<Stage>,
    map: Option<&WgslBindingMap>,
) -> Result<(WgslPlaces, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut places = FxHashMap::default();
    let mut errors = Vec::new();
    let mut used_entries = vec![false; map.map_or(0, |m| m.entries.len())];
    for g in m.globals() {
        let g = g.id();
        let Some(d) = m.find_decoration(g, Op::Binding) else {
            continue;
        };
        let vulkan = (
            m.imm_operand(d, 0).unwrap_or(0),
            m.imm_operand(d, 1).unwrap_or(0),
        );
        let register = hlsl_register(m, g);
        if let Some(k) = map.and_then(|map| map.find(stage, register.as_ref(), vulkan)) {
            used_entries[k] = true;
            let e = &map.expect("an entry was found in it").entries[k];
            places.insert(
                g,
                WgslPlace {
                    group: e.group,
                    binding: e.binding,
                    rule: WgslRule::Map(k),
                },
            );
            continue;
        }
        let place = match register {
            Some(r) if !r.chosen => {
                let binding = vulkan
                    .1
                    .checked_add(WGSL_CLASS_STRIDE * r.class as u32)
                    .filter(|&b| b < WGSL_MAX_BINDING && vulkan.1 < WGSL_CLASS_STRIDE);
                let Some(binding) = binding else {
                    errors.push(
                        Diagnostic::error(
                            "OSB0211",
                            format!(
                                "`{}` at register {} (space {}, Vulkan binding {}) has no WGSL \
                                 binding by the class rule (binding + {WGSL_CLASS_STRIDE} x \
                                 class must stay under {WGSL_MAX_BINDING}, WebGPU's default \
                                 maxBindingsPerBindGroup); place it with --wgsl-binding-map",
                                m.name(g).unwrap_or("?"),
                                r.spelling(),
                                r.space,
                                vulkan.1
                            ),
                        )
                        .at_inst_or_use(m, g),
                    );
                    continue;
                };
                WgslPlace {
                    group: vulkan.0,
                    binding,
                    rule: WgslRule::ByClass,
                }
            }
            _ => WgslPlace {
                group: vulkan.0,
                binding: vulkan.1,
                rule: WgslRule::Vulkan,
            },
        };
        places.insert(g, place);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let warnings = used_entries
        .iter()
        .enumerate()
        .filter(|&(k, &used)| {
            !used
                && map.is_some_and(|map| {
                    let e = &map.entries[k];
                    e.stage.is_none() || stage.is_none() || e.stage == stage
                })
        })
        .map(|(k, _)| {
            Diagnostic::warning(
                "OSB0212",
                format!(
                    "binding map entry [{k}] places no resource of this shader (the shader does \
                     not use it, or the entry names another register or binding)"
                ),
            )
        })
        .collect();
    Ok((places, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_reads_register_and_vulkan_entries() {
        let map = WgslBindingMap::from_json(
            r#"[{"register": "T3", "space": 1, "group": 2, "binding": 7},
                {"set": 0, "binding": 5, "group": 0, "wgsl_binding": 1, "stage": "pixel"}]"#,
        )
        .expect("parses");
        assert_eq!(
            map.entries(),
            &[
                WgslMapEntry {
                    key: MapKey::Register {
                        class: RegisterClass::T,
                        number: 3,
                        space: 1
                    },
                    stage: None,
                    group: 2,
                    binding: 7
                },
                WgslMapEntry {
                    key: MapKey::Vulkan { set: 0, binding: 5 },
                    stage: Some(Stage::Fragment),
                    group: 0,
                    binding: 1
                },
            ]
        );
    }

    #[test]
    fn a_bad_map_says_where() {
        let e = WgslBindingMap::from_json("[\n  {\"register\": \"t0\",, }\n]").unwrap_err();
        assert_eq!(e.position.map(|p| p.0), Some(2), "{e}");
        let e = WgslBindingMap::from_json(r#"[{"group": 0, "binding": 1, "register": "q1"}]"#)
            .unwrap_err();
        assert_eq!(e.path.as_deref(), Some("[0].register"), "{e}");
        let e = WgslBindingMap::from_json(r#"[{"group": 0, "binding": 1}]"#).unwrap_err();
        assert!(e.to_string().starts_with("[0]: an entry names"), "{e}");
        let e = WgslBindingMap::from_json(
            r#"[{"register": "t0", "group": 0, "binding": 1}, {"register": "t0", "space": 0, "group": 0, "binding": 2}]"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1]: places the resource entry [0] places already"
        );
        let e = WgslBindingMap::from_json(r#"[{"register": "t0", "group": 0, "bindng": 1}]"#)
            .unwrap_err();
        assert_eq!(e.path.as_deref(), Some("[0].bindng"), "{e}");
    }
}
