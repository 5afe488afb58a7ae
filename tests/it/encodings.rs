//! One scene in several encodings gives the same output.

use crate::util;

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
fn a_file_that_inlines_itself_or_is_missing_is_left_out_with_a_warning() {
    // As a browser does: the Inline loads nothing, the rest of the world
    // is baked.
    let o = util::run(&["inspect", "fixtures/include/self.x3dv"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        util::stderr(&o).contains(
            "fixtures/include/self.x3dv:3:14: warning: Inline: no file could be loaded: \
             self.x3dv (a loop: fixtures/include/self.x3dv is already being read)"
        ),
        "{}",
        util::stderr(&o)
    );
    let (_dir, f) = util::scene_file(
        "m.x3dv",
        "#X3D V3.3 utf8\nInline { url [ \"gone.x3d\" \"https://example.org/gone.x3d\" ] }\n",
    );
    let o = util::run(&["inspect", &f]);
    assert_eq!(o.status.code(), Some(0));
    let err = util::stderr(&o);
    assert!(
        err.contains("warning: Inline: no file could be loaded: gone.x3d ("),
        "{err}"
    );
    assert!(
        err.contains("https://example.org/gone.x3d (not fetched: x3dbake reads local files only)"),
        "{err}"
    );
}

#[test]
fn inlines_that_fan_out_are_refused_at_the_read_limit_in_bounded_time() {
    // Fifteen files, each inlining the next in eight places, and a box:
    // within the nesting limit and free of loops, but 8^15 reads (this hung
    // before the read limit). Refused at the 10 001st read.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..15 {
        let mut text = String::from("<X3D><Scene>\n");
        for k in 0..8 {
            let inline = format!("<Inline url='\"f{}.x3d\"'/>", i + 1);
            text += &format!("<Transform translation='{k} 0 0'>{inline}</Transform>\n");
        }
        text += "</Scene></X3D>\n";
        std::fs::write(dir.path().join(format!("f{i}.x3d")), text).unwrap();
    }
    std::fs::write(
        dir.path().join("f15.x3d"),
        "<X3D><Scene><Shape><Box/></Shape></Scene></X3D>",
    )
    .unwrap();
    let input = dir.path().join("f0.x3d");
    let out = dir.path().join("f0.glb");
    let o = util::run_within(&[input.to_str().unwrap(), "-o", out.to_str().unwrap()], 20);
    assert_eq!(o.status.code(), Some(1));
    let err = util::stderr(&o);
    assert!(
        err.contains("error: Inline `f15.x3d`: the scene reads more than 10000 files"),
        "{err}"
    );
    assert_eq!(err.matches(": error: ").count(), 1, "{err}");
    assert!(!out.exists());
}

#[test]
fn the_files_a_scene_reads_add_up_to_at_most_4_gib() {
    use x3dbake::internal::load::link::{Fetch, MAX_LINKED_BYTES};
    /// Any URL is a file of `len` zero bytes (pages the kernel lends
    /// untouched: 4 GiB cost nothing until they are read).
    struct Zeros(usize);
    impl Fetch for Zeros {
        fn fetch(&mut self, _: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
            Ok((url.to_string(), vec![0; self.0]))
        }
    }
    let main = "<X3D><Scene>\n<Inline url='\"big.x3d\"'/>\n</Scene></X3D>\n";
    // One byte over with the input's own bytes: refused before the bytes
    // are kept or read. A small file is read (zero bytes are not X3D: an
    // error of its own).
    for (len, refused) in [(MAX_LINKED_BYTES - main.len() + 1, true), (64, false)] {
        let mut sources = x3dbake::internal::source::Sources::new();
        let mut diags = x3dbake::internal::diag::Diagnostics::default();
        let file = sources.add("main.x3d", main.to_string());
        x3dbake::internal::load::load(
            &mut sources,
            file,
            Some(&mut Zeros(len)),
            &x3dbake::Limits::default(),
            &mut diags,
        );
        let messages: Vec<String> = diags.list().iter().map(|d| d.render(&sources)).collect();
        let over = "main.x3d:2:14: error: Inline `big.x3d`: the scene and the files it reads add up to more than 4 GiB";
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert_eq!(
            messages[0].starts_with(over),
            refused,
            "{len}: {messages:?}"
        );
    }
}

#[test]
fn inlines_and_images_of_devices_and_pipes_are_not_read() {
    // /dev/zero never ends and a named pipe blocks until someone writes:
    // each hung or filled memory when a scene named it.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let fifo = fifo.to_string_lossy().into_owned();
    for url in ["/dev/zero", fifo.as_str()] {
        let text = format!(
            "<X3D><Scene><Inline url='\"{url}\"'/>\n<Shape><Appearance><ImageTexture url='\"{url}\"'/></Appearance><Box/></Shape></Scene></X3D>\n"
        );
        let input = dir.path().join("s.x3d");
        std::fs::write(&input, text).unwrap();
        let out = dir.path().join("s.glb");
        let o = util::run_within(&[input.to_str().unwrap(), "-o", out.to_str().unwrap()], 20);
        let err = util::stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "warning: Inline: no file could be loaded: {url} (not a regular file)"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "warning: ImageTexture: no PNG or JPEG image could be read: {url} (not a regular file)"
            )),
            "{err}"
        );
    }
}

