//! Running one case through its voices and comparing what they leave.

use std::fmt;

use oneshader::reflect::{Reflection, Resource as Reflected, Type};
use oneshader_vulkan_harness::{Binding, Gpu, Resource, TexelBuffer};

use crate::OracleError;
use crate::compare::{Difference, Rule, compare};
use crate::data::Inputs;
use crate::layout::{Slot, slots, texel_slots};
use crate::voice::{Program, Source, Voice, compile};

/// A compute shader under test: its name (for reports), its source and its reflection.
#[derive(Clone, Debug)]
pub struct Case {
    /// How reports name it (a path, a test and seed...).
    pub name: String,
    /// What the voices compile.
    pub source: Source,
    /// What it binds, with layouts.
    pub reflection: Reflection,
}

impl Case {
    /// A case for `source`, reflected ([`Source::reflect`]).
    pub fn new(name: impl Into<String>, source: Source) -> Result<Case, OracleError> {
        let reflection = source.reflect()?;
        Ok(Case {
            name: name.into(),
            source,
            reflection,
        })
    }

    /// The workgroup size of the entry point.
    pub fn workgroup_size(&self) -> Option<[u32; 3]> {
        self.reflection
            .entry_point(self.source.entry())
            .and_then(|e| e.workgroup_size)
    }
}

/// Comparison rules by resource name; [`Rule::Exact`] for the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    by_name: Vec<(String, Rule)>,
}

impl Rules {
    /// Every resource exact.
    pub fn new() -> Rules {
        Rules::default()
    }

    /// Compares resource `name` under `rule`.
    pub fn with(mut self, name: impl Into<String>, rule: Rule) -> Rules {
        self.by_name.push((name.into(), rule));
        self
    }

    /// The rule of resource `name`.
    pub fn rule_of(&self, name: &str) -> &Rule {
        self.by_name
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r)
            .unwrap_or(&Rule::Exact)
    }

    fn explicit(&self, name: &str) -> bool {
        self.by_name.iter().any(|(n, _)| n == name)
    }
}

/// What one voice left.
#[derive(Clone, Debug)]
pub struct VoiceRun {
    /// The voice.
    pub voice: Voice,
    /// The bindings after its dispatch (read-only ones as they went in).
    pub outputs: Vec<Binding>,
    /// The program it ran (none for the interpreter).
    pub program: Option<Program>,
}

/// Two voices leaving different contents in one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The shader (the case's name).
    pub shader: String,
    /// The reference voice (the first one run).
    pub reference: Voice,
    /// The voice that differs from it.
    pub voice: Voice,
    /// The resource's name.
    pub resource: String,
    /// Its descriptor set.
    pub set: u32,
    /// Its binding.
    pub binding: u32,
    /// Where and how.
    pub difference: Difference,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: `{}` and `{}` disagree on `{}` (set {}, binding {}): {}",
            self.shader,
            self.reference,
            self.voice,
            self.resource,
            self.set,
            self.binding,
            self.difference
        )
    }
}

/// The outcome of [`Oracle::run`].
#[derive(Clone, Debug)]
pub struct Report {
    /// The shader.
    pub shader: String,
    /// Each voice's run, in the order asked.
    pub runs: Vec<VoiceRun>,
    /// Every disagreement with the first voice, at most one per voice and resource.
    pub disagreements: Vec<Disagreement>,
    /// Resources not compared, with why: a [`Rule::Ignore`], or contents that differed
    /// between two runs of the same program (scheduling-dependent atomics).
    pub not_compared: Vec<String>,
}

impl Report {
    /// True when every voice agrees with the first.
    pub fn agrees(&self) -> bool {
        self.disagreements.is_empty()
    }

    /// Panics listing every disagreement, unless there are none.
    pub fn assert_agreement(&self) {
        if !self.agrees() {
            let lines: Vec<String> = self.disagreements.iter().map(|d| d.to_string()).collect();
            panic!("the voices disagree:\n{}", lines.join("\n"));
        }
    }

    /// The words voice number `k` left at (`set`, `binding`).
    pub fn words(&self, k: usize, set: u32, binding: u32) -> &[u32] {
        self.runs[k]
            .outputs
            .iter()
            .find(|b| b.set == set && b.binding == binding)
            .map(Binding::words)
            .unwrap_or(&[])
    }
}

