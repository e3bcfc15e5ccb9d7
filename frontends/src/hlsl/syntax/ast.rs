//! The HLSL abstract syntax tree: plain owned data (`Vec`/`Box`), every node with a [`Span`] in
//! the user's text.
//!
//! The tree records syntax, not meaning: a name is not resolved, `float4(1, 2)` is a
//! [`ExprKind::Construct`] only because `float4` names a type when parsed, `a.xy` is an ordinary
//! [`ExprKind::Member`], attributes keep their arguments as expressions. Semantic analysis decides
//! the rest. Things the parser accepted that a later phase must reject (DX9 effect syntax,
//! modifiers in odd places) are kept as written.

use oneshader_ir::diag::Span;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The spelling.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// A possibly qualified name: `a`, `ns::a`, `::a` (`global` true), `vk::SpirvType`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// Starts with `::`.
    pub global: bool,
    /// The parts, outermost first (at least one).
    pub segments: Vec<Ident>,
    /// The whole path.
    pub span: Span,
}

impl Path {
    /// The last segment (the name itself).
    pub fn last(&self) -> &Ident {
        // A `Path` always has at least one segment (built only by the parser, which guarantees it).
        &self.segments[self.segments.len() - 1]
    }

    /// `a::b::c` as one string.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if self.global {
            s.push_str("::");
        }
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                s.push_str("::");
            }
            s.push_str(&seg.name);
        }
        s
    }
}

/// A whole file after preprocessing.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TranslationUnit {
    /// Top-level declarations in order.
    pub decls: Vec<Decl>,
}

/// `[name(args)]` or `[[ns::name(args)]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// Which bracket form was used.
    pub style: AttributeStyle,
    /// `vk` in `[[vk::binding(0)]]`; empty for `[numthreads(8,8,1)]`. May have several parts.
    pub namespace: Vec<Ident>,
    /// The attribute name.
    pub name: Ident,
    /// The arguments (`None` without parentheses; `Some(vec![])` for `()`).
    pub args: Option<Vec<Expr>>,
    /// Brackets included.
    pub span: Span,
}

/// The bracket form of an [`Attribute`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributeStyle {
    /// `[attr]` (HLSL).
    Single,
    /// `[[attr]]` (C++11 style, used for `vk::` attributes).
    Double,
    /// glslang's `layout(set = 0, binding = 1)` extension.
    Layout,
}

/// A modifier keyword before (or, for `const`, after) a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// `static`
    Static,
    /// `const`
    Const,
    /// `uniform`
    Uniform,
    /// `groupshared`
    Groupshared,
    /// `extern`
    Extern,
    /// `volatile`
    Volatile,
    /// `shared` (DX9 effects)
    Shared,
    /// `precise`
    Precise,
    /// `inline`
    Inline,
    /// `export`
    Export,
    /// `row_major`
    RowMajor,
    /// `column_major`
    ColumnMajor,
    /// `nointerpolation`
    NoInterpolation,
    /// `linear`
    Linear,
    /// `centroid`
    Centroid,
    /// `noperspective`
    NoPerspective,
    /// `sample`
    Sample,
    /// `center`
    Center,
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
    /// `snorm`
    Snorm,
    /// `unorm`
    Unorm,
    /// Geometry-shader input primitive `point`
    Point,
    /// `line`
    Line,
    /// `triangle`
    Triangle,
    /// `lineadj`
    LineAdj,
    /// `triangleadj`
    TriangleAdj,
    /// Mesh-shader output `vertices`
    Vertices,
    /// Mesh-shader output `indices`
    Indices,
    /// Mesh-shader output `primitives`
    Primitives,
    /// Mesh/amplification `payload`
    Payload,
    /// `globallycoherent`
    GloballyCoherent,
    /// `reorder_coherent`
    ReorderCoherent,
    /// `unsigned` as a modifier of a following type (`unsigned int`)
    Unsigned,
    /// `signed`
    Signed,
}

