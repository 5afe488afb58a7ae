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
use super::sets;
use super::{MAX_GENERATED_POINTS, Mesh, Overrides, Primitive};
use crate::interp::nurbs::{Basis, Surface, point};
use crate::scene::Value;
use crate::scene::{NodeId, NodeType, Scene};
use glam::DVec3;
use glam::{Vec2, Vec3};

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
        .map(Value::numbers)
        .unwrap_or_default();
    numbers.chunks_exact(3).map(DVec3::from_slice).collect()
}

/// A node's weights, one per control point, else all 1.
fn weights(scene: &Scene, id: NodeId, n: usize) -> Vec<f64> {
    let w = scene
        .value(id, "weight")
        .map(Value::numbers)
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
        .map(Value::numbers)
        .unwrap_or_default()
}

fn int(scene: &Scene, id: NodeId, field: &str, default: i32) -> i32 {
    scene.ints(id, field).first().copied().unwrap_or(default)
}

/// The points of a NURBS curve (`dim` numbers a control point) at
/// `tessellation` segments evenly over its range, flat; none when its
/// order and knots make no curve.
fn tessellated(
    flat: &[f64],
    dim: usize,
    weights: &[f64],
    order: i32,
    knots: &[f64],
    tessellation: i32,
) -> Vec<f64> {
    let n = flat.len() / dim;
    let Some(b) = Basis::new(n, order, knots) else {
        return Vec::new();
    };
    let (u0, u1) = b.range();
    let s = segments(tessellation, n);
    let mut at = Vec::new();
    let mut out = Vec::with_capacity((s + 1) * dim);
    for k in 0..=s {
        let u = u0 + (u1 - u0) * k as f64 / s as f64;
        point(&b, flat, dim, weights, u, &mut at);
        out.extend_from_slice(&at);
    }
    out
}

/// A NurbsCurve's points at its tessellation.
fn curve_points(scene: &Scene, id: NodeId) -> Vec<Vec3> {
    let points = control_points(scene, id);
    let flat: Vec<f64> = points.iter().flat_map(|p| p.to_array()).collect();
    let w = weights(scene, id, points.len());
    let (order, knots) = (int(scene, id, "order", 3), doubles(scene, id, "knot"));
    let tessellation = int(scene, id, "tessellation", 0);
    tessellated(&flat, 3, &w, order, &knots, tessellation)
        .chunks_exact(3)
        .map(|p| DVec3::from_slice(p).as_vec3())
        .collect()
}

/// A NurbsCurve: a line strip through its points at `tessellation`
/// segments over its range.
pub(super) fn curve(scene: &Scene, id: NodeId) -> Mesh {
    let mut m = Mesh::new(Primitive::Lines);
    let drawn = curve_points(scene, id);
    let strip: Vec<usize> = (0..drawn.len()).collect();
    sets::push_strip(&mut m, &strip, &drawn, &[]);
    m.coord_index.clear();
    m
}

/// The points of a 2D control curve: a NurbsCurve2D at its tessellation,
/// a ContourPolyline2D's points as they are.
fn curve_2d(scene: &Scene, id: NodeId) -> Vec<Vec2> {
    let flat = doubles(scene, id, "controlPoint");
    let points = match scene.node_type(id) {
        Some(NodeType::NurbsCurve2D) => {
            let w = weights(scene, id, flat.len() / 2);
            let (order, knots) = (int(scene, id, "order", 3), doubles(scene, id, "knot"));
            tessellated(
                &flat,
                2,
                &w,
                order,
                &knots,
                int(scene, id, "tessellation", 0),
            )
        }
        Some(NodeType::ContourPolyline2D) => flat,
        _ => Vec::new(),
    };
    points
        .chunks_exact(2)
        .map(|p| Vec2::new(p[0] as f32, p[1] as f32))
        .collect()
}

/// NurbsSweptSurface and NurbsSwungSurface, drawn as X_ITE draws them: an
/// Extrusion (no caps, convex, creaseAngle π) of the cross-section
/// (`crossSectionCurve`, or the swung surface's `profileCurve`) along the
/// trajectory (a NurbsCurve; the swung surface's 2D curve in the xz
/// plane). The text describes both surfaces without a formula.
pub(super) fn swept(scene: &Scene, id: NodeId) -> Mesh {
    let swung = scene.node_type(id) == Some(NodeType::NurbsSwungSurface);
    let curve = |f: &str| scene.child(id, f);
    let cross = curve(if swung {
        "profileCurve"
    } else {
        "crossSectionCurve"
    })
    .map(|c| curve_2d(scene, c))
    .unwrap_or_default();
    let spine = match curve("trajectoryCurve") {
        Some(t) if swung => curve_2d(scene, t)
            .iter()
            .map(|p| Vec3::new(p.x, 0.0, p.y))
            .collect(),
        Some(t) if scene.node_type(t) == Some(NodeType::NurbsCurve) => curve_points(scene, t),
        _ => Vec::new(),
    };
    let sweep = super::extrusion::Sweep {
        spine,
        cross,
        scale: Vec::new(),
        orientation: Vec::new(),
        caps: [false, false],
    };
    sweep.mesh(Drawing {
        ccw: scene.value(id, "ccw").is_none_or(|v| v.as_bool()),
        convex: true,
        crease: std::f32::consts::PI,
        cells: 0,
    })
}

/// The u × v control points a NURBS surface node declares.
fn dimensions(scene: &Scene, id: NodeId) -> (usize, usize) {
    let dim = |f: &str| int(scene, id, f, 0).max(0) as usize;
    (dim("uDimension"), dim("vDimension"))
}

