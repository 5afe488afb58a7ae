//! Normals made from a mesh's points: per face, or smooth within a crease angle.

use crate::math;
use glam::Vec3;

/// Normals made from a mesh's points: each face's normal (Newell's), and
/// each corner the average of the faces around its point within the crease
/// angle (its own face's alone without one). Kept with the mesh so that
/// moved points have their normals made without rebuilding the mesh.
#[derive(Clone, Debug, Default)]
pub struct MadeNormals {
    /// The corners of face f are `face_start[f]..face_start[f + 1]`.
    face_start: Vec<u32>,
    /// Clockwise faces (X3D ccw FALSE) turn their normals around.
    flip: bool,
    /// The cosine of the crease angle, or `None` for a normal per face.
    crease_cos: Option<f32>,
    /// The faces around each corner's point, without repeats, in corner
    /// order: those of point c are `around[around_start[c]..around_start[c + 1]]`.
    /// None for a point of more than [`MAX_FACES_AROUND`] faces.
    around_start: Vec<u32>,
    around: Vec<u32>,
    /// Points left flat for having more than [`MAX_FACES_AROUND`] faces.
    pub crowded: usize,
}

/// At most this many faces around a point are compared for its corners'
/// smooth normals (each corner with each face: the work is the square of
/// the count). A point shared by more is flat at each corner, with a
/// warning: a modeller's pole has tens, and the centre of a fan of 100 000
/// triangles took 27 s.
pub const MAX_FACES_AROUND: usize = 1024;

impl MadeNormals {
    /// `face_start` as above; `coord_index` gives each corner's point.
    pub(super) fn new(
        face_start: Vec<u32>,
        ccw: bool,
        crease: f32,
        coord_index: &[u32],
    ) -> MadeNormals {
        let mut made = MadeNormals {
            face_start,
            flip: !ccw,
            crease_cos: (crease > 0.0).then(|| math::cos(crease)),
            ..MadeNormals::default()
        };
        if made.crease_cos.is_some() {
            let points = coord_index
                .iter()
                .map(|&c| c as usize + 1)
                .max()
                .unwrap_or(0);
            let mut faces_at: Vec<Vec<u32>> = vec![Vec::new(); points];
            for (f, w) in made.face_start.windows(2).enumerate() {
                for &c in &coord_index[w[0] as usize..w[1] as usize] {
                    // Faces come in order: a repeat is this face again.
                    let at = &mut faces_at[c as usize];
                    if at.last() != Some(&(f as u32)) {
                        at.push(f as u32);
                    }
                }
            }
            made.around_start.push(0);
            for at in faces_at {
                // An empty list: the corner keeps its own face's normal.
                if at.len() > MAX_FACES_AROUND {
                    made.crowded += 1;
                } else {
                    made.around.extend(at);
                }
                made.around_start.push(made.around.len() as u32);
            }
        }
        made
    }

    /// The unit normal of each corner when the corners are at `corners`
    /// and on the points `coord_index` says.
    pub fn normals(&self, corners: &[Vec3], coord_index: &[u32]) -> Vec<Vec3> {
        let sign = if self.flip { -1.0 } else { 1.0 };
        let faces: Vec<Vec3> = self
            .face_start
            .windows(2)
            .map(|w| {
                let n = newell(&corners[w[0] as usize..w[1] as usize]) * sign;
                n.try_normalize().unwrap_or(Vec3::Y)
            })
            .collect();
        let mut out = Vec::with_capacity(corners.len());
        for (f, w) in self.face_start.windows(2).enumerate() {
            let own = faces[f];
            for &c in &coord_index[w[0] as usize..w[1] as usize] {
                out.push(match self.crease_cos {
                    None => own,
                    Some(cos) => {
                        let c = c as usize;
                        let around = &self.around
                            [self.around_start[c] as usize..self.around_start[c + 1] as usize];
                        // None around a crowded point: a zero sum, and the
                        // corner keeps its own face's normal.
                        let sum: Vec3 = around
                            .iter()
                            .map(|&g| faces[g as usize])
                            .filter(|n| n.dot(own) >= cos)
                            .sum();
                        sum.try_normalize().unwrap_or(own)
                    }
                });
            }
        }
        out
    }
}

/// The normal of a polygon by Newell's method (not normalised; zero for a
/// degenerate polygon).
pub(super) fn newell(p: &[Vec3]) -> Vec3 {
    let mut n = Vec3::ZERO;
    for i in 0..p.len() {
        let (a, b) = (p[i], p[(i + 1) % p.len()]);
        n += Vec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n
}
