//! PixelTexture images (SFImage) as PNG files, made by the `png` crate.

/// An SFImage (`width height components` then a pixel a number, rows from
/// the bottom) as an 8-bit PNG of its own colour type (grey, grey and
/// alpha, RGB, RGBA), rows from the top; `None` for an empty or short image
/// or one of more than 2^24 pixels.
pub(super) fn sfimage_png(image: &[i32]) -> Option<Vec<u8>> {
    let [w, h, c] = [*image.first()?, *image.get(1)?, *image.get(2)?];
    let (w, h) = (u32::try_from(w).ok()?, u32::try_from(h).ok()?);
    let color = match c {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        4 => png::ColorType::Rgba,
        _ => return None,
    };
    let (wide, c) = (w as usize, c as usize);
    let n = wide
        .checked_mul(h as usize)
        .filter(|&n| n > 0 && n <= 1 << 24)?;
    let pixels = image.get(3..3 + n)?;
    // The pixel bytes, top row first.
    let mut raw = Vec::with_capacity(n * c);
    for row in pixels.chunks_exact(wide).rev() {
        for &p in row {
            let p = p as u32;
            raw.extend((0..c).rev().map(|k| (p >> (8 * k)) as u8));
        }
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, w, h);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    // Rows unfiltered: the same bytes on every run and version of the
    // filter heuristics.
    encoder.set_filter(png::Filter::NoFilter);
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(&raw).ok()?;
    writer.finish().ok()?;
    Some(png)
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
        // And the png crate's own reader gives the pixels back.
        let mut reader = png::Decoder::new(std::io::Cursor::new(&png))
            .read_info()
            .unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut pixels).unwrap();
        assert_eq!(pixels, [0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255, 0]);
        assert!(sfimage_png(&[0, 0, 3]).is_none());
        assert!(sfimage_png(&[2, 2, 3, 1]).is_none());
    }
}
