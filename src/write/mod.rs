//! Writers: glTF 2.0 (JSON with a buffer, or GLB), CSV tables, the
//! report of `x3dbake inspect`, and the HTML bake report.

pub mod csv;
pub mod glb;
pub mod gltf;
pub mod inspect;
pub mod report;
pub mod shortest;

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to
/// disk now rather than when it gets to them (Linux; elsewhere nothing).
/// Only a hint: an error (an old kernel, a file system without it) is
/// left, and `fsync` alone promises the bytes are on disk.
#[cfg(target_os = "linux")]
pub fn start_write_back(file: &std::fs::File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd as _;
    // SAFETY: a plain system call on an open descriptor; its result is only
    // a hint.
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            offset as libc::off64_t,
            len as libc::off64_t,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

/// Elsewhere the kernel is left to write when it will.
#[cfg(not(target_os = "linux"))]
pub fn start_write_back(_: &std::fs::File, _: u64, _: u64) {}
