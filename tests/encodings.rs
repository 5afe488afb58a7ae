//! One scene in several encodings gives the same output.

mod util;

fn bake(input: &str, out: &std::path::Path) -> Vec<u8> {
    let o = util::run(&[input, "-o", &out.to_string_lossy(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{input}: {}", util::stderr(&o));
    std::fs::read(out).unwrap()
}

#[test]
fn xml_classic_vrml_json_and_gzip_give_identical_glb_and_csv() {
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
        let json = bake(
            "fixtures/scenes/bouncing_box.x3dj",
            &dir.path().join(format!("d.{ext}")),
        );
        assert!(xml == vrml, "XML and ClassicVRML differ ({ext})");
        assert!(xml == json, "XML and JSON differ ({ext})");
        assert!(xml == zipped, "gzip differs ({ext})");
    }
}

#[test]
fn nested_prototypes_expand_the_same_in_xml_and_classic_vrml() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["glb", "csv"] {
        let xml = bake(
            "fixtures/scenes/protos.x3d",
            &dir.path().join(format!("a.{ext}")),
        );
        let vrml = bake(
            "fixtures/scenes/protos.x3dv",
            &dir.path().join(format!("b.{ext}")),
        );
        assert!(xml == vrml, "XML and ClassicVRML prototypes differ ({ext})");
    }
    let csv = String::from_utf8(bake(
        "fixtures/scenes/protos.x3dv",
        &dir.path().join("c.csv"),
    ))
    .unwrap();
    // Left's period (1) reaches the inner clock through two IS levels; its
    // turns reach the inner interpolator: at 0.5 s the middle key, 0 0 1 0.5.
    assert!(
        csv.contains("\nLeft.Spinner_1.Clock,0.5,Hand,rotation,0,0,0,1,0.5\n"),
        "{csv}"
    );
    // Right keeps the Swinger's default period 2; Plain the Spinner's 4.
    assert!(csv.contains("\nRight.Spinner_1.Clock,2,Wheel,rotation,0,"));
    assert!(csv.contains("\nPlain.Clock,4,Wheel,rotation,0,"));
}
