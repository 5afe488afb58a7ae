//! What the C code linked into the page (meshoptimizer's C++, QuickJS's
//! shim) asks of its host and `wasm32-unknown-unknown` has no libc for:
//! C++'s `operator new` and `delete`, through Rust's allocator, and the
//! clock QuickJS's `Date` reads.
#![allow(unsafe_code)]

use std::alloc::{Layout, alloc, dealloc};

/// Room before each block for its size, kept aligned for any type.
const HEAD: usize = 16;

/// `operator new(size_t)`: a block of `size` bytes (its size kept in
/// front of it, for `delete`); null where there is no memory.
#[unsafe(no_mangle)]
pub extern "C" fn _Znwm(size: usize) -> *mut u8 {
    let Ok(layout) = Layout::from_size_align(size + HEAD, HEAD) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a layout of non-zero size; the size is written into the
    // block's own head, which is aligned for a usize.
    unsafe {
        let block = alloc(layout);
        if block.is_null() {
            return block;
        }
        block.cast::<usize>().write(size);
        block.add(HEAD)
    }
}

/// `operator delete(void*)`: frees a block `_Znwm` gave.
#[unsafe(no_mangle)]
pub extern "C" fn _ZdlPv(ptr: *mut u8) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from `_Znwm`, which put the block's size just
    // before it, and the layout is the one it was allocated with.
    unsafe {
        let block = ptr.sub(HEAD);
        let size = block.cast::<usize>().read();
        dealloc(block, Layout::from_size_align_unchecked(size + HEAD, HEAD));
    }
}

/// The microseconds QuickJS's `Date.now()` reads: 0, so that a Script
/// gives the page the values it gives the command line whatever the hour
/// (x3dbake's scripts run in the world's own time, not the wall clock's).
#[unsafe(no_mangle)]
pub extern "C" fn __rquickjs_host_now_us() -> f64 {
    0.0
}
