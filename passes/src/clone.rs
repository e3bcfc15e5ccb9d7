//! Cloning instructions, blocks, functions and other items with a value map.
//!
//! A [`Cloner`] copies subtrees (a function, a generic, a struct, a list of blocks, ...) either
//! within one module or from another module into this one. It keeps a map from source ids to
//! destination ids; callers may seed it before cloning (a callee's parameters mapped to the
//! call's arguments, a generic's parameters mapped to concrete types, an imported function
//! mapped to its definition). While cloning:
//!
//! - non-hoistable instructions (functions, blocks, parameters, ordinary instructions,
//!   decorations, globals, structs and fields) are created anew, with their name hints, and
//!   their type and operands mapped; forward references (a branch to a later block) are fine,
//!   because every node is created before any operand is set;
//! - hoistable values (types, constants, `spec_const`, `specialize`) are *re-interned* with
//!   their mapped operands through [`Module::intern`], so they deduplicate against what the
//!   destination already holds and live in the outermost scope their operands allow: once a
//!   generic's parameter is mapped to `i32`, `ptr<function, %T>` becomes the module's
//!   `ptr<function, i32>`;
//! - a source value that is neither mapped nor part of the cloned subtree stays as it is when
//!   cloning within one module (a global, another function); across modules it must be mapped
//!   beforehand, otherwise cloning fails with [`CloneError::Unmapped`].
//!
//! Within one module each copy takes its original's source position, functions' and globals'
//! declarations included (an instruction without one takes the module's current position,
//! e.g. the inlined call's); across modules positions are copied only through a file map
//! ([`Cloner::with_file_map`]), as the source module's file ids name files of another source
//! map.
//!
//! A parameter already in the map when its block is cloned is not copied: the block simply
//! loses it and its uses see the mapped value (this is how the inliner substitutes arguments).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use oneshader_ir::debug_scopes::Origin;
use oneshader_ir::{Block, Builder, FileId, Func, InstId, Module, Op, Payload, Span};

/// Why a clone failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CloneError {
    /// A referenced item outside the cloned subtree has no counterpart in the destination
    /// module (only when cloning across modules).
    #[error("`{0}` is referenced by what is cloned but has no counterpart in the destination")]
    Unmapped(String),
    /// An id does not name a live instruction of the source module.
    #[error("an instruction to clone does not exist (stale id)")]
    Missing,
}

/// What the cloner reads of a source instruction.
struct NodeData {
    op: Op,
    ty: Option<InstId>,
    operands: SmallVec<[InstId; 8]>,
    name: Option<Box<str>>,
}

fn read(src: &Module, id: InstId) -> Result<NodeData, CloneError> {
    let op = src.try_op(id).ok_or(CloneError::Missing)?;
    Ok(NodeData {
        op,
        ty: src.ty(id),
        operands: src.operands(id).collect(),
        name: src.name(id).map(Into::into),
    })
}

/// The nodes [`Cloner::create`] made (source id, copy), waiting for [`Cloner::link`] to set
/// their types and operands.
#[derive(Debug)]
#[must_use = "the copies have no operands until `Cloner::link` sets them"]
pub struct Created(Vec<(InstId, InstId)>);

/// Clones subtrees with a source-to-destination value map (see the module documentation).
pub struct Cloner<'s> {
    /// The source module; `None` when cloning within the destination module.
    src: Option<&'s Module>,
    map: FxHashMap<InstId, InstId>,
    /// Across modules: the destination's file id of each source file id.
    files: Option<Vec<FileId>>,
}

impl Default for Cloner<'static> {
    fn default() -> Self {
        Cloner::new()
    }
}

impl Cloner<'static> {
    /// A cloner that copies within one module (the module passed to each call).
    pub fn new() -> Cloner<'static> {
        Cloner {
            src: None,
            map: FxHashMap::default(),
            files: None,
        }
    }
}

impl<'s> Cloner<'s> {
    /// A cloner that copies from `src` into the module passed to each call.
    pub fn from_module(src: &'s Module) -> Cloner<'s> {
        Cloner {
            src: Some(src),
            map: FxHashMap::default(),
            files: None,
        }
    }

    /// Copies positions across modules too: file `k` of the source module's positions is
    /// file `files[k]` of the destination's source map (a position in a file past the end of
    /// `files` is not copied). Within one module positions are copied anyway.
    pub fn with_file_map(mut self, files: Vec<FileId>) -> Cloner<'s> {
        self.files = Some(files);
        self
    }

