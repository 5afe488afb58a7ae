//! Writers: glTF 2.0 (JSON with a buffer, or GLB), CSV tables, the
//! report of `x3dbake inspect`, and the HTML bake report.

pub mod csv;
pub mod glb;
pub mod gltf;
pub mod inspect;
pub mod report;
pub mod shortest;
