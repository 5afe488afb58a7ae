//! Fuzzes the whole pipeline: gzip or text in any encoding → scene (its
//! Inline and EXTERNPROTO URLs linked to itself) →
//! clips → glTF, GLB and CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::bake(data);
});
