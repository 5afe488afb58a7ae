//! Shared bodies of the fuzz targets (also run by the regression test over
//! the saved findings in fuzz/regressions/).

use x3dbake::internal::write::{csv, glb, gltf};
use x3dbake::{Bake, ClipOptions, Encoding, Fetch, Limits};

/// The XML reader: any bytes, read as XML whatever they look like.
pub fn read_xml(data: &[u8]) {
    read(data, "fuzz.x3d", Some(Encoding::Xml));
}

/// The ClassicVRML / VRML97 reader.
pub fn read_vrml(data: &[u8]) {
    read(data, "fuzz.x3dv", Some(Encoding::Vrml));
}

/// The JSON reader.
pub fn read_json(data: &[u8]) {
    read(data, "fuzz.x3dj", Some(Encoding::Json));
}

/// Gzip: the bytes after a fixed gzip header (so that the fuzzer mutates the
/// deflate stream, not the magic), then whichever reader the text asks for.
pub fn read_gzip(data: &[u8]) {
    let mut bytes = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    bytes.extend_from_slice(data);
    read(&bytes, "fuzz.x3d.gz", None);
}

/// Reads bytes as a file of the given name, in the given encoding (or the
/// one its first characters and name tell), rendering every diagnostic.
/// Gzip data is left to `read_gzip` when an encoding is given, so that each
/// reader's target explores that reader only.
fn read(data: &[u8], name: &str, encoding: Option<Encoding>) {
    if encoding.is_some() && x3dbake::internal::load::is_gzip(data) {
        return;
    }
    let bake = Bake::load(name, data.to_vec(), encoding, None, Limits::small());
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
}

/// Every URL names a file holding the input's own bytes, so that linking
/// (Inline and EXTERNPROTO files, loops, nesting, the read limits, IMPORT
/// and EXPORT, merging) is fuzzed too. Files are named by their URL: a URL
/// met again inside its own file is a loop.
struct Itself<'a>(&'a [u8]);

impl Fetch for Itself<'_> {
    fn fetch(&mut self, _from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        Ok((url.to_string(), self.0.to_vec()))
    }
}

/// Reads bytes (linking every URL to themselves) and, when they read
/// without errors, bakes everything.
pub fn bake(data: &[u8]) {
    bake_with(data, &mut Itself(data), false);
}

/// What a scene names, served as a second file: every URL gives the bytes
/// after the input's first `\n--\n` (or its second half), except one with
/// `missing` in it, which cannot be read, and one with `outside` in it,
/// refused as a file outside --root is. Linking, the warnings of files left
/// out, the rendering of a referenced file's diagnostics (never its lines)
/// and textures of any bytes are fuzzed.
struct Referenced<'a>(&'a [u8]);

impl Fetch for Referenced<'_> {
    fn fetch(&mut self, _from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        use std::io::{Error, ErrorKind};
        if url.contains("missing") {
            return Err(Error::from(ErrorKind::NotFound));
        }
        if url.contains("outside") {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                "not read: outside --root",
            ));
        }
        Ok((format!("referenced/{url}"), self.0.to_vec()))
    }
}

/// A scene and the file it references: see [`Referenced`].
pub fn referenced(data: &[u8]) {
    let cut = data
        .windows(4)
        .position(|w| w == b"\n--\n")
        .map_or((data.len() / 2, data.len() / 2), |at| (at, at + 4));
    let (scene, other) = (&data[..cut.0], &data[cut.1..]);
    bake_with(scene, &mut Referenced(other), true);
}

/// Loads `data` through `fetch`, renders its diagnostics and, when it reads
/// without errors, bakes everything (textures through `fetch` too with
/// `images`).
fn bake_with(data: &[u8], fetch: &mut dyn Fetch, images: bool) {
    let mut bake = Bake::load(
        "fuzz",
        data.to_vec(),
        None,
        Some(&mut *fetch),
        Limits::small(),
    );
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
    bake.animate(ClipOptions {
        cycles: 2,
        ..Default::default()
    });
    // As the CLI: routes with errors are not baked.
    if bake.diags.has_errors() {
        return;
    }
    // Bounded work: a long clip runs the same code as a short one at many
    // times the cost (the tolerance fit of the sampled tracks takes most of
    // this target's time), so skip clips longer than a minute.
    if bake
        .clips
        .iter()
        .any(|c| c.duration().is_nan() || c.duration() > 60.0)
    {
        return;
    }
    for mode in [gltf::Mode::Exact, gltf::Mode::Sample] {
        let o = gltf::Options {
            keys: gltf::KeyOptions {
                mode,
                rate: 5.0,
                tolerance: Some(0.01),
                ..Default::default()
            },
            // The sampled documents go through --compress as well.
            compress: (mode == gltf::Mode::Sample).then_some(gltf::Compression::Meshopt),
            ..Default::default()
        };
        let made = if images {
            bake.gltf(&o, Some(&mut *fetch))
        } else {
            bake.gltf(&o, None)
        };
        let Ok(doc) = made else {
            return;
        };
        // As the CLI: a document with errors is not written.
        if bake.diags.has_errors() {
            return;
        }
        let _ = glb::write(&doc.json(), &doc.bin, std::io::sink());
    }
    let c = csv::CsvOptions {
        rate: 5.0,
        wide: true,
        timeline: Some((0.0, 10.0)),
    };
    let _ = bake.csv(&c);
}
