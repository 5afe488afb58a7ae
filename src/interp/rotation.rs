//! Rotations: axis-angle ⇄ quaternion, slerp on the shorter arc, and
//! Shoemake's squad.

use crate::math;
use glam::{DQuat, DVec3};

/// An SFRotation field's four numbers as [`from_axis_angle`] turns them;
/// no rotation when there are fewer (a node type without the field).
pub fn from_sf_rotation(axis_angle: &[f32]) -> DQuat {
    if axis_angle.len() < 4 {
        return DQuat::IDENTITY;
    }
    let r: Vec<f64> = axis_angle.iter().map(|&x| f64::from(x)).collect();
    from_axis_angle(&r)
}

/// An X3D SFRotation (axis x, y, z, angle) as a unit quaternion. The axis
/// need not be unit length; a zero axis is no rotation.
pub fn from_axis_angle(r: &[f64]) -> DQuat {
    let axis = DVec3::new(r[0], r[1], r[2]);
    let len = axis.length();
    if len == 0.0 || !len.is_finite() {
        return DQuat::IDENTITY;
    }
    DQuat::from_axis_angle(axis / len, r[3])
}

/// A unit quaternion as an X3D rotation: unit axis, angle in [0, π].
pub fn to_axis_angle(q: DQuat) -> [f64; 4] {
    let q = if q.w < 0.0 { -q } else { q };
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-12 {
        return [0.0, 0.0, 1.0, 0.0];
    }
    let angle = 2.0 * math::atan2(s, q.w);
    let a = v / s;
    [a.x, a.y, a.z, angle]
}

/// Spherical linear interpolation on the shorter arc.
pub fn slerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
    Slerp::new(a, b).at(t)
}

/// The shorter arc from one rotation to another, its angle found once for
/// [`slerp`] at many points (the same numbers, point by point).
pub struct Slerp {
    a: DQuat,
    /// The second end, in the first's hemisphere.
    b: DQuat,
    /// The arc's angle in 4D and its sine; `None` where the ends are one
    /// rotation (every point is the first).
    angle: Option<(f64, f64)>,
}

impl Slerp {
    pub fn new(a: DQuat, b: DQuat) -> Slerp {
        let mut cos = a.dot(b);
        let mut b = b;
        if cos < 0.0 {
            cos = -cos;
            b = -b;
        }
        let angle = (cos < 1.0 - 1e-15).then(|| {
            let omega = math::acos(cos);
            (omega, math::sin(omega))
        });
        Slerp { a, b, angle }
    }

    /// The point a fraction `t` along the arc.
    pub fn at(&self, t: f64) -> DQuat {
        let (a, b) = (self.a, self.b);
        let Some((omega, sin)) = self.angle else {
            return a;
        };
        let s0 = math::sin((1.0 - t) * omega) / sin;
        let s1 = math::sin(t * omega) / sin;
        DQuat::from_xyzw(
            a.x * s0 + b.x * s1,
            a.y * s0 + b.y * s1,
            a.z * s0 + b.z * s1,
            a.w * s0 + b.w * s1,
        )
    }
}

/// The quaternion logarithm (a pure quaternion; `w` is log |q|).
fn log(q: DQuat) -> DQuat {
    let v = DVec3::new(q.x, q.y, q.z);
    let vl = v.length();
    let l = q.length();
    if vl < 1e-15 {
        return DQuat::from_xyzw(0.0, 0.0, 0.0, math::ln(l));
    }
    let v = v / vl * math::acos((q.w / l).clamp(-1.0, 1.0));
    DQuat::from_xyzw(v.x, v.y, v.z, math::ln(l))
}

fn exp(q: DQuat) -> DQuat {
    let v = DVec3::new(q.x, q.y, q.z);
    let vl = v.length();
    let ew = math::exp(q.w);
    if vl < 1e-15 {
        return DQuat::from_xyzw(0.0, 0.0, 0.0, ew);
    }
    let v = v * (ew * math::sin(vl) / vl);
    DQuat::from_xyzw(v.x, v.y, v.z, ew * math::cos(vl))
}