impl Modifier {
    /// The keyword for a modifier.
    pub fn from_keyword(s: &str) -> Option<Modifier> {
        use Modifier::*;
        Some(match s {
            "static" => Static,
            "const" => Const,
            "uniform" => Uniform,
            "groupshared" => Groupshared,
            "extern" => Extern,
            "volatile" => Volatile,
            "shared" => Shared,
            "precise" => Precise,
            "inline" => Inline,
            "export" => Export,
            "row_major" => RowMajor,
            "column_major" => ColumnMajor,
            "nointerpolation" => NoInterpolation,
            "linear" => Linear,
            "centroid" => Centroid,
            "noperspective" => NoPerspective,
            "sample" => Sample,
            "center" => Center,
            "in" => In,
            "out" => Out,
            "inout" => InOut,
            "snorm" => Snorm,
            "unorm" => Unorm,
            "point" => Point,
            "line" => Line,
            "triangle" => Triangle,
            "lineadj" => LineAdj,
            "triangleadj" => TriangleAdj,
            "vertices" => Vertices,
            "indices" => Indices,
            "primitives" => Primitives,
            "payload" => Payload,
            "globallycoherent" => GloballyCoherent,
            "reorder_coherent" => ReorderCoherent,
            "unsigned" => Unsigned,
            "signed" => Signed,
            _ => return None,
        })
    }

    /// The keyword spelling.
    pub fn keyword(self) -> &'static str {
        use Modifier::*;
        match self {
            Static => "static",
            Const => "const",
            Uniform => "uniform",
            Groupshared => "groupshared",
            Extern => "extern",
            Volatile => "volatile",
            Shared => "shared",
            Precise => "precise",
            Inline => "inline",
            Export => "export",
            RowMajor => "row_major",
            ColumnMajor => "column_major",
            NoInterpolation => "nointerpolation",
            Linear => "linear",
            Centroid => "centroid",
            NoPerspective => "noperspective",
            Sample => "sample",
            Center => "center",
            In => "in",
            Out => "out",
            InOut => "inout",
            Snorm => "snorm",
            Unorm => "unorm",
            Point => "point",
            Line => "line",
            Triangle => "triangle",
            LineAdj => "lineadj",
            TriangleAdj => "triangleadj",
            Vertices => "vertices",
            Indices => "indices",
            Primitives => "primitives",
            Payload => "payload",
            GloballyCoherent => "globallycoherent",
            ReorderCoherent => "reorder_coherent",
            Unsigned => "unsigned",
            Signed => "signed",
        }
    }
}

/// A modifier with its place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModifierSpan {
    /// Which modifier.
    pub modifier: Modifier,
    /// Where it is written.
    pub span: Span,
}

/// The syntax of a type (array dimensions live on [`Declarator`]s).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// What kind of type syntax.
    pub kind: TypeKind,
    /// The whole type.
    pub span: Span,
}

/// The forms of type syntax.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// A (possibly qualified) name with optional template arguments: `float4`, `MyStruct`,
    /// `Texture2D<float4>`, `vector<float, 4>`, `ns::S<T>`, `sampler2D`, `unsigned int`.
    Named {
        /// The name.
        path: Path,
        /// `<...>` arguments, when written (`Texture2D` alone is `None`).
        args: Option<Vec<TemplateArg>>,
    },
    /// An inline struct definition used as a type: `struct { float a; } x;` or `struct S {...} s;`.
    Struct(Box<StructDecl>),
    /// `typename T::X` / a dependent name written with `typename`.
    Typename(Path),
    /// A type with modifiers written inside type syntax: `unorm float4` in
    /// `Texture3D<unorm float4>`, `row_major float3x3` in `StructuredBuffer<row_major float3x3>`,
    /// `(row_major float2x2)m`.
    Modified {
        /// The modifiers in order.
        modifiers: Vec<ModifierSpan>,
        /// The modified type.
        inner: Box<TypeExpr>,
    },
    /// An array type written inside type syntax: `sizeof(int[2])`, `Buffer<float[4]>`.
    Array {
        /// The element type.
        element: Box<TypeExpr>,
        /// The dimensions, outermost first.
        dims: Vec<ArrayDim>,
    },
    /// Placeholder after a syntax error.
    Error,
}

/// One template argument: a type, or a constant expression (`Texture2DMS<float4, 4>`).
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    /// A type argument.
    Type(TypeExpr),
    /// A value argument.
    Expr(Expr),
}

