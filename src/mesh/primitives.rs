//! Box, Sphere, Cylinder and Cone, tessellated.

use super::{Mesh, Primitive};
use crate::math;
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};
use std::f32::consts::{PI, TAU};

/// A quad of four corners (counter-clockwise seen from `n`) with UVs.
pub(super) fn quad(m: &mut Mesh, corners: [Vec3; 4], n: Vec3) {
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

pub(super) fn boxed(h: Vec3) -> Mesh {
    let mut m = Mesh::new(Primitive::Triangles);
    // Six quads, made at their size (not grown quad by quad: a scene of
    // many boxes made each of its lists four times).
    m.positions.reserve_exact(24);
    m.normals.reserve_exact(24);
    m.uvs.reserve_exact(24);
    m.indices.reserve_exact(36);
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
pub(super) const SLICES: usize = 32;
pub(super) const STACKS: usize = 16;

pub(super) fn sphere(r: f32) -> Mesh {
    let mut m = Mesh::new(Primitive::Triangles);
    for i in 0..=STACKS {
        let theta = PI * i as f32 / STACKS as f32;
        for j in 0..=SLICES {
            let phi = TAU * j as f32 / SLICES as f32;
            // X3D: texture seam at the back (−Z), u increasing counter-clockwise from above.
            let n = Vec3::new(
                -math::sin(phi) * math::sin(theta),
                math::cos(theta),
                -math::cos(phi) * math::sin(theta),
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
pub(super) fn side(m: &mut Mesh, h: f32, r0: f32, r1: f32) {
    let slope = (r0 - r1) / h;
    let base = m.positions.len() as u32;
    for j in 0..=SLICES {
        let phi = TAU * j as f32 / SLICES as f32;
        let (s, c) = (-math::sin(phi), -math::cos(phi));
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
pub(super) fn cap(m: &mut Mesh, y: f32, r: f32, up: bool) {
    let n = if up { Vec3::Y } else { -Vec3::Y };
    let center = m.positions.len() as u32;
    m.positions.push(Vec3::new(0.0, y, 0.0));
    m.normals.push(n);
    m.uvs.push(Vec2::splat(0.5));
    for j in 0..=SLICES {
        let phi = TAU * j as f32 / SLICES as f32;
        let (s, c) = (-math::sin(phi), -math::cos(phi));
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

pub(super) fn cylinder(scene: &Scene, id: NodeId) -> Mesh {
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

pub(super) fn cone(scene: &Scene, id: NodeId) -> Mesh {
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
