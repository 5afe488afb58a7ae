//! The X3D spline interpolators: Hermite segments with Catmull-Rom
//! tangents, adjusted for non-uniform key intervals.

use super::keys::KeyWarning;

/// How the tangent factors F+ and F− are assigned (docs/interpretations.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TangentRule {
    /// As the X3D text writes it (and X_ITE does): the outgoing tangent at
    /// key i is F+_i·T_i, the incoming F−_i·T_i.
    #[default]
    AsWritten,
    /// The swapped assignment, which makes the curve C1 in time.
    C1,
}

/// What a spline is built from.
pub struct SplineInput<'a> {
    /// The key fractions.
    pub keys: &'a [f64],
    /// `width` numbers per key.
    pub values: &'a [f64],
    /// Numbers a value.
    pub width: usize,
    /// keyVelocity (empty when not given).
    pub velocity: &'a [f64],
    /// Whether the curve wraps around (`closed`, when it applies).
    pub closed: bool,
    /// Whether given velocities are scaled to the curve's length.
    pub normalize_velocity: bool,
    /// How tangents are assigned to the two sides of a key.
    pub rule: TangentRule,
}

/// Per key, the outgoing tangent (for the segment that starts there) and the
/// incoming one (for the segment that ends there), in value per segment.
pub struct Tangents {
    /// Outgoing tangents, `width` a key.
    pub out: Vec<f64>,
    /// Incoming tangents, `width` a key.
    pub inc: Vec<f64>,
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Works out the tangents; warnings for a keyVelocity of a wrong size or a
/// closed flag that cannot apply.
pub fn tangents(input: &SplineInput<'_>, warnings: &mut Vec<KeyWarning>) -> Tangents {
    let (keys, w) = (input.keys, input.width);
    let n = keys.len();
    let v = |i: usize| &input.values[i * w..(i + 1) * w];
    let mut out = vec![0.0; n * w];
    let mut inc = vec![0.0; n * w];
    if n < 2 {
        return Tangents { out, inc };
    }
    let given = match input.velocity.len() / w.max(1) {
        0 => 0,
        k if k == n && input.velocity.len() == n * w => n,
        2 if input.velocity.len() == 2 * w => 2,
        size => {
            warnings.push(KeyWarning::VelocityIgnored { size, keys: n });
            0
        }
    };
    let ends_equal = v(0) == v(n - 1);
    let closed = input.closed && given == 0 && ends_equal;
    if input.closed && !closed {
        warnings.push(KeyWarning::ClosedIgnored(if given != 0 {
            "keyVelocity gives the end velocities"
        } else {
            "the first and last keyValue differ"
        }));
    }

    // Velocities T_i.
    let d_tot: f64 = (0..n - 1).map(|i| distance(v(i), v(i + 1))).sum();
    let user = |k: usize| -> Vec<f64> {
        let t = &input.velocity[k * w..(k + 1) * w];
        let len = norm(t);
        if input.normalize_velocity && len > 0.0 {
            t.iter().map(|x| x * d_tot / len).collect()
        } else {
            t.to_vec()
        }
    };
    let catmull = |a: usize, b: usize| -> Vec<f64> {
        v(b).iter().zip(v(a)).map(|(x, y)| (x - y) / 2.0).collect()
    };
    let t: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            if given == n {
                user(i)
            } else if i > 0 && i < n - 1 {
                catmull(i - 1, i + 1)
            } else if given == 2 {
                user(if i == 0 { 0 } else { 1 })
            } else if closed {
                catmull(n - 2, 1)
            } else {
                vec![0.0; w]
            }
        })
        .collect();

    // Factors F−_i and F+_i.
    let factors = |i: usize| -> (f64, f64) {
        let (before, after) = if i > 0 && i < n - 1 {
            (keys[i] - keys[i - 1], keys[i + 1] - keys[i])
        } else if closed {
            (keys[n - 1] - keys[n - 2], keys[1] - keys[0])
        } else {
            return (1.0, 1.0);
        };
        let d = before + after;
        if d == 0.0 {
            (1.0, 1.0)
        } else {
            (2.0 * after / d, 2.0 * before / d)
        }
    };
    for i in 0..n {
        let (f_minus, f_plus) = factors(i);
        let (f_out, f_in) = match input.rule {
            TangentRule::AsWritten => (f_plus, f_minus),
            TangentRule::C1 => (f_minus, f_plus),
        };
        for c in 0..w {
            out[i * w + c] = f_out * t[i][c];
            inc[i * w + c] = f_in * t[i][c];
        }
    }
    Tangents { out, inc }
}

