//! Keyframes in clip time: what a writer stores. Built exactly from an
//! interpolator's exact description, or by sampling any chain.

use super::clock::{FractionMap, Piece};
use crate::interp::{Exact, Seg, Values, lookup, rotation, spline};
use glam::DQuat;
use std::borrow::Cow;

/// How values between keyframes are found (glTF's sampler interpolation;
/// `Slerp` is LINEAR on quaternions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Straight lines between keys.
    Linear,
    /// Spherical linear interpolation of unit quaternions.
    Slerp,
    /// The value of the key before, until the next key.
    Step,
    /// Hermite segments with in and out tangents (glTF CUBICSPLINE).
    Cubic,
}

/// Keyframes: times in seconds from the clip's start, non-decreasing; a
/// repeated time is a jump (the later value applies from that time on).
#[derive(Clone, Debug, PartialEq)]
pub struct Keyframes<'a> {
    /// How the keys are joined.
    pub interpolation: Interpolation,
    /// Numbers a value.
    pub width: usize,
    /// Values are unit quaternions, kept in one hemisphere from key to key.
    pub quaternions: bool,
    /// Key times in seconds, not decreasing.
    pub times: Vec<f64>,
    /// Borrowed from the interpolator when the keyframes are its keys.
    pub values: Values<'a>,
    /// Cubic only: derivatives per second, arriving at and leaving each key.
    pub in_tangents: Vec<f64>,
    /// Out-tangents (per second), `width` a key, for cubic keys.
    pub out_tangents: Vec<f64>,
}

/// The intervals `Keyframes::sample` cuts a piece into at `rate`.
fn steps(piece: &Piece, rate: f64) -> usize {
    (((piece.t1 - piece.t0) * rate).ceil() as usize).max(1)
}

/// How many keyframes `Keyframes::sample` makes on `map` at `rate`, known
/// before they are made.
pub fn sample_len(map: &FractionMap, rate: f64) -> usize {
    map.pieces
        .iter()
        .map(|p| steps(p, rate).saturating_add(1))
        .fold(0, usize::saturating_add)
}

/// How keyframes made exactly from `exact` are interpolated.
pub fn interpolation_of(exact: &Exact) -> Interpolation {
    match exact {
        Exact::Linear { .. } => Interpolation::Linear,
        Exact::Slerp { .. } => Interpolation::Slerp,
        Exact::Step { .. } => Interpolation::Step,
        Exact::Hermite { .. } => Interpolation::Cubic,
    }
}

/// The numbers one keyframe of `width` values holds: its time, its value
/// and, cubic, its two tangents.
pub fn keyframe_numbers(width: usize, cubic: bool) -> usize {
    1 + width.saturating_mul(if cubic { 3 } else { 1 })
}

/// At most how many keyframes `Keyframes::exact` makes on `map`: each
/// piece (a cycle, or part of one) holds the keys inside it and its ends.
pub fn exact_len_bound(exact: &Exact, map: &FractionMap) -> usize {
    map.pieces.len().saturating_mul(exact.keys().len() + 2)
}

/// One point of a curve in fraction space: its value and its derivatives
/// (per unit fraction) arriving and leaving.
struct Point {
    f: f64,
    value: Vec<f64>,
    d_in: Vec<f64>,
    d_out: Vec<f64>,
}

