"""Tests of the `oneshader` Python module (the wheel built from python/).

Run by python/tests/wheel.rs (`cargo test -p oneshader-python`, part of `cargo xtask test`),
which builds the wheel, installs it into a venv and runs pytest over this folder.
"""

import pathlib
import re
import struct
import warnings

import pytest

import oneshader

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "hlsl"

# Every example shader's entry points and profiles (examples/oneshader.toml's list).
EXAMPLE_ENTRIES = {
    "blur.hlsl": [("main", "cs_6_0")],
    "histogram.hlsl": [("main", "cs_6_0")],
    "particles.hlsl": [("main", "cs_6_0")],
    "prefix_sum.hlsl": [("main", "cs_6_0")],
    "tonemap.hlsl": [("main", "cs_6_0")],
    "textured.hlsl": [("VSMain", "vs_6_0"), ("PSMain", "ps_6_0")],
    "lit.hlsl": [("VSMain", "vs_6_0"), ("PSMain", "ps_6_0")],
}

SPIRV_MAGIC = 0x07230203

BAD = "float4 main() : SV_Target\n{\n    return missing;\n}\n"


def example(name):
    return (EXAMPLES / name).read_text()


def spirv_words(data):
    assert len(data) % 4 == 0 and len(data) >= 20, len(data)
    return struct.unpack("<%dI" % (len(data) // 4), data)


def test_every_example_is_listed():
    on_disk = sorted(p.name for p in EXAMPLES.glob("*.hlsl"))
    assert on_disk == sorted(EXAMPLE_ENTRIES), "add the new example to EXAMPLE_ENTRIES"


@pytest.mark.parametrize(
    "file,entry,profile",
    [(f, e, p) for f, entries in EXAMPLE_ENTRIES.items() for e, p in entries],
)
def test_examples_compile_to_spirv(file, entry, profile):
    r = oneshader.compile(
        example(file), entry=entry, profile=profile, name=str(EXAMPLES / file)
    )
    assert isinstance(r.output, bytes)
    assert spirv_words(r.output)[0] == SPIRV_MAGIC
    assert r.target == "spirv" and r.text is None
    assert r.stage in ("compute", "vertex", "fragment")
    assert re.fullmatch("[0-9a-f]{32}", r.cache_key)
    # lit.hlsl includes lighting.hlsli from beside it: the inputs name both.
    if file == "lit.hlsl":
        assert any(i.endswith("lighting.hlsli") for i in r.inputs), r.inputs


def test_blur_reflection_is_a_dict_of_the_shader():
    r = oneshader.compile(example("blur.hlsl"), profile="cs_6_0", name="blur.hlsl")
    refl = r.reflection
    assert isinstance(refl, dict)
    (ep,) = refl["entry_points"]
    assert ep["name"] == "main"
    assert ep["workgroup_size"] == [64, 1, 1]
    by_name = {res["name"]: res for res in refl["resources"]}
    assert set(by_name) >= {"BlurParams", "source", "destination"}
    assert by_name["BlurParams"]["binding"] == 0
    assert by_name["source"]["binding"] == 1
    assert by_name["destination"]["binding"] == 2


def test_reflect_false_gives_no_reflection():
    r = oneshader.compile(example("blur.hlsl"), profile="cs_6_0", reflect=False)
    assert r.reflection is None


def test_bad_shader_raises_compile_error_with_position():
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(BAD, profile="ps_6_0", name="bad.hlsl")
    e = info.value
    assert isinstance(e, Exception)
    assert e.code == "OSH1001"
    assert e.phase == "front-end"
    (d,) = e.diagnostics
    assert isinstance(d, oneshader.Diagnostic)
    assert (d.severity, d.code, d.file, d.line, d.column) == (
        "error",
        "OSH1001",
        "bad.hlsl",
        3,
        12,
    )
    assert d.is_error
    assert "undefined name `missing`" in d.message
    assert d.rendered.startswith("bad.hlsl:3:12: error[OSH1001]:")
    # The exception's message is the rendered text, source line and caret included.
    assert str(e) == d.rendered.rstrip()
    assert "return missing;" in str(e) and "^" in str(e)
    assert e.summary == "bad.hlsl: the source has errors (1 error)"


def test_warnings_are_diagnostics_and_wx_makes_them_errors():
    src = (
        "RWStructuredBuffer<uint> o : register(u0);\n"
        "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { o[0] = id.x / 0; }\n"
    )
    r = oneshader.compile(src, profile="cs_6_0", name="w.hlsl")
    assert [w.code for w in r.warnings] == ["OSH1032"]
    assert r.warnings[0].line == 2 and r.warnings[0].severity == "warning"
    assert "OSH1032" in r.rendered
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(src, profile="cs_6_0", name="w.hlsl", args=["-WX"])
    assert [d.code for d in info.value.diagnostics] == ["OSH1032", "OSC0060"]
    quiet = oneshader.compile(src, profile="cs_6_0", args=["-no-warnings"])
    assert quiet.diagnostics == []


def test_args_define_reaches_the_preprocessor():
    src = (
        "RWStructuredBuffer<uint> o : register(u0);\n"
        "[numthreads(1, 1, 1)] void main() { o[0] = VALUE; }\n"
    )
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(src, profile="cs_6_0")
    assert info.value.code == "OSH1001"
    r = oneshader.compile(src, profile="cs_6_0", args=["-DVALUE=3"])
    assert spirv_words(r.output)[0] == SPIRV_MAGIC
    r = oneshader.compile(src, profile="cs_6_0", args=["-D", "VALUE=4", "-O0"])
    assert spirv_words(r.output)[0] == SPIRV_MAGIC


def test_args_binding_shift_moves_bindings():
    src = example("blur.hlsl")
    r = oneshader.compile(
        src, profile="cs_6_0", args=["-fvk-b-shift", "10", "0", "-fvk-u-shift", "20", "0"]
    )
    by_name = {res["name"]: res for res in r.reflection["resources"]}
    assert by_name["BlurParams"]["binding"] == 10
    assert by_name["destination"]["binding"] == 22
    assert by_name["source"]["binding"] == 1


def test_args_give_profile_entry_and_target():
    src = "[numthreads(1, 1, 1)] void CSMain() {}"
    r = oneshader.compile(src, args=["-T", "cs_6_0", "-E", "CSMain", "--target", "glsl"])
    assert r.target == "glsl" and "void main()" in r.text
    # The keywords win over args.
    r = oneshader.compile(src, entry="CSMain", profile="cs_6_0", target="spirv", args=["--target", "glsl"])
    assert r.target == "spirv"


@pytest.mark.parametrize(
    "args,code,option",
    [
        (["-Zs"], "OSC0050", "-Zs"),
        (["-no-such-option"], "OSC0050", "-no-such-option"),
        (["-fspv-target-env=vulkan9"], "OSC0055", None),
        (["-fvk-b-shift", "1"], "OSC0050", "-fvk-b-shift"),
    ],
)
def test_args_that_do_not_parse_raise_with_their_code(args, code, option):
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(example("blur.hlsl"), profile="cs_6_0", args=args)
    assert info.value.code == code
    if option is not None:
        assert info.value.option == option
    assert f"error[{code}]" in str(info.value)


@pytest.mark.parametrize(
    "args",
    [["input.hlsl"], ["-Fo", "out.spv"], ["--reflect", "r.json"], ["-MD"], ["-P"]],
)
def test_args_naming_files_are_refused(args):
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(example("blur.hlsl"), profile="cs_6_0", args=args)
    assert info.value.code == "OSC0050"


def test_text_targets_give_text():
    src = example("blur.hlsl")
    expect = {
        "spirv-asm": "OpCapability Shader",
        "glsl": "#version 450",
        "wgsl": "@compute",
        "msl": "kernel",
        "ir": "func",
        "reflection": '"entry_points"',
    }
    for target, marker in expect.items():
        r = oneshader.compile(src, profile="cs_6_0", target=target)
        assert r.target == target
        assert marker in r.text, (target, r.text[:200])
        assert r.output == r.text.encode()
    assert sorted(oneshader.TARGETS) == sorted(list(expect) + ["spirv", "osir"])


def test_unknown_target_and_missing_profile_raise():
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(example("blur.hlsl"), profile="cs_6_0", target="dxil")
    assert info.value.code == "OSC0050" and "dxil" in str(info.value)
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(example("blur.hlsl"))
    assert info.value.code == "OSC0050" and "profile" in str(info.value)
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.compile(example("blur.hlsl"), profile="xs_9_9")
    assert info.value.diagnostics[0].severity == "error"


def test_bad_argument_types_are_type_errors():
    with pytest.raises(TypeError):
        oneshader.compile(example("blur.hlsl").encode(), profile="cs_6_0")
    with pytest.raises(TypeError):
        oneshader.compile(None, profile="cs_6_0")
    with pytest.raises(TypeError):
        oneshader.compile(example("blur.hlsl"), profile=6)
    with pytest.raises(TypeError):
        oneshader.compile(example("blur.hlsl"), profile="cs_6_0", args="-O0")
    with pytest.raises(TypeError):
        oneshader.compile(example("blur.hlsl"), "cs_6_0")
    with pytest.raises(TypeError):
        oneshader.load_osir("not bytes")
    with pytest.raises(TypeError):
        oneshader.emit(b"not a module")
    with pytest.raises(TypeError):
        oneshader.link([1, 2])


def test_includes_from_memory_and_no_filesystem():
    src = '#include "common.hlsli"\nRWStructuredBuffer<uint> o;\n[numthreads(N, 1, 1)] void main() { o[0] = N; }\n'
    r = oneshader.compile(
        src, profile="cs_6_0", includes={"common.hlsli": "#define N 8\n"}, filesystem=False
    )
    assert r.reflection["entry_points"][0]["workgroup_size"] == [8, 1, 1]
    with pytest.raises(oneshader.CompileError):
        oneshader.compile(src, profile="cs_6_0", filesystem=False)


LIB = "export float scale(float a, float b) { return a * b; }\n"
SHADER = (
    "float scale(float a, float b);\n"
    "RWStructuredBuffer<float> data : register(u0);\n"
    "[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n"
    "    data[id.x] = scale(data[id.x], 2.0);\n"
    "}\n"
)


def compiled_modules():
    lib = oneshader.compile(LIB, profile="lib_6_3", target="osir", name="lib.hlsl")
    shader = oneshader.compile(SHADER, profile="cs_6_0", target="osir", name="shader.hlsl")
    return lib, shader


def test_osir_save_load_round_trip():
    lib, _ = compiled_modules()
    assert lib.output[:5] == b"\x89OSIR" and lib.text is None
    m = oneshader.load_osir(lib.output)
    assert isinstance(m, oneshader.Module)
    assert m.cache_key == lib.cache_key
    assert m.exports == ["scale(f32,f32)->f32"]
    assert oneshader.save_osir(m) == lib.output
    assert "export(" in m.text()


def test_osir_link_and_emit():
    lib, shader = compiled_modules()
    lib_m, shader_m = oneshader.load_osir(lib.output), oneshader.load_osir(shader.output)
    assert shader_m.imports == ["scale(f32,f32)->f32"]
    linked = oneshader.link([shader_m, lib_m], names=["shader.osir", "lib.osir"])
    assert linked.imports == []
    spv = oneshader.emit(linked, "spirv")
    assert spirv_words(spv.output)[0] == SPIRV_MAGIC
    assert spv.stage == "compute"
    assert spv.reflection["entry_points"][0]["workgroup_size"] == [64, 1, 1]
    glsl = oneshader.emit(linked, "glsl", args=["-O0"])
    assert "layout(local_size_x = 64" in glsl.text
    # A linked module saves and loads again.
    again = oneshader.load_osir(oneshader.save_osir(linked))
    assert spirv_words(oneshader.emit(again).output)[0] == SPIRV_MAGIC


def test_link_with_a_missing_symbol_raises():
    _, shader = compiled_modules()
    with pytest.raises(oneshader.CompileError) as info:
        oneshader.link([oneshader.load_osir(shader.output)])
    e = info.value
    assert e.code and e.code.startswith("OS")
    assert "scale" in str(e)


def test_link_without_entry_points_warns():
    lib, _ = compiled_modules()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        oneshader.link([oneshader.load_osir(lib.output)])
    assert any("OSC0046" in str(w.message) for w in caught)
    kept = oneshader.link([oneshader.load_osir(lib.output)], keep_exports=True)
    assert kept.exports == ["scale(f32,f32)->f32"]


def test_damaged_osir_raises_with_a_code():
    lib, _ = compiled_modules()
    good = lib.output
    damaged = [
        b"",
        b"garbage",
        good[:10],
        good[: len(good) // 2],
        good[:30] + bytes([good[30] ^ 0xFF]) + good[31:],
        good[:-1] + bytes([good[-1] ^ 0x55]),
    ]
    for data in damaged:
        with pytest.raises(oneshader.CompileError) as info:
            oneshader.load_osir(data, name="lib.osir")
        e = info.value
        assert re.fullmatch(r"OS[LV]\d{4}", e.code), (e.code, str(e))
        assert str(e).startswith("lib.osir: error[")


MANIFEST = """
out_dir = "out"

[[shader]]
file = "k.hlsl"
profile = "cs_6_0"
targets = ["spirv", "reflection"]
"""

KERNEL = "RWStructuredBuffer<uint> o;\n[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = i; }\n"


def test_build_manifest(tmp_path):
    (tmp_path / "k.hlsl").write_text(KERNEL)
    manifest = tmp_path / "oneshader.toml"
    manifest.write_text(MANIFEST)
    cache = tmp_path / "cache"
    report = oneshader.build(str(manifest), cache_dir=str(cache), jobs=1)
    assert (report["built"], report["cached"], report["failed"]) == (1, 0, 0)
    assert report["summary"].startswith("1 variant: 1 built, 0 cached, 0 failed")
    (variant,) = report["variants"]
    assert variant["status"] == "built"
    spv = (tmp_path / "out" / "k.main.spv").read_bytes()
    assert spirv_words(spv)[0] == SPIRV_MAGIC
    assert (tmp_path / "out" / "k.main.json").exists()
    # A second build comes from the cache; a path object works too.
    again = oneshader.build(manifest, cache_dir=cache)
    assert (again["built"], again["cached"]) == (0, 1)


def test_build_bad_manifest_raises_with_position(tmp_path):
    manifest = tmp_path / "oneshader.toml"
    manifest.write_text(MANIFEST.replace('"reflection"', '"spirvv"'))
    (tmp_path / "k.hlsl").write_text(KERNEL)
    with pytest.raises(oneshader.BuildError) as info:
        oneshader.build(manifest, use_cache=False)
    e = info.value
    assert isinstance(e, oneshader.CompileError)
    assert e.code == "OSD0003"
    (d,) = e.diagnostics
    assert d.line == 7 and d.column is not None and d.file.endswith("oneshader.toml")
    assert "spirvv" in str(e)
    with pytest.raises(oneshader.BuildError) as info:
        oneshader.build(tmp_path / "missing.toml")
    assert info.value.code == "OSD0001"


def test_build_failing_variant_raises_with_report(tmp_path):
    manifest = tmp_path / "oneshader.toml"
    manifest.write_text(MANIFEST)
    (tmp_path / "k.hlsl").write_text(BAD.replace("float4 main() : SV_Target", "[numthreads(1,1,1)] void main()"))
    with pytest.raises(oneshader.BuildError) as info:
        oneshader.build(manifest, use_cache=False)
    e = info.value
    assert e.report["failed"] == 1
    assert e.report["variants"][0]["status"] == "failed"
    assert e.code == "OSH1001"
    assert "k.hlsl:3:12: error[OSH1001]" in str(e)


def test_docs_python_md_example_runs(tmp_path, monkeypatch):
    """Runs every ```python block of docs/python.md, in order, in one namespace."""
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "docs/python.md has no ```python block"
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "docs_python_md"}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)


def test_version_and_all_are_exported():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", oneshader.__version__)
    assert "__version__" in oneshader.__all__
    for name in oneshader.__all__:
        assert hasattr(oneshader, name), name


def _stub():
    import ast

    return ast.parse((ROOT / "python" / "oneshader.pyi").read_text())


def _public(names):
    return {n for n in names if not n.startswith("_")}


def test_stub_names_the_module_s_api():
    """python/oneshader.pyi (packed into the wheel) declares exactly what the module has."""
    import ast
    import inspect

    tree = _stub()
    declared = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            declared[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            declared[node.target.id] = node
    assert set(declared) - {"__version__"} == set(oneshader.__all__) - {"__version__"}
    for name, node in declared.items():
        obj = getattr(oneshader, name)
        if isinstance(node, ast.FunctionDef):
            sig = inspect.signature(obj)
            stub_args = [a.arg for a in node.args.args] + ["*"] + [a.arg for a in node.args.kwonlyargs]
            real = [p.name for p in sig.parameters.values() if p.kind != p.KEYWORD_ONLY]
            real += ["*"] + [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]
            assert stub_args == real, (name, stub_args, real)
        elif isinstance(node, ast.ClassDef) and not issubclass(obj, Exception):
            members = {
                n.target.id if isinstance(n, ast.AnnAssign) else n.name
                for n in node.body
                if isinstance(n, (ast.AnnAssign, ast.FunctionDef))
            }
            assert members == _public(dir(obj)), (name, members ^ _public(dir(obj)))


def test_the_wheel_carries_the_stub():
    package = pathlib.Path(oneshader.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "__init__.pyi").read_text() == (ROOT / "python" / "oneshader.pyi").read_text()


def test_threads_compile_at_once():
    """The GIL is released while compiling: threads get the same bytes as one at a time."""
    from concurrent.futures import ThreadPoolExecutor

    def run(job):
        file, entry, profile = job
        path = str(EXAMPLES / file)
        return oneshader.compile(example(file), entry=entry, profile=profile, name=path).output

    jobs = [(f, e, p) for f, entries in EXAMPLE_ENTRIES.items() for e, p in entries]
    one_by_one = [run(j) for j in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        at_once = list(pool.map(run, jobs))
    assert at_once == one_by_one
