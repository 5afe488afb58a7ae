//! A NurbsTrimmedSurface's trimming, as X_ITE trims: the trimming contours
//! (closed curves in the surface's parameter space, inside by the even-odd
//! rule) are cut into triangles (lyon), each is intersected with the
//! triangles of the untrimmed grid it overlaps (both convex), and each
//! piece's corners take the grid triangle's positions, normals and texture
//! coordinates interpolated across it.

use super::*;
use lyon_tessellation::path::{Path, math::point};
use lyon_tessellation::{BuffersBuilder, FillOptions, FillRule, FillTessellator, VertexBuffers};

/// The grid `m` of `su` × `sv` quads (two triangles each, in rows of u
/// from v = 0; its vertex `k` at parameter fractions `at[k]`) cut to the
/// region inside `contours` (fractions of the parameter ranges). `None`
/// when the contours make no region (the whole surface is drawn).
pub(super) fn trimmed(
    m: &Mesh,
    at: &[Vec2],
    (su, sv): (usize, usize),
    contours: &[Vec<Vec2>],
) -> Option<Mesh> {
    let region = region(contours)?;
    let mut out = Mesh::new(Primitive::Triangles);
    let cells = |lo: f32, hi: f32, n: usize| {
        let cell = |x: f32| ((x * n as f32).floor().max(0.0) as usize).min(n - 1);
        cell(lo)..=cell(hi)
    };
    for r in region.indices.chunks_exact(3) {
        let piece = [r[0], r[1], r[2]].map(|i| region.vertices[i as usize]);
        let lo = piece[0].min(piece[1]).min(piece[2]);
        let hi = piece[0].max(piece[1]).max(piece[2]);
        for j in cells(lo.y, hi.y, sv) {
            for i in cells(lo.x, hi.x, su) {
                for half in 0..2 {
                    let t = 2 * (j * su + i) + half;
                    let Some(grid) = m.indices.get(3 * t..3 * t + 3) else {
                        continue;
                    };
                    let grid = [grid[0], grid[1], grid[2]].map(|k| k as usize);
                    cut(m, at, grid, &piece, &mut out);
                }
            }
        }
    }
    Some(out)
}

/// The trimming region as triangles, or `None` for no closed contour.
fn region(contours: &[Vec<Vec2>]) -> Option<VertexBuffers<Vec2, u32>> {
    let mut path = Path::builder();
    let mut any = false;
    for c in contours.iter().filter(|c| c.len() >= 3) {
        if !c.iter().all(|p| p.is_finite()) {
            continue;
        }
        path.begin(point(c[0].x, c[0].y));
        for p in &c[1..] {
            path.line_to(point(p.x, p.y));
        }
        path.end(true);
        any = true;
    }
    if !any {
        return None;
    }
    let mut buffers: VertexBuffers<Vec2, u32> = VertexBuffers::new();
    let options = FillOptions::tolerance(1e-4).with_fill_rule(FillRule::EvenOdd);
    FillTessellator::new()
        .tessellate_path(
            &path.build(),
            &options,
            &mut BuffersBuilder::new(&mut buffers, |v: lyon_tessellation::FillVertex| {
                Vec2::new(v.position().x, v.position().y)
            }),
        )
        .ok()?;
    Some(buffers)
}

/// Twice the signed area of a triangle.
fn twice_area(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (b - a).perp_dot(c - a)
}

/// The part of the grid triangle (vertices `grid` of `m`) that region
/// triangle `piece` covers, added to `out` facing as the grid triangle.
fn cut(m: &Mesh, at: &[Vec2], grid: [usize; 3], piece: &[Vec2; 3], out: &mut Mesh) {
    let g = grid.map(|k| at[k]);
    let whole = twice_area(g[0], g[1], g[2]);
    if whole == 0.0 {
        return;
    }
    // Sutherland–Hodgman: the piece clipped by each edge of the grid
    // triangle (both convex), the inside on the grid triangle's side.
    let mut poly: Vec<Vec2> = piece.to_vec();
    if twice_area(piece[0], piece[1], piece[2]) * whole < 0.0 {
        poly.reverse();
    }
    for e in 0..3 {
        let (a, b) = (g[e], g[(e + 1) % 3]);
        let side = |p: Vec2| twice_area(a, b, p) * whole.signum();
        let input = std::mem::take(&mut poly);
        for (k, &p) in input.iter().enumerate() {
            let q = input[(k + 1) % input.len()];
            let (sp, sq) = (side(p), side(q));
            if sp >= 0.0 {
                poly.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                poly.push(p + (q - p) * (sp / (sp - sq)));
            }
        }
        if poly.len() < 3 {
            return;
        }
    }
    // Each corner from the grid triangle's by its barycentric weights.
    let base = out.positions.len() as u32;
    for &p in &poly {
        let w = [
            twice_area(p, g[1], g[2]) / whole,
            twice_area(g[0], p, g[2]) / whole,
            twice_area(g[0], g[1], p) / whole,
        ];
        let blend3 = |v: &[Vec3]| (0..3).map(|i| v[grid[i]] * w[i]).sum::<Vec3>();
        let blend2 = |v: &[Vec2]| (0..3).map(|i| v[grid[i]] * w[i]).sum::<Vec2>();
        out.positions.push(blend3(&m.positions));
        if !m.normals.is_empty() {
            out.normals
                .push(blend3(&m.normals).try_normalize().unwrap_or(Vec3::Y));
        }
        if !m.uvs.is_empty() {
            out.uvs.push(blend2(&m.uvs));
        }
    }
    for k in 1..poly.len() as u32 - 1 {
        out.indices.extend([base, base + k, base + k + 1]);
    }
}