impl<'a> Keyframes<'a> {
    /// No keyframes yet, with room for `keys` (values of `width` numbers,
    /// without tangents).
    pub(super) fn with_room(
        interpolation: Interpolation,
        width: usize,
        quaternions: bool,
        keys: usize,
    ) -> Keyframes<'a> {
        Keyframes {
            times: Vec::with_capacity(keys),
            values: Vec::with_capacity(keys * width).into(),
            ..Keyframes::new(interpolation, width, quaternions)
        }
    }

    pub(super) fn new(
        interpolation: Interpolation,
        width: usize,
        quaternions: bool,
    ) -> Keyframes<'a> {
        Keyframes {
            interpolation,
            width,
            quaternions,
            times: Vec::new(),
            values: Values::default(),
            in_tangents: Vec::new(),
            out_tangents: Vec::new(),
        }
    }

    /// The same keyframes owning their values.
    pub fn to_owned_keys(&self) -> Keyframes<'static> {
        Keyframes {
            values: self.values.clone().into_owned(),
            in_tangents: self.in_tangents.clone(),
            out_tangents: self.out_tangents.clone(),
            times: self.times.clone(),
            ..Keyframes::new(self.interpolation, self.width, self.quaternions)
        }
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The same keyframes without values or tangents (for a channel whose
    /// values are elsewhere: morph weights).
    pub fn times_only(&self) -> Keyframes<'static> {
        Keyframes {
            times: self.times.clone(),
            ..Keyframes::new(self.interpolation, self.width, self.quaternions)
        }
    }

    /// The value of key `i`.
    pub fn value(&self, i: usize) -> Cow<'_, [f64]> {
        self.values.slice(i * self.width..(i + 1) * self.width)
    }

    pub(super) fn push(&mut self, t: f64, value: &[f64], d_in: &[f64], d_out: &[f64], rate: f64) {
        self.times.push(t);
        // Keep consecutive quaternions in one hemisphere (x · −1 is exact).
        let n = self.values.len();
        let flip = self.quaternions
            && n >= 4
            && self
                .values
                .slice(n - 4..n)
                .iter()
                .zip(value)
                .map(|(a, b)| a * b)
                .sum::<f64>()
                < 0.0;
        let sign = if flip { -1.0 } else { 1.0 };
        self.values.extend(value.iter().map(|x| x * sign));
        if self.interpolation == Interpolation::Cubic {
            self.in_tangents
                .extend(d_in.iter().map(|d| d * rate * sign));
            self.out_tangents
                .extend(d_out.iter().map(|d| d * rate * sign));
        }
    }

    /// The exact keyframes of a curve given by `exact` and driven through
    /// `map` (fraction linear in time on each piece).
    pub fn exact(exact: Exact<'a>, map: &FractionMap) -> Keyframes<'a> {
        let interpolation = interpolation_of(&exact);
        let quaternions = interpolation == Interpolation::Slerp;
        let mut k = Keyframes::new(interpolation, exact.width(), quaternions);
        let keys = exact.keys();
        // One piece from the first key to the last (one cycle, the usual
        // case): the keyframes are the keys in order, and their values the
        // interpolator's as they are, borrowed (a large CoordinateInterpolator
        // is not copied). Tangents and hemispheres need the general way.
        if let [piece] = &map.pieces[..]
            && matches!(interpolation, Interpolation::Linear | Interpolation::Step)
            && keys.first() == Some(&piece.f0)
            && keys.last() == Some(&piece.f1)
            && keys.is_sorted()
        {
            k.times = keys.iter().map(|&f| piece.time(f)).collect();
            k.values = exact.into_values();
            return k;
        }
        let last = map.pieces.len().saturating_sub(1);
        for (pi, piece) in map.pieces.iter().enumerate() {
            points(&exact, piece, pi == last, |p| {
                k.push(piece.time(p.f), &p.value, &p.d_in, &p.d_out, piece.rate());
            });
        }
        k
    }

    /// Keyframes sampled from `value_at(fraction)` at `rate` per second,
    /// uniformly on each piece, with both sides of every jump between pieces.
    /// Cubic keyframes get their tangents from the curve's own derivative
    /// at each sample (a second-order one-sided difference of the curve over
    /// 1e-6 of a fraction), never from differences between samples.
    pub fn sample(
        map: &FractionMap,
        rate: f64,
        width: usize,
        interpolation: Interpolation,
        quaternions: bool,
        mut value_at: impl FnMut(f64, &mut Vec<f64>),
    ) -> Keyframes<'a> {
        const DF: f64 = 1e-6;
        let mut k = Keyframes::new(interpolation, width, quaternions);
        let (mut v, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        let mut slope = |f: f64,
                         v: &[f64],
                         dir: f64,
                         value_at: &mut dyn FnMut(f64, &mut Vec<f64>)|
         -> Vec<f64> {
            value_at(f + dir * DF, &mut a);
            value_at(f + dir * 2.0 * DF, &mut b);
            if quaternions {
                align(v, &mut a);
                align(v, &mut b);
            }
            (0..v.len())
                .map(|c| dir * (-3.0 * v[c] + 4.0 * a[c] - b[c]) / (2.0 * DF))
                .collect()
        };
        for piece in &map.pieces {
            let n = steps(piece, rate);
            for i in 0..=n {
                let t = piece.t0 + (piece.t1 - piece.t0) * i as f64 / n as f64;
                let f = piece.fraction(t);
                value_at(f, &mut v);
                if interpolation == Interpolation::Cubic {
                    let d_in = slope(f, &v, -1.0, &mut value_at);
                    let d_out = slope(f, &v, 1.0, &mut value_at);
                    k.push(t, &v, &d_in, &d_out, piece.rate());
                } else {
                    k.push(t, &v, &[], &[], 1.0);
                }
            }
        }
        k
    }

    /// The value at clip time `t`, as a keyframe player computes it.
    pub fn eval(&self, t: f64, out: &mut Vec<f64>) {
        out.clear();
        if self.times.is_empty() {
            return;
        }
        let (i, s) = match lookup(&self.times, t) {
            Seg::At(i) => return out.extend_from_slice(&self.value(i)),
            Seg::Between(i, s) => (i, s),
        };
        let w = self.width;
        let (m0, m1) = match self.interpolation {
            Interpolation::Cubic => (
                &self.out_tangents[i * w..(i + 1) * w],
                &self.in_tangents[(i + 1) * w..(i + 2) * w],
            ),
            _ => (&[][..], &[][..]),
        };
        let dt = self.times[i + 1] - self.times[i];
        out.resize(w, 0.0);
        let (a, b) = (self.value(i), self.value(i + 1));
        let segment = Segment {
            a: &a,
            b: &b,
            m0,
            m1,
            dt,
        };
        segment.at(self.interpolation, s, out);
    }

    /// The value at clip time `t` as a glTF player shows it: rotations
    /// (`rotation`, quaternions) normalised after interpolation, as glTF
    /// defines a CUBICSPLINE rotation (component-wise Hermite, then
    /// normalise).
    pub fn play(&self, t: f64, rotation: bool, out: &mut Vec<f64>) {
        self.eval(t, out);
        if rotation {
            for q in out.chunks_exact_mut(4) {
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n > 0.0 {
                    q.iter_mut().for_each(|x| *x /= n);
                }
            }
        }
    }
}

