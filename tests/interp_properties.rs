//! Properties of the interpolation maths over deterministic pseudo-random
//! inputs: splines pass through their keys, closed splines are C1 at the
//! seam, rotations and normals stay unit, exact descriptions evaluate like
//! the interpolators.

mod util;

use glam::DQuat;
use util::Rng;
use x3dbake::interp::{Interpolator, KeyWarning, Kind, Spec, TangentRule, rotation};

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
        &Spec {
            kind,
            keys,
            key_value: kv,
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
    build_with(node, keys, kv, &PLAIN, &mut Vec::new())
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
    // ...and its velocity jumps at a key between unequal intervals (NOTES.md).
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
