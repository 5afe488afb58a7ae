//! The binary buffer as it is made: in memory, or, given a [`Spill`], in
//! memory up to a size and past it moved out to a file half a megabyte at
//! a time, so that a large buffer is never whole in memory (a bake's peak
//! would otherwise hold it beside what it is made from). A thread of its
//! own writes the file while the buffer goes on being made. The file can
//! leave room before the buffer for what precedes it in the output (a
//! GLB's header and JSON), so that it can become the output without the
//! buffer being copied (docs/performance.md).

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// How many bytes gather in memory before they are moved to the file, once
/// the buffer has passed [`Spill::after`]. (Half a megabyte holds less in
/// memory than one, in the same time: docs/performance.md.)
const SPILL_AT: usize = 1 << 19;

/// How much of a glTF buffer stays in memory before the rest is moved to
/// a file as it is made: a quarter of the input's text, 2 to 64 MiB
/// (docs/performance.md). A GLB's head room is decided there too, so a
/// caller with no file to move it to (the page) passes the same size and
/// gets the same bytes.
pub fn spill_after(input_len: usize) -> usize {
    (input_len / 4).clamp(2 << 20, 64 << 20)
}

/// Where a buffer goes past a size.
pub struct Spill {
    /// Makes the file (empty; best an unnamed one) when the buffer first
    /// passes `after` (most never do: no file is made for them); `None`
    /// leaves the buffer in memory.
    pub open: Box<dyn FnOnce() -> Option<File>>,
    /// The buffer's size up to which it stays in memory.
    pub after: usize,
    /// Leaves room in the file before the buffer, decided when the buffer
    /// first passes `after` (see `Bin::append`), whether or not the file
    /// can be made (so the output is the same bytes either way); otherwise
    /// the buffer starts the file.
    pub room: bool,
    /// Asks the kernel to start writing each block to disk as soon as it
    /// is in the file (see [`crate::sys::start_write_back`]).
    pub write_back: bool,
}

/// The buffer: its first `spilled` bytes handed to the writer, the rest in
/// `mem`.
pub(super) struct Bin {
    mem: Vec<u8>,
    /// How many bytes stay in memory before the first are moved out.
    after: usize,
    /// Makes the file, until the first bytes are moved out.
    open: Option<Box<dyn FnOnce() -> Option<File>>>,
    room: bool,
    /// The room left, once decided.
    head_room: u64,
    write_back: bool,
    writer: Option<SpillThread>,
    spilled: u64,
    /// Bytes counted, not made (see [`Bin::counting`]).
    counted: Option<usize>,
    /// Blocks made for the bytes that follow a spill (not given back).
    #[cfg(test)]
    blocks_made: usize,
}

/// A thread that writes the bytes moved out to the file while the buffer
/// goes on being made (on one thread, writing was a tenth of the 10 MB
/// bench bake).
struct SpillThread {
    /// Blocks to write, in order, each handed over when the last is written.
    blocks: SyncSender<Vec<u8>>,
    /// Blocks written, emptied, for the next bytes.
    spare: Receiver<Vec<u8>>,
    thread: std::thread::JoinHandle<Written>,
}

/// What the spill thread did: the file, where the buffer starts in it and how
/// many of its bytes are the buffer's, and the blocks it did not write
/// once a write failed (a full disk), in order.
struct Written {
    spilled: Spilled,
    unwritten: Vec<Vec<u8>>,
}

impl SpillThread {
    /// Writes the blocks into `file` from `at`, each sent to disk at once
    /// with `write_back`.
    fn start(mut file: File, at: u64, write_back: bool) -> Option<SpillThread> {
        // One block written while the next is made, and one given back:
        // so at most three are in memory. Each block sent is answered by
        // one given back, before the next is taken (see `Bin::spill`).
        let (blocks, to_write) = sync_channel::<Vec<u8>>(0);
        let (back, spare) = sync_channel(1);
        let write = move || {
            let (mut len, mut unwritten) = (0, Vec::new());
            let mut placed = file.seek(std::io::SeekFrom::Start(at)).is_ok();
            for mut block in to_write {
                // Once a write fails, the rest stay unwritten.
                placed = placed && file.write_all(&block).is_ok();
                if placed {
                    if write_back {
                        crate::sys::start_write_back(&file, at + len, block.len() as u64);
                    }
                    len += block.len() as u64;
                    // Each block is used again, at the usual size: the
                    // first (kept in memory up to `after`) and one grown
                    // by a large piece give the rest of their memory back.
                    block.clear();
                    block.shrink_to(SPILL_AT);
                    // Gone only if the buffer was dropped unfinished.
                    let _ = back.send(block);
                } else {
                    unwritten.push(block);
                    let _ = back.send(Vec::new());
                }
            }
            Written {
                spilled: Spilled { file, at, len },
                unwritten,
            }
        };
        let thread = std::thread::Builder::new().spawn(write).ok()?;
        Some(SpillThread {
            blocks,
            spare,
            thread,
        })
    }
}

