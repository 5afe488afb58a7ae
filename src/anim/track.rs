//! Tracks: one animated field of a clip, its value for each clock
//! fraction through the fraction modifiers, an interpolator and (for a
//! NurbsSurfaceInterpolator) a surface.

use super::keyframes::Interpolation;
use crate::interp::{Ease, Exact, Interpolator, Kind};
use crate::scene::{FieldType, NodeId, Scene};
use crate::source::Span;
use std::sync::Arc;

/// A fraction modifier between a clock and an interpolator.
#[derive(Clone, Debug)]
pub(super) enum Modifier {
    Ease(Ease),
    /// A scalar interpolator whose value is routed into set_fraction.
    Scalar(Arc<Interpolator>),
}

impl Modifier {
    /// The fraction it passes on for fraction `f`.
    pub(super) fn apply(&self, f: f64) -> f64 {
        match self {
            Modifier::Ease(e) => e.modify(f),
            Modifier::Scalar(it) => {
                let mut v = Vec::with_capacity(1);
                it.eval(f, &mut v);
                v.first().copied().unwrap_or(f)
            }
        }
    }

    /// Where its own output is not smooth: an EaseInEaseOut's keys and
    /// parabola ends, a scalar interpolator's keys.
    pub(super) fn own_corners(&self) -> Vec<f64> {
        match self {
            Modifier::Ease(e) => e.corners(),
            Modifier::Scalar(it) => it.keys().to_vec(),
        }
    }
}

/// One animated field of a clip.
#[derive(Clone, Debug)]
pub struct Track {
    /// The node whose field the track drives.
    pub target: NodeId,
    /// The target field's catalogue name.
    pub field: String,
    /// The target field's type (`None` on an unknown node type).
    pub ty: Option<FieldType>,
    /// The interpolator or sequencer whose value the field gets.
    pub source: NodeId,
    /// Fraction modifiers from the clock to the source, in order.
    pub modifiers: Vec<NodeId>,
    /// The ROUTE (or Link) that writes the field.
    pub span: Span,
    pub(super) func: Arc<Interpolator>,
    pub(super) mods: Vec<Modifier>,
    /// A field in world time (a timeline clip's track, whose fraction is
    /// the world time): its value from the clips that write it.
    pub(super) world: Option<Arc<dyn WorldSource>>,
    /// What the source's values go through to be the field's (boxed: few
    /// tracks have one, and it is larger than the rest of a track).
    pub(super) through: Option<Box<Through>>,
}

/// What a track's source values go through to be its field's values.
#[derive(Clone, Debug)]
pub enum Through {
    /// A NurbsSurfaceInterpolator the source's (u, v) values go to: its
    /// position or normal there.
    Surface(SurfaceOutput),
    /// A GeoLocation's geoCoords (a GeoViewpoint's position): how its
    /// frame is turned at the coordinates the source sends (a
    /// GeoPositionInterpolator's geovalue_changed).
    Turn(GeoTurn),
    /// A GeoViewpoint's orientation (a quaternion): relative to the frame
    /// at its position, turned by it (this quaternion).
    Framed(glam::DQuat),
}

impl Through {
    /// The output for the source's value `v`.
    fn apply(&self, v: &[f64], out: &mut Vec<f64>) {
        match self {
            Through::Surface(s) => s.apply(v, out),
            Through::Turn(g) => g.apply(v, out),
            Through::Framed(q) => {
                let o = (*q * glam::DQuat::from_slice(v)).normalize();
                out.clear();
                out.extend_from_slice(&o.to_array());
            }
        }
    }

    /// Numbers an output.
    fn width(&self) -> usize {
        match self {
            Through::Surface(_) => 3,
            Through::Turn(_) | Through::Framed(_) => 4,
        }
    }
}

/// The rotation of a GeoLocation's (GeoViewpoint's) frame at the
/// coordinates it is sent, in its geoSystem and the scene's frame as its
/// geoOrigin makes it, as X_ITE places it (+Y up there, +X east), then
/// turned by `then` (a GeoViewpoint's orientation, relative to that frame).
#[derive(Clone, Debug)]
pub struct GeoTurn {
    pub(super) frame: crate::geo::Frame,
    pub(super) then: glam::DQuat,
}

impl GeoTurn {
    /// The frame's rotation at `geo` (then `then`), a quaternion.
    pub fn apply(&self, geo: &[f64], out: &mut Vec<f64>) {
        let at = match geo {
            [x, y, z, ..] => glam::DVec3::new(*x, *y, *z),
            _ => glam::DVec3::ZERO,
        };
        let place = self.frame.location(at);
        let q = (glam::DQuat::from_mat3(&place.matrix3) * self.then).normalize();
        out.clear();
        out.extend_from_slice(&q.to_array());
    }
}

