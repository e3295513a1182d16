//! Page-aligned IO buffers, as O_DIRECT requires.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

const ALIGN: usize = 4096;

/// `slots` buffers of `slot_len` bytes each in one page-aligned allocation, so a backend can
/// register them with the kernel once.
pub struct BufferPool {
    ptr: NonNull<u8>,
    layout: Layout,
    slot_len: usize,
    slots: u32,
}

// The pool is plain memory; who may touch which slot is governed by the device contract
// (at most one IO per slot in flight).
unsafe impl Send for BufferPool {}

impl BufferPool {
    pub fn new(slots: u32, max_len: usize) -> BufferPool {
        let slot_len = max_len.max(1).div_ceil(ALIGN) * ALIGN;
        let total = slot_len * slots.max(1) as usize;
        let layout = Layout::from_size_align(total, ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })
            .unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        BufferPool {
            ptr,
            layout,
            slot_len,
            slots,
        }
    }

    /// Whether the pool already has `slots` buffers of at least `max_len` bytes.
    pub fn fits(&self, slots: u32, max_len: usize) -> bool {
        self.slots >= slots && self.slot_len >= max_len
    }

    pub fn slots(&self) -> u32 {
        self.slots
    }

    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// Raw address of a slot, for handing to the kernel.
    pub fn slot_ptr(&self, slot: u32) -> *mut u8 {
        assert!(slot < self.slots, "slot {slot} out of range");
        // SAFETY: in bounds of the allocation.
        unsafe { self.ptr.as_ptr().add(slot as usize * self.slot_len) }
    }

    pub fn slot_mut(&mut self, slot: u32) -> &mut [u8] {
        // SAFETY: in bounds, and `&mut self` excludes other Rust references into the pool.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(slot), self.slot_len) }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let mut pool = BufferPool::new(3, 5000);
        assert_eq!(pool.slot_len(), 8192);
        for s in 0..3 {
            assert_eq!(pool.slot_ptr(s) as usize % ALIGN, 0);
            pool.slot_mut(s).fill(s as u8 + 1);
        }
        for s in 0..3 {
            assert!(pool.slot_mut(s).iter().all(|&b| b == s as u8 + 1));
        }
    }
}
