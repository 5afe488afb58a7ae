//! Reading speed, in MB of text per second: field values alone (an MFVec3f
//! of six-decimal numbers, as exporters write them, and an MFInt32 index),
//! a whole X3D XML document of both (the reader, the scene builder and
//! the value parser) held in memory, and one of many small nodes (tags and
//! attributes, DEF names, short values), as hand-written scenes are. Best of five one-second runs, one
//! core. Run with `cargo bench --bench read`.

use std::hint::black_box;
use std::time::{Duration, Instant};
use x3dbake::diag::Diagnostics;
use x3dbake::scene::FieldType;
use x3dbake::scene::value::{Encoding, parse_value};
use x3dbake::source::Sources;

/// Best of five one-second runs of `f` over `bytes` of text, in MB/s.
fn measure(name: &str, bytes: usize, mut f: impl FnMut()) {
    let mut best = 0.0f64;
    for _ in 0..5 {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < Duration::from_secs(1) {
            f();
            n += 1;
        }
        best = best.max((n as usize * bytes) as f64 / start.elapsed().as_secs_f64());
    }
    println!("{name:<32} {:>7.0} MB/s", best / 1e6);
}

/// Reading and resolving a whole X3D XML document held in memory.
fn measure_load(name: &str, doc: &str) {
    measure(name, doc.len(), || {
        let mut sources = Sources::new();
        let mut diags = Diagnostics::default();
        let file = x3dbake::add_file(&mut sources, "b.x3d", doc.as_bytes().to_vec(), &mut diags);
        let scene = x3dbake::load(&mut sources, file, None, &mut diags);
        assert!(!diags.has_errors());
        black_box(scene);
    });
}

/// Deterministic numbers in [-10, 10) with six decimals, three a point.
fn points(n: usize) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut s = String::with_capacity(n * 31);
    for i in 0..n * 3 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = (x % 20_000_000) as f64 / 1e6 - 10.0;
        s.push_str(&format!("{v:.6}"));
        s.push_str(if i % 3 == 2 { ", " } else { " " });
    }
    s
}

fn main() {
    let vec3 = points(200_000);
    let index: String = (0..300_000)
        .map(|i| format!("{} {} {} -1 ", 3 * i, 3 * i + 1, 3 * i + 2))
        .collect();
    measure("MFVec3f values", vec3.len(), || {
        let v = parse_value(FieldType::MFVec3f, black_box(&vec3), Encoding::Xml);
        black_box(v.expect("valid"));
    });
    measure("MFInt32 index", index.len(), || {
        let v = parse_value(FieldType::MFInt32, black_box(&index), Encoding::Xml);
        black_box(v.expect("valid"));
    });
    let doc = format!(
        "<X3D><Scene><Shape><IndexedFaceSet coordIndex='{index}'>\
         <Coordinate point='{vec3}'/></IndexedFaceSet></Shape>\
         <CoordinateInterpolator key='0 1' keyValue='{vec3} {vec3}'/></Scene></X3D>"
    );
    measure_load("X3D XML document", &doc);
    let nodes: String = (0..20_000)
        .map(|i| {
            format!(
                "<Transform DEF='T{i}' translation='{i} 0.5 -2' rotation='0 1 0 0.785398' \
                 scale='1 1 1'><Shape><Appearance><Material diffuseColor='0.8 0.2 0.1'/>\
                 </Appearance><Box size='1 2 3'/></Shape></Transform>\n"
            )
        })
        .collect();
    measure_load(
        "X3D XML, small nodes",
        &format!("<X3D><Scene>{nodes}</Scene></X3D>"),
    );
}
