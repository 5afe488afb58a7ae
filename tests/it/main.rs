//! The integration tests, one binary (it links once): a module an area.

mod anim;
mod appearance;
mod binding;
mod bound;
mod cli;
mod corpus;
mod encodings;
mod fuzz_regressions;
mod geometry;
mod gltf;
mod inspect;
mod interp;
mod layout;
mod no_panic;
mod oracle;
mod pipeline;
mod report;
mod reshaped;
mod scene;
mod skins;
mod three;
mod untrusted;
mod util;
mod whole_scene;
mod world_time;
