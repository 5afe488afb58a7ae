//! Interpolation maths: pure functions of a fraction, knowing nothing of
//! X3D files. Every node of the X3D Interpolation component, the two
//! sequencers, and the project three `smooth` flag.
//!
//! Values are flat, `width` numbers per key, read as `f64` (linear and step
//! curves keep single-precision key values as they are: [`Values`]).
//! Rotations are unit quaternions `[x, y, z, w]` (see
//! [`rotation::to_axis_angle`] for X3D's axis-angle form).

pub mod color;
pub mod ease;
pub mod keys;
pub mod nurbs;
pub mod rotation;
pub mod spline;
pub mod values;

pub use ease::Ease;
pub use keys::{Hint, KeyWarning, Seg, lookup, lookup_near};
pub use spline::TangentRule;
pub use values::{Floats, Values};

use crate::math;
use glam::{DQuat, DVec3};
use std::borrow::Cow;

/// How values are blended between keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Component-wise linear: Scalar, Position(2D), Coordinate(2D).
    Linear,
    /// ColorInterpolator: HSV, shorter hue path.
    Color,
    /// NormalInterpolator: slerp of each normal on the unit sphere.
    Normal,
    /// OrientationInterpolator: quaternion slerp on the shorter arc.
    Orientation,
    /// The Spline* interpolators, and `smooth` Scalar/Position.
    Spline,
    /// SquadOrientationInterpolator.
    Squad,
    /// Boolean/IntegerSequencer: the value of the last key at or before f.
    Step,
    /// NurbsPositionInterpolator: the point of a rational B-spline at the
    /// fraction mapped onto its knots' range.
    Nurbs,
    /// NurbsOrientationInterpolator: the rotation taking +z to the same
    /// curve's tangent there (quaternions).
    NurbsOrientation,
    /// GeoPositionInterpolator: component-wise linear in its geoSystem's
    /// coordinates, each value then taken by its [`PointMap`] to the
    /// scene's frame (a curve there: sampled).
    Geo,
}

/// What a [`Kind::Geo`] interpolator's values are taken through after
/// interpolating: a point to a point.
#[derive(Clone)]
pub struct PointMap(pub std::sync::Arc<dyn Fn(DVec3) -> DVec3 + Send + Sync>);

impl std::fmt::Debug for PointMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PointMap")
    }
}

impl Kind {
    /// The kind and element size (numbers per element in keyValue) of an
    /// X3D node type, and whether it produces an MF value.
    pub fn of_node(type_name: &str) -> Option<(Kind, usize, bool)> {
        Some(match type_name {
            "ScalarInterpolator" => (Kind::Linear, 1, false),
            "PositionInterpolator" => (Kind::Linear, 3, false),
            "GeoPositionInterpolator" => (Kind::Geo, 3, false),
            "PositionInterpolator2D" => (Kind::Linear, 2, false),
            "CoordinateInterpolator" => (Kind::Linear, 3, true),
            "CoordinateInterpolator2D" => (Kind::Linear, 2, true),
            "ColorInterpolator" => (Kind::Color, 3, false),
            "NormalInterpolator" => (Kind::Normal, 3, true),
            "OrientationInterpolator" => (Kind::Orientation, 4, false),
            "SplineScalarInterpolator" => (Kind::Spline, 1, false),
            "SplinePositionInterpolator" => (Kind::Spline, 3, false),
            "SplinePositionInterpolator2D" => (Kind::Spline, 2, false),
            "SquadOrientationInterpolator" => (Kind::Squad, 4, false),
            "NurbsPositionInterpolator" => (Kind::Nurbs, 3, false),
            "NurbsOrientationInterpolator" => (Kind::NurbsOrientation, 4, false),
            "BooleanSequencer" | "IntegerSequencer" => (Kind::Step, 1, false),
            _ => return None,
        })
    }
}

