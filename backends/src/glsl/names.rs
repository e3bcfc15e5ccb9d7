//! Identifiers: names from the IR's name hints, made legal and unique for GLSL.
//!
//! A hint is reduced to `[A-Za-z_][A-Za-z0-9_]*` (other characters become `_`, runs of `_`
//! collapse so no `__` appears, which GLSL reserves), cut to 48 characters, and renamed when
//! it is a keyword, a reserved word, a built-in type or a built-in function name (a local
//! named `texture` would hide the function) or starts with `gl_`. A name already taken in the
//! scope gets the first free suffix `_1`, `_2`, ... A name never starts with `_` (a leading
//! `_` becomes `v_`), so the backend names values without hints `_N` without asking.
//! Module-level names (structs, blocks, globals, functions, helpers) live in one scope; each
//! function's locals in a child scope that also avoids every module-level name, so no local
//! hides a global the function uses.

use std::sync::OnceLock;

use rustc_hash::FxHashSet;

pub(crate) use crate::text::names::Namer;

/// A scope of GLSL names.
pub(crate) fn namer() -> Namer {
    Namer::new(is_reserved, "gl_")
}

/// GLSL 4.60 keywords and reserved words, Vulkan GLSL's types, and the extension types and
/// built-in functions the backend may emit. Identifiers in this list are renamed.
const RESERVED: &[&str] = &[
    // Keywords.
    "const",
    "uniform",
    "buffer",
    "shared",
    "attribute",
    "varying",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "atomic_uint",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "invariant",
    "precise",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "int",
    "void",
    "bool",
    "true",
    "false",
    "float",
    "double",
    "discard",
    "return",
    "uint",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "struct",
    "main",
    "demote",
    "terminateInvocation",
    "nonuniformEXT",
    // Reserved for future use.
    "common",
    "partition",
    "active",
    "asm",
    "class",
    "union",
    "enum",
    "typedef",
    "template",
    "this",
    "resource",
    "goto",
    "inline",
    "noinline",
    "public",
    "static",
    "extern",
    "external",
    "interface",
    "long",
    "short",
    "half",
    "fixed",
    "unsigned",
    "superp",
    "input",
    "output",
    "hvec2",
    "hvec3",
    "hvec4",
    "fvec2",
    "fvec3",
    "fvec4",
    "filter",
    "sizeof",
    "cast",
    "namespace",
    "using",
    "sampler3DRect",
    "packed",
    "row_major",
    "column_major",
    "std140",
    "std430",
    "scalar",
    "location",
    "binding",
    "set",
    "offset",
    "align",
    "push_constant",
    "constant_id",
    "local_size_x",
    "local_size_y",
    "local_size_z",
    "index",
    "component",
    "xfb_buffer",
    "xfb_offset",
    "xfb_stride",
    "early_fragment_tests",
    "input_attachment_index",
    // Sampler, texture and image types (prefix and dimension combinations are listed by
    // `is_opaque_type_name`).
    "sampler",
    "samplerShadow",
    "subpassInput",
    "isubpassInput",
    "usubpassInput",
    "subpassInputMS",
    "isubpassInputMS",
    "usubpassInputMS",
    "accelerationStructureEXT",
    "rayQueryEXT",
    // Built-in functions.
    "radians",
    "degrees",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "exp",
    "log",
    "exp2",
    "log2",
    "sqrt",
    "inversesqrt",
    "abs",
    "sign",
    "floor",
    "trunc",
    "round",
    "roundEven",
    "ceil",
    "fract",
    "mod",
    "modf",
    "min",
    "max",
    "clamp",
    "mix",
    "step",
    "smoothstep",
    "isnan",
    "isinf",
    "floatBitsToInt",
    "floatBitsToUint",
    "intBitsToFloat",
    "uintBitsToFloat",
    "fma",
    "frexp",
    "ldexp",
    "packUnorm2x16",
    "packSnorm2x16",
    "packUnorm4x8",
    "packSnorm4x8",
    "unpackUnorm2x16",
    "unpackSnorm2x16",
    "unpackUnorm4x8",
    "unpackSnorm4x8",
    "packHalf2x16",
    "unpackHalf2x16",
    "packDouble2x32",
    "unpackDouble2x32",
    "length",
    "distance",
    "dot",
    "cross",
    "normalize",
    "faceforward",
    "reflect",
    "refract",
    "matrixCompMult",
    "outerProduct",
    "transpose",
    "determinant",
    "inverse",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
    "any",
    "all",
    "not",
    "uaddCarry",
    "usubBorrow",
    "umulExtended",
    "imulExtended",
    "bitfieldExtract",
    "bitfieldInsert",
    "bitfieldReverse",
    "bitCount",
    "findLSB",
    "findMSB",
    "textureSize",
    "textureQueryLod",
    "textureQueryLevels",
    "textureSamples",
    "texture",
    "textureProj",
    "textureLod",
    "textureOffset",
    "texelFetch",
    "texelFetchOffset",
    "textureProjOffset",
    "textureLodOffset",
    "textureProjLod",
    "textureProjLodOffset",
    "textureGrad",
    "textureGradOffset",
    "textureProjGrad",
    "textureProjGradOffset",
    "textureGather",
    "textureGatherOffset",
    "textureGatherOffsets",
    "textureClampARB",
    "textureOffsetClampARB",
    "textureGradClampARB",
    "textureGradOffsetClampARB",
    "sparseTexelsResidentARB",
    "atomicAdd",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompSwap",
    "atomicLoad",
    "atomicStore",
    "imageSize",
    "imageSamples",
    "imageLoad",
    "imageStore",
    "imageAtomicAdd",
    "imageAtomicMin",
    "imageAtomicMax",
    "imageAtomicAnd",
    "imageAtomicOr",
    "imageAtomicXor",
    "imageAtomicExchange",
    "imageAtomicCompSwap",
    "imageAtomicLoad",
    "imageAtomicStore",
    "dFdx",
    "dFdy",
    "dFdxFine",
    "dFdyFine",
    "dFdxCoarse",
    "dFdyCoarse",
    "fwidth",
    "fwidthFine",
    "fwidthCoarse",
    "interpolateAtCentroid",
    "interpolateAtSample",
    "interpolateAtOffset",
    "barrier",
    "memoryBarrier",
    "memoryBarrierAtomicCounter",
    "memoryBarrierBuffer",
    "memoryBarrierShared",
    "memoryBarrierImage",
    "groupMemoryBarrier",
    "controlBarrier",
    "subpassLoad",
    "anyInvocation",
    "allInvocations",
    "allInvocationsEqual",
    "noise1",
    "noise2",
    "noise3",
    "noise4",
    "EmitVertex",
    "EndPrimitive",
    "EmitStreamVertex",
    "EndStreamPrimitive",
    "subgroupBarrier",
    "subgroupMemoryBarrier",
    "subgroupElect",
    "subgroupAll",
    "subgroupAny",
    "subgroupAllEqual",
    "subgroupBroadcast",
    "subgroupBroadcastFirst",
    "subgroupBallot",
    "subgroupInverseBallot",
    "subgroupBallotBitExtract",
    "subgroupBallotBitCount",
    "subgroupBallotInclusiveBitCount",
    "subgroupBallotExclusiveBitCount",
    "subgroupBallotFindLSB",
    "subgroupBallotFindMSB",
    "subgroupShuffle",
    "subgroupShuffleXor",
    "subgroupShuffleUp",
    "subgroupShuffleDown",
    "subgroupAdd",
    "subgroupMul",
    "subgroupMin",
    "subgroupMax",
    "subgroupAnd",
    "subgroupOr",
    "subgroupXor",
    "subgroupInclusiveAdd",
    "subgroupInclusiveMul",
    "subgroupExclusiveAdd",
    "subgroupExclusiveMul",
    "subgroupQuadBroadcast",
    "subgroupQuadSwapHorizontal",
    "subgroupQuadSwapVertical",
    "subgroupQuadSwapDiagonal",
    "doubleBitsToInt64",
    "doubleBitsToUint64",
    "int64BitsToDouble",
    "uint64BitsToDouble",
    "float16BitsToInt16",
    "float16BitsToUint16",
    "int16BitsToFloat16",
    "uint16BitsToFloat16",
    "packFloat2x16",
    "unpackFloat2x16",
    "packInt2x32",
    "unpackInt2x32",
    "packUint2x32",
    "unpackUint2x32",
    "packInt2x16",
    "unpackInt2x16",
    "packUint2x16",
    "unpackUint2x16",
];

