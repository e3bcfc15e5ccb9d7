//! `precise` on targets that cannot keep it: SPIR-V (`NoContraction`) and GLSL (`precise`)
//! keep it; WGSL and MSL warn at the HLSL position (OSB0214, OSB0313) instead of dropping it
//! silently, and `-WX` makes the warning a failure.

use std::process::Command;

const SRC: &str = "RWStructuredBuffer<float> o : register(u0);
[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float a = o[0], b = o[1], c = o[2];
    precise float r = a * b + c;
    o[3] = r;
    o[4] = a * b + c;
}
";

fn compile(target: &str, extra: &[&str]) -> (bool, String, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("p.hlsl");
    std::fs::write(&src, SRC).expect("written");
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .arg("compile")
        .arg(&src)
        .args(["-T", "cs_6_0", "--target", target])
        .args(extra)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("oneshader runs");
    let text = std::fs::read(&out)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        text,
    )
}

#[test]
fn targets_that_keep_precise_say_nothing_and_keep_it() {
    let (ok, err, text) = compile("glsl", &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert!(text.contains("precise float"), "{text}");
    let (ok, err, text) = compile("spirv-asm", &[]);
    assert!(ok && err.is_empty(), "{err}");
    // The multiply and the add of `r`, not those of the plain `o[4]` store.
    assert_eq!(text.matches("NoContraction").count(), 2, "{text}");
}

#[test]
fn wgsl_and_msl_warn_at_the_precise_operation_and_fail_under_wx() {
    for (target, code) in [("wgsl", "OSB0214"), ("msl", "OSB0313")] {
        for level in ["-O0", "-O"] {
            let (ok, err, text) = compile(target, &[level]);
            assert!(ok, "{target} {level}: {err}");
            assert!(!text.is_empty(), "{target} {level}: no output");
            assert_eq!(err.matches(&format!("warning[{code}]")).count(), 1, "{err}");
            assert!(err.contains("p.hlsl:4:23:"), "{target} {level}: {err}");
            assert!(
                err.contains("1 more `precise` operation in the module is not kept"),
                "{target} {level}: {err}"
            );
        }
        let (ok, err, _) = compile(target, &["-WX"]);
        assert!(!ok, "{target}: -WX accepted the warning");
        assert!(err.contains("error[OSC0060]"), "{target}: {err}");
    }
}
