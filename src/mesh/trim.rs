//! A NurbsTrimmedSurface's trimming, as X_ITE trims: the trimming contours
//! (closed curves in the surface's parameter space, inside by the even-odd
//! rule) are cut into triangles (lyon), each is intersected with the
//! triangles of the untrimmed grid it overlaps (both convex) where a
//! contour crosses their cell, and each piece's corners take the grid
//! triangle's positions, normals and texture coordinates interpolated
//! across it; the cells no contour crosses are kept whole or left out.

use super::{Mesh, Primitive};
use glam::{Vec2, Vec3};
use lyon_tessellation::path::{Path, math::point};
use lyon_tessellation::{BuffersBuilder, FillOptions, FillRule, FillTessellator, VertexBuffers};

/// How many steps over grid cells the trimming may take (cells marked,
/// crossings found, cells under region triangles).
const MAX_TRIM_CELLS: usize = 20_000_000;

/// The grid `m` of `su` × `sv` quads (two triangles each, in rows of u
/// from v = 0; its vertex `k` at parameter fractions `at[k]`) cut to the
/// region inside `contours` (fractions of the parameter ranges). Cells no
/// contour crosses are kept whole or left out by where their centre is;
/// only the cells a contour crosses are cut. `None` when the contours make
/// no region (the whole surface is drawn).
pub(super) fn trimmed(
    m: &Mesh,
    at: &[Vec2],
    (su, sv): (usize, usize),
    contours: &[Vec<Vec2>],
) -> Option<Mesh> {
    let region = region(contours)?;
    let cell = |x: f32, n: usize| ((x * n as f32).floor().max(0.0) as usize).min(n - 1);
    let cells = |lo: f32, hi: f32, n: usize| cell(lo, n)..=cell(hi, n);
    let closed = || contours.iter().filter(|c| c.len() >= 3);
    let segments =
        || closed().flat_map(|c| (0..c.len()).map(move |k| (c[k], c[(k + 1) % c.len()])));
    // Work (cells marked, crossings found, cells under region triangles)
    // is counted as it goes: a zigzag contour over a fine grid could ask
    // for billions.
    let mut work = 0usize;
    let over_budget = |m: &Mesh| {
        let mut whole = m.clone();
        whole.notes.push(format!(
            "trimming would take more than {MAX_TRIM_CELLS} cell steps: the whole surface is \
             drawn"
        ));
        Some(whole)
    };
    // The cells a contour crosses: sampled at a quarter of a cell along
    // each segment, with their neighbours (a segment touching a cell
    // passes within one cell of a sample).
    let mut crossed = vec![false; su * sv];
    for (p, q) in segments() {
        let d = q - p;
        let steps = (d.x.abs() * su as f32).max(d.y.abs() * sv as f32) * 4.0;
        let steps = (steps.ceil() as usize).clamp(1, MAX_TRIM_CELLS);
        work = work.saturating_add(steps);
        if work > MAX_TRIM_CELLS {
            return over_budget(m);
        }
        for k in 0..=steps {
            let s = p + d * (k as f32 / steps as f32);
            let (i, j) = (cell(s.x, su), cell(s.y, sv));
            for jj in j.saturating_sub(1)..=(j + 1).min(sv - 1) {
                for ii in i.saturating_sub(1)..=(i + 1).min(su - 1) {
                    crossed[jj * su + ii] = true;
                }
            }
        }
    }
    // Which cells are inside: along each row of cell centres, where the
    // contours cross it (even-odd).
    let mut rows: Vec<Vec<f32>> = vec![Vec::new(); sv];
    for (p, q) in segments() {
        let (lo, hi) = (p.y.min(q.y), p.y.max(q.y));
        // The rows whose centre (j + ½)/sv lies in [lo, hi).
        let first = (lo * sv as f32 - 0.5).ceil().max(0.0) as usize;
        let end = ((hi * sv as f32 - 0.5).ceil().max(0.0) as usize).min(sv);
        work = work.saturating_add(end.saturating_sub(first));
        if work > MAX_TRIM_CELLS {
            return over_budget(m);
        }
        for (j, row) in rows.iter_mut().enumerate().take(end).skip(first) {
            let y = (j as f32 + 0.5) / sv as f32;
            if (p.y > y) != (q.y > y) {
                row.push(p.x + (y - p.y) / (q.y - p.y) * (q.x - p.x));
            }
        }
    }
    let mut inside = vec![false; su * sv];
    for (j, xs) in rows.iter_mut().enumerate() {
        xs.sort_by(f32::total_cmp);
        for pair in xs.chunks_exact(2) {
            // The cells whose centre (i + ½)/su lies in [a, b).
            let at = |x: f32| ((x * su as f32 - 0.5).ceil().max(0.0) as usize).min(su);
            for i in at(pair[0])..at(pair[1]) {
                inside[j * su + i] = true;
            }
        }
    }
    // The region triangles over each crossed cell.
    let mut over: Vec<Vec<usize>> = vec![Vec::new(); su * sv];
    for (r, t) in region.indices.chunks_exact(3).enumerate() {
        let p = [t[0], t[1], t[2]].map(|i| region.vertices[i as usize]);
        let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        for j in cells(lo.y, hi.y, sv) {
            for i in cells(lo.x, hi.x, su) {
                work += 1;
                if work > MAX_TRIM_CELLS {
                    return over_budget(m);
                }
                if crossed[j * su + i] {
                    over[j * su + i].push(r);
                }
            }
        }
    }
    let mut out = Mesh::new(Primitive::Triangles);
    for c in 0..su * sv {
        for half in 0..2 {
            let t = 2 * c + half;
            let Some(grid) = m.indices.get(3 * t..3 * t + 3) else {
                continue;
            };
            let grid = [grid[0], grid[1], grid[2]].map(|k| k as usize);
            if !crossed[c] {
                if inside[c] {
                    whole(m, grid, &mut out);
                }
                continue;
            }
            for &r in &over[c] {
                let i = &region.indices[3 * r..3 * r + 3];
                let piece = [i[0], i[1], i[2]].map(|k| region.vertices[k as usize]);
                cut(m, at, grid, &piece, &mut out);
            }
        }
    }
    Some(out)
}

/// A grid triangle kept whole.
fn whole(m: &Mesh, grid: [usize; 3], out: &mut Mesh) {
    let base = out.positions.len() as u32;
    for k in grid {
        out.positions.push(m.positions[k]);
        if !m.normals.is_empty() {
            out.normals.push(m.normals[k]);
        }
        if !m.uvs.is_empty() {
            out.uvs.push(m.uvs[k]);
        }
    }
    out.indices.extend([base, base + 1, base + 2]);
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