/// Runs cases on one GPU.
pub struct Oracle<'g> {
    gpu: &'g Gpu,
}

/// SPIR-V opcodes of atomic instructions (`OpAtomicLoad`..`OpAtomicXor`, the flag ones, the
/// float extensions).
fn has_atomics(words: &[u32]) -> bool {
    let mut at = 5;
    while at < words.len() {
        let w = words[at];
        let op = w & 0xffff;
        if (227..=242).contains(&op) || matches!(op, 318 | 319 | 5614 | 5615 | 6035) {
            return true;
        }
        at += ((w >> 16) as usize).max(1);
    }
    false
}

/// How many components of a texel the shader's texel type defines (`RWTexture2D<float3>`:
/// 3); 4 when the reflection does not say.
fn texel_components(res: &Reflected) -> usize {
    match res.texture.as_ref().map(|t| &t.sampled_type) {
        Some(Type::Scalar { .. }) => 1,
        Some(Type::Vector { components, .. }) => *components as usize,
        _ => 4,
    }
}

/// The slots of what `b` holds, as `res` describes it.
pub fn binding_slots(res: &Reflected, b: &Binding) -> Vec<Slot> {
    match &b.resource {
        Resource::StorageBuffer(w) | Resource::UniformBuffer(w) => {
            let Some(ty) = &res.ty else {
                return Vec::new();
            };
            let bytes = (w.len() * 4) as u32;
            let runtime_len = match ty {
                Type::Array {
                    length: None,
                    stride: Some(s),
                    ..
                } => bytes / s.max(&1),
                Type::Struct { members, .. } => match members.last() {
                    Some(m) => match (&m.ty, m.offset) {
                        (
                            Type::Array {
                                length: None,
                                stride: Some(s),
                                ..
                            },
                            Some(off),
                        ) => bytes.saturating_sub(off) / s.max(&1),
                        _ => 0,
                    },
                    None => 0,
                },
                _ => 0,
            };
            let mut out = Vec::new();
            slots(ty, 0, "", runtime_len, &mut out);
            out
        }
        Resource::StorageImage(i)
        | Resource::SampledImage(i)
        | Resource::CombinedImageSampler(i, _) => {
            texel_slots(i.format, i.texels(), texel_components(res))
        }
        Resource::UniformTexelBuffer(t) | Resource::StorageTexelBuffer(t) => texel_slots(
            t.format,
            t.data.len() / t.format.words_per_texel(),
            texel_components(res),
        ),
        Resource::Sampler(_) => Vec::new(),
    }
}