/// A template parameter: `typename T`, `class T`, `uint N`, with an optional default.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    /// `None` for `typename`/`class` parameters; the value type otherwise.
    pub value_type: Option<TypeExpr>,
    /// The parameter name (may be absent in `template<typename>`).
    pub name: Option<Ident>,
    /// Default argument.
    pub default: Option<TemplateArg>,
    /// The whole parameter.
    pub span: Span,
}

/// `template<...>` before a function or struct; an empty list is an explicit specialization
/// (`template<>`).
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateHeader {
    /// The parameters.
    pub params: Vec<TemplateParam>,
    /// `template<...>`.
    pub span: Span,
}

/// One array dimension: `[4]`, `[N + 1]`, or unsized `[]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDim {
    /// The size expression (`None` for `[]`).
    pub size: Option<Expr>,
    /// Brackets included.
    pub span: Span,
}

/// What may follow a declarator after `:`.
#[derive(Clone, Debug, PartialEq)]
pub enum PostAnnotation {
    /// `: SV_Target0`, `: TEXCOORD`.
    Semantic(Ident),
    /// `: register(t0, space1)`, `: register(ps_5_0, s0)` (profile then register), or
    /// `: register(space1)`-like forms; every argument kept as written.
    Register {
        /// The arguments, e.g. `["t0", "space1"]` or `["ps_5_0", "s0"]`; each with its span.
        args: Vec<Ident>,
        /// The whole annotation (from `register` through `)`).
        span: Span,
    },
    /// Bit-field width `: 8` (`uint f : 8;`).
    BitField {
        /// The width.
        width: Expr,
    },
    /// `: packoffset(c1.y)`.
    PackOffset {
        /// `c1`.
        register: Ident,
        /// `y`, when given.
        component: Option<Ident>,
        /// The whole annotation.
        span: Span,
    },
}

/// One declared name with its array dimensions, annotations and initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The owner in an out-of-line definition: `S` in `float4 S::M = ...;`, `MyClass<T>` in
    /// `T MyClass<T>::array[2]`.
    pub qualifier: Option<TypeExpr>,
    /// The declared name.
    pub name: Ident,
    /// Array dimensions, outermost first.
    pub array_dims: Vec<ArrayDim>,
    /// Semantics, registers, packoffsets, in order.
    pub annotations: Vec<PostAnnotation>,
    /// DX9 annotations `<string UIName = "x";>`, kept as declarations.
    pub string_annotations: Vec<VarDecl>,
    /// `= init` (an expression, an [`ExprKind::InitList`], or [`ExprKind::SamplerState`]).
    pub init: Option<Expr>,
    /// The declarator (name through initializer).
    pub span: Span,
}

/// A variable declaration: global, local, struct field, cbuffer member. One declaration may
/// declare several names (`float a, b[2] = {1, 2};`).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Attributes before the declaration.
    pub attributes: Vec<Attribute>,
    /// Modifiers (before and after the type, in source order).
    pub modifiers: Vec<ModifierSpan>,
    /// The type.
    pub ty: TypeExpr,
    /// The declared names.
    pub declarators: Vec<Declarator>,
    /// The whole declaration, `;` included when present.
    pub span: Span,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Attributes (`[[vk::location(0)]]`).
    pub attributes: Vec<Attribute>,
    /// `in`, `out`, `inout`, `uniform`, `const`, interpolation, GS primitive modifiers...
    pub modifiers: Vec<ModifierSpan>,
    /// The type.
    pub ty: TypeExpr,
    /// Name, array dimensions, semantic, default value (`None` for an unnamed parameter).
    pub declarator: Option<Declarator>,
    /// The whole parameter.
    pub span: Span,
}

