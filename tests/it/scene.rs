//! The resolved scene from the XML reader: field values of every type,
//! DEF/USE, containerField, ROUTE resolution and prototypes.

use x3dbake::internal::diag::Diagnostics;
use x3dbake::internal::scene::{FieldType, NodeId, Scene};

fn load(text: &str) -> (Scene, Diagnostics) {
    let bake = crate::util::load_text("t.x3d", text.as_bytes());
    (bake.scene, bake.diags)
}

fn load_fixture(name: &str) -> Scene {
    let text = std::fs::read_to_string(format!(
        "{}/fixtures/scenes/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let (scene, diags) = load(&text);
    assert!(diags.list().is_empty(), "{:?}", diags.list());
    scene
}

#[test]
fn every_field_type_reads_back() {
    let s = load_fixture("every_field_type.x3d");
    let id = s.def("Types").unwrap();
    let v = |n: &str| s.value(id, n).unwrap().clone();
    assert_eq!(v("b").bools(), &[true]);
    assert_eq!(v("mb").bools(), &[true, false, true]);
    assert_eq!(v("i").ints(), &[-7]);
    assert_eq!(v("mi").ints(), &[1, 2, 31]);
    assert_eq!(v("f").floats(), &[0.25]);
    assert_eq!(v("mf").floats(), &[0.0, 0.5, 1.0]);
    assert_eq!(v("d").doubles(), &[0.1]);
    assert_eq!(v("t").doubles(), &[-1.0]);
    assert_eq!(v("v2").floats(), &[1.0, 2.0]);
    assert_eq!((v("mv2").ty, v("mv2").len()), (FieldType::MFVec2f, 2));
    assert_eq!(v("v3").floats(), &[1.0, 2.0, 3.0]);
    assert_eq!(v("mv3").len(), 2);
    assert_eq!(v("c").floats(), &[1.0, 0.5, 0.0]);
    assert_eq!(v("mc").len(), 3);
    assert_eq!(v("ca").floats(), &[1.0, 0.0, 0.0, 0.5]);
    assert_eq!(v("mca").len(), 2);
    assert_eq!(v("r").floats(), &[0.0, 1.0, 0.0, 1.25]);
    assert_eq!(v("mr").len(), 2);
    assert_eq!(v("s").strings(), &["say \"hi\" & go".to_string()]);
    assert_eq!(
        v("ms").strings(),
        &["a b", "c\"d", "e\\f"].map(String::from)
    );
    assert_eq!(s.header.profile.as_deref(), Some("Full"));
}

#[test]
fn use_refers_to_the_same_node_and_container_fields_place_children() {
    let s = load_fixture("def_use_routes.x3d");
    let arm = s.def("Arm").unwrap();
    let copy = s.def("Copy").unwrap();
    let part = s.def("Part").unwrap();
    let children = |id: NodeId| s.value(id, "children").unwrap().nodes().to_vec();
    assert_eq!(children(arm), vec![part]);
    assert_eq!(children(copy), vec![part, arm]);
    assert_eq!(s.value(arm, "center").unwrap().floats(), &[0.0, 1.0, 0.0]);
    // The Sphere went into Shape.geometry, its default containerField.
    let geo = s.value(part, "geometry").unwrap().nodes()[0];
    assert_eq!(s.node(geo).type_name, "Sphere");
    assert_eq!(s.value(geo, "radius").unwrap().floats(), &[0.5]);
    assert_eq!(s.roots.len(), 4);
    assert_eq!(s.nodes.len(), 8);
}

#[test]
fn routes_resolve_to_catalogue_fields_with_types() {
    let s = load_fixture("def_use_routes.x3d");
    let r: Vec<_> = s
        .routes
        .iter()
        .map(|r| {
            (
                s.display_name(r.from),
                r.from_field.as_str(),
                s.display_name(r.to),
                r.to_field.as_str(),
                r.ty,
            )
        })
        .collect();
    use FieldType::*;
    assert_eq!(
        r,
        vec![
            (
                "T".into(),
                "fraction_changed",
                "Ease".into(),
                "set_fraction",
                Some(SFFloat)
            ),
            (
                "Ease".into(),
                "modifiedFraction_changed",
                "Path".into(),
                "set_fraction",
                Some(SFFloat)
            ),
            (
                "Path".into(),
                "value_changed",
                "Arm".into(),
                "translation",
                Some(SFVec3f)
            ),
            (
                "Path".into(),
                "value_changed",
                "Copy".into(),
                "translation",
                Some(SFVec3f)
            ),
        ]
    );
}

#[test]
fn routes_may_come_before_the_def_and_inside_groups() {
    let (s, d) = load(
        "<X3D><Scene><Group><ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/></Group>\
         <TimeSensor DEF='C'/><ScalarInterpolator DEF='S'/></Scene></X3D>",
    );
    assert!(d.list().is_empty(), "{:?}", d.list());
    assert_eq!(s.routes.len(), 1);
}

/// A route repeated after another between the same two nodes is still one
/// route: each pair's routes are all compared, not only the last.
#[test]
fn a_repeat_is_found_past_other_routes_between_the_same_nodes() {
    let active = "<ROUTE fromNode='C' fromField='isActive' toNode='T' toField='enabled'/>";
    let (s, d) = load(&format!(
        "<X3D><Scene><TimeSensor DEF='C'/><TimeSensor DEF='T'/>{active}\
         <ROUTE fromNode='C' fromField='cycleTime' toNode='T' toField='startTime'/>{active}\
         </Scene></X3D>"
    ));
    assert!(d.list().is_empty(), "{:?}", d.list());
    let fields = |r: &x3dbake::internal::scene::Route| (r.from_field.clone(), r.to_field.clone());
    assert_eq!(
        s.routes.iter().map(fields).collect::<Vec<_>>(),
        [
            ("isActive".to_string(), "enabled".to_string()),
            ("cycleTime".to_string(), "startTime".to_string())
        ]
    );
}

/// A ROUTE names the nodes defined by then (a DEF given again later
/// does not move it; a name not yet defined is looked up at the end), and
/// a route written twice is one route.
#[test]
fn routes_keep_the_def_they_follow_and_repeats_are_one() {
    let section = "<TimeSensor DEF='C'/><ScalarInterpolator DEF='S'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/>";
    let (s, d) = load(&format!(
        "<X3D><Scene>{section}{section}\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='set_fraction'/>\
         </Scene></X3D>"
    ));
    assert_eq!(d.list().len(), 2, "two DEFs given again: {:?}", d.list());
    let nodes = |r: &x3dbake::internal::scene::Route| (r.from, r.to);
    let (c, i) = (NodeId(0), NodeId(1));
    let (c2, i2) = (NodeId(2), NodeId(3));
    assert_eq!(s.def("C"), Some(c2));
    assert_eq!(
        s.routes.iter().map(nodes).collect::<Vec<_>>(),
        [(c, i), (c2, i2)]
    );
}

#[test]
fn envelope_comments_cdata_doctype_bom_and_entities() {
    let (s, d) = load(
        "\u{feff}<?xml version='1.0'?>\n<!DOCTYPE X3D PUBLIC 'x' 'y'>\n<!-- c -->\n<X3D profile='Immersive' version='4.0'>\
         <head><component name='Interpolation' level='4'/><meta name='a' content='b &amp; c'/><unit category='length' name='cm' conversionFactor='0.01'/></head>\
         <Scene><Script DEF='S'><![CDATA[ecmascript: function f() { return 1 < 2; }]]></Script>\
         <WorldInfo title='&lt;tag&gt; &#x41;'/></Scene></X3D>",
    );
    assert!(d.list().is_empty(), "{:?}", d.list());
    assert_eq!(s.header.components, vec![("Interpolation".to_string(), 4)]);
    assert_eq!(s.header.meta, vec![("a".to_string(), "b & c".to_string())]);
    assert_eq!(s.header.units[0].2, 0.01);
    let w = s.roots[1];
    assert_eq!(
        s.value(w, "title").unwrap().strings(),
        &["<tag> A".to_string()]
    );
}

#[test]
fn attributes_in_either_quotes_with_space_around_the_equals_sign() {
    // Values hold the other quote, `>` and `/`; space and line breaks sit
    // between attributes and around `=`.
    let (s, d) = load(
        "<X3D><Scene><WorldInfo DEF = 'W'\n\t title=\"it's > 1/2\"\r\n info  =\n'\"a\" \"b c\"' /></Scene></X3D>",
    );
    assert!(d.list().is_empty(), "{:?}", d.list());
    let w = s.def("W").unwrap();
    assert_eq!(
        s.value(w, "title").unwrap().strings(),
        &["it's > 1/2".to_string()]
    );
    assert_eq!(
        s.value(w, "info").unwrap().strings(),
        &["a".to_string(), "b c".to_string()]
    );
}

#[test]
fn attributes_given_again_are_errors_and_the_first_stands() {
    // A tag of few attributes (compared pair by pair) and one of many
    // (looked up in a set): each repeat is reported, in document order.
    let many: String = (0..20).map(|n| format!(" a{n}='{n}'")).collect();
    let (s, d) = load(&format!(
        "<X3D><Scene><Transform DEF='A' translation='1 2 3' scale='2 2 2' translation='4 5 6' \
         translation='7 8 9'/><Transform DEF='B'{many} translation='1 1 1' a3='x' \
         translation='2 2 2' a3='y'/></Scene></X3D>"
    ));
    let errors: Vec<&str> = d.errors().map(|e| e.message.as_str()).collect();
    let twice = |k: &str| format!("attribute `{k}` is given twice");
    assert_eq!(
        errors,
        [
            twice("translation"),
            twice("translation"),
            twice("a3"),
            twice("translation"),
            twice("a3")
        ]
    );
    let a = s.def("A").unwrap();
    assert_eq!(
        s.value(a, "translation").unwrap().floats(),
        &[1.0, 2.0, 3.0]
    );
    assert_eq!(s.value(a, "scale").unwrap().floats(), &[2.0, 2.0, 2.0]);
    let b = s.def("B").unwrap();
    assert_eq!(
        s.value(b, "translation").unwrap().floats(),
        &[1.0, 1.0, 1.0]
    );
}

#[test]
fn unknown_nodes_and_fields_are_kept_with_warnings() {
    let (s, d) = load("<X3D><Scene><Gizmo DEF='G' size='3'/><Transform wobble='1'/></Scene></X3D>");
    assert!(!d.has_errors());
    assert_eq!(d.warnings().count(), 2);
    let g = s.def("G").unwrap();
    assert_eq!(s.node(g).raw_fields[0].text, "3");
    assert_eq!(s.node(s.roots[1]).raw_fields[0].name, "wobble");
}

#[test]
fn prototypes_declare_fields_and_instances_get_them() {
    let (s, d) = load(
        "<X3D><Scene><ProtoDeclare name='Spinner'><ProtoInterface>\
         <field name='speed' type='SFTime' accessType='inputOutput' value='2'/>\
         <field name='rot' type='SFRotation' accessType='outputOnly'/></ProtoInterface>\
         <ProtoBody><Group><TimeSensor DEF='TS'><IS><connect nodeField='cycleInterval' protoField='speed'/></IS></TimeSensor>\
         <OrientationInterpolator DEF='OI' key='0 1' keyValue='0 1 0 0 0 1 0 3'><IS><connect nodeField='value_changed' protoField='rot'/></IS></OrientationInterpolator></Group>\
         <ROUTE fromNode='TS' fromField='fraction_changed' toNode='OI' toField='set_fraction'/></ProtoBody></ProtoDeclare>\
         <ProtoInstance DEF='P' name='Spinner'><fieldValue name='speed' value='5'/></ProtoInstance>\
         <Transform DEF='T'/><ROUTE fromNode='P' fromField='rot' toNode='T' toField='rotation'/></Scene></X3D>",
    );
    assert!(d.list().is_empty(), "{:?}", d.list());
    let p = &s.protos[0];
    assert_eq!(
        (
            p.interface.len(),
            p.routes.len(),
            p.connections.len(),
            p.body.len()
        ),
        (2, 1, 2, 1)
    );
    let inst = s.def("P").unwrap();
    assert_eq!(s.value(inst, "speed").unwrap().doubles(), &[5.0]);
    assert_eq!(s.routes[0].ty, Some(FieldType::SFRotation));
    // Body DEFs live in the prototype's namespace, not the scene's.
    assert!(s.def("TS").is_none());
}

#[test]
fn use_of_a_def_inside_a_proto_body_from_outside_is_left_out() {
    let (_, d) = load(
        "<X3D><Scene><ProtoDeclare name='P'><ProtoBody><Group DEF='In'/></ProtoBody></ProtoDeclare>\
         <Group USE='In'/></Scene></X3D>",
    );
    assert!(!d.has_errors());
    assert!(
        d.list()
            .iter()
            .any(|x| x.message == "USE `In` refers to no DEF before it: the node is left out"),
        "{:?}",
        d.list()
    );
}

/// A chain of `n` prototypes, each body an instance of the one before,
/// then `instances` instances of the last.
fn nested_protos(n: usize, fan_out: usize, instances: usize) -> String {
    let mut s = String::from(
        "<X3D><Scene><ProtoDeclare name='P0'><ProtoBody><Group/></ProtoBody></ProtoDeclare>",
    );
    for i in 1..n {
        let body = format!("<ProtoInstance name='P{}'/>", i - 1).repeat(fan_out);
        s += &format!(
            "<ProtoDeclare name='P{i}'><ProtoBody><Group>{body}</Group></ProtoBody></ProtoDeclare>"
        );
    }
    s += &format!("<ProtoInstance name='P{}'/>", n - 1).repeat(instances);
    s + "</Scene></X3D>"
}

#[test]
fn prototypes_nest_64_deep_and_no_deeper() {
    use x3dbake::internal::load::proto::MAX_NESTING;
    let (s, d) = load(&nested_protos(MAX_NESTING, 1, 1));
    assert!(!d.has_errors(), "{:?}", d.list());
    // 127 template nodes (a Group in each of the 64 bodies, an instance in
    // 63 of them) and the instance at the top; expanding it copies all 127.
    assert_eq!(s.nodes.len(), 2 * 127 + 1);
    let (_, d) = load(&nested_protos(MAX_NESTING + 1, 1, 1));
    assert_eq!(
        d.errors().next().unwrap().message,
        "prototype instances in `P64` nest deeper than 64"
    );
}

#[test]
fn prototype_expansion_is_counted_before_anything_is_made() {
    // One instance of P5 makes 222 221 nodes (11 in each body of P1..P5,
    // 10 of which are instances, and P0's Group): four fit in 1 000 000,
    // the fifth is refused, before any is expanded.
    let (s, d) = load(&nested_protos(6, 10, 5));
    let e = d.errors().next().unwrap();
    assert_eq!(
        e.message,
        "expanding prototypes would create more than 1000000 nodes: \
         this instance of `P5` (222221 nodes) with those before it"
    );
    assert!(s.nodes.len() < 100, "{} nodes made", s.nodes.len());
    let (_, d) = load(&nested_protos(8, 10, 1));
    assert_eq!(
        d.errors().next().unwrap().message,
        "expanding prototypes would create more than 1000000 nodes: one instance of `P7` alone"
    );
}

/// The node table in the repository is the project's shared copy (when the
/// shared folder is there).
#[test]
fn the_x3d4_node_table_is_the_shared_one() {
    let shared = crate::util::root().join("../shared/spec/x3d4-nodes.tsv");
    let Ok(shared) = std::fs::read(&shared) else {
        eprintln!("note: ../shared/spec/x3d4-nodes.tsv not found; comparison skipped");
        return;
    };
    let ours = std::fs::read(crate::util::root().join("src/scene/x3d4-nodes.tsv")).unwrap();
    assert!(
        ours == shared,
        "src/scene/x3d4-nodes.tsv differs from the shared table"
    );
}

/// A long float value is read on another thread while the reader goes on
/// (scene/deferred.rs): the scene and the diagnostics are those of reading
/// every value in turn, on one thread. Here two long values with a long
/// integer one between (read in turn), one with a bad token in its last
/// piece and one with a bad token in its first (each a warning, the field
/// at its default) among 1 100 other warnings, so that one of them falls
/// past the 1 000 kept and the first moves one out; an attribute given
/// again after a long value (an error, the first stands).
#[test]
fn long_values_read_on_another_thread_read_as_in_turn() {
    use x3dbake::internal::par::with_share;
    const LONG: usize = 1 << 20;
    let floats = |bad_at: Option<usize>| {
        let mut t = String::new();
        let mut k = 0;
        while t.len() < 3 * LONG {
            if bad_at.is_some_and(|b| t.len() >= b) && !t.contains('x') {
                t.push_str("1x ");
            }
            t.push_str(&format!(
                "{}.{:03} -{}.5 {}e-2, ",
                k % 97,
                k % 1000,
                k % 13,
                k % 7
            ));
            k += 1;
        }
        t.push_str("0 0 0");
        t
    };
    let unknown = |n: usize| "<Transform wobble='1'/>".repeat(n);
    let ints: String = (0..LONG / 3).map(|i| format!("{i} ")).collect();
    let text = format!(
        "<X3D><Scene>{}<Shape><IndexedFaceSet coordIndex='{ints}'><Coordinate DEF='C' \
         point='{}'/></IndexedFaceSet></Shape>{}<CoordinateInterpolator DEF='Late' key='0 1' \
         keyValue='{}' key='0 2'/>{}<CoordinateInterpolator DEF='Early' keyValue='{}'/>{}\
         </Scene></X3D>",
        unknown(400),
        floats(None),
        unknown(400),
        floats(Some(3 * LONG - 100)),
        unknown(300),
        floats(Some(10)),
        unknown(10),
    );
    let read = |threads| with_share(threads, || load(&text));
    let (one, one_said) = read(1);
    let (two, two_said) = read(2);
    let said = |d: &Diagnostics| format!("{:?} {:?}", d.counts(), d.list());
    assert_eq!(said(&one_said), said(&two_said));
    assert_eq!(format!("{:?}", one.nodes), format!("{:?}", two.nodes));
    // What the reading in turn gives, to be sure the test reads long values.
    assert_eq!(one_said.counts(), (1, 1112));
    assert_eq!(one_said.list().len(), 1001);
    let bad = |d: &Diagnostics| {
        let list = d.list().iter();
        list.filter(|d| d.message.starts_with("bad value")).count()
    };
    assert_eq!(
        bad(&one_said),
        1,
        "the second bad value is past the 1 000 kept"
    );
    let c = one.def("C").unwrap();
    assert!(one.value(c, "point").unwrap().floats().len() > LONG / 4);
    for name in ["Late", "Early"] {
        let values = &one.node(one.def(name).unwrap()).values;
        assert!(values.get("keyValue").is_none(), "{name} keeps its default");
    }
}