/// True for the names of GLSL's opaque types: `[iu]?(sampler|texture|image)` followed by a
/// dimension (`2D`, `CubeArray`, `2DMS`...) and, for samplers, `Shadow`; `f16` and `64`
/// variants included.
fn is_opaque_type_name(s: &str) -> bool {
    if !(s.contains("sampler") || s.contains("texture") || s.contains("image")) {
        return false;
    }
    const DIMS: &[&str] = &[
        "1D",
        "2D",
        "3D",
        "Cube",
        "2DRect",
        "Buffer",
        "2DMS",
        "1DArray",
        "2DArray",
        "CubeArray",
        "2DMSArray",
    ];
    let s = s.strip_prefix("f16").unwrap_or(s);
    let kinds = |s: &str| {
        ["sampler", "texture", "image"].iter().any(|p| {
            s.strip_prefix(p).is_some_and(|rest| {
                let rest = rest.strip_suffix("Shadow").unwrap_or(rest);
                DIMS.contains(&rest)
            })
        })
    };
    let unprefixed = ["i64", "u64", "i", "u"]
        .iter()
        .filter_map(|p| s.strip_prefix(p))
        .any(kinds);
    kinds(s) || unprefixed
}

/// True for the names of GLSL's scalar, vector and matrix types, the explicit-arithmetic
/// types included (`vec3`, `dmat4x2`, `u16vec2`, `float16_t`, `i64vec4`...).
fn is_numeric_type_name(s: &str) -> bool {
    const SCALARS: &[&str] = &[
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "float16_t",
        "float32_t",
        "float64_t",
    ];
    if SCALARS.contains(&s) {
        return true;
    }
    if !(s.contains("vec") || s.contains("mat")) {
        return false;
    }
    [
        "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "b", "i", "u",
        "d", "",
    ]
    .iter()
    .filter_map(|p| s.strip_prefix(p))
    .any(|r| {
        let dims = |t: &str| {
            let b = t.as_bytes();
            match b {
                [a] => (b'2'..=b'4').contains(a),
                [a, b'x', c] => (b'2'..=b'4').contains(a) && (b'2'..=b'4').contains(c),
                _ => false,
            }
        };
        r.strip_prefix("vec").is_some_and(dims) || r.strip_prefix("mat").is_some_and(dims)
    })
}

