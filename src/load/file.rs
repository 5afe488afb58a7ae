//! A file's bytes as a source text: gzip expanded, UTF-8 checked.

use crate::diag::Diagnostics;
use crate::source::{FileId, Sources, Span};
use std::io::Read as _;

/// The most bytes a gzipped input may expand to: 1 GiB, a quarter of a
/// plain file's limit. Expanded text is held whole beside its numbers and
/// their interpolators' copy (it cannot be mapped), and gzip makes text
/// cheap: 4 GiB of numbers come from 4 MB of gzip. A larger scene can be
/// gunzipped and read as a plain file.
pub const MAX_GUNZIPPED_BYTES: u64 = 1 << 30;

/// True for gzip data (its magic bytes, whatever the file is called).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Why gzip data could not be expanded.
#[derive(Debug, thiserror::Error)]
pub enum GunzipError {
    /// The deflate stream or its checksum is broken.
    #[error("the gzip data is damaged: {0}")]
    Damaged(std::io::Error),
    /// Past [`MAX_GUNZIPPED_BYTES`].
    #[error(
        "the gzip data expands to more than 1 GiB (gunzip it to read it as a plain file, up to 4 GiB)"
    )]
    TooLarge,
}

/// Expands gzip data (recognised by its magic bytes, whatever the file is
/// called); other data is returned as it is.
pub fn gunzip(bytes: Vec<u8>) -> Result<Vec<u8>, GunzipError> {
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let decoder = flate2::read::MultiGzDecoder::new(&bytes[..]);
    decoder
        .take(MAX_GUNZIPPED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(GunzipError::Damaged)?;
    if out.len() as u64 > MAX_GUNZIPPED_BYTES {
        return Err(GunzipError::TooLarge);
    }
    Ok(out)
}

/// Adds a file's bytes to `sources`, expanding gzip data first. Text that is
/// not UTF-8 is an error at the first bad byte (the file is still added,
/// lossily, so that the error can show the line).
pub fn add_file(
    sources: &mut Sources,
    name: &str,
    bytes: Vec<u8>,
    diags: &mut Diagnostics,
) -> FileId {
    let bytes = match gunzip(bytes) {
        Ok(b) => b,
        Err(e) => {
            let file = sources.add(name, String::new());
            diags.error(e.to_string(), Some(Span::new(file, 0..0)));
            return file;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => sources.add(name, text),
        Err(e) => {
            // As browsers read such files (written in ISO-8859-1 before
            // UTF-8 was usual): each byte that is not UTF-8 as the Latin-1
            // character of its value, the rest as UTF-8.
            let (text, first, count) = latin1_where_not_utf8(e.as_bytes());
            let file = sources.add(name, text);
            let span = Span::new(file, first..first + 2);
            let s = if count == 1 { "" } else { "s" };
            diags.warning(
                format!(
                    "the file is not valid UTF-8: {count} byte{s} read as ISO-8859-1 (Latin-1), \
                     the first here"
                ),
                Some(span),
            );
            file
        }
    }
}

/// Text from bytes that are not all UTF-8: valid sequences as they are,
/// every other byte as the ISO-8859-1 character of its value; with the
/// offset in the text of the first such character and how many there are.
fn latin1_where_not_utf8(bytes: &[u8]) -> (String, usize, usize) {
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 8);
    let (mut first, mut count) = (None, 0);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            first.get_or_insert(text.len());
            count += 1;
            text.push(char::from(b));
        }
    }
    (text, first.unwrap_or(0), count)
}

#[cfg(test)]
mod latin1_tests {
    use super::latin1_where_not_utf8;

    #[test]
    fn bytes_that_are_not_utf8_are_latin1_and_the_rest_utf8() {
        // "café" in Latin-1, then "é" in UTF-8, then a lone continuation byte.
        let bytes = b"caf\xe9 \xc3\xa9 \x80!";
        let (text, first, count) = latin1_where_not_utf8(bytes);
        assert_eq!(text, "café é \u{80}!");
        assert_eq!((first, count), (3, 2));
    }
}
