//! Writers: glTF 2.0 (JSON with a buffer, or GLB), CSV tables, and the
//! plain-text report of `x3dbake inspect`.

pub mod csv;
pub mod glb;
pub mod gltf;
pub mod inspect;
