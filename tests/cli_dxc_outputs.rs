//! DXC's output options through the binary: `-Fh`/`-Vn` (a C header a C and a C++ compiler
//! accept, whose array holds the SPIR-V bytes), `-Fc` (the listing), `-Fre` (reflection),
//! `-fspv-entrypoint-name`, `-Qstrip_debug`, `-WX`, `-Od`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("oneshader-dxc-out-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const PIXEL: &str = "
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s0);
float4 PSMain(float2 uv : TEXCOORD0) : SV_Target { return tex.Sample(samp, uv) * 2.0; }
";

fn compile(d: &Path, extra: &[&str]) -> Output {
    let src = d.join("ps.hlsl");
    std::fs::write(&src, PIXEL).expect("write");
    bin()
        .arg("compile")
        .arg(&src)
        .args(["-T", "ps_6_0", "-E", "PSMain"])
        .args(extra)
        .current_dir(d)
        .output()
        .expect("the binary runs")
}

fn spirv_val(path: &Path) {
    if let Err(e) = oneshader_test_tools::spirv_val_file(path, &["--target-env", "vulkan1.2"]) {
        panic!("{e}");
    }
}

/// The program checks, at run time, that the header's array is the `.spv` file byte for byte.
const CHECK_C: &str = r#"
#include <stdio.h>
#include <string.h>
#include "shader.h"
int main(int argc, char **argv) {
    static unsigned char file[1 << 20];
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    if (n != sizeof(NAME)) { printf("size %zu != %zu\n", n, sizeof(NAME)); return 3; }
    if (memcmp(file, NAME, n) != 0) { printf("bytes differ\n"); return 4; }
    if (NAME[0] != 0x03 || NAME[3] != 0x07) { printf("not SPIR-V\n"); return 5; }
    printf("ok %zu\n", n);
    return 0;
}
"#;

fn build_and_run(d: &Path, compiler: &str, source: &str, name: &str, spv: &Path) {
    let prog = d.join(format!("check-{compiler}"));
    let file = d.join(source);
    std::fs::write(&file, CHECK_C).expect("write");
    let o = Command::new(compiler)
        .arg(format!("-DNAME={name}"))
        .args(["-Wall", "-Werror", "-I"])
        .arg(d)
        .arg(&file)
        .arg("-o")
        .arg(&prog)
        .output()
        .unwrap_or_else(|e| panic!("`{compiler}` runs (Debian's gcc/g++): {e}"));
    assert!(o.status.success(), "{compiler}: {}", stderr(&o));
    let run = Command::new(&prog).arg(spv).output().expect("runs");
    assert!(
        run.status.success(),
        "{compiler}: {}",
        String::from_utf8_lossy(&run.stdout)
    );
}

