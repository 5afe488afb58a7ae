//! Fuzzes every output form through `convert`: --compress (both forms),
//! --interactive, --core, the keys' modes and joinings, a tolerance,
//! --visibility, the report; CSV wide and long.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    x3dbake_fuzz::outputs(data);
});
