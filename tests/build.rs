//! `oneshader::build` (the library driver behind `oneshader build`): the cache is never stale
//! (editing an included header, a define, an option or the compiler identity rebuilds exactly
//! the variants it affects, and what is rebuilt is what a fresh compilation gives), two builds
//! sharing one cache at once, damaged entries, the size cap, manifest errors with their
//! places, sharding, warnings replayed from the cache, failures, determinism.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oneshader::build::{self, BuildOptions, BuildReport, OutputKind, Status};
use oneshader::{CompileOptions, Compiler};

const COMMON: &str = "#define SCALE 2.0\nfloat scaled(float x) { return x * SCALE; }\n";

const A: &str = r#"#include "common.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x]) + MODE; }
"#;

const B: &str = r#"#include "common.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x] + 1.0); }
"#;

const C: &str = r#"RWStructuredBuffer<uint> data : register(u0);
[[vk::constant_id(3)]] const uint kStep = 1;
[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] += kStep * EXTRA; }
"#;

/// The manifest of the test project; `extra_c` and `opt_b` are what the tests change.
fn manifest(extra_c: &str, opt_b: &str) -> String {
    format!(
        r#"out_dir = "out"

[defaults]
targets = ["spirv", "osir"]

[[shader]]
file = "a.hlsl"
profile = "cs_6_0"
permutations = {{ MODE = [0, 1] }}

[[shader]]
file = "b.hlsl"
profile = "cs_6_0"
opt = "{opt_b}"

[[shader]]
file = "c.hlsl"
profile = "cs_6_0"
defines = ["EXTRA={extra_c}"]
spec_constants = {{ kStep = [1, 2] }}
targets = ["spirv", "spirv-asm", "glsl", "wgsl", "msl", "reflection"]
"#
    )
}

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = Project { dir };
        p.write("common.hlsli", COMMON);
        p.write("a.hlsl", A);
        p.write("b.hlsl", B);
        p.write("c.hlsl", C);
        p.write("oneshader.toml", &manifest("1", "O"));
        p
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).expect("write");
    }

    fn options(&self) -> BuildOptions {
        BuildOptions {
            jobs: Some(2),
            identity: Some("test compiler 1".into()),
            cache_dir: Some(self.path("cache")),
            ..BuildOptions::new(self.path("oneshader.toml"))
        }
    }

    fn build(&self) -> BuildReport {
        self.build_with(&self.options())
    }

    fn build_with(&self, opts: &BuildOptions) -> BuildReport {
        let r = build::build(opts).expect("the manifest is valid");
        assert!(r.success(), "{}", r.render_failures());
        r
    }
}

/// Variant name -> status.
fn statuses(r: &BuildReport) -> BTreeMap<String, Status> {
    r.variants
        .iter()
        .map(|v| (v.variant.clone(), v.status))
        .collect()
}

/// The variants rebuilt (not from the cache).
fn rebuilt(r: &BuildReport) -> Vec<String> {
    r.variants
        .iter()
        .filter(|v| v.status == Status::Built)
        .map(|v| v.variant.clone())
        .collect()
}

