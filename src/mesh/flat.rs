//! Geometry2D: Arc2D, ArcClose2D, Circle2D, Disk2D, Polyline2D,
//! Polypoint2D, Rectangle2D and TriangleSet2D, in the z = 0 plane facing +z.

use super::generated::{Corner, Drawing, faces_mesh, polyline};
use super::primitives::{SLICES, quad};
use super::sets::point_mesh;
use super::{Mesh, Overrides, Primitive};
use crate::math;
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};
use std::f32::consts::TAU;

/// Segments of a whole circle (as Sphere, Cylinder and Cone have around).
const SEGMENTS: usize = SLICES;

fn number(scene: &Scene, rest: &Overrides, id: NodeId, field: &str) -> f32 {
    rest.floats(scene, id, field)
        .first()
        .copied()
        .unwrap_or(0.0)
}

/// Points on a circle of radius `r` from `start` counter-clockwise to
/// `end` (radians); the whole circle, without repeating its first point,
/// when they are equal (as the text says, modulo 2π) or 2π or more apart.
fn arc(r: f32, start: f32, end: f32) -> (Vec<Vec2>, bool) {
    let mut sweep = end - start;
    let whole = (sweep.rem_euclid(TAU)).abs() < 1e-6 || sweep.abs() >= TAU;
    if whole {
        let points = (0..SEGMENTS)
            .map(|k| {
                let a = start + TAU * k as f32 / SEGMENTS as f32;
                Vec2::new(math::cos(a), math::sin(a)) * r
            })
            .collect();
        return (points, true);
    }
    if sweep < 0.0 {
        sweep += TAU;
    }
    let segments = ((SEGMENTS as f32 * sweep / TAU).ceil() as usize).max(1);
    let points = (0..=segments)
        .map(|k| {
            let a = start + sweep * k as f32 / segments as f32;
            Vec2::new(math::cos(a), math::sin(a)) * r
        })
        .collect();
    (points, false)
}

/// One face through 2D points (z = 0, counter-clockwise seen from +z),
/// texture coordinates over the square of side 2·`half` around the origin.
fn filled(points: &[Vec2], half: f32, convex: bool) -> Mesh {
    let p3: Vec<Vec3> = points.iter().map(|p| p.extend(0.0)).collect();
    let half = half.max(f32::MIN_POSITIVE);
    let face: Vec<Corner> = points
        .iter()
        .enumerate()
        .map(|(i, p)| Corner::new(i, (*p / half + Vec2::ONE) / 2.0))
        .collect();
    let drawing = Drawing {
        convex,
        ..Drawing::FLAT
    };
    faces_mesh(&p3, &[face], drawing)
}

fn vec2s(v: &[f32]) -> Vec<Vec2> {
    v.chunks_exact(2).map(Vec2::from_slice).collect()
}

pub(super) fn rectangle(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let s = rest.floats(scene, id, "size");
    let h = Vec2::new(
        s.first().copied().unwrap_or(2.0),
        s.get(1).copied().unwrap_or(2.0),
    ) / 2.0;
    let mut m = Mesh::new(Primitive::Triangles);
    let c = |x: f32, y: f32| Vec3::new(x * h.x, y * h.y, 0.0);
    quad(
        &mut m,
        [c(-1., -1.), c(1., -1.), c(1., 1.), c(-1., 1.)],
        Vec3::Z,
    );
    m
}

pub(super) fn circle(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    polyline(&arc(number(scene, rest, id, "radius"), 0.0, 0.0).0, true)
}

pub(super) fn arc2d(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let n = |f: &str| number(scene, rest, id, f);
    let (points, whole) = arc(n("radius"), n("startAngle"), n("endAngle"));
    polyline(&points, whole)
}

/// ArcClose2D: the arc closed through the centre (PIE) or by its chord.
pub(super) fn arc_close(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let n = |f: &str| number(scene, rest, id, f);
    let r = n("radius");
    let (mut points, whole) = arc(r, n("startAngle"), n("endAngle"));
    let chord = scene
        .value(id, "closureType")
        .and_then(|v| v.strings().first())
        .is_some_and(|t| t.eq_ignore_ascii_case("CHORD"));
    if !whole && !chord {
        points.insert(0, Vec2::ZERO);
    }
    // A pie of more than half a circle is concave.
    filled(&points, r, whole || chord)
}

/// Disk2D: a disc, a ring between two radii, or a circle when they are equal.
pub(super) fn disk(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let (inner, outer) = (
        number(scene, rest, id, "innerRadius"),
        number(scene, rest, id, "outerRadius"),
    );
    let (ring, _) = arc(1.0, 0.0, 0.0);
    if inner == outer {
        return polyline(&ring.iter().map(|p| *p * outer).collect::<Vec<_>>(), true);
    }
    if inner <= 0.0 {
        return filled(
            &ring.iter().map(|p| *p * outer).collect::<Vec<_>>(),
            outer,
            true,
        );
    }
    // Outer ring points 0..n, inner n..2n; a quad between each pair.
    let n = ring.len();
    let p2: Vec<Vec2> = ring
        .iter()
        .map(|p| *p * outer)
        .chain(ring.iter().map(|p| *p * inner))
        .collect();
    let p3: Vec<Vec3> = p2.iter().map(|p| p.extend(0.0)).collect();
    let uv = |i: usize| (p2[i] / outer + Vec2::ONE) / 2.0;
    let faces: Vec<Vec<Corner>> = (0..n)
        .map(|k| {
            let next = (k + 1) % n;
            [n + k, k, next, n + next]
                .iter()
                .map(|&i| Corner::new(i, uv(i)))
                .collect()
        })
        .collect();
    faces_mesh(&p3, &faces, Drawing::FLAT)
}

pub(super) fn polyline2d(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    polyline(&vec2s(rest.floats(scene, id, "lineSegments")), false)
}

pub(super) fn polypoint2d(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let p3: Vec<Vec3> = vec2s(rest.floats(scene, id, "point"))
        .iter()
        .map(|p| p.extend(0.0))
        .collect();
    point_mesh(&p3, &[])
}

/// TriangleSet2D: each three vertices a triangle, facing +z; texture
/// coordinates over the vertices' bounds.
pub(super) fn triangle_set2d(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let v = vec2s(rest.floats(scene, id, "vertices"));
    let (lo, hi) = v
        .iter()
        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let size = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
    let p3: Vec<Vec3> = v.iter().map(|p| p.extend(0.0)).collect();
    let faces: Vec<Vec<Corner>> = (0..v.len() / 3)
        .map(|t| {
            (3 * t..3 * t + 3)
                .map(|i| Corner::new(i, (v[i] - lo) / size))
                .collect()
        })
        .collect();
    let mut m = faces_mesh(&p3, &faces, Drawing::FLAT);
    // Each triangle faces +z whichever way round it is written.
    m.normals.iter_mut().for_each(|n| *n = Vec3::Z);
    m
}