/// What an interpolator is built from (its fields, as numbers).
pub struct Spec<'a> {
    /// The interpolator kind.
    pub kind: Kind,
    /// The key fractions.
    pub keys: &'a [f64],
    /// keyValue, flat: `elem` numbers per element (4 for axis-angle).
    /// Owned when the caller has no use for it after: a large keyValue then
    /// becomes the interpolator's values without a copy.
    pub key_value: Values<'a>,
    /// Numbers a value (a point of an MF value counts as its components).
    pub elem: usize,
    /// MF output (Coordinate, Normal): several elements per key.
    pub multiple: bool,
    /// Spline keyVelocity (empty when not given).
    pub key_velocity: &'a [f64],
    /// Spline `closed`.
    pub closed: bool,
    /// Spline `normalizeVelocity`.
    pub normalize_velocity: bool,
    /// How spline tangents are read.
    pub rule: TangentRule,
}

impl<'a> Spec<'a> {
    /// One number a key, no spline options: what a scalar curve made by
    /// x3dbake itself needs.
    pub fn scalar(kind: Kind, keys: &'a [f64], values: Vec<f64>) -> Spec<'a> {
        Spec {
            kind,
            keys,
            key_value: values.into(),
            elem: 1,
            multiple: false,
            key_velocity: &[],
            closed: false,
            normalize_velocity: false,
            rule: TangentRule::AsWritten,
        }
    }
}

/// An interpolator ready to evaluate.
#[derive(Clone, Debug)]
pub struct Interpolator {
    kind: Kind,
    keys: Vec<f64>,
    /// `width` numbers per key (rotations as quaternions); single
    /// precision as given for linear and step curves.
    values: Values<'static>,
    width: usize,
    /// Spline: outgoing tangents; Squad: inner control points; Nurbs:
    /// weights; Color: each segment's HSV ends.
    aux_out: Vec<f64>,
    /// Spline: incoming tangents.
    aux_in: Vec<f64>,
    /// Whether the keys never decrease (then a search may start at `hint`).
    sorted: bool,
    /// Where the last evaluation found its segment.
    hint: Hint,
    /// [`Kind::Geo`]: what each value is taken through.
    map: Option<PointMap>,
}

/// An exact description of an interpolator's curve, for writers that can
/// store it without sampling.
#[derive(Clone, Debug, PartialEq)]
pub enum Exact<'a> {
    /// Linear between keys. Repeated keys are jumps.
    Linear {
        /// The key fractions.
        keys: Cow<'a, [f64]>,
        /// The values, `width` numbers a key.
        values: Values<'a>,
    },
    /// Quaternions, slerp between keys; consecutive keys are in one
    /// hemisphere, so the shorter arc and the plain arc agree.
    Slerp {
        /// The key fractions.
        keys: Cow<'a, [f64]>,
        /// The values, `width` numbers a key.
        values: Values<'a>,
    },
    /// Hermite segments: per key its value, its incoming tangent (segment
    /// ending there) and its outgoing tangent (segment starting there), in
    /// value per segment.
    Hermite {
        /// The key fractions.
        keys: Cow<'a, [f64]>,
        /// The values, `width` numbers a key.
        values: Values<'a>,
        /// Incoming tangents, `width` numbers a key.
        inc: Cow<'a, [f64]>,
        /// Outgoing tangents, `width` numbers a key.
        out: Cow<'a, [f64]>,
    },
    /// Steps: each key's value holds until the next key.
    Step {
        /// The key fractions.
        keys: Cow<'a, [f64]>,
        /// The values, `width` numbers a key.
        values: Values<'a>,
    },
}