/// One segment between two keyframes: their values, the out-tangent of the
/// first and the in-tangent of the second (cubic only, per unit of `dt`),
/// and its length.
pub struct Segment<'a> {
    /// The first key's value.
    pub a: &'a [f64],
    /// The second key's value.
    pub b: &'a [f64],
    /// The tangent leaving the first key.
    pub m0: &'a [f64],
    /// The tangent arriving at the second key.
    pub m1: &'a [f64],
    /// The segment's length.
    pub dt: f64,
}

impl Segment<'_> {
    /// The value at local parameter `s` in [0, 1], joined as
    /// `interpolation` says, written to `out` (as long as a value).
    pub fn at(&self, interpolation: Interpolation, s: f64, out: &mut [f64]) {
        let (a, b) = (self.a, self.b);
        match interpolation {
            Interpolation::Step => out.copy_from_slice(a),
            Interpolation::Linear => {
                for (c, o) in out.iter_mut().enumerate() {
                    *o = a[c] + s * (b[c] - a[c]);
                }
            }
            Interpolation::Slerp => {
                let q = rotation::slerp(DQuat::from_slice(a), DQuat::from_slice(b), s);
                out.copy_from_slice(&q.to_array());
            }
            Interpolation::Cubic => {
                let h = spline::hermite_basis(s);
                for (c, o) in out.iter_mut().enumerate() {
                    *o = h[0] * a[c]
                        + h[1] * b[c]
                        + self.dt * (h[2] * self.m0[c] + h[3] * self.m1[c]);
                }
            }
        }
    }
}

/// Flips a quaternion to the hemisphere of `reference`.
pub(super) fn align(reference: &[f64], v: &mut [f64]) {
    if reference
        .iter()
        .zip(v.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
        < 0.0
    {
        v.iter_mut().for_each(|x| *x = -*x);
    }
}

/// The points of an exact curve on one piece, in order, to `emit`: its ends
/// and every key inside. At a repeated key all its values are kept (a
/// jump); at the end of a piece only the value arriving there, unless it is
/// the clip's end. Derivatives are given for Hermite curves only (empty
/// otherwise: other keyframes have no tangents).
fn points(exact: &Exact, piece: &Piece, clip_end: bool, mut emit: impl FnMut(Point)) {
    let keys = exact.keys();
    let w = exact.width();
    let values = exact.values();
    let n = keys.len();
    let tangents = matches!(exact, Exact::Hermite { .. });
    let derivative = |f: f64, left: bool| -> Vec<f64> {
        if tangents {
            exact.derivative(f, left).unwrap_or_else(|| vec![0.0; w])
        } else {
            Vec::new()
        }
    };
    let zero = || if tangents { vec![0.0; w] } else { Vec::new() };
    let key_point = |i: usize| {
        let slope = |a: usize, b: usize, left: bool| -> Vec<f64> {
            if keys[b] > keys[a] {
                derivative(keys[i], left)
            } else {
                zero()
            }
        };
        Point {
            f: keys[i],
            value: values.slice(i * w..(i + 1) * w).into_owned(),
            d_in: if i > 0 { slope(i - 1, i, true) } else { zero() },
            d_out: if i + 1 < n {
                slope(i, i + 1, false)
            } else {
                zero()
            },
        }
    };
    let plain_point = |f: f64| {
        let mut value = Vec::new();
        exact.eval(f, &mut value);
        Point {
            f,
            value,
            d_in: derivative(f, true),
            d_out: derivative(f, false),
        }
    };
    let at_start: Vec<usize> = (0..n).filter(|&i| keys[i] == piece.f0).collect();
    if at_start.is_empty() {
        emit(plain_point(piece.f0));
    } else {
        at_start.into_iter().for_each(|i| emit(key_point(i)));
    }
    (0..n)
        .filter(|&i| keys[i] > piece.f0 && keys[i] < piece.f1)
        .for_each(|i| emit(key_point(i)));
    let at_end: Vec<usize> = (0..n).filter(|&i| keys[i] == piece.f1).collect();
    match (at_end.first(), clip_end) {
        (None, _) => emit(plain_point(piece.f1)),
        (Some(&first), false) => emit(key_point(first)),
        (Some(_), true) => at_end.into_iter().for_each(|i| emit(key_point(i))),
    }
}
