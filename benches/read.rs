//! Reading speed, in MB of text per second: field values alone (an MFVec3f
//! of six-decimal numbers, as exporters write them, and an MFInt32 index),
//! a whole X3D XML document of both (the reader, the scene builder and
//! the value parser) held in memory, and one of many small nodes (tags and
//! attributes, DEF names, short values), as hand-written scenes are; then
//! the same two documents in X3D JSON, and one of small nodes nested 40
//! deep. Best of five one-second runs, one core. Run with
//! `cargo bench --bench read`.

use std::hint::black_box;
use std::time::{Duration, Instant};
use x3dbake::internal::scene::FieldType;
use x3dbake::internal::scene::value::{Encoding, parse_value};
use x3dbake::{Bake, Limits};

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

/// Reading and resolving a whole X3D document held in memory, in the
/// encoding `file_name`'s extension names.
fn measure_load(name: &str, file_name: &str, doc: &str) {
    measure(name, doc.len(), || {
        let bake = Bake::load(
            file_name,
            doc.as_bytes().to_vec(),
            None,
            None,
            Limits::default(),
        );
        assert!(!bake.diags.has_errors());
        black_box(bake.scene);
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
    measure_load("X3D XML document", "b.x3d", &doc);
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
        "b.x3d",
        &format!("<X3D><Scene>{nodes}</Scene></X3D>"),
    );
    let commas = |s: &str| {
        let numbers: Vec<&str> = s.split([' ', ',']).filter(|n| !n.is_empty()).collect();
        numbers.join(",")
    };
    let (vec3, index) = (commas(&vec3), commas(&index));
    let doc = format!(
        r#"{{"X3D":{{"Scene":{{"-children":[
{{"Shape":{{"-geometry":[{{"IndexedFaceSet":{{"@coordIndex":[{index}],
"-coord":[{{"Coordinate":{{"@point":[{vec3}]}}}}]}}}}]}}}},
{{"CoordinateInterpolator":{{"@key":[0,1],"@keyValue":[{vec3},{vec3}]}}}}]}}}}}}"#
    );
    measure_load("X3D JSON document", "b.x3dj", &doc);
    let node = |i: usize, children: &str| {
        format!(
            r#"{{"Transform":{{"@DEF":"T{i}","@translation":[{i},0.5,-2],"@rotation":[0,1,0,0.785398],
"-children":[{{"Shape":{{"-appearance":[{{"Appearance":{{"-material":[{{"Material":{{"@diffuseColor":[0.8,0.2,0.1]}}}}]}}}}],
"-geometry":[{{"Box":{{"@size":[1,2,3]}}}}]}}}}{children}]}}}}"#
        )
    };
    let flat: Vec<String> = (0..20_000).map(|i| node(i, "")).collect();
    measure_load(
        "X3D JSON, small nodes",
        "b.x3dj",
        &format!(
            r#"{{"X3D":{{"Scene":{{"-children":[{}]}}}}}}"#,
            flat.join(",\n")
        ),
    );
    let chains: Vec<String> = (0..500)
        .map(|c| {
            (0..40).rev().fold(String::new(), |inner, d| {
                let children = if inner.is_empty() {
                    inner
                } else {
                    format!(",{inner}")
                };
                node(c * 40 + d, &children)
            })
        })
        .collect();
    measure_load(
        "X3D JSON, nested 40 deep",
        "b.x3dj",
        &format!(
            r#"{{"X3D":{{"Scene":{{"-children":[{}]}}}}}}"#,
            chains.join(",\n")
        ),
    );
}