impl Interpolator {
    /// Builds an interpolator, reporting what docs/interpretations.md calls undefined or
    /// suspicious (and resolving it as that page says).
    pub fn new(spec: Spec<'_>, warnings: &mut Vec<KeyWarning>) -> Interpolator {
        let n = spec.keys.len();
        keys::check_keys(spec.keys, warnings);
        let elements = spec.key_value.len() / spec.elem;
        let per_key = if spec.multiple && n > 0 {
            if !elements.is_multiple_of(n) {
                warnings.push(KeyWarning::NotAMultiple {
                    keys: n,
                    values: elements,
                });
            }
            elements / n
        } else {
            1
        };
        if !spec.multiple && n > 0 {
            if elements < n {
                warnings.push(KeyWarning::ShortKeyValue {
                    keys: n,
                    values: elements,
                });
            } else if elements > n {
                warnings.push(KeyWarning::LongKeyValue {
                    keys: n,
                    values: elements,
                });
            }
        }
        let frame = per_key * spec.elem;
        // Key frames, padded with the last one (none at all: no values).
        let frames = spec.key_value.len().checked_div(frame).unwrap_or(0);
        let empty = n == 0 || frames == 0;
        let keys = if empty {
            Vec::new()
        } else {
            spec.keys.to_vec()
        };
        let padded = if empty {
            Values::default()
        } else {
            spec.key_value.in_frames(frame, n)
        };
        let (values, width) = match spec.kind {
            Kind::Orientation | Kind::Squad => (quaternions(&padded), 4),
            Kind::Nurbs | Kind::NurbsOrientation => unreachable!("built by Interpolator::nurbs"),
            Kind::Normal => (unit_normals(&padded), frame),
            // As given: a large keyValue held once, moved when owned.
            Kind::Linear | Kind::Step | Kind::Geo => (padded, frame),
            Kind::Color | Kind::Spline => (padded.wide().into_owned().into(), frame),
        };
        let mut it = Interpolator {
            kind: spec.kind,
            sorted: keys.is_sorted(),
            hint: Hint::default(),
            keys,
            values,
            width,
            aux_out: Vec::new(),
            aux_in: Vec::new(),
            map: None,
        };
        match spec.kind {
            Kind::Spline => {
                let t = spline::tangents(
                    &spline::SplineInput {
                        keys: &it.keys,
                        values: &it.values.wide(),
                        width,
                        velocity: spec.key_velocity,
                        closed: spec.closed,
                        normalize_velocity: spec.normalize_velocity,
                        rule: spec.rule,
                    },
                    warnings,
                );
                it.aux_out = t.out;
                it.aux_in = t.inc;
            }
            Kind::Squad => it.aux_out = it.squad_points(spec.closed, warnings),
            Kind::Normal => it.warn_opposite_normals(warnings),
            Kind::Color => it.aux_out = it.hsv_segments(),
            _ => {}
        }
        it
    }

    /// The interpolator kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Numbers in one output value.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The key fractions.
    pub fn keys(&self) -> &[f64] {
        &self.keys
    }

    /// A colour interpolator's HSV ends of each segment (`color::hsv_ends`),
    /// six numbers a segment: made once, not at each of the thousands of
    /// times a fit evaluates the curve (converting both ends was a fifth
    /// of a bake of many animated colours).
    fn hsv_segments(&self) -> Vec<f64> {
        (1..self.keys.len())
            .flat_map(|i| {
                let (a, b) = (self.value(i - 1), self.value(i));
                let (p, q) = color::hsv_ends([a[0], a[1], a[2]], [b[0], b[1], b[2]]);
                p.into_iter().chain(q)
            })
            .collect()
    }

    /// A colour interpolator's HSV ends of segment `i` (see
    /// [`Interpolator::hsv_segments`]).
    fn hsv_ends(&self, i: usize) -> ([f64; 3], [f64; 3]) {
        let e = &self.aux_out[6 * i..6 * i + 6];
        ([e[0], e[1], e[2]], [e[3], e[4], e[5]])
    }

    /// Where its curve may turn: the key fractions, and for a colour
    /// interpolator also where a segment's hue passes from one sixth of the
    /// circle to the next; sorted.
    pub fn corners(&self) -> Vec<f64> {
        let mut out = self.keys.clone();
        if self.kind == Kind::Color {
            for (i, k) in self.keys.windows(2).enumerate() {
                let (p, q) = self.hsv_ends(i);
                let hue = color::hue_corners(p, q);
                out.extend(hue.into_iter().map(|t| k[0] + t * (k[1] - k[0])));
            }
            out.sort_by(f64::total_cmp);
        }
        out
    }

