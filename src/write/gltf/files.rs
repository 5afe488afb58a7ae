//! The files a glTF document is written as: a GLB, a `.gltf` with its
//! buffer embedded, or a `.gltf` and a `.bin` beside it; each as parts to
//! write one after another, so that a large buffer is written from where
//! it is (its bytes moved to a file as it was made are copied from there),
//! never copied into one.

use super::{Document, Spilled};
use crate::write::glb;
use std::borrow::Cow;
use std::io;

/// A file's bytes, as parts written one after another.
pub type Parts<'a> = Vec<Part<'a>>;

/// One part of a file's bytes.
pub enum Part<'a> {
    /// Bytes in memory.
    Bytes(Cow<'a, [u8]>),
    /// A glTF buffer's bytes moved out of memory to a file as it was made.
    Spilled(&'a Spilled),
}

impl<'a, T: Into<Cow<'a, [u8]>>> From<T> for Part<'a> {
    fn from(bytes: T) -> Self {
        Part::Bytes(bytes.into())
    }
}

impl Part<'_> {
    /// Writes it to `out`; in pieces of `piece` bytes, calling `written`
    /// after each with `out`, the piece's offset in the part and length.
    pub fn write_to<W: io::Write>(
        &self,
        out: &mut W,
        piece: usize,
        mut written: impl FnMut(&W, usize, usize),
    ) -> io::Result<()> {
        match self {
            Part::Bytes(bytes) => {
                let mut at = 0;
                for p in bytes.chunks(piece.max(1)) {
                    out.write_all(p)?;
                    written(out, at, p.len());
                    at += p.len();
                }
            }
            Part::Spilled(spilled) => {
                let mut from = spilled.reader()?;
                let len = spilled.len;
                let mut at = 0;
                while (at as u64) < len {
                    let n = (len - at as u64).min(piece as u64);
                    let copied = io::copy(&mut io::Read::take(&mut from, n), out)?;
                    if copied < n {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    written(out, at, n as usize);
                    at += n as usize;
                }
            }
        }
        Ok(())
    }

    /// Writes it to `out` whole.
    pub fn write_all<W: io::Write>(&self, out: &mut W) -> io::Result<()> {
        self.write_to(out, usize::MAX, |_, _, _| {})
    }

    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        match self {
            Part::Bytes(bytes) => bytes.len(),
            Part::Spilled(spilled) => spilled.len as usize,
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How a document is laid out in files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One GLB file.
    Glb,
    /// One `.gltf` file, its buffer (if any) a base64 data URI.
    Embedded,
    /// A `.gltf` file and its buffer in a file of this name beside it.
    Beside {
        /// The buffer file's name (percent-encoded into its URI).
        bin_name: String,
    },
}

/// The files of a document: the main one's parts, and with
/// [`Layout::Beside`] (and a buffer) the buffer file's.
pub struct Files<'a> {
    /// The GLB or the `.gltf`.
    pub main: Parts<'a>,
    /// The buffer file, with [`Layout::Beside`].
    pub bin: Option<Parts<'a>>,
}

impl Document {
    /// The document as files laid out as `layout` says: the buffer's URI
    /// set accordingly, a GLB's head filling the room its buffer's file
    /// left before it (if any, so that the file can become the GLB).
    pub fn files(&mut self, layout: &Layout) -> io::Result<Files<'_>> {
        let len = self.buffer_len();
        match layout {
            Layout::Glb => Ok(Files {
                main: self.glb_parts(self.room as usize)?,
                bin: None,
            }),
            Layout::Beside { bin_name } if len > 0 => {
                self.set_buffer_uri(Some(uri_escape(bin_name)));
                Ok(Files {
                    main: vec![self.json().into_bytes().into()],
                    bin: Some(self.buffer_parts()),
                })
            }
            _ => {
                let uri = match len {
                    0 => None,
                    _ => Some(self.data_uri()?),
                };
                self.set_buffer_uri(uri);
                Ok(Files {
                    main: vec![self.json().into_bytes().into()],
                    bin: None,
                })
            }
        }
    }

    /// A GLB's parts, its JSON padded to fill `room` bytes with the head
    /// where it fits (see [`glb::head_in`]).
    pub(super) fn glb_parts(&mut self, room: usize) -> io::Result<Parts<'_>> {
        self.set_buffer_uri(None);
        let len = self.buffer_len();
        let head = glb::head_in(&self.json(), len, room)?;
        let mut parts = vec![head.into()];
        parts.extend(self.buffer_parts());
        parts.push(glb::tail(len).into());
        Ok(parts)
    }

    /// The binary buffer's parts: its bytes moved to a file, then those in
    /// memory.
    fn buffer_parts(&self) -> Parts<'_> {
        let spilled = self.spilled.as_ref().map(Part::Spilled);
        let pieces = self.bin.iter().map(|piece| piece.as_slice().into());
        spilled.into_iter().chain(pieces).collect()
    }
}

/// A file name as a relative URI: characters outside the unreserved set
/// percent-encoded.
fn uri_escape(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_buffer_file_name_is_percent_encoded_in_its_uri() {
        assert_eq!(super::uri_escape("a b#é.bin"), "a%20b%23%C3%A9.bin");
        assert_eq!(super::uri_escape("Safe-_.~9.bin"), "Safe-_.~9.bin");
    }
}
