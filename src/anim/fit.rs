//! Fewest keys within a bound of a curve, found from the curve's structure.
//!
//! A curve (a track's value over its clock's fraction) is smooth between
//! its corners (the fractions where its value or a derivative may jump,
//! `Track::corners`). Between corners a cubic Hermite segment whose ends
//! carry the curve's own value and derivative is off by about
//! h⁴·|f⁗|/384, so few keys hold a small bound; a straight (or slerp)
//! segment is off by h²·|f″|/8. Keys are chosen greedily, each segment as
//! long as its error allows: a trial segment is checked against the true
//! curve at 15 points inside it and at every corner it spans (a cubic
//! segment far under the bound at a third and two thirds of it is taken at
//! once), near the bound the largest error is searched for around the worst
//! point, and the next trial length is predicted from the error's order (h⁴
//! or h²). A straight rotation segment is measured as slerp and as nlerp
//! (see `nlerp`): both players stay within the bound. The test
//! `tests/it/bound.rs` plays the results in three.js at 1 kHz.

use super::clock::{FractionMap, Piece};
use super::keyframes::{Interpolation, Keyframes, Segment, align};
use super::nlerp;
use super::reduce::distance;
use super::track::Track;
use crate::math;
use glam::DQuat;

/// The default bound on a value track, relative to the largest value the
/// track takes (at least 1): see [`default_tolerance`].
pub const DEFAULT_RELATIVE: f64 = 1e-4;
/// The default bound on a rotation track, in radians.
pub const DEFAULT_ANGLE: f64 = 1e-4;

/// The bound a bake holds without `--tolerance`: 1e-4 rad on rotations,
/// 1e-4 × max(1, the largest element of the key values) on values.
pub fn default_tolerance(track: &Track) -> f64 {
    if track.is_rotation() {
        DEFAULT_ANGLE
    } else {
        DEFAULT_RELATIVE * track.interpolator().largest(track.per_element()).max(1.0)
    }
}

/// Steps of f32 at a track's largest value in the finest bound a fit is
/// held to (see [`finest_tolerance`]).
const FINEST_STEPS: f64 = 4.0;

/// The finest bound a track's keys are fitted within: a few steps of f32
/// at the track's largest value (at least 1; radians for rotations). glTF
/// stores f32, and the key values a track is made of are f32: its true
/// curve is no more exact than that, so a finer bound cannot be met. A
/// `--tolerance` of 1e-10 made the fit cut ever shorter segments, until the
/// key limit (tens of millions of keys) or memory gave out.
pub fn finest_tolerance(track: &Track) -> f64 {
    let scale = if track.is_rotation() {
        1.0
    } else {
        track.interpolator().largest(track.per_element()).max(1.0)
    };
    FINEST_STEPS * f64::from(f32::EPSILON) * scale
}

/// Interior check points a segment is measured at, plus one.
const CHECKS: usize = 16;
/// A segment whose error at its check points is over this share of the
/// bound is measured again between them, where its error is largest.
const REFINE: f64 = 0.5;
/// A segment using this share of what it may is long enough.
const TIGHT: f64 = 0.98;
/// A cubic segment whose error at a third and two thirds of its length is
/// under this share of the bound is accepted without more (the error of a
/// short Hermite segment, c·s²(1−s)² with a small odd part, is at least 3/4
/// of its largest at one of them).
const QUICK: f64 = 1.0 / 16.0;
/// Trials for one segment's length.
const TRIALS: usize = 12;
/// A difference between the values arriving at and leaving a corner over
/// this share of the bound is a jump (two keys at one time).
const JUMP: f64 = 1e-2;
/// Relative step of the one-sided differences that give derivatives.
const STEP: f64 = 1e-6;

/// What a fit must hold.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The largest distance from the true curve at any time.
    pub tol: f64,
    /// Values are unit quaternions (distance: the angle in radians).
    pub rotation: bool,
    /// Numbers per element of a value (distance: the largest Euclidean
    /// distance of an element).
    pub per: usize,
    /// The value is a field of view (radians), which Blender's importer
    /// keys as a lens length `c / tan(fov / 2)` and interpolates as that:
    /// straight segments are measured that way too.
    pub lens: bool,
}

/// The shape of fitted segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Hermite segments with the curve's own derivatives (CUBICSPLINE).
    Cubic,
    /// Straight lines, or slerp for rotations.
    Linear,
}