/// A surface of `points` (`dim` numbers each) on the grid `grid` declares:
/// its dimensions, orders and knots; weighted by `weighted`'s `weight`
/// field, else all 1. `None` when they make no surface.
fn grid_surface(
    scene: &Scene,
    grid: NodeId,
    points: Vec<f64>,
    dim: usize,
    weighted: Option<NodeId>,
) -> Option<Surface> {
    let dims = dimensions(scene, grid);
    let n = dims.0 * dims.1;
    Surface::new(
        points,
        dim,
        dims,
        weighted.map_or_else(|| vec![1.0; n], |w| weights(scene, w, n)),
        (int(scene, grid, "uOrder", 3), int(scene, grid, "vOrder", 3)),
        (
            &doubles(scene, grid, "uKnot"),
            &doubles(scene, grid, "vKnot"),
        ),
    )
}

/// The surface of a NurbsPatchSurface (or NurbsTrimmedSurface, or
/// NurbsSurfaceInterpolator): its control points, weights, orders and
/// knots; `None` when they make none.
pub(crate) fn surface(scene: &Scene, id: NodeId) -> Option<Surface> {
    let flat: Vec<f64> = control_points(scene, id)
        .iter()
        .flat_map(|p| p.to_array())
        .collect();
    grid_surface(scene, id, flat, 3, Some(id))
}

/// The texture coordinates' surface of a NURBS surface: a
/// NurbsTextureCoordinate's own (its weights as the text has them), or a
/// TextureCoordinate's points as control points with the surface's orders
/// and knots; `None` for neither (the parameters, 0 to 1, are used).
fn texture_surface(scene: &Scene, id: NodeId) -> Option<Surface> {
    let t = scene.child(id, "texCoord")?;
    match scene.node_type(t)? {
        NodeType::NurbsTextureCoordinate => {
            grid_surface(scene, t, doubles(scene, t, "controlPoint"), 2, Some(t))
        }
        NodeType::TextureCoordinate => grid_surface(scene, id, doubles(scene, t, "point"), 2, None),
        _ => None,
    }
}

/// A NurbsPatchSurface (or a NurbsTrimmedSurface's surface): a grid of
/// uTessellation × vTessellation quads (times a NurbsSet's
/// tessellationScale) over its range, front where ∂S/∂u × ∂S/∂v points,
/// texture coordinates from its texCoord surface at the same fractions of
/// its range (else the parameters scaled to 0..1), normals smooth across
/// the grid.
pub(super) fn patch(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let dims = dimensions(scene, id);
    let Some(surface) = surface(scene, id) else {
        return Mesh::new(Primitive::Triangles);
    };
    // (A NurbsSet's tessellationScale: see `Overrides::of_scene`.)
    let scale = rest
        .get(id, "tessellationScale")
        .and_then(|s| s.first())
        .map_or(1.0, |&s| f64::from(s));
    let scaled = |field: &str, n: usize| {
        ((segments(int(scene, id, field, 0), n) as f64 * scale).floor() as usize).max(1)
    };
    let (su, sv) = (
        scaled("uTessellation", dims.0),
        scaled("vTessellation", dims.1),
    );
    let points = (su + 1).saturating_mul(sv + 1);
    if points > MAX_GENERATED_POINTS {
        return Mesh::refused(
            Primitive::Triangles,
            format!(
                "a tessellation of {su} × {sv} would be {points} points, more than \
                 {MAX_GENERATED_POINTS}: not drawn"
            ),
        );
    }
    let texture = texture_surface(scene, id);
    let mut at = Vec::new();
    let fraction = |i: usize, j: usize| (i as f64 / su as f64, j as f64 / sv as f64);
    let grid: Vec<Vec3> = (0..=sv)
        .flat_map(|j| (0..=su).map(move |i| (i, j)))
        .map(|(i, j)| {
            let (s, t) = fraction(i, j);
            surface.at(s, t, &mut at);
            DVec3::from_slice(&at).as_vec3()
        })
        .collect();
    let mut uv = |i: usize, j: usize| {
        let (s, t) = fraction(i, j);
        match &texture {
            Some(tex) => {
                tex.at(s, t, &mut at);
                Vec2::new(at[0] as f32, at[1] as f32)
            }
            None => Vec2::new(s as f32, t as f32),
        }
    };
    let at_grid = |i: usize, j: usize| i + j * (su + 1);
    let mut faces = Vec::with_capacity(su * sv);
    for j in 0..sv {
        for i in 0..su {
            let face = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                .map(|(ci, cj)| Corner::new(at_grid(ci, cj), uv(ci, cj)))
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
    let m = faces_mesh(&grid, &faces, drawing);
    // A NurbsTrimmedSurface's contours, as fractions of the ranges.
    let [(u0, u1), (v0, v1)] = surface.ranges();
    let contours: Vec<Vec<Vec2>> = scene
        .nodes_in(id, "trimmingContour")
        .iter()
        .map(|&c| {
            let pieces = scene.nodes_in(c, "children");
            let points = pieces.iter().flat_map(|&p| curve_2d(scene, p));
            points
                .map(|p| {
                    let s = (f64::from(p.x) - u0) / (u1 - u0);
                    let t = (f64::from(p.y) - v0) / (v1 - v0);
                    Vec2::new(s as f32, t as f32)
                })
                .collect()
        })
        .collect();
    if contours.is_empty() {
        return m;
    }
    let at: Vec<Vec2> = m
        .coord_index
        .iter()
        .map(|&k| {
            let (i, j) = (k as usize % (su + 1), k as usize / (su + 1));
            Vec2::new(i as f32 / su as f32, j as f32 / sv as f32)
        })
        .collect();
    super::trim::trimmed(&m, &at, (su, sv), &contours).unwrap_or(m)
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