#[test]
fn the_files_a_scene_reads_hold_a_limited_number_of_nodes() {
    use x3dbake::internal::load::link::{Fetch, link};
    /// Any URL is a file of ten Groups.
    struct Groups;
    impl Fetch for Groups {
        fn fetch(&mut self, _: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
            let text = format!("<X3D><Scene>{}</Scene></X3D>", "<Group/>".repeat(10));
            Ok((url.to_string(), text.into_bytes()))
        }
    }
    let main = "<X3D><Scene>\n".to_string()
        + &"<Inline url='\"g.x3d\"'/>\n".repeat(5)
        + "</Scene></X3D>\n";
    let mut sources = x3dbake::internal::source::Sources::new();
    let mut diags = x3dbake::internal::diag::Diagnostics::default();
    let file = sources.add("main.x3d", main);
    // 35 nodes: three files of ten are read, the fourth passes the limit
    // and nothing more is read.
    let limits = x3dbake::Limits {
        linked_nodes: 35,
        ..Default::default()
    };
    let mut scene = x3dbake::internal::syntax::parse(&sources, file, &limits, &mut diags);
    let before = scene.nodes.len();
    link(
        &mut scene,
        &mut sources,
        file,
        &mut Groups,
        &limits,
        &mut diags,
    );
    let messages: Vec<String> = diags.list().iter().map(|d| d.render(&sources)).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with(
            "main.x3d:5:14: error: Inline `g.x3d`: the files the scene reads hold more than 35 \
             nodes (each file counted each time it is read)"
        ),
        "{messages:?}"
    );
    assert_eq!(scene.nodes.len(), before + 30);
}

#[test]
fn gzip_data_expands_to_at_most_1_gib() {
    use std::io::Write as _;
    // 1 025 gzip members of 1 MiB of spaces each, one after another (1 MB
    // of gzip): 1 GiB and 1 MiB of text, refused once 1 GiB and a byte is
    // read. It was 4 GiB, which a 4 MB gzip of numbers turned into about
    // 29 GB of memory.
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(&[b' '; 1 << 20]).unwrap();
    let member = member.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bomb.x3d.gz");
    std::fs::write(&input, member.repeat(1025)).unwrap();
    let out = dir.path().join("bomb.glb");
    let o = util::run_within(&[input.to_str().unwrap(), "-o", out.to_str().unwrap()], 60);
    assert_eq!(o.status.code(), Some(1));
    let err = util::stderr(&o);
    assert!(
        err.starts_with(&format!(
            "{}:1:1: error: the gzip data expands to more than 1 GiB (gunzip it to read it as a \
             plain file, up to 4 GiB)",
            input.display()
        )),
        "{err}"
    );
    assert!(!out.exists());
}

/// An X3D JSON Script's program is its "#sourceCode" (a string a line;
/// "#sourceText" as some tools write it): it runs as the same Script in
/// XML does, instead of "Script has no program".
#[test]
fn a_json_scripts_source_lines_are_its_program() {
    let code = [
        "ecmascript:",
        "function set_fraction(f, t) {",
        "  value_changed = new SFVec3f(2 * f, 0, 0);",
        "}",
    ];
    let xml = format!(
        "<X3D><Scene><Transform DEF='Box'/><TimeSensor DEF='C' loop='true'/>\
         <Script DEF='S'><field accessType='inputOnly' name='set_fraction' type='SFFloat'/>\
         <field accessType='outputOnly' name='value_changed' type='SFVec3f'/><![CDATA[{}]]></Script>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/>\
         <ROUTE fromNode='S' fromField='value_changed' toNode='Box' toField='translation'/>\
         </Scene></X3D>",
        code.join("\n")
    );
    let lines = serde_json::to_string(&code).unwrap();
    let rows = |name: &str, text: &str| {
        let (_dir, f) = util::scene_file(name, text);
        let o = util::run(&[&f, "-o", "-", "--timeline", "--end", "1", "--rate", "4"]);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        assert!(
            !util::stderr(&o).contains("no program"),
            "{}",
            util::stderr(&o)
        );
        util::stdout(&o)
    };
    let xml_rows = rows("s.x3d", &xml);
    assert!(xml_rows.contains("Box,translation,0,1,0,0"), "{xml_rows}");
    for key in ["#sourceCode", "#sourceText"] {
        let json = format!(
            r#"{{"X3D": {{"Scene": {{"-children": [
              {{"Transform": {{"@DEF": "Box"}}}},
              {{"TimeSensor": {{"@DEF": "C", "@loop": true}}}},
              {{"Script": {{"@DEF": "S", "field": [
                {{"@accessType": "inputOnly", "@name": "set_fraction", "@type": "SFFloat"}},
                {{"@accessType": "outputOnly", "@name": "value_changed", "@type": "SFVec3f"}}],
                "{key}": {lines}}}}},
              {{"ROUTE": {{"@fromNode": "C", "@fromField": "fraction_changed", "@toNode": "S", "@toField": "set_fraction"}}}},
              {{"ROUTE": {{"@fromNode": "S", "@fromField": "value_changed", "@toNode": "Box", "@toField": "translation"}}}}
            ]}}}}}}"#
        );
        assert_eq!(rows("s.x3dj", &json), xml_rows, "{key}");
    }
}