/// A field's value in world time from the clips that write it (the
/// timeline's `clip::WorldCurve`), as a track evaluates it.
pub trait WorldSource: std::any::Any + std::fmt::Debug + Send + Sync {
    /// The value at world time `t`.
    fn eval(&self, t: f64, out: &mut Vec<f64>);
    /// The world times where the value may turn or jump, sorted, at most
    /// `max`.
    fn corners(&self, max: usize) -> Vec<f64>;
    /// Exact steps, when every source steps.
    fn steps(&self, track: &Track) -> Option<Exact<'static>>;
}

/// A NurbsSurfaceInterpolator's output as a function of the (u, v) it is
/// sent: its `position_changed` or its `normal_changed`.
#[derive(Clone, Debug)]
pub struct SurfaceOutput {
    pub(super) surface: Arc<crate::interp::nurbs::Surface>,
    pub(super) normal: bool,
}

impl SurfaceOutput {
    /// The position (or, `normal`, the normal) of a surface.
    pub fn new(surface: Arc<crate::interp::nurbs::Surface>, normal: bool) -> SurfaceOutput {
        SurfaceOutput { surface, normal }
    }

    /// The output for (u, v), each clamped to 0..1 and taken over the
    /// knots' range, as X_ITE maps them: the point, or ∂S/∂u × ∂S/∂v (not
    /// normalised, as X_ITE sends it).
    pub fn apply(&self, uv: &[f64], out: &mut Vec<f64>) {
        let fraction = |i: usize| uv.get(i).copied().unwrap_or(0.0).clamp(0.0, 1.0);
        let (s, t) = (fraction(0), fraction(1));
        if self.normal {
            let [du, dv] = self.surface.derivatives(s, t);
            let n = glam::DVec3::from_slice(&du).cross(glam::DVec3::from_slice(&dv));
            out.clear();
            out.extend_from_slice(&n.to_array());
        } else {
            self.surface.at(s, t, out);
        }
    }
}

impl Track {
    /// A track of `func` of the clip's fraction, straight into `field` of
    /// `target` (no fraction modifier), written at `span`.
    pub(super) fn new(
        (target, field): (NodeId, &str),
        ty: Option<FieldType>,
        source: NodeId,
        span: Span,
        func: Arc<Interpolator>,
    ) -> Track {
        Track {
            target,
            field: field.to_string(),
            ty,
            source,
            modifiers: Vec::new(),
            span,
            func,
            mods: Vec::new(),
            world: None,
            through: None,
        }
    }

    /// The value for a clock fraction `f`, through the modifiers (a world
    /// track: at world time `f`).
    pub fn eval_fraction(&self, f: f64, out: &mut Vec<f64>) {
        if let Some(w) = &self.world {
            return w.eval(f, out);
        }
        let f = self.mods.iter().fold(f, |f, m| m.apply(f));
        match &self.through {
            Some(through) => {
                let mut v = Vec::with_capacity(3);
                self.func.eval(f, &mut v);
                through.apply(&v, out);
            }
            None => self.func.eval(f, out),
        }
    }

    /// Numbers a value of the track.
    pub fn width(&self) -> usize {
        match &self.through {
            Some(through) => through.width(),
            None => self.func.width(),
        }
    }

    /// The clock fractions where the track's curve is not smooth (its
    /// value or a derivative may jump), sorted: the interpolator's keys,
    /// taken back through the modifiers (the fractions the modifiers turn
    /// into a key), and the modifiers' own corners. At most `max` of them.
    pub fn corners(&self, max: usize) -> Vec<f64> {
        if let Some(w) = &self.world {
            return w.corners(max);
        }
        let mut corners = self.func.corners();
        for m in self.mods.iter().rev() {
            let own = m.own_corners();
            sort_corners(&mut corners);
            let mut before = match m {
                // Monotonic, with an inverse in closed form.
                Modifier::Ease(e) => corners.iter().map(|&c| e.preimage(c)).collect(),
                Modifier::Scalar(_) => preimages(&own, &corners, |f| m.apply(f), max),
            };
            before.extend(own);
            corners = before;
        }
        sort_corners(&mut corners);
        corners.truncate(max);
        corners
    }

    /// How many corners a fit of at most `max_keys` keys looks at: all of
    /// them, however few keys it may write (a straight fit passes over
    /// corners and must check them), up to four a key of the interpolator
    /// and its modifiers (their preimages) or `max_keys`.
    pub fn corner_room(&self, max_keys: usize) -> usize {
        let keys = self.func.keys().len()
            + self
                .mods
                .iter()
                .map(|m| m.own_corners().len())
                .sum::<usize>();
        max_keys.max(keys.saturating_mul(4).saturating_add(1024))
    }

