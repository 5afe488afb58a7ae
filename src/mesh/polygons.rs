//! Polygons: IndexedFaceSet faces split and triangulated (a fan when
//! convex, ear clipping when not).

use super::normals::{MadeNormals, newell};
use super::{Mesh, Overrides, Primitive, colors, given_normals, points, uvs};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};

/// Each quad a, b, c, d of an index list as the triangles a, b, c and
/// a, c, d (an incomplete last quad is left out, as X3D says).
pub(super) fn split_quads(index: impl Iterator<Item = i32>) -> Vec<i32> {
    let index: Vec<i32> = index.collect();
    index
        .chunks_exact(4)
        .flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]])
        .collect()
}

/// Splits an index list at −1 (and at its end).
pub(super) fn faces(index: &[i32]) -> impl Iterator<Item = &[i32]> {
    index.split(|&i| i < 0).filter(|f| !f.is_empty())
}

pub(super) fn indexed_face_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let coord_index = scene.ints(id, "coordIndex");
    let ccw = scene.value(id, "ccw").is_none_or(|v| v.as_bool());
    let convex = scene.value(id, "convex").is_none_or(|v| v.as_bool());
    let crease = scene
        .floats(id, "creaseAngle")
        .first()
        .copied()
        .unwrap_or(0.0);
    let given_normals = given_normals(scene, rest, id);
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
        let tris = triangulate(&mut clipper, &poly, plane, convex, &mut m.fanned);
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

/// A face's triangles, as corner indices: a fan when `convex`, else ear
/// clipping (a fan, counted in `fanned`, past the ear-clipping budget).
pub(super) fn triangulate(
    clipper: &mut EarClipper,
    poly: &[Vec3],
    plane: Vec3,
    convex: bool,
    fanned: &mut usize,
) -> Vec<[usize; 3]> {
    if convex {
        return fan(poly.len());
    }
    clipper.clip(poly, plane).unwrap_or_else(|| {
        *fanned += 1;
        fan(poly.len())
    })
}

pub(super) fn fan(n: usize) -> Vec<[usize; 3]> {
    (1..n - 1).map(|i| [0, i, i + 1]).collect()
}

/// How many point-in-triangle tests ear clipping may make for each corner
/// of a face: enough for any outline a modeller draws (each test is
/// against a reflex corner only), and it keeps a hostile face of 100 000
/// corners to a fraction of a second.
pub(super) const EAR_TESTS_PER_CORNER: usize = 1024;

/// Ear clipping's working memory, kept from one face to the next so that a
/// mesh of many small concave faces does not allocate it for each.
#[derive(Default)]
pub(super) struct EarClipper {
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
    pub(super) fn clip(&mut self, poly: &[Vec3], normal: Vec3) -> Option<Vec<[usize; 3]>> {
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
pub(super) struct Grid {
    min: Vec2,
    /// Cells a unit of length, on each axis.
    scale: Vec2,
    side: usize,
    cells: Vec<Vec<usize>>,
}

impl Grid {
    /// Puts the points `which` of `p` in the grid, in place of those it
    /// held.
    pub(super) fn fill(&mut self, p: &[Vec2], which: impl Iterator<Item = usize> + Clone) {
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

    pub(super) fn cell(&self, p: Vec2) -> (usize, usize) {
        let c = ((p - self.min) * self.scale).max(Vec2::ZERO);
        let last = (self.side - 1) as f32;
        (c.x.min(last) as usize, c.y.min(last) as usize)
    }

    /// The points in the cells the box `lo`..`hi` touches.
    pub(super) fn near(&self, lo: Vec2, hi: Vec2) -> impl Iterator<Item = usize> + '_ {
        let ((x0, y0), (x1, y1)) = (self.cell(lo), self.cell(hi));
        (y0..=y1).flat_map(move |y| {
            (x0..=x1).flat_map(move |x| self.cells[y * self.side + x].iter().copied())
        })
    }
}
