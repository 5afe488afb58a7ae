//! The interpolation maths through its public API: hand-computed values for
//! every node type (table-driven), the edge rules of docs/interpretations.md, and
//! properties over deterministic pseudo-random inputs (splines pass through
//! their keys, closed splines are C1 at the seam, rotations and normals stay
//! unit, exact descriptions evaluate like the interpolators).

use crate::util;

use glam::DQuat;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4};
use util::Rng;
use x3dbake::internal::interp::{
    Ease, Interpolator, KeyWarning, Kind, Spec, TangentRule, rotation,
};

struct Opts {
    velocity: Vec<f64>,
    closed: bool,
    normalize: bool,
    rule: TangentRule,
}

const PLAIN: Opts = Opts {
    velocity: Vec::new(),
    closed: false,
    normalize: false,
    rule: TangentRule::AsWritten,
};

fn build_with(
    node: &str,
    keys: &[f64],
    kv: &[f64],
    o: &Opts,
    w: &mut Vec<KeyWarning>,
) -> Interpolator {
    let (kind, elem, multiple) = Kind::of_node(node).unwrap();
    Interpolator::new(
        Spec {
            kind,
            keys,
            key_value: kv.into(),
            elem,
            multiple,
            key_velocity: &o.velocity,
            closed: o.closed,
            normalize_velocity: o.normalize,
            rule: o.rule,
        },
        w,
    )
}

fn build(node: &str, keys: &[f64], kv: &[f64]) -> Interpolator {
    let mut w = Vec::new();
    let it = build_with(node, keys, kv, &PLAIN, &mut w);
    assert!(w.is_empty(), "{node}: {w:?}");
    it
}

