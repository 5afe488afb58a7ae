//! The crate's only unsafe code: system calls (a memory map under a read
//! lease, a write-back hint, naming an unnamed file) and SSE2 instructions,
//! each behind a safe function. Everything else is `#![deny(unsafe_code)]`.

pub mod mapped;

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

/// Sets glibc's allocator for a run that bakes one scene:
/// - every thread allocates from the one main heap instead of a heap of
///   its own (`M_ARENA_MAX` 1): its threads are helpers that seldom
///   allocate at the same time, and memory one frees another takes again
///   (peak of the 10 MB bigscene bake 0.6 MiB lower, of its `--compress`
///   1.6 MiB); the main heap grows by its padding where a thread's own
///   grows a page at a time, each a system call (7 % of the bake of 5 000
///   animated boxes, now 0.95 × the time);
/// - blocks under 2 MiB come from the heap, and up to 8 MiB freed at its
///   top stay there (`M_MMAP_THRESHOLD`, `M_TRIM_THRESHOLD`; by default
///   the first is raised as blocks are freed and the second follows it):
///   a block of the same size made again (a morph target's displacements,
///   a part of a stream to encode) takes the same pages instead of new
///   ones, each a page fault (bigscene 42 MB: 0.95 × the time, 0.92 × with
///   `--compress`; the peaks no higher).
///
/// To be called before a thread starts (the arena limit is read when a
/// second heap would be made). Elsewhere nothing. (docs/performance.md)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_allocator() {
    // SAFETY: mallopt only sets a parameter of the allocator; a refusal
    // (0) leaves it as it was.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 2 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
}

/// Elsewhere the allocator is left as it is.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}

/// Gives an unnamed file the name `path` (through /proc, which needs no
/// privilege); false where it cannot (another file system, `path` taken,
/// no /proc).
#[cfg(target_os = "linux")]
pub fn link_unnamed(file: &std::fs::File, path: &std::path::Path) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::ffi::OsStrExt as _;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: two NUL-terminated paths that live across the call.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    Ok(linked == 0)
}

/// Four byte classes of sixteen bytes (`lo`, then `hi`, little-endian), a
/// bit a byte: digits, '.', '-', and separators (space, comma, newline,
/// carriage return, tab). SSE2 is part of every x86_64.
#[cfg(target_arch = "x86_64")]
pub fn sse2_classes(lo: i64, hi: i64) -> [u16; 4] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86_64; these intrinsics only compute
    // on values (no memory is read through them).
    unsafe {
        let v = _mm_set_epi64x(hi, lo);
        let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        // Bytes minus '0' that are at most 9 (unsigned) are digits.
        let d = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
        let separator = _mm_or_si128(
            _mm_or_si128(is(b' '), is(b',')),
            _mm_or_si128(_mm_or_si128(is(b'\n'), is(b'\r')), is(b'\t')),
        );
        [
            _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d),
            is(b'.'),
            is(b'-'),
            separator,
        ]
        .map(|m| _mm_movemask_epi8(m) as u16)
    }
}
