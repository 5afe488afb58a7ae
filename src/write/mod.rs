//! Writers: glTF 2.0 (JSON with a buffer, or GLB).

pub mod csv;
pub mod glb;
pub mod gltf;
