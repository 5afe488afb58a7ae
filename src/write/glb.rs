//! The GLB container (glTF binary): a 12-byte header, a JSON chunk padded
//! with spaces and a BIN chunk padded with zeros, each 4-byte aligned.

use std::borrow::Cow;
use std::io::{self, Write};

const MAGIC: &[u8; 4] = b"glTF";
const JSON: &[u8; 4] = b"JSON";
const BIN: &[u8; 4] = b"BIN\0";

fn padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

/// A GLB from the JSON text and the binary buffer (which may be empty:
/// then no BIN chunk is written), as the parts to write one after another:
/// the buffer is borrowed, not copied.
pub fn parts<'a>(json: &str, bin: &'a [u8]) -> io::Result<Vec<Cow<'a, [u8]>>> {
    let head = head(json, bin.len())?;
    if bin.is_empty() {
        return Ok(vec![head.into()]);
    }
    Ok(vec![head.into(), bin.into(), tail(bin.len()).into()])
}

/// What comes before a buffer of `bin_len` bytes in a GLB: the header, the
/// JSON chunk and the BIN chunk's header (none for an empty buffer). The
/// buffer follows, then [`tail`].
pub fn head(json: &str, bin_len: usize) -> io::Result<Vec<u8>> {
    head_in(json, bin_len, 0)
}

/// [`head`], its JSON padded with spaces so that it is `room` bytes long
/// when it fits in them with a buffer to follow (the room left before a
/// glTF buffer moved to its file as it was made, so that the file can
/// become the GLB); [`head`] itself otherwise.
pub fn head_in(json: &str, bin_len: usize, room: usize) -> io::Result<Vec<u8>> {
    let mut json_len = padded(json.len());
    if bin_len > 0 && room.is_multiple_of(4) && 12 + 8 + json_len + 8 <= room {
        json_len = room - 12 - 8 - 8;
    }
    let mut total = 12 + 8 + json_len;
    if bin_len > 0 {
        total += 8 + padded(bin_len);
    }
    let total = u32::try_from(total)
        .map_err(|_| io::Error::other("the asset is larger than 4 GiB, the GLB limit"))?;
    let mut head = Vec::with_capacity(12 + 8 + json_len + 8);
    head.extend(MAGIC);
    head.extend(2u32.to_le_bytes());
    head.extend(total.to_le_bytes());
    // Both lengths fit in u32 because the total does.
    head.extend((json_len as u32).to_le_bytes());
    head.extend(JSON);
    head.extend(json.as_bytes());
    head.resize(head.len() + json_len - json.len(), b' ');
    if bin_len > 0 {
        head.extend((padded(bin_len) as u32).to_le_bytes());
        head.extend(BIN);
    }
    Ok(head)
}

/// The zeros that pad a buffer of `bin_len` bytes to its chunk's length.
pub fn tail(bin_len: usize) -> &'static [u8] {
    &[0u8; 3][..padded(bin_len) - bin_len]
}

/// Writes a GLB (see [`parts`]).
pub fn write(json: &str, bin: &[u8], mut out: impl Write) -> io::Result<()> {
    for part in parts(json, bin)? {
        out.write_all(&part)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn header_chunks_and_padding() {
        let mut out = Vec::new();
        super::write("{\"a\":1}", &[1, 2, 3, 4, 5], &mut out).unwrap();
        assert_eq!(&out[0..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(out[8..12].try_into().unwrap()) as usize,
            out.len()
        );
        assert_eq!(u32::from_le_bytes(out[12..16].try_into().unwrap()), 8);
        assert_eq!(&out[16..20], b"JSON");
        assert_eq!(&out[20..28], b"{\"a\":1} ");
        assert_eq!(u32::from_le_bytes(out[28..32].try_into().unwrap()), 8);
        assert_eq!(&out[32..36], b"BIN\0");
        assert_eq!(&out[36..44], &[1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(out.len() % 4, 0);
    }

    /// A head that fits the room fills it: its JSON chunk padded with
    /// spaces, the lengths counting them; one that does not, or with no
    /// buffer to follow, is the plain head.
    #[test]
    fn a_head_fills_the_room_left_before_its_buffer() {
        let json = "{\"asset\":{\"version\":\"2.0\"}}";
        let head = super::head_in(json, 5, 4096).unwrap();
        assert_eq!(head.len(), 4096);
        let word = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().unwrap());
        assert_eq!(word(8), 4096 + 8);
        assert_eq!(word(12), 4096 - 28);
        assert_eq!(&head[20..20 + json.len()], json.as_bytes());
        assert!(head[20 + json.len()..4096 - 8].iter().all(|&b| b == b' '));
        assert_eq!((word(4088), &head[4092..]), (8, &b"BIN\0"[..]));
        let text: serde_json::Value = serde_json::from_slice(&head[20..4088]).unwrap();
        assert_eq!(text["asset"]["version"], "2.0");
        let plain = super::head(json, 5).unwrap();
        for (bin, room) in [(5, 52), (5, 4094), (0, 4096)] {
            assert!(super::head_in(json, bin, room).unwrap() == super::head(json, bin).unwrap());
        }
        assert_eq!(plain.len(), 12 + 8 + 28 + 8);
        assert!(super::head_in(json, 5, plain.len()).unwrap() == plain);
    }
}
