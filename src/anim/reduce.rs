//! Fewer keys for exact linear keyframes under a tolerance (their keys
//! bound the error exactly), constant tracks, and the distance every bound
//! is measured in. Curves that are not linear are fitted in `fit`.

use super::keyframes::{Interpolation, Keyframes};
use glam::DQuat;

/// How far apart two values are: Euclidean distance per element (the
/// largest over the elements of an MF value); for rotations, the angle
/// between them in radians (q and −q being the same rotation).
pub fn distance(a: &[f64], b: &[f64], rotation: bool, per_element: usize) -> f64 {
    if rotation {
        return a
            .chunks_exact(4)
            .zip(b.chunks_exact(4))
            .map(|(p, q)| {
                // Unit quaternions θ apart in 4D are rotations 2θ apart, and
                // atan2(|a − b|, |a + b|) = θ/2: the rotation angle is four
                // times it, well conditioned for nearly equal rotations (acos
                // of the dot product is not: a norm off by 1e-7, as f32
                // storage leaves it, reads as 5e-4 rad).
                let (a, b) = (DQuat::from_slice(p), DQuat::from_slice(q));
                let b = if a.dot(b) < 0.0 { -b } else { b };
                4.0 * (a - b).length().atan2((a + b).length())
            })
            .fold(0.0, f64::max);
    }
    a.chunks(per_element.max(1))
        .zip(b.chunks(per_element.max(1)))
        .map(|(p, q)| {
            p.iter()
                .zip(q)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max)
}

/// Linear keyframes, with what a segment must fit.
struct Fit<'a> {
    times: &'a [f64],
    values: &'a [f64],
    width: usize,
    tol: f64,
    per: usize,
}

impl Fit<'_> {
    /// Whether the segment from grid point `i` to `j` approximates every
    /// point between within the tolerance.
    fn fits(&self, i: usize, j: usize) -> bool {
        let w = self.width;
        let v = |k: usize| &self.values[k * w..(k + 1) * w];
        let (a, b) = (v(i), v(j));
        let mut approx = vec![0.0; w];
        for k in i + 1..j {
            let s = (self.times[k] - self.times[i]) / (self.times[j] - self.times[i]);
            for c in 0..w {
                approx[c] = a[c] + s * (b[c] - a[c]);
            }
            if distance(&approx, v(k), false, self.per) > self.tol {
                return false;
            }
        }
        true
    }
}

/// The grid points a greedy fit keeps, in order, first and last included:
/// each segment as long as it can be.
fn kept(fit: &Fit) -> Vec<usize> {
    let n = fit.times.len();
    let mut kept = vec![0];
    let mut i = 0;
    while i + 1 < n {
        // Grow the segment by doubling, then narrow down by bisection:
        // every accepted segment is checked at every grid point in it.
        // The rest of the piece in one segment, when it fits (the
        // error of a segment need not grow with its length).
        if fit.fits(i, n - 1) {
            kept.push(n - 1);
            break;
        }
        let mut good = i + 1;
        let mut step = 1;
        let mut bad = None;
        while good + step < n {
            if fit.fits(i, good + step) {
                good += step;
                step *= 2;
            } else {
                bad = Some(good + step);
                break;
            }
        }
        let mut hi = bad.unwrap_or(n).min(n);
        while hi - good > 1 {
            let mid = (good + hi) / 2;
            if fit.fits(i, mid) {
                good = mid;
            } else {
                hi = mid;
            }
        }
        kept.push(good);
        i = good;
    }
    kept
}

/// Exact linear keyframes (not slerp) at strictly increasing times,
/// thinned to those a linear fit within `tol` needs. They are their own
/// grid: the curve is linear between them, so a fit's largest distance
/// from it on a stretch is at one of them. The same keys as [`reduce`]
/// finds on its grid, without evaluating the curve again; when every key
/// is needed the keyframes are returned as they are (borrowed values stay
/// borrowed), with the largest distance of the thinned curve from the
/// exact one. Anything else is returned unchanged as `Err`.
pub fn thin<'a>(
    k: Keyframes<'a>,
    tol: f64,
    per: usize,
) -> Result<(Keyframes<'a>, f64), Keyframes<'a>> {
    let increasing = k.times.windows(2).all(|t| t[0] < t[1]);
    if k.interpolation != Interpolation::Linear || k.quaternions || !increasing {
        return Err(k);
    }
    let w = k.width;
    let fit = Fit {
        times: &k.times,
        values: &k.values,
        width: w,
        tol,
        per,
    };
    let kept = kept(&fit);
    if kept.len() == k.times.len() {
        return Ok((k, 0.0));
    }
    let times = kept.iter().map(|&i| k.times[i]).collect();
    let values: Vec<f64> = kept
        .iter()
        .flat_map(|&i| k.values[i * w..(i + 1) * w].iter().copied())
        .collect();
    let thinned = Keyframes {
        times,
        values: values.into(),
        interpolation: k.interpolation,
        width: w,
        quaternions: false,
        in_tangents: Vec::new(),
        out_tangents: Vec::new(),
    };
    // The error of a line through exact linear keys is largest at a key.
    let mut v = Vec::new();
    let error = (0..k.len())
        .map(|i| {
            thinned.eval(k.times[i], &mut v);
            distance(&v, k.value(i), false, per)
        })
        .fold(0.0, f64::max);
    Ok((thinned, error))
}

/// True when the keyframes' curve is within `tol` of `value`: at every key,
/// and for cubic keys (which may swing past their ends) at three points
/// inside each segment. (Between linear or slerp keys the curve's distance
/// from a value is largest at a key.)
pub fn constant_at(k: &Keyframes, value: &[f64], tol: f64, rotation: bool, per: usize) -> bool {
    let near = |v: &[f64]| distance(v, value, rotation, per) <= tol;
    if value.len() != k.width || !(0..k.len()).all(|i| near(k.value(i))) {
        return false;
    }
    let mut v = Vec::new();
    k.interpolation != Interpolation::Cubic
        || k.times.windows(2).all(|t| {
            [0.25, 0.5, 0.75].iter().all(|s| {
                k.eval(t[0] + s * (t[1] - t[0]), &mut v);
                near(&v)
            })
        })
}

/// Keeps one keyframe of a track that never moves more than `tol`.
pub fn collapse_constant(k: &mut Keyframes, tol: f64, rotation: bool, per: usize) -> bool {
    if k.is_empty() {
        return false;
    }
    let first = k.value(0).to_vec();
    if !constant_at(k, &first, tol, rotation, per) {
        return false;
    }
    k.times.truncate(1);
    k.values = first.into();
    if k.interpolation == Interpolation::Cubic {
        k.in_tangents = vec![0.0; k.width];
        k.out_tangents = vec![0.0; k.width];
    }
    true
}
