//! Fuzzes world time (`--timeline`): a scene played from generated user
//! events (times, DEF names and fields of the scene, values), written as
//! CSV (wide and long) and as the glTF timeline clip.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::timeline(data);
});
