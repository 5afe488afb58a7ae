//! The geometry nodes whose faces x3dbake generates, against vertices
//! computed by hand from the X3D text.

use crate::util;
use glam::{Vec2, Vec3};
use x3dbake::internal::mesh::{Mesh, Overrides, Primitive, mesh};
use x3dbake::{Bake, Limits};

/// The mesh of the node DEF'd `G` in a scene.
fn geometry(x3d: &str) -> Mesh {
    let text = format!("<X3D><Scene><Shape>{x3d}</Shape></Scene></X3D>");
    let mut bake = Bake::load("g.x3d", text.into_bytes(), None, None, Limits::default());
    assert!(!bake.diags.has_errors());
    let id = bake.scene.def("G").expect("a node DEF'd G");
    let m = mesh(&bake.scene, &Overrides::default(), id, &mut bake.diags);
    assert_eq!(bake.diags.counts(), (0, 0));
    m.expect("something to draw")
}

fn near(a: Vec3, b: Vec3) -> bool {
    a.distance(b) < 1e-5
}

/// The corners of each triangle, as positions.
fn triangles(m: &Mesh) -> Vec<[Vec3; 3]> {
    m.indices
        .chunks_exact(3)
        .map(|t| [0, 1, 2].map(|k| m.positions[t[k] as usize]))
        .collect()
}

fn facing(t: &[Vec3; 3]) -> Vec3 {
    (t[1] - t[0]).cross(t[2] - t[0]).normalize()
}

#[test]
fn an_extrusion_of_a_square_along_a_bent_spine() {
    // Spine (0,0,0) → (0,1,0) → (1,1,0). The planes (the text's rules):
    // Y0 = (0,1,0), Y1 = (1,1,0)/√2, Y2 = (1,0,0); Z1 = (S2−S1)×(S0−S1) =
    // (1,0,0)×(0,−1,0) = (0,0,−1), which the open ends take too; X = Y×Z:
    // X0 = (−1,0,0), X1 = (−1,1,0)/√2, X2 = (0,1,0). A cross-section point
    // (x, z) at spine point i is S_i + x·X_i + z·Z_i.
    let m = geometry(
        "<Extrusion DEF='G' spine='0 0 0, 0 1 0, 1 1 0' \
         crossSection='0.5 0.5, 0.5 -0.5, -0.5 -0.5, -0.5 0.5, 0.5 0.5'/>",
    );
    let h = 0.5 / 2f32.sqrt();
    for want in [
        Vec3::new(-0.5, 0.0, -0.5),
        Vec3::new(-0.5, 0.0, 0.5),
        Vec3::new(0.5, 0.0, 0.5),
        Vec3::new(-h, 1.0 + h, -0.5),
        Vec3::new(h, 1.0 - h, 0.5),
        Vec3::new(1.0, 1.5, -0.5),
        Vec3::new(1.0, 0.5, 0.5),
    ] {
        assert!(
            m.positions.iter().any(|p| near(*p, want)),
            "{want} not among {:?}",
            m.positions
        );
    }
    // 2 spine segments × 4 sides, 2 triangles each, and two square caps.
    assert_eq!(m.indices.len(), 3 * (2 * 4 * 2 + 2 * 2));
    let tris = triangles(&m);
    // The caps face away from the spine: −Y0 at the start, +Y2 at the end.
    let begin = tris.iter().filter(|t| t.iter().all(|p| p.y.abs() < 1e-6));
    assert!(begin.clone().count() == 2 && begin.clone().all(|t| near(facing(t), -Vec3::Y)));
    let end = tris
        .iter()
        .filter(|t| t.iter().all(|p| (p.x - 1.0).abs() < 1e-6));
    assert!(end.clone().count() == 2 && end.clone().all(|t| near(facing(t), Vec3::X)));
    // The sides face outwards: the side of cross-section x = +0.5 leaves
    // the first spine point along X0 = (−1, 0, 0).
    let side = tris
        .iter()
        .find(|t| {
            let at_start = |p: &&Vec3| (p.x + 0.5).abs() < 1e-6 && p.y.abs() < 1e-6;
            t.iter().filter(at_start).count() == 2
        })
        .expect("a triangle of the side at x = −0.5");
    assert!(facing(side).x < -0.9, "{}", facing(side));
    // Flat normals (creaseAngle 0) agree with the faces.
    for t in m.indices.chunks_exact(3) {
        let corners = [0, 1, 2].map(|k| m.positions[t[k] as usize]);
        for &i in t {
            assert!(near(m.normals[i as usize], facing(&corners)));
        }
    }
}

