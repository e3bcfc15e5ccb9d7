#!/usr/bin/env python3
"""The two MSL checks this platform allows, on one corpus row (a validator for
/work/shared/bin/hlsl-corpus-run; docs/msl-backend.md "Measuring on the corpus").

usage: corpus_check.py MSL_FILE INPUT ENTRY PROFILE TARGET_ENV CORPUS [-D...]...

1. MSL_FILE (our MSL) compiles with `clang++ -std=c++17 -fsyntax-only` against the stand-in
   <metal_stdlib> (backends/tests/msl_stdlib; there is no Metal compiler on Linux).
2. Its interface (every [[...]] attribute but interpolation qualifiers and stage_in) equals that
   of `spirv-cross --msl` on our SPIR-V of the same row (`oneshader` on PATH builds it).

Exit 0 when both pass; 1 with the reason on stderr otherwise (`clang:` or `interface:` first).
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STDLIB = os.path.join(HERE, "..", "..", "backends", "tests", "msl_stdlib")
SKIP = {
    "stage_in", "maybe_unused", "invariant", "flat", "center_perspective",
    "center_no_perspective", "centroid_perspective", "centroid_no_perspective",
    "sample_perspective", "sample_no_perspective",
}


def interface(text):
    out = set()
    for attrs in re.findall(r"\[\[(.*?)\]\]", text):
        for a in attrs.split(", "):
            a = a.strip()
            if a and a not in SKIP:
                out.add(a)
    return sorted(out)


def main():
    msl, src, entry, profile, env, corpus = sys.argv[1:7]
    defines = sys.argv[7:]
    r = subprocess.run(
        ["clang++", "-x", "c++", "-std=c++17", "-fsyntax-only", "-Wno-unknown-attributes",
         "-I", STDLIB, msl], capture_output=True, text=True)
    if r.returncode != 0 or "error:" in r.stderr:
        first = next((l for l in r.stderr.splitlines() if "error:" in l), r.stderr[:200])
        print("clang: " + first.split("error:", 1)[-1].strip(), file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as d:
        spv = os.path.join(d, "s.spv")
        r = subprocess.run(
            ["oneshader", "compile", src, "-T", profile, "-E", entry, "--target-env", env,
             *defines, "-I", os.path.join(corpus, "dxc", "include"), "-o", spv],
            capture_output=True, text=True, cwd=os.path.dirname(src))
        if r.returncode != 0:
            print("interface: no SPIR-V for the row: " + r.stderr[:200], file=sys.stderr)
            return 1
        r = subprocess.run(["spirv-cross", spv, "--msl", "--msl-version", "20400",
                            "--entry", entry], capture_output=True, text=True)
        if r.returncode != 0:
            print("interface: spirv-cross failed: " + r.stderr[:200], file=sys.stderr)
            return 1
        ours, theirs = interface(open(msl).read()), interface(r.stdout)
        if ours != theirs:
            only_ours = sorted(set(ours) - set(theirs))
            only_theirs = sorted(set(theirs) - set(ours))
            print(f"interface: ours only {only_ours}, spirv-cross only {only_theirs}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