impl Shape {
    /// Cubic, then straight (kept on a tie: less data a key).
    pub const EITHER: &'static [Shape] = &[Shape::Cubic, Shape::Linear];
    /// Straight only.
    pub const STRAIGHT: &'static [Shape] = &[Shape::Linear];
}

/// Fitted keyframes and the largest distance of their curve from the true
/// curve the fit measured (at most the bound).
#[derive(Debug)]
pub struct Fitted {
    /// The keyframes.
    pub keys: Keyframes<'static>,
    /// The largest error measured.
    pub error: f64,
}

/// The fit would need more keys than it was allowed.
#[derive(Debug)]
pub struct TooMany;

/// A point of the fitted curve: a key's fraction, value and derivatives
/// (per unit fraction; empty for linear fits).
#[derive(Clone)]
struct Node {
    f: f64,
    v: Vec<f64>,
    d_in: Vec<f64>,
    d_out: Vec<f64>,
}

/// The true curve and how to measure against it.
struct Curve<'f> {
    value_at: &'f mut dyn FnMut(f64, &mut Vec<f64>),
    bound: Bound,
    shape: Shape,
    buf: Vec<f64>,
    /// Scratch for a fitted segment's value.
    approx: Vec<f64>,
    /// Scratch for the curve on either side of a node.
    sides: [Vec<f64>; 2],
    /// Scratch for a segment's check points.
    checks: Vec<f64>,
    /// The largest error of an accepted segment.
    worst: f64,
}

