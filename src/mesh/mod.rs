//! X3D geometry as vertex and index lists: polygons triangulated, normals
//! made where the file gives none, primitives tessellated.

use crate::diag::Diagnostics;
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};
use std::f32::consts::{PI, TAU};

/// How the indices are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    Triangles,
    Lines,
    Points,
}

/// One drawable: a vertex per corner (no sharing between faces, so that
/// per-face attributes stay exact), and indices into them.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub colors: Vec<[f32; 4]>,
    pub uvs: Vec<Vec2>,
    pub indices: Vec<u32>,
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
    /// How the normals were made from the points, when the file gives none:
    /// moved points get theirs made again from it.
    pub made_normals: Option<MadeNormals>,
    /// Concave faces drawn as fans because ear clipping them would take
    /// too long.
    fanned: usize,
}

/// Normals made from a mesh's points: each face's normal (Newell's), and
/// each corner the average of the faces around its point within the crease
/// angle (its own face's alone without one). Kept with the mesh so that
/// moved points have their normals made without rebuilding the mesh.
#[derive(Clone, Debug, Default)]
pub struct MadeNormals {
    /// The corners of face f are `face_start[f]..face_start[f + 1]`.
    face_start: Vec<u32>,
    /// Clockwise faces (X3D ccw FALSE) turn their normals around.
    flip: bool,
    /// The cosine of the crease angle, or `None` for a normal per face.
    crease_cos: Option<f32>,
    /// The faces around each corner's point, without repeats, in corner
    /// order: those of point c are `around[around_start[c]..around_start[c + 1]]`.
    /// None for a point of more than [`MAX_FACES_AROUND`] faces.
    around_start: Vec<u32>,
    around: Vec<u32>,
    /// Points left flat for having more than [`MAX_FACES_AROUND`] faces.
    pub crowded: usize,
}

/// At most this many faces around a point are compared for its corners'
/// smooth normals (each corner with each face: the work is the square of
/// the count). A point shared by more is flat at each corner, with a
/// warning: a modeller's pole has tens, and the centre of a fan of 100 000
/// triangles took 27 s.
pub const MAX_FACES_AROUND: usize = 1024;

impl MadeNormals {
    /// `face_start` as above; `coord_index` gives each corner's point.
    fn new(face_start: Vec<u32>, ccw: bool, crease: f32, coord_index: &[u32]) -> MadeNormals {
        let mut made = MadeNormals {
            face_start,
            flip: !ccw,
            crease_cos: (crease > 0.0).then(|| crease.cos()),
            ..MadeNormals::default()
        };
        if made.crease_cos.is_some() {
            let points = coord_index
                .iter()
                .map(|&c| c as usize + 1)
                .max()
                .unwrap_or(0);
            let mut faces_at: Vec<Vec<u32>> = vec![Vec::new(); points];
            for (f, w) in made.face_start.windows(2).enumerate() {
                for &c in &coord_index[w[0] as usize..w[1] as usize] {
                    // Faces come in order: a repeat is this face again.
                    let at = &mut faces_at[c as usize];
                    if at.last() != Some(&(f as u32)) {
                        at.push(f as u32);
                    }
                }
            }
            made.around_start.push(0);
            for at in faces_at {
                // An empty list: the corner keeps its own face's normal.
                if at.len() > MAX_FACES_AROUND {
                    made.crowded += 1;
                } else {
                    made.around.extend(at);
                }
                made.around_start.push(made.around.len() as u32);
            }
        }
        made
    }

    /// The unit normal of each corner when the corners are at `corners`
    /// and on the points `coord_index` says.
    pub fn normals(&self, corners: &[Vec3], coord_index: &[u32]) -> Vec<Vec3> {
        let sign = if self.flip { -1.0 } else { 1.0 };
        let faces: Vec<Vec3> = self
            .face_start
            .windows(2)
            .map(|w| {
                let n = newell(&corners[w[0] as usize..w[1] as usize]) * sign;
                n.try_normalize().unwrap_or(Vec3::Y)
            })
            .collect();
        let mut out = Vec::with_capacity(corners.len());
        for (f, w) in self.face_start.windows(2).enumerate() {
            let own = faces[f];
            for &c in &coord_index[w[0] as usize..w[1] as usize] {
                out.push(match self.crease_cos {
                    None => own,
                    Some(cos) => {
                        let c = c as usize;
                        let around = &self.around
                            [self.around_start[c] as usize..self.around_start[c + 1] as usize];
                        // None around a crowded point: a zero sum, and the
                        // corner keeps its own face's normal.
                        let sum: Vec3 = around
                            .iter()
                            .map(|&g| faces[g as usize])
                            .filter(|n| n.dot(own) >= cos)
                            .sum();
                        sum.try_normalize().unwrap_or(own)
                    }
                });
            }
        }
        out
    }
}

