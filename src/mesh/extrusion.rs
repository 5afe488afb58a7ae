//! Extrusion: a 2D cross-section swept along a 3D spine, scaled and turned
//! at each spine point (X3D 19775-1, 13.3.5).

use super::generated::{Corner, Drawing, faces_mesh};
use super::{MAX_GENERATED_POINTS, Mesh, Overrides, Primitive, vec3s};
use crate::scene::{NodeId, Scene};
use glam::{Vec2, Vec3};

/// The axes of the spine-aligned cross-section plane (SCP) at each spine
/// point, as the text defines them: Y along the spine (from the point
/// before to the point after), Z perpendicular to the spine's bend (the
/// one before where the spine is straight there, turned to agree with the
/// one before), X = Y × Z. Coincident spine points share their neighbours'
/// plane; a spine straight throughout gets the rotation that takes +Y onto
/// its direction.
fn planes(spine: &[Vec3], closed: bool) -> Vec<[Vec3; 3]> {
    let n = spine.len();
    // The nearest spine point before and after i that is not at i (with a
    // closed spine, around its seam).
    let step = |i: usize, forward: bool| -> Option<usize> {
        let mut j = i;
        for _ in 0..n {
            j = match (forward, closed) {
                (true, _) if j + 1 < n => j + 1,
                (true, true) => 1,
                (false, _) if j > 0 => j - 1,
                (false, true) => n - 2,
                _ => return None,
            };
            if spine[j] != spine[i] {
                return Some(j);
            }
        }
        None
    };
    let ys: Vec<Vec3> = (0..n)
        .map(|i| {
            let (prev, next) = (step(i, false), step(i, true));
            let a = prev.map_or(spine[i], |p| spine[p]);
            let b = next.map_or(spine[i], |q| spine[q]);
            (b - a).normalize_or_zero()
        })
        .collect();
    let zs: Vec<Vec3> = (0..n)
        .map(|i| match (step(i, false), step(i, true)) {
            (Some(p), Some(q)) => (spine[q] - spine[i])
                .cross(spine[p] - spine[i])
                .normalize_or_zero(),
            _ => Vec3::ZERO,
        })
        .collect();
    let straight = zs.iter().all(|z| *z == Vec3::ZERO);
    // A straight spine: the rotation of +Y onto its direction turns +Z.
    let direction = ys
        .iter()
        .copied()
        .find(|y| *y != Vec3::ZERO)
        .unwrap_or(Vec3::Y);
    let turned = glam::Quat::from_rotation_arc(Vec3::Y, direction);
    let mut out = Vec::with_capacity(n);
    let mut last_z: Option<Vec3> = None;
    for i in 0..n {
        let y = if ys[i] == Vec3::ZERO {
            direction
        } else {
            ys[i]
        };
        let z = if straight {
            turned * Vec3::Z
        } else {
            let mut z = zs[i];
            if z == Vec3::ZERO {
                // An end of an open spine, or a straight stretch: the
                // neighbour's (the one before, or the first found after).
                z = last_z.unwrap_or_else(|| {
                    zs.iter()
                        .copied()
                        .find(|z| *z != Vec3::ZERO)
                        .unwrap_or(Vec3::Z)
                });
            } else if last_z.is_some_and(|l| l.dot(z) < 0.0) {
                z = -z;
            }
            z
        };
        last_z = Some(z);
        let x = y.cross(z).normalize_or_zero();
        out.push([x, y, z]);
    }
    out
}

/// The `i`th of a list of values, the last one past its end.
fn nth<T: Copy>(list: &[T], i: usize, default: T) -> T {
    list.get(i).or(list.last()).copied().unwrap_or(default)
}

pub(super) fn extrusion(scene: &Scene, rest: &Overrides, id: NodeId) -> Mesh {
    let v2 = |f: &str| -> Vec<Vec2> {
        rest.floats(scene, id, f)
            .chunks_exact(2)
            .map(Vec2::from_slice)
            .collect()
    };
    let orientation: Vec<glam::Quat> = rest
        .floats(scene, id, "orientation")
        .chunks_exact(4)
        .map(|r| {
            let axis = Vec3::new(r[0], r[1], r[2]).normalize_or_zero();
            if axis == Vec3::ZERO {
                glam::Quat::IDENTITY
            } else {
                glam::Quat::from_axis_angle(axis, r[3])
            }
        })
        .collect();
    let sweep = Sweep {
        spine: vec3s(rest.floats(scene, id, "spine")),
        cross: v2("crossSection"),
        scale: v2("scale"),
        orientation,
        caps: [scene.flag(id, "beginCap"), scene.flag(id, "endCap")],
    };
    sweep.mesh(Drawing::of(scene, id))
}