impl Curve<'_> {
    fn at(&mut self, f: f64) -> Vec<f64> {
        (self.value_at)(f, &mut self.buf);
        self.buf.clone()
    }

    /// The value arriving at `f` from the stretch that starts at `lo`.
    fn left(&mut self, f: f64, lo: f64) -> Vec<f64> {
        let x = f - (f - lo) * 1e-9;
        self.at(if x < f { x } else { 0.5 * (lo + f) })
    }

    /// The one-sided derivative at `f` (value `v` there) into the stretch
    /// of length `len`: leaving when `dir` is 1, arriving when −1.
    fn slope(&mut self, f: f64, v: &[f64], dir: f64, len: f64) -> Vec<f64> {
        if self.shape == Shape::Linear {
            return Vec::new();
        }
        // First order: the derivative is off by h·f″/2, which moves a
        // segment of length L by at most about 1e-7·L²·f″, a ten-millionth of
        // what a chord of it is off by.
        let h = STEP * len;
        let mut a = self.at(f + dir * h);
        if self.bound.rotation {
            align(v, &mut a);
        }
        (0..v.len()).map(|c| dir * (a[c] - v[c]) / h).collect()
    }

    /// A node inside the stretch [lo, hi] (central difference).
    fn inner(&mut self, f: f64, lo: f64, hi: f64) -> Node {
        let v = self.at(f);
        if self.shape == Shape::Linear {
            return Node {
                f,
                v,
                d_in: Vec::new(),
                d_out: Vec::new(),
            };
        }
        let h = STEP * (hi - lo);
        let d = if f - h <= lo {
            self.slope(f, &v, 1.0, hi - lo)
        } else if f + h >= hi {
            self.slope(f, &v, -1.0, hi - lo)
        } else {
            let [mut a, mut b] = std::mem::take(&mut self.sides);
            (self.value_at)(f - h, &mut a);
            (self.value_at)(f + h, &mut b);
            if self.bound.rotation {
                align(&v, &mut a);
                align(&v, &mut b);
            }
            let d = (0..v.len()).map(|c| (b[c] - a[c]) / (2.0 * h)).collect();
            self.sides = [a, b];
            d
        };
        Node {
            f,
            v,
            d_in: d.clone(),
            d_out: d,
        }
    }

    /// The stretch's first node: the value leaving `lo`.
    fn start(&mut self, lo: f64, hi: f64) -> Node {
        let v = self.at(lo);
        let d_out = self.slope(lo, &v, 1.0, hi - lo);
        Node {
            f: lo,
            d_in: vec![0.0; d_out.len()],
            v,
            d_out,
        }
    }

    /// The stretch's last node: the value arriving at `hi`.
    fn end(&mut self, lo: f64, hi: f64) -> Node {
        let v = self.left(hi, lo);
        let d_in = self.slope(hi, &v, -1.0, hi - lo);
        Node {
            f: hi,
            d_out: vec![0.0; d_in.len()],
            v,
            d_in,
        }
    }

    /// The largest distance of the segment from `a` to `b` from the true
    /// curve, at its check points and at `corners` inside it.
    fn error(&mut self, a: &Node, b: &Node, corners: &[f64]) -> f64 {
        let len = b.f - a.f;
        if self.shape == Shape::Cubic {
            // A cubic segment between corners: far under the bound at a
            // third and two thirds, it is under it everywhere.
            let quick = [1.0 / 3.0, 2.0 / 3.0]
                .iter()
                .map(|&s| self.distance_at(a, b, s, len))
                .fold(0.0, f64::max);
            if quick <= QUICK * self.bound.tol {
                return quick;
            }
        }
        let inside = corners.partition_point(|&c| c <= a.f);
        let spanned = corners[inside..].iter().take_while(|&&c| c < b.f);
        let mut checks = std::mem::take(&mut self.checks);
        checks.clear();
        checks.extend((0..=CHECKS).map(|i| i as f64 / CHECKS as f64));
        checks.extend(spanned.map(|&c| (c - a.f) / len));
        checks.sort_by(f64::total_cmp);
        let e = self.largest_error(a, b, &checks, len);
        self.checks = checks;
        e
    }

    /// The largest distance of the segment from `a` to `b` (of length `len`)
    /// from the true curve at `checks` (local parameters, sorted, 0 and 1
    /// first and last), and near the bound between them; any distance over
    /// the bound as soon as one is found.
    fn largest_error(&mut self, a: &Node, b: &Node, checks: &[f64], len: f64) -> f64 {
        let mut worst = (0.0, 0);
        for (i, &s) in checks.iter().enumerate().take(checks.len() - 1).skip(1) {
            let e = self.distance_at(a, b, s, len);
            if e > self.bound.tol {
                return e; // already too far: no need to know by how much
            }
            if e > worst.0 {
                worst = (e, i);
            }
        }
        if worst.0 < REFINE * self.bound.tol {
            return worst.0;
        }
        // Close to the bound: the largest error between the neighbours of
        // the worst check point, by golden-section search.
        const G: f64 = 0.381_966_011_250_105_1;
        let (mut l, mut r) = (checks[worst.1 - 1], checks[worst.1 + 1]);
        let mut best = worst.0;
        let (mut x1, mut x2) = (l + G * (r - l), r - G * (r - l));
        let (mut e1, mut e2) = (
            self.distance_at(a, b, x1, len),
            self.distance_at(a, b, x2, len),
        );
        for _ in 0..8 {
            best = best.max(e1).max(e2);
            if e1 >= e2 {
                (r, x2, e2) = (x2, x1, e1);
                x1 = l + G * (r - l);
                e1 = self.distance_at(a, b, x1, len);
            } else {
                (l, x1, e1) = (x1, x2, e2);
                x2 = r - G * (r - l);
                e2 = self.distance_at(a, b, x2, len);
            }
        }
        best.max(e1).max(e2)
    }

    /// How far the segment from `a` to `b` is from the curve at local
    /// parameter `s`.
    fn distance_at(&mut self, a: &Node, b: &Node, s: f64, len: f64) -> f64 {
        (self.value_at)(a.f + s * len, &mut self.buf);
        let mut approx = std::mem::take(&mut self.approx);
        approx.resize(a.v.len(), 0.0);
        self.blend(a, b, s, len, &mut approx);
        let mut d = distance(&approx, &self.buf, self.bound.rotation, self.bound.per);
        if self.shape == Shape::Linear && self.bound.lens {
            // A lens length interpolated straight, as an angle again.
            let lens = |fov: f64| {
                let (sin, cos) = math::sin_cos(0.5 * fov);
                cos / sin
            };
            let (la, lb) = (lens(a.v[0]), lens(b.v[0]));
            let fov = 2.0 * math::atan2(1.0, la + s * (lb - la));
            d = d.max((fov - self.buf[0]).abs());
        }
        if self.shape == Shape::Linear && self.bound.rotation {
            // Players that interpolate each component (Blender) play nlerp:
            // within the bound too.
            for (c, (p, q)) in a.v.chunks_exact(4).zip(b.v.chunks_exact(4)).enumerate() {
                let q = nlerp::nlerp(DQuat::from_slice(p), DQuat::from_slice(q), s);
                d = d.max(distance(
                    &q.to_array(),
                    &self.buf[4 * c..4 * c + 4],
                    true,
                    4,
                ));
            }
        }
        self.approx = approx;
        d
    }

    /// The fitted segment's value at local parameter `s`.
    fn blend(&self, a: &Node, b: &Node, s: f64, len: f64, out: &mut [f64]) {
        let interpolation = match (self.shape, self.bound.rotation) {
            (Shape::Cubic, _) => Interpolation::Cubic,
            (Shape::Linear, true) => Interpolation::Slerp,
            (Shape::Linear, false) => Interpolation::Linear,
        };
        let segment = Segment {
            a: &a.v,
            b: &b.v,
            m0: &a.d_out,
            m1: &b.d_in,
            dt: len,
        };
        segment.at(interpolation, s, out);
        if interpolation == Interpolation::Cubic && self.bound.rotation {
            // A glTF player normalizes a cubic quaternion.
            let q = DQuat::from_slice(out).normalize();
            out.copy_from_slice(&q.to_array());
        }
    }

    /// The keys after `a` up to and including `last` (the stretch's end,
    /// [lo, hi], of `piece`), each segment as long as the bound allows; at
    /// most `room`.
    fn segments(
        &mut self,
        piece: &Piece,
        mut a: Node,
        last: Node,
        corners: &[f64],
        room: &mut usize,
        out: &mut Vec<Node>,
    ) -> Result<(), TooMany> {
        let (lo, hi) = (a.f, last.f);
        let order = match self.shape {
            Shape::Cubic => 4.0,
            Shape::Linear => 2.0,
        };
        let accept = self.bound.tol;
        let tiny = (hi - lo) * 1e-9;
        let mut h = hi - lo;
        while a.f < hi {
            // The longest length that fitted and the shortest that did not.
            let mut best: Option<(Node, f64, f64)> = None;
            let mut bad = f64::INFINITY;
            // Until a length fits, then at most TRIALS in all.
            for trial in 1.. {
                if trial > TRIALS && best.is_some() {
                    break;
                }
                let reached = best.as_ref().map_or(a.f, |(n, _, _)| n.f);
                let mut fb = if a.f + h >= hi - tiny { hi } else { a.f + h };
                // A straight segment ends at a corner where it can (where a
                // straight curve turns): the last one past what fitted.
                let mut at_corner = false;
                if self.shape == Shape::Linear && fb < hi {
                    let i = corners.partition_point(|&c| c <= fb + tiny);
                    if let Some(&c) = corners[..i].last().filter(|&&c| c > reached + tiny) {
                        fb = c;
                        at_corner = true;
                    }
                }
                if fb < hi && !at_corner {
                    // At a time a glTF file holds exactly (f32): the
                    // player's key is where the fit put it.
                    let held = piece.fraction(piece.time(fb) as f32 as f64);
                    // (Only where that is progress: past what fitted,
                    // short of what did not.)
                    if held > reached + 2.0 * tiny && held - a.f < bad && held < hi {
                        fb = held;
                    }
                }
                let len = fb - a.f;
                let mut b = if fb == hi {
                    last.clone()
                } else {
                    self.inner(fb, lo, hi)
                };
                if self.bound.rotation {
                    align_node(&a.v, &mut b);
                }
                let e = self.error(&a, &b, corners);
                if e <= accept {
                    best = Some((b, len, e));
                    if fb == hi || e >= TIGHT * accept {
                        break;
                    }
                } else {
                    bad = len;
                    if best.is_none() && len <= tiny {
                        // A jump the corners missed: a short segment.
                        best = Some((b, len, e));
                        break;
                    }
                }
                // The length that would use the bound, from the error's
                // order, inside what is known.
                let good = best.as_ref().map_or(0.0, |(_, l, _)| *l);
                let predicted = match e {
                    e if e.is_nan() => 0.0,
                    e => len * math::powf(TIGHT * accept / e.max(f64::MIN_POSITIVE), 1.0 / order),
                };
                h = if bad.is_finite() {
                    let gap = bad - good;
                    if gap <= 0.02 * bad {
                        break;
                    }
                    predicted.clamp(good + 0.1 * gap, bad - 0.1 * gap)
                } else {
                    predicted.clamp(1.2 * len, 4.0 * len)
                };
            }
            let Some((b, len, e)) = best else {
                unreachable!("the search ends with a length that fits")
            };
            if *room == 0 {
                return Err(TooMany);
            }
            *room -= 1;
            self.worst = self.worst.max(e);
            out.push(b.clone());
            a = b;
            h = len;
        }
        Ok(())
    }
}