    /// The largest Euclidean norm of an element (`per` numbers) of its key
    /// values (taken through its [`PointMap`], if it has one).
    pub fn largest(&self, per: usize) -> f64 {
        if let Some(map) = &self.map {
            let v = self.values.wide();
            return v
                .chunks_exact(3)
                .map(|p| (map.0)(DVec3::from_slice(p)).length())
                .fold(0.0, f64::max);
        }
        // The largest squared norm, then its root (the root keeps order):
        // one pass over the numbers in their own precision.
        fn squares<T: Copy + Into<f64>>(v: &[T], per: usize) -> f64 {
            v.chunks(per)
                .map(|e| e.iter().map(|&x| x.into().powi(2)).sum::<f64>())
                .fold(0.0, f64::max)
        }
        let per = per.max(1);
        let largest = match &self.values {
            Values::Wide(v) => squares(v, per),
            Values::Narrow(v) => squares(&v[..], per),
        };
        largest.sqrt()
    }

    /// False when the interpolator has no keys: it sends no events, and its
    /// target keeps its own value.
    pub fn produces(&self) -> bool {
        !self.keys.is_empty()
    }

    fn value(&self, i: usize) -> Cow<'_, [f64]> {
        self.values.slice(self.range(i))
    }

    /// Where key `i`'s value is in `values`.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        i * self.width..(i + 1) * self.width
    }

    /// Quaternion `i` of some values (quaternions are f64: borrowed).
    fn quat_at(v: &Values, i: usize) -> DQuat {
        Self::quat(&v.slice(4 * i..4 * i + 4), 0)
    }

    fn quat(v: &[f64], i: usize) -> DQuat {
        DQuat::from_xyzw(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3])
    }

    /// A NurbsPositionInterpolator's (`kind` Nurbs) or
    /// NurbsOrientationInterpolator's (NurbsOrientation) curve: its control
    /// points (three numbers each), one weight each (else 1), its order and
    /// knots (see [`nurbs::Basis`]); `None` when it has too few points for
    /// a curve.
    pub fn nurbs(
        kind: Kind,
        points: Vec<f64>,
        weights: &[f64],
        order: i32,
        knots: &[f64],
    ) -> Option<Interpolator> {
        let n = points.len() / 3;
        let basis = nurbs::Basis::new(n, order, knots)?;
        let weights = if weights.len() == n && weights.iter().all(|&w| w > 0.0) {
            weights.to_vec()
        } else {
            vec![1.0; n]
        };
        Some(Interpolator {
            kind,
            sorted: true,
            hint: Hint::default(),
            keys: basis.knots.into_owned(),
            values: points.into(),
            width: if kind == Kind::NurbsOrientation { 4 } else { 3 },
            aux_out: weights,
            aux_in: Vec::new(),
            map: None,
        })
    }

    /// A [`Kind::Geo`] interpolator taking its values through `map`.
    pub fn with_map(mut self, map: PointMap) -> Interpolator {
        self.map = Some(map);
        self
    }

    /// The same interpolator with its values as given, not taken through
    /// a map (a GeoPositionInterpolator's geovalue_changed).
    pub fn unmapped(&self) -> Interpolator {
        Interpolator {
            map: None,
            ..self.clone()
        }
    }

    /// The value at fraction `f`, written to `out` (cleared first). Nothing is
    /// written when the interpolator has no keys.
    pub fn eval(&self, f: f64, out: &mut Vec<f64>) {
        self.eval_given(f, out);
        if let Some(map) = &self.map {
            for p in out.chunks_exact_mut(3) {
                let q = (map.0)(DVec3::from_slice(p));
                p.copy_from_slice(&q.to_array());
            }
        }
    }

    /// The value at fraction `f` in the keyValue's own terms.
    fn eval_given(&self, f: f64, out: &mut Vec<f64>) {
        out.clear();
        if self.keys.is_empty() {
            return;
        }
        if matches!(self.kind, Kind::Nurbs | Kind::NurbsOrientation) {
            // (Its keys are the knots; the fraction, clamped, goes over
            // their valid range, as X_ITE maps it.)
            let order = self.keys.len() - self.aux_out.len();
            let b = nurbs::Basis {
                order,
                knots: Cow::Borrowed(&self.keys),
            };
            let (u0, u1) = b.range();
            let u = u0 + (u1 - u0) * f.clamp(0.0, 1.0);
            let points = self.values.wide();
            if self.kind == Kind::Nurbs {
                return nurbs::point(&b, &points, 3, &self.aux_out, u, out);
            }
            // The tangent by a central difference (one-sided at the ends).
            let h = (u1 - u0) * 1e-6;
            let (a, c) = ((u - h).max(u0), (u + h).min(u1));
            let (mut p, mut q) = (Vec::new(), Vec::new());
            nurbs::point(&b, &points, 3, &self.aux_out, a, &mut p);
            nurbs::point(&b, &points, 3, &self.aux_out, c, &mut q);
            let d = DVec3::new(q[0] - p[0], q[1] - p[1], q[2] - p[2]);
            let r = if d.length() > 0.0 {
                DQuat::from_rotation_arc(DVec3::Z, d.normalize())
            } else {
                DQuat::IDENTITY
            };
            out.extend_from_slice(&r.to_array());
            return;
        }
        let seg = if self.sorted {
            lookup_near(&self.keys, f, &self.hint)
        } else {
            lookup(&self.keys, f)
        };
        let (i, s) = match seg {
            Seg::At(i) => return self.values.extend_into(self.range(i), out),
            Seg::Between(i, s) => (i, s),
        };
        // The values either side, as f64 (borrowed: only linear and step
        // values may be f32, and they are read in place).
        let ends = || (self.value(i), self.value(i + 1));
        match self.kind {
            Kind::Linear | Kind::Geo => {
                let (a, b) = (self.range(i), self.range(i + 1));
                self.values.lerp_into(a, b, s, out);
            }
            Kind::Step => self.values.extend_into(self.range(i), out),
            Kind::Nurbs | Kind::NurbsOrientation => unreachable!("evaluated above"),
            Kind::Color => {
                let (p, q) = self.hsv_ends(i);
                out.extend_from_slice(&color::lerp_ends(p, q, s));
            }
            Kind::Normal => {
                let (a, b) = ends();
                for (p, q) in a.chunks_exact(3).zip(b.chunks_exact(3)) {
                    let v = slerp_vec(DVec3::from_slice(p), DVec3::from_slice(q), s);
                    out.extend_from_slice(&v.to_array());
                }
            }
            Kind::Orientation => {
                let (a, b) = ends();
                let q = rotation::slerp(Self::quat(&a, 0), Self::quat(&b, 0), s);
                out.extend_from_slice(&q.to_array());
            }
            Kind::Squad => {
                let (a, b) = ends();
                let (s0, s1) = (
                    Self::quat(&self.aux_out, i),
                    Self::quat(&self.aux_out, i + 1),
                );
                let q = rotation::squad(Self::quat(&a, 0), Self::quat(&b, 0), s0, s1, s);
                out.extend_from_slice(&q.normalize().to_array());
            }
            Kind::Spline => {
                let (a, b) = ends();
                let h = spline::hermite_basis(s);
                let w = self.width;
                let t0 = &self.aux_out[i * w..(i + 1) * w];
                let t1 = &self.aux_in[(i + 1) * w..(i + 2) * w];
                out.extend((0..w).map(|c| h[0] * a[c] + h[1] * b[c] + h[2] * t0[c] + h[3] * t1[c]));
            }
        }
    }

    /// The exact curve, where a keyframe format can hold it: linear keys,
    /// slerp keys, Hermite segments, steps. `None` for HSV colour, normals on
    /// the sphere and squad, which must be sampled.
    pub fn exact(&self) -> Option<Exact<'_>> {
        let keys = Cow::Borrowed(&self.keys[..]);
        let values = self.values.borrowed();
        match self.kind {
            Kind::Linear => Some(Exact::Linear { keys, values }),
            Kind::Orientation => {
                let mut values = values;
                for i in 1..keys.len() {
                    if Self::quat_at(&values, i).dot(Self::quat_at(&values, i - 1)) < 0.0 {
                        values.negate(4 * i..4 * i + 4);
                    }
                }
                Some(Exact::Slerp { keys, values })
            }
            Kind::Spline => Some(Exact::Hermite {
                keys,
                values,
                inc: Cow::Borrowed(&self.aux_in[..]),
                out: Cow::Borrowed(&self.aux_out[..]),
            }),
            Kind::Step => Some(Exact::Step { keys, values }),
            Kind::Color
            | Kind::Normal
            | Kind::Squad
            | Kind::Nurbs
            | Kind::NurbsOrientation
            | Kind::Geo => None,
        }
    }

    fn squad_points(&self, closed: bool, warnings: &mut Vec<KeyWarning>) -> Vec<f64> {
        let n = self.keys.len();
        let q = |i: usize| Self::quat_at(&self.values, i);
        let closed_ok = n > 1 && rotation::same_rotation(q(0), q(n - 1), 1e-12);
        if closed && !closed_ok {
            warnings.push(KeyWarning::ClosedIgnored(
                "the first and last keyValue differ",
            ));
        }
        let closed = closed && closed_ok && n > 2;
        (0..n)
            .flat_map(|i| {
                let s = if i > 0 && i + 1 < n {
                    rotation::squad_inner(q(i - 1), q(i), q(i + 1))
                } else if closed {
                    rotation::squad_inner(q(n - 2), q(i), q(1))
                } else {
                    q(i)
                };
                s.to_array()
            })
            .collect()
    }

    fn warn_opposite_normals(&self, warnings: &mut Vec<KeyWarning>) {
        for i in 1..self.keys.len() {
            let (a, b) = (self.value(i - 1), self.value(i));
            let opposite = a
                .chunks_exact(3)
                .zip(b.chunks_exact(3))
                .any(|(a, b)| DVec3::from_slice(a).dot(DVec3::from_slice(b)) <= -1.0 + 1e-12);
            if opposite {
                warnings.push(KeyWarning::OppositeNormals { key: i - 1 });
            }
        }
    }
}