    /// The position the copy of `old` takes: its own with its debug scope (within one
    /// module) or its own mapped through the file map, in the function's own scope (across
    /// modules, when one was given: the source's scope table is not copied).
    fn origin_of(&self, dst: &Module, old: InstId) -> Option<Origin> {
        match self.src {
            None => dst.origin(old),
            Some(s) => {
                let p = s.position(old)?;
                let file = *self.files.as_ref()?.get(p.file.0 as usize)?;
                Some(Origin::new(Span { file, ..p }))
            }
        }
    }

    /// Maps source `old` to destination `new` (before or during cloning).
    pub fn insert(&mut self, old: InstId, new: InstId) {
        self.map.insert(old, new);
    }

    /// The destination counterpart of `old`, if one is known.
    pub fn get(&self, old: InstId) -> Option<InstId> {
        self.map.get(&old).copied()
    }

    /// The whole map, source id to destination id.
    pub fn map(&self) -> &FxHashMap<InstId, InstId> {
        &self.map
    }

    fn same_module(&self) -> bool {
        self.src.is_none()
    }

    fn read(&self, dst: &Module, id: InstId) -> Result<NodeData, CloneError> {
        match self.src {
            Some(s) => read(s, id),
            None => read(dst, id),
        }
    }

    fn src_children(&self, dst: &Module, id: InstId) -> Vec<InstId> {
        match self.src {
            Some(s) => s.children_snapshot(id),
            None => dst.children_snapshot(id),
        }
    }

    fn describe(&self, dst: &Module, id: InstId) -> String {
        let m = self.src.unwrap_or(dst);
        oneshader_ir::print::print_inst(m, id)
    }

    /// The destination value standing for source value `v`: its mapped counterpart; for a
    /// hoistable value, the value re-interned with mapped operands; otherwise (same module
    /// only) `v` itself.
    pub fn value(&mut self, dst: &mut Module, v: InstId) -> Result<InstId, CloneError> {
        if let Some(&n) = self.map.get(&v) {
            return Ok(dst.resolve(n));
        }
        let src_op = match self.src {
            Some(s) => s.try_op(v),
            None => dst.try_op(v),
        }
        .ok_or(CloneError::Missing)?;
        if !src_op.is_hoistable() {
            if self.same_module() {
                return Ok(v);
            }
            return Err(CloneError::Unmapped(self.describe(dst, v)));
        }
        let data = self.read(dst, v)?;
        let ty = match data.ty {
            Some(t) => Some(self.value(dst, t)?),
            None => None,
        };
        let mut ops: SmallVec<[InstId; 8]> = SmallVec::with_capacity(data.operands.len());
        for &o in &data.operands {
            ops.push(self.value(dst, o)?);
        }
        let unchanged = self.same_module() && ty == data.ty && ops == data.operands;
        let new = if unchanged {
            v
        } else {
            // The payload is read last and its string copied out: the source may be `dst`.
            let text: Box<str>;
            let payload = match self.src.unwrap_or(dst).payload(v) {
                Some(Payload::Str(s)) => {
                    text = s.into();
                    Payload::Str(&text)
                }
                Some(Payload::Bits(b)) => Payload::Bits(b),
                Some(Payload::None) => Payload::None,
                None => return Err(CloneError::Missing),
            };
            let n = dst.intern(data.op, ty, &ops, payload);
            if dst.name(n).is_none()
                && let Some(name) = &data.name
            {
                dst.set_name(n, Some(name));
            }
            n
        };
        self.map.insert(v, new);
        Ok(new)
    }

    /// Clones `root` and its subtree; the copy of `root` is returned detached (place it with
    /// [`Module::move_to_end`] / [`Module::move_after`], or use [`Cloner::clone_item`]).
    pub fn clone_subtree(&mut self, dst: &mut Module, root: InstId) -> Result<InstId, CloneError> {
        let created = self.create(dst, &[root])?;
        self.link(dst, created)?;
        self.map
            .get(&root)
            .copied()
            .ok_or_else(|| CloneError::Unmapped(self.describe(dst, root)))
    }

    /// Clones a module-level item (function, global, struct, generic) into `scope` (the
    /// destination module's root or a generic's body block), at its end (before a generic
    /// body's `return`).
    pub fn clone_item(
        &mut self,
        dst: &mut Module,
        item: InstId,
        scope: InstId,
    ) -> Result<InstId, CloneError> {
        let new = self.clone_subtree(dst, item)?;
        place_in_scope(dst, new, scope);
        Ok(new)
    }

