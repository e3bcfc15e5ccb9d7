//! Processor prefetch hints for walks over a module larger than the cache.
//!
//! A child-list walk is a chain of dependent loads (each step reads the next sibling's key
//! from the current slot), yet siblings mostly sit in consecutive slots: on a function of a
//! million instructions each step would wait for memory, while a hint some way ahead of the
//! chain turns most of those waits into cache hits. Hints are only hints: the address may lie
//! outside any allocation, and a prefetch never faults or changes what a program computes. On
//! targets other than x86-64 they compile to nothing.

/// How far ahead of the current slot a child-list walk prefetches, in bytes: about 64 slots
/// (a slot is an `Inst` and its 4-byte version).
pub(crate) const CHILD_WALK_AHEAD: usize = 64 * (std::mem::size_of::<crate::module::Inst>() + 4);

/// Asks the processor to bring the cache line at `p` into the cache.
#[inline(always)]
#[allow(unsafe_code)] // the one unsafe call of the IR crates: a prefetch hint (see SAFETY)
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is a hint: it reads nothing visible to the program and cannot
    // fault, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