/// Values that replace what the file gives for a Coordinate's or a
/// TextureCoordinate's `point` or a Normal's `vector`, by node: an animated
/// state to draw the geometry in.
pub type Overrides = crate::hash::HashMap<NodeId, Vec<f32>>;

impl Mesh {
    fn new(primitive: Primitive) -> Mesh {
        Mesh {
            primitive: Some(primitive),
            ..Mesh::default()
        }
    }

    pub fn primitive(&self) -> Primitive {
        self.primitive.unwrap_or(Primitive::Triangles)
    }

    fn make_normals(&mut self, made: MadeNormals) {
        self.normals = made.normals(&self.positions, &self.coord_index);
        self.made_normals = Some(made);
    }
}

fn vec3s(v: &[f32]) -> Vec<Vec3> {
    v.chunks_exact(3).map(Vec3::from_slice).collect()
}

/// Points of a Coordinate (or CoordinateDouble) node in a field.
fn points(scene: &Scene, rest: &Overrides, id: NodeId, field: &str) -> Vec<Vec3> {
    let Some(c) = scene.child(id, field) else {
        return Vec::new();
    };
    match scene.value(c, "point") {
        _ if rest.contains_key(&c) => vec3s(&rest[&c]),
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

fn uvs(scene: &Scene, rest: &Overrides, id: NodeId) -> Vec<Vec2> {
    let Some(t) = scene.child(id, "texCoord") else {
        return Vec::new();
    };
    let points = rest.get(&t).map_or(scene.floats(t, "point"), Vec::as_slice);
    points.chunks_exact(2).map(Vec2::from_slice).collect()
}

fn normals(scene: &Scene, rest: &Overrides, id: NodeId) -> Vec<Vec3> {
    match scene.child(id, "normal") {
        Some(n) if rest.contains_key(&n) => vec3s(&rest[&n]),
        Some(n) => vec3s(scene.floats(n, "vector")),
        None => Vec::new(),
    }
}

/// The mesh of a geometry node, or `None` for types x3dbake does not draw
/// (with a warning) and for geometry with nothing to draw.
pub fn mesh(scene: &Scene, rest: &Overrides, id: NodeId, diags: &mut Diagnostics) -> Option<Mesh> {
    let ty = scene.known(id).map(|d| d.name.as_str());
    let solid = scene.value(id, "solid").is_none_or(|v| v.as_bool());
    let mut m = match ty {
        Some("IndexedFaceSet") => indexed_face_set(scene, rest, id),
        Some("IndexedTriangleSet") => triangle_set(scene, rest, id, Some(scene.ints(id, "index"))),
        Some("TriangleSet") => triangle_set(scene, rest, id, None),
        Some("IndexedQuadSet") => {
            let quads = split_quads(scene.ints(id, "index").iter().copied());
            triangle_set(scene, rest, id, Some(&quads))
        }
        Some("QuadSet") => {
            let count = points(scene, rest, id, "coord").len() as i32;
            triangle_set(scene, rest, id, Some(&split_quads(0..count)))
        }
        Some("IndexedLineSet") => line_set(scene, rest, id),
        Some("LineSet") => strips(scene, rest, id),
        Some("PointSet") => point_set(scene, rest, id),
        Some("Box") => {
            let s = scene.floats(id, "size");
            boxed(Vec3::from_slice(s) / 2.0)
        }
        Some("Sphere") => sphere(scene.floats(id, "radius")[0]),
        Some("Cylinder") => cylinder(scene, id),
        Some("Cone") => cone(scene, id),
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
        m.tex_coord = scene.child(id, "texCoord");
    }
    if m.indices.is_empty() { None } else { Some(m) }
}

/// Each quad a, b, c, d of an index list as the triangles a, b, c and
/// a, c, d (an incomplete last quad is left out, as X3D says).
fn split_quads(index: impl Iterator<Item = i32>) -> Vec<i32> {
    let index: Vec<i32> = index.collect();
    index
        .chunks_exact(4)
        .flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]])
        .collect()
}