/// A buffer's first bytes, moved to a file as it was made.
#[derive(Debug)]
pub struct Spilled {
    /// The file (unnamed, gone when closed unless named); its `len` bytes
    /// from `at` are the buffer's.
    pub file: File,
    /// Where the buffer starts in the file: the room left before it.
    pub at: u64,
    /// How many of its bytes are the buffer's.
    pub len: u64,
}

impl Spilled {
    /// Its bytes, read from the file.
    pub fn reader(&self) -> std::io::Result<std::io::Take<&File>> {
        let mut file = &self.file;
        file.seek(std::io::SeekFrom::Start(self.at))?;
        Ok(file.take(self.len))
    }
}

impl Bin {
    pub(super) fn new(spill: Option<Spill>) -> Bin {
        let (open, after, room, write_back) = match spill {
            Some(s) => (Some(s.open), s.after, s.room, s.write_back),
            None => (None, usize::MAX, false, false),
        };
        Bin {
            mem: Vec::new(),
            after,
            open,
            room,
            head_room: 0,
            write_back,
            writer: None,
            spilled: 0,
            counted: None,
            #[cfg(test)]
            blocks_made: 0,
        }
    }

    /// A buffer whose bytes are counted, not made (see
    /// `gltf::Options::counted`): its length is a bake's, it holds none.
    pub(super) fn counting() -> Bin {
        Bin {
            counted: Some(0),
            ..Bin::new(None)
        }
    }

    /// Whether its bytes are only counted.
    pub(super) fn is_counting(&self) -> bool {
        self.counted.is_some()
    }

    /// How many bytes may gather in memory: all of them once making the
    /// file, or starting its writer, failed.
    fn in_memory(&self) -> usize {
        match self.spilled {
            _ if self.open.is_none() && self.writer.is_none() => usize::MAX,
            0 => self.after,
            _ => SPILL_AT,
        }
    }

