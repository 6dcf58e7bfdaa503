//! The page's memory: a counting wrapper around the allocator, and the
//! budget past which the session drops the oldest part of its timeline,
//! and stops taking new steps once that frees too little.
//!
//! WebAssembly gives a page at most 4 GiB, and the session keeps every
//! step (the trace, the timeline and a snapshot every 64 positions), so a
//! long enough run fills it. An allocation that fails aborts, which in the
//! browser is a bare `RuntimeError: unreachable`: the page stops without a
//! word. Two things keep that from being the outcome. The page's binary
//! installs [`PageAllocator`] (`src/main.rs`), which counts the bytes in use
//! and, should the allocator still run dry, calls a hook that shows "out of
//! memory" before the abort. And [`over_budget`] tells the session, well before
//! the limit, to drop the oldest part of its timeline, and to stop taking
//! new steps if that is not enough, so a learner sees a message and a page
//! that still works (Step back, the timeline, a new setup) instead.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The bytes the page's allocator has handed out and not taken back. Zero
/// where no [`PageAllocator`] counts into it (native builds, tests that do
/// not install one).
pub static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Three quarters of the 4 GiB a wasm32 page may have: the rest leaves room
/// for what one more action allocates (a view, a render, a doubling vector)
/// and for the allocator's own fragmentation.
pub const DEFAULT_BUDGET_BYTES: usize = 3 << 30;

static BUDGET_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_BUDGET_BYTES);

/// Sets the budget; tests use a small one to reach it quickly.
pub fn set_budget(bytes: usize) {
    BUDGET_BYTES.store(bytes, Ordering::Relaxed);
}

/// The bytes in use, as the page's allocator counts them.
pub fn live_bytes() -> usize {
    LIVE_BYTES.load(Ordering::Relaxed)
}

/// Whether the page uses more than its budget: time to stop growing.
pub fn over_budget() -> bool {
    live_bytes() > BUDGET_BYTES.load(Ordering::Relaxed)
}

/// An allocator that counts the bytes in use into `live` and calls
/// `out_of_memory` with the size asked for when `inner` has none left.
/// The hook must not allocate: it runs inside the allocator, which has just
/// failed. The null is then returned as it came, so Rust's allocation error
/// handler aborts as it would have.
pub struct PageAllocator<A> {
    inner: A,
    live: &'static AtomicUsize,
    out_of_memory: fn(usize),
}

impl<A> PageAllocator<A> {
    pub const fn new(inner: A, live: &'static AtomicUsize, out_of_memory: fn(usize)) -> Self {
        Self { inner, live, out_of_memory }
    }

    fn counted(&self, ptr: *mut u8, size: usize) -> *mut u8 {
        if ptr.is_null() {
            (self.out_of_memory)(size);
        } else {
            self.live.fetch_add(size, Ordering::Relaxed);
        }
        ptr
    }
}

// SAFETY: every call is passed to `inner` unchanged, with the same layout
// and pointer; the wrapper only reads the result and counts.
unsafe impl<A: GlobalAlloc> GlobalAlloc for PageAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.counted(unsafe { self.inner.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.counted(unsafe { self.inner.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.inner.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if moved.is_null() {
            // The old block is still there and still counted.
            (self.out_of_memory)(new_size);
        } else {
            self.live.fetch_add(new_size, Ordering::Relaxed);
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;
    use std::sync::atomic::AtomicBool;

    /// The system allocator, except that it has nothing for a request
    /// larger than a mebibyte.
    struct Small;

    unsafe impl GlobalAlloc for Small {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if layout.size() > 1 << 20 {
                return std::ptr::null_mut();
            }
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static ASKED: AtomicUsize = AtomicUsize::new(0);
    static CALLED: AtomicBool = AtomicBool::new(false);

    fn noted(size: usize) {
        CALLED.store(true, Ordering::Relaxed);
        ASKED.store(size, Ordering::Relaxed);
    }

    #[test]
    fn the_page_allocator_counts_live_bytes_and_names_a_failed_request() {
        let a = PageAllocator::new(Small, &LIVE, noted);
        let small = Layout::from_size_align(100, 8).unwrap();
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            assert_eq!(LIVE.load(Ordering::Relaxed), 100);
            let q = a.realloc(p, small, 300);
            assert!(!q.is_null());
            assert_eq!(LIVE.load(Ordering::Relaxed), 300);
            let z = a.alloc_zeroed(small);
            assert_eq!(LIVE.load(Ordering::Relaxed), 400);
            a.dealloc(z, small);
            assert!(!CALLED.load(Ordering::Relaxed), "nothing failed yet");
            // Growing past what the inner allocator has: the hook hears the
            // size, the old block stays counted.
            let r = a.realloc(q, Layout::from_size_align(300, 8).unwrap(), 2 << 20);
            assert!(r.is_null());
            assert_eq!((CALLED.load(Ordering::Relaxed), ASKED.load(Ordering::Relaxed)), (true, 2 << 20));
            assert_eq!(LIVE.load(Ordering::Relaxed), 300);
            a.dealloc(q, Layout::from_size_align(300, 8).unwrap());
            assert_eq!(LIVE.load(Ordering::Relaxed), 0);
            let big = a.alloc(Layout::from_size_align(3 << 20, 8).unwrap());
            assert!(big.is_null());
            assert_eq!(ASKED.load(Ordering::Relaxed), 3 << 20);
        }
    }
}