/// Splits an index list at −1 (and at its end).
fn faces(index: &[i32]) -> impl Iterator<Item = &[i32]> {
    index.split(|&i| i < 0).filter(|f| !f.is_empty())
}

fn indexed_face_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let coord_index = scene.ints(id, "coordIndex");
    let ccw = scene.value(id, "ccw").is_none_or(|v| v.as_bool());
    let convex = scene.value(id, "convex").is_none_or(|v| v.as_bool());
    let crease = scene
        .floats(id, "creaseAngle")
        .first()
        .copied()
        .unwrap_or(0.0);
    let given_normals = normals(scene, rest, id);
    let has_normal_node = scene.child(id, "normal").is_some();
    let normal_per_vertex = scene.flag(id, "normalPerVertex");
    let normal_index = scene.ints(id, "normalIndex");
    let cols = colors(scene, id);
    let color_per_vertex = scene.flag(id, "colorPerVertex");
    let color_index = scene.ints(id, "colorIndex");
    let tex = uvs(scene, rest, id);
    let tex_index = scene.ints(id, "texCoordIndex");
    let mut m = Mesh::new(Primitive::Triangles);
    let mut clipper = EarClipper::default();
    // The first corner of each face drawn, and one past the last.
    let mut face_start = vec![0u32];
    let mut pos = 0usize;
    for (face_no, face) in coord_index.split(|&i| i < 0).enumerate() {
        let start = pos;
        pos += face.len() + 1;
        let valid: Vec<(usize, usize)> = face
            .iter()
            .enumerate()
            .filter(|&(_, &c)| (c as usize) < coords.len() && c >= 0)
            .map(|(k, &c)| (c as usize, start + k))
            .collect();
        if valid.len() < 3 {
            continue;
        }
        let poly: Vec<Vec3> = valid.iter().map(|&(c, _)| coords[c]).collect();
        let plane = newell(&poly);
        let normal = plane * if ccw { 1.0 } else { -1.0 };
        let tris = if convex {
            fan(poly.len())
        } else {
            clipper.clip(&poly, plane).unwrap_or_else(|| {
                m.fanned += 1;
                fan(poly.len())
            })
        };
        let base = m.positions.len() as u32;
        for &(c, at) in &valid {
            m.positions.push(coords[c]);
            m.coord_index.push(c as u32);
            // Which colour or normal a corner takes: per vertex by its own
            // index list or the coordIndex, per face by the list or in order.
            let which = |per_vertex: bool, list: &[i32]| {
                let (slot, fallback) = if per_vertex {
                    (at, c)
                } else {
                    (face_no, face_no)
                };
                if list.is_empty() {
                    fallback
                } else {
                    list.get(slot).map_or(fallback, |&i| i.max(0) as usize)
                }
            };
            if !cols.is_empty() {
                let ci = which(color_per_vertex, color_index);
                m.colors.push(*cols.get(ci).unwrap_or(&[1.0; 4]));
            }
            if !tex.is_empty() {
                let ti = which(true, tex_index);
                m.uvs.push(*tex.get(ti).unwrap_or(&Vec2::ZERO));
                m.tex_index.push(ti as u32);
            }
            let ni = which(normal_per_vertex, normal_index);
            if has_normal_node {
                m.normal_index.push(ni as u32);
            }
            if !given_normals.is_empty() {
                let n = given_normals.get(ni).copied().unwrap_or(normal);
                m.normals.push(n.try_normalize().unwrap_or(Vec3::Y));
            }
        }
        for t in tris {
            let (a, b, c) = (base + t[0] as u32, base + t[1] as u32, base + t[2] as u32);
            if ccw {
                m.indices.extend([a, b, c]);
            } else {
                m.indices.extend([a, c, b]);
            }
        }
        face_start.push(m.positions.len() as u32);
    }
    if given_normals.is_empty() {
        m.make_normals(MadeNormals::new(face_start, ccw, crease, &m.coord_index));
    }
    m
}

