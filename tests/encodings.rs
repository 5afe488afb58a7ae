//! One scene in several encodings gives the same output.

mod util;

fn bake(input: &str, out: &std::path::Path) -> Vec<u8> {
    let o = util::run(&[input, "-o", &out.to_string_lossy(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{input}: {}", util::stderr(&o));
    std::fs::read(out).unwrap()
}

#[test]
fn xml_classic_vrml_and_gzip_give_identical_glb_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("bouncing_box.x3dv.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(
        &mut enc,
        &std::fs::read(util::root().join("fixtures/scenes/bouncing_box.x3dv")).unwrap(),
    )
    .unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    for ext in ["glb", "csv"] {
        let xml = bake(
            "fixtures/scenes/bouncing_box.x3d",
            &dir.path().join(format!("a.{ext}")),
        );
        let vrml = bake(
            "fixtures/scenes/bouncing_box.x3dv",
            &dir.path().join(format!("b.{ext}")),
        );
        let zipped = bake(&gz.to_string_lossy(), &dir.path().join(format!("c.{ext}")));
        assert!(xml == vrml, "XML and ClassicVRML differ ({ext})");
        assert!(xml == zipped, "gzip differs ({ext})");
    }
}