fn align_node(reference: &[f64], n: &mut Node) {
    let dot: f64 = reference.iter().zip(&n.v).map(|(a, b)| a * b).sum();
    if dot < 0.0 {
        for x in n.v.iter_mut().chain(&mut n.d_in).chain(&mut n.d_out) {
            *x = -*x;
        }
    }
}

/// Keys of `shape` within `bound` of the curve `value_at` (a value of
/// `width` numbers for a clock fraction) driven through `map`, never more
/// than `max_keys`. `corners` (sorted) are where the curve may not be
/// smooth; cubic keys stand at each, and a jump gets two keys at one time.
/// Linear keys may pass over a corner where the bound allows.
pub fn fit(
    map: &FractionMap,
    corners: &[f64],
    width: usize,
    shape: Shape,
    bound: Bound,
    max_keys: usize,
    value_at: &mut dyn FnMut(f64, &mut Vec<f64>),
) -> Result<Fitted, TooMany> {
    let interpolation = match (shape, bound.rotation) {
        (Shape::Cubic, _) => Interpolation::Cubic,
        (Shape::Linear, true) => Interpolation::Slerp,
        (Shape::Linear, false) => Interpolation::Linear,
    };
    let mut k = Keyframes::new(interpolation, width, bound.rotation);
    let mut curve = Curve {
        value_at,
        bound,
        shape,
        buf: Vec::with_capacity(width),
        approx: Vec::with_capacity(width),
        sides: [Vec::with_capacity(width), Vec::with_capacity(width)],
        checks: Vec::with_capacity(CHECKS + 1),
        worst: 0.0,
    };
    let mut room = max_keys;
    let last = map.pieces.len().saturating_sub(1);
    for (pi, piece) in map.pieces.iter().enumerate() {
        let nodes = fit_piece(&mut curve, piece, corners, &mut room)?;
        for n in &nodes {
            k.push(piece.time(n.f), &n.v, &n.d_in, &n.d_out, piece.rate());
        }
        // The clip's end holds the value at fraction f1 itself (the last of
        // keys repeated there), when it differs from the one arriving.
        if pi == last {
            let end = curve.at(piece.f1);
            if nodes
                .last()
                .is_some_and(|n| distance(&n.v, &end, bound.rotation, bound.per) > bound.tol * JUMP)
            {
                let zero = vec![0.0; if shape == Shape::Cubic { width } else { 0 }];
                k.push(piece.t1, &end, &zero, &zero, piece.rate());
            }
        }
    }
    Ok(Fitted {
        keys: k,
        error: curve.worst,
    })
}