/// Axis-angle key frames to unit quaternions.
fn quaternions(v: &Values) -> Values<'static> {
    let v = v.wide();
    let q = v.chunks_exact(4);
    q.flat_map(|r| rotation::from_axis_angle(r).to_array())
        .collect::<Vec<_>>()
        .into()
}

/// Normals scaled to unit length (a zero normal stays zero).
fn unit_normals(v: &Values) -> Values<'static> {
    let v = v.wide();
    let n = v.chunks_exact(3);
    n.flat_map(|n| DVec3::from_slice(n).normalize_or_zero().to_array())
        .collect::<Vec<_>>()
        .into()
}

/// Slerp of two unit vectors; opposite vectors turn about a fixed
/// perpendicular so that the result stays unit length.
fn slerp_vec(a: DVec3, b: DVec3, t: f64) -> DVec3 {
    let cos = a.dot(b).clamp(-1.0, 1.0);
    if cos >= 1.0 - 1e-15 || a == DVec3::ZERO || b == DVec3::ZERO {
        return a.lerp(b, t);
    }
    if cos <= -1.0 + 1e-12 {
        let axis = a.any_orthonormal_vector();
        return DQuat::from_axis_angle(axis, t * std::f64::consts::PI) * a;
    }
    let omega = math::acos(cos);
    let sin = math::sin(omega);
    a * (math::sin((1.0 - t) * omega) / sin) + b * (math::sin(t * omega) / sin)
}