    /// Clones `blocks` (with their parameters, instructions and decorations) into `func`, each
    /// inserted after the previous one, the first after `after` (or at the end of `func`).
    /// Parameters already in the map are not copied. Returns the new blocks in order.
    pub fn clone_blocks(
        &mut self,
        dst: &mut Module,
        blocks: &[Block],
        func: Func,
        after: Option<Block>,
    ) -> Result<Vec<Block>, CloneError> {
        let roots: Vec<InstId> = blocks.iter().map(|b| b.id()).collect();
        let created = self.create(dst, &roots)?;
        let mut prev = after;
        let mut out = Vec::with_capacity(blocks.len());
        for b in blocks {
            let nb = self.map.get(&b.id()).copied().ok_or(CloneError::Missing)?;
            match prev {
                Some(p) => dst.move_after(nb, p.id()),
                None => dst.move_to_end(nb, func.id()),
            }
            // `nb` was created above with the source block's opcode.
            let Some(nb) = Block::dyn_cast(dst, nb) else {
                return Err(CloneError::Missing);
            };
            prev = Some(nb);
            out.push(nb);
        }
        self.link(dst, created)?;
        Ok(out)
    }

    /// Phase one of a clone: creates every non-hoistable node of the subtrees of `roots`, with
    /// its name but without type or operands, and records it in the map. Children are attached
    /// to their (new) parents in order; the copies of the roots are left detached for the
    /// caller to place. Nodes already in the map are not copied. Finish with [`Cloner::link`];
    /// between the two phases the caller may map what the subtrees refer to but is not part of
    /// them (the linker maps each import to the copy of its export made by another module's
    /// cloner).
    pub fn create(&mut self, dst: &mut Module, roots: &[InstId]) -> Result<Created, CloneError> {
        let mut created: Vec<(InstId, InstId)> = Vec::new();
        // (source node, new parent)
        let mut stack: Vec<(InstId, Option<InstId>)> =
            roots.iter().rev().map(|&r| (r, None)).collect();
        while let Some((old, new_parent)) = stack.pop() {
            if self.map.contains_key(&old) {
                // Seeded (e.g. a substituted parameter): not copied.
                continue;
            }
            let data = self.read(dst, old)?;
            if data.op.is_hoistable() {
                // Re-interned on demand when something refers to it.
                continue;
            }
            if data.op == Op::Module {
                return Err(CloneError::Unmapped("module".into()));
            }
            let new = Builder::new(dst).emit(data.op, None, &[]);
            if let Some(name) = &data.name {
                dst.set_name(new, Some(name));
            }
            // Within one module the copy holds the original's source variables too.
            if self.src.is_none() {
                let vars = dst.debug_variables(old).to_vec();
                dst.set_debug_variables(new, vars);
            }
            // The copy stands where the original came from (within one module, or across
            // modules through the file map: the source's file ids mean nothing here); without
            // one it keeps the current position it was made with.
            if let Some(p) = self.origin_of(dst, old) {
                dst.set_origin(new, Some(p));
            }
            if let Some(p) = new_parent {
                dst.move_to_end(new, p);
            }
            self.map.insert(old, new);
            created.push((old, new));
            let kids = self.src_children(dst, old);
            for &k in kids.iter().rev() {
                stack.push((k, Some(new)));
            }
        }
        Ok(Created(created))
    }

    /// Phase two of a clone: sets the type and operands of every node `created` made, mapping
    /// each through the map (hoistable values re-interned, see the module documentation).
    pub fn link(&mut self, dst: &mut Module, created: Created) -> Result<(), CloneError> {
        for (old, new) in created.0 {
            let data = self.read(dst, old)?;
            let ty = match data.ty {
                Some(t) => Some(self.value(dst, t)?),
                None => None,
            };
            let mut ops: SmallVec<[InstId; 8]> = SmallVec::with_capacity(data.operands.len());
            for &o in &data.operands {
                ops.push(self.value(dst, o)?);
            }
            if ty.is_some() {
                dst.set_type(new, ty);
            }
            if !ops.is_empty() {
                // `new` is a fresh non-hoistable instruction: `set_operands` cannot refuse.
                let _ = dst.set_operands(new, &ops);
            }
        }
        Ok(())
    }
}

/// Places a detached item in `scope`: at the end of the module, or before the `return` that
/// ends a generic's body.
pub fn place_in_scope(m: &mut Module, item: InstId, scope: InstId) {
    if m.op(scope) == Op::Block
        && let Some(last) = m.last_child(scope)
        && m.op(last).is_terminator()
    {
        m.move_before(item, last);
        return;
    }
    m.move_to_end(item, scope);
}
