//! Fuzzes the gzip path: the bytes are a deflate stream behind a fixed gzip
//! header, expanded and then read; damaged or oversized data must be an
//! error, never a panic, a hang or a blow-up.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::read_gzip(data);
});