/// Shoemake's inner control point at `q1` between neighbours `q0` and `q2`:
/// s = q1·exp(−(log(q1⁻¹q0) + log(q1⁻¹q2))/4), neighbours flipped to the
/// hemisphere of `q1` first.
pub fn squad_inner(q0: DQuat, q1: DQuat, q2: DQuat) -> DQuat {
    let q0 = if q0.dot(q1) < 0.0 { -q0 } else { q0 };
    let q2 = if q2.dot(q1) < 0.0 { -q2 } else { q2 };
    let inv = q1.inverse();
    let sum = log(inv * q0) + log(inv * q2);
    (q1 * exp(sum * -0.25)).normalize()
}

/// Spherical linear interpolation along the great arc from `a` to `b` as
/// given (no sign flip: the longer arc when their dot product is negative),
/// so that it moves continuously as `a` and `b` do. Antipodal ends (the
/// same rotation) give `a`.
pub fn slerp_plain(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let cos = a.dot(b).clamp(-1.0, 1.0);
    let omega = math::acos(cos);
    let sin = math::sin(omega);
    if sin < 1e-12 {
        return a;
    }
    let (s0, s1) = (
        math::sin((1.0 - t) * omega) / sin,
        math::sin(t * omega) / sin,
    );
    DQuat::from_xyzw(
        a.x * s0 + b.x * s1,
        a.y * s0 + b.y * s1,
        a.z * s0 + b.z * s1,
        a.w * s0 + b.w * s1,
    )
}

/// squad(q_i, q_{i+1}, s_i, s_{i+1}; t) = slerp(slerp(q_i, q_{i+1}, t),
/// slerp(s_i, s_{i+1}, t), 2t(1 − t)): the inner slerps on the shorter arc
/// (as X_ITE), the outer one Shoemake's plain slerp, so that the curve is
/// continuous inside a segment (docs/interpretations.md; X_ITE flips the
/// outer one too and jumps by up to π where the inner ones drift more than
/// 90° apart in quaternion space).
pub fn squad(q0: DQuat, q1: DQuat, s0: DQuat, s1: DQuat, t: f64) -> DQuat {
    slerp_plain(slerp(q0, q1, t), slerp(s0, s1, t), 2.0 * t * (1.0 - t))
}

/// Two rotations are the same (q and −q are equal).
pub fn same_rotation(a: DQuat, b: DQuat, tolerance: f64) -> bool {
    (1.0 - a.dot(b).abs()) <= tolerance
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    #[test]
    fn axis_angle_round_trip_and_zero_axis() {
        let q = from_axis_angle(&[0.0, 2.0, 0.0, FRAC_PI_2]);
        let r = to_axis_angle(q);
        assert!((r[1] - 1.0).abs() < 1e-12 && (r[3] - FRAC_PI_2).abs() < 1e-12);
        assert_eq!(from_axis_angle(&[0.0, 0.0, 0.0, 1.0]), DQuat::IDENTITY);
        // An angle over π comes back as the same rotation about the opposite axis.
        let r = to_axis_angle(from_axis_angle(&[0.0, 0.0, 1.0, 1.5 * PI]));
        assert!((r[2] + 1.0).abs() < 1e-12 && (r[3] - 0.5 * PI).abs() < 1e-12);
    }

    #[test]
    fn slerp_takes_the_shorter_arc_and_is_unit() {
        let a = from_axis_angle(&[0.0, 0.0, 1.0, 0.0]);
        let b = from_axis_angle(&[0.0, 0.0, 1.0, 1.5 * PI]); // = -π/2 about z
        let m = to_axis_angle(slerp(a, b, 0.5));
        // Halfway on the shorter arc is −π/4 about z.
        assert!(
            (m[2] + 1.0).abs() < 1e-12 && (m[3] - PI / 4.0).abs() < 1e-12,
            "{m:?}"
        );
        for i in 0..=10 {
            let q = slerp(a, b, i as f64 / 10.0);
            assert!((q.length() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn squad_with_collinear_keys_is_slerp() {
        // Rotations about one axis: the inner points lie on the same great
        // circle, so squad equals slerp at uniform spacing.
        let q: Vec<DQuat> = [0.0, 0.5, 1.0]
            .iter()
            .map(|&a| from_axis_angle(&[0.0, 1.0, 0.0, a]))
            .collect();
        let s1 = squad_inner(q[0], q[1], q[2]);
        assert!(same_rotation(s1, q[1], 1e-12));
        let v = squad(q[0], q[1], q[0], s1, 0.5);
        assert!(same_rotation(
            v,
            from_axis_angle(&[0.0, 1.0, 0.0, 0.25]),
            1e-9
        ));
    }
}
