//! ElevationGrid: a grid of heights over the XZ plane.

use super::generated::{Corner, Drawing, faces_mesh};

use super::{Mesh, Overrides, Primitive, colors, given_normals, uvs};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};

/// The grid's xDimension × zDimension points (x = i·xSpacing, y = the
/// height, z = j·zSpacing), a quad a cell from (i, j) to (i+1, j+1) facing
/// +y when ccw (see [`grid`]).
pub(super) fn elevation_grid(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let dim = |f: &str| scene.ints(id, f).first().map_or(0, |&d| d.max(0) as usize);
    let (nx, nz) = (dim("xDimension"), dim("zDimension"));
    let spacing = |f: &str| scene.floats(id, f).first().copied().unwrap_or(1.0);
    let (dx, dz) = (spacing("xSpacing"), spacing("zSpacing"));
    let heights = rest.floats(scene, id, "height");
    if nx < 2 || nz < 2 || heights.len() < nx.saturating_mul(nz) {
        return Mesh::new(Primitive::Triangles);
    }
    let at = |i: usize, j: usize| i + j * nx;
    let points: Vec<Vec3> = (0..nz)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| Vec3::new(i as f32 * dx, heights[at(i, j)], j as f32 * dz))
        .collect();
    grid(scene, rest, id, [nx, nz], &points, false)
}

/// The faces of a grid of nx × nz points (row j after row j−1), a quad a
/// cell from (i, j) to (i+1, j+1), the corners in the order ElevationGrid
/// gives them (turned the other way with `reversed`, as GeoElevationGrid's
/// rows run north, not south); colours and normals per point or per quad
/// from the node's Color and Normal; texture coordinates from its texCoord
/// node, else s = i/(nx−1) and t = j/(nz−1).
pub(super) fn grid(
    scene: &Scene,
    rest: &Overrides,
    id: NodeId,
    [nx, nz]: [usize; 2],
    points: &[Vec3],
    reversed: bool,
) -> Mesh {
    let at = |i: usize, j: usize| i + j * nx;
    let cols = colors(scene, id);
    let color_per_vertex = scene.flag(id, "colorPerVertex");
    let given_normals = given_normals(scene, rest, id);
    let normal_per_vertex = scene.flag(id, "normalPerVertex");
    let tex = uvs(scene, rest, id);
    let mut faces = Vec::with_capacity((nx - 1) * (nz - 1));
    for j in 0..nz - 1 {
        for i in 0..nx - 1 {
            let quad = (j * (nx - 1)) + i;
            let mut corners = [(i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j)];
            if reversed {
                corners[1..].reverse();
            }
            let face = corners
                .map(|(ci, cj)| {
                    let p = at(ci, cj);
                    let uv = tex.get(p).copied().unwrap_or_else(|| {
                        Vec2::new(ci as f32 / (nx - 1) as f32, cj as f32 / (nz - 1) as f32)
                    });
                    let pick = |per_vertex: bool| if per_vertex { p } else { quad };
                    Corner {
                        point: p,
                        uv,
                        color: (!cols.is_empty())
                            .then(|| *cols.get(pick(color_per_vertex)).unwrap_or(&[1.0; 4])),
                        normal: given_normals.get(pick(normal_per_vertex)).copied(),
                    }
                })
                .to_vec();
            faces.push(face);
        }
    }
    // No convex field: each quad is drawn as two triangles.
    faces_mesh(points, &faces, Drawing::of(scene, id))
}
