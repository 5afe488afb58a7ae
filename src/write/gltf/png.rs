//! PixelTexture images (SFImage) as PNG files.

use std::io::Write as _;

/// An SFImage (`width height components` then a pixel a number, rows from
/// the bottom) as an 8-bit PNG of its own colour type (grey, grey and
/// alpha, RGB, RGBA), rows from the top; `None` for an empty or short image
/// or one of more than 2^24 pixels.
pub(super) fn sfimage_png(image: &[i32]) -> Option<Vec<u8>> {
    let [w, h, c] = [*image.first()?, *image.get(1)?, *image.get(2)?];
    let (w, h, c) = (usize::try_from(w).ok()?, usize::try_from(h).ok()?, c);
    let color_type: u8 = match c {
        1 => 0,
        2 => 4,
        3 => 2,
        4 => 6,
        _ => return None,
    };
    let c = c as usize;
    let n = w.checked_mul(h).filter(|&n| n > 0 && n <= 1 << 24)?;
    let pixels = image.get(3..3 + n)?;
    // Each row: filter type 0, then the pixel bytes, top row first.
    let mut raw = Vec::with_capacity(h * (1 + w * c));
    for row in (0..h).rev() {
        raw.push(0);
        for &p in &pixels[row * w..(row + 1) * w] {
            let p = p as u32;
            raw.extend((0..c).rev().map(|k| (p >> (8 * k)) as u8));
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).ok()?;
    let data = z.finish().ok()?;
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend((w as u32).to_be_bytes());
    header.extend((h as u32).to_be_bytes());
    header.extend([8, color_type, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &data);
    chunk(&mut png, b"IEND", &[]);
    Some(png)
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend((data.len() as u32).to_be_bytes());
    png.extend(kind);
    png.extend(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    png.extend(crc.sum().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_by_two_rgb_image_is_a_png_with_its_rows_from_the_top() {
        // Bottom row red, green; top row blue, white.
        let png = sfimage_png(&[2, 2, 3, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF]).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..29], [0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
        // The IDAT data inflates to the rows, top (blue, white) first.
        let len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let mut raw = Vec::new();
        use std::io::Read as _;
        flate2::read::ZlibDecoder::new(&png[41..41 + len])
            .read_to_end(&mut raw)
            .unwrap();
        assert_eq!(raw, [0, 0, 0, 255, 255, 255, 255, 0, 255, 0, 0, 0, 255, 0]);
        // The IHDR chunk's CRC-32 of "IHDR" and the header (Python's zlib.crc32).
        assert_eq!(&png[29..33], [253, 212, 154, 115]);
        assert!(sfimage_png(&[0, 0, 3]).is_none());
        assert!(sfimage_png(&[2, 2, 3, 1]).is_none());
    }
}