fn at(it: &Interpolator, f: f64) -> Vec<f64> {
    let mut out = Vec::new();
    it.eval(f, &mut out);
    out
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

fn q(axis_angle: [f64; 4]) -> Vec<f64> {
    rotation::from_axis_angle(&axis_angle).to_array().to_vec()
}

#[test]
fn hand_computed_values_for_every_node_type() {
    // Hermite weights at s = 0.5 are [0.5, 0.5, 0.125, -0.125].
    type Case = (&'static str, Vec<f64>, Vec<f64>, f64, Vec<f64>);
    #[rustfmt::skip]
    let table: Vec<Case> = vec![
        ("ScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 10.0, 4.0], 0.25, vec![5.0]),
        ("ScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 10.0, 4.0], 0.75, vec![7.0]),
        ("ScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 10.0, 4.0], -3.0, vec![0.0]),
        ("ScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 10.0, 4.0], 9.0, vec![4.0]),
        ("PositionInterpolator", vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 2.0, 4.0, 6.0], 0.25, vec![0.5, 1.0, 1.5]),
        ("PositionInterpolator2D", vec![0.0, 1.0], vec![1.0, 1.0, 3.0, 5.0], 0.5, vec![2.0, 3.0]),
        ("CoordinateInterpolator", vec![0.0, 1.0],
            vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 1.0, 3.0, 1.0], 0.5,
            vec![1.0, 0.0, 0.0, 1.0, 2.0, 1.0]),
        ("CoordinateInterpolator2D", vec![0.0, 1.0], vec![0.0, 0.0, 1.0, 1.0, 4.0, 0.0, 1.0, 5.0], 0.25,
            vec![1.0, 0.0, 1.0, 2.0]),
        // Red to green: halfway in HSV is yellow (in RGB it would be 0.5 0.5 0).
        ("ColorInterpolator", vec![0.0, 1.0], vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 0.5, vec![1.0, 1.0, 0.0]),
        // Normals are normalised first, then move along the great circle.
        ("NormalInterpolator", vec![0.0, 1.0], vec![2.0, 0.0, 0.0, 0.0, 1.0, 0.0], 0.5,
            vec![FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0]),
        ("OrientationInterpolator", vec![0.0, 1.0], vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, FRAC_PI_2], 0.5,
            q([0.0, 1.0, 0.0, FRAC_PI_4])),
        // Uniform keys, values 0 1 3: T_1 = 1.5, ends 0; at s = 0.5 of the
        // first segment 0.5·1 − 0.125·1.5 = 0.3125.
        ("SplineScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 1.0, 3.0], 0.25, vec![0.3125]),
        // Second segment: 0.5·1 + 0.5·3 + 0.125·1.5 = 2.1875.
        ("SplineScalarInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 1.0, 3.0], 0.75, vec![2.1875]),
        ("SplinePositionInterpolator", vec![0.0, 0.5, 1.0], vec![0.0, 0.0, 5.0, 1.0, 2.0, 5.0, 3.0, 6.0, 5.0], 0.25,
            vec![0.3125, 0.625, 5.0]),
        ("SplinePositionInterpolator2D", vec![0.0, 0.5, 1.0], vec![0.0, 0.0, 1.0, -1.0, 3.0, -3.0], 0.25,
            vec![0.3125, -0.3125]),
        // Two keys: squad is slerp.
        ("SquadOrientationInterpolator", vec![0.0, 1.0], vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], 0.3,
            q([1.0, 0.0, 0.0, 0.3])),
        ("BooleanSequencer", vec![0.0, 0.5, 1.0], vec![1.0, 0.0, 1.0], 0.49, vec![1.0]),
        ("BooleanSequencer", vec![0.0, 0.5, 1.0], vec![1.0, 0.0, 1.0], 0.5, vec![0.0]),
        ("IntegerSequencer", vec![0.0, 0.25, 0.75], vec![3.0, -1.0, 7.0], 0.8, vec![7.0]),
        ("IntegerSequencer", vec![0.0, 0.25, 0.75], vec![3.0, -1.0, 7.0], -0.1, vec![3.0]),
    ];
    for (node, keys, kv, f, want) in table {
        let got = at(&build(node, &keys, &kv), f);
        assert!(
            close(&got, &want, 1e-12),
            "{node} at {f}: got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn hand_computed_non_uniform_spline_both_rules() {
    // keys 0 0.25 1, values 0 1 3: T_1 = 1.5, F+_1 = 0.5, F−_1 = 1.5.
    let keys = [0.0, 0.25, 1.0];
    let kv = [0.0, 1.0, 3.0];
    let mut w = Vec::new();
    let as_written = build_with("SplineScalarInterpolator", &keys, &kv, &PLAIN, &mut w);
    // First segment at s = 0.5 (f = 0.125): incoming tangent at key 1 is
    // F−_1·T_1 = 2.25: 0.5 − 0.125·2.25.
    assert!(close(&at(&as_written, 0.125), &[0.5 - 0.28125], 1e-12));
    let c1 = Opts {
        rule: TangentRule::C1,
        ..PLAIN
    };
    let c1 = build_with("SplineScalarInterpolator", &keys, &kv, &c1, &mut w);
    // C1 reading: incoming tangent F+_1·T_1 = 0.75.
    assert!(close(&at(&c1, 0.125), &[0.5 - 0.09375], 1e-12));
}

#[test]
fn ease_in_ease_out_hand_value() {
    // One segment [0, 1], easeOut 0.4 at key 0, easeIn 0.3 at key 1.
    let e = Ease::new(vec![0.0, 1.0], &[0.0, 0.4, 0.3, 0.0]);
    assert!((e.modify(0.5) - 0.6 / 1.3).abs() < 1e-15);
}

#[test]
fn edge_rules_from_notes() {
    let mut w = Vec::new();
    // Repeated key: the left value before it, the last repeated value at it.
    let it = build(
        "ScalarInterpolator",
        &[0.0, 0.5, 0.5, 1.0],
        &[0.0, 1.0, 5.0, 6.0],
    );
    assert!(close(&at(&it, 0.4999), &[0.9998], 1e-9));
    assert_eq!(at(&it, 0.5), vec![5.0]);
    // One key: always its value.
    assert_eq!(
        at(&build("ScalarInterpolator", &[0.3], &[2.0]), 0.9),
        vec![2.0]
    );
    // Empty key: no output.
    let empty = build("PositionInterpolator", &[], &[]);
    assert!(!empty.produces() && at(&empty, 0.5).is_empty());
    // Short keyValue: padded with its last value, with a warning.
    let it = build_with(
        "ScalarInterpolator",
        &[0.0, 0.5, 1.0],
        &[0.0, 2.0],
        &PLAIN,
        &mut w,
    );
    assert_eq!(at(&it, 0.75), vec![2.0]);
    assert_eq!(w, vec![KeyWarning::ShortKeyValue { keys: 3, values: 2 }]);
    // Coordinate: floor(values / keys) per key.
    w.clear();
    let it = build_with(
        "CoordinateInterpolator",
        &[0.0, 1.0],
        &[0.0; 15],
        &PLAIN,
        &mut w,
    );
    assert_eq!(at(&it, 0.5).len(), 6);
    assert_eq!(w, vec![KeyWarning::NotAMultiple { keys: 2, values: 5 }]);
    // Decreasing keys: a warning, and upper-bound search.
    w.clear();
    let it = build_with(
        "ScalarInterpolator",
        &[0.0, 0.8, 0.4, 1.0],
        &[0.0, 8.0, 4.0, 10.0],
        &PLAIN,
        &mut w,
    );
    assert_eq!(w, vec![KeyWarning::Decreasing { index: 2 }]);
    assert_eq!(at(&it, 1.0), vec![10.0]);
    // Opposite normals: a warning, and the output stays unit length.
    w.clear();
    let it = build_with(
        "NormalInterpolator",
        &[0.0, 1.0],
        &[0.0, 0.0, 1.0, 0.0, 0.0, -1.0],
        &PLAIN,
        &mut w,
    );
    assert_eq!(w, vec![KeyWarning::OppositeNormals { key: 0 }]);
    let v = at(&it, 0.5);
    assert!((v.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
}

fn fractions() -> impl Iterator<Item = f64> {
    (-10..=1010).map(|i| i as f64 / 1000.0)
}

#[test]
fn splines_pass_through_their_keys() {
    let mut r = Rng(7);
    for case in 0..200 {
        let n = 2 + case % 7;
        let width = 1 + case % 3;
        let node = [
            "SplineScalarInterpolator",
            "SplinePositionInterpolator2D",
            "SplinePositionInterpolator",
        ][width - 1];
        let keys = r.keys(n);
        let mut kv = r.values(n * width);
        let closed = case % 2 == 0;
        if closed {
            let first = kv[..width].to_vec();
            kv[(n - 1) * width..].copy_from_slice(&first);
        }
        let velocity = if case % 5 == 1 {
            r.values(n * width)
        } else {
            Vec::new()
        };
        let o = Opts {
            velocity,
            closed,
            normalize: case % 3 == 0,
            rule: [TangentRule::AsWritten, TangentRule::C1][case % 2],
        };
        let it = build_with(node, &keys, &kv, &o, &mut Vec::new());
        for (i, &k) in keys.iter().enumerate() {
            if i + 1 < n && keys[i + 1] == k {
                continue;
            }
            let got = at(&it, k);
            assert!(
                close(&got, &kv[i * width..(i + 1) * width], 1e-12),
                "case {case} key {i}"
            );
        }
    }
}

/// Velocity (per unit fraction) just left and right of fraction `f`, by
/// second-order one-sided differences.
fn velocities(it: &Interpolator, f: f64) -> (f64, f64) {
    let d = 1e-5;
    let v = |x: f64| at(it, x)[0];
    let left = (3.0 * v(f) - 4.0 * v(f - d) + v(f - 2.0 * d)) / (2.0 * d);
    let right = (-3.0 * v(f) + 4.0 * v(f + d) - v(f + 2.0 * d)) / (2.0 * d);
    (left, right)
}

#[test]
fn closed_splines_are_c1_at_the_seam() {
    let mut r = Rng(11);
    for case in 0..50 {
        let n = 4 + case % 5;
        let keys = r.keys(n);
        let mut kv = r.values(n);
        kv[n - 1] = kv[0];
        let o = Opts {
            closed: true,
            rule: TangentRule::C1,
            ..PLAIN
        };
        let it = build_with("SplineScalarInterpolator", &keys, &kv, &o, &mut Vec::new());
        // Velocity leaving key 0 equals velocity arriving at key N−1.
        let start = velocities(&it, 0.0).1;
        let end = velocities(&it, 1.0).0;
        assert!(
            (start - end).abs() < 1e-4 * (1.0 + start.abs()),
            "case {case}: {start} vs {end}"
        );
        // And C1 at every interior key.
        for &k in &keys[1..n - 1] {
            let (a, b) = velocities(&it, k);
            assert!(
                (a - b).abs() < 1e-4 * (1.0 + a.abs()),
                "case {case} at {k}: {a} vs {b}"
            );
        }
    }
    // The text's own assignment is C1 at the seam when the first and last
    // intervals are equal...
    let keys = [0.0, 0.25, 0.5, 0.75, 1.0];
    let kv = [0.0, 1.0, -2.0, 3.0, 0.0];
    let o = Opts {
        closed: true,
        ..PLAIN
    };
    let it = build_with("SplineScalarInterpolator", &keys, &kv, &o, &mut Vec::new());
    let (start, end) = (velocities(&it, 0.0).1, velocities(&it, 1.0).0);
    assert!((start - end).abs() < 1e-4, "{start} {end}");
    // ...and its velocity jumps at a key between unequal intervals (docs/interpretations.md).
    let keys = [0.0, 0.2, 1.0];
    let it = build("SplineScalarInterpolator", &keys, &[0.0, 1.0, 3.0]);
    let (a, b) = velocities(&it, 0.2);
    assert!((a - b).abs() > 1.0, "{a} {b}");
}

#[test]
fn rotation_and_normal_outputs_are_unit() {
    let mut r = Rng(3);
    for case in 0..100 {
        let n = 2 + case % 6;
        let keys = r.keys(n);
        let rot = r.rotations(n);
        let o = Opts {
            closed: case % 2 == 0,
            ..PLAIN
        };
        for node in ["OrientationInterpolator", "SquadOrientationInterpolator"] {
            let it = build_with(node, &keys, &rot, &o, &mut Vec::new());
            for f in fractions().step_by(7) {
                let v = at(&it, f);
                let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                assert!(
                    (len - 1.0).abs() < 1e-12,
                    "{node} case {case} at {f}: {len}"
                );
            }
        }
        let normals = r.values(n * 3 * 2);
        let it = build_with(
            "NormalInterpolator",
            &keys,
            &normals,
            &PLAIN,
            &mut Vec::new(),
        );
        for f in fractions().step_by(7) {
            for v in at(&it, f).chunks(3) {
                let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                assert!(
                    (len - 1.0).abs() < 1e-12,
                    "normal case {case} at {f}: {len}"
                );
            }
        }
    }
}

#[test]
fn squad_interpolates_its_keys_and_closed_is_c1() {
    let mut r = Rng(5);
    let n = 6;
    let keys = r.keys(n);
    let mut rot = r.rotations(n);
    let first = rot[..4].to_vec();
    rot[(n - 1) * 4..].copy_from_slice(&first);
    let o = Opts {
        closed: true,
        ..PLAIN
    };
    let it = build_with(
        "SquadOrientationInterpolator",
        &keys,
        &rot,
        &o,
        &mut Vec::new(),
    );
    for (i, &k) in keys.iter().enumerate() {
        let want = rotation::from_axis_angle(&rot[i * 4..i * 4 + 4]);
        let got = at(&it, k);
        assert!(
            rotation::same_rotation(DQuat::from_slice(&got), want, 1e-12),
            "key {i}"
        );
    }
}

#[test]
fn exact_descriptions_evaluate_like_the_interpolators() {
    let mut r = Rng(9);
    let mut exact_out = Vec::new();
    for case in 0..100 {
        let n = 2 + case % 6;
        let mut keys = r.keys(n);
        if case % 4 == 0 && n > 3 {
            keys[2] = keys[1]; // a jump
        }
        for node in [
            "ScalarInterpolator",
            "PositionInterpolator",
            "CoordinateInterpolator",
            "OrientationInterpolator",
            "SplineScalarInterpolator",
            "SplinePositionInterpolator",
            "IntegerSequencer",
        ] {
            let (_, elem, multiple) = Kind::of_node(node).unwrap();
            let count = n * elem * if multiple { 3 } else { 1 };
            let kv = if elem == 4 {
                r.rotations(n)
            } else {
                r.values(count)
            };
            let it = build_with(node, &keys, &kv, &PLAIN, &mut Vec::new());
            let exact = it
                .exact()
                .unwrap_or_else(|| panic!("{node} has an exact form"));
            for f in fractions() {
                let direct = at(&it, f);
                exact.eval(f, &mut exact_out);
                let same = if elem == 4 {
                    rotation::same_rotation(
                        DQuat::from_slice(&direct),
                        DQuat::from_slice(&exact_out),
                        1e-12,
                    )
                } else {
                    close(&direct, &exact_out, 1e-12)
                };
                assert!(
                    same,
                    "{node} case {case} at {f}: {direct:?} vs {exact_out:?}"
                );
            }
        }
    }
    for node in [
        "ColorInterpolator",
        "NormalInterpolator",
        "SquadOrientationInterpolator",
    ] {
        assert!(
            build(
                node,
                &[0.0, 1.0],
                &[0.0; 8][..if node.starts_with('S') { 8 } else { 6 }]
            )
            .exact()
            .is_none()
        );
    }
}

/// The angle between two rotations given as quaternions (x, y, z, w).
fn rotation_angle(a: &[f64], b: &[f64]) -> f64 {
    let (a, b) = (DQuat::from_slice(a), DQuat::from_slice(b));
    2.0 * a.dot(b).abs().min(1.0).acos()
}

#[test]
fn squad_is_continuous_inside_its_segments() {
    // Where the two inner slerps drift more than 90° apart in quaternion
    // space, a shortest-path outer slerp (X_ITE's) jumps by up to π: here
    // between fractions 0.370 and 0.375. The plain outer slerp does not.
    let keys = [0.0, 0.312, 0.4318, 0.8143, 1.0];
    let kv: Vec<f64> = [
        [0.09663, 0.085514, -0.99164, 6.083891],
        [-0.665735, -0.731298, 0.148326, 4.920408],
        [0.126533, 0.761694, 0.635462, 5.186112],
        [-0.043541, -0.302726, -0.952083, 5.62274],
        [0.002807, 0.972231, 0.234005, 6.047157],
    ]
    .concat();
    let it = build("SquadOrientationInterpolator", &keys, &kv);
    let steps = 20_000;
    let mut worst: f64 = 0.0;
    for i in 0..steps {
        let (f0, f1) = (i as f64 / steps as f64, (i + 1) as f64 / steps as f64);
        worst = worst.max(rotation_angle(&at(&it, f0), &at(&it, f1)));
    }
    // Steps of 1/20 000 of the curve: a continuous squad moves a few
    // thousandths of a radian at most; the flip moved 3 rad.
    assert!(worst < 0.01, "largest step {worst} rad");
    // It still passes through its keys.
    for (k, &f) in keys.iter().enumerate() {
        let key = q([kv[4 * k], kv[4 * k + 1], kv[4 * k + 2], kv[4 * k + 3]]);
        assert!(rotation_angle(&at(&it, f), &key) < 1e-6, "key {k}");
    }
}

#[test]
fn rotation_distance_is_the_angle_between_the_rotations() {
    use x3dbake::internal::anim::reduce::distance;
    let id = q([0.0, 0.0, 1.0, 0.0]);
    for angle in [1e-6, 0.07, 0.5, 2.0, 3.1] {
        let r = q([0.0, 0.0, 1.0, angle]);
        let d = distance(&id, &r, true, 4);
        assert!((d - angle).abs() < 1e-9, "{angle}: {d}");
    }
    // q and −q are one rotation.
    let r = q([0.0, 1.0, 0.0, 0.3]);
    let minus: Vec<f64> = r.iter().map(|x| -x).collect();
    assert!(distance(&r, &minus, true, 4) < 1e-12);
}
