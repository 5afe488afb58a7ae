//! Loading a scene: its file parsed, the Inline and EXTERNPROTO files it
//! names read through a [`Fetch`] the caller gives and merged in
//! ([`link`]), and its prototype instances expanded ([`proto`]).

mod file;
pub mod link;
pub mod proto;

pub use file::{GunzipError, MAX_GUNZIPPED_BYTES, add_file, gunzip, is_gzip};
pub use link::{Fetch, FileFetch, MemoryFetch, local_name};

use crate::diag::Diagnostics;
use crate::limits::Limits;
use crate::scene::Scene;
use crate::source::{FileId, Sources};
use crate::syntax::{Encoding, detected, parse_as};

/// Reads one source file (already added to `sources`) into a scene: parsed,
/// its Inline and EXTERNPROTO files read through `fetch` (when given; they
/// are added to `sources`), its prototype instances expanded. Errors and
/// warnings go to `diags`; when it has errors the scene is incomplete.
pub fn load(
    sources: &mut Sources,
    file: FileId,
    fetch: Option<&mut dyn Fetch>,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> Scene {
    let encoding = detected(sources, file);
    load_as(sources, file, encoding, fetch, limits, diags)
}

/// The same, in the given encoding (files it links to are still detected).
pub fn load_as(
    sources: &mut Sources,
    file: FileId,
    encoding: Encoding,
    fetch: Option<&mut dyn Fetch>,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> Scene {
    let mut scene = parse_as(sources, file, encoding, limits, diags);
    match fetch {
        Some(fetch) => {
            link::link(&mut scene, sources, file, fetch, limits, diags);
            proto::expand(&mut scene, limits, diags);
            // An Inline in a PROTO body is copied by the expansion: each
            // copy is read now (what it brings expanded, and so on).
            for _ in 0..crate::limits::MAX_PROTO_NESTING {
                if !link::link_inlines(&mut scene, sources, file, fetch, limits, diags) {
                    break;
                }
                proto::expand(&mut scene, limits, diags);
            }
        }
        None => proto::expand(&mut scene, limits, diags),
    }
    quaternion_key_values(&mut scene);
    scene
}

/// Castle Game Engine's OrientationInterpolators with
/// `keyValueQuaternions TRUE` hold quaternions (x y z w) in keyValue:
/// made the axis-and-angle rotations X3D's keyValue holds, so that every
/// reader of the scene sees the rotations they are.
fn quaternion_key_values(scene: &mut Scene) {
    use crate::scene::value::Data;
    for node in &mut scene.nodes {
        let flagged = node.type_name == "OrientationInterpolator"
            && node
                .values
                .get("keyValueQuaternions")
                .is_some_and(|f| f.value.as_bool());
        if !flagged {
            continue;
        }
        if let Some(Data::Floats(v)) = node.values.get_mut("keyValue").map(|f| &mut f.value.data) {
            for r in std::sync::Arc::make_mut(v).chunks_exact_mut(4) {
                let q = glam::DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into());
                let axis_angle = crate::interp::rotation::to_axis_angle(q.normalize());
                for (x, a) in r.iter_mut().zip(axis_angle) {
                    *x = a as f32;
                }
            }
        }
    }
}