/// Every output of the manifest equals what a fresh compilation by `Compiler` gives for the
/// variant's options (the SPIR-V and disassembly through the same backend calls, the `.osir`
/// with the same module key, the reflection JSON).
fn assert_outputs_are_fresh(p: &Project) {
    let manifest = build::manifest::load(&p.path("oneshader.toml")).expect("valid");
    let compiler = Compiler::new();
    for v in build::planned(&manifest, None).expect("plans") {
        for (t, path) in &v.outputs {
            let on_disk = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let opts = CompileOptions {
                keep_final_ir: true,
                reflect: true,
                ..v.options.clone()
            };
            let out = compiler
                .compile_file(&v.file, &opts)
                .unwrap_or_else(|e| panic!("{}: {}", v.id, e.diagnostics.render()));
            let fresh = match t {
                OutputKind::Spirv => out.spirv_bytes(),
                OutputKind::SpirvAsm => {
                    let mut t = oneshader::backends::spirv::disassemble(&out.spirv)
                        .expect("disassembles")
                        .into_bytes();
                    t.push(b'\n');
                    t
                }
                OutputKind::Glsl => {
                    let opts = CompileOptions {
                        target: oneshader::Target::Glsl,
                        ..v.options.clone()
                    };
                    let glsl = compiler
                        .compile_file(&v.file, &opts)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", v.id))
                        .glsl
                        .expect("the GLSL target gives GLSL text");
                    glsl.into_bytes()
                }
                OutputKind::Wgsl => {
                    let opts = CompileOptions {
                        target: oneshader::Target::Wgsl,
                        ..v.options.clone()
                    };
                    compiler
                        .compile_file(&v.file, &opts)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", v.id))
                        .wgsl
                        .expect("the WGSL target gives WGSL text")
                        .into_bytes()
                }
                OutputKind::Msl => {
                    let opts = CompileOptions {
                        target: oneshader::Target::Msl,
                        ..v.options.clone()
                    };
                    compiler
                        .compile_file(&v.file, &opts)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", v.id))
                        .msl
                        .expect("the MSL target gives MSL text")
                        .into_bytes()
                }
                OutputKind::Reflection => out.reflection.expect("asked").to_json().into_bytes(),
                OutputKind::Ir => {
                    oneshader::ir::print::print_module(out.ir.final_module.as_ref().expect("kept"))
                        .into_bytes()
                }
                OutputKind::Osir => {
                    // The build's key uses the test identity; the rest of the file must match.
                    let loaded = oneshader::serialize::load(&on_disk, &Default::default())
                        .expect("the .osir loads and verifies");
                    assert_eq!(
                        oneshader::ir::print::print_module(&loaded.module),
                        oneshader::ir::print::print_module(
                            out.ir.final_module.as_ref().expect("kept")
                        ),
                        "{}",
                        v.id
                    );
                    assert_ne!(
                        oneshader::serialize::read_header(&on_disk)
                            .expect("header")
                            .cache_key,
                        oneshader::serialize::CacheKey::NONE
                    );
                    continue;
                }
            };
            assert!(
                on_disk == fresh,
                "{} {}: the build's output differs from a fresh compilation",
                v.id,
                t.name()
            );
        }
    }
}

#[test]
fn a_warm_build_takes_everything_from_the_cache_and_rewrites_nothing() {
    let p = Project::new();
    let cold = p.build();
    assert_eq!(cold.variants.len(), 2 + 1 + 2);
    assert_eq!((cold.built, cold.cached), (5, 0), "{:?}", statuses(&cold));
    assert_outputs_are_fresh(&p);
    let out = p.path("out/a.main.MODE-1.spv");
    let before = std::fs::metadata(&out).unwrap().modified().unwrap();
    let warm = p.build();
    assert_eq!((warm.built, warm.cached), (0, 5), "{:?}", statuses(&warm));
    assert!(warm.variants.iter().all(|v| v.cache_hit));
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), before);
    // A removed output is restored from the cache.
    std::fs::remove_file(&out).unwrap();
    let again = p.build();
    assert_eq!(again.cached, 5);
    assert_outputs_are_fresh(&p);
    // The inputs a build.rs would watch: the manifest and every file read, the header once.
    let lines = again.cargo_rerun_if_changed();
    for f in [
        "oneshader.toml",
        "a.hlsl",
        "b.hlsl",
        "c.hlsl",
        "common.hlsli",
    ] {
        let line = format!("cargo:rerun-if-changed={}\n", p.path(f).display());
        assert_eq!(lines.matches(&line).count(), 1, "{f} in\n{lines}");
    }
    assert_eq!(lines.lines().count(), 5, "{lines}");
}

#[test]
fn editing_an_included_header_rebuilds_exactly_its_includers() {
    let p = Project::new();
    p.build();
    let old_a = std::fs::read(p.path("out/a.main.MODE-0.spv")).unwrap();
    p.write("common.hlsli", &COMMON.replace("2.0", "3.0"));
    let r = p.build();
    assert_eq!(
        rebuilt(&r),
        [
            "a.hlsl:main [MODE=0]",
            "a.hlsl:main [MODE=1]",
            "b.hlsl:main"
        ]
    );
    assert_ne!(
        std::fs::read(p.path("out/a.main.MODE-0.spv")).unwrap(),
        old_a
    );
    assert_outputs_are_fresh(&p);
    // A comment changes no instruction, but diagnostics would point elsewhere: rebuilt too.
    p.write(
        "common.hlsli",
        &format!("// a comment\n{}", COMMON.replace("2.0", "3.0")),
    );
    assert_eq!(rebuilt(&p.build()).len(), 3);
    // Back to the first text: those entries are still in the cache.
    p.write("common.hlsli", COMMON);
    let back = p.build();
    assert_eq!(back.cached, 5, "{:?}", statuses(&back));
    assert_eq!(
        std::fs::read(p.path("out/a.main.MODE-0.spv")).unwrap(),
        old_a
    );
    assert_outputs_are_fresh(&p);
}