impl<'a> Exact<'a> {
    /// The keys of the description.
    pub fn keys(&self) -> &[f64] {
        match self {
            Exact::Linear { keys, .. }
            | Exact::Slerp { keys, .. }
            | Exact::Step { keys, .. }
            | Exact::Hermite { keys, .. } => keys,
        }
    }

    /// The values of the description, `width` numbers a key.
    pub fn values(&self) -> &Values<'a> {
        match self {
            Exact::Linear { values, .. }
            | Exact::Slerp { values, .. }
            | Exact::Step { values, .. }
            | Exact::Hermite { values, .. } => values,
        }
    }

    /// The values of the description (see [`Exact::values`]), kept.
    pub fn into_values(self) -> Values<'a> {
        match self {
            Exact::Linear { values, .. }
            | Exact::Slerp { values, .. }
            | Exact::Step { values, .. }
            | Exact::Hermite { values, .. } => values,
        }
    }

    /// Numbers a key.
    pub fn width(&self) -> usize {
        self.values().len() / self.keys().len().max(1)
    }

    /// For Hermite curves, the derivative per unit fraction at `f`, from the
    /// left (`left` true) or from the right; zero outside the keys. Other
    /// kinds of description give `None`.
    pub fn derivative(&self, f: f64, left: bool) -> Option<Vec<f64>> {
        let Exact::Hermite {
            keys,
            values,
            inc,
            out,
        } = self
        else {
            return None;
        };
        let w = self.width();
        let n = keys.len();
        // The segment [k_{j-1}, k_j] that f is in, from the chosen side.
        let j = if left {
            keys.partition_point(|&k| k < f)
        } else {
            keys.partition_point(|&k| k <= f)
        };
        if j == 0 || j >= n || keys[j] <= keys[j - 1] {
            return Some(vec![0.0; w]);
        }
        let i = j - 1;
        let dt = keys[j] - keys[i];
        let s = (f - keys[i]) / dt;
        let d = spline::hermite_basis_derivative(s);
        Some(
            (0..w)
                .map(|c| {
                    (d[0] * values.get(i * w + c)
                        + d[1] * values.get(j * w + c)
                        + d[2] * out[i * w + c]
                        + d[3] * inc[j * w + c])
                        / dt
                })
                .collect(),
        )
    }

    /// Evaluates the exact description at fraction `f` the way a keyframe
    /// player does (glTF LINEAR, CUBICSPLINE and STEP).
    pub fn eval(&self, f: f64, out: &mut Vec<f64>) {
        out.clear();
        let (keys, values) = match self {
            Exact::Linear { keys, values }
            | Exact::Slerp { keys, values }
            | Exact::Step { keys, values }
            | Exact::Hermite { keys, values, .. } => (keys, values),
        };
        if keys.is_empty() {
            return;
        }
        let w = values.len() / keys.len();
        let v = |i: usize| values.slice(i * w..(i + 1) * w);
        let (i, s) = match lookup(keys, f) {
            Seg::At(i) => return out.extend_from_slice(&v(i)),
            Seg::Between(i, s) => (i, s),
        };
        match self {
            Exact::Step { .. } => out.extend_from_slice(&v(i)),
            Exact::Slerp { .. } => {
                let q = rotation::slerp(
                    Interpolator::quat(&v(i), 0),
                    Interpolator::quat(&v(i + 1), 0),
                    s,
                );
                out.extend_from_slice(&q.to_array());
            }
            Exact::Linear { .. } => {
                values.lerp_into(i * w..(i + 1) * w, (i + 1) * w..(i + 2) * w, s, out)
            }
            Exact::Hermite {
                inc, out: outgoing, ..
            } => {
                let h = spline::hermite_basis(s);
                let (a, b) = (v(i), v(i + 1));
                let t0 = &outgoing[i * w..(i + 1) * w];
                let t1 = &inc[(i + 1) * w..(i + 2) * w];
                out.extend((0..w).map(|c| h[0] * a[c] + h[1] * b[c] + h[2] * t0[c] + h[3] * t1[c]));
            }
        }
    }
}
