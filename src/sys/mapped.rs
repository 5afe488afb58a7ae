//! Large input files mapped into memory instead of read (Linux), under a
//! read lease that keeps them as they are while they are mapped.
//!
//! Reading a file copies it into fresh pages the kernel must clear first: a
//! fifth of a large bake, and the whole text held beside its parsed numbers
//! (the peak of reading). A mapping shares the kernel's cached pages. Parts
//! of it already read are let go ([`let_go`]): their pages leave the
//! process and come back from the cache if read again, so a long keyValue
//! is never whole in memory beside its numbers (docs/performance.md).
//!
//! A mapped file that another process changes could break the promise that
//! the text is UTF-8, and one cut short would kill the process (SIGBUS). So
//! a file is mapped only under a read lease (`F_SETLEASE`): it is refused
//! while the file is open for writing, and from then on any `open` for
//! writing or `truncate` waits until the mapping is gone (up to the
//! kernel's `lease-break-time`, 45 s by default; a file is mapped only up
//! to [`MAX_MAPPED`], read well within it). Where no lease can be taken (a
//! file of another user, a file system without leases) the file is read as
//! before.

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// Files from this size on are mapped: smaller ones cost less to read
/// than to map and lease.
pub const MIN_MAPPED: usize = 4 << 20;

/// Files past this size are read: parsing them must end well within the
/// lease-break time (1 GiB is read here in about 4 s).
pub const MAX_MAPPED: usize = 1 << 30;

/// fcntl's command to choose the signal of a lease break (Linux's
/// `F_SETSIG`, which the libc crate does not name).
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

/// A file's text, mapped read-only (by memmap2) under a read lease;
/// unmapped and the lease given back when dropped.
#[derive(Debug)]
pub struct Mapped {
    map: Arc<memmap2::Mmap>,
    /// Where its lines start, found while its text was checked.
    starts: Vec<u32>,
    /// Holds the lease (closing it gives the lease back).
    _file: File,
}

/// The live mappings: what [`let_go`] may advise.
static MAPS: Mutex<Vec<Arc<memmap2::Mmap>>> = Mutex::new(Vec::new());

fn maps() -> std::sync::MutexGuard<'static, Vec<Arc<memmap2::Mmap>>> {
    // Nothing panics while holding it; a poisoned lock is still sound.
    MAPS.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Mapped {
    /// Maps the regular file `path` when it is between [`MIN_MAPPED`] and
    /// [`MAX_MAPPED`] bytes, a lease can be taken on it, and it is UTF-8
    /// text (so not gzip); `None` otherwise (the caller reads it).
    #[cfg(target_os = "linux")]
    pub fn open(path: &Path) -> Option<Mapped> {
        use std::os::fd::AsRawFd as _;
        let size = |meta: std::fs::Metadata| {
            let len = usize::try_from(meta.len()).ok()?;
            (meta.is_file() && (MIN_MAPPED..=MAX_MAPPED).contains(&len)).then_some(len)
        };
        // Sized before it is opened: a file to be read is opened once, to
        // read it.
        size(std::fs::metadata(path).ok()?)?;
        let file = File::open(path).ok()?;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns. A lease break
        // is announced by a signal; SIGURG is ignored by default, where
        // SIGIO would end the process. The lease is then waited out.
        let leased = unsafe {
            libc::fcntl(fd, F_SETSIG, libc::SIGURG) == 0
                && libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0
        };
        if !leased {
            return None;
        }
        // Sized again under the lease: nothing changes it from here on.
        let len = size(file.metadata().ok()?)?;
        // SAFETY: a private read-only map of the whole file; the lease
        // keeps its pages as they are (nothing writes or truncates it).
        let map = unsafe { memmap2::MmapOptions::new().len(len).populate().map(&file) };
        let map = Arc::new(map.ok()?);
        maps().push(Arc::clone(&map));
        let mut mapped = Mapped {
            map,
            starts: Vec::new(),
            _file: file,
        };
        // Gzip data is never UTF-8: its second byte (0x8B) cannot follow
        // the first (0x1F).
        mapped.starts = line_starts_of_utf8(mapped.bytes())?;
        Some(mapped)
    }

    /// Never: mapping is for Linux, where leases keep a mapped file whole.
    #[cfg(not(target_os = "linux"))]
    pub fn open(_path: &Path) -> Option<Mapped> {
        None
    }

    fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Where its lines start (byte offsets, the first 0).
    pub fn take_line_starts(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.starts)
    }

    /// The text (checked as UTF-8 when it was mapped).
    pub fn text(&self) -> &str {
        // SAFETY: `open` checked the bytes, and the lease keeps them.
        unsafe { std::str::from_utf8_unchecked(self.bytes()) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // Out of the list, so that no let_go advises it once unmapped
        // (memmap2 unmaps it with its last Arc, this one).
        maps().retain(|m| !Arc::ptr_eq(m, &self.map));
    }
}