#[test]
fn changing_a_define_or_an_option_rebuilds_exactly_the_affected_variants() {
    let p = Project::new();
    p.build();
    // A define of c.
    p.write("oneshader.toml", &manifest("5", "O"));
    let r = p.build();
    assert_eq!(
        rebuilt(&r),
        ["c.hlsl:main [kStep=1]", "c.hlsl:main [kStep=2]"]
    );
    assert_outputs_are_fresh(&p);
    // An option of b.
    p.write("oneshader.toml", &manifest("5", "O0"));
    let r = p.build();
    assert_eq!(rebuilt(&r), ["b.hlsl:main"]);
    assert_outputs_are_fresh(&p);
    // A target setting of every shader (the SPIR-V environment): every SPIR-V output is
    // emitted again, from the cached module.
    let text = manifest("5", "O0").replace("[defaults]", "[defaults]\ntarget_env = \"vulkan1.0\"");
    p.write("oneshader.toml", &text);
    let r = p.build();
    assert_eq!(r.built, 5);
    assert_outputs_are_fresh(&p);
    let spv = std::fs::read(p.path("out/b.main.spv")).unwrap();
    // SPIR-V 1.0 for vulkan1.0.
    assert_eq!(&spv[4..8], &[0, 0, 1, 0]);
}

#[test]
fn a_new_compiler_identity_rebuilds_everything() {
    let p = Project::new();
    p.build();
    let mut opts = p.options();
    opts.identity = Some("test compiler 2".into());
    let r = p.build_with(&opts);
    assert_eq!((r.built, r.cached), (5, 0));
    // The .osir carries the new key.
    let osir = std::fs::read(p.path("out/b.main.osir")).unwrap();
    let key = oneshader::serialize::read_header(&osir).unwrap().cache_key;
    let m = build::manifest::load(&p.path("oneshader.toml")).unwrap();
    let v = &build::planned(&m, None).unwrap()[2];
    assert_eq!(v.id, "b.hlsl:main");
    let compiled = Compiler::new().compile_file(&v.file, &v.options).unwrap();
    // `compile` uses the real identity, the build here a test one: the keys differ...
    assert_ne!(key, compiled.cache_key);
    // ...and with the real identity they agree.
    let real = p.build_with(&BuildOptions {
        identity: None,
        ..p.options()
    });
    assert_eq!(real.built, 5);
    let osir = std::fs::read(p.path("out/b.main.osir")).unwrap();
    assert_eq!(
        oneshader::serialize::read_header(&osir).unwrap().cache_key,
        compiled.cache_key
    );
}

#[test]
fn two_builds_sharing_one_cache_at_once_agree_and_leave_it_whole() {
    let p = Project::new();
    let text = std::fs::read_to_string(p.path("oneshader.toml")).unwrap();
    p.write(
        "one.toml",
        &text.replace("out_dir = \"out\"", "out_dir = \"out1\""),
    );
    p.write(
        "two.toml",
        &text.replace("out_dir = \"out\"", "out_dir = \"out2\""),
    );
    for round in 0..3 {
        let cache = p.path(&format!("shared-cache-{round}"));
        let opts = |m: &str| BuildOptions {
            jobs: Some(2),
            identity: Some("test compiler 1".into()),
            cache_dir: Some(cache.clone()),
            ..BuildOptions::new(p.path(m))
        };
        let (one, two) = std::thread::scope(|s| {
            let a = s.spawn(|| build::build(&opts("one.toml")).unwrap());
            let b = s.spawn(|| build::build(&opts("two.toml")).unwrap());
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(one.success() && two.success());
        for (x, y) in one.variants.iter().zip(&two.variants) {
            for (a, b) in x.outputs.iter().zip(&y.outputs) {
                assert_eq!(
                    std::fs::read(a).unwrap(),
                    std::fs::read(b).unwrap(),
                    "{a:?}"
                );
            }
        }
        // Every entry checks out, and nothing temporary is left.
        let c = build::cache::Cache::open(&cache).unwrap();
        let mut entries = 0;
        for shard in std::fs::read_dir(c.root()).unwrap() {
            for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
                let f = f.unwrap();
                let name = f.file_name().to_string_lossy().into_owned();
                assert!(!name.starts_with(".tmp-"), "{name} left behind");
                let bytes = std::fs::read(f.path()).unwrap();
                assert_eq!(&bytes[..8], b"OSCACHE1");
                entries += 1;
            }
        }
        assert!(entries >= 5);
        // A third build on the same cache takes everything from it.
        let third = build::build(&opts("one.toml")).unwrap();
        assert_eq!(third.cached, 5);
    }
    // What the shared cache gave is what a fresh compilation gives.
    p.build();
    assert_outputs_are_fresh(&p);
    for f in std::fs::read_dir(p.path("out1")).unwrap() {
        let f = f.unwrap();
        let out = p.path("out").join(f.file_name());
        assert_eq!(
            std::fs::read(f.path()).unwrap(),
            std::fs::read(out).unwrap()
        );
    }
}

#[test]
fn a_damaged_cache_entry_is_detected_and_rebuilt() {
    let p = Project::new();
    p.build();
    let root = p.path("cache/v1");
    let mut damaged = 0;
    for shard in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            let mut bytes = std::fs::read(&path).unwrap();
            // Flip one payload byte in half the entries, cut the others short.
            if damaged % 2 == 0 {
                let last = bytes.len() - 1;
                bytes[last] ^= 0x40;
            } else {
                bytes.truncate(bytes.len() / 2);
            }
            std::fs::write(&path, bytes).unwrap();
            damaged += 1;
        }
    }
    assert!(damaged >= 5);
    for v in ["a.main.MODE-0.spv", "c.main.kStep-2.spv"] {
        std::fs::remove_file(p.path(&format!("out/{v}"))).unwrap();
    }
    let r = p.build();
    assert_eq!((r.built, r.cached), (5, 0), "{:?}", statuses(&r));
    assert_outputs_are_fresh(&p);
    assert_eq!(p.build().cached, 5);
}