/// The nodes of one piece: its stretches between corners fitted in turn
/// (cubic), or its runs between jumps (linear).
fn fit_piece(
    curve: &mut Curve,
    piece: &Piece,
    corners: &[f64],
    room: &mut usize,
) -> Result<Vec<Node>, TooMany> {
    let (f0, f1) = (piece.f0, piece.f1);
    let near = (f1 - f0) * 1e-12;
    let mut bounds = vec![f0];
    for &c in corners {
        if c > f0 + near && c < f1 - near && c > bounds[bounds.len() - 1] + near {
            bounds.push(c);
        }
    }
    bounds.push(f1);
    let inner = &bounds[1..bounds.len() - 1];
    let mut out = Vec::new();
    let mut i = 0;
    let mut a = curve.start(f0, bounds[1]);
    if *room == 0 {
        return Err(TooMany);
    }
    *room -= 1;
    out.push(a.clone());
    while i + 1 < bounds.len() {
        // The stretch (cubic) or run (linear) from bounds[i] to bounds[j].
        let mut j = i + 1;
        let mut end = curve.end(bounds[i], bounds[j]);
        let mut next = None;
        while j + 1 < bounds.len() {
            let mut after = curve.start(bounds[j], bounds[j + 1]);
            if curve.bound.rotation {
                align_node(&end.v, &mut after);
            }
            let jump = distance(&end.v, &after.v, curve.bound.rotation, curve.bound.per)
                > curve.bound.tol * JUMP;
            if jump || curve.shape == Shape::Cubic {
                next = Some((after, jump));
                break;
            }
            j += 1;
            end = curve.end(bounds[j - 1], bounds[j]);
        }
        curve.segments(piece, a, end.clone(), inner, room, &mut out)?;
        match next {
            Some((after, true)) => {
                if *room == 0 {
                    return Err(TooMany);
                }
                *room -= 1;
                out.push(after.clone());
                a = after;
            }
            Some((mut after, false)) => {
                // One key at a smooth corner: arriving and leaving slopes
                // (of one sign, the key as fitted may have been flipped).
                a = match out.last_mut() {
                    Some(n) => {
                        if curve.bound.rotation {
                            align_node(&n.v, &mut after);
                        }
                        n.d_out = after.d_out.clone();
                        Node {
                            d_in: n.d_in.clone(),
                            ..after
                        }
                    }
                    None => after,
                };
            }
            None => break,
        }
        i = j;
    }
    Ok(out)
}