#[test]
fn a_straight_extrusion_keeps_the_cross_section_axes() {
    // A straight spine up +Y: the plane is X and Z themselves, scaled and
    // turned a quarter about the spine at its end.
    let m = geometry(
        "<Extrusion DEF='G' spine='0 0 0, 0 2 0' crossSection='1 0, 0 1, -1 0, 1 0' \
         scale='1 1, 2 2' orientation='0 1 0 0, 0 1 0 1.5707963' beginCap='false' endCap='false'/>",
    );
    // (1, 0) at the end: scaled to (2, 0), turned a quarter about +Y: −Z.
    for want in [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.0, 2.0, -2.0),
        Vec3::new(2.0, 2.0, 0.0),
    ] {
        assert!(m.positions.iter().any(|p| near(*p, want)), "{want}");
    }
    assert_eq!(m.indices.len(), 3 * 3 * 2);
}

#[test]
fn an_elevation_grid_of_three_by_three_heights() {
    let m = geometry(
        "<ElevationGrid DEF='G' xDimension='3' zDimension='3' xSpacing='1' zSpacing='2' \
         height='0 1 0, 1 2 1, 0 1 0'/>",
    );
    // Point (i, j) is (i·1, height[i + 3j], j·2); the first quad runs
    // (0,0) → (0,1) → (1,1) → (1,0), with s = i/2, t = j/2.
    assert_eq!(m.positions.len(), 16);
    assert_eq!(
        &m.positions[..4],
        [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 2.0),
            Vec3::new(1.0, 2.0, 2.0),
            Vec3::new(1.0, 1.0, 0.0),
        ]
    );
    assert_eq!(
        &m.uvs[..4],
        [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(0.5, 0.0),
        ]
    );
    assert_eq!(m.indices.len(), 4 * 2 * 3);
    // Every triangle faces up (ccw TRUE).
    assert!(triangles(&m).iter().all(|t| facing(t).y > 0.0));
}

#[test]
fn geometry_2d_in_the_z0_plane() {
    let r = geometry("<Rectangle2D DEF='G' size='4 2'/>");
    let (lo, hi) = r.positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    assert_eq!(
        (lo, hi),
        (Vec3::new(-2.0, -1.0, 0.0), Vec3::new(2.0, 1.0, 0.0))
    );
    assert!(r.double_sided, "solid is FALSE by default");
    assert!(triangles(&r).iter().all(|t| near(facing(t), Vec3::Z)));

    let c = geometry("<Circle2D DEF='G' radius='2'/>");
    assert_eq!(c.primitive(), Primitive::Lines);
    assert_eq!((c.positions.len(), c.indices.len()), (32, 64));
    assert!(
        c.positions
            .iter()
            .all(|p| (p.length() - 2.0).abs() < 1e-5 && p.z == 0.0)
    );

    // A quarter arc: 8 segments of the 32 a circle has, (1,0) to (0,1).
    let a = geometry("<Arc2D DEF='G' startAngle='0' endAngle='1.5707964'/>");
    assert_eq!((a.positions.len(), a.indices.len()), (9, 16));
    assert!(near(a.positions[0], Vec3::X) && near(a.positions[8], Vec3::Y));

    // A pie of the same quarter: the centre, then the 9 arc points, as a
    // fan of 8 triangles; by its chord, 7.
    let p = geometry("<ArcClose2D DEF='G' startAngle='0' endAngle='1.5707964'/>");
    assert_eq!(p.indices.len(), 3 * 8);
    assert!(p.positions.contains(&Vec3::ZERO));
    let chord =
        geometry("<ArcClose2D DEF='G' startAngle='0' endAngle='1.5707964' closureType='CHORD'/>");
    assert_eq!(chord.indices.len(), 3 * 7);
    assert!(!chord.positions.contains(&Vec3::ZERO));

    // A ring: a quad between the circles at each of the 32 segments.
    let d = geometry("<Disk2D DEF='G' innerRadius='0.5' outerRadius='1'/>");
    assert_eq!(d.indices.len(), 32 * 2 * 3);
    assert!(d.positions.iter().all(|p| {
        let l = p.length();
        (l - 0.5).abs() < 1e-5 || (l - 1.0).abs() < 1e-5
    }));
    assert!(triangles(&d).iter().all(|t| near(facing(t), Vec3::Z)));

    let l = geometry("<Polyline2D DEF='G' lineSegments='0 0, 1 1, 2 0'/>");
    assert_eq!(l.indices, [0, 1, 1, 2]);
    let pts = geometry("<Polypoint2D DEF='G' point='0 0, 1 1'/>");
    assert_eq!(pts.primitive(), Primitive::Points);
    // Clockwise triangles still face +z.
    let t = geometry("<TriangleSet2D DEF='G' vertices='0 0, 0 1, 1 0'/>");
    assert!(t.normals.iter().all(|n| *n == Vec3::Z));
}

