//! Fewer keys for exact linear keyframes under a tolerance (their keys
//! bound the error exactly), constant tracks, and the distance every bound
//! is measured in. Curves that are not linear are fitted in `fit`.

use super::keyframes::{Interpolation, Keyframes};
use super::nlerp::nlerp;
use crate::interp::rotation::slerp;
use crate::math;
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
                4.0 * math::atan2((a - b).length(), (a + b).length())
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

/// Linear or slerp keyframes, with what a segment must fit.
struct Fit<'a> {
    times: &'a [f64],
    values: &'a [f64],
    width: usize,
    tol: f64,
    per: usize,
    /// For slerp keys: the middle of each segment, where a thinned arc is
    /// checked too (between slerp keys the distance of two arcs is not
    /// largest at a key).
    middles: Option<Vec<DQuat>>,
}

impl Fit<'_> {
    fn value(&self, k: usize) -> &[f64] {
        &self.values[k * self.width..(k + 1) * self.width]
    }

    fn quat(&self, k: usize) -> DQuat {
        DQuat::from_slice(self.value(k))
    }

    /// The largest distance of the segment from key `i` to key `j` from
    /// the keys between, and from the middles of the segments between.
    fn error(&self, i: usize, j: usize, stop_over: f64) -> f64 {
        let w = self.width;
        let (t0, span) = (self.times[i], self.times[j] - self.times[i]);
        let mut worst = 0.0f64;
        let Some(middles) = &self.middles else {
            let (a, b) = (self.value(i), self.value(j));
            let mut approx = vec![0.0; w];
            for k in i + 1..j {
                let s = (self.times[k] - t0) / span;
                for c in 0..w {
                    approx[c] = a[c] + s * (b[c] - a[c]);
                }
                worst = worst.max(distance(&approx, self.value(k), false, self.per));
                if worst > stop_over {
                    break;
                }
            }
            return worst;
        };
        let (a, b) = (self.quat(i), self.quat(j));
        let angle = |p: DQuat, q: DQuat| distance(&p.to_array(), &q.to_array(), true, 4);
        // Played by slerp and by nlerp (see `nlerp`): the worse.
        let near = if a.dot(b) < 0.0 { -b } else { b };
        let both = |s: f64, q: DQuat| angle(slerp(a, b, s), q).max(angle(nlerp(a, near, s), q));
        for (k, &middle) in middles.iter().enumerate().take(j).skip(i) {
            let mid = 0.5 * (self.times[k] + self.times[k + 1]);
            worst = worst.max(both((mid - t0) / span, middle));
            if k > i {
                let s = (self.times[k] - t0) / span;
                worst = worst.max(both(s, self.quat(k)));
            }
            if worst > stop_over {
                break;
            }
        }
        worst
    }

    /// Whether the segment from key `i` to `j` is within the tolerance.
    fn fits(&self, i: usize, j: usize) -> bool {
        self.error(i, j, self.tol) <= self.tol
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

/// Exact linear or slerp keyframes at strictly increasing times, thinned
/// to those a fit of the same kind within `tol` needs. They are their own
/// grid: between linear keys the curve is linear, so a fit's largest
/// distance from it on a stretch is at one of them (slerp keys are checked
/// at the middle of each segment too), so the curve is not evaluated
/// again; when every key is needed the keyframes are returned as they are
/// (borrowed values stay borrowed), with the largest distance of the
/// thinned curve from the exact one. Anything else is returned unchanged
/// as `Err`.
pub fn thin<'a>(
    k: Keyframes<'a>,
    tol: f64,
    per: usize,
) -> Result<(Keyframes<'a>, f64), Keyframes<'a>> {
    let increasing = k.times.windows(2).all(|t| t[0] < t[1]);
    let slerp_keys = k.interpolation == Interpolation::Slerp && k.quaternions && k.width == 4;
    let linear = k.interpolation == Interpolation::Linear && !k.quaternions;
    if !(linear || slerp_keys) || !increasing {
        return Err(k);
    }
    let w = k.width;
    let middles = slerp_keys.then(|| {
        (0..k.len().saturating_sub(1))
            .map(|i| {
                slerp(
                    DQuat::from_slice(&k.value(i)),
                    DQuat::from_slice(&k.value(i + 1)),
                    0.5,
                )
            })
            .collect()
    });
    let values = k.values.wide();
    let fit = Fit {
        times: &k.times,
        values: &values,
        width: w,
        tol,
        per,
        middles,
    };
    let kept = kept(&fit);
    if kept.len() == k.times.len() {
        return Ok((k, 0.0));
    }
    let error = kept
        .windows(2)
        .map(|s| fit.error(s[0], s[1], f64::INFINITY))
        .fold(0.0, f64::max);
    let times = kept.iter().map(|&i| k.times[i]).collect();
    let values: Vec<f64> = kept
        .iter()
        .flat_map(|&i| values[i * w..(i + 1) * w].iter().copied())
        .collect();
    let thinned = Keyframes {
        times,
        values: values.into(),
        interpolation: k.interpolation,
        width: w,
        quaternions: k.quaternions,
        in_tangents: Vec::new(),
        out_tangents: Vec::new(),
    };
    Ok((thinned, error))
}

/// True when the keyframes' curve is within `tol` of `value`: at every key;
/// between linear keys the distance from a value is largest at a key;
/// along a slerp arc too, unless the arc passes a rotation half a turn from
/// the value (where their dot product changes sign: the distance there is
/// π); cubic keys (which may swing past their ends) are checked at three
/// points inside each segment.
pub fn constant_at(k: &Keyframes, value: &[f64], tol: f64, rotation: bool, per: usize) -> bool {
    let near = |v: &[f64]| distance(v, value, rotation, per) <= tol;
    if value.len() != k.width || !(0..k.len()).all(|i| near(&k.value(i))) {
        return false;
    }
    let mut v = Vec::new();
    match k.interpolation {
        Interpolation::Cubic => k.times.windows(2).all(|t| {
            [0.25, 0.5, 0.75].iter().all(|s| {
                k.eval(t[0] + s * (t[1] - t[0]), &mut v);
                near(&v)
            })
        }),
        Interpolation::Slerp if k.quaternions && tol < std::f64::consts::PI => {
            let p = DQuat::from_slice(value);
            (1..k.len()).all(|i| {
                let (a, b) = (
                    DQuat::from_slice(&k.value(i - 1)),
                    DQuat::from_slice(&k.value(i)),
                );
                // The player's arc is the short one: b on a's side.
                let b = if a.dot(b) < 0.0 { -b } else { b };
                p.dot(a) * p.dot(b) >= 0.0
            })
        }
        _ => true,
    }
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