/// The fit with the fewest keys among `shapes`, tried in order (a later
/// shape is kept on a tie: list the one with less data a key last).
pub fn fewest(
    map: &FractionMap,
    corners: &[f64],
    width: usize,
    shapes: &[Shape],
    bound: Bound,
    max_keys: usize,
    value_at: &mut dyn FnMut(f64, &mut Vec<f64>),
) -> Result<Fitted, TooMany> {
    let mut best: Result<Fitted, TooMany> = Err(TooMany);
    let mut room = max_keys;
    for &shape in shapes {
        if shape == Shape::Linear && best.as_ref().is_ok_and(|f| mostly_bent(&f.keys, bound)) {
            break;
        }
        if let Ok(f) = fit(map, corners, width, shape, bound, room, value_at) {
            room = f.keys.len();
            best = Ok(f);
        }
    }
    best
}

/// Whether most segments of cubic keys bend away from their chord by more
/// than the bound (at the middle, a Hermite segment is the chord's middle
/// plus dt·(m₀ − m₁)/8), or the curve turns by more than the bound at most
/// keys: straight keys would need more of them, and a straight fit is not
/// worth trying. (Under `FEW` cubic keys it is cheap, and always tried: a
/// bound as wide as the curve lets a straight line pass its bends.)
fn mostly_bent(k: &Keyframes, bound: Bound) -> bool {
    const FEW: usize = 8;
    if k.interpolation != Interpolation::Cubic || k.len() < FEW {
        return false;
    }
    let w = k.width;
    let zero = vec![0.0; w];
    let bent = (0..k.len() - 1)
        .filter(|&i| {
            let dt = k.times[i + 1] - k.times[i];
            let bow: Vec<f64> = (0..w)
                .map(|c| dt * (k.out_tangents[i * w + c] - k.in_tangents[(i + 1) * w + c]) / 8.0)
                .collect();
            // A quaternion's change δ is a turn of about 2|δ|.
            let scale = if bound.rotation { 2.0 } else { 1.0 };
            scale
                * distance(
                    &bow,
                    &zero,
                    false,
                    if bound.rotation { 4 } else { bound.per },
                )
                > bound.tol
        })
        .count();
    // Keys where the curve turns: off the chord of their neighbours by more
    // than the bound (a straight fit keeps a key near each).
    let mut v = vec![0.0; w];
    let turns = (1..k.len().saturating_sub(1))
        .filter(|&i| {
            let (a, b) = (k.value(i - 1), k.value(i + 1));
            let span = k.times[i + 1] - k.times[i - 1];
            let s = if span > 0.0 {
                (k.times[i] - k.times[i - 1]) / span
            } else {
                0.5
            };
            for (c, x) in v.iter_mut().enumerate() {
                *x = a[c] + s * (b[c] - a[c]);
            }
            // (A chord of quaternions, normalised, is their slerp's path.)
            distance(&v, &k.value(i), bound.rotation, bound.per) > bound.tol
        })
        .count();
    2 * bent > k.len() - 1 || 2 * turns > k.len().saturating_sub(2)
}
