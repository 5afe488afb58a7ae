//! Loading a scene: its file parsed, the Inline and EXTERNPROTO files it
//! names read through a [`Fetch`] the caller gives and merged in
//! ([`link`]), and its prototype instances expanded ([`proto`]).

mod file;
pub mod link;
pub mod proto;

pub use file::{GunzipError, MAX_GUNZIPPED_BYTES, add_file, gunzip, is_gzip};
pub use link::{Fetch, FileFetch};

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
    if let Some(fetch) = fetch {
        link::link(&mut scene, sources, file, fetch, limits, diags);
    }
    proto::expand(&mut scene, limits, diags);
    scene
}