/// A DEF'd PROTO instance names the body nodes its interface reaches (no
/// DEF of their own): CSV and inspect say `Knee.rotation` and
/// `Knee.translation`, not `<Transform>.rotation`.
#[test]
fn a_def_d_instance_names_the_body_nodes_it_animates() {
    let (_dir, f) = util::scene_file(
        "knee.x3dv",
        "#X3D V3.3 utf8\n\
         PROTO Joint [ inputOutput SFRotation rotation 0 0 1 0 inputOutput SFVec3f translation 0 0 0 ] {\n\
           Transform { rotation IS rotation children Transform { translation IS translation } }\n\
         }\n\
         DEF Knee Joint {}\n\
         DEF Clock TimeSensor { loop TRUE }\n\
         DEF Bend OrientationInterpolator { key [0 1] keyValue [1 0 0 0, 1 0 0 1] }\n\
         DEF Move PositionInterpolator { key [0 1] keyValue [0 0 0, 1 0 0] }\n\
         ROUTE Clock.fraction_changed TO Bend.set_fraction\n\
         ROUTE Bend.value_changed TO Knee.set_rotation\n\
         ROUTE Clock.fraction_changed TO Move.set_fraction\n\
         ROUTE Move.value_changed TO Knee.set_translation\n",
    );
    let o = util::run(&["inspect", &f]);
    let report = util::stdout(&o);
    assert!(report.contains("    Knee.rotation <- Bend:"), "{report}");
    assert!(report.contains("    Knee.translation <- Move:"), "{report}");
    let csv = util::stdout(&util::run(&[&f, "-o", "-", "--rate", "1"]));
    assert!(csv.contains("\nClock,0,Knee,rotation,0,"), "{csv}");
}

/// Unnamed PROTO instances are numbered in document order: the first
/// `Wheel` in the file is `Wheel_1` (it was `Wheel_3`: instances were
/// expanded from the last).
#[test]
fn unnamed_instances_are_numbered_in_document_order() {
    let (_dir, f) = util::scene_file(
        "wheels.x3dv",
        "#X3D V4.0 utf8\n\
         PROTO Wheel [ inputOutput SFVec3f at 0 0 0 ] {\n\
           Transform { translation IS at children Shape { geometry Cylinder {} } }\n\
         }\n\
         Wheel { at 1 0 0 }\nWheel { at 2 0 0 }\nWheel { at 3 0 0 }\n",
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let named: Vec<(String, f64)> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["name"].is_string())
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["translation"][0].as_f64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, f64)> = (1..=3)
        .map(|i| (format!("Wheel_{i}"), f64::from(i)))
        .collect();
    assert_eq!(named, want);
}

/// An Inline in a PROTO body is read for each instance, as browsers read
/// it (fixtures/scenes/inline_in_proto.x3dv: three cans, each drawn where
/// its instance puts it; the copies were empty nodes); X_ITE's census of
/// the scene counts the same three.
#[test]
fn an_inline_in_a_proto_body_is_read_for_each_instance() {
    let f = "fixtures/scenes/inline_in_proto.x3dv";
    let o = util::run(&[f, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(
        !util::stderr(&o).contains("warning"),
        "{}",
        util::stderr(&o)
    );
    let (json, _) = util::document_json(&o.stdout);
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.iter().filter(|n| n["mesh"].is_u64()).count(), 3);
    let cans: Vec<f64> = nodes
        .iter()
        .filter(|n| n["name"].as_str().is_some_and(|s| s.starts_with("Can_")))
        .map(|n| n["translation"][0].as_f64().unwrap())
        .collect();
    assert_eq!(cans, [1.0, 2.0, 3.0]);
    let Some(xite) = util::tool_dir(
        "X3DBAKE_XITE",
        "X_ITE's census of an Inline in a PROTO body",
    ) else {
        return;
    };
    let census = util::xite_census(&xite, &util::root().join(f));
    assert_eq!(census["count"], 3, "{census}");
}