/// The normal of a polygon by Newell's method (not normalised; zero for a
/// degenerate polygon).
fn newell(p: &[Vec3]) -> Vec3 {
    let mut n = Vec3::ZERO;
    for i in 0..p.len() {
        let (a, b) = (p[i], p[(i + 1) % p.len()]);
        n += Vec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n
}

fn fan(n: usize) -> Vec<[usize; 3]> {
    (1..n - 1).map(|i| [0, i, i + 1]).collect()
}

/// How many point-in-triangle tests ear clipping may make for each corner
/// of a face: enough for any outline a modeller draws (each test is
/// against a reflex corner only), and it keeps a hostile face of 100 000
/// corners to a fraction of a second.
const EAR_TESTS_PER_CORNER: usize = 1024;

/// Ear clipping's working memory, kept from one face to the next so that a
/// mesh of many small concave faces does not allocate it for each.
#[derive(Default)]
struct EarClipper {
    /// The corners in the plane of the face.
    p2: Vec<Vec2>,
    /// The corners still standing, as a ring.
    next: Vec<usize>,
    prev: Vec<usize>,
    gone: Vec<bool>,
    /// The reflex corners: only they can lie inside an ear.
    grid: Grid,
}

impl EarClipper {
    /// Triangulates a simple polygon (convex or not) by ear clipping in
    /// the plane of its normal. Falls back to a fan for degenerate input,
    /// and gives `None` when the face needs more than
    /// [`EAR_TESTS_PER_CORNER`] tests a corner.
    fn clip(&mut self, poly: &[Vec3], normal: Vec3) -> Option<Vec<[usize; 3]>> {
        let n = poly.len();
        let Some(normal) = normal.try_normalize() else {
            return Some(fan(n));
        };
        let u = normal.any_orthonormal_vector();
        let v = normal.cross(u);
        let Self {
            p2,
            next,
            prev,
            gone,
            grid,
        } = self;
        p2.clear();
        p2.extend(poly.iter().map(|p| Vec2::new(p.dot(u), p.dot(v))));
        next.clear();
        next.extend((1..=n).map(|i| i % n));
        prev.clear();
        prev.extend((0..n).map(|i| (i + n - 1) % n));
        gone.clear();
        gone.resize(n, false);
        let cross = |a: usize, b: usize, c: usize| (p2[b] - p2[a]).perp_dot(p2[c] - p2[a]);
        // Reflex corners in a grid of about one a cell, so that an ear is
        // tested against the few near it. A corner clipped, or turned
        // convex, is passed over.
        grid.fill(p2, (0..n).filter(|&i| cross(prev[i], i, next[i]) <= 0.0));
        let mut budget = EAR_TESTS_PER_CORNER.saturating_mul(n);
        let mut out = Vec::with_capacity(n - 2);
        let (mut left, mut at, mut misses) = (n, 0, 0);
        while left > 3 {
            if misses == left {
                // No ear anywhere: self-intersecting; the rest as a fan.
                break;
            }
            let (a, b, c) = (prev[at], at, next[at]);
            let mut ear = cross(a, b, c) > 0.0;
            budget = budget.checked_sub(1)?;
            if ear {
                let (lo, hi) = (p2[a].min(p2[b]).min(p2[c]), p2[a].max(p2[b]).max(p2[c]));
                for q in grid.near(lo, hi) {
                    budget = budget.checked_sub(1)?;
                    if gone[q] || q == a || q == b || q == c || cross(prev[q], q, next[q]) > 0.0 {
                        continue;
                    }
                    if cross(a, b, q) >= 0.0 && cross(b, c, q) >= 0.0 && cross(c, a, q) >= 0.0 {
                        ear = false;
                        break;
                    }
                }
            }
            if ear {
                out.push([a, b, c]);
                gone[b] = true;
                (next[a], prev[c]) = (c, a);
                left -= 1;
                // On past the next corner, as earcut does: ears cut all
                // round stay small, where cutting on from `a` would fan
                // out from it.
                (at, misses) = (next[c], 0);
            } else {
                (at, misses) = (c, misses + 1);
            }
        }
        // What is left: the last triangle, or a fan of what could not be
        // clipped.
        let first = at;
        let mut k = next[first];
        while next[k] != first {
            out.push([first, k, next[k]]);
            k = next[k];
        }
        Some(out)
    }
}

/// Points of a plane in a uniform grid over their bounds, about one a cell.
#[derive(Default)]
struct Grid {
    min: Vec2,
    /// Cells a unit of length, on each axis.
    scale: Vec2,
    side: usize,
    cells: Vec<Vec<usize>>,
}

impl Grid {
    /// Puts the points `which` of `p` in the grid, in place of those it
    /// held.
    fn fill(&mut self, p: &[Vec2], which: impl Iterator<Item = usize> + Clone) {
        let (count, min, max) = which
            .clone()
            .fold((0, Vec2::MAX, Vec2::MIN), |(k, lo, hi), i| {
                (k + 1, lo.min(p[i]), hi.max(p[i]))
            });
        let side = ((count as f64).sqrt().ceil() as usize).clamp(1, 1024);
        let extent = (max - min).max(Vec2::splat(f32::MIN_POSITIVE));
        (self.min, self.scale, self.side) = (min, Vec2::splat(side as f32) / extent, side);
        self.cells.truncate(side * side);
        self.cells.iter_mut().for_each(Vec::clear);
        self.cells.resize_with(side * side, Vec::new);
        for i in which {
            let (x, y) = self.cell(p[i]);
            self.cells[y * side + x].push(i);
        }
    }

    fn cell(&self, p: Vec2) -> (usize, usize) {
        let c = ((p - self.min) * self.scale).max(Vec2::ZERO);
        let last = (self.side - 1) as f32;
        (c.x.min(last) as usize, c.y.min(last) as usize)
    }

    /// The points in the cells the box `lo`..`hi` touches.
    fn near(&self, lo: Vec2, hi: Vec2) -> impl Iterator<Item = usize> + '_ {
        let ((x0, y0), (x1, y1)) = (self.cell(lo), self.cell(hi));
        (y0..=y1).flat_map(move |y| {
            (x0..=x1).flat_map(move |x| self.cells[y * self.side + x].iter().copied())
        })
    }
}

