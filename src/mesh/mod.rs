//! X3D geometry as vertex and index lists: polygons triangulated, normals
//! made where the file gives none, primitives tessellated.

use crate::diag::Diagnostics;
use crate::scene::{NodeId, NodeType, Scene};
use glam::{Vec2, Vec3};

mod elevation;
mod extrusion;
mod flat;
mod generated;
mod geo;
mod normals;
mod nurbs;
mod polygons;
mod primitives;
mod sets;
mod text;
mod trim;

pub use normals::{MAX_FACES_AROUND, MadeNormals};
pub(crate) use nurbs::surface as nurbs_surface;
use polygons::{EAR_TESTS_PER_CORNER, faces, indexed_face_set, split_quads};
use primitives::{boxed, cone, cylinder, sphere};
use sets::{fan_triangles, line_set, point_set, runs, strip_triangles, strips, triangle_set};

/// How the indices are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    /// Triangle lists.
    Triangles,
    /// Line segments.
    Lines,
    /// Points.
    Points,
}

/// One drawable: a vertex per corner (no sharing between faces, so that
/// per-face attributes stay exact), and indices into them.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Vertex normals (empty for lines and points without normals).
    pub normals: Vec<Vec3>,
    /// Vertex colours, RGBA (empty when the geometry has none).
    pub colors: Vec<[f32; 4]>,
    /// Texture coordinates, glTF's v down (empty when none).
    pub uvs: Vec<Vec2>,
    /// Vertex indices.
    pub indices: Vec<u32>,
    /// How the indices are drawn (triangles when `None`).
    pub primitive: Option<Primitive>,
    /// Both sides are drawn (X3D solid FALSE).
    pub double_sided: bool,
    /// For each vertex, the point of the Coordinate node it came from (empty
    /// for primitives), so that animated points can move it.
    pub coord_index: Vec<u32>,
    /// The Coordinate node, when there is one.
    pub coord: Option<NodeId>,
    /// For each vertex, the vector of the Normal node its normal came from
    /// (empty when the geometry has no Normal node), so that animated
    /// vectors can turn it.
    pub normal_index: Vec<u32>,
    /// The Normal node, when there is one.
    pub normal: Option<NodeId>,
    /// For each vertex, the point of the TextureCoordinate node its uv came
    /// from (empty without texture coordinates), for animated ones.
    pub tex_index: Vec<u32>,
    /// The TextureCoordinate node, when the mesh has uvs from one.
    pub tex_coord: Option<NodeId>,
    /// The texture coordinates of a MultiTextureCoordinate's units after
    /// the first (X3D's, v up), read through the same indices.
    pub unit_uvs: Vec<Vec<Vec2>>,
    /// How the normals were made from the points, when the file gives none:
    /// moved points get theirs made again from it.
    pub made_normals: Option<MadeNormals>,
    /// Concave faces drawn as fans because ear clipping them would take
    /// too long.
    fanned: usize,
    /// What the geometry's generator left out or drew otherwise, each said
    /// in a warning naming the node.
    notes: Vec<String>,
}

/// How many points a generated surface may have (an Extrusion's spine
/// times its cross-section, a NURBS surface's tessellation): past it the
/// node is not drawn, and said. A file of a few megabytes can ask for
/// billions.
pub(super) const MAX_GENERATED_POINTS: usize = 4_000_000;

/// Values that replace what the file gives for fields of nodes: an animated
/// state to draw the geometry in (a Coordinate's points, an Extrusion's
/// spine, an ElevationGrid's heights).
#[derive(Clone, Debug, Default)]
pub struct Overrides(crate::hash::HashMap<NodeId, Vec<(String, Vec<f32>)>>);

impl Overrides {
    /// What the scene sets on geometry nodes from elsewhere, found in one
    /// pass: the `tessellationScale` of the NurbsSet that holds a NURBS
    /// surface (the pseudo-field `tessellationScale` of the surface).
    pub fn of_scene(scene: &Scene) -> Overrides {
        let mut o = Overrides::default();
        for id in (0..scene.nodes.len() as u32).map(NodeId) {
            if scene.node_type(id) == Some(NodeType::NurbsSet) {
                let scale = scene.number(id, "tessellationScale").max(0.0) as f32;
                for &g in scene.nodes_in(id, "geometry") {
                    o.set(g, "tessellationScale", vec![scale]);
                }
            }
        }
        o
    }

