//! Fuzzes the vrml reader: any bytes, read as that encoding, must give a
//! scene or diagnostics, never a panic, a hang or a blow-up.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::read_as(data, "fuzz.x3dv");
});
