//! x3dbake: X3D animation to glTF 2.0.
//!
//! The flow, one module a stage: [`syntax`] reads a file into a
//! [`scene::Scene`]; later stages build animation clips from it and write them.
//! The library never prints or exits: it returns values and [`diag`]nostics.

pub mod anim;
pub mod diag;
pub mod geom;
pub mod hash;
pub mod inspect;
pub mod interp;
pub mod par;
pub mod scene;
pub mod source;
pub mod syntax;
pub mod write;

use diag::Diagnostics;
use source::{FileId, Sources};

/// The encodings x3dbake reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Xml,
    /// ClassicVRML (.x3dv) and VRML97 (.wrl).
    Vrml,
    /// X3D JSON (.x3dj, .json).
    Json,
}

impl Encoding {
    /// The encoding of a file: by its first characters (`<`, `#VRML`,
    /// `#X3D`), else by its name's extension; XML when nothing tells.
    pub fn detect(name: &str, text: &str) -> Encoding {
        let head = text.trim_start_matches('\u{feff}').trim_start();
        if head.starts_with('<') {
            return Encoding::Xml;
        }
        if head.starts_with('{') {
            return Encoding::Json;
        }
        if head.starts_with("#VRML") || head.starts_with("#X3D") {
            return Encoding::Vrml;
        }
        let lower = name.to_ascii_lowercase();
        let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
        if lower.ends_with(".x3dv")
            || lower.ends_with(".wrl")
            || lower.ends_with(".x3dvz")
            || lower.ends_with(".wrz")
        {
            Encoding::Vrml
        } else if lower.ends_with(".x3dj") || lower.ends_with(".json") {
            Encoding::Json
        } else {
            Encoding::Xml
        }
    }
}

/// Parses one source file (already added to `sources`) into a scene, as it
/// is written: prototypes not expanded, Inline files not read.
///
/// The readers recurse once a level of nesting, up to their limit of 500
/// levels, where the JSON reader uses about 1 MiB of stack in a release
/// build and over 2 MiB in a debug one: call this (and [`load`]) on a
/// thread with the 8 MiB a main thread has, as the CLI's batch workers are.
pub fn parse(sources: &Sources, file: FileId, diags: &mut Diagnostics) -> scene::Scene {
    parse_as(sources, file, detected(sources, file), diags)
}

/// The same, in the given encoding whatever the file's name and first
/// characters say.
pub fn parse_as(
    sources: &Sources,
    file: FileId,
    encoding: Encoding,
    diags: &mut Diagnostics,
) -> scene::Scene {
    let source = sources.get(file);
    match encoding {
        Encoding::Xml => syntax::xml::read(source, file, diags),
        Encoding::Vrml => syntax::vrml::read(source, file, diags),
        Encoding::Json => syntax::json::read(source, file, diags),
    }
}

fn detected(sources: &Sources, file: FileId) -> Encoding {
    let source = sources.get(file);
    Encoding::detect(&source.name, source.text())
}

/// Reads one source file (already added to `sources`) into a scene: parsed,
/// its Inline and EXTERNPROTO files read through `fetch` (when given; they
/// are added to `sources`), its prototype instances expanded. Errors and
/// warnings go to `diags`; when it has errors the scene is incomplete.
pub fn load(
    sources: &mut Sources,
    file: FileId,
    fetch: Option<&mut dyn scene::link::Fetch>,
    diags: &mut Diagnostics,
) -> scene::Scene {
    let encoding = detected(sources, file);
    load_as(sources, file, encoding, fetch, diags)
}

/// The same, in the given encoding (files it links to are still detected).
pub fn load_as(
    sources: &mut Sources,
    file: FileId,
    encoding: Encoding,
    fetch: Option<&mut dyn scene::link::Fetch>,
    diags: &mut Diagnostics,
) -> scene::Scene {
    let mut scene = parse_as(sources, file, encoding, diags);
    if let Some(fetch) = fetch {
        scene::link::link(&mut scene, sources, file, fetch, diags);
    }
    scene::proto::expand(&mut scene, diags);
    scene
}

/// The most bytes a gzipped input may expand to: 1 GiB, a quarter of a
/// plain file's limit. Reading takes several times the text in memory (a
/// keyValue's numbers as written, then as the interpolator's f64: 200 MB
/// of text peaked at 1.4 GB), and gzip makes text cheap: 4 GiB of numbers
/// come from 4 MB of gzip and would need about 29 GB. A larger scene can
/// be gunzipped and read as a plain file.
pub const MAX_GUNZIPPED_BYTES: u64 = 1 << 30;

/// True for gzip data (its magic bytes, whatever the file is called).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Expands gzip data (recognised by its magic bytes, whatever the file is
/// called); other data is returned as it is.
pub fn gunzip(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let decoder = flate2::read::MultiGzDecoder::new(&bytes[..]);
    decoder
        .take(MAX_GUNZIPPED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the gzip data is damaged: {e}"))?;
    if out.len() as u64 > MAX_GUNZIPPED_BYTES {
        return Err(
            "the gzip data expands to more than 1 GiB (gunzip it to read it as a plain file, \
             up to 4 GiB)"
                .to_string(),
        );
    }
    Ok(out)
}

/// Adds a file's bytes to `sources`, expanding gzip data first. Text that is
/// not UTF-8 is an error at the first bad byte (the file is still added,
/// lossily, so that the error can show the line).
pub fn add_file(
    sources: &mut Sources,
    name: &str,
    bytes: Vec<u8>,
    diags: &mut Diagnostics,
) -> FileId {
    let bytes = match gunzip(bytes) {
        Ok(b) => b,
        Err(e) => {
            let file = sources.add(name, String::new());
            diags.error(e, Some(source::Span::new(file, 0..0)));
            return file;
        }
    };
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