    /// Replaces a field's values.
    pub fn set(&mut self, id: NodeId, field: &str, values: Vec<f32>) {
        let fields = self.0.entry(id).or_default();
        match fields.iter_mut().find(|(f, _)| f == field) {
            Some((_, v)) => *v = values,
            None => fields.push((field.to_string(), values)),
        }
    }

    /// The values that replace a field's, if any.
    pub fn get(&self, id: NodeId, field: &str) -> Option<&[f32]> {
        let fields = self.0.get(&id)?;
        fields
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, v)| v.as_slice())
    }

    /// A field's single-precision numbers: replaced, or as the scene has them.
    pub fn floats<'a>(&'a self, scene: &'a Scene, id: NodeId, field: &str) -> &'a [f32] {
        self.get(id, field)
            .unwrap_or_else(|| scene.floats(id, field))
    }
}

impl Mesh {
    fn new(primitive: Primitive) -> Mesh {
        Mesh {
            primitive: Some(primitive),
            ..Mesh::default()
        }
    }

    /// How the indices are drawn.
    pub fn primitive(&self) -> Primitive {
        self.primitive.unwrap_or(Primitive::Triangles)
    }

    /// A test of other triangulations of this mesh's faces over the same
    /// vertices (the ones the mesh had in other shapes): whether one draws
    /// the same surface, no triangle of it turned over against the surface
    /// this mesh's own triangles make around its corners. A concave face
    /// triangulated for one outline stays valid for another as long as
    /// none of its triangles flips (their signed areas then sum to the
    /// face's, each covering its part once). The surface around the
    /// corners is worked out once, for every triangulation tested.
    pub fn triangulation_test(&self) -> impl Fn(&[u32]) -> bool + '_ {
        let p = &self.positions;
        let normal = move |t: &[u32]| -> Option<Vec3> {
            let [a, b, c] = [0, 1, 2].map(|k| p.get(t[k] as usize).copied());
            let (a, b, c) = (a?, b?, c?);
            Some((b - a).cross(c - a))
        };
        // Around each corner, the surface as this mesh's own triangles
        // turn it (area-weighted); none for lines, points or a triangle
        // off the vertices.
        let around = (self.primitive() == Primitive::Triangles)
            .then(|| {
                let mut around = vec![Vec3::ZERO; p.len()];
                for t in self.indices.chunks_exact(3) {
                    let n = normal(t)?;
                    for &i in t {
                        around[i as usize] += n;
                    }
                }
                Some(around)
            })
            .flatten();
        move |indices: &[u32]| {
            let Some(around) = &around else { return false };
            indices.len() == self.indices.len()
                && indices.chunks_exact(3).all(|t| {
                    let Some(n) = normal(t) else { return false };
                    let side: Vec3 = t.iter().map(|&i| around[i as usize]).sum();
                    // Degenerate triangles (a pinched end) cover nothing
                    // either way.
                    n.dot(side) >= -1e-6 * n.length() * side.length()
                })
        }
    }

    /// Nothing drawn, and why (said in a warning).
    fn refused(primitive: Primitive, note: String) -> Mesh {
        Mesh {
            notes: vec![note],
            ..Mesh::new(primitive)
        }
    }

    fn make_normals(&mut self, made: MadeNormals) {
        self.normals = made.normals(&self.positions, &self.coord_index);
        self.made_normals = Some(made);
    }
}

fn vec3s(v: &[f32]) -> Vec<Vec3> {
    v.chunks_exact(3).map(Vec3::from_slice).collect()
}