/// [`RESERVED`] as a set.
fn reserved_set() -> &'static FxHashSet<&'static str> {
    static SET: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| RESERVED.iter().copied().collect())
}

/// True when `s` may not be used as an identifier as it is.
pub(crate) fn is_reserved(s: &str) -> bool {
    s.starts_with("gl_")
        || s.contains("__")
        || reserved_set().contains(s)
        || is_numeric_type_name(s)
        || is_opaque_type_name(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_become_legal_unique_identifiers() {
        let mut n = namer();
        assert_eq!(n.fresh(Some("r.r"), "v", None), "r_r");
        assert_eq!(n.fresh(Some("r.r"), "v", None), "r_r_1");
        assert_eq!(n.fresh(Some("gl_Position"), "v", None), "v_gl_Position");
        assert_eq!(n.fresh(Some("texture"), "v", None), "texture_1");
        assert_eq!(n.fresh(Some("a__b"), "v", None), "a_b");
        assert_eq!(n.fresh(Some("3d"), "v", None), "v3d");
        assert_eq!(n.fresh(None, "t", None), "t");
        assert_eq!(n.fresh(None, "t", None), "t_1");
        assert_eq!(n.fresh(Some("in.var.COLOR"), "v", None), "in_var_COLOR");
        assert_eq!(n.fresh(Some("vec3"), "v", None), "vec3_1");
        assert_eq!(n.fresh(Some("u16vec2"), "v", None), "u16vec2_1");
        assert_eq!(
            n.fresh(Some("texture2DArray"), "v", None),
            "texture2DArray_1"
        );
        assert_eq!(n.fresh(Some("_x"), "v", None), "v_x");
        assert_eq!(n.fresh(Some("..."), "w", None), "w");
        let mut inner = namer();
        assert_eq!(inner.fresh(Some("r_r"), "v", Some(&n)), "r_r_2");
        assert!(!is_reserved("texcoord"));
        assert!(is_reserved("isampler2DMSArray"));
        assert!(is_reserved("dmat4x3"));
        assert!(!is_reserved("mat5"));
        assert!(!is_reserved("sampler1"));
        assert!(is_reserved("sampler2DArrayShadow"));
        assert!(is_reserved("utextureCube"));
        assert_eq!(n.fresh(Some("sampler1"), "v", None), "sampler1");
        assert_eq!(n.fresh(Some("sampler1"), "v", None), "sampler1_1");
        assert_eq!(n.fresh(Some("image2D"), "v", None), "image2D_1");
    }
}