/// Bytes in the cache's entries.
fn cache_size(p: &Project) -> u64 {
    let mut total = 0;
    for shard in std::fs::read_dir(p.path("cache/v1")).unwrap() {
        for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            total += f.unwrap().metadata().unwrap().len();
        }
    }
    total
}

#[test]
fn the_cache_stays_under_its_size_cap() {
    let p = Project::new();
    let capped = BuildOptions {
        cache_max_size: Some(4096),
        ..p.options()
    };
    p.build_with(&capped);
    assert!(
        cache_size(&p) <= 4096,
        "{} bytes in the cache",
        cache_size(&p)
    );
    // Without a cap everything fits and a second build hits.
    p.build();
    assert!(cache_size(&p) > 4096);
    assert_eq!(p.build().cached, 5);
    // A smaller cap given to a build that writes nothing trims the cache all the same; the
    // evicted variants are compiled again next time, correctly.
    assert_eq!(p.build_with(&capped).cached, 5);
    assert!(
        cache_size(&p) <= 4096,
        "{} bytes in the cache",
        cache_size(&p)
    );
    assert!(p.build().built > 0);
    assert_outputs_are_fresh(&p);
}

#[test]
fn outputs_do_not_depend_on_the_thread_count() {
    let p = Project::new();
    let mut bytes = Vec::new();
    for jobs in [1, 4] {
        let opts = BuildOptions {
            jobs: Some(jobs),
            use_cache: false,
            ..p.options()
        };
        let r = p.build_with(&opts);
        assert_eq!(r.built, 5);
        let all: Vec<Vec<u8>> = r
            .variants
            .iter()
            .flat_map(|v| v.outputs.iter().map(|o| std::fs::read(o).unwrap()))
            .collect();
        bytes.push(all);
    }
    assert_eq!(bytes[0], bytes[1]);
}

#[test]
fn shards_are_disjoint_and_cover_the_manifest() {
    let p = Project::new();
    let m = build::manifest::load(&p.path("oneshader.toml")).unwrap();
    let all: Vec<String> = build::planned(&m, None)
        .unwrap()
        .into_iter()
        .map(|v| v.id)
        .collect();
    let mut seen = Vec::new();
    for i in 1..=3 {
        let shard: Vec<String> = build::planned(&m, Some((i, 3)))
            .unwrap()
            .into_iter()
            .map(|v| v.id)
            .collect();
        assert!(shard.len() >= all.len() / 3 && shard.len() <= all.len() / 3 + 1);
        seen.extend(shard);
    }
    seen.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(seen, sorted);
    assert!(build::planned(&m, Some((4, 3))).is_err());
    // A shard builds only its variants.
    let r = p.build_with(&BuildOptions {
        shard: Some((2, 3)),
        ..p.options()
    });
    assert_eq!(r.variants.len(), 2);
}

