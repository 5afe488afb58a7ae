//! The allocator of the command line: the system's for small blocks; blocks
//! of 2 MiB and more are mapped by it directly, in whole huge pages, and
//! advised for transparent huge pages (Linux `madvise(MADV_HUGEPAGE)`).
//!
//! A bake touches a few large, fresh buffers (the file's text, parsed key
//! values, the glTF binary buffer). With 4 KiB pages the kernel's page
//! faults were a quarter of the time of a 50 MB bake; with huge pages a
//! 2 MiB block takes one fault. Mapping whole huge pages lets the kernel
//! align them (glibc's own large blocks are 2 MiB plus a header, which the
//! kernel does not align; advising those helped less and raised the peak
//! memory by 40 %). Maps past 128 MiB are not advised (see `ADVISED_MAX`).
//! Where the system runs transparent huge pages "never",
//! the advice is ignored and only the rounding remains. The last large
//! block released is kept for the next one asked for (see `SPARE`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The system allocator for small blocks, anonymous maps for large ones.
pub struct HugePages;

/// One huge page (2 MiB on x86_64, and on aarch64 with 4 KiB pages).
/// Blocks of this size and more are mapped, in whole huge pages.
const HUGE: usize = 2 << 20;

/// The alignment every map has (at least a 4 KiB page).
const PAGE: usize = 4096;

/// True when a block of this layout is mapped here (the same answer for
/// its allocation and its release, which get the same layout).
fn mapped(size: usize, align: usize) -> bool {
    size >= HUGE && align <= PAGE
}

/// A map's length: the block rounded up to whole huge pages.
fn map_len(size: usize) -> usize {
    size.next_multiple_of(HUGE)
}

/// The largest map advised for huge pages. Past it the kernel's search
/// for that many free huge pages (compaction) costs more than the faults it
/// saves: a 200 MB bake advised took 0.78–2.32 and 0.79–2.38 s (system
/// time up to 1.9 s) in two series of runs, unadvised past this size
/// 0.81–0.98 and 0.82–1.56 s; a 42 MB bake (maps of 40 MB) is the same
/// either way (docs/performance.md).
const ADVISED_MAX: usize = 128 << 20;

/// Advises a map for huge pages (up to `ADVISED_MAX`); a failure only
/// leaves its pages small.
fn advise(block: *mut libc::c_void, len: usize) {
    if len > ADVISED_MAX {
        return;
    }
    // SAFETY: [block, block + len) is a whole map made here; MADV_HUGEPAGE
    // changes how its pages are backed, never what they hold.
    unsafe {
        libc::madvise(block, len, libc::MADV_HUGEPAGE);
    }
}

/// The last large block released, kept as it is for the next one asked
/// for: (address, map length), or a length of 0. Its pages are backed
/// already, so reusing it spares the kernel clearing fresh ones (a bake
/// releases the file's text before it asks for the buffers it writes).
static SPARE: Mutex<(usize, usize)> = Mutex::new((0, 0));

fn spare() -> MutexGuard<'static, (usize, usize)> {
    // Nothing panics while holding it; a poisoned lock is still sound.
    SPARE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Releases a whole map, or the part of one from `addr` on.
fn unmap(addr: usize, len: usize) {
    if len > 0 {
        // SAFETY: [addr, addr + len) is a map, or the tail of one, made by
        // `map` and no longer used.
        unsafe {
            libc::munmap(addr as *mut libc::c_void, len);
        }
    }
}

/// A block of `size` bytes: the spare map when it is large enough (its
/// tail beyond the block released), else a new map (the spare released
/// first). A spare is never kept beside a new block, so keeping it never
/// raises the peak memory.
fn reuse_or_map(size: usize) -> *mut u8 {
    let len = map_len(size);
    let (addr, have) = std::mem::take(&mut *spare());
    if have >= len {
        unmap(addr + len, have - len);
        return addr as *mut u8;
    }
    unmap(addr, have);
    map(size)
}

/// Keeps a released map as the spare when it is the larger of the two,
/// releasing the other.
fn release(block: *mut u8, len: usize) {
    let mut spare = spare();
    let (addr, have) = *spare;
    if len > have {
        *spare = (block as usize, len);
        drop(spare);
        unmap(addr, have);
    } else {
        drop(spare);
        unmap(block as usize, len);
    }
}