/// A function definition or declaration (also a struct method or an operator overload).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    /// `[numthreads(8,8,1)]`, `[shader("vertex")]`, ...
    pub attributes: Vec<Attribute>,
    /// `template<...>` headers, outermost first (two for a member template of a class template
    /// defined out of line; one empty header for an explicit specialization).
    pub templates: Vec<TemplateHeader>,
    /// `static`, `inline`, `export`, `precise`, ...
    pub modifiers: Vec<ModifierSpan>,
    /// Return type.
    pub return_type: TypeExpr,
    /// The owner of an out-of-line method or a namespace: `S` in `void S::f()`,
    /// `CooperativeMatrix<T, s, r, c, u>` in `CooperativeMatrix<T, s, r, c, u>::Load(...)`.
    pub qualifier: Option<TypeExpr>,
    /// The name: `main`, `operator+`, `operator()`.
    pub name: Ident,
    /// Template arguments of an explicit specialization: `<float>` in
    /// `template<> float twice<float>(float v)`.
    pub specialization_args: Option<Vec<TemplateArg>>,
    /// The parameters.
    pub params: Vec<Param>,
    /// A `const` after the parameter list (methods).
    pub is_const: bool,
    /// Return semantic and other annotations after the parameter list.
    pub annotations: Vec<PostAnnotation>,
    /// The body, `None` for a prototype.
    pub body: Option<Block>,
    /// The whole function.
    pub span: Span,
}

/// `struct`, `class` or `interface`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKeyword {
    /// `struct`
    Struct,
    /// `class`
    Class,
    /// `interface`
    Interface,
}

/// A struct, class or interface definition (or forward declaration: `members` is `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructDecl {
    /// Attributes.
    pub attributes: Vec<Attribute>,
    /// `template<...>` headers, outermost first.
    pub templates: Vec<TemplateHeader>,
    /// Which keyword.
    pub keyword: StructKeyword,
    /// The name; `None` for an anonymous struct.
    pub name: Option<Ident>,
    /// Template arguments of an explicit specialization `struct S<int> {...}`.
    pub specialization_args: Option<Vec<TemplateArg>>,
    /// Base types after `:`.
    pub bases: Vec<TypeExpr>,
    /// Fields, methods, nested types, in order; `None` for `struct S;`.
    pub members: Option<Vec<Decl>>,
    /// The whole definition.
    pub span: Span,
}

/// `cbuffer` or `tbuffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKeyword {
    /// `cbuffer`
    CBuffer,
    /// `tbuffer`
    TBuffer,
}

/// `cbuffer Name : register(b0) { members };`
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDecl {
    /// Attributes (`[[vk::binding(0)]]`).
    pub attributes: Vec<Attribute>,
    /// Which keyword.
    pub keyword: BufferKeyword,
    /// The buffer name.
    pub name: Ident,
    /// `register(...)` and the like.
    pub annotations: Vec<PostAnnotation>,
    /// The members (variable declarations, possibly structs or functions as written).
    pub members: Vec<Decl>,
    /// The whole declaration.
    pub span: Span,
}

/// `typedef T Name[dims];` (also `using Name = T;`).
#[derive(Clone, Debug, PartialEq)]
pub struct TypedefDecl {
    /// Attributes (`using T [[vk::ext_capability(39)]] = ...;`).
    pub attributes: Vec<Attribute>,
    /// Modifiers (`const`, `row_major`).
    pub modifiers: Vec<ModifierSpan>,
    /// The aliased type.
    pub ty: TypeExpr,
    /// The names (with array dimensions).
    pub declarators: Vec<Declarator>,
    /// `template<...>` headers of an alias template.
    pub templates: Vec<TemplateHeader>,
    /// The whole declaration.
    pub span: Span,
}

/// `enum [class] Name [: type] { A = 1, B };`
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    /// Attributes.
    pub attributes: Vec<Attribute>,
    /// `enum class` / `enum struct`.
    pub scoped: bool,
    /// The name (`None` for an anonymous enum).
    pub name: Option<Ident>,
    /// The underlying type.
    pub base: Option<TypeExpr>,
    /// The enumerators.
    pub variants: Vec<Enumerator>,
    /// The whole declaration.
    pub span: Span,
}

/// One enumerator.
#[derive(Clone, Debug, PartialEq)]
pub struct Enumerator {
    /// Its name.
    pub name: Ident,
    /// Explicit value.
    pub value: Option<Expr>,
    /// Name through value.
    pub span: Span,
}

