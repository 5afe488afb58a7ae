//! Fuzzes Script bodies against the ECMAScript binding (QuickJS): the
//! input is the program of a Script with a field of every type, run in
//! world time and in clip mode.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::script(data);
});
