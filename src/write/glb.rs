//! The GLB container (glTF binary): a 12-byte header, a JSON chunk padded
//! with spaces and a BIN chunk padded with zeros, each 4-byte aligned.

use std::io::{self, Write};

const MAGIC: &[u8; 4] = b"glTF";
const JSON: &[u8; 4] = b"JSON";
const BIN: &[u8; 4] = b"BIN\0";

fn padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

/// Writes a GLB from the JSON text and the binary buffer (which may be
/// empty: then no BIN chunk is written).
pub fn write(json: &str, bin: &[u8], mut out: impl Write) -> io::Result<()> {
    let json_len = padded(json.len());
    let bin_len = padded(bin.len());
    let mut total = 12 + 8 + json_len;
    if !bin.is_empty() {
        total += 8 + bin_len;
    }
    let total = u32::try_from(total)
        .map_err(|_| io::Error::other("the asset is larger than 4 GiB, the GLB limit"))?;
    out.write_all(MAGIC)?;
    out.write_all(&2u32.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    // Both lengths fit in u32 because the total does.
    out.write_all(&(json_len as u32).to_le_bytes())?;
    out.write_all(JSON)?;
    out.write_all(json.as_bytes())?;
    out.write_all(&b"   "[..json_len - json.len()])?;
    if !bin.is_empty() {
        out.write_all(&(bin_len as u32).to_le_bytes())?;
        out.write_all(BIN)?;
        out.write_all(bin)?;
        out.write_all(&[0u8; 3][..bin_len - bin.len()])?;
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
}