/// A new anonymous map of `size` bytes (zeroed by the kernel), or null.
fn map(size: usize) -> *mut u8 {
    let len = map_len(size);
    // SAFETY: a new private anonymous map at an address the kernel picks;
    // nothing existing is touched.
    let block = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if block == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    advise(block, len);
    block.cast()
}

// SAFETY: small blocks go to the system allocator unchanged. A large block
// is a map of its size rounded up to whole huge pages, page-aligned (so any
// alignment up to PAGE is met), released with munmap and resized with
// mremap, which keeps its contents; `mapped` gives the same answer for a
// block's allocation and its release.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            reuse_or_map(layout.size())
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            // A new map, which the kernel zeroes (the spare released first,
            // as when it is too small).
            let (addr, have) = std::mem::take(&mut *spare());
            unmap(addr, have);
            map(layout.size())
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if mapped(layout.size(), layout.align()) {
            release(block, map_len(layout.size()));
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.dealloc(block, layout) }
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (mapped(layout.size(), align), mapped(new_size, align)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { System.realloc(block, layout, new_size) },
            (true, true) => {
                let (old_len, new_len) = (map_len(layout.size()), map_len(new_size));
                if old_len == new_len {
                    return block;
                }
                // SAFETY: the block is a map of old_len bytes made by `map`;
                // mremap moves or resizes it with its contents.
                let moved =
                    unsafe { libc::mremap(block.cast(), old_len, new_len, libc::MREMAP_MAYMOVE) };
                if moved == libc::MAP_FAILED {
                    return ptr::null_mut();
                }
                advise(moved, new_len);
                moved.cast()
            }
            // Across the threshold: a new block, the contents copied.
            _ => {
                // SAFETY: new_size is non-zero and, rounded up to `align`,
                // does not overflow (the caller's contract).
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: as for alloc.
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and
                    // are distinct; the old one is released once copied.
                    unsafe {
                        ptr::copy_nonoverlapping(block, new, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The kernel's flags of the mapping that holds `addr`, from
    /// /proc/self/smaps (`hg`: huge pages advised).
    fn vm_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps is readable");
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.trim().to_string();
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    /// Held by each test here: the spare block is the process's.
    fn alone() -> std::sync::MutexGuard<'static, ()> {
        static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
        ALONE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn advised(v: &[u8]) -> bool {
        let flags = vm_flags(v.as_ptr() as usize + v.len() / 2);
        flags.split(' ').any(|f| f == "hg")
    }

    #[test]
    fn large_blocks_are_mapped_for_huge_pages_and_keep_their_contents() {
        let _alone = alone();
        let large = vec![1u8; 16 << 20];
        assert!(advised(&large));
        // Grown from small to large, and large to larger (mremap), and
        // shrunk back below the threshold: the contents follow.
        let mut v: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        for size in [3 << 20, 5 << 20, 40 << 20] {
            v.resize(size, 7);
            assert!(advised(&v));
            assert!(
                v[..1000]
                    .iter()
                    .enumerate()
                    .all(|(i, &b)| b == (i % 251) as u8)
            );
            assert!(v[1000..].iter().all(|&b| b == 7));
        }
        v.truncate(1000);
        v.shrink_to_fit();
        assert!(v.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        let zeroed = vec![0u64; 1 << 20];
        assert!(zeroed.iter().all(|&x| x == 0));
        let small = vec![3u8; 64 << 10];
        assert!(!advised(&small));
    }

    #[test]
    fn a_released_block_is_reused_and_zeroed_blocks_are_fresh() {
        let _alone = alone();
        let a = vec![1u8; 8 << 20];
        let at = a.as_ptr();
        drop(a);
        // The next large block is the released one (its tail released).
        let mut b: Vec<u8> = Vec::with_capacity(5 << 20);
        assert_eq!(b.as_ptr(), at);
        b.resize(5 << 20, 0xFF);
        assert!(advised(&b));
        drop(b);
        // A zeroed block is never a used one.
        let z = vec![0u8; 5 << 20];
        assert!(z.iter().all(|&x| x == 0));
    }
}