/// IndexedTriangleSet (with an index) or TriangleSet: flat normals unless
/// given.
fn triangle_set(scene: &Scene, rest: &Overrides, id: NodeId, index: Option<&[i32]>) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let ccw = scene.value(id, "ccw").is_none_or(|v| v.as_bool());
    let given = normals(scene, rest, id);
    let has_normal_node = scene.child(id, "normal").is_some();
    let cols = colors(scene, id);
    let tex = uvs(scene, rest, id);
    let order: Vec<usize> = match index {
        Some(ix) => ix
            .iter()
            .filter(|&&i| i >= 0)
            .map(|&i| i as usize)
            .collect(),
        None => (0..coords.len()).collect(),
    };
    let mut m = Mesh::new(Primitive::Triangles);
    for tri in order.chunks_exact(3) {
        if tri.iter().any(|&i| i >= coords.len()) {
            continue;
        }
        let base = m.positions.len() as u32;
        for &i in tri {
            m.positions.push(coords[i]);
            m.coord_index.push(i as u32);
            if has_normal_node {
                m.normal_index.push(i as u32);
            }
            if !cols.is_empty() {
                m.colors.push(*cols.get(i).unwrap_or(&[1.0; 4]));
            }
            if !tex.is_empty() {
                m.uvs.push(*tex.get(i).unwrap_or(&Vec2::ZERO));
                m.tex_index.push(i as u32);
            }
        }
        if ccw {
            m.indices.extend([base, base + 1, base + 2]);
        } else {
            m.indices.extend([base, base + 2, base + 1]);
        }
    }
    let faces = (0..=m.positions.len() as u32).step_by(3).collect();
    let made = MadeNormals::new(faces, ccw, 0.0, &m.coord_index);
    if given.is_empty() {
        m.make_normals(made);
    } else {
        // The file's normals, its triangle's where one is missing or zero.
        let flat = made.normals(&m.positions, &m.coord_index);
        m.normals = m
            .coord_index
            .iter()
            .zip(flat)
            .map(|(&i, f)| {
                given
                    .get(i as usize)
                    .and_then(|n| n.try_normalize())
                    .unwrap_or(f)
            })
            .collect();
    }
    m
}

