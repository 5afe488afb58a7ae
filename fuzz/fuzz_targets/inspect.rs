//! Fuzzes `inspect --json` (`Bake::inspect_json`) and the plain report.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::inspect(data);
});
