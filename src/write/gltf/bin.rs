//! The binary buffer as it is made: in memory, or, given a file, moved out
//! to it a megabyte at a time, so that a large buffer is never whole in
//! memory (a bake's peak would otherwise hold it beside the key values it
//! is made from).

use std::fs::File;
use std::io::Write as _;

/// How many bytes gather in memory before they are moved to the file.
const SPILL_AT: usize = 1 << 20;

/// The buffer: its first `spilled` bytes in `file`, the rest in `mem`.
pub(super) struct Bin {
    mem: Vec<u8>,
    file: Option<File>,
    spilled: u64,
    /// Writing to the file failed: the rest stays in memory.
    failed: bool,
}

/// A buffer's first bytes, moved to a file as it was made.
#[derive(Debug)]
pub struct Spilled {
    /// The file (unnamed, gone when closed); its first `len` bytes are the
    /// buffer's.
    pub file: File,
    /// How many of its bytes are the buffer's.
    pub len: u64,
}

impl Bin {
    pub(super) fn new(file: Option<File>) -> Bin {
        Bin {
            mem: Vec::new(),
            file,
            spilled: 0,
            failed: false,
        }
    }

    /// The buffer's length so far.
    pub(super) fn len(&self) -> usize {
        self.spilled as usize + self.mem.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `n` more bytes at once (in memory only: a buffer moved out
    /// to a file never grows to them).
    pub(super) fn reserve(&mut self, n: usize) {
        if self.file.is_none() || self.failed {
            self.mem.reserve(n);
        }
    }

    /// Appends `size` bytes written by `fill`, then zeros to a multiple of
    /// four bytes; returns where they start.
    pub(super) fn append(&mut self, size: usize, fill: impl FnOnce(&mut [u8])) -> usize {
        let offset = self.len();
        let start = self.mem.len();
        self.mem.resize(start + size.next_multiple_of(4), 0);
        fill(&mut self.mem[start..start + size]);
        if self.mem.len() >= SPILL_AT {
            self.spill();
        }
        offset
    }

    /// Moves the bytes in memory to the file. If writing fails (a full
    /// disk), the file keeps what it had and the rest stays in memory: the
    /// buffer is whole either way, and writing the output will say what
    /// failed.
    fn spill(&mut self) {
        let Some(file) = self.file.as_mut().filter(|_| !self.failed) else {
            return;
        };
        if file.write_all(&self.mem).is_err() {
            self.failed = true;
            return;
        }
        self.spilled += self.mem.len() as u64;
        self.mem.clear();
        if self.mem.capacity() > 4 * SPILL_AT {
            self.mem = Vec::new();
        }
    }

    /// The bytes moved to the file, if any, and those still in memory
    /// (which follow them).
    pub(super) fn finish(self) -> (Option<Spilled>, Vec<u8>) {
        let spilled = self.file.filter(|_| self.spilled > 0).map(|file| Spilled {
            file,
            len: self.spilled,
        });
        (spilled, self.mem)
    }
}