fn line_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let cols = colors(scene, id);
    let mut m = Mesh::new(Primitive::Lines);
    for poly in faces(scene.ints(id, "coordIndex")) {
        let valid: Vec<usize> = poly
            .iter()
            .map(|&c| c as usize)
            .filter(|&c| c < coords.len())
            .collect();
        push_strip(&mut m, &valid, &coords, &cols);
    }
    m
}

fn strips(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let cols = colors(scene, id);
    let mut m = Mesh::new(Primitive::Lines);
    let mut start = 0usize;
    for &count in scene.ints(id, "vertexCount") {
        let end = start.saturating_add(count.max(0) as usize);
        // The points that exist (a count may be larger than the points:
        // up to 2^31 a count, so they are not walked one by one).
        let strip: Vec<usize> = (start..end.min(coords.len())).collect();
        push_strip(&mut m, &strip, &coords, &cols);
        start = end;
    }
    m
}

fn push_strip(m: &mut Mesh, strip: &[usize], coords: &[Vec3], cols: &[[f32; 4]]) {
    if strip.len() < 2 {
        return;
    }
    let base = m.positions.len() as u32;
    for &c in strip {
        m.positions.push(coords[c]);
        m.coord_index.push(c as u32);
        if !cols.is_empty() {
            m.colors.push(*cols.get(c).unwrap_or(&[1.0; 4]));
        }
    }
    for k in 0..strip.len() as u32 - 1 {
        m.indices.extend([base + k, base + k + 1]);
    }
}

fn point_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let cols = colors(scene, id);
    let mut m = Mesh::new(Primitive::Points);
    for (i, p) in coords.iter().enumerate() {
        m.positions.push(*p);
        m.coord_index.push(i as u32);
        if !cols.is_empty() {
            m.colors.push(*cols.get(i).unwrap_or(&[1.0; 4]));
        }
        m.indices.push(i as u32);
    }
    m
}

/// A quad of four corners (counter-clockwise seen from `n`) with UVs.
fn quad(m: &mut Mesh, corners: [Vec3; 4], n: Vec3) {
    let base = m.positions.len() as u32;
    // X3D texture coordinates (v up): bottom-left is (0, 0).
    for (c, uv) in corners.iter().zip([
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 1.0),
    ]) {
        m.positions.push(*c);
        m.normals.push(n);
        m.uvs.push(uv);
    }
    m.indices
        .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
}

fn boxed(h: Vec3) -> Mesh {
    let mut m = Mesh::new(Primitive::Triangles);
    let c = |x: f32, y: f32, z: f32| Vec3::new(x * h.x, y * h.y, z * h.z);
    quad(
        &mut m,
        [
            c(-1., -1., 1.),
            c(1., -1., 1.),
            c(1., 1., 1.),
            c(-1., 1., 1.),
        ],
        Vec3::Z,
    );
    quad(
        &mut m,
        [
            c(1., -1., -1.),
            c(-1., -1., -1.),
            c(-1., 1., -1.),
            c(1., 1., -1.),
        ],
        -Vec3::Z,
    );
    quad(
        &mut m,
        [
            c(1., -1., 1.),
            c(1., -1., -1.),
            c(1., 1., -1.),
            c(1., 1., 1.),
        ],
        Vec3::X,
    );
    quad(
        &mut m,
        [
            c(-1., -1., -1.),
            c(-1., -1., 1.),
            c(-1., 1., 1.),
            c(-1., 1., -1.),
        ],
        -Vec3::X,
    );
    quad(
        &mut m,
        [
            c(-1., 1., 1.),
            c(1., 1., 1.),
            c(1., 1., -1.),
            c(-1., 1., -1.),
        ],
        Vec3::Y,
    );
    quad(
        &mut m,
        [
            c(-1., -1., -1.),
            c(1., -1., -1.),
            c(1., -1., 1.),
            c(-1., -1., 1.),
        ],
        -Vec3::Y,
    );
    m
}

/// Segments around, and rings from pole to pole.
const SLICES: usize = 32;
const STACKS: usize = 16;