impl<'g> Oracle<'g> {
    /// An oracle dispatching on `gpu`.
    pub fn new(gpu: &'g Gpu) -> Oracle<'g> {
        Oracle { gpu }
    }

    /// Runs `case` through every voice on `inputs` and compares each voice's writable
    /// resources with the first voice's under `rules`. `Err` when a voice cannot run at all
    /// (its compiler refuses, its program is invalid, the dispatch fails, the interpreter
    /// does not model the shader).
    pub fn run(
        &self,
        case: &Case,
        voices: &[Voice],
        inputs: &Inputs,
        rules: &Rules,
    ) -> Result<Report, OracleError> {
        let mut runs = Vec::new();
        for &voice in voices {
            if voice == Voice::Interp {
                let Source::Ir { module, entry } = &case.source else {
                    return Err(OracleError::Interp(
                        "the interpreter runs IR sources only".into(),
                    ));
                };
                let outputs = crate::interp::run(module, entry, &case.reflection, inputs)?;
                runs.push(VoiceRun {
                    voice,
                    outputs,
                    program: None,
                });
                continue;
            }
            let program = compile(voice, &case.source)?;
            let outputs = self.dispatch(voice, &program, inputs)?;
            runs.push(VoiceRun {
                voice,
                outputs,
                program: Some(program),
            });
        }
        let mut not_compared = Vec::new();
        // Scheduling-dependent results: a second run of the first GPU program shows them.
        let mut unstable = Vec::new();
        if let Some(first) = runs.iter().find(|r| r.program.is_some())
            && runs
                .iter()
                .filter_map(|r| r.program.as_ref())
                .any(|p| has_atomics(&p.words))
        {
            let program = first.program.as_ref().expect("a GPU run");
            let again = self.dispatch(first.voice, program, inputs)?;
            for (a, b) in first.outputs.iter().zip(&again) {
                if a.words() != b.words() {
                    unstable.push((a.set, a.binding));
                }
            }
        }
        let mut disagreements = Vec::new();
        let Some((reference, others)) = runs.split_first() else {
            return Ok(Report {
                shader: case.name.clone(),
                runs,
                disagreements,
                not_compared,
            });
        };
        for (k, b) in reference.outputs.iter().enumerate() {
            if !b.is_writable() {
                continue;
            }
            let res = case
                .reflection
                .resources
                .iter()
                .find(|r| r.set == b.set && r.binding == b.binding);
            let name = res
                .map(|r| r.name.clone())
                .unwrap_or_else(|| format!("({}, {})", b.set, b.binding));
            if let Rule::Ignore(why) = rules.rule_of(&name) {
                not_compared.push(format!("`{name}`: {why}"));
                continue;
            }
            if unstable.contains(&(b.set, b.binding)) && !rules.explicit(&name) {
                not_compared.push(format!(
                    "`{name}`: differs between two runs of `{}` (the order of atomic operations)",
                    reference.voice
                ));
                continue;
            }
            let slots = res.map(|r| binding_slots(r, b)).unwrap_or_default();
            for other in others {
                let Some(o) = other.outputs.get(k) else {
                    continue;
                };
                if let Some(difference) =
                    compare(b.words(), o.words(), &slots, rules.rule_of(&name))
                {
                    disagreements.push(Disagreement {
                        shader: case.name.clone(),
                        reference: reference.voice,
                        voice: other.voice,
                        resource: name.clone(),
                        set: b.set,
                        binding: b.binding,
                        difference,
                    });
                }
            }
        }
        Ok(Report {
            shader: case.name.clone(),
            runs,
            disagreements,
            not_compared,
        })
    }

    fn dispatch(
        &self,
        voice: Voice,
        program: &Program,
        inputs: &Inputs,
    ) -> Result<Vec<Binding>, OracleError> {
        let mut bindings = inputs.bindings.clone();
        // Bound where the program expects them, and reported where the source put them.
        let moved = |b: &mut Binding, from_source: bool| {
            for &(vulkan, target) in &program.rebind {
                let (from, to) = if from_source {
                    (vulkan, target)
                } else {
                    (target, vulkan)
                };
                if (b.set, b.binding) == from {
                    (b.set, b.binding) = to;
                    return;
                }
            }
        };
        // Texel buffers the program reads as storage buffers hold the same words.
        let mut formats = Vec::new();
        for b in bindings.iter_mut() {
            if !program.as_buffers.contains(&(b.set, b.binding)) {
                continue;
            }
            let (t, storage) = match &b.resource {
                Resource::UniformTexelBuffer(t) => (t.clone(), false),
                Resource::StorageTexelBuffer(t) => (t.clone(), true),
                _ => continue,
            };
            formats.push(((b.set, b.binding), t.format, storage));
            b.resource = Resource::StorageBuffer(t.data);
        }
        bindings.iter_mut().for_each(|b| moved(b, true));
        self.gpu
            .try_dispatch(
                &program.words,
                &program.entry,
                &mut bindings,
                &inputs.push_constants,
                inputs.groups,
            )
            .map_err(|error| OracleError::Dispatch {
                voice: voice.to_string(),
                error,
            })?;
        bindings.iter_mut().for_each(|b| moved(b, false));
        for b in bindings.iter_mut() {
            let Some(&(_, format, storage)) =
                formats.iter().find(|(at, _, _)| *at == (b.set, b.binding))
            else {
                continue;
            };
            if let Resource::StorageBuffer(data) = &b.resource {
                let t = TexelBuffer {
                    format,
                    data: data.clone(),
                };
                b.resource = if storage {
                    Resource::StorageTexelBuffer(t)
                } else {
                    Resource::UniformTexelBuffer(t)
                };
            }
        }
        Ok(bindings)
    }
}
