//! Building the module's structure: functions, blocks, parameters, globals, structs, generics
//! and decorations; and the typed views over [`InstId`].

use crate::imm::AddressSpace;
use crate::module::{InstId, Module};
use crate::ops::Op;

macro_rules! view {
    ($(#[$doc:meta])* $name:ident, |$op:ident| $pred:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(InstId);

        impl $name {
            /// The view of `id` when it is of this kind.
            pub fn dyn_cast(m: &Module, id: InstId) -> Option<$name> {
                let $op = m.try_op(id)?;
                if $pred { Some($name(id)) } else { None }
            }

            /// The view of `id`. Panics when `id` is not of this kind: use it where the kind is
            /// an invariant the caller has established, and [`Self::dyn_cast`] otherwise.
            pub fn cast(m: &Module, id: InstId) -> $name {
                match Self::dyn_cast(m, id) {
                    Some(v) => v,
                    None => panic!(
                        "{}::cast of a {:?}",
                        stringify!($name),
                        m.try_op(id)
                    ),
                }
            }

            /// True when `id` is of this kind.
            pub fn is(m: &Module, id: InstId) -> bool {
                Self::dyn_cast(m, id).is_some()
            }

            /// The underlying instruction.
            #[inline]
            pub fn id(self) -> InstId {
                self.0
            }
        }

        impl From<$name> for InstId {
            fn from(v: $name) -> InstId {
                v.0
            }
        }
    };
}

view!(
    /// A function.
    Func, |op| op == Op::Func
);
view!(
    /// A basic block.
    Block, |op| op == Op::Block
);
view!(
    /// A block parameter (function, block or generic parameter).
    Param, |op| op == Op::Param
);
view!(
    /// A global variable.
    Global, |op| op == Op::Global
);
view!(
    /// A generic.
    Generic, |op| op == Op::Generic
);
view!(
    /// A struct type.
    StructType, |op| op == Op::Struct
);
view!(
    /// A struct field.
    Field, |op| op == Op::Field
);
view!(
    /// Any type.
    Type, |op| op.is_type()
);
view!(
    /// Any constant.
    Constant, |op| op.is_constant()
);
view!(
    /// Any decoration.
    Decoration, |op| op.is_decoration()
);
view!(
    /// Any terminator.
    Terminator, |op| op.is_terminator()
);

impl Func {
    /// The blocks, entry first.
    pub fn blocks(self, m: &Module) -> Vec<Block> {
        m.children(self.0)
            .filter(|&c| m.op(c) == Op::Block)
            .map(Block)
            .collect()
    }

    /// The entry block (`None` for a declaration).
    pub fn entry(self, m: &Module) -> Option<Block> {
        m.children(self.0)
            .find(|&c| m.op(c) == Op::Block)
            .map(Block)
    }

    /// The parameters (those of the entry block).
    pub fn params(self, m: &Module) -> Vec<Param> {
        self.entry(m).map(|b| b.params(m)).unwrap_or_default()
    }

    /// The `fn` type.
    pub fn fn_type(self, m: &Module) -> Option<InstId> {
        m.ty(self.0)
    }

    /// The return type.
    pub fn return_type(self, m: &Module) -> Option<InstId> {
        m.fn_return(m.ty(self.0)?)
    }

    /// True for a function without body (an import or external declaration).
    pub fn is_declaration(self, m: &Module) -> bool {
        self.entry(m).is_none()
    }
}

impl Block {
    /// The block parameters.
    pub fn params(self, m: &Module) -> Vec<Param> {
        m.children(self.0)
            .take_while(|&c| m.op(c) == Op::Param)
            .map(Param)
            .collect()
    }

    /// The terminator, when the block has one (it is the last child).
    pub fn terminator(self, m: &Module) -> Option<InstId> {
        m.last_child(self.0).filter(|&c| m.op(c).is_terminator())
    }

    /// Every child that is neither a parameter nor a decoration (instructions and terminator).
    pub fn insts(self, m: &Module) -> Vec<InstId> {
        m.children(self.0)
            .filter(|&c| {
                let op = m.op(c);
                op != Op::Param && !op.is_decoration()
            })
            .collect()
    }

    /// The function (or generic) the block belongs to.
    pub fn parent(self, m: &Module) -> Option<InstId> {
        m.parent(self.0)
    }
}

impl Module {
    // ---- functions and blocks ------------------------------------------------------------

    /// Adds a function with an entry block whose parameters have the given types.
    pub fn add_func(&mut self, name: &str, ret: InstId, params: &[InstId]) -> Func {
        let f = self.declare_func(name, ret, params);
        let entry = self.add_block(f);
        for &p in params {
            self.add_block_param(entry, p);
        }
        f
    }

    /// Adds a function without a body.
    pub fn declare_func(&mut self, name: &str, ret: InstId, params: &[InstId]) -> Func {
        let fty = self.fn_type(ret, params);
        let f = self.create_detached(Op::Func, Some(fty), &[], 0);
        let root = self.root();
        self.append_child(root, f);
        self.set_name(f, Some(name));
        Func(f)
    }

    /// Adds a function inside `scope` (the module or a generic's body block) with the given
    /// `fn` type, without blocks.
    pub fn add_func_in(&mut self, scope: InstId, name: &str, fn_ty: InstId) -> Func {
        let f = self.create_detached(Op::Func, Some(fn_ty), &[], 0);
        self.append_to_scope(scope, f);
        self.set_name(f, Some(name));
        Func(f)
    }

    /// Appends an item to a scope: at the end of the module, or before a generic body's
    /// terminator.
    pub(crate) fn append_to_scope(&mut self, scope: InstId, item: InstId) {
        if let Some(last) = self.last_child(scope)
            && self.op(scope) == Op::Block
            && self.op(last).is_terminator()
        {
            self.insert_before(last, item);
        } else {
            self.append_child(scope, item);
        }
    }

    /// Appends an empty block to a function.
    pub fn add_block(&mut self, func: Func) -> Block {
        let b = self.create_detached(Op::Block, None, &[], 0);
        self.append_child(func.id(), b);
        Block(b)
    }

    /// Creates an empty block and inserts it just after `after` in its function.
    pub fn add_block_after(&mut self, after: Block) -> Block {
        let b = self.create_detached(Op::Block, None, &[], 0);
        self.insert_after(after.id(), b);
        Block(b)
    }

    /// Appends a parameter of type `ty` to a block (after its existing parameters).
    pub fn add_block_param(&mut self, block: Block, ty: InstId) -> InstId {
        let p = self.create_detached(Op::Param, Some(ty), &[], 0);
        let last_param = m_last_param(self, block);
        match last_param {
            Some(lp) => self.insert_after(lp, p),
            None => match self.first_child(block.id()) {
                Some(first) => self.insert_before(first, p),
                None => self.append_child(block.id(), p),
            },
        }
        p
    }

    // ---- globals, structs, generics ------------------------------------------------------

    /// Adds a global variable of type `ptr<space, pointee>` with an optional constant
    /// initializer.
    pub fn add_global(
        &mut self,
        name: &str,
        space: AddressSpace,
        pointee: InstId,
        init: Option<InstId>,
    ) -> Global {
        let ty = self.ptr_type(space, pointee);
        let ops: Vec<InstId> = init.into_iter().collect();
        let g = self.create_detached(Op::Global, Some(ty), &ops, 0);
        let root = self.root();
        self.append_child(root, g);
        self.set_name(g, Some(name));
        Global(g)
    }

    /// Adds a struct type with the given fields (name hint, type).
    pub fn add_struct(&mut self, name: &str, fields: &[(&str, InstId)]) -> StructType {
        let root = self.root();
        self.add_struct_in(root, name, fields)
    }

    /// Adds a struct type inside `scope` (the module or a generic body).
    pub fn add_struct_in(
        &mut self,
        scope: InstId,
        name: &str,
        fields: &[(&str, InstId)],
    ) -> StructType {
        let s = self.create_detached(Op::Struct, None, &[], 0);
        self.append_to_scope(scope, s);
        self.set_name(s, Some(name));
        for (fname, fty) in fields {
            self.add_field(StructType(s), fname, *fty);
        }
        StructType(s)
    }

    /// Appends a field to a struct type.
    pub fn add_field(&mut self, s: StructType, name: &str, ty: InstId) -> Field {
        let f = self.create_detached(Op::Field, Some(ty), &[], 0);
        self.append_child(s.id(), f);
        self.set_name(f, Some(name));
        Field(f)
    }

    /// Adds a generic with an empty body block; returns the generic.
    pub fn add_generic(&mut self, name: &str) -> Generic {
        let root = self.root();
        self.add_generic_in(root, name)
    }

    /// Adds a generic inside `scope`.
    pub fn add_generic_in(&mut self, scope: InstId, name: &str) -> Generic {
        let g = self.create_detached(Op::Generic, None, &[], 0);
        self.append_to_scope(scope, g);
        self.set_name(g, Some(name));
        let body = self.create_detached(Op::Block, None, &[], 0);
        self.append_child(g, body);
        Generic(g)
    }

    /// Adds a generic parameter of type `ty` (`type` for a type parameter).
    pub fn add_generic_param(&mut self, g: Generic, ty: InstId) -> InstId {
        let body = self.generic_body(g);
        self.add_block_param(body, ty)
    }

    /// The body block of a generic.
    pub fn generic_body(&self, g: Generic) -> Block {
        // A generic always has its body block as first non-decoration child (built that way
        // by `add_generic_in` and checked by the verifier, OSV0002).
        Block(
            self.children(g.id())
                .find(|&c| self.op(c) == Op::Block)
                .expect("a generic has a body block"),
        )
    }

    /// Sets what a generic yields (a function or type in its body, or any visible value):
    /// creates or replaces the `return` that ends its body. Returns the `return`.
    pub fn set_generic_result(&mut self, g: Generic, value: InstId) -> InstId {
        let body = self.generic_body(g);
        if let Some(term) = body.terminator(self) {
            // A `return` is not hoistable, so a plain operand update keeps every invariant.
            let _ = self.set_operands(term, &[value]);
            return term;
        }
        let r = self.create_detached(Op::Return, None, &[value], 0);
        self.append_child(body.id(), r);
        r
    }

    /// What a generic yields: the operand of its body's `return`.
    pub fn generic_result(&self, g: Generic) -> Option<InstId> {
        let body = self.children(g.id()).find(|&c| self.op(c) == Op::Block)?;
        let term = Block(body).terminator(self)?;
        (self.op(term) == Op::Return && self.num_operands(term) == 1).then(|| self.operand(term, 0))
    }

    // ---- decorations ---------------------------------------------------------------------

    /// Adds a decoration to `target` (after its existing decorations).
    pub fn decorate(&mut self, target: InstId, op: Op, operands: &[InstId]) -> InstId {
        debug_assert!(op.is_decoration());
        let d = self.create_detached(op, None, operands, 0);
        let last_deco = self
            .children(target)
            .take_while(|&c| self.op(c).is_decoration())
            .last();
        match last_deco {
            Some(ld) => self.insert_after(ld, d),
            None => match self.first_child(target) {
                Some(first) => self.insert_before(first, d),
                None => self.append_child(target, d),
            },
        }
        d
    }

    /// Adds a decoration whose operands are all `u32` immediates.
    pub fn decorate_imm(&mut self, target: InstId, op: Op, values: &[u32]) -> InstId {
        let ops: Vec<InstId> = values.iter().map(|&v| self.imm(v)).collect();
        self.decorate(target, op, &ops)
    }

    /// The decorations of `target`, in order.
    pub fn decorations(&self, target: InstId) -> impl Iterator<Item = InstId> + '_ {
        self.children(target)
            .take_while(move |&c| self.op(c).is_decoration())
    }

    /// The first decoration of `target` with opcode `op`.
    pub fn find_decoration(&self, target: InstId, op: Op) -> Option<InstId> {
        self.decorations(target).find(|&d| self.op(d) == op)
    }

    /// True when `target` has a decoration with opcode `op`.
    pub fn has_decoration(&self, target: InstId, op: Op) -> bool {
        self.find_decoration(target, op).is_some()
    }

    /// The source range of `i` (its `src_loc` decoration, which the HLSL front end puts on
    /// intrinsic calls and texture reads), if it has one: where a refusal of `i` points.
    pub fn src_span(&self, i: InstId) -> Option<crate::diag::Span> {
        let d = self.find_decoration(i, Op::SrcLoc)?;
        Some(crate::diag::Span {
            file: crate::diag::FileId(self.imm_operand(d, 0)?),
            start: self.imm_operand(d, 1)?,
            end: self.imm_operand(d, 2)?,
        })
    }

    // ---- module items --------------------------------------------------------------------

    /// The functions at module level, in order.
    pub fn functions(&self) -> Vec<Func> {
        self.children(self.root())
            .filter(|&c| self.op(c) == Op::Func)
            .map(Func)
            .collect()
    }

    /// The globals, in order.
    pub fn globals(&self) -> Vec<Global> {
        self.children(self.root())
            .filter(|&c| self.op(c) == Op::Global)
            .map(Global)
            .collect()
    }

    /// The struct types at module level, in order.
    pub fn structs(&self) -> Vec<StructType> {
        self.children(self.root())
            .filter(|&c| self.op(c) == Op::Struct)
            .map(StructType)
            .collect()
    }

    /// The generics at module level, in order.
    pub fn generics(&self) -> Vec<Generic> {
        self.children(self.root())
            .filter(|&c| self.op(c) == Op::Generic)
            .map(Generic)
            .collect()
    }

    /// The module-level function named `name` (by name hint), if exactly one has it; `None`
    /// when none or several do (names are hints: linking and specialization can leave two
    /// functions with one name). [`Module::find_func`] says which.
    pub fn func_by_name(&self, name: &str) -> Option<Func> {
        self.find_func(name).ok()
    }

    /// The module-level function named `name`, or why there is not exactly one: none has the
    /// name, or several do (with the count), as after linking two specializations of one
    /// generic.
    pub fn find_func(&self, name: &str) -> Result<Func, NameLookupError> {
        let mut found = self
            .functions()
            .into_iter()
            .filter(|f| self.name(f.id()) == Some(name));
        let first = found.next().ok_or_else(|| NameLookupError::NotFound {
            name: name.to_string(),
        })?;
        match found.count() {
            0 => Ok(first),
            n => Err(NameLookupError::Ambiguous {
                name: name.to_string(),
                count: n + 1,
            }),
        }
    }

    /// Every function of the module, including those inside generics' bodies (which
    /// [`Module::functions`] leaves out), in tree order.
    pub fn all_functions(&self) -> Vec<Func> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(scope) = stack.pop() {
            let mut nested = Vec::new();
            for c in self.children(scope) {
                match self.op(c) {
                    Op::Func => out.push(Func(c)),
                    Op::Generic => {
                        if let Some(body) = self.children(c).find(|&b| self.op(b) == Op::Block) {
                            nested.push(body);
                        }
                    }
                    _ => {}
                }
            }
            stack.extend(nested.into_iter().rev());
        }
        out
    }

    /// The module-level global named `name`, if exactly one has it.
    pub fn global_by_name(&self, name: &str) -> Option<Global> {
        let mut found = self
            .globals()
            .into_iter()
            .filter(|g| self.name(g.id()) == Some(name));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// The function that contains `id` (an instruction, block or parameter), if any.
    pub fn func_of(&self, id: InstId) -> Option<Func> {
        let mut cur = Some(id);
        while let Some(c) = cur {
            if self.op(c) == Op::Func {
                return Some(Func(c));
            }
            cur = self.parent(c);
        }
        None
    }

    /// The block that contains `id` (an instruction or parameter), if any.
    pub fn block_of(&self, id: InstId) -> Option<Block> {
        let p = self.parent(id)?;
        (self.op(p) == Op::Block).then_some(Block(p))
    }
}

/// Why a lookup by name found not exactly one item.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameLookupError {
    /// No item has the name.
    #[error("no function is named `{name}`")]
    NotFound {
        /// The name looked up.
        name: String,
    },
    /// Several items have it (names are hints, not identities).
    #[error(
        "{count} functions are named `{name}` (names are hints; pick one by walking the module)"
    )]
    Ambiguous {
        /// The name looked up.
        name: String,
        /// How many have it.
        count: usize,
    },
}

fn m_last_param(m: &Module, block: Block) -> Option<InstId> {
    m.children(block.id())
        .take_while(|&c| m.op(c) == Op::Param)
        .last()
}