#[test]
fn fh_writes_a_header_c_and_cpp_compile_holding_the_spirv() {
    let d = dir("fh");
    let o = compile(
        &d,
        &[
            "-Fh", "shader.h", "-Vn", "g_ps", "-Fo", "ps.spv", "-Fc", "ps.asm",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    spirv_val(&d.join("ps.spv"));
    let header = std::fs::read_to_string(d.join("shader.h")).expect("the header");
    assert!(header.starts_with("#if 0\r\n"), "{header}");
    assert!(
        header.contains(
            "\r\n#endif\r\n\r\nconst unsigned char g_ps[] = {\r\n  0x03, 0x02, 0x23, 0x07,"
        ),
        "{header}"
    );
    assert!(header.ends_with("\r\n};\r\n"), "{header}");
    build_and_run(&d, "cc", "check.c", "g_ps", &d.join("ps.spv"));
    build_and_run(&d, "c++", "check.cpp", "g_ps", &d.join("ps.spv"));
    let listing = std::fs::read_to_string(d.join("ps.asm")).expect("the listing");
    assert!(listing.contains("OpEntryPoint Fragment"), "{listing}");
    // The header's comment is the same listing.
    assert!(header.contains(&listing.trim_end().replace('\n', "\r\n")));
    // Without `-Vn` the array is `g_` and the entry point; with `-Fh` and no `-Fo` only the
    // header is written (nothing on stdout).
    let o = compile(&d, &["-Fh", "default.h"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let header = std::fs::read_to_string(d.join("default.h")).expect("the header");
    assert!(
        header.contains("const unsigned char g_PSMain[] = {"),
        "{header}"
    );
    // A header of text output is refused.
    let o = compile(&d, &["-Fh", "x.h", "--target", "glsl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`-Fh` writes SPIR-V"), "{}", stderr(&o));
}

#[test]
fn fspv_entrypoint_name_renames_the_op_entry_point() {
    let d = dir("name");
    let o = compile(&d, &["-fspv-entrypoint-name=renamed", "-Fo", "ps.spv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    spirv_val(&d.join("ps.spv"));
    let o = compile(
        &d,
        &["-fspv-entrypoint-name=renamed", "--target", "spirv-asm"],
    );
    let asm = String::from_utf8_lossy(&o.stdout);
    assert!(
        asm.contains("OpEntryPoint Fragment %") && asm.contains("\"renamed\""),
        "{asm}"
    );
    assert!(
        !asm.contains("OpEntryPoint Fragment %PSMain \"PSMain\""),
        "{asm}"
    );
    // Other targets refuse it by name.
    let o = compile(&d, &["-fspv-entrypoint-name=renamed", "--target", "msl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error[OSC0050]: `-fspv-entrypoint-name=`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fre_qstrip_debug_wx_od() {
    let d = dir("misc");
    let o = compile(&d, &["-Fre", "r.json", "-Fo", "ps.spv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = std::fs::read_to_string(d.join("r.json")).expect("the reflection");
    assert!(
        json.contains("\"tex\"") && json.contains("\"samp\""),
        "{json}"
    );
    // -Qstrip_debug: no OpName, otherwise the same module.
    let named = compile(&d, &["--target", "spirv-asm"]);
    let stripped = compile(&d, &["--target", "spirv-asm", "-Qstrip_debug"]);
    let (named, stripped) = (
        String::from_utf8_lossy(&named.stdout).into_owned(),
        String::from_utf8_lossy(&stripped.stdout).into_owned(),
    );
    assert!(named.contains("OpName"), "{named}");
    assert!(
        !stripped.contains("OpName") && stripped.contains("OpEntryPoint"),
        "{stripped}"
    );
    // -Od is -O0.
    let od = compile(&d, &["--target", "ir", "-Od"]);
    let o0 = compile(&d, &["--target", "ir", "-O0"]);
    let o3 = compile(&d, &["--target", "ir", "-O3"]);
    assert_eq!(od.stdout, o0.stdout);
    assert_ne!(od.stdout, o3.stdout);
    // -WX: a warning fails the compilation.
    let src = d.join("warn.hlsl");
    std::fs::write(
        &src,
        "float4 main(float4 p : POS) : SV_Target { float2 t = p; return t.xyxy; }\n",
    )
    .expect("write");
    let plain = bin()
        .args(["compile"])
        .arg(&src)
        .args(["-T", "ps_6_0", "-o"])
        .arg(d.join("w.spv"))
        .output()
        .expect("runs");
    assert!(
        plain.status.success() && stderr(&plain).contains("warning["),
        "{}",
        stderr(&plain)
    );
    let wx = bin()
        .args(["compile"])
        .arg(&src)
        .args(["-T", "ps_6_0", "-WX", "-o"])
        .arg(d.join("w.spv"))
        .output()
        .expect("runs");
    assert_eq!(wx.status.code(), Some(1));
    assert!(stderr(&wx).contains("error[OSC0060]"), "{}", stderr(&wx));
}

/// DXC's `-fvk-support-nonzero-base-instance`/`-vertex` (its tests
/// `semantic.nonzero-base-{instance,vertex}.vs.hlsl`): the index is `InstanceIndex -
/// BaseInstance` (`VertexIndex - BaseVertex`), both read from input built-ins of one type.
#[test]
fn nonzero_base_instance_and_vertex_subtract_the_base() {
    let d = dir("base");
    let src = d.join("vs.hlsl");
    std::fs::write(
        &src,
        "float4 main(uint i : SV_InstanceID, int v : SV_VertexID) : SV_Position { return float4(i, v, 0, 1); }\n",
    )
    .expect("write");
    let asm = |extra: &[&str]| {
        let o = bin()
            .arg("compile")
            .arg(&src)
            .args(["-T", "vs_6_0", "-O0", "--target", "spirv-asm"])
            .args(extra)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let plain = asm(&[]);
    assert!(
        !plain.contains("BaseInstance") && !plain.contains("BaseVertex"),
        "{plain}"
    );
    assert!(!plain.contains("OpISub"), "{plain}");
    let both = asm(&[
        "-fvk-support-nonzero-base-instance",
        "-fvk-support-nonzero-base-vertex",
    ]);
    assert!(
        both.contains("BuiltIn BaseInstance") && both.contains("BuiltIn BaseVertex"),
        "{both}"
    );
    assert!(both.contains("OpCapability DrawParameters"), "{both}");
    assert_eq!(both.matches("OpISub").count(), 2, "{both}");
    let only = asm(&["-fvk-support-nonzero-base-instance"]);
    assert!(
        only.contains("BuiltIn BaseInstance") && !only.contains("BaseVertex"),
        "{only}"
    );
    let spv = d.join("vs.spv");
    let o = bin()
        .arg("compile")
        .arg(&src)
        .args([
            "-T",
            "vs_6_0",
            "-fvk-support-nonzero-base-instance",
            "-fvk-support-nonzero-base-vertex",
            "-o",
        ])
        .arg(&spv)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    spirv_val(&spv);
}

/// `-Zi` and `-fspv-debug=line` write line information; `-Qembed_debug` adds the text and
/// needs `-Zi`; `-Qstrip_debug` removes it all; the NonSemantic categories are refused.
#[test]
fn zi_embed_and_strip_debug() {
    let d = dir("zi");
    let asm = |extra: &[&str]| {
        let mut args = vec!["--target", "spirv-asm"];
        args.extend_from_slice(extra);
        let o = compile(&d, &args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let plain = asm(&[]);
    assert!(
        !plain.contains("OpLine") && !plain.contains("OpSource "),
        "{plain}"
    );
    let zi = asm(&["-Zi"]);
    assert!(
        zi.contains("OpLine") && zi.contains("OpSource HLSL"),
        "{zi}"
    );
    assert!(
        !zi.contains("tex.Sample(samp, uv)"),
        "no text without -Qembed_debug: {zi}"
    );
    assert_eq!(asm(&["-fspv-debug=line"]), zi);
    let embedded = asm(&["-Zi", "-Qembed_debug"]);
    assert!(embedded.contains("tex.Sample(samp, uv)"), "{embedded}");
    let stripped = asm(&["-Zi", "-Qstrip_debug"]);
    assert!(
        !stripped.contains("OpLine") && !stripped.contains("OpName"),
        "{stripped}"
    );
    // The module with lines validates.
    let o = compile(&d, &["-Zi", "-Qembed_debug", "-Fo", "zi.spv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    spirv_val(&d.join("zi.spv"));
    for (args, needle) in [
        (&["-Qembed_debug"][..], "needs `-Zi`"),
        (
            &["-Zi", "--target", "ir"][..],
            "refused rather than ignored",
        ),
        (
            &["-fspv-debug=vulkan", "--target", "reflection"][..],
            "refused rather than ignored",
        ),
        (&["-fspv-debug=file"][..], "only SPIR-V line information"),
    ] {
        let o = compile(&d, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error[OSC0050]") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
}

/// `-P` preprocesses to `-Fi FILE` or to the input with `.i` (DXC's rule); beside an output
/// option it is refused (DXC ignores the output option with a warning).
#[test]
fn p_preprocesses_to_fi_or_beside_the_input() {
    let d = dir("pre");
    let src = d.join("m.hlsl");
    std::fs::write(
        &src,
        "#define SCALE 3.0\nfloat4 main() : SV_Target { return SCALE; }\n",
    )
    .expect("write");
    let run = |extra: &[&str]| {
        bin()
            .arg("compile")
            .arg(&src)
            .args(["-T", "ps_6_0"])
            .args(extra)
            .current_dir(&d)
            .output()
            .expect("runs")
    };
    let o = run(&["-P", "-Fi", "named.i"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("named.i")).expect("-Fi file");
    assert!(
        text.contains("return 3.0;") && !text.contains("SCALE"),
        "{text}"
    );
    let o = run(&["-P"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("m.i")).expect("the input's .i");
    assert!(text.contains("return 3.0;"), "{text}");
    let o = run(&["-P", "-Fo", "x.spv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error[OSC0050]: `-P` only preprocesses: `-Fo`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["-Fi", "x.i"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`-Fi` names the file `-P` writes"),
        "{}",
        stderr(&o)
    );
}

/// `-fspv-extension=` lists the only extensions the SPIR-V may declare, as DXC reads it: a
/// module needing another is refused naming it; `KHR` permits every `SPV_KHR_*`.
#[test]
fn fspv_extension_permits_only_the_listed_extensions() {
    let d = dir("ext");
    // `SV_StartInstanceLocation` needs SPV_KHR_shader_draw_parameters before SPIR-V 1.3.
    let src = d.join("vs.hlsl");
    std::fs::write(
        &src,
        "float4 main(uint b : SV_StartInstanceLocation) : SV_Position { return float4(b, 0, 0, 1); }\n",
    )
    .expect("write");
    let run = |extra: &[&str]| {
        bin()
            .arg("compile")
            .arg(&src)
            .args([
                "-T",
                "vs_6_8",
                "-fspv-target-env=vulkan1.0",
                "--target",
                "spirv-asm",
            ])
            .args(extra)
            .output()
            .expect("the binary runs")
    };
    let free = run(&[]);
    assert!(free.status.success(), "{}", stderr(&free));
    let asm = String::from_utf8_lossy(&free.stdout).into_owned();
    assert!(
        asm.contains("OpExtension \"SPV_KHR_shader_draw_parameters\""),
        "{asm}"
    );
    for allowed in [
        &["-fspv-extension=SPV_KHR_shader_draw_parameters"][..],
        &["-fspv-extension=KHR"][..],
        &[
            "-fspv-extension=SPV_KHR_ray_query",
            "-fspv-extension=SPV_KHR_shader_draw_parameters",
        ][..],
    ] {
        let o = run(allowed);
        assert!(o.status.success(), "{allowed:?}: {}", stderr(&o));
        assert_eq!(o.stdout, free.stdout, "{allowed:?}");
    }
    let o = run(&["-fspv-extension=SPV_KHR_ray_query"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("error[OSB0015]") && err.contains("`SPV_KHR_shader_draw_parameters`"),
        "{err}"
    );
    let o = run(&["-fspv-extension=SPV_KHR_ray_query", "--target", "wgsl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
