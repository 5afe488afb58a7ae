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

#[test]
fn inline_import_export_and_externproto_files_are_read() {
    let o = util::run(&["fixtures/scenes/linked.x3dv", "-o", "-", "--rate", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(o.stderr.is_empty(), "no warnings: {}", util::stderr(&o));
    let csv = util::stdout(&o);
    // The route to the IMPORTed name drives the Inline's exported node.
    assert!(
        csv.contains("\nSlide,1,Part.Mover,translation,0,0,4,0,\n"),
        "{csv}"
    );
    // The EXTERNPROTO's body comes from the library file (the first URL is
    // missing, the second is read); the instance's period reaches its clock.
    assert!(
        csv.contains("\nS.Clock,2,Wheel,rotation,0,0,1,0,3\n"),
        "{csv}"
    );
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("l.glb");
    assert_eq!(
        util::run(&["fixtures/scenes/linked.x3dv", "-o", &glb.to_string_lossy()])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn a_file_that_inlines_itself_is_an_error_and_a_missing_one_a_warning() {
    let o = util::run(&["inspect", "fixtures/include/self.x3dv"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(util::stderr(&o).contains("fixtures/include/self.x3dv:3:14: error: Inline `self.x3dv` includes a file that is already being read"));
    let (_dir, f) = util::scene_file(
        "m.x3dv",
        "#X3D V3.3 utf8\nInline { url [ \"gone.x3d\" \"https://example.org/gone.x3d\" ] }\n",
    );
    let o = util::run(&["inspect", &f]);
    assert_eq!(o.status.code(), Some(0));
    let err = util::stderr(&o);
    assert!(
        err.contains("warning: Inline: no file could be read: gone.x3d ("),
        "{err}"
    );
    assert!(
        err.contains("https://example.org/gone.x3d (not a local file)"),
        "{err}"
    );
}