/// The Hermite basis at s: weights of v_i, v_{i+1}, T0_i, T1_{i+1}.
pub fn hermite_basis(s: f64) -> [f64; 4] {
    let s2 = s * s;
    let s3 = s2 * s;
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        -2.0 * s3 + 3.0 * s2,
        s3 - 2.0 * s2 + s,
        s3 - s2,
    ]
}

/// The derivatives of the Hermite basis with respect to s.
pub fn hermite_basis_derivative(s: f64) -> [f64; 4] {
    let s2 = s * s;
    [
        6.0 * s2 - 6.0 * s,
        -6.0 * s2 + 6.0 * s,
        3.0 * s2 - 4.0 * s + 1.0,
        3.0 * s2 - 2.0 * s,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(keys: &'a [f64], values: &'a [f64], closed: bool) -> SplineInput<'a> {
        SplineInput {
            keys,
            values,
            width: 1,
            velocity: &[],
            closed,
            normalize_velocity: false,
            rule: TangentRule::AsWritten,
        }
    }

    #[test]
    fn basis_derivative_matches_differences() {
        for i in 0..=10 {
            let s = i as f64 / 10.0;
            let (a, b) = (hermite_basis(s - 1e-6), hermite_basis(s + 1e-6));
            let d = hermite_basis_derivative(s);
            for c in 0..4 {
                assert!(((b[c] - a[c]) / 2e-6 - d[c]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn hand_computed_tangents_non_uniform() {
        // keys 0, 0.25, 1; values 0, 1, 0: T_1 = (0 − 0)/2 = 0 → use values 0, 1, 3.
        let keys = [0.0, 0.25, 1.0];
        let vals = [0.0, 1.0, 3.0];
        let mut w = Vec::new();
        let t = tangents(&input(&keys, &vals, false), &mut w);
        // T_1 = 1.5; F+_1 = 2·0.25/1 = 0.5; F−_1 = 2·0.75/1 = 1.5.
        assert_eq!(t.out, vec![0.0, 0.75, 0.0]);
        assert_eq!(t.inc, vec![0.0, 2.25, 0.0]);
        let mut c1 = input(&keys, &vals, false);
        c1.rule = TangentRule::C1;
        let t = tangents(&c1, &mut w);
        assert_eq!(t.out, vec![0.0, 2.25, 0.0]);
        assert_eq!(t.inc, vec![0.0, 0.75, 0.0]);
        assert!(w.is_empty());
    }

    #[test]
    fn velocity_sizes_and_normalisation() {
        let keys = [0.0, 0.5, 1.0];
        let vals = [0.0, 1.0, 3.0];
        let mut w = Vec::new();
        let mut i = input(&keys, &vals, false);
        let two = [1.0, -2.0];
        i.velocity = &two;
        let t = tangents(&i, &mut w);
        // First and last from keyVelocity (factor 1); middle Catmull-Rom.
        assert_eq!(t.out, vec![1.0, 1.5, -2.0]);
        assert_eq!(t.inc, vec![1.0, 1.5, -2.0]);
        i.normalize_velocity = true;
        let t = tangents(&i, &mut w);
        // D_tot = 1 + 2 = 3: each given velocity gets length 3.
        assert_eq!(t.out, vec![3.0, 1.5, -3.0]);
        let bad = [1.0, 2.0, 3.0, 4.0];
        i.velocity = &bad;
        tangents(&i, &mut w);
        assert_eq!(w, vec![KeyWarning::VelocityIgnored { size: 4, keys: 3 }]);
    }

    #[test]
    fn closed_applies_only_with_equal_ends() {
        let keys = [0.0, 0.25, 1.0];
        let mut w = Vec::new();
        let t = tangents(&input(&keys, &[0.0, 1.0, 0.0], true), &mut w);
        // T_0 = (v_1 − v_1)/2 = 0 with N = 3; use 4 keys for a real wrap below.
        assert_eq!(t.out[0], 0.0);
        assert!(w.is_empty());
        tangents(&input(&keys, &[0.0, 1.0, 2.0], true), &mut w);
        assert_eq!(
            w,
            vec![KeyWarning::ClosedIgnored(
                "the first and last keyValue differ"
            )]
        );
        let keys = [0.0, 0.2, 0.6, 1.0];
        let t = tangents(&input(&keys, &[0.0, 1.0, 2.0, 0.0], true), &mut Vec::new());
        // T_0 = (v_1 − v_2)/2 = −0.5; interval before key 0 is 0.4, after 0.2:
        // F+_0 = 2·0.4/0.6, F−_0 = 2·0.2/0.6.
        assert!((t.out[0] - (-0.5 * 0.8 / 0.6)).abs() < 1e-15);
        assert!((t.inc[3] - (-0.5 * 0.4 / 0.6)).abs() < 1e-15);
    }
}