#[test]
fn fan_and_strip_sets_as_triangles() {
    let points = "<Coordinate point='0 0 0, 1 0 0, 1 1 0, 0 1 0, -1 1 0'/>";
    let corners = |m: &Mesh| -> Vec<u32> { m.coord_index.clone() };
    let fan = geometry(&format!(
        "<TriangleFanSet DEF='G' fanCount='5'>{points}</TriangleFanSet>"
    ));
    assert_eq!(corners(&fan), [0, 1, 2, 0, 2, 3, 0, 3, 4]);
    // The second triangle of a strip is turned round to keep its winding.
    let strip = geometry(&format!(
        "<TriangleStripSet DEF='G' stripCount='4'>{points}</TriangleStripSet>"
    ));
    assert_eq!(corners(&strip), [0, 1, 2, 2, 1, 3]);
    let indexed = geometry(&format!(
        "<IndexedTriangleFanSet DEF='G' index='0 1 2 -1 4 3 2 1'>{points}</IndexedTriangleFanSet>"
    ));
    assert_eq!(corners(&indexed), [0, 1, 2, 4, 3, 2, 4, 2, 1]);
    let indexed = geometry(&format!(
        "<IndexedTriangleStripSet DEF='G' index='4 3 2 1'>{points}</IndexedTriangleStripSet>"
    ));
    assert_eq!(corners(&indexed), [4, 3, 2, 2, 3, 1]);
}

/// A Text node's mesh, with a FontStyle of these attributes.
fn text(strings: &str, text_attrs: &str, style_attrs: &str) -> Mesh {
    geometry(&format!(
        "<Text DEF='G' string='{strings}' {text_attrs}><FontStyle {style_attrs}/></Text>"
    ))
}

fn bounds(points: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
    points.fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}