/// Points of a Coordinate (or CoordinateDouble, or GeoCoordinate) node in
/// a field.
fn points(scene: &Scene, rest: &Overrides, id: NodeId, field: &str) -> Vec<Vec3> {
    let Some(c) = scene.child(id, field) else {
        return Vec::new();
    };
    if scene.node_type(c) == Some(NodeType::GeoCoordinate) {
        return geo::geo_points(scene, rest, c);
    }
    if let Some(v) = rest.get(c, "point") {
        return vec3s(v);
    }
    match scene.value(c, "point") {
        Some(v) if !v.doubles().is_empty() => v
            .doubles()
            .chunks_exact(3)
            .map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32))
            .collect(),
        Some(v) => vec3s(v.floats()),
        None => Vec::new(),
    }
}

/// Colours of a Color or ColorRGBA node, as RGBA.
fn colors(scene: &Scene, id: NodeId) -> Vec<[f32; 4]> {
    let Some(c) = scene.child(id, "color") else {
        return Vec::new();
    };
    let Some(v) = scene.value(c, "color") else {
        return Vec::new();
    };
    let n = v.ty.components();
    v.floats()
        .chunks_exact(n)
        .map(|c| [c[0], c[1], c[2], if n == 4 { c[3] } else { 1.0 }])
        .collect()
}

/// The texture coordinates a geometry's textures read: its texCoord, or
/// the first unit of its MultiTextureCoordinate (as the first texture of
/// a MultiTexture is the one written).
pub fn tex_coord_node(scene: &Scene, id: NodeId) -> Option<NodeId> {
    let t = scene.child(id, "texCoord")?;
    if scene.node_type(t) == Some(NodeType::MultiTextureCoordinate) {
        return scene.nodes_in(t, "texCoord").first().copied();
    }
    Some(t)
}

fn uvs(scene: &Scene, rest: &Overrides, id: NodeId) -> Vec<Vec2> {
    let Some(t) = tex_coord_node(scene, id) else {
        return Vec::new();
    };
    let points = rest.floats(scene, t, "point");
    points.chunks_exact(2).map(Vec2::from_slice).collect()
}

/// The normals a geometry node's Normal node gives (none without one).
fn given_normals(scene: &Scene, rest: &Overrides, id: NodeId) -> Vec<Vec3> {
    scene
        .child(id, "normal")
        .map_or_else(Vec::new, |n| vec3s(rest.floats(scene, n, "vector")))
}

/// Fields of a geometry node whose values x3dbake draws the node from
/// (the node's own shape, not a Coordinate's points): animated, the node is
/// drawn again at each sample and the differences become morph targets.
pub fn reshapes(ty: NodeType, field: &str) -> bool {
    use NodeType::*;
    matches!(
        (ty, field),
        (
            Extrusion,
            "spine" | "crossSection" | "scale" | "orientation"
        ) | (ElevationGrid | GeoElevationGrid, "height")
            | (Rectangle2D, "size")
            | (Circle2D, "radius")
            | (Arc2D | ArcClose2D, "radius" | "startAngle" | "endAngle")
            | (Disk2D, "innerRadius" | "outerRadius")
            | (Polyline2D, "lineSegments")
            | (Polypoint2D, "point")
            | (TriangleSet2D, "vertices")
    )
}

