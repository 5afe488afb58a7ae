//! Faces that a geometry node generates from its fields (ElevationGrid,
//! Extrusion, the 2D shapes), triangulated as IndexedFaceSet's are.

use super::normals::MadeNormals;
use super::normals::newell;
use super::polygons::{EarClipper, triangulate};
use super::sets::push_strip;
use super::{Mesh, Primitive};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};

/// One corner of a generated face.
#[derive(Clone, Copy, Debug)]
pub(super) struct Corner {
    /// The index of its point among the geometry's points (corners of one
    /// point share a normal within the crease angle).
    pub(super) point: usize,
    /// Its texture coordinate (X3D's, v up).
    pub(super) uv: Vec2,
    /// Its colour, when the geometry has a Color node.
    pub(super) color: Option<[f32; 4]>,
    /// Its normal, when the geometry has a Normal node.
    pub(super) normal: Option<Vec3>,
}

impl Drawing {
    /// Counter-clockwise, convex, flat: the 2D shapes.
    pub(super) const FLAT: Drawing = Drawing {
        ccw: true,
        convex: true,
        crease: 0.0,
        cells: 0,
    };

    /// A geometry node's ccw, convex (when it has the field) and
    /// creaseAngle.
    pub(super) fn of(scene: &Scene, id: NodeId) -> Drawing {
        let flag = |f: &str| scene.value(id, f).is_none_or(|v| v.as_bool());
        Drawing {
            ccw: flag("ccw"),
            convex: flag("convex"),
            // (SFFloat, or GeoElevationGrid's SFDouble.)
            crease: scene.number(id, "creaseAngle") as f32,
            cells: 0,
        }
    }
}

impl Corner {
    pub(super) fn new(point: usize, uv: Vec2) -> Corner {
        Corner {
            point,
            uv,
            color: None,
            normal: None,
        }
    }
}

/// How generated faces are drawn.
#[derive(Clone, Copy, Debug)]
pub(super) struct Drawing {
    /// Counter-clockwise faces are the front.
    pub(super) ccw: bool,
    /// Faces are convex (a fan), or may not be (ear clipping).
    pub(super) convex: bool,
    /// Corners of a point share a normal where their faces meet at less
    /// than this angle (radians).
    pub(super) crease: f32,
    /// The first `cells` faces are the quadrilaterals of a grid (an
    /// Extrusion's sides), split along their first diagonal whatever
    /// `convex` says, as browsers draw them: a bent or twisted cell is not
    /// a polygon to clip, and its triangles stay the same as it moves.
    pub(super) cells: usize,
}

/// The triangles of faces over `points`, a vertex per corner, with the
/// corners' normals when every corner has one, else normals made from the
/// points within the crease angle.
pub(super) fn faces_mesh(points: &[Vec3], faces: &[Vec<Corner>], drawing: Drawing) -> Mesh {
    let mut m = Mesh::new(Primitive::Triangles);
    let mut clipper = EarClipper::default();
    let mut face_start = vec![0u32];
    let given = faces.iter().flatten().all(|c| c.normal.is_some());
    let colored = faces.iter().flatten().any(|c| c.color.is_some());
    for (f, face) in faces.iter().enumerate() {
        let corners: Vec<&Corner> = face.iter().filter(|c| c.point < points.len()).collect();
        if corners.len() < 3 {
            continue;
        }
        let poly: Vec<Vec3> = corners.iter().map(|c| points[c.point]).collect();
        let plane = newell(&poly);
        let convex = drawing.convex || f < drawing.cells;
        let tris = triangulate(&mut clipper, &poly, plane, convex, &mut m.fanned);
        let base = m.positions.len() as u32;
        for c in &corners {
            m.positions.push(points[c.point]);
            m.coord_index.push(c.point as u32);
            m.uvs.push(c.uv);
            if colored {
                m.colors.push(c.color.unwrap_or([1.0; 4]));
            }
            if given {
                let n = c.normal.unwrap_or(Vec3::Y);
                m.normals.push(n.try_normalize().unwrap_or(Vec3::Y));
            }
        }
        for t in tris {
            let (a, b, c) = (base + t[0] as u32, base + t[1] as u32, base + t[2] as u32);
            if drawing.ccw {
                m.indices.extend([a, b, c]);
            } else {
                m.indices.extend([a, c, b]);
            }
        }
        face_start.push(m.positions.len() as u32);
    }
    if !given {
        let made = MadeNormals::new(face_start, drawing.ccw, drawing.crease, &m.coord_index);
        m.make_normals(made);
    }
    m
}

/// Lines through points in the z = 0 plane (a loop when `closed`).
pub(super) fn polyline(points: &[Vec2], closed: bool) -> Mesh {
    let p3: Vec<Vec3> = points.iter().map(|p| p.extend(0.0)).collect();
    let all: Vec<usize> = (0..p3.len()).collect();
    let mut m = Mesh::new(Primitive::Lines);
    push_strip(&mut m, &all, &p3, &[]);
    let n = p3.len() as u32;
    if closed && n > 2 {
        m.indices.extend([n - 1, 0]);
    }
    m
}