    /// The exact curve in fraction space, when the chain has one: no
    /// modifiers, and an interpolator that is linear, slerp, Hermite or steps.
    pub fn exact(&self) -> Option<Exact<'_>> {
        if let Some(w) = &self.world {
            return w.steps(self);
        }
        if self.mods.is_empty() && self.through.is_none() {
            self.func.exact()
        } else {
            None
        }
    }

    /// Why the track must be sampled, or `None` when it is exact.
    pub fn sampled_because(&self, scene: &Scene) -> Option<String> {
        if self.world.is_some() {
            return Some("world time".into());
        }
        if let Some(&m) = self.modifiers.first() {
            return Some(format!("{} in the chain", scene.node(m).type_name));
        }
        match self.through.as_deref() {
            Some(Through::Surface(_)) => {
                return Some("NurbsSurfaceInterpolator in the chain".into());
            }
            Some(Through::Turn(_) | Through::Framed(_)) => {
                return Some("a Geo node's frame".into());
            }
            None => {}
        }
        match self.func.kind() {
            Kind::Color => Some("HSV colour".into()),
            Kind::Normal => Some("normals on the sphere".into()),
            Kind::Squad => Some("squad".into()),
            Kind::Nurbs | Kind::NurbsOrientation => Some("NURBS".into()),
            Kind::Geo => Some("linear in geo coordinates, curved in the scene".into()),
            _ => None,
        }
    }

    /// The target field's own value in the file, as numbers (rotations as
    /// quaternions, like the track's values).
    pub fn initial_value(&self, scene: &Scene, out: &mut Vec<f64>) {
        field_numbers(scene, self.target, &self.field, out);
    }

    /// Numbers per element of the target's value (3 for MFVec3f, 4 for a
    /// rotation).
    pub fn per_element(&self) -> usize {
        self.ty.map_or(self.width(), |t| t.components())
    }

    /// Values are rotations (unit quaternions).
    /// Whether the track is a viewpoint's field of view (an angle, written
    /// as a camera's yfov), which Blender's importer keys as a lens length
    /// (see `fit::Bound::lens`).
    pub fn is_field_of_view(&self) -> bool {
        self.field == "fieldOfView" && self.ty == Some(FieldType::SFFloat)
    }

    pub fn is_rotation(&self) -> bool {
        match self.through.as_deref() {
            Some(Through::Turn(_) | Through::Framed(_)) => true,
            Some(Through::Surface(_)) => false,
            None => matches!(
                self.func.kind(),
                Kind::Orientation | Kind::Squad | Kind::NurbsOrientation
            ),
        }
    }

    /// The interpolator (or sequencer) that computes the track's values.
    pub fn interpolator(&self) -> &Interpolator {
        &self.func
    }

    /// How sampled keyframes of this track are interpolated.
    pub fn sample_interpolation(&self) -> Interpolation {
        match self.func.kind() {
            _ if self.is_rotation() => Interpolation::Slerp,
            Kind::Step => Interpolation::Step,
            _ => Interpolation::Linear,
        }
    }
}

/// A field's own value in the file, as numbers (rotations as quaternions,
/// like a track's values; a bool as 0 or 1); none for strings and nodes.
pub(super) fn field_numbers(scene: &Scene, node: NodeId, field: &str, out: &mut Vec<f64>) {
    out.clear();
    if let Some(v) = scene.value(node, field) {
        out.extend(super::track_numbers(v));
    }
}

pub(super) fn sort_corners(c: &mut Vec<f64>) {
    c.retain(|f| f.is_finite());
    c.sort_by(f64::total_cmp);
    c.dedup();
}

/// The fractions `x` where `modify(x)` is one of `corners` (sorted), found
/// between the modifier's own keys `own` (where it is continuous) on a scan
/// of 16 cells a segment, each crossing narrowed by bisection. At most
/// `max` of them.
pub(super) fn preimages(
    own: &[f64],
    corners: &[f64],
    modify: impl Fn(f64) -> f64,
    max: usize,
) -> Vec<f64> {
    const CELLS: usize = 16;
    let mut ends = own.to_vec();
    sort_corners(&mut ends);
    let (Some(&lo), Some(&hi)) = (ends.first(), ends.last()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Beyond the modifier's keys a modifier is the identity (EaseInEaseOut)
    // or constant (an interpolator): a corner there is its own preimage.
    out.extend(corners.iter().filter(|&&c| c < lo || c > hi));
    for w in ends.windows(2) {
        let (a, b) = (w[0], w[1]);
        // Just inside the segment: at its keys a modifier may jump.
        let inside = |x: f64| x.clamp(a + (b - a) * 1e-12, b - (b - a) * 1e-12);
        let mut x0 = a;
        let mut g0 = modify(inside(a));
        for i in 1..=CELLS {
            let x1 = a + (b - a) * i as f64 / CELLS as f64;
            let g1 = modify(inside(x1));
            let (glo, ghi) = (g0.min(g1), g0.max(g1));
            let first = corners.partition_point(|&c| c < glo);
            for &c in corners[first..].iter().take_while(|&&c| c <= ghi) {
                if out.len() >= max {
                    return out;
                }
                // Narrow [x0, x1] to where modify crosses c.
                let (mut l, mut r) = (x0, x1);
                let rising = g1 >= g0;
                for _ in 0..48 {
                    let m = 0.5 * (l + r);
                    if (modify(inside(m)) < c) == rising {
                        l = m;
                    } else {
                        r = m;
                    }
                }
                out.push(0.5 * (l + r));
            }
            (x0, g0) = (x1, g1);
        }
    }
    out
}