/// Where the lines of `bytes` start, if they are UTF-8: one pass for both
/// (the line index is made for every file read, see `Sources::release`),
/// its two halves on two threads. (Only a Linux map is read here.)
#[cfg(target_os = "linux")]
fn line_starts_of_utf8(bytes: &[u8]) -> Option<Vec<u32>> {
    // Cut before a byte that starts a character (or is not UTF-8): each
    // half of UTF-8 text is UTF-8, and of other text one half is not.
    let mut mid = bytes.len() / 2;
    while bytes.get(mid).is_some_and(|&b| b & 0xC0 == 0x80) {
        mid += 1;
    }
    let (front, back) = bytes.split_at(mid);
    let starts = |half: &[u8], at: usize| {
        std::str::from_utf8(half).ok()?;
        Some(line_starts_after(half, at).collect::<Vec<_>>())
    };
    let (front, back) = crate::par::join(|| starts(front, 0), || starts(back, mid));
    let (front, back) = (front?, back?);
    let mut all = Vec::with_capacity(1 + front.len() + back.len());
    all.push(0);
    all.extend(front);
    all.extend(back);
    Some(all)
}

/// Where the lines that follow each line end of `bytes` start, as offsets
/// in a text whose byte `at` `bytes` starts at (the first line's start, 0,
/// is not among them). Shared by the line index of read texts
/// (`crate::source`).
pub(crate) fn line_starts_after(bytes: &[u8], at: usize) -> impl Iterator<Item = u32> + '_ {
    memchr::memchr_iter(b'\n', bytes).map(move |i| (at + i) as u32 + 1)
}