fn sphere(r: f32) -> Mesh {
    let mut m = Mesh::new(Primitive::Triangles);
    for i in 0..=STACKS {
        let theta = PI * i as f32 / STACKS as f32;
        for j in 0..=SLICES {
            let phi = TAU * j as f32 / SLICES as f32;
            // X3D: texture seam at the back (−Z), u increasing counter-clockwise from above.
            let n = Vec3::new(
                -phi.sin() * theta.sin(),
                theta.cos(),
                -phi.cos() * theta.sin(),
            );
            m.positions.push(n * r);
            m.normals.push(n);
            m.uvs.push(Vec2::new(
                j as f32 / SLICES as f32,
                1.0 - i as f32 / STACKS as f32,
            ));
        }
    }
    let row = SLICES as u32 + 1;
    for i in 0..STACKS as u32 {
        for j in 0..SLICES as u32 {
            let (a, b) = (i * row + j, (i + 1) * row + j);
            if i != 0 {
                m.indices.extend([a, b, a + 1]);
            }
            if i != STACKS as u32 - 1 {
                m.indices.extend([a + 1, b, b + 1]);
            }
        }
    }
    m
}

/// The side of a cylinder or cone: radius `r0` at y = −h/2 to `r1` at +h/2.
fn side(m: &mut Mesh, h: f32, r0: f32, r1: f32) {
    let slope = (r0 - r1) / h;
    let base = m.positions.len() as u32;
    for j in 0..=SLICES {
        let phi = TAU * j as f32 / SLICES as f32;
        let (s, c) = (-phi.sin(), -phi.cos());
        let n = Vec3::new(s, slope, c).normalize();
        for (y, r, v) in [(-h / 2.0, r0, 0.0), (h / 2.0, r1, 1.0)] {
            m.positions.push(Vec3::new(s * r, y, c * r));
            m.normals.push(n);
            m.uvs.push(Vec2::new(j as f32 / SLICES as f32, v));
        }
    }
    for j in 0..SLICES as u32 {
        let (a, b) = (base + 2 * j, base + 2 * j + 2);
        m.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
    }
}

/// A disc at height y facing up (`up`) or down.
fn cap(m: &mut Mesh, y: f32, r: f32, up: bool) {
    let n = if up { Vec3::Y } else { -Vec3::Y };
    let center = m.positions.len() as u32;
    m.positions.push(Vec3::new(0.0, y, 0.0));
    m.normals.push(n);
    m.uvs.push(Vec2::splat(0.5));
    for j in 0..=SLICES {
        let phi = TAU * j as f32 / SLICES as f32;
        let (s, c) = (-phi.sin(), -phi.cos());
        m.positions.push(Vec3::new(s * r, y, c * r));
        m.normals.push(n);
        m.uvs.push(Vec2::new(0.5 + s / 2.0, 0.5 - c / 2.0));
    }
    for j in 0..SLICES as u32 {
        let (a, b) = (center + 1 + j, center + 2 + j);
        if up {
            m.indices.extend([center, a, b]);
        } else {
            m.indices.extend([center, b, a]);
        }
    }
}

fn cylinder(scene: &Scene, id: NodeId) -> Mesh {
    let h = scene.floats(id, "height")[0];
    let r = scene.floats(id, "radius")[0];
    let mut m = Mesh::new(Primitive::Triangles);
    if scene.flag(id, "side") {
        side(&mut m, h, r, r);
    }
    if scene.flag(id, "top") {
        cap(&mut m, h / 2.0, r, true);
    }
    if scene.flag(id, "bottom") {
        cap(&mut m, -h / 2.0, r, false);
    }
    m
}

fn cone(scene: &Scene, id: NodeId) -> Mesh {
    let h = scene.floats(id, "height")[0];
    let r = scene.floats(id, "bottomRadius")[0];
    let mut m = Mesh::new(Primitive::Triangles);
    if scene.flag(id, "side") {
        side(&mut m, h, r, 0.0);
    }
    if scene.flag(id, "bottom") {
        cap(&mut m, -h / 2.0, r, false);
    }
    m
}

#[cfg(test)]
mod tests {
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
            .map(|i| (std::f32::consts::TAU * i as f32 / n as f32).sin_cos())
            .map(|(s, c)| (c, s))
            .collect();
        let area = n as f64 / 2.0 * (std::f64::consts::TAU / n as f64).sin();
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
            let (s, c) = (std::f32::consts::TAU * (i % n) as f32 / n as f32).sin_cos();
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
