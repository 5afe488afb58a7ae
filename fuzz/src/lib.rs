//! Shared bodies of the fuzz targets (also run by the regression test over
//! the saved findings in fuzz/regressions/).

use x3dbake::anim::clip::{ClipOptions, clips};
use x3dbake::diag::Diagnostics;
use x3dbake::source::Sources;
use x3dbake::write::{csv, glb, gltf};

/// Reads bytes as a file of the given name (its extension picks the
/// encoding when the first characters do not), rendering every diagnostic.
pub fn read_as(data: &[u8], name: &str) {
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file = x3dbake::add_file(&mut sources, name, data.to_vec(), &mut diags);
    if !diags.has_errors() {
        let _ = x3dbake::load(&mut sources, file, None, &mut diags);
    }
    for d in &diags.list {
        let _ = d.render(&sources);
    }
}

/// Reads bytes and, when they read without errors, bakes everything.
pub fn bake(data: &[u8]) {
    let mut sources = Sources::new();
    let mut diags = Diagnostics::default();
    let file = x3dbake::add_file(&mut sources, "fuzz", data.to_vec(), &mut diags);
    if diags.has_errors() {
        return;
    }
    let scene = x3dbake::load(&mut sources, file, None, &mut diags);
    if diags.has_errors() {
        return;
    }
    let opts = ClipOptions {
        cycles: 2,
        ..Default::default()
    };
    let found = clips(&scene, opts, &mut diags);
    // Bounded work: skip clips whose sampling would be huge.
    if found
        .iter()
        .any(|c| c.duration().is_nan() || c.duration() > 1000.0)
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
        let _ = glb::write(&doc.json(), &doc.bin, std::io::sink());
    }
    let c = csv::CsvOptions {
        rate: 5.0,
        wide: true,
        timeline: Some((0.0, 10.0)),
    };
    let _ = csv::write(&scene, &found, &c, std::io::sink());
}