/// `namespace N { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceDecl {
    /// The name (`None` for an anonymous namespace). `namespace a::b {}` has two segments.
    pub name: Option<Path>,
    /// The declarations inside.
    pub decls: Vec<Decl>,
    /// The whole declaration.
    pub span: Span,
}

/// A top-level, namespace, struct or cbuffer member declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// What it is.
    pub kind: DeclKind,
    /// Where.
    pub span: Span,
}

/// The forms of [`Decl`].
#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// Variables (globals, fields, cbuffer members).
    Var(VarDecl),
    /// A function or method.
    Function(FunctionDecl),
    /// A struct definition or forward declaration. (`struct S {...} s;` is instead a
    /// [`DeclKind::Var`] whose type is a [`TypeKind::Struct`].)
    Struct(StructDecl),
    /// `cbuffer`/`tbuffer`.
    Buffer(BufferDecl),
    /// `typedef` / `using X = T;`.
    Typedef(TypedefDecl),
    /// `enum`.
    Enum(EnumDecl),
    /// `namespace`.
    Namespace(NamespaceDecl),
    /// `using namespace N;`.
    UsingNamespace(Path),
    /// `using N::name;`.
    Using(Path),
    /// DX9 effect `technique`/`technique10`/`technique11` blocks, kept as raw tokens' span
    /// (later phases ignore them).
    Technique {
        /// The technique name, if any.
        name: Option<Ident>,
    },
    /// `static_assert(cond, "msg");`
    StaticAssert {
        /// The condition.
        cond: Expr,
        /// The message.
        message: Option<Expr>,
    },
    /// A stray `;`.
    Empty,
    /// Placeholder after a syntax error.
    Error,
}

/// `{ statements }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// Braces included.
    pub span: Span,
}

/// A statement with its attributes (`[unroll(4)]`, `[branch]`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// Attributes written before the statement.
    pub attributes: Vec<Attribute>,
    /// What it is.
    pub kind: StmtKind,
    /// Where (attributes excluded).
    pub span: Span,
}

/// One `case` group of a `switch`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// The labels of the group, in order (a group may have several).
    pub labels: Vec<CaseLabel>,
    /// The statements after the labels (falls through when it does not end in `break`).
    pub body: Vec<Stmt>,
    /// Labels through the last statement.
    pub span: Span,
}

/// `case expr:` or `default:`.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseLabel {
    /// `case value:`.
    Case(Expr),
    /// `default:`, with its span.
    Default(Span),
}

