//! x3dbake: X3D animation to glTF 2.0.
//!
//! The flow, one module a stage: [`syntax`] reads a file into a
//! [`scene::Scene`]; later stages build animation clips from it and write them.
//! The library never prints or exits: it returns values and [`diag`]nostics.

pub mod anim;
pub mod diag;
pub mod inspect;
pub mod interp;
pub mod scene;
pub mod source;
pub mod syntax;
pub mod write;

use diag::Diagnostics;
use source::{FileId, Sources};

/// Reads one source file (already added to `sources`) into a scene. Errors
/// and warnings go to `diags`; when it has errors the scene is incomplete.
pub fn load(sources: &Sources, file: FileId, diags: &mut Diagnostics) -> scene::Scene {
    syntax::xml::read(sources.get(file), file, diags)
}

/// Adds a file's bytes to `sources`. Text that is not UTF-8 is an error at
/// the first bad byte (the file is still added, lossily, so that the error
/// can show the line).
pub fn add_file(
    sources: &mut Sources,
    name: &str,
    bytes: Vec<u8>,
    diags: &mut Diagnostics,
) -> FileId {
    match String::from_utf8(bytes) {
        Ok(text) => sources.add(name, text),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let file = sources.add(name, text);
            let span = source::Span::new(file, at..at + 1);
            diags.error("the file is not valid UTF-8", Some(span));
            file
        }
    }
}
