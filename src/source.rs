//! Source texts and byte spans.
//!
//! Spans are byte ranges kept beside the data; a line and column are worked
//! out only when a diagnostic is printed (as naga does).

use crate::sys::mapped::Mapped;
use std::io::Read as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which source file a span belongs to (an index into [`Sources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// The first byte.
    pub start: u32,
    /// The byte after the last.
    pub end: u32,
}

impl Span {
    /// The span of a byte range of a file.
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        // Files are limited to u32::MAX bytes when they are added, so offsets fit.
        Span {
            file,
            start: range.start as u32,
            end: range.end.max(range.start) as u32,
        }
    }

    /// The byte range.
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One loaded source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name as given by the user (used in messages).
    pub name: String,
    /// The text; after [`Sources::release`], read again from `origin` when
    /// a diagnostic shows a line (`None`: it could not be, or it changed).
    text: OnceLock<Option<Text>>,
    /// Where the text can be read again, once released.
    origin: Option<PathBuf>,
    /// Read because a scene named it (an Inline or EXTERNPROTO file), not
    /// given by the user: diagnostics give its name, line and column but
    /// never show its lines.
    pub referenced: bool,
    /// Its length in bytes.
    len: usize,
    /// Where lines start: worked out on the first diagnostic (or on
    /// release, with one fast pass for line ends), so that reading a file
    /// costs no extra pass over it.
    starts: OnceLock<Vec<u32>>,
    /// The number of characters before every `CHECKPOINT`-th byte: worked
    /// out on the first column asked for.
    chars: OnceLock<Vec<u32>>,
}

/// Bytes between two character counts: a column is counted over at most
/// that many bytes, however long its line (counting from the start of the
/// line made many diagnostics on one long line quadratic: 200 000 on a 2.4
/// MB line took 77 s).
const CHECKPOINT: usize = 4096;

/// A file's text: read into memory, or mapped.
#[derive(Debug)]
enum Text {
    Read(String),
    Mapped(Mapped),
}

impl Text {
    fn as_str(&self) -> &str {
        match self {
            Text::Read(s) => s,
            Text::Mapped(m) => m.text(),
        }
    }

    fn len(&self) -> usize {
        self.as_str().len()
    }
}

/// An input file's bytes, as read, or its text mapped ([`Mapped::open`]).
#[derive(Debug)]
pub enum Input {
    /// Bytes read (gzip expanded and UTF-8 checked when it is added).
    Bytes(Vec<u8>),
    /// A large plain file's text, mapped.
    Mapped(Mapped),
}

impl From<Vec<u8>> for Input {
    fn from(bytes: Vec<u8>) -> Input {
        Input::Bytes(bytes)
    }
}

impl SourceFile {
    fn new(name: String, text: Text) -> SourceFile {
        SourceFile {
            name,
            len: text.len(),
            text: OnceLock::from(Some(text)),
            origin: None,
            referenced: false,
            starts: OnceLock::new(),
            chars: OnceLock::new(),
        }
    }

    /// The text's length in bytes (kept when the text is released).
    pub fn text_len(&self) -> usize {
        self.len
    }

    /// The text, as it was read (empty if it was released and cannot be
    /// read again as it was).
    pub fn text(&self) -> &str {
        let text = self.text.get_or_init(|| {
            let bytes = std::fs::read(self.origin.as_ref()?).ok()?;
            // Changed since: no text rather than the wrong lines.
            (bytes.len() == self.len).then(|| String::from_utf8(bytes).ok().map(Text::Read))?
        });
        text.as_ref().map_or("", Text::as_str)
    }

    fn starts(&self) -> &[u32] {
        self.starts.get_or_init(|| {
            let bytes = self.text().as_bytes();
            let mut starts = vec![0u32];
            starts.extend(crate::sys::mapped::line_starts_after(bytes, 0));
            starts
        })
    }

    fn chars(&self) -> &[u32] {
        self.chars.get_or_init(|| {
            let bytes = self.text().as_bytes();
            let mut chars = Vec::with_capacity(bytes.len() / CHECKPOINT + 2);
            let mut n = 0;
            chars.push(n);
            for block in bytes.chunks(CHECKPOINT) {
                n += char_count(block) as u32;
                chars.push(n);
            }
            chars
        })
    }

    /// Characters before a byte offset of the text (an offset inside a
    /// multi-byte character counts that character).
    fn chars_before(&self, offset: usize) -> usize {
        let k = offset / CHECKPOINT;
        let counted = self.chars()[k] as usize;
        counted + char_count(&self.text().as_bytes()[k * CHECKPOINT..offset])
    }

    /// 1-based line and column (column counted in characters; in bytes if
    /// the text was released and is gone) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let col = if self.text().len() == self.len {
            self.chars_before(offset) - self.chars_before(start)
        } else {
            offset - start
        };
        (line + 1, col + 1)
    }

    /// The 0-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        match self.starts().binary_search(&(offset as u32)) {
            Ok(i) => i,
            Err(i) => i - 1, // starts[0] == 0, so i >= 1 here
        }
    }

    /// The byte offset where a 0-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts()[line] as usize
    }

    /// The text of a 1-based line, without its line ending.
    pub fn line_text(&self, line: usize) -> &str {
        let starts = self.starts();
        let text = self.text();
        let start = (starts[line - 1] as usize).min(text.len());
        let end = starts
            .get(line)
            .map(|&e| e as usize)
            .unwrap_or(text.len())
            .min(text.len());
        text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Counts the characters that start in some bytes of UTF-8 text.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// All source files of one run; spans refer to them by [`FileId`].
#[derive(Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

/// The largest source file accepted: spans are 32-bit offsets.
pub const MAX_FILE_BYTES: usize = u32::MAX as usize;

/// Reads a file of at most [`MAX_FILE_BYTES`]. A regular file is sized
/// first and read at once; anything else (a pipe, a device) is read as a
/// stream, see [`read_capped`].
pub fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return read_capped(std::fs::File::open(path)?);
    }
    read_sized(path, &meta)
}

/// Reads the regular file `path` whose metadata is `meta`, when it is at
/// most [`MAX_FILE_BYTES`].
pub fn read_sized(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<Vec<u8>> {
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(too_large());
    }
    std::fs::read(path)
}

/// Reads a stream of at most [`MAX_FILE_BYTES`], and one byte more to
/// know it is longer: a stream that never ends (`/dev/zero`, `yes |`) is
/// refused instead of filling memory.
pub fn read_capped(r: impl std::io::Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    r.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn too_large() -> std::io::Error {
    std::io::Error::other("larger than 4 GiB")
}

impl Sources {
    /// No files yet.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Adds a file. The caller checks the size against [`MAX_FILE_BYTES`].
    pub fn add(&mut self, name: impl Into<String>, text: String) -> FileId {
        self.push(name.into(), Text::Read(text))
    }

    /// Adds a mapped file (its size and text checked, and its lines found,
    /// when it was mapped).
    pub fn add_mapped(&mut self, name: impl Into<String>, mut text: Mapped) -> FileId {
        let starts = text.take_line_starts();
        let id = self.push(name.into(), Text::Mapped(text));
        let _ = self.files[id.0 as usize].starts.set(starts);
        id
    }

    fn push(&mut self, name: String, text: Text) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile::new(name, text));
        id
    }

    /// The file of an id.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Marks a file as read because a scene named it (see
    /// [`SourceFile::referenced`]).
    pub fn mark_referenced(&mut self, id: FileId) {
        self.files[id.0 as usize].referenced = true;
    }

    /// Lets go of a file's text, which is `origin`'s bytes as they were
    /// read, once it is parsed: a diagnostic that shows a line reads it
    /// again. Where its lines start is found first, so that a line number
    /// stays right even if the file changes meanwhile (columns are then
    /// counted again from the text read again, when it is the same length,
    /// and in bytes otherwise).
    pub fn release(&mut self, id: FileId, origin: &Path) {
        let file = &mut self.files[id.0 as usize];
        // A text that is not the file's bytes as they are (bytes that were
        // not UTF-8, read as Latin-1) cannot be read again: it is kept.
        if std::fs::metadata(origin).map_or(true, |m| m.len() != file.len as u64) {
            return;
        }
        file.starts();
        file.origin = Some(origin.to_path_buf());
        file.text = OnceLock::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_and_in_characters() {
        let mut s = Sources::new();
        let id = s.add("a.x3d", "ab\nçd\r\nef".to_string());
        let f = s.get(id);
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2)); // after the two-byte ç
        assert_eq!(f.line_col(8), (3, 1));
        assert_eq!(f.line_text(2), "çd");
        assert_eq!(f.line_col(100), (3, 3));
    }

    #[test]
    fn columns_on_long_lines_count_characters_across_checkpoints() {
        // Lines longer than CHECKPOINT bytes, with 2-, 3- and 4-byte
        // characters straddling the checkpoints: every column agrees with
        // counting from the start of the line.
        let line: String = (0..3000).map(|i| ['a', 'ç', '€', '𝄞'][i % 4]).collect();
        let text = format!("{line}\n{line}\r\nshort\n{line}");
        let mut s = Sources::new();
        let id = s.add("long.x3d", text.clone());
        let f = s.get(id);
        let mut line_start = 0;
        let mut line_no = 1;
        for (at, c) in text.char_indices() {
            let col = text[line_start..at].chars().count() + 1;
            assert_eq!(f.line_col(at), (line_no, col), "at byte {at}");
            if c == '\n' {
                line_start = at + 1;
                line_no += 1;
            }
        }
        let end = text.len();
        assert_eq!(f.line_col(end), (4, 3001));
    }

    #[test]
    fn a_released_text_is_read_again_and_a_changed_file_keeps_its_lines() {
        let path = std::env::temp_dir().join(format!("x3dbake-source-{}.x3d", std::process::id()));
        std::fs::write(&path, "ab\nçd\r\nef").unwrap();
        let mut s = Sources::new();
        let id = s.add("a.x3d", "ab\nçd\r\nef".to_string());
        s.release(id, &path);
        assert_eq!(s.get(id).line_text(2), "çd");
        assert_eq!(s.get(id).line_col(5), (2, 2));
        let id = s.add("b.x3d", "ab\nçd\r\nef".to_string());
        s.release(id, &path);
        std::fs::write(&path, "changed").unwrap();
        // The line comes from the index made on release; the column is in
        // bytes, and no line is shown rather than a wrong one.
        assert_eq!(s.get(id).line_col(5), (2, 3));
        assert_eq!(s.get(id).line_text(2), "");
        std::fs::remove_file(&path).unwrap();
    }
}
