//! Writing SPIR-V words: instructions (word count and opcode, then operands), literal strings,
//! and the streams they are written to.
//!
//! An instruction's word count is 16 bits. The emitter checks the usual suspects (constants,
//! `construct`, `switch`) itself with better messages; every other instruction that would not
//! fit is recorded in the [`Words`] stream it is written to (the first one per stream), and
//! the emitter turns it into a diagnostic before assembling, so an oversized instruction is
//! always a diagnostic, never a corrupt module. The record travels with the words: appending
//! one stream to another ([`Words::append`]) carries it along.

use rspirv::spirv;

/// The most words one SPIR-V instruction can have (its word count is 16 bits).
pub(crate) const MAX_WORDS: usize = 0xffff;

/// A stream of SPIR-V instructions being written (a section of the module, a function body, a
/// header assembled apart), with the first instruction written to it that exceeded
/// [`MAX_WORDS`]. It reads as a `&[u32]`; words go in only through [`inst`], [`inst_str`] and
/// [`Words::append`], so no record is lost.
#[derive(Clone, Debug, Default)]
pub(crate) struct Words {
    words: Vec<u32>,
    oversized: Option<spirv::Op>,
}

impl Words {
    /// An empty stream with room for `n` words.
    pub fn with_capacity(n: usize) -> Words {
        Words {
            words: Vec::with_capacity(n),
            oversized: None,
        }
    }

    /// Reserves room for `n` more words.
    pub fn reserve(&mut self, n: usize) {
        self.words.reserve(n);
    }

    /// Drops the words from `len` on (whole instructions written last), keeping the record
    /// of an oversized instruction.
    pub fn truncate(&mut self, len: usize) {
        self.words.truncate(len);
    }

    /// Empties the stream (and forgets an oversized instruction it held).
    pub fn clear(&mut self) {
        self.words.clear();
        self.oversized = None;
    }

    /// Appends another stream's instructions, keeping the first oversized instruction of
    /// either.
    pub fn append(&mut self, other: &Words) {
        self.words.extend_from_slice(&other.words);
        self.note(other.oversized);
    }

    /// Appends the words `range` of another stream (whole instructions), keeping the first
    /// oversized instruction of either.
    pub fn append_range(&mut self, other: &Words, range: std::ops::Range<usize>) {
        self.words.extend_from_slice(&other.words[range]);
        self.note(other.oversized);
    }

    /// The opcode of the first instruction written to this stream (or to a stream appended to
    /// it) that did not fit in [`MAX_WORDS`].
    pub fn oversized(&self) -> Option<spirv::Op> {
        self.oversized
    }

    #[cold]
    fn note(&mut self, op: Option<spirv::Op>) {
        if self.oversized.is_none() {
            self.oversized = op;
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.words
    }
}

/// Writes one instruction: the word count and opcode, then the operand words.
#[inline]
pub(crate) fn inst(buf: &mut Words, op: spirv::Op, args: &[u32]) {
    if args.len() >= MAX_WORDS {
        buf.note(Some(op));
    }
    buf.words.push(((args.len() as u32 + 1) << 16) | op as u32);
    buf.words.extend_from_slice(args);
}

/// Writes one instruction with a literal string between `pre` and `post` operands.
pub(crate) fn inst_str(buf: &mut Words, op: spirv::Op, pre: &[u32], s: &str, post: &[u32]) {
    let start = buf.words.len();
    buf.words.push(0);
    buf.words.extend_from_slice(pre);
    push_string(&mut buf.words, s);
    buf.words.extend_from_slice(post);
    let count = buf.words.len() - start;
    if count > MAX_WORDS {
        buf.note(Some(op));
    }
    buf.words[start] = ((count as u32) << 16) | op as u32;
}

/// Appends a nul-terminated UTF-8 string padded to whole words.
fn push_string(buf: &mut Vec<u32>, s: &str) {
    let bytes = s.as_bytes();
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        buf.push(u32::from_le_bytes(w));
    }
    if bytes.len().is_multiple_of(4) {
        buf.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        let mut b = Vec::new();
        push_string(&mut b, "main");
        assert_eq!(b, vec![u32::from_le_bytes(*b"main"), 0]);
        let mut b = Vec::new();
        push_string(&mut b, "abcde");
        assert_eq!(b.len(), 2);
        assert_eq!(b[1], u32::from_le_bytes([b'e', 0, 0, 0]));
    }

    #[test]
    fn an_oversized_instruction_is_recorded_in_its_stream_and_survives_append() {
        let mut small = Words::default();
        inst(&mut small, spirv::Op::Nop, &[]);
        assert_eq!(small.oversized(), None);
        let mut big = Words::default();
        inst(&mut big, spirv::Op::ConstantComposite, &vec![0; MAX_WORDS]);
        assert_eq!(big.oversized(), Some(spirv::Op::ConstantComposite));
        // A stream that only receives the oversized one by appending reports it too.
        small.append(&big);
        assert_eq!(small.oversized(), Some(spirv::Op::ConstantComposite));
        // The first one is kept.
        let mut other = Words::default();
        inst_str(
            &mut other,
            spirv::Op::Name,
            &[1],
            &"x".repeat(4 * MAX_WORDS),
            &[],
        );
        small.append(&other);
        assert_eq!(small.oversized(), Some(spirv::Op::ConstantComposite));
        assert_eq!(other.oversized(), Some(spirv::Op::Name));
        // Another thread or stream sees nothing of it.
        assert_eq!(Words::default().oversized(), None);
    }
}
