//! Fewer keys under a guaranteed error bound: a track is evaluated on a
//! grid much finer than any key spacing (or, for linear keys, at the keys,
//! which bounds the error exactly), and keyframes are chosen so that the
//! baked curve (linear, or slerp for rotations) stays within the tolerance
//! of the true curve at every grid point.

use super::clip::{Clip, Track};
use super::keyframes::{Interpolation, Keyframes};
use crate::interp::Kind;
use glam::DQuat;

/// Grid points per second of clip time (at least `MIN_GRID` per piece).
const GRID_RATE: f64 = 1000.0;
const MIN_GRID: usize = 2000;
/// At most this many grid points per piece.
const MAX_GRID: usize = 200_000;
/// At most this many numbers in a grid (128 MB): tracks of wide values
/// (morphs of many points) get a coarser grid, not an exhausted memory.
const MAX_GRID_NUMBERS: usize = 1 << 24;

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

/// The curve of a track on its clip's fine grid, piece by piece.
struct Grid {
    /// Per piece: times and values (`width` numbers each).
    pieces: Vec<(Vec<f64>, Vec<f64>)>,
    width: usize,
}

fn grid(clip: &Clip, track: &Track) -> Grid {
    let width = track.interpolator().width();
    let keys = track.interpolator().keys();
    // Linear keys straight from the clock: the true curve is linear between
    // its keys, so a linear fit's largest distance from it on any stretch is
    // at one of them (the distance between two linear functions is convex):
    // the keys are a grid that bounds the error exactly.
    let linear = track.modifiers.is_empty() && track.interpolator().kind() == Kind::Linear;
    let per_piece = MAX_GRID_NUMBERS / width.max(1) / clip.map.pieces.len().max(1);
    let mut pieces = Vec::new();
    let mut v = Vec::new();
    for piece in &clip.map.pieces {
        let len = piece.t1 - piece.t0;
        let n = if linear {
            1
        } else {
            ((len * GRID_RATE).ceil() as usize)
                .clamp(MIN_GRID, MAX_GRID)
                .min(per_piece)
                .max(1)
        };
        let mut times: Vec<f64> = (0..=n)
            .map(|i| piece.t0 + len * i as f64 / n as f64)
            .collect();
        // The interpolator's own keys are corners of the curve: on the grid.
        times.extend(
            keys.iter()
                .filter(|&&k| k > piece.f0 && k < piece.f1)
                .map(|&k| piece.time(k)),
        );
        times.sort_by(f64::total_cmp);
        times.dedup();
        let mut values = Vec::with_capacity(times.len() * width);
        for &t in &times {
            track.eval_fraction(piece.fraction(t), &mut v);
            values.extend_from_slice(&v);
        }
        pieces.push((times, values));
    }
    Grid { pieces, width }
}

/// One piece of a grid, with what a segment must fit.
struct Fit<'a> {
    times: &'a [f64],
    values: &'a [f64],
    width: usize,
    tol: f64,
    rotation: bool,
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
            if self.rotation {
                let q =
                    crate::interp::rotation::slerp(DQuat::from_slice(a), DQuat::from_slice(b), s);
                approx.copy_from_slice(&q.to_array());
            } else {
                for c in 0..w {
                    approx[c] = a[c] + s * (b[c] - a[c]);
                }
            }
            if distance(&approx, v(k), self.rotation, self.per) > self.tol {
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

/// Linear (or slerp) keyframes within `tol` of the track's true curve at
/// every grid point, greedily as long as each segment can be. `per` is the
/// numbers per element of the value (3 for MFVec3f).
pub fn reduce(clip: &Clip, track: &Track, tol: f64, per: usize) -> Keyframes<'static> {
    let rotation = track.is_rotation();
    let g = grid(clip, track);
    let w = g.width;
    let interpolation = if rotation {
        Interpolation::Slerp
    } else {
        Interpolation::Linear
    };
    let mut out = Keyframes {
        interpolation,
        width: w,
        quaternions: rotation,
        times: Vec::new(),
        values: Vec::new().into(),
        in_tangents: Vec::new(),
        out_tangents: Vec::new(),
    };
    for (times, values) in &g.pieces {
        let fit = Fit {
            times,
            values,
            width: w,
            tol,
            rotation,
            per,
        };
        for k in kept(&fit) {
            out.times.push(times[k]);
            out.values
                .to_mut()
                .extend_from_slice(&values[k * w..(k + 1) * w]);
        }
    }
    out
}

/// Exact linear keyframes (not slerp) at strictly increasing times,
/// thinned to those a linear fit within `tol` needs. They are their own
/// grid: the curve is linear between them, so a fit's largest distance
/// from it on a stretch is at one of them. The same keys as [`reduce`]
/// finds on its grid, without evaluating the curve again; when every key
/// is needed the keyframes are returned as they are (borrowed values stay
/// borrowed). Anything else is returned unchanged as `Err`.
pub fn thin<'a>(k: Keyframes<'a>, tol: f64, per: usize) -> Result<Keyframes<'a>, Keyframes<'a>> {
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
        rotation: false,
        per,
    };
    let kept = kept(&fit);
    if kept.len() == k.times.len() {
        return Ok(k);
    }
    let times = kept.iter().map(|&i| k.times[i]).collect();
    let values: Vec<f64> = kept
        .iter()
        .flat_map(|&i| k.values[i * w..(i + 1) * w].iter().copied())
        .collect();
    Ok(Keyframes {
        times,
        values: values.into(),
        ..k
    })
}

/// True when every keyframe value is within `tol` of `value`.
pub fn constant_at(k: &Keyframes, value: &[f64], tol: f64, rotation: bool, per: usize) -> bool {
    value.len() == k.width
        && (0..k.len()).all(|i| distance(k.value(i), value, rotation, per) <= tol)
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