/// The mesh of a geometry node, or `None` for types x3dbake does not draw
/// (with a warning) and for geometry with nothing to draw.
pub fn mesh(scene: &Scene, rest: &Overrides, id: NodeId, diags: &mut Diagnostics) -> Option<Mesh> {
    let ty = scene.node_type(id);
    let solid = scene.value(id, "solid").is_none_or(|v| v.as_bool());
    let mut m = match ty {
        Some(NodeType::IndexedFaceSet) => indexed_face_set(scene, rest, id),
        Some(NodeType::IndexedTriangleSet) => {
            triangle_set(scene, rest, id, Some(scene.ints(id, "index")))
        }
        Some(NodeType::TriangleSet) => triangle_set(scene, rest, id, None),
        Some(NodeType::IndexedQuadSet) => {
            let quads = split_quads(scene.ints(id, "index").iter().copied());
            triangle_set(scene, rest, id, Some(&quads))
        }
        Some(NodeType::QuadSet) => {
            let count = points(scene, rest, id, "coord").len() as i32;
            triangle_set(scene, rest, id, Some(&split_quads(0..count)))
        }
        Some(NodeType::TriangleFanSet) => {
            let n = points(scene, rest, id, "coord").len();
            let fans = runs(scene.ints(id, "fanCount"), n);
            triangle_set(
                scene,
                rest,
                id,
                Some(&fan_triangles(fans.iter().map(Vec::as_slice))),
            )
        }
        Some(NodeType::TriangleStripSet) => {
            let n = points(scene, rest, id, "coord").len();
            let strips = runs(scene.ints(id, "stripCount"), n);
            let index = strip_triangles(strips.iter().map(Vec::as_slice));
            triangle_set(scene, rest, id, Some(&index))
        }
        Some(NodeType::IndexedTriangleFanSet) => {
            let index = fan_triangles(faces(scene.ints(id, "index")));
            triangle_set(scene, rest, id, Some(&index))
        }
        Some(NodeType::IndexedTriangleStripSet) => {
            let index = strip_triangles(faces(scene.ints(id, "index")));
            triangle_set(scene, rest, id, Some(&index))
        }
        Some(NodeType::IndexedLineSet) => line_set(scene, rest, id),
        Some(NodeType::LineSet) => strips(scene, rest, id),
        Some(NodeType::PointSet) => point_set(scene, rest, id),
        Some(NodeType::Box) => {
            let s = scene.floats(id, "size");
            boxed(Vec3::from_slice(s) / 2.0)
        }
        Some(NodeType::Sphere) => sphere(scene.floats(id, "radius")[0]),
        Some(NodeType::Cylinder) => cylinder(scene, id),
        Some(NodeType::Cone) => cone(scene, id),
        Some(NodeType::ElevationGrid) => elevation::elevation_grid(scene, rest, id),
        Some(NodeType::GeoElevationGrid) => geo::geo_elevation_grid(scene, rest, id),
        Some(NodeType::Extrusion) => extrusion::extrusion(scene, rest, id),
        Some(NodeType::Rectangle2D) => flat::rectangle(scene, rest, id),
        Some(NodeType::Circle2D) => flat::circle(scene, rest, id),
        Some(NodeType::Arc2D) => flat::arc2d(scene, rest, id),
        Some(NodeType::ArcClose2D) => flat::arc_close(scene, rest, id),
        Some(NodeType::Disk2D) => flat::disk(scene, rest, id),
        Some(NodeType::Polyline2D) => flat::polyline2d(scene, rest, id),
        Some(NodeType::Polypoint2D) => flat::polypoint2d(scene, rest, id),
        Some(NodeType::TriangleSet2D) => flat::triangle_set2d(scene, rest, id),
        Some(NodeType::Text) => text::text(scene, id),
        Some(NodeType::NurbsCurve) => nurbs::curve(scene, id),
        Some(NodeType::NurbsPatchSurface | NodeType::NurbsTrimmedSurface) => {
            nurbs::patch(scene, rest, id)
        }
        Some(NodeType::NurbsSweptSurface | NodeType::NurbsSwungSurface) => nurbs::swept(scene, id),
        _ => {
            diags.warning(
                format!("`{}` geometry is not drawn yet", scene.node(id).type_name),
                Some(scene.node(id).span),
            );
            return None;
        }
    };
    if let Some(crowded) = m
        .made_normals
        .as_ref()
        .map(|n| n.crowded)
        .filter(|&n| n > 0)
    {
        diags.warning(
            format!(
                "points of `{}` shared by more than {MAX_FACES_AROUND} faces have flat normals \
                 at their corners ({crowded} of them; creaseAngle compares each corner with every \
                 face around its point)",
                scene.display_name(id)
            ),
            Some(scene.node(id).span),
        );
    }
    for note in std::mem::take(&mut m.notes) {
        diags.warning(
            format!("`{}`: {note}", scene.display_name(id)),
            Some(scene.node(id).span),
        );
    }
    if m.fanned > 0 {
        diags.warning(
            format!(
                "{} concave faces of `{}` need more than {EAR_TESTS_PER_CORNER} tests a corner \
                 to triangulate: drawn as fans",
                m.fanned,
                scene.display_name(id)
            ),
            Some(scene.node(id).span),
        );
    }
    m.double_sided = !solid;
    if !m.coord_index.is_empty() {
        m.coord = scene.child(id, "coord");
    }
    if !m.normal_index.is_empty() {
        m.normal = scene.child(id, "normal");
    }
    if !m.tex_index.is_empty() {
        m.tex_coord = tex_coord_node(scene, id);
    }
    if let Some(multi) = scene.child(id, "texCoord")
        && scene.node_type(multi) == Some(NodeType::MultiTextureCoordinate)
        && !m.tex_index.is_empty()
    {
        for &unit in scene.nodes_in(multi, "texCoord").iter().skip(1) {
            let points: Vec<Vec2> = rest
                .floats(scene, unit, "point")
                .chunks_exact(2)
                .map(Vec2::from_slice)
                .collect();
            let uvs = m
                .tex_index
                .iter()
                .map(|&i| points.get(i as usize).copied().unwrap_or_default())
                .collect();
            m.unit_uvs.push(uvs);
        }
    }
    if m.indices.is_empty() { None } else { Some(m) }
}