    /// The buffer's length so far.
    pub(super) fn len(&self) -> usize {
        self.spilled as usize + self.mem.len() + self.counted.unwrap_or(0)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `n` more bytes at once, or for as many as are to stay in
    /// memory (so the buffer is not grown, and copied, piece by piece).
    pub(super) fn reserve(&mut self, n: usize) {
        if self.is_counting() {
            return;
        }
        let room = self.in_memory().saturating_sub(self.mem.len());
        self.mem.reserve(n.min(room));
    }

    /// Appends `size` bytes written by `fill`, then zeros to a multiple of
    /// four bytes; returns where they start. Bytes that would pass the size
    /// kept in memory are moved out first, so that memory never holds more
    /// than that size or one piece. When that makes the file and the spill
    /// asked for room, `room` says how much.
    pub(super) fn append(
        &mut self,
        size: usize,
        fill: impl FnOnce(&mut [u8]),
        room: impl FnOnce() -> u64,
    ) -> usize {
        let offset = self.len();
        let padded = size.next_multiple_of(4);
        if let Some(counted) = &mut self.counted {
            *counted += padded;
            return offset;
        }
        let mut room = Some(room);
        if !self.mem.is_empty() && self.mem.len().saturating_add(padded) > self.in_memory() {
            self.spill(&mut room);
        }
        let start = self.mem.len();
        self.mem.resize(start + padded, 0);
        fill(&mut self.mem[start..start + size]);
        if self.mem.len() >= self.in_memory() {
            self.spill(&mut room);
        }
        offset
    }

    /// Hands the bytes in memory to the writer. If the file cannot be made
    /// or its writer started, the rest stays in memory; if writing fails (a
    /// full disk), the blocks not written come back at the end: the buffer
    /// is whole either way, and writing the output will say what failed.
    fn spill(&mut self, room: &mut Option<impl FnOnce() -> u64>) {
        if let Some(open) = self.open.take() {
            if let Some(room) = room.take().filter(|_| self.room) {
                self.head_room = room();
            }
            let at = self.head_room;
            self.writer = open().and_then(|file| SpillThread::start(file, at, self.write_back));
        }
        let Some(writer) = &self.writer else {
            return;
        };
        let first = self.spilled == 0;
        let block = std::mem::take(&mut self.mem);
        let len = block.len() as u64;
        match writer.blocks.send(block) {
            // Taken by the writer, which has given back the block before
            // it (if any): the next bytes fill that block's pages, not new
            // ones. (Waited for no longer than the writer takes to hand it
            // over; taken before sending, it was often still being
            // written, and a new block made.)
            Ok(()) => {
                self.spilled += len;
                self.mem = if first {
                    #[cfg(test)]
                    {
                        self.blocks_made += 1;
                    }
                    Vec::with_capacity(SPILL_AT)
                } else {
                    writer.spare.recv().unwrap_or_default()
                };
            }
            // The writer is gone (only a panic ends it early; finish
            // passes the panic on): the bytes stay here.
            Err(returned) => self.mem = returned.0,
        }
    }

    /// The bytes moved to the file, if any, those still in memory (which
    /// follow them), and the room left before them (0 if none).
    pub(super) fn finish(self) -> (Option<Spilled>, Vec<u8>, u64) {
        let Some(writer) = self.writer else {
            return (None, self.mem, self.head_room);
        };
        drop(writer.blocks);
        let written = match writer.thread.join() {
            Ok(w) => w,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let mem = match written.unwritten.concat() {
            none if none.is_empty() => self.mem,
            mut back => {
                back.extend_from_slice(&self.mem);
                back
            }
        };
        let spilled = (written.spilled.len > 0).then_some(written.spilled);
        (spilled, mem, self.head_room)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends pieces of 0.3 MB of one byte each (three not a multiple of
    /// four); returns the bytes the buffer should hold.
    fn fill(bin: &mut Bin) -> Vec<u8> {
        let mut want = Vec::new();
        for i in 0..20u8 {
            let size = 300_000 + usize::from(i % 4);
            let at = bin.append(size, |b| b.fill(i + 1), || 8192);
            assert_eq!(at, want.len());
            want.extend(std::iter::repeat_n(i + 1, size));
            want.resize(want.len().next_multiple_of(4), 0);
        }
        want
    }

    /// A spill to a file of its own, with room asked for and write-back
    /// started or not.
    fn spill(open: Box<dyn FnOnce() -> Option<File>>, after: usize, room: bool) -> Option<Spill> {
        Some(Spill {
            open,
            after,
            room,
            write_back: room,
        })
    }

    /// Past `after` the bytes go to the file, after the room asked for
    /// (none when not asked); the file's and memory's together are the
    /// buffer, with each piece's offset and padding.
    #[test]
    fn a_buffer_past_its_size_is_moved_to_the_file_whole() {
        for (room, at) in [(false, 0), (true, 8192)] {
            let file = tempfile::tempfile().unwrap();
            let mut bin = Bin::new(spill(Box::new(|| Some(file)), 1_500_000, room));
            let want = fill(&mut bin);
            assert!(bin.mem.len() <= SPILL_AT);
            let (spilled, mem, head_room) = bin.finish();
            let s = spilled.expect("moved out");
            assert_eq!(head_room, at);
            assert_eq!(s.at, at);
            let mut got = Vec::new();
            s.reader().unwrap().read_to_end(&mut got).unwrap();
            assert_eq!(got.len() as u64, s.len);
            let mut whole = Vec::new();
            (&s.file).rewind().unwrap();
            (&s.file).read_to_end(&mut whole).unwrap();
            assert!(whole[..at as usize].iter().all(|&b| b == 0));
            assert!(whole[at as usize..] == got);
            got.extend(mem);
            assert!(got == want);
        }
    }

    /// The first block, kept in memory up to `after` and so larger than a
    /// block, comes back from the writer for the next bytes, cut to a
    /// block's size: its pages are used again, the rest given back.
    #[test]
    fn the_first_block_comes_back_at_a_blocks_size() {
        let file = tempfile::tempfile().unwrap();
        let mut bin = Bin::new(spill(Box::new(|| Some(file)), 3 * SPILL_AT, false));
        bin.append(3 * SPILL_AT + 4, |b| b.fill(1), || 0);
        assert_eq!(bin.spilled, 3 * SPILL_AT as u64 + 4);
        let SpillThread {
            blocks,
            spare,
            thread,
        } = bin.writer.take().expect("moved out");
        drop(blocks);
        let written = thread.join().unwrap();
        assert_eq!(written.spilled.len, 3 * SPILL_AT as u64 + 4);
        let block = spare.try_recv().expect("given back");
        assert_eq!((block.len(), block.capacity()), (0, SPILL_AT));
    }

    /// Past the first, every block is one the writer has written and given
    /// back: only the one that follows the first spill is made.
    #[test]
    fn each_block_written_is_filled_again() {
        let file = tempfile::tempfile().unwrap();
        let mut bin = Bin::new(spill(Box::new(|| Some(file)), SPILL_AT, false));
        for i in 0..24 {
            bin.append(SPILL_AT, |b| b.fill(i), || 0);
        }
        assert_eq!(bin.spilled, 24 * SPILL_AT as u64);
        assert_eq!(bin.blocks_made, 1);
        bin.finish();
    }

    /// A file that cannot be written, or made, leaves the whole buffer in
    /// memory, the room decided all the same; one never needed is never
    /// made.
    #[test]
    fn a_file_that_fails_leaves_the_buffer_in_memory() {
        let read_only = File::open(file!()).unwrap();
        for open in [
            Box::new(|| Some(read_only)) as Box<dyn FnOnce() -> _>,
            Box::new(|| None),
        ] {
            let mut bin = Bin::new(spill(open, 0, true));
            let want = fill(&mut bin);
            let (spilled, mem, head_room) = bin.finish();
            assert!(spilled.is_none() && mem == want);
            assert_eq!(head_room, 8192);
        }
        let mut bin = Bin::new(spill(Box::new(|| panic!("made")), 10 << 20, true));
        let want = fill(&mut bin);
        assert!(bin.finish().1 == want);
    }
}