/// A cross-section swept along a spine: an Extrusion's fields, or the
/// curves of a NurbsSweptSurface or NurbsSwungSurface tessellated.
pub(super) struct Sweep {
    pub(super) spine: Vec<Vec3>,
    pub(super) cross: Vec<Vec2>,
    /// Per spine point (the last for the rest; none: 1 1).
    pub(super) scale: Vec<Vec2>,
    /// Per spine point (the last for the rest; none: no turn).
    pub(super) orientation: Vec<glam::Quat>,
    /// beginCap, endCap.
    pub(super) caps: [bool; 2],
}

impl Sweep {
    /// The sides (and caps) drawn as `drawing` says, the sides cut along
    /// their first diagonal.
    pub(super) fn mesh(&self, drawing: Drawing) -> Mesh {
        let Sweep {
            spine,
            cross,
            scale,
            orientation,
            caps,
        } = self;
        let (ns, nc) = (spine.len(), cross.len());
        if ns < 2 || nc < 2 {
            return Mesh::new(Primitive::Triangles);
        }
        let spine_closed = spine[0] == spine[ns - 1];
        let cross_closed = cross[0] == cross[nc - 1];
        let axes = planes(spine, spine_closed);
        // Points: a ring of the cross-section at each spine point (a closed
        // spine's last ring is its first; a closed cross-section's last point
        // its first, so that normals meet smoothly across the seams).
        let rings = if spine_closed { ns - 1 } else { ns };
        let per_ring = if cross_closed { nc - 1 } else { nc };
        let total = rings.saturating_mul(per_ring);
        if total > MAX_GENERATED_POINTS {
            return Mesh::refused(
                Primitive::Triangles,
                format!(
                    "{rings} spine points × {per_ring} cross-section points would be {total} \
                     points, more than {MAX_GENERATED_POINTS}: not drawn"
                ),
            );
        }
        let mut points = Vec::with_capacity(total);
        for i in 0..rings {
            let [x, y, z] = axes[i];
            let (s, r) = (
                nth(scale, i, Vec2::ONE),
                nth(orientation, i, glam::Quat::IDENTITY),
            );
            for c in &cross[..per_ring] {
                let local = r * Vec3::new(c.x * s.x, 0.0, c.y * s.y);
                points.push(spine[i] + x * local.x + y * local.y + z * local.z);
            }
        }
        let point = |i: usize, j: usize| (i % rings) * per_ring + (j % per_ring);
        // Texture coordinates: s along the cross-section, t along the spine,
        // each by length.
        let running = |lengths: Vec<f32>| -> Vec<f32> {
            let total: f32 = lengths.iter().sum();
            let mut at = 0.0;
            let mut out = vec![0.0];
            for l in lengths {
                at += l;
                out.push(if total > 0.0 { at / total } else { 0.0 });
            }
            out
        };
        let s_at = running(cross.windows(2).map(|w| w[0].distance(w[1])).collect());
        let t_at = running(spine.windows(2).map(|w| w[0].distance(w[1])).collect());
        let mut faces = Vec::new();
        for i in 0..ns - 1 {
            for j in 0..nc - 1 {
                faces.push(vec![
                    Corner::new(point(i, j), Vec2::new(s_at[j], t_at[i])),
                    Corner::new(point(i, j + 1), Vec2::new(s_at[j + 1], t_at[i])),
                    Corner::new(point(i + 1, j + 1), Vec2::new(s_at[j + 1], t_at[i + 1])),
                    Corner::new(point(i + 1, j), Vec2::new(s_at[j], t_at[i + 1])),
                ]);
            }
        }
        // Caps: the cross-section at each end, facing away from the spine;
        // texture coordinates over its bounds, 0 to 1 along the longer side.
        let (lo, hi) = cross
            .iter()
            .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(*c), hi.max(*c))
            });
        let side = (hi - lo).max_element().max(f32::MIN_POSITIVE);
        let cap = |ring: usize, reverse: bool| -> Vec<Corner> {
            let mut corners: Vec<Corner> = (0..per_ring)
                .map(|j| Corner::new(point(ring, j), (cross[j] - lo) / side))
                .collect();
            if reverse {
                corners.reverse();
            }
            corners
        };
        if !spine_closed {
            if caps[0] {
                faces.push(cap(0, true));
            }
            if caps[1] {
                faces.push(cap(ns - 1, false));
            }
        }
        let drawing = Drawing {
            cells: (ns - 1) * (nc - 1),
            ..drawing
        };
        faces_mesh(&points, &faces, drawing)
    }
}
