//! NURBS geometry (ISO/IEC 19775-1, 27): NurbsCurve as a line strip,
//! NurbsPatchSurface (and the surface of a NurbsTrimmedSurface, its
//! trimming not applied, warned) as a grid of quads, each evaluated as the
//! rational B-spline it is (`crate::interp::nurbs`: knots as given or
//! clamped uniform), at points spaced evenly in its parameter over the
//! knots' valid range.
//!
//! - Weights: `weight` when it has one per control point, else 1.
//! - Tessellation (27.2.4): a value t > 0 gives t segments; t < 0 gives
//!   −t × the number of control points; 0 gives 2 × the number of control
//!   points.

use super::generated::{Corner, Drawing, faces_mesh};
use super::*;
use crate::interp::nurbs::{Basis, point};
use glam::DVec3;

/// The number of segments of a tessellation field over `n` control points.
fn segments(tessellation: i32, n: usize) -> usize {
    let n = n.max(1);
    let s = match tessellation {
        t if t > 0 => t as usize,
        t if t < 0 => (-(t as i64)) as usize * n,
        _ => 2 * n,
    };
    s.clamp(1, 100_000)
}

/// The control points of a NURBS node (its Coordinate or CoordinateDouble).
fn control_points(scene: &Scene, id: NodeId) -> Vec<DVec3> {
    let Some(c) = scene.child(id, "controlPoint") else {
        return Vec::new();
    };
    let numbers = scene
        .value(c, "point")
        .map(crate::anim::value_numbers)
        .unwrap_or_default();
    numbers.chunks_exact(3).map(DVec3::from_slice).collect()
}

/// A node's weights, one per control point, else all 1.
fn weights(scene: &Scene, id: NodeId, n: usize) -> Vec<f64> {
    let w = scene
        .value(id, "weight")
        .map(crate::anim::value_numbers)
        .unwrap_or_default();
    if w.len() == n && w.iter().all(|&x| x > 0.0) {
        w
    } else {
        vec![1.0; n]
    }
}

fn doubles(scene: &Scene, id: NodeId, field: &str) -> Vec<f64> {
    scene
        .value(id, field)
        .map(crate::anim::value_numbers)
        .unwrap_or_default()
}

fn int(scene: &Scene, id: NodeId, field: &str, default: i32) -> i32 {
    scene.ints(id, field).first().copied().unwrap_or(default)
}

/// A NurbsCurve: a line strip through its points at `tessellation`
/// segments over its range.
pub(super) fn curve(scene: &Scene, id: NodeId) -> Mesh {
    let mut m = Mesh::new(Primitive::Lines);
    let points = control_points(scene, id);
    let w = weights(scene, id, points.len());
    let Some(b) = Basis::new(
        points.len(),
        int(scene, id, "order", 3),
        &doubles(scene, id, "knot"),
    ) else {
        return m;
    };
    let flat: Vec<f64> = points.iter().flat_map(|p| p.to_array()).collect();
    let (u0, u1) = b.range();
    let s = segments(int(scene, id, "tessellation", 0), points.len());
    let mut at = Vec::new();
    let drawn: Vec<Vec3> = (0..=s)
        .map(|k| {
            point(
                &b,
                &flat,
                3,
                &w,
                u0 + (u1 - u0) * k as f64 / s as f64,
                &mut at,
            );
            DVec3::from_slice(&at).as_vec3()
        })
        .collect();
    let strip: Vec<usize> = (0..drawn.len()).collect();
    sets::push_strip(&mut m, &strip, &drawn, &[]);
    m.coord_index.clear();
    m
}

/// A NurbsPatchSurface (or a NurbsTrimmedSurface's surface): a grid of
/// uTessellation × vTessellation quads over its range, front where
/// ∂S/∂u × ∂S/∂v points, texture coordinates its parameters scaled to
/// 0..1, normals smooth across the grid.
pub(super) fn patch(scene: &Scene, id: NodeId) -> Mesh {
    let points = control_points(scene, id);
    let (nu, nv) = (
        int(scene, id, "uDimension", 0).max(0) as usize,
        int(scene, id, "vDimension", 0).max(0) as usize,
    );
    let empty = Mesh::new(Primitive::Triangles);
    if nu == 0 || nv == 0 || points.len() < nu * nv {
        return empty;
    }
    let w = weights(scene, id, nu * nv);
    let (Some(bu), Some(bv)) = (
        Basis::new(
            nu,
            int(scene, id, "uOrder", 3),
            &doubles(scene, id, "uKnot"),
        ),
        Basis::new(
            nv,
            int(scene, id, "vOrder", 3),
            &doubles(scene, id, "vKnot"),
        ),
    ) else {
        return empty;
    };
    let (su, sv) = (
        segments(int(scene, id, "uTessellation", 0), nu),
        segments(int(scene, id, "vTessellation", 0), nv),
    );
    if (su + 1).saturating_mul(sv + 1) > 4_000_000 {
        return empty;
    }
    let ((u0, u1), (v0, v1)) = (bu.range(), bv.range());
    let surface = |u: f64, v: f64| {
        let ((fu, bu_), (fv, bv_)) = (bu.at(u), bv.at(v));
        let (mut sum, mut total) = (DVec3::ZERO, 0.0);
        for (b, nb) in bv_.iter().enumerate() {
            for (a, na) in bu_.iter().enumerate() {
                let i = (fu + a) + (fv + b) * nu;
                let k = na * nb * w[i];
                sum += points[i] * k;
                total += k;
            }
        }
        if total == 0.0 { sum } else { sum / total }
    };
    let grid: Vec<Vec3> = (0..=sv)
        .flat_map(|j| (0..=su).map(move |i| (i, j)))
        .map(|(i, j)| {
            let u = u0 + (u1 - u0) * i as f64 / su as f64;
            let v = v0 + (v1 - v0) * j as f64 / sv as f64;
            surface(u, v).as_vec3()
        })
        .collect();
    let at = |i: usize, j: usize| i + j * (su + 1);
    let mut faces = Vec::with_capacity(su * sv);
    for j in 0..sv {
        for i in 0..su {
            let face = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                .map(|(ci, cj)| {
                    Corner::new(
                        at(ci, cj),
                        Vec2::new(ci as f32 / su as f32, cj as f32 / sv as f32),
                    )
                })
                .to_vec();
            faces.push(face);
        }
    }
    let drawing = Drawing {
        ccw: true,
        convex: true,
        crease: std::f32::consts::PI,
        cells: 0,
    };
    faces_mesh(&grid, &faces, drawing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tessellation_follows_the_text() {
        assert_eq!(segments(10, 4), 10);
        assert_eq!(segments(-3, 4), 12);
        assert_eq!(segments(0, 4), 8);
    }
}