#[test]
fn warnings_are_replayed_from_the_cache() {
    let p = Project::new();
    p.write(
        "a.hlsl",
        &A.replace("void main", "#warning check this\nvoid main"),
    );
    let built = p.build();
    let warm = p.build();
    let a: Vec<&str> = built.variants[..2]
        .iter()
        .map(|v| v.diagnostics.as_str())
        .collect();
    assert!(
        a[0].contains("a.hlsl:4:1:") && a[0].contains("warning[OSP0041]: #warning check this"),
        "a warning with its place: {a:?}"
    );
    assert_eq!(warm.variants[0].status, Status::Cached);
    assert_eq!(warm.variants[0].diagnostics, built.variants[0].diagnostics);
}

#[test]
fn a_failing_variant_fails_the_build_and_leaves_no_stale_output() {
    let p = Project::new();
    p.build();
    assert!(p.path("out/b.main.spv").exists());
    p.write("b.hlsl", &B.replace("scaled(", "undefined_function("));
    for _ in 0..2 {
        let r = build::build(&p.options()).unwrap();
        assert!(!r.success());
        assert_eq!(r.failed, 1);
        let b = &r.variants[2];
        assert_eq!(b.status, Status::Failed);
        assert!(b.diagnostics.contains("b.hlsl:4:"), "{}", b.diagnostics);
        assert!(b.outputs.is_empty());
        assert!(!p.path("out/b.main.spv").exists());
        assert!(!p.path("out/b.main.osir").exists());
        // The others are unaffected.
        assert_eq!(r.cached, 4);
        assert!(r.render_failures().contains("b.hlsl:main failed"));
    }
}

/// The error a manifest text gives, rendered.
fn manifest_error(text: &str) -> String {
    let p = Project::new();
    p.write("oneshader.toml", text);
    match build::build(&p.options()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e
            .to_string()
            .replace(&p.path("oneshader.toml").display().to_string(), "M"),
    }
}

#[test]
fn manifest_mistakes_are_reported_with_their_place() {
    let cases = [
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"cs_6_0\"\ntargets = [\"spirv\", \"spirvv\"]\n",
            "M:4:21: error[OSD0003]: unknown target `spirvv`",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofle = \"cs_6_0\"\n",
            "M:3:1: error[OSD0002]: unknown field `profle`",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"cs_6_0\"\nopt = 3\n",
            "M:4:7: error[OSD0002]: invalid type: integer `3`, expected a string",
        ),
        ("[[shader]\nfile = \"a.hlsl\"\n", "M:1:10: error[OSD0002]:"),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"ms_6_4\"\n",
            "M:3:11: error[OSD0003]: mesh shaders need shader model 6.5 or later (profile `ms_6_4`)",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"cs_6_0\"\noutput = \"{shader}.{colour}.{ext}\"\n",
            "M:4:10: error[OSD0003]: output template `{shader}.{colour}.{ext}`: unknown placeholder `{colour}`",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"cs_6_0\"\npermutations = { MODE = [0, 1] }\nexclude = [{ MODE = 2 }]\n",
            "M:5:21: error[OSD0003]: exclusion: `2` is not a value of axis `MODE`",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\nprofile = \"cs_6_0\"\npermutations = { MODE = [0, 1] }\noutput = \"{shader}.{ext}\"\n",
            "M: error[OSD0003]: `a.hlsl:main [MODE=0]` and `a.hlsl:main [MODE=1]` would both write",
        ),
        (
            "[[shader]]\nfile = \"a.hlsl\"\n",
            "M:1:1: error[OSD0003]: a shader needs `profile`",
        ),
        (
            "",
            "M:1:1: error[OSD0003]: the manifest has no `[[shader]]`",
        ),
    ];
    for (text, expected) in cases {
        let e = manifest_error(text);
        assert!(
            e.starts_with(expected),
            "got:      {e}\nexpected: {expected}"
        );
    }
    let missing = build::build(&BuildOptions::new("/nonexistent/oneshader.toml")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("/nonexistent/oneshader.toml: error[OSD0001]: cannot read the manifest"),
        "{missing}"
    );
}

#[test]
fn a_spec_constant_axis_is_folded_into_each_variant() {
    let p = Project::new();
    p.build();
    let one = std::fs::read_to_string(p.path("out/c.main.kStep-1.spvasm")).unwrap();
    let two = std::fs::read_to_string(p.path("out/c.main.kStep-2.spvasm")).unwrap();
    assert_ne!(one, two);
    // The value replaced the spec constant: no OpSpecConstant is left.
    assert!(!one.contains("OpSpecConstant"), "{one}");
    // The reflection, built from the module as lowered, still lists it.
    let json = std::fs::read_to_string(p.path("out/c.main.kStep-1.json")).unwrap();
    assert!(json.contains("kStep"), "{json}");
}