/// The forms of [`Stmt`].
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `expr;`
    Expr(Expr),
    /// A local declaration (variables, `typedef`, struct...).
    Decl(Box<Decl>),
    /// `{ ... }`
    Block(Block),
    /// `if (cond) then else otherwise`
    If {
        /// The condition.
        cond: Condition,
        /// Taken branch.
        then: Box<Stmt>,
        /// `else` branch.
        otherwise: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`
    For {
        /// The init statement (a declaration or expression statement).
        init: Option<Box<Stmt>>,
        /// The condition.
        cond: Option<Expr>,
        /// The step expression.
        step: Option<Expr>,
        /// The body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`
    While {
        /// The condition.
        cond: Condition,
        /// The body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile {
        /// The body.
        body: Box<Stmt>,
        /// The condition.
        cond: Expr,
    },
    /// `switch (value) { case ...: ... }`
    Switch {
        /// The selector.
        value: Condition,
        /// The case groups in order.
        cases: Vec<SwitchCase>,
    },
    /// A `case`/`default` label nested in a block inside a `switch` body
    /// (`case 6: { case 7: break; }`); labels directly in the body are [`SwitchCase`]s.
    Label(CaseLabel),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return [value];`
    Return(Option<Expr>),
    /// `discard;`
    Discard,
    /// `;`
    Empty,
    /// Placeholder after a syntax error.
    Error,
}

/// The condition of `if`, `while` and `switch`: an expression, or a declaration whose value is
/// tested (`if (int d = f())`).
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// An expression.
    Expr(Expr),
    /// A declaration with one declarator and an initializer.
    Decl(Box<VarDecl>),
}

impl Condition {
    /// The condition's span.
    pub fn span(&self) -> Span {
        match self {
            Condition::Expr(e) => e.span,
            Condition::Decl(d) => d.span,
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

impl UnaryOp {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
            UnaryOp::PreInc | UnaryOp::PostInc => "++",
            UnaryOp::PreDec | UnaryOp::PostDec => "--",
        }
    }
}

/// Binary operators (assignment is [`ExprKind::Assign`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    LogicalAnd,
    /// `||`
    LogicalOr,
    /// `,`
    Comma,
}

impl BinaryOp {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            LogicalAnd => "&&",
            LogicalOr => "||",
            Comma => ",",
        }
    }
}

/// A literal's value as parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// An integer: the value (wrapped to 64 bits) and the suffix as written (`u`, `l`, `ull`...).
    Int {
        /// The value.
        value: u64,
        /// Suffix, lower-cased.
        suffix: String,
    },
    /// A floating-point number: the value and its suffix (`f`, `h`, `l`, `lf` or empty).
    Float {
        /// The value.
        value: f64,
        /// Suffix, lower-cased.
        suffix: String,
    },
    /// `true` / `false`.
    Bool(bool),
    /// A string (adjacent literals concatenated), escapes resolved.
    String(String),
    /// A character literal's value.
    Char(u32),
}

/// `Name = value;` inside `sampler_state { ... }` or a DX9 state block.
#[derive(Clone, Debug, PartialEq)]
pub struct StateAssignment {
    /// The state name (`Filter`, `AddressU`, `Texture`).
    pub name: Ident,
    /// Array index for `Name[i] = ...`.
    pub index: Option<Expr>,
    /// The value; `<tex>` is an [`ExprKind::Name`] with the angle brackets dropped.
    pub value: Expr,
    /// The whole assignment.
    pub span: Span,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
}

/// The forms of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal.
    Literal(Literal),
    /// A name, possibly qualified, possibly with template arguments: `x`, `ns::f`,
    /// `vk::RawBufferLoad<float>` (as a call's callee), `MyEnum::A`.
    Name {
        /// The path.
        path: Path,
        /// `<...>` when written.
        template_args: Option<Vec<TemplateArg>>,
        /// A templated type the path is a member of (`Traits<float>::value`,
        /// `S<int>::create()`): the path then names the member inside it.
        qualifier: Option<Box<TypeExpr>>,
    },
    /// `this`.
    This,
    /// A prefix or postfix operator.
    Unary {
        /// Which.
        op: UnaryOp,
        /// Operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary {
        /// Which.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `lhs = rhs` (`op` is `None`) or a compound assignment `lhs op= rhs`.
    Assign {
        /// The arithmetic of a compound assignment.
        op: Option<BinaryOp>,
        /// Target.
        lhs: Box<Expr>,
        /// Value.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`
    Ternary {
        /// Condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
    /// `(T)x` or `(T[2])x`.
    Cast {
        /// Target type.
        ty: TypeExpr,
        /// Array dimensions written in the cast.
        array_dims: Vec<ArrayDim>,
        /// Operand.
        operand: Box<Expr>,
    },
    /// `T(args)` where `T` names a type: `float4(p, 1)`, `S(1, 2)`, `Texture2D<float4>(...)`.
    Construct {
        /// The type.
        ty: TypeExpr,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `callee(args)`: a function, a method (`tex.Sample(s, uv)` has a [`ExprKind::Member`]
    /// callee) or a template function (`f<int>(x)`).
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `base.member`: a field, a swizzle (`v.xyz`, `m._m00_m11`), or a method name.
    Member {
        /// The object.
        base: Box<Expr>,
        /// The member name.
        member: Ident,
        /// `<...>` on a method name (`buf.Load<float4>(0)`).
        template_args: Option<Vec<TemplateArg>>,
    },
    /// `base[index]`.
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `{ a, b, { c } }` (in an initializer).
    InitList(Vec<Expr>),
    /// `sampler_state { Filter = ...; }` (DX9).
    SamplerState(Vec<StateAssignment>),
    /// `sizeof(T)` or `sizeof expr`.
    SizeOf(Box<TemplateArg>),
    /// Placeholder after a syntax error.
    Error,
}
