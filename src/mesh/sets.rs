//! Triangle, line and point sets.

use super::normals::MadeNormals;
use super::polygons::faces;
use super::{Mesh, Overrides, Primitive, colors, given_normals, points, uvs};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};

/// IndexedTriangleSet (with an index) or TriangleSet: flat normals unless
/// given.
pub(super) fn triangle_set(
    scene: &Scene,
    rest: &Overrides,
    id: NodeId,
    index: Option<&[i32]>,
) -> Mesh {
    let coords = points(scene, rest, id, "coord");
    let ccw = scene.value(id, "ccw").is_none_or(|v| v.as_bool());
    let given = given_normals(scene, rest, id);
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

pub(super) fn line_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
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

pub(super) fn strips(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
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

pub(super) fn push_strip(m: &mut Mesh, strip: &[usize], coords: &[Vec3], cols: &[[f32; 4]]) {
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

pub(super) fn point_set(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    point_mesh(&points(scene, rest, id, "coord"), &colors(scene, id))
}

/// Points, each a vertex, with their colours when there are any.
pub(super) fn point_mesh(coords: &[Vec3], cols: &[[f32; 4]]) -> Mesh {
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

/// The triangles of fans, each a list of point indices: (v0, vi, vi+1).
pub(super) fn fan_triangles<'i>(fans: impl Iterator<Item = &'i [i32]>) -> Vec<i32> {
    let mut out = Vec::new();
    for fan in fans {
        for w in fan.windows(2).skip(1) {
            out.extend([fan[0], w[0], w[1]]);
        }
    }
    out
}

/// The triangles of strips, each a list of point indices: (vi, vi+1, vi+2),
/// every other one turned round so that all keep the strip's winding.
pub(super) fn strip_triangles<'i>(strips: impl Iterator<Item = &'i [i32]>) -> Vec<i32> {
    let mut out = Vec::new();
    for strip in strips {
        for (k, w) in strip.windows(3).enumerate() {
            if k % 2 == 0 {
                out.extend([w[0], w[1], w[2]]);
            } else {
                out.extend([w[1], w[0], w[2]]);
            }
        }
    }
    out
}

/// Consecutive runs of point indices, `counts` long each (fanCount,
/// stripCount), within the `n` points there are.
pub(super) fn runs(counts: &[i32], n: usize) -> Vec<Vec<i32>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for &count in counts {
        let end = start.saturating_add(count.max(0) as usize);
        out.push((start..end.min(n)).map(|i| i as i32).collect());
        start = end;
        if start >= n {
            break;
        }
    }
    out
}
