//! Table-driven tests with hand-computed values for every node type, and
//! properties over pseudo-random inputs.

use super::*;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4};

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
