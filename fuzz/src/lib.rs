//! Shared bodies of the fuzz targets (also run by the regression test over
//! the saved findings in fuzz/regressions/).

use x3dbake::Encoding;
use x3dbake::anim::clip::{ClipOptions, clips};
use x3dbake::diag::Diagnostics;
use x3dbake::scene::link::Fetch;
use x3dbake::source::Sources;
use x3dbake::write::{csv, glb, gltf};

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
    if encoding.is_some() && x3dbake::is_gzip(data) {
        return;
    }
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file = x3dbake::add_file(&mut sources, name, data.to_vec(), &mut diags);
    if !diags.has_errors() {
        let _ = match encoding {
            Some(e) => x3dbake::load_as(&mut sources, file, e, None, &mut diags),
            None => x3dbake::load(&mut sources, file, None, &mut diags),
        };
    }
    for d in diags.list() {
        let _ = d.render(&sources);
    }
}

/// Every URL names a file holding the input's own bytes, so that linking
/// (Inline and EXTERNPROTO files, loops, nesting, the read limits, IMPORT
/// and EXPORT, merging) is fuzzed too. Files are named by their URL: a URL
/// met again inside its own file is a loop.
struct Itself<'a>(&'a [u8]);

impl Fetch for Itself<'_> {
    fn fetch(&mut self, _from: &str, url: &str) -> Result<(String, Vec<u8>), String> {
        Ok((url.to_string(), self.0.to_vec()))
    }
}

/// Reads bytes (linking every URL to themselves) and, when they read
/// without errors, bakes everything.
pub fn bake(data: &[u8]) {
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file = x3dbake::add_file(&mut sources, "fuzz", data.to_vec(), &mut diags);
    if diags.has_errors() {
        return;
    }
    let scene = x3dbake::load(&mut sources, file, Some(&mut Itself(data)), &mut diags);
    if diags.has_errors() {
        return;
    }
    let opts = ClipOptions {
        cycles: 2,
        ..Default::default()
    };
    let found = clips(&scene, opts, &mut diags);
    // As the CLI: routes with errors are not baked.
    if diags.has_errors() {
        return;
    }
    // Bounded work: a long clip runs the same code as a short one at many
    // times the cost (the tolerance fit of the sampled tracks takes most of
    // this target's time), so skip clips longer than a minute.
    if found
        .iter()
        .any(|c| c.duration().is_nan() || c.duration() > 60.0)
    {
        return;
    }
    let mut no_images = |_: x3dbake::scene::NodeId, _: &str| None;
    for mode in [gltf::Mode::Exact, gltf::Mode::Sample] {
        let o = gltf::Options {
            mode,
            rate: 5.0,
            tolerance: Some(0.01),
            ..Default::default()
        };
        let doc = gltf::build(&scene, &found, &o, &mut no_images, &mut diags);
        // As the CLI: a document with errors is not written.
        if diags.has_errors() {
            return;
        }
        let _ = glb::write(&doc.json(), &doc.bin, std::io::sink());
    }
    let c = csv::CsvOptions {
        rate: 5.0,
        wide: true,
        timeline: Some((0.0, 10.0)),
    };
    let _ = csv::write(&scene, &found, &c, std::io::sink());
}
