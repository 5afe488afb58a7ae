//! The library's inner modules, one a stage (see the crate's own
//! documentation), for the project's own integration tests, benches,
//! fuzzers and command line: not part of the API, changed at will. They
//! stay in their folders under `src/`.

#[path = "anim/mod.rs"]
pub mod anim;
#[path = "diag.rs"]
pub mod diag;
#[path = "geo/mod.rs"]
pub mod geo;
#[path = "hash.rs"]
pub mod hash;
#[path = "interp/mod.rs"]
pub mod interp;
#[path = "limits.rs"]
pub mod limits;
#[path = "load/mod.rs"]
pub mod load;
#[path = "math.rs"]
pub mod math;
#[path = "mesh/mod.rs"]
pub mod mesh;
#[path = "par.rs"]
pub mod par;
#[path = "scene/mod.rs"]
pub mod scene;
#[path = "script/mod.rs"]
pub mod script;
#[path = "source.rs"]
pub mod source;
#[path = "syntax/mod.rs"]
pub mod syntax;
#[allow(unsafe_code)]
#[path = "sys/mod.rs"]
pub mod sys;
#[path = "write/mod.rs"]
pub mod write;