#[cfg(test)]
mod tests {
    use super::normals::newell;
    use super::polygons::EarClipper;
    use super::*;

    fn area_normal(m: &Mesh) -> Vec3 {
        m.indices
            .chunks_exact(3)
            .map(|t| {
                let p = |i: u32| m.positions[i as usize];
                (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]))
            })
            .sum()
    }

    /// A quadrilateral in the z = 0 plane cut along the diagonal `a`–`a + 2`.
    fn quad(p: [(f32, f32); 4], a: u32) -> Mesh {
        let i = |k: u32| (a + k) % 4;
        Mesh {
            positions: p.iter().map(|&(x, y)| Vec3::new(x, y, 0.0)).collect(),
            indices: vec![i(0), i(1), i(2), i(0), i(2), i(3)],
            ..Mesh::new(Primitive::Triangles)
        }
    }

    #[test]
    fn a_cut_holds_until_a_triangle_turns_over() {
        // A dart notched at corner 3 is cut only along 1–3; notched at
        // corner 0, only along 0–2. A square takes either.
        let notched_3 = [(0.0, 0.0), (2.0, 1.0), (0.0, 2.0), (0.5, 1.0)];
        let notched_0 = [(0.0, 0.5), (1.0, 0.0), (0.0, 2.0), (-1.0, 0.0)];
        let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let along_13 = quad(notched_3, 1).indices;
        let along_02 = quad(notched_0, 0).indices;
        assert!(quad(notched_3, 1).triangulation_test()(&along_13));
        assert!(!quad(notched_0, 0).triangulation_test()(&along_13));
        assert!(!quad(notched_3, 1).triangulation_test()(&along_02));
        assert!(quad(square, 0).triangulation_test()(&along_13));
        assert!(quad(square, 1).triangulation_test()(&along_02));
        // Another count of triangles is another mesh.
        assert!(!quad(square, 0).triangulation_test()(&along_02[..3]));
    }

    /// Ear clips a polygon in the z = 0 plane and checks that the
    /// triangles are n - 2, all counter-clockwise, and cover its area.
    fn check_ear_clipping(poly: &[(f32, f32)], area: f32) {
        let l: Vec<Vec3> = poly.iter().map(|&(x, y)| Vec3::new(x, y, 0.0)).collect();
        let tris = EarClipper::default()
            .clip(&l, newell(&l))
            .expect("within the budget");
        assert_eq!(tris.len(), l.len() - 2);
        let twice = |t: &[usize; 3]| (l[t[1]] - l[t[0]]).cross(l[t[2]] - l[t[0]]).z;
        let sum: f32 = tris.iter().map(|t| twice(t) / 2.0).sum();
        assert!((sum - area).abs() < 1e-4 * area, "{sum} for {area}");
        assert!(tris.iter().all(|t| twice(t) > 0.0));
    }

    /// A comb, counter-clockwise: `teeth` spikes 10 high on a bar 1 deep;
    /// a reflex corner between each two spikes.
    fn comb(teeth: usize) -> Vec<(f32, f32)> {
        let mut p: Vec<(f32, f32)> = (0..teeth)
            .flat_map(|i| [(2.0 * i as f32, 0.0), (2.0 * i as f32 + 1.0, 10.0)])
            .collect();
        let end = 2.0 * teeth as f32;
        p.extend([(end, 0.0), (end, -1.0), (0.0, -1.0)]);
        p.reverse();
        p
    }

    #[test]
    fn ear_clipping_covers_concave_polygons() {
        check_ear_clipping(
            &[(0., 0.), (2., 0.), (2., 1.), (1., 1.), (1., 2.), (0., 2.)],
            3.0,
        );
        // Spikes of 10 x 2 / 2 on a 1-deep bar.
        check_ear_clipping(&comb(300), 300.0 * 10.0 + 600.0);
    }

    #[test]
    fn ear_clipping_a_circle_of_20_000_corners_stays_in_budget() {
        let n = 20_000;
        let circle: Vec<(f32, f32)> = (0..n)
            .map(|i| crate::math::sin_cos(std::f32::consts::TAU * i as f32 / n as f32))
            .map(|(s, c)| (c, s))
            .collect();
        let area = n as f64 / 2.0 * crate::math::sin(std::f64::consts::TAU / n as f64);
        check_ear_clipping(&circle, area as f32);
    }

    #[test]
    fn ear_clipping_gives_up_within_its_budget() {
        // Once the spikes are cut, 20 000 corners in a line, reflex to the
        // test (collinear), and every ear along them spans them all.
        let l: Vec<Vec3> = comb(20_000)
            .into_iter()
            .map(|(x, y)| Vec3::new(x, y, 0.0))
            .collect();
        assert!(EarClipper::default().clip(&l, newell(&l)).is_none());
    }

    /// A closed fan of `n` triangles around point 0 of a cone (apex up):
    /// each triangle's corners and points, and its face normals.
    fn cone_fan(n: usize) -> (Vec<u32>, Vec<u32>, Vec<Vec3>) {
        let rim = |i: usize| {
            let (s, c) = crate::math::sin_cos(std::f32::consts::TAU * (i % n) as f32 / n as f32);
            Vec3::new(c, s, 0.0)
        };
        let (mut starts, mut index, mut corners) = (vec![0], Vec::new(), Vec::new());
        for i in 0..n {
            index.extend([0, 1 + i as u32, 1 + ((i + 1) % n) as u32]);
            corners.extend([Vec3::Z, rim(i), rim(i + 1)]);
            starts.push(index.len() as u32);
        }
        (starts, index, corners)
    }

    #[test]
    fn smooth_normals_compare_at_most_so_many_faces_around_a_point() {
        for (n, crowded) in [(MAX_FACES_AROUND, false), (MAX_FACES_AROUND + 1, true)] {
            let (starts, index, corners) = cone_fan(n);
            let made = MadeNormals::new(starts, true, 3.0, &index);
            assert_eq!(made.crowded, usize::from(crowded));
            let normals = made.normals(&corners, &index);
            // At the apex: the average of all the faces (straight up), or
            // each face's own when crowded. A rim point has two faces.
            let face = |t: usize| newell(&corners[3 * t..3 * t + 3]).normalize();
            for t in [0, n / 3] {
                let apex = normals[3 * t];
                let want = if crowded { face(t) } else { Vec3::Z };
                assert!((apex - want).length() < 1e-4, "{n}: {apex} against {want}");
                let rim = normals[3 * t + 1];
                let two = (face(t) + face((t + n - 1) % n)).normalize();
                assert!((rim - two).length() < 1e-4, "{n}: {rim} against {two}");
            }
        }
    }

    #[test]
    fn closed_primitives_face_outwards() {
        for m in [boxed(Vec3::ONE), sphere(1.0)] {
            // Every triangle faces away from the centre.
            for t in m.indices.chunks_exact(3) {
                let p = |i: u32| m.positions[i as usize];
                let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
                let c = (p(t[0]) + p(t[1]) + p(t[2])) / 3.0;
                assert!(n.dot(c) > 0.0, "{t:?}");
            }
            assert!(area_normal(&m).length() < 1e-4);
            assert!(m.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-5));
        }
    }
}
