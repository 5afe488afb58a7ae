//! The three symbols of the C++ runtime that meshoptimizer's code (built
//! into the `meshopt` crate) refers to: `operator new`, `operator delete`
//! and the personality routine of C++ exceptions. Defined here, the
//! executable does not load libstdc++ at all (Linux with glibc): 0.7 MB
//! less of its memory and fewer relocations at each start, and one shared
//! library fewer for it to need. meshoptimizer throws nothing and calls
//! nothing back, so no exception ever unwinds through its frames: the
//! personality routine is never called (it would end the process), and an
//! allocation that fails ends the process as Rust's own do.

use std::ffi::c_void;

/// `operator new(size_t)`: never null.
#[unsafe(no_mangle)]
extern "C" fn _Znwm(size: usize) -> *mut c_void {
    // SAFETY: malloc of any size; a null result ends the process.
    let p = unsafe { libc::malloc(size.max(1)) };
    if p.is_null() {
        std::process::abort();
    }
    p
}

/// `operator delete(void*)`.
#[unsafe(no_mangle)]
extern "C" fn _ZdlPv(p: *mut c_void) {
    // SAFETY: `p` came from `_Znwm` (malloc) or is null.
    unsafe { libc::free(p) }
}

/// `__gxx_personality_v0`: no C++ exception is ever thrown (see above).
#[unsafe(no_mangle)]
extern "C" fn __gxx_personality_v0() -> ! {
    std::process::abort()
}
