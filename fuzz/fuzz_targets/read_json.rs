//! Fuzzes the json reader: any bytes, read in that encoding whatever their
//! first characters and the file's name would choose, must give a scene or
//! diagnostics, never a panic, a hang or a blow-up.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::read_json(data);
});