fn area(m: &Mesh) -> f32 {
    triangles(m)
        .iter()
        .map(|t| (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0)
        .sum()
}

#[test]
fn text_is_drawn_from_the_shipped_fonts_as_fontstyle_says() {
    let one = text("\"Hi\"", "", "size='1'");
    assert!(!one.indices.is_empty());
    assert!(one.positions.iter().all(|p| p.z == 0.0));
    assert!(triangles(&one).iter().all(|t| facing(t).z > 0.99));
    // size scales every point.
    let two = text("\"Hi\"", "", "size='2'");
    assert_eq!(one.positions.len(), two.positions.len());
    assert!(
        one.positions
            .iter()
            .zip(&two.positions)
            .all(|(a, b)| near(*a * 2.0, *b))
    );
    // The second line is spacing × size lower (topToBottom), or higher.
    let lines = text("\"A\" \"A\"", "", "spacing='2'");
    let (first, second) = lines.positions.split_at(lines.positions.len() / 2);
    assert!(
        first
            .iter()
            .zip(second)
            .all(|(a, b)| near(*a - Vec3::Y * 2.0, *b))
    );
    let up = text("\"A\" \"A\"", "", "spacing='2' topToBottom='false'");
    let (first, second) = up.positions.split_at(up.positions.len() / 2);
    assert!(
        first
            .iter()
            .zip(second)
            .all(|(a, b)| near(*a + Vec3::Y * 2.0, *b))
    );
    // Justification: MIDDLE centres a symmetric line; END ends it at x = 0;
    // leftToRight FALSE runs it into −x.
    let (lo, hi) = bounds(
        text("\"HOH\"", "", "justify='\"MIDDLE\"'")
            .positions
            .into_iter(),
    );
    assert!((lo.x + hi.x).abs() < 0.05, "{lo} {hi}");
    let (_, hi) = bounds(
        text("\"HOH\"", "", "justify='\"END\"'")
            .positions
            .into_iter(),
    );
    assert!(hi.x <= 0.0 && hi.x > -0.2, "{hi}");
    let (_, hi) = bounds(
        text("\"HOH\"", "", "leftToRight='false'")
            .positions
            .into_iter(),
    );
    assert!(hi.x <= 1e-6, "{hi}");
    // Minor BEGIN puts the first line's top at y = 0, FIRST its baseline.
    let (_, hi) = bounds(
        text("\"H\"", "", "justify='\"BEGIN\" \"BEGIN\"'")
            .positions
            .into_iter(),
    );
    assert!(hi.y <= 0.0 && hi.y > -0.3, "{hi}");
    let (lo, _) = bounds(text("\"H\"", "", "").positions.into_iter());
    assert!(lo.y.abs() < 0.02, "{lo}");
}

#[test]
fn text_length_and_max_extent_fit_the_lines() {
    // length: the line's advance is 5 units (its ink a little less), its
    // glyphs spread.
    let (_, hi) = bounds(text("\"WW\"", "length='5'", "").positions.into_iter());
    assert!(hi.x > 4.0 && hi.x <= 5.0, "{hi}");
    let (_, hi) = bounds(
        text("\"a long line of text\"", "length='2'", "")
            .positions
            .into_iter(),
    );
    assert!(hi.x > 1.8 && hi.x <= 2.0, "{hi}");
    // maxExtent: the longest line brought to it, the others by as much.
    let free = text("\"a long line of text\" \"short\"", "", "");
    let capped = text("\"a long line of text\" \"short\"", "maxExtent='3'", "");
    let (_, hi) = bounds(capped.positions.iter().copied());
    assert!(hi.x <= 3.0 && hi.x > 2.7, "{hi}");
    let (_, free_hi) = bounds(free.positions.iter().copied());
    let ratio = 3.0 / free_hi.x;
    let short = |m: &Mesh| {
        bounds(m.positions.iter().copied().filter(|p| p.y < -0.5))
            .1
            .x
    };
    assert!((short(&capped) / short(&free) - ratio).abs() < 0.05);
}

#[test]
fn text_families_and_styles_differ_and_counters_stay_open() {
    let serif = text("\"Ag\"", "", "family='\"SERIF\"'");
    let sans = text("\"Ag\"", "", "family='\"SANS\"'");
    let mono = text("\"Ag\"", "", "family='\"TYPEWRITER\"'");
    assert!(serif.positions != sans.positions && sans.positions != mono.positions);
    let plain = text("\"Ag\"", "", "family='\"SANS\"'");
    let bold = text("\"Ag\"", "", "family='\"SANS\"' style='BOLD'");
    assert!(area(&bold) > area(&plain) * 1.1);
    // An `o` is a ring: its middle is not filled.
    let o = text("\"o\"", "", "");
    let (lo, hi) = bounds(o.positions.iter().copied());
    let middle = (lo + hi) / 2.0;
    let inside = |t: &[Vec3; 3]| {
        let s = |a: Vec3, b: Vec3| (b - a).cross(middle - a).z;
        let (d0, d1, d2) = (s(t[0], t[1]), s(t[1], t[2]), s(t[2], t[0]));
        (d0 > 0.0 && d1 > 0.0 && d2 > 0.0) || (d0 < 0.0 && d1 < 0.0 && d2 < 0.0)
    };
    assert!(!triangles(&o).iter().any(inside));
    assert!(area(&o) > 0.05);
}

/// Indices take the smallest type that holds them: a Box's 24 vertices
/// u16 (5123), a 300 × 300 ElevationGrid's 90 000 u32 (5125); both files
/// pass the validator.
#[test]
fn indices_take_the_smallest_type() {
    let heights = vec!["0"; 300 * 300].join(" ");
    let dir = tempfile::tempdir().unwrap();
    for (scene, want) in [
        ("<Shape><Box/></Shape>".to_string(), 5123),
        (
            format!(
                "<Shape><ElevationGrid xDimension='300' zDimension='300' height='{heights}'/></Shape>"
            ),
            5125,
        ),
    ] {
        let (_d, f) = util::scene_file("i.x3d", &format!("<X3D><Scene>{scene}</Scene></X3D>"));
        let o = util::run(&[&f, "-o", "-", "--format", "glb", "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        let (json, _) = util::document_json(&o.stdout);
        let i = json["meshes"][0]["primitives"][0]["indices"]
            .as_u64()
            .unwrap() as usize;
        assert_eq!(json["accessors"][i]["componentType"], want);
        let glb = dir.path().join(format!("{want}.glb"));
        std::fs::write(&glb, &o.stdout).unwrap();
        util::assert_validator_clean(&[glb]);
    }
}

/// Texture coordinates are written only where a texture reads them: a
/// plain Box has no TEXCOORD_0 (the validator's UNUSED_OBJECT, 183 on the
/// corpus before), a textured one has.
#[test]
fn texture_coordinates_only_where_a_texture_reads_them() {
    let png = util::root().join("fixtures/scenes/checker.png");
    let (_dir, f) = util::scene_file(
        "t.x3d",
        &format!(
            "<X3D><Scene><Shape><Appearance><ImageTexture url='\"{}\"'/></Appearance><Box/></Shape>\
             <Transform translation='2 0 0'><Shape><Appearance><Material/></Appearance>\
             <Sphere/></Shape></Transform></Scene></X3D>",
            png.display()
        ),
    );
    let o = util::run(&[&f, "-o", "-", "--format", "glb", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (json, _) = util::document_json(&o.stdout);
    let materials = json["materials"].as_array().unwrap();
    let mut seen = [0, 0];
    for mesh in json["meshes"].as_array().unwrap() {
        let p = &mesh["primitives"][0];
        let m = &materials[p["material"].as_u64().unwrap() as usize];
        let textured = m["pbrMetallicRoughness"]["baseColorTexture"].is_object();
        let has_uv = p["attributes"]["TEXCOORD_0"].is_u64();
        assert_eq!(has_uv, textured, "{mesh}");
        seen[usize::from(textured)] += 1;
    }
    assert_eq!(seen, [1, 1]);
}

/// The v of each vertex's TEXCOORD_`set` in a glTF document's first mesh.
fn first_vs(json: &serde_json::Value, bin: &[u8], set: usize) -> Vec<f32> {
    let attribute = &json["meshes"][0]["primitives"][0]["attributes"][format!("TEXCOORD_{set}")];
    let a = &json["accessors"][attribute.as_u64().unwrap() as usize];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + a["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"].as_u64().unwrap_or(8) as usize;
    (0..a["count"].as_u64().unwrap() as usize)
        .map(|i| {
            let at = start + i * stride + 4;
            f32::from_le_bytes(bin[at..at + 4].try_into().unwrap())
        })
        .collect()
}

/// A MultiTextureCoordinate's first unit is the geometry's TEXCOORD_0 (its
/// texture's UVs were lost: Castle writes one unit so); an image Castle reads upside down
/// (`flipVertically TRUE`, as its glTF importer writes) keeps its
/// coordinates as given, where X3D's are turned to glTF's (v = 1 − t).
#[test]
fn multi_texture_coordinates_and_upside_down_images() {
    let png = util::root().join("fixtures/scenes/checker.png");
    let vs = |flip: &str, coords: &str| {
        let (_dir, f) = util::scene_file(
            "m.x3d",
            &format!(
                "<X3D><Scene><Shape><Appearance><ImageTexture flipVertically='{flip}' url='\"{}\"'/></Appearance>\
                 <TriangleSet><Coordinate point='0 0 0 1 0 0 0 1 0'/>{coords}</TriangleSet></Shape></Scene></X3D>",
                png.display()
            ),
        );
        let o = util::run(&[&f, "-o", "-", "--format", "glb"]);
        assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
        let (json, bin) = util::document_json(&o.stdout);
        (first_vs(&json, &bin, 0), util::stderr(&o))
    };
    let single = "<TextureCoordinate point='0 0 1 0.25 0 1'/>";
    let multi = "<MultiTextureCoordinate><TextureCoordinate point='0 0 1 0.25 0 1'/>\
                 <TextureCoordinate point='9 9 9 9 9 9'/></MultiTextureCoordinate>";
    assert_eq!(vs("false", single).0, vec![1.0, 0.75, 0.0]);
    assert_eq!(vs("false", multi).0, vec![1.0, 0.75, 0.0]);
    assert_eq!(vs("true", single).0, vec![0.0, 0.25, 1.0]);
}

/// NURBS geometry (fixtures/scenes/nurbs.x3d): the rational quarter circle
/// (NurbsCurve, weights 1 √½ 1) tessellated in its 8 segments, every
/// point on the unit circle, from (1, 0, 0) to (0, 1, 0); the bicubic patch
/// 6 × 6 quads (72 triangles, its corners the corner control points), as
/// many as X_ITE draws (its census, when X3DBAKE_XITE is set).
#[test]
fn nurbs_curves_and_patches_are_drawn_as_the_text_tessellates_them() {
    let f = util::root().join("fixtures/scenes/nurbs.x3d");
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("n.glb");
    let o = util::run(&[&f.to_string_lossy(), "-o", &glb.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let meshes: Vec<_> = doc.meshes().collect();
    assert_eq!(meshes.len(), 2);
    let read = |m: &gltf::Mesh| {
        let p = m.primitives().next().unwrap();
        let r = p.reader(|b| Some(&buffers[b.index()]));
        let points: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
        let indices: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
        (p.mode(), points, indices)
    };
    let (mode, curve, indices) = read(&meshes[0]);
    assert_eq!(mode, gltf::mesh::Mode::Lines);
    assert_eq!((curve.len(), indices.len()), (9, 16));
    for p in &curve {
        let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
        assert!((r - 1.0).abs() < 1e-6 && p[2] == 0.0, "{p:?}");
    }
    assert_eq!(curve[0], [1.0, 0.0, 0.0]);
    assert!((curve[8][0]).abs() < 1e-6 && (curve[8][1] - 1.0).abs() < 1e-6);
    let (mode, patch, indices) = read(&meshes[1]);
    assert_eq!(mode, gltf::mesh::Mode::Triangles);
    assert_eq!(indices.len(), 72 * 3);
    for corner in [
        [0.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [0.0, 3.0, 0.0],
        [3.0, 3.0, 0.0],
    ] {
        assert!(patch.contains(&corner), "{corner:?}");
    }
    util::assert_validator_clean(std::slice::from_ref(&glb));
    let Some(xite) = util::tool_dir("X3DBAKE_XITE", "X_ITE's census of NURBS geometry") else {
        return;
    };
    let census = util::xite_census(&xite, &f);
    let shapes = census["shapes"].as_array().unwrap();
    assert_eq!(shapes[0]["primitives"], 8, "{census}");
    assert_eq!(shapes[1]["primitives"], 72, "{census}");
}

/// fixtures/scenes/nurbs_surfaces.x3d: the swept and swung surfaces (as
/// X_ITE draws them: an Extrusion of the tessellated curves), a patch in a
/// NurbsSet (tessellationScale 2) and one mapped by a NurbsTextureCoordinate
/// — triangles and surface area against X_ITE, texture coordinates by hand.
#[test]
fn nurbs_swept_swung_set_and_texture_surfaces_draw_as_x_ite_draws_them() {
    let f = util::root().join("fixtures/scenes/nurbs_surfaces.x3d");
    let mut bake = Bake::load(
        &f.to_string_lossy(),
        std::fs::read(&f).unwrap(),
        None,
        None,
        Limits::default(),
    );
    let rest = Overrides::of_scene(&bake.scene);
    let mut drawn = |def: &str| {
        let id = bake.scene.def(def).expect(def);
        mesh(&bake.scene, &rest, id, &mut bake.diags).expect(def)
    };
    // (The trimmed surface's triangles are cut otherwise than X_ITE's
    // libtess cuts them: only its area compares.)
    let surfaces = [
        ("Tube", 384),
        ("Vase", 80),
        ("Fine", 96),
        ("Mapped", 32),
        ("Trimmed", 0),
    ];
    let meshes: Vec<Mesh> = surfaces.iter().map(|(d, _)| drawn(d)).collect();
    assert_eq!(bake.diags.counts(), (0, 0));
    for ((def, triangles), m) in surfaces.iter().zip(&meshes).take(4) {
        assert_eq!(m.indices.len(), 3 * triangles, "{def}");
    }
    // The texture surface is (2s, 3t) over the square patch (s, t, 0).
    let mapped = &meshes[3];
    for (p, uv) in mapped.positions.iter().zip(&mapped.uvs) {
        assert!(
            uv.distance(Vec2::new(2.0 * p.x, 3.0 * p.y)) < 1e-6,
            "{p} {uv}"
        );
    }
    let o = util::run(&[&f.to_string_lossy(), "-o", "/dev/null"]);
    assert_eq!(
        util::stderr(&o),
        "",
        "no warning (the NurbsSet draws through its Shape)"
    );
    let Some(xite) = util::tool_dir("X3DBAKE_XITE", "X_ITE's NURBS surfaces") else {
        return;
    };
    let tool = util::root().join("tools/xite-geometry.mjs");
    for ((def, triangles), m) in surfaces.iter().zip(&meshes) {
        let args = [tool.as_os_str(), xite.as_os_str(), f.as_os_str()];
        let args: Vec<&std::ffi::OsStr> = args
            .into_iter()
            .chain(["-", def, "0"].map(|a| a.as_ref()))
            .collect();
        let out = util::node(&args, Some(&xite), &[]);
        let theirs: serde_json::Value = serde_json::from_slice(&out).unwrap();
        if *triangles > 0 {
            assert_eq!(theirs["triangles"], *triangles, "{def}");
        }
        let (ours, theirs) = (area(m) as f64, theirs["area"].as_f64().unwrap());
        assert!(
            (ours - theirs).abs() < 1e-5 * theirs,
            "{def}: {ours} against X_ITE's {theirs}"
        );
    }
}

/// A MultiTexture (fixtures/scenes/multitexture.x3d): unit 0 is the base
/// colour through TEXCOORD_0, the ADD unit 2 the emission through
/// TEXCOORD_1, which holds its MultiTextureCoordinate unit (v turned to
/// glTF's), moved by its MultiTextureTransform's unit (scale 2); the
/// MODULATE unit 1 has no slot and is named; no set nothing reads.
#[test]
fn multi_texture_units_map_onto_material_slots() {
    let o = util::run(&[
        "fixtures/scenes/multitexture.x3d",
        "-o",
        "-",
        "--format",
        "glb",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    assert!(
        util::stderr(&o).contains("unit 1 (MODULATE) has no glTF material slot"),
        "{}",
        util::stderr(&o)
    );
    let (json, bin) = util::document_json(&o.stdout);
    let m = &json["materials"][0];
    assert_eq!(m["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"], 0);
    assert_eq!(m["emissiveTexture"]["texCoord"], 1);
    assert_eq!(
        m["emissiveTexture"]["extensions"]["KHR_texture_transform"]["scale"],
        serde_json::json!([2.0, 2.0])
    );
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    assert!(attributes["TEXCOORD_1"].is_u64(), "{attributes}");
    assert!(attributes["TEXCOORD_2"].is_null(), "{attributes}");
    // Unit 2's v (half unit 0's) as glTF's 1 − v, vertex by vertex.
    let (v0, v2) = (first_vs(&json, &bin, 0), first_vs(&json, &bin, 1));
    assert_eq!(v0.len(), 4);
    for (a, b) in v0.iter().zip(&v2) {
        assert_eq!(*b, 1.0 - (1.0 - a) / 2.0, "{v0:?} {v2:?}");
    }
}

/// A small file can ask for billions of points: a NURBS tessellation of
/// 100 000 × 100 000, a swept surface of two such curves, an Extrusion of
/// 3 000 spine × 3 000 cross-section points (60 KB). Each is refused with
/// a warning naming it, nothing allocated for it (the swept surface's
/// 120 GB ended the run before), and the rest of the scene is baked.
#[test]
fn generated_geometry_past_four_million_points_is_refused_and_said() {
    let line = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let scene = format!(
        r#"<X3D profile="Full" version="4.0"><Scene>
<Shape><NurbsPatchSurface DEF="Patch" uDimension="2" vDimension="2" uOrder="2" vOrder="2"
 uTessellation="100000" vTessellation="100000">
 <Coordinate containerField="controlPoint" point="0 0 0, 1 0 0, 0 1 0, 1 1 0"/></NurbsPatchSurface></Shape>
<Shape><NurbsSweptSurface DEF="Swept">
 <NurbsCurve2D containerField="crossSectionCurve" order="2" tessellation="100000" controlPoint="0 0, 1 0, 1 1"/>
 <NurbsCurve containerField="trajectoryCurve" order="2" tessellation="100000">
  <Coordinate containerField="controlPoint" point="0 0 0, 0 1 0, 0 2 0"/></NurbsCurve>
</NurbsSweptSurface></Shape>
<Shape><Extrusion DEF="Long" spine="{}" crossSection="{}"/></Shape>
<Shape><Box DEF="Kept"/></Shape>
</Scene></X3D>"#,
        line(3000, &|i| format!("0 {i} 0")),
        line(3000, &|i| format!(
            "{} {}",
            (i as f64).cos(),
            (i as f64).sin()
        ))
    );
    let (_dir, path) = util::scene_file("big.x3d", &scene);
    let o = util::run(&[&path, "-o", "-", "--format", "glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", util::stderr(&o));
    let err = util::stderr(&o);
    for def in ["Patch", "Swept", "Long"] {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!("`{def}`"))
                    && l.contains("more than 4000000: not drawn")),
            "{def}: {err}"
        );
    }
    let (json, _) = util::document_json(&o.stdout);
    assert_eq!(json["meshes"].as_array().unwrap().len(), 1, "the Box");
}

/// Random trimming contours over a patch (self-crossing, outside the
/// surface, degenerate, with holes; 200 scenes): never a panic, never
/// more area than the untrimmed surface, and a contour around the whole
/// square keeps all of it.
#[test]
fn random_trimming_contours_cut_within_the_surface() {
    let mut r = util::Rng(0x5eed_7217);
    let patch = |contours: &str| {
        format!(
            r#"<X3D profile="Full" version="4.0"><Scene><Shape>
<NurbsTrimmedSurface DEF="G" uDimension="3" vDimension="3" uTessellation="12" vTessellation="9">
 <Coordinate containerField="controlPoint" point="0 0 0, 1 0 0.5, 2 0 0, 0 1 0.5, 1 1 2, 2 1 0.5, 0 2 0, 1 2 0.5, 2 2 0"/>
 {contours}
</NurbsTrimmedSurface></Shape></Scene></X3D>"#
        )
    };
    let contour = |points: &[(f64, f64)]| {
        let list: Vec<String> = points.iter().map(|(u, v)| format!("{u} {v}")).collect();
        format!(
            r#"<Contour2D containerField="trimmingContour"><ContourPolyline2D controlPoint="{}"/></Contour2D>"#,
            list.join(", ")
        )
    };
    let area_of = |m: &Mesh| area(m);
    let area = |text: &str| {
        let mut bake = Bake::load(
            "t.x3d",
            text.as_bytes().to_vec(),
            None,
            None,
            Limits::default(),
        );
        let id = bake.scene.def("G").unwrap();
        mesh(&bake.scene, &Overrides::default(), id, &mut bake.diags).map_or(0.0, |m| area_of(&m))
    };
    let whole = area(&patch(""));
    let all = area(&patch(&contour(&[
        (-0.5, -0.5),
        (1.5, -0.5),
        (1.5, 1.5),
        (-0.5, 1.5),
    ])));
    assert!((all - whole).abs() < 1e-4 * whole, "{all} of {whole}");
    for _ in 0..200 {
        let contours: Vec<String> = (0..1 + (r.unit() * 3.0) as usize)
            .map(|_| {
                let n = 3 + (r.unit() * 12.0) as usize;
                let points: Vec<(f64, f64)> = (0..n)
                    .map(|_| (r.range(-0.3, 1.3), r.range(-0.3, 1.3)))
                    .collect();
                contour(&points)
            })
            .collect();
        let cut = area(&patch(&contours.join("\n")));
        assert!(
            cut <= whole * (1.0 + 1e-4),
            "{cut} of {whole}: {contours:?}"
        );
    }
}