/// The path of a test project file, for the CLI tests.
fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_oneshader"))
}

#[test]
fn the_command_line_builds_reports_json_and_fails_with_exit_1() {
    let p = Project::new();
    let run = |args: &[&str]| {
        std::process::Command::new(exe())
            .current_dir(p.dir.path())
            .env("ONESHADER_CACHE", p.path("cli-cache"))
            .args(args)
            .output()
            .expect("runs")
    };
    let cold = run(&["build", "-j", "2"]);
    assert!(
        cold.status.success(),
        "{}",
        String::from_utf8_lossy(&cold.stderr)
    );
    let stderr = String::from_utf8_lossy(&cold.stderr);
    assert!(
        stderr.contains("5 variants: 5 built, 0 cached, 0 failed in"),
        "{stderr}"
    );
    assert!(p.path("cli-cache/v1").is_dir(), "$ONESHADER_CACHE is used");
    let warm = run(&["build", "--json"]);
    assert!(warm.status.success());
    let json: serde_json::Value = serde_json::from_slice(&warm.stdout).expect("JSON on stdout");
    let variants = json["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 5);
    assert_eq!(variants[0]["status"], "cached");
    assert_eq!(variants[0]["cache_hit"], true);
    assert!(
        variants[0]["outputs"][0]
            .as_str()
            .unwrap()
            .ends_with("a.main.MODE-0.spv")
    );
    assert!(variants[0]["time_ms"].is_number());
    p.write("b.hlsl", "this is not HLSL");
    let failed = run(&["build"]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("FAILED b.hlsl:main\nb.hlsl:1:1: error"),
        "{stderr}"
    );
    assert!(
        stderr.contains("5 variants: 0 built, 4 cached, 1 failed"),
        "{stderr}"
    );
    let bad = run(&["build", "--shard", "3/2"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn two_build_processes_on_one_cache_at_once() {
    let p = Project::new();
    let text = std::fs::read_to_string(p.path("oneshader.toml")).unwrap();
    p.write(
        "one.toml",
        &text.replace("out_dir = \"out\"", "out_dir = \"out1\""),
    );
    p.write(
        "two.toml",
        &text.replace("out_dir = \"out\"", "out_dir = \"out2\""),
    );
    let spawn = |m: &str| {
        std::process::Command::new(exe())
            .current_dir(p.dir.path())
            .args(["build", m, "-j", "2", "--cache-dir", "shared"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starts")
    };
    let (a, b) = (spawn("one.toml"), spawn("two.toml"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    for f in std::fs::read_dir(p.path("out1")).unwrap() {
        let f = f.unwrap();
        let other = p.path("out2").join(f.file_name());
        assert_eq!(
            std::fs::read(f.path()).unwrap(),
            std::fs::read(other).unwrap()
        );
    }
}

#[test]
fn the_example_manifest_builds_and_its_spirv_validates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut manifest = build::manifest::load(&root.join("examples/oneshader.toml")).unwrap();
    let out = tempfile::tempdir().unwrap();
    manifest.out_dir = out.path().to_path_buf();
    let variants = build::planned(&manifest, None).unwrap();
    // 4 single-entry compute shaders, textured's 2 entries, lit's 7 variants, tonemap's 2.
    assert_eq!(variants.len(), 15);
    let opts = BuildOptions {
        use_cache: false,
        jobs: Some(2),
        ..BuildOptions::new(&manifest.path)
    };
    let r = build::build_variants(&manifest, variants.clone(), &opts, &build::NoProgress).unwrap();
    assert!(r.success(), "{}", r.render_failures());
    let mut validated = 0;
    for v in &variants {
        for (t, path) in &v.outputs {
            if *t != OutputKind::Spirv {
                continue;
            }
            let bytes = std::fs::read(path).unwrap();
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            oneshader_test_tools::spirv_val(&words, v.options.target_env)
                .unwrap_or_else(|e| panic!("{}: {e}", v.id));
            validated += 1;
        }
    }
    assert_eq!(validated, 15);
    // The spec-constant axis folded `kOutputSrgb` both ways: two different modules.
    let srgb = |b: bool| std::fs::read(out.path().join(format!("tonemap.srgb-{b}.spv"))).unwrap();
    assert_ne!(srgb(true), srgb(false));
}