/// Lets go of the pages of `bytes` (those wholly inside it) when they are
/// part of a mapped file: read again, they come back as they were, from
/// the kernel's cache of the file. Anything else is left as it is.
pub fn let_go(bytes: &[u8]) {
    #[cfg(target_os = "linux")]
    {
        let (lo, hi) = (
            bytes.as_ptr() as usize,
            bytes.as_ptr() as usize + bytes.len(),
        );
        let maps = maps();
        let base = |m: &memmap2::Mmap| m.as_ptr() as usize;
        let Some(map) = maps
            .iter()
            .find(|m| lo >= base(m) && hi <= base(m) + m.len())
        else {
            return;
        };
        let page = page_size();
        let (start, end) = (lo.next_multiple_of(page), hi / page * page);
        if end > start {
            // SAFETY: whole pages of a private read-only file map that is
            // live (the lock keeps it listed); dropping them only means they
            // are read from the file's pages again (nothing wrote them).
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start - base(map),
                    end - start,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
}

#[cfg(target_os = "linux")]
fn page_size() -> usize {
    // SAFETY: sysconf only reads a constant of the system.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).unwrap_or(4096).max(1)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A file of `len` bytes of text in the temporary folder.
    fn text_file(name: &str, len: usize) -> (std::path::PathBuf, String) {
        let path = std::env::temp_dir().join(format!("x3dbake-{name}-{}", std::process::id()));
        let line = "0.5 1.25 -3e2, 7 ç €\n";
        let text: String = line.repeat(len / line.len() + 1);
        std::fs::write(&path, &text).unwrap();
        (path, text)
    }

    /// Resident pages of the process, from /proc/self/statm.
    fn resident_pages() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        statm.split(' ').nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn a_mapped_file_is_its_text_and_parts_let_go_read_the_same() {
        let (path, text) = text_file("mapped", 6 << 20);
        let mut m = Mapped::open(&path).expect("mapped");
        assert!(m.text() == text);
        let lines = text.match_indices('\n').map(|(i, _)| i as u32 + 1);
        assert!(m.take_line_starts() == [0].into_iter().chain(lines).collect::<Vec<_>>());
        let before = resident_pages();
        let_go(m.text().as_bytes());
        // Let go: out of the process, and read again, the same.
        assert!(resident_pages() + (5 << 20) / page_size() < before);
        assert!(m.text() == text);
        // Text that is not mapped is never touched.
        let_go(text.as_bytes());
        assert!(text.starts_with("0.5 1.25"));
        let map = Arc::clone(&m.map);
        drop(m);
        assert!(maps().iter().all(|m| !Arc::ptr_eq(m, &map)));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn lines_and_utf8_are_found_across_the_cut_between_halves() {
        // Halves cut inside 2-, 3- and 4-byte characters, at line ends and
        // after them, and invalid bytes in either half.
        let text = "ç€\n𝄞a\n\nb€ç\n𝄞";
        for end in 1..=text.len() {
            let Some(t) = text.get(..end) else { continue };
            let lines = t.match_indices('\n').map(|(i, _)| i as u32 + 1);
            let want: Vec<u32> = [0].into_iter().chain(lines).collect();
            assert_eq!(line_starts_of_utf8(t.as_bytes()), Some(want), "{t:?}");
            for bad in 0..end {
                let mut b = t.as_bytes().to_vec();
                b[bad] = 0xFF;
                assert_eq!(line_starts_of_utf8(&b), None, "{b:?}");
            }
        }
        assert_eq!(line_starts_of_utf8("ç".as_bytes()[..1].as_ref()), None);
    }

    #[test]
    fn small_gzip_broken_and_written_files_are_left_to_be_read() {
        let (path, _) = text_file("small", 1000);
        assert!(Mapped::open(&path).is_none());
        let mut bytes = "x".repeat(MIN_MAPPED).into_bytes();
        bytes[..2].copy_from_slice(&[0x1f, 0x8b]);
        std::fs::write(&path, &bytes).unwrap();
        assert!(Mapped::open(&path).is_none());
        bytes[..2].copy_from_slice(b"xx");
        bytes[MIN_MAPPED - 1] = 0xC3; // a character cut off by the end
        std::fs::write(&path, &bytes).unwrap();
        assert!(Mapped::open(&path).is_none());
        bytes[MIN_MAPPED - 1] = b'x';
        std::fs::write(&path, &bytes).unwrap();
        let writer = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        assert!(Mapped::open(&path).is_none(), "open for writing elsewhere");
        drop(writer);
        assert!(Mapped::open(&path).is_some());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_writer_waits_until_the_mapping_is_gone() {
        let (path, text) = text_file("leased", MIN_MAPPED);
        let m = Mapped::open(&path).expect("mapped");
        let opened = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let f = std::fs::OpenOptions::new().write(true).open(&path);
                opened.store(true, Ordering::SeqCst);
                f.unwrap().set_len(0).unwrap();
            });
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert!(!opened.load(Ordering::SeqCst), "the writer got in");
            assert!(m.text() == text);
            drop(m);
        });
        assert!(opened.load(Ordering::SeqCst));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        std::fs::remove_file(&path).unwrap();
    }
}
