//! Fuzzes what a scene names: a scene and a second file (the bytes after
//! the first `\n--\n`) that every Inline, EXTERNPROTO and ImageTexture URL
//! reads, except URLs that cannot be read or lie outside --root: linking,
//! the warnings of files left out, diagnostics of referenced files, and
//! textures of any bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::referenced(data);
});
