//! Clips and tracks: from a scene's ROUTEs (and project three Links) to the
//! animated fields of each clock.

use super::cascade::{self, World};
use super::check::Built;
use super::clock::{Clock, FractionMap};
use super::fit::{self, Bound, Fitted, Shape, TooMany};
use super::keyframes::{Interpolation, Keyframes};
use super::{InterpOptions, NodeFn, node_function};
use crate::diag::{Diagnostic, Diagnostics};
use crate::hash::{HashMap, HashSet};
use crate::interp::{Ease, Exact, Interpolator, Kind, TangentRule};
use crate::scene::{Dir, FieldType, NodeId, Route, Scene};
use crate::source::{Sources, Span};
use std::sync::Arc;

/// A fraction modifier between a clock and an interpolator.
#[derive(Clone, Debug)]
enum Modifier {
    Ease(Ease),
    /// A scalar interpolator whose value is routed into set_fraction.
    Scalar(Arc<Interpolator>),
}

impl Modifier {
    /// The fraction it passes on for fraction `f`.
    fn apply(&self, f: f64) -> f64 {
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
    fn own_corners(&self) -> Vec<f64> {
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
    func: Arc<Interpolator>,
    mods: Vec<Modifier>,
    /// A field in world time (a timeline clip's track, whose fraction is
    /// the world time): its value from the clips that write it.
    world: Option<Arc<WorldCurve>>,
    /// A NurbsSurfaceInterpolator the source's (u, v) values go through:
    /// the track's values are its position or normal there.
    surface: Option<Arc<SurfaceOutput>>,
}

/// A NurbsSurfaceInterpolator's output as a function of the (u, v) it is
/// sent: its `position_changed` or its `normal_changed`.
#[derive(Debug)]
pub struct SurfaceOutput {
    surface: Arc<crate::interp::nurbs::Surface>,
    normal: bool,
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
    fn new(
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
            surface: None,
        }
    }

    /// The value for a clock fraction `f`, through the modifiers (a world
    /// track: at world time `f`).
    pub fn eval_fraction(&self, f: f64, out: &mut Vec<f64>) {
        if let Some(w) = &self.world {
            return w.eval(f, out);
        }
        let f = self.mods.iter().fold(f, |f, m| m.apply(f));
        match &self.surface {
            Some(s) => {
                let mut uv = Vec::with_capacity(2);
                self.func.eval(f, &mut uv);
                s.apply(&uv, out);
            }
            None => self.func.eval(f, out),
        }
    }

    /// Numbers a value of the track.
    pub fn width(&self) -> usize {
        if self.surface.is_some() {
            3
        } else {
            self.func.width()
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
        if self.mods.is_empty() && self.surface.is_none() {
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
        if self.surface.is_some() {
            return Some("NurbsSurfaceInterpolator in the chain".into());
        }
        match self.func.kind() {
            Kind::Color => Some("HSV colour".into()),
            Kind::Normal => Some("normals on the sphere".into()),
            Kind::Squad => Some("squad".into()),
            Kind::Nurbs | Kind::NurbsOrientation => Some("NURBS".into()),
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
    pub fn is_rotation(&self) -> bool {
        self.surface.is_none()
            && matches!(
                self.func.kind(),
                Kind::Orientation | Kind::Squad | Kind::NurbsOrientation
            )
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
fn field_numbers(scene: &Scene, node: NodeId, field: &str, out: &mut Vec<f64>) {
    out.clear();
    if let Some(v) = scene.value(node, field) {
        out.extend(super::track_numbers(v));
    }
}

fn sort_corners(c: &mut Vec<f64>) {
    c.retain(|f| f.is_finite());
    c.sort_by(f64::total_cmp);
    c.dedup();
}

/// The fractions `x` where `modify(x)` is one of `corners` (sorted), found
/// between the modifier's own keys `own` (where it is continuous) on a scan
/// of 16 cells a segment, each crossing narrowed by bisection. At most
/// `max` of them.
fn preimages(own: &[f64], corners: &[f64], modify: impl Fn(f64) -> f64, max: usize) -> Vec<f64> {
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

/// The animation one clock drives.
#[derive(Clone, Debug)]
pub struct Clip {
    /// The clock's DEF name, or a generated one (`TimeSensor_2`).
    pub name: String,
    /// The TimeSensor or Timer node.
    pub clock_node: NodeId,
    /// The clock's fields.
    pub clock: Clock,
    /// The fraction over the clip's time.
    pub map: FractionMap,
    /// Where the clip starts in world time (non-periodic Timers).
    pub world_start: f64,
    /// The fields the clock drives, one track each.
    pub tracks: Vec<Track>,
    /// In world time as the event cascade played it (`--timeline`): the
    /// clock's runs, in order (`None`: its fields alone say when it runs).
    pub runs: Option<Vec<Clock>>,
}

impl Clip {
    /// The clip's length in seconds.
    pub fn duration(&self) -> f64 {
        self.map.duration()
    }

    /// Whether the clock loops (a looping glTF animation).
    pub fn looping(&self) -> bool {
        self.clock.looping()
    }

    /// A track's value at clip time `t`.
    pub fn eval(&self, track: &Track, t: f64, out: &mut Vec<f64>) {
        track.eval_fraction(self.map.fraction(t), out);
    }

    /// A track's value at world time `t`, as the whole scene plays, and
    /// when its clock sent the fraction it comes from; `None` (and nothing
    /// written) while the clock has sent no fraction yet, when the target
    /// keeps its own value.
    pub fn world_eval(&self, track: &Track, t: f64, out: &mut Vec<f64>) -> Option<f64> {
        out.clear();
        let (f, sent) = self.world_clock(t)?.world_event(t)?;
        track.eval_fraction(f, out);
        Some(sent)
    }

    /// The clock as it runs at world time `t`: its run (or stretch of a
    /// run between pauses) begun last by then (the first before any;
    /// `None` when the cascade never ran it), or its own fields.
    fn world_clock(&self, t: f64) -> Option<&Clock> {
        match &self.runs {
            None => Some(&self.clock),
            Some(runs) => {
                let i = runs.partition_point(|r| r.begins() <= t);
                runs.get(i.saturating_sub(1))
            }
        }
    }

    /// When, in world time, the clock's current run began (for choosing
    /// between clips that write the same field: the latest run wins).
    pub fn world_start_of_run(&self, t: f64) -> f64 {
        match self.world_clock(t) {
            Some(&Clock::TimeSensor { start_time, .. }) if t >= start_time => start_time,
            Some(Clock::TimeSensor { .. }) | None => f64::NEG_INFINITY,
            Some(Clock::Timer { .. }) => self.world_start,
        }
    }

    /// The exact keyframes of a track, when it has them.
    pub fn exact_keyframes<'t>(&self, track: &'t Track) -> Option<Keyframes<'t>> {
        track.exact().map(|e| Keyframes::exact(e, &self.map))
    }

    /// A track sampled at `rate` per second, in its natural interpolation
    /// (linear, slerp for rotations, steps for sequencers).
    pub fn sampled_keyframes(&self, track: &Track, rate: f64) -> Keyframes<'static> {
        self.sampled_as(track, rate, track.sample_interpolation())
    }

    /// The fewest keyframes of one of `shapes` within `tol` of the track's
    /// true curve at every time (see `fit`); `TooMany` past `max_keys`.
    pub fn fitted(
        &self,
        track: &Track,
        tol: f64,
        shapes: &[Shape],
        max_keys: usize,
    ) -> Result<Fitted, TooMany> {
        let bound = Bound {
            tol,
            rotation: track.is_rotation(),
            per: track.per_element(),
        };
        fit::fewest(
            &self.map,
            &track.corners(track.corner_room(max_keys)),
            track.width(),
            shapes,
            bound,
            max_keys,
            &mut |f, out| track.eval_fraction(f, out),
        )
    }

    /// A track sampled at `rate` per second with a chosen interpolation.
    pub fn sampled_as(
        &self,
        track: &Track,
        rate: f64,
        interpolation: Interpolation,
    ) -> Keyframes<'static> {
        let width = track.width();
        let quaternions = track.is_rotation();
        Keyframes::sample(
            &self.map,
            rate,
            width,
            interpolation,
            quaternions,
            |f, out| track.eval_fraction(f, out),
        )
    }
}

/// The value a field has at world time `t` from the tracks that write it:
/// the last event sent to it (among clocks sending at once, the last to
/// start); false (and nothing written) while none has sent one.
pub fn world_value<'c>(
    sources: impl IntoIterator<Item = (&'c Clip, &'c Track)>,
    t: f64,
    out: &mut Vec<f64>,
) -> bool {
    let mut best: Option<(f64, f64)> = None;
    let mut v = Vec::new();
    for (clip, track) in sources {
        if let Some(sent) = clip.world_eval(track, t, &mut v) {
            let latest = (sent, clip.world_start_of_run(t));
            if best.is_none_or(|b| latest >= b) {
                best = Some(latest);
                out.clear();
                out.extend_from_slice(&v);
            }
        }
    }
    best.is_some()
}

/// A field's curve in world time from `start` to `end`: the clips that
/// write it, the field's own value before any does.
#[derive(Debug)]
pub struct WorldCurve {
    /// The clips writing the field (shared by every curve of the timeline:
    /// one copy of each, however many fields it writes) and the track.
    sources: Vec<(Arc<Clip>, usize)>,
    initial: Vec<f64>,
    span: (f64, f64),
}

impl WorldCurve {
    fn eval(&self, t: f64, out: &mut Vec<f64>) {
        let sources = self.sources.iter().map(|(c, i)| (&**c, &c.tracks[*i]));
        if !world_value(sources, t, out) {
            out.clear();
            out.extend_from_slice(&self.initial);
        }
    }

    /// The world times where the curve may turn or jump: each source's
    /// corners in every cycle of every run, and the runs' starts, stops
    /// and pauses; sorted, at most `max`.
    fn corners(&self, max: usize) -> Vec<f64> {
        let (from, to) = self.span;
        let mut out = vec![from, to];
        for (clip, i) in &self.sources {
            let fractions = clip.tracks[*i].corners(max);
            let own = [clip.clock.clone()];
            let runs = clip.runs.as_deref().unwrap_or(&own);
            for run in runs {
                run.world_times(&fractions, (from, to), max, &mut out);
                if out.len() >= max {
                    break;
                }
            }
        }
        sort_corners(&mut out);
        out.truncate(max);
        out
    }

    /// Exact steps, when every source steps (sequencers, fields set by
    /// events): a key at each corner, holding the value from there on.
    fn steps(&self, track: &Track) -> Option<Exact<'static>> {
        if track.sample_interpolation() != Interpolation::Step {
            return None;
        }
        let keys = self.corners(usize::MAX);
        let mut values = Vec::with_capacity(keys.len() * track.width());
        let mut v = Vec::new();
        for &k in &keys {
            self.eval(k, &mut v);
            values.extend_from_slice(&v);
        }
        Some(Exact::Step {
            keys: keys.into(),
            values: values.into(),
        })
    }
}

/// The whole scene in world time from `start` to `end` as one clip named
/// `timeline`: a track for each field the clips animate, whose value is
/// the last event sent to it by any clock as the scene plays (see
/// `world_value`), the field's own value before. Its fraction is the
/// world time.
pub fn timeline_clip(scene: &Scene, clips: Vec<Clip>, start: f64, end: f64) -> Option<Clip> {
    // Each clip once, shared by the curves of every field it writes: work
    // and memory linear in the tracks.
    let clips: Vec<Arc<Clip>> = clips.into_iter().map(Arc::new).collect();
    let sources = clips.iter().flat_map(|clip| {
        (0..clip.tracks.len()).map(move |i| {
            let t = &clip.tracks[i];
            ((t.target, t.field.as_str()), (clip, i))
        })
    });
    let tracks: Vec<Track> = by_field(sources)
        .into_iter()
        .map(|(_, list)| {
            let first = &list[0].0.tracks[list[0].1];
            let mut initial = Vec::new();
            first.initial_value(scene, &mut initial);
            let curve = WorldCurve {
                sources: list.iter().map(|&(c, i)| (Arc::clone(c), i)).collect(),
                initial,
                span: (start, end),
            };
            Track {
                modifiers: Vec::new(),
                mods: Vec::new(),
                world: Some(Arc::new(curve)),
                ..first.clone()
            }
        })
        .collect();
    world_time_clip("timeline", tracks, (start, end))
}

/// Items grouped by field, the fields in the order first met, each group's
/// items in order.
fn by_field<'k, T>(
    items: impl Iterator<Item = ((NodeId, &'k str), T)>,
) -> Vec<((NodeId, &'k str), Vec<T>)> {
    let mut groups: Vec<((NodeId, &str), Vec<T>)> = Vec::new();
    let mut index: HashMap<(NodeId, &str), usize> = HashMap::default();
    for (key, item) in items {
        let i = *index.entry(key).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(item);
    }
    groups
}

/// A clip over world time (its fraction is the world time, across `span`)
/// named `name`; `None` without tracks.
fn world_time_clip(name: &str, tracks: Vec<Track>, span: (f64, f64)) -> Option<Clip> {
    let clock = Clock::Timer {
        period: -1.0,
        shift: 0.0,
    };
    Some(Clip {
        name: name.into(),
        clock_node: tracks.first()?.source,
        world_start: clock.clip_start(span),
        map: clock.clip(1, span)?,
        clock,
        tracks,
        runs: None,
    })
}

/// Options for building clips.
#[derive(Clone, Copy, Debug)]
pub struct ClipOptions {
    /// Cycles in each clip (at least 1).
    pub cycles: u32,
    /// How spline tangents are read.
    pub rule: TangentRule,
}

impl Default for ClipOptions {
    fn default() -> Self {
        ClipOptions {
            cycles: 1,
            rule: TangentRule::AsWritten,
        }
    }
}

/// Whether a node computes a value from a fraction (an interpolator, a
/// sequencer, EaseInEaseOut).
pub(super) fn is_chain_node(scene: &Scene, id: NodeId) -> bool {
    scene
        .known(id)
        .is_some_and(|d| d.name == "EaseInEaseOut" || Kind::of_node(&d.name).is_some())
}

fn type_of(scene: &Scene, id: NodeId) -> &str {
    scene.known(id).map_or("", |d| d.name.as_str())
}

/// How many interpolators and EaseInEaseOuts may feed each other's
/// set_fraction in a row: the routes are followed by recursion, and a
/// hundred thousand in a row (a 15 MB file) overflowed the stack.
pub const MAX_CHAIN: usize = 64;

/// How many chain nodes following the routes from every clock may reach,
/// each counted each time it is reached: routes that branch and join again
/// (two interpolators feeding one set_fraction) multiply the paths, and
/// forty such diamonds in 20 KB of X3D are 2^40 paths. A scene reaches
/// each interpolator once from each clock that drives it: two hundred
/// thousand is far more than the largest scene seen animates.
pub const MAX_ROUTE_STEPS: usize = 200_000;

struct Builder<'a> {
    scene: &'a Scene,
    opts: ClipOptions,
    diags: &'a mut Diagnostics,
    funcs: HashMap<(NodeId, bool), Arc<Interpolator>>,
    /// Routes that some track follows.
    used: Vec<bool>,
    /// The routes out of each node field, in file order.
    out_routes: HashMap<(NodeId, &'a str), Vec<usize>>,
    /// Chain nodes reached so far, against [`MAX_ROUTE_STEPS`].
    steps: usize,
    /// A routing limit was passed (and reported): no route is followed
    /// further.
    stopped: bool,
}

impl Builder<'_> {
    fn func(&mut self, id: NodeId, periodic: bool) -> Option<NodeFn> {
        node_function(
            self.scene,
            id,
            InterpOptions {
                rule: self.opts.rule,
                periodic,
            },
        )
        .map(|(f, _)| f)
    }

    fn interpolator(&mut self, id: NodeId, periodic: bool) -> Option<Arc<Interpolator>> {
        // Only a project three `smooth` interpolator depends on its clock
        // being periodic: the others are one function (built once).
        let periodic = periodic && self.scene.flag(id, "smooth");
        if let Some(f) = self.funcs.get(&(id, periodic)) {
            return Some(f.clone());
        }
        match self.func(id, periodic)? {
            NodeFn::Value(it) => {
                let it = Arc::new(it);
                self.funcs.insert((id, periodic), it.clone());
                Some(it)
            }
            NodeFn::Fraction(_) => None,
        }
    }

    fn modifier(&mut self, id: NodeId, periodic: bool) -> Option<Modifier> {
        match self.func(id, periodic)? {
            NodeFn::Fraction(e) => Some(Modifier::Ease(e)),
            NodeFn::Value(_) => self.interpolator(id, periodic).map(Modifier::Scalar),
        }
    }

    /// The routes the cascade played are baked.
    fn mark_played(&mut self, played: &cascade::Played) {
        for ri in 0..self.scene.routes.len() {
            if played.carried(self.scene, ri) {
                self.used[ri] = true;
            }
        }
    }

    fn routes_from(&self, node: NodeId, field: &str) -> Vec<usize> {
        self.out_routes
            .get(&(node, field))
            .cloned()
            .unwrap_or_default()
    }

    /// Follows the fraction out of `node.field` through modifiers to
    /// interpolators and their targets.
    fn walk(
        &mut self,
        node: NodeId,
        field: &str,
        chain: &[NodeId],
        path: &mut Vec<usize>,
        tracks: &mut Vec<Track>,
        periodic: bool,
    ) {
        for ri in self.routes_from(node, field) {
            if path.contains(&ri) {
                self.cycle(path, ri);
                continue;
            }
            let r = self.scene.routes[ri].clone();
            path.push(ri);
            if r.to_field == "set_fraction" && is_chain_node(self.scene, r.to) {
                self.used[ri] = true;
                self.enter(r.to, chain, path, tracks, periodic);
            } else if chain.is_empty()
                && r.ty == Some(FieldType::SFFloat)
                && !matches!(type_of(self.scene, r.to), "" | "Script")
            {
                // A clock's fraction straight into a float field: baked as the
                // fraction itself, and said.
                self.used[ri] = true;
                self.diags.warning(
                    format!(
                        "the fraction of `{}` is routed into `{}.{}`, which is not a fraction: baked as the raw fraction",
                        self.scene.display_name(node),
                        self.scene.display_name(r.to),
                        r.to_field
                    ),
                    Some(r.span),
                );
                let identity = Arc::new(identity());
                tracks.push(self.track(&r, node, chain, identity, periodic));
            }
            path.pop();
        }
    }

    /// A fraction arrives at a chain node's set_fraction: an EaseInEaseOut
    /// passes it on, modified; an interpolator turns it into values.
    fn enter(
        &mut self,
        node: NodeId,
        chain: &[NodeId],
        path: &mut Vec<usize>,
        tracks: &mut Vec<Track>,
        periodic: bool,
    ) {
        if self.stopped {
            return;
        }
        self.steps += 1;
        let limit = if chain.len() >= MAX_CHAIN {
            Some(format!(
                "more than {MAX_CHAIN} interpolators and EaseInEaseOuts feed each other's \
                 set_fraction in a row"
            ))
        } else if self.steps > MAX_ROUTE_STEPS {
            Some(format!(
                "the routes from the clocks reach interpolators by more than {MAX_ROUTE_STEPS} \
                 paths (routes that branch and join again multiply the paths after them)"
            ))
        } else {
            None
        };
        if let Some(limit) = limit {
            self.stopped = true;
            let span = path.last().map(|&ri| self.scene.routes[ri].span);
            let at = self.scene.display_name(node);
            self.diags
                .error(format!("{limit}: stopped at `{at}`"), span);
            return;
        }
        if type_of(self.scene, node) == "EaseInEaseOut" {
            let next: Vec<NodeId> = chain.iter().copied().chain([node]).collect();
            self.walk(
                node,
                "modifiedFraction_changed",
                &next,
                path,
                tracks,
                periodic,
            );
        } else {
            self.interpolator_targets(node, chain, path, tracks, periodic);
        }
    }

    /// An interpolator reached by a fraction: its value's targets become
    /// tracks; routes on into another set_fraction make it a modifier.
    fn interpolator_targets(
        &mut self,
        interp: NodeId,
        chain: &[NodeId],
        path: &mut Vec<usize>,
        tracks: &mut Vec<Track>,
        periodic: bool,
    ) {
        let Some(func) = self.interpolator(interp, periodic) else {
            return;
        };
        for ri in self.routes_from(interp, "value_changed") {
            if path.contains(&ri) {
                self.cycle(path, ri);
                continue;
            }
            let r = self.scene.routes[ri].clone();
            if r.to_field == "set_fraction" && is_chain_node(self.scene, r.to) {
                // This interpolator modifies the fraction for the next one.
                let next: Vec<NodeId> = chain.iter().copied().chain([interp]).collect();
                self.used[ri] = true;
                path.push(ri);
                self.enter(r.to, &next, path, tracks, periodic);
                path.pop();
                continue;
            }
            self.used[ri] = true;
            if r.to_field == "set_fraction"
                && type_of(self.scene, r.to) == "NurbsSurfaceInterpolator"
            {
                path.push(ri);
                self.surface_targets(&r, interp, chain, &func, path, tracks, periodic);
                path.pop();
                continue;
            }
            tracks.push(self.track(&r, interp, chain, func.clone(), periodic));
        }
    }

    /// An interpolator's (u, v) values into a NurbsSurfaceInterpolator
    /// (route `into`): the targets of its position and normal become
    /// tracks of the interpolator through the surface.
    #[allow(clippy::too_many_arguments)]
    fn surface_targets(
        &mut self,
        into: &Route,
        interp: NodeId,
        chain: &[NodeId],
        func: &Arc<Interpolator>,
        path: &mut [usize],
        tracks: &mut Vec<Track>,
        periodic: bool,
    ) {
        let Some(surface) = crate::mesh::nurbs_surface(self.scene, into.to) else {
            return;
        };
        let surface = Arc::new(surface);
        for (field, normal) in [("position_changed", false), ("normal_changed", true)] {
            for ri in self.routes_from(into.to, field) {
                if path.contains(&ri) {
                    continue;
                }
                let r = self.scene.routes[ri].clone();
                self.used[ri] = true;
                let output = SurfaceOutput::new(surface.clone(), normal);
                tracks.push(Track {
                    surface: Some(Arc::new(output)),
                    ..self.track(&r, interp, chain, func.clone(), periodic)
                });
            }
        }
    }

    fn track(
        &mut self,
        r: &Route,
        source: NodeId,
        chain: &[NodeId],
        func: Arc<Interpolator>,
        periodic: bool,
    ) -> Track {
        let mods = chain
            .iter()
            .filter_map(|&m| self.modifier(m, periodic))
            .collect();
        Track {
            modifiers: chain.to_vec(),
            mods,
            ..Track::new((r.to, &r.to_field), r.ty, source, r.span, func)
        }
    }

    fn cycle(&mut self, path: &[usize], closing: usize) {
        let scene = self.scene;
        let start = path.iter().position(|&p| p == closing).unwrap_or(0);
        // (A browser fires each ROUTE once a timestamp and goes on.)
        let mut d = Diagnostic::warning(
            "routing cycle: these ROUTEs feed each other's fractions: the one that closes the cycle is not baked",
            Some(scene.routes[closing].span),
        );
        for &ri in &path[start..] {
            let r = &scene.routes[ri];
            d = d.with_note(format!(
                "ROUTE {}.{} TO {}.{}",
                scene.display_name(r.from),
                r.from_field,
                scene.display_name(r.to),
                r.to_field
            ));
        }
        self.diags.push(d);
    }
}

/// fraction → fraction, for a fraction routed straight into a float field.
fn identity() -> Interpolator {
    let spec = crate::interp::Spec::scalar(Kind::Linear, &[0.0, 1.0], vec![0.0, 1.0]);
    Interpolator::new(spec, &mut Vec::new())
}

/// A clock node's fields.
pub fn clock_of(scene: &Scene, id: NodeId) -> Option<Clock> {
    match type_of(scene, id) {
        "TimeSensor" => Some(Clock::TimeSensor {
            cycle_interval: scene.number(id, "cycleInterval"),
            looping: scene.flag(id, "loop"),
            enabled: scene.flag(id, "enabled"),
            start_time: scene.number(id, "startTime"),
            stop_time: scene.number(id, "stopTime"),
            pause_time: scene.number(id, "pauseTime"),
            resume_time: scene.number(id, "resumeTime"),
            from: f64::NEG_INFINITY,
        }),
        "Timer" => Some(Clock::Timer {
            period: scene.number(id, "period"),
            shift: scene.number(id, "shift"),
        }),
        _ => None,
    }
}

/// Every clip of a scene: one per clock that drives at least one field.
/// Problems (cycles, unbakeable routes, conflicts) go to `diags`.
pub fn clips(scene: &Scene, opts: ClipOptions, diags: &mut Diagnostics) -> Vec<Clip> {
    clips_using(scene, opts, &Built::default(), None, None, diags)
}

/// [`clips`], taking interpolators already built with the default options
/// from `built` (see [`check`](super::check::check)).
pub fn clips_using(
    scene: &Scene,
    opts: ClipOptions,
    built: &Built,
    world: Option<&World>,
    sources: Option<&Sources>,
    diags: &mut Diagnostics,
) -> Vec<Clip> {
    let mut funcs = HashMap::default();
    if opts.rule == InterpOptions::default().rule {
        for (&id, it) in built {
            funcs.insert((id, false), it.clone());
        }
    }
    let mut b = Builder {
        scene,
        opts,
        diags,
        funcs,
        used: vec![false; scene.routes.len()],
        out_routes: HashMap::default(),
        steps: 0,
        stopped: false,
    };
    for (i, r) in scene.routes.iter().enumerate() {
        b.out_routes
            .entry((r.from, r.from_field.as_str()))
            .or_default()
            .push(i);
    }
    let timer_links = links_by_timer(scene);
    // Clip mode: the clocks whose events reach a Script or a follower,
    // which the clip plays (`through_listeners`), with or without tracks.
    let listening = (0..scene.nodes.len() as u32).any(|i| listens(scene, NodeId(i)));
    let feeds = if listening && world.is_none() && sources.is_some() {
        feeding_clocks(scene)
    } else {
        HashMap::default()
    };
    let mut clips = Vec::new();
    let mut ordinal: HashMap<&str, usize> = HashMap::default();
    for i in 0..scene.nodes.len() {
        let id = NodeId(i as u32);
        if scene.node(id).in_proto.is_some() {
            continue; // a template: its instances' copies are the clocks
        }
        let Some(clock) = clock_of(scene, id) else {
            continue;
        };
        let ty = type_of(scene, id);
        let n = ordinal.entry(ty).or_insert(0);
        *n += 1;
        let name = scene
            .node(id)
            .def
            .clone()
            .unwrap_or_else(|| format!("{ty}_{n}"));
        let periodic = clock.looping();
        let mut tracks = Vec::new();
        if ty == "TimeSensor" {
            b.walk(
                id,
                "fraction_changed",
                &[],
                &mut Vec::new(),
                &mut tracks,
                periodic,
            );
        } else {
            let links = timer_links.get(&id).map_or(&[][..], Vec::as_slice);
            link_tracks(&mut b, links, &mut tracks, periodic);
        }
        if tracks.is_empty() && !feeds.contains_key(&id) {
            continue;
        }
        // A clock disabled in the file that no ROUTE enables never runs:
        // a clip of it would play what a browser never shows.
        let enabled_by_route = || {
            scene.routes.iter().any(|r| {
                r.to == id && r.to_field.strip_prefix("set_").unwrap_or(&r.to_field) == "enabled"
            })
        };
        if world.is_none()
            && matches!(clock, Clock::TimeSensor { enabled: false, .. })
            && !enabled_by_route()
        {
            b.diags.warning(
                format!(
                    "TimeSensor `{name}` has enabled FALSE and no ROUTE enables it: it never \
                     runs, so no clip is written for it"
                ),
                Some(scene.node(id).span),
            );
            continue;
        }
        // After a routing limit the clip is not baked: no warnings for it.
        let mut quiet = Diagnostics::default();
        let diags = if b.stopped { &mut quiet } else { &mut *b.diags };
        last_event_wins(diags, scene, &name, &mut tracks);
        let key_range = tracks
            .iter()
            .filter_map(|t| Some((*t.func.keys().first()?, *t.func.keys().last()?)))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, z)| {
                (lo.min(a), hi.max(z))
            });
        let Some(map) = clock.clip(opts.cycles.max(1), key_range) else {
            let what = if ty == "Timer" {
                "period is 0"
            } else {
                "cycleInterval is not positive"
            };
            b.diags.error(
                format!("{ty} `{name}`: its {what}, so it drives no clip"),
                Some(scene.node(id).span),
            );
            continue;
        };
        let world_start = clock.clip_start(key_range);
        clips.push(Clip {
            name,
            clock_node: id,
            clock,
            map,
            world_start,
            tracks,
            runs: None,
        });
    }
    // H-Anim motions: a clip each.
    for id in (0..scene.nodes.len() as u32).map(NodeId) {
        let node = scene.node(id);
        if node.type_name != "HAnimMotion" || node.in_proto.is_some() || b.stopped {
            continue;
        }
        if let Some(m) = super::motion::read(scene, id, b.diags) {
            let n = ordinal.entry("HAnimMotion").or_insert(0);
            *n += 1;
            let name = node
                .def
                .clone()
                .unwrap_or_else(|| format!("HAnimMotion_{n}"));
            clips.extend(motion_clip(scene, id, name, m, opts));
        }
    }
    // World time: the clocks' runs as the event cascade plays them, and
    // the routes it follows are baked.
    match (world, sources) {
        _ if b.stopped => {}
        (Some(world), Some(sources)) => {
            let played = cascade::play(
                scene,
                sources,
                world,
                world.end.unwrap_or(cascade::HORIZON),
                b.diags,
            );
            b.mark_played(&played);
            for clip in &mut clips {
                if let Some(runs) = played.runs.get(&clip.clock_node) {
                    clip.runs = Some(runs.clone());
                }
                // What a clock sends a Script or a follower, it got at frames.
                clip.tracks
                    .retain(|t| !played.listeners.contains(&t.target));
            }
            clips.retain(|c| !c.tracks.is_empty());
            let (tracks, range) = set_tracks(&mut b, &played.sets, |t| t);
            clips.extend(world_time_clip("events", tracks, range));
        }
        (None, Some(sources)) => {
            through_listeners(&mut b, &mut clips, &feeds, sources);
        }
        _ => {}
    }
    // After a routing limit the unfollowed routes are not news.
    if !b.stopped {
        report_unbaked_routes(&mut b, &clips);
    }
    report_conflicts(b.diags, scene, &clips);
    clips
}

/// The fields the event cascade sets (a Switch's whichChoice from an
/// IntegerTrigger, a Transform's translation from a Script) as tracks, and
/// the range of their keys: a track a field, from the field's own value to
/// each value set, keyed at `key_of(time set)` (the last of one time). A
/// value set at frames (a Script following a clock, a follower) is
/// interpolated between them, linearly or (a rotation) on the shorter
/// arc; one set by discrete events holds until the next.
fn set_tracks(
    b: &mut Builder<'_>,
    sets: &[cascade::Set],
    key_of: impl Fn(f64) -> f64,
) -> (Vec<Track>, (f64, f64)) {
    let scene = b.scene;
    let mut tracks = Vec::new();
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for (key, list) in by_field(sets.iter().map(|s| ((s.node, s.field.as_str()), s))) {
        let first = list[0];
        let width = first.ty.components();
        let shown = !first.ty.is_mf()
            && !matches!(
                first.ty.scalar(),
                crate::scene::value::Scalar::String | crate::scene::value::Scalar::Node
            )
            && first.ty != FieldType::SFMatrix3f
            && first.ty != FieldType::SFMatrix4f;
        if !shown {
            // What the load sets is the glTF's rest pose; a later change
            // (a string, nodes added or removed) is not baked.
            if let Some(later) = list.iter().find(|s| s.time > 0.0) {
                b.diags.warning(
                    format!(
                        "`{}.{}` ({}) is set at {} s, which the timeline does not show: the glTF holds its value at load",
                        scene.display_name(key.0),
                        key.1,
                        first.ty.name(),
                        key_of(later.time)
                    ),
                    Some(later.span),
                );
            }
            continue;
        }
        let framed = list.iter().any(|s| s.sampled);
        let kind = match first.ty {
            FieldType::SFRotation => Kind::Orientation,
            _ if framed => Kind::Linear,
            FieldType::SFBool
            | FieldType::SFInt32
            | FieldType::SFFloat
            | FieldType::SFDouble
            | FieldType::SFTime => Kind::Step,
            _ => Kind::Linear,
        };
        // Held values as jumps (a key repeated) where the kind blends.
        let held = !framed && kind != Kind::Step;
        // The field's own value before the first event; the last value set
        // at each time.
        let mut own: Vec<f64> = scene
            .value(key.0, key.1)
            .map(crate::scene::Value::numbers)
            .unwrap_or_default();
        own.resize(width, 0.0);
        let (mut keys, mut values) = (vec![key_of(first.time) - 1.0], own);
        for &set in &list {
            if set.values.len() != width {
                continue;
            }
            let at = key_of(set.time);
            if keys.last() == Some(&at) {
                keys.pop();
                values.truncate(values.len() - width);
            }
            if held {
                let before = values[values.len() - width..].to_vec();
                keys.push(at);
                values.extend_from_slice(&before);
            }
            keys.push(at);
            values.extend_from_slice(&set.values);
        }
        range = (range.0.min(keys[0]), range.1.max(keys[keys.len() - 1]));
        let spec = crate::interp::Spec {
            elem: width,
            ..crate::interp::Spec::scalar(kind, &keys, values)
        };
        let func = Arc::new(Interpolator::new(spec, &mut Vec::new()));
        tracks.push(Track::new(
            key,
            Some(first.ty),
            first.source,
            first.span,
            func,
        ));
    }
    (tracks, range)
}

/// An HAnimMotion's clip: a track for each joint field it moves, linear
/// between its frames (rotations on the shorter arc).
fn motion_clip(
    scene: &Scene,
    id: NodeId,
    name: String,
    m: super::motion::Motion,
    opts: ClipOptions,
) -> Option<Clip> {
    let span = scene.node(id).span;
    let mut tracks = Vec::new();
    for j in m.joints {
        let fields = [
            (
                "translation",
                j.translation,
                Kind::Linear,
                FieldType::SFVec3f,
                3,
            ),
            (
                "rotation",
                j.rotation,
                Kind::Orientation,
                FieldType::SFRotation,
                4,
            ),
            ("scale", j.scale, Kind::Linear, FieldType::SFVec3f, 3),
        ];
        for (field, values, kind, ty, elem) in fields {
            let Some(values) = values else { continue };
            let spec = crate::interp::Spec {
                elem,
                ..crate::interp::Spec::scalar(kind, &m.keys, values)
            };
            let func = Arc::new(Interpolator::new(spec, &mut Vec::new()));
            tracks.push(Track::new((j.joint, field), Some(ty), id, span, func));
        }
    }
    if tracks.is_empty() {
        return None;
    }
    let range = (0.0, 1.0);
    Some(Clip {
        name,
        clock_node: id,
        map: m.clock.clip(opts.cycles.max(1), range)?,
        world_start: m.clock.clip_start(range),
        clock: m.clock,
        tracks,
        runs: None,
    })
}

/// Frames a second at which the clip mode plays Scripts and followers.
const CLIP_FRAMES: f64 = 60.0;

/// Whether a node is a Script or a follower.
fn listens(scene: &Scene, id: NodeId) -> bool {
    let ty = type_of(scene, id);
    ty == "Script" || super::check::is_follower(ty)
}

/// The TimeSensors whose events reach a Script or a follower, each with
/// the nodes its events reach along routes (through any node but another
/// clock).
fn feeding_clocks(scene: &Scene) -> HashMap<NodeId, HashSet<NodeId>> {
    let mut receivers: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
    for r in &scene.routes {
        receivers.entry(r.from).or_default().push(r.to);
    }
    let downstream = |clock: NodeId| {
        let mut seen: HashSet<NodeId> = HashSet::default();
        let mut stack = vec![clock];
        while let Some(n) = stack.pop() {
            for &to in receivers.get(&n).map_or(&[][..], Vec::as_slice) {
                let clock_too = scene.node(to).type_name == "TimeSensor";
                if !clock_too && seen.insert(to) {
                    stack.push(to);
                }
            }
        }
        seen
    };
    (0..scene.nodes.len() as u32)
        .map(NodeId)
        .filter(|&id| {
            let node = scene.node(id);
            node.type_name == "TimeSensor" && node.in_proto.is_none()
        })
        .map(|id| (id, downstream(id)))
        .filter(|(_, reached)| reached.iter().any(|&n| listens(scene, n)))
        .collect()
}

/// The clip mode's clips whose clocks reach a Script or a follower
/// (`feeds`): each clock's cycle is played alone from 0
/// (`cascade::play_clip`) at `CLIP_FRAMES` frames a second, and what the
/// nodes its events reach set becomes tracks of its clip, keyed by the
/// clock's fraction; the tracks into Scripts and followers go. A clip of
/// several cycles repeats the first.
fn through_listeners(
    b: &mut Builder<'_>,
    clips: &mut Vec<Clip>,
    feeds: &HashMap<NodeId, HashSet<NodeId>>,
    sources: &Sources,
) {
    let scene = b.scene;
    for clip in clips.iter_mut() {
        let Clock::TimeSensor { cycle_interval, .. } = clip.clock else {
            continue;
        };
        let Some(reached) = feeds.get(&clip.clock_node).filter(|_| cycle_interval > 0.0) else {
            continue;
        };
        // The Scripts' own warnings once, not once a clip.
        let mut own = Diagnostics::default();
        let played = cascade::play_clip(
            scene,
            sources,
            clip.clock_node,
            reached,
            cycle_interval,
            CLIP_FRAMES,
            &mut own,
        );
        for d in own.list() {
            if !b.diags.list().iter().any(|x| x.message == d.message) {
                b.diags.push(d.clone());
            }
        }
        // The routes from the clock and the nodes it reaches are baked;
        // events into other clocks start nothing here (each clip plays
        // alone), and those routes stay named.
        for (ri, r) in scene.routes.iter().enumerate() {
            let ours = r.from == clip.clock_node || reached.contains(&r.from);
            let other_clock = r.to != clip.clock_node && scene.node(r.to).type_name == "TimeSensor";
            if ours && played.carried(scene, ri) && !other_clock {
                b.used[ri] = true;
            }
        }
        // A Script that reads the clock's time (not its fraction) may
        // set what does not come back each cycle (a position integrated
        // over time): the clip holds its first cycle, and says so.
        let timed = scene.routes.iter().find(|r| {
            r.from == clip.clock_node
                && matches!(r.from_field.as_str(), "time" | "elapsedTime" | "cycleTime")
                && played.listeners.contains(&r.to)
                && scene.node(r.to).type_name == "Script"
        });
        if let Some(r) = timed.filter(|_| clip.looping()) {
            b.diags.warning(
                format!(
                    "clip `{}`: Script `{}` reads the clock's `{}`, so what it sets need not repeat each cycle: the clip holds the first cycle and loops it; `--timeline` plays it in world time",
                    clip.name,
                    scene.display_name(r.to),
                    r.from_field
                ),
                Some(r.span),
            );
        }
        let sets: Vec<cascade::Set> = played
            .sets
            .into_iter()
            .filter(|s| reached.contains(&s.source))
            .collect();
        clip.tracks
            .retain(|t| !played.listeners.contains(&t.target));
        let (tracks, _) = set_tracks(b, &sets, |t| t / cycle_interval);
        clip.tracks.extend(tracks);
    }
    clips.retain(|c| !c.tracks.is_empty());
}

/// A Link's first string in `field` (project three's Links name nodes by
/// their DEF).
fn link_text(scene: &Scene, link: NodeId, field: &str) -> String {
    scene
        .value(link, field)
        .and_then(|v| v.strings().first().cloned())
        .unwrap_or_default()
}

/// The Links of project three (not in prototype bodies) by the node their
/// TIMER names, in file order: found once, not once a Timer.
fn links_by_timer(scene: &Scene) -> HashMap<NodeId, Vec<NodeId>> {
    let mut links: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
    for i in 0..scene.nodes.len() {
        let link = NodeId(i as u32);
        if type_of(scene, link) != "Link" || scene.node(link).in_proto.is_some() {
            continue;
        }
        if let Some(timer) = scene.def(&link_text(scene, link, "TIMER")) {
            links.entry(timer).or_default().push(link);
        }
    }
    links
}

/// Links of project three that name this Timer.
fn link_tracks(b: &mut Builder<'_>, links: &[NodeId], tracks: &mut Vec<Track>, periodic: bool) {
    let scene = b.scene;
    for &link in links {
        let text = |f: &str| link_text(scene, link, f);
        let span = scene.node(link).span;
        let named = |n: &str| scene.def(n);
        let (interp_name, node_name, field) =
            (text("INTERPOLATOR"), text("TO_NODE"), text("TO_FIELD"));
        let (Some(interp), Some(target)) = (named(&interp_name), named(&node_name)) else {
            let missing = if named(&interp_name).is_none() {
                interp_name
            } else {
                node_name
            };
            b.diags.error(
                format!("Link names `{missing}`, which has no DEF"),
                Some(span),
            );
            continue;
        };
        let Some(func) = b.interpolator(interp, periodic) else {
            b.diags.error(
                format!("Link INTERPOLATOR `{interp_name}` is not an interpolator"),
                Some(span),
            );
            continue;
        };
        let out_ty = scene
            .find_field(interp, "value_changed", Dir::Out)
            .map(|f| f.ty);
        let Some(def) = scene.find_field(target, &field, Dir::In) else {
            b.diags.error(
                format!("Link TO_FIELD `{node_name}.{field}` is not a field that can be set"),
                Some(span),
            );
            continue;
        };
        if out_ty != Some(def.ty) {
            b.diags.error(
                format!("Link from `{interp_name}` ({}) to `{node_name}.{field}` ({}): the types differ", out_ty.map_or("?", |t| t.name()), def.ty),
                Some(span),
            );
            continue;
        }
        let route = Route {
            from: interp,
            from_field: "value_changed".into(),
            to: target,
            to_field: def.name.clone(),
            ty: Some(def.ty),
            span,
        };
        tracks.push(b.track(&route, interp, &[], func, periodic));
    }
}

/// Routes no track follows: events from sensors, scripts and chains, which
/// are not simulated. Each is named (nothing is lost in silence), with what
/// that leaves: a clip baked without them, or a field keeping its value.
fn report_unbaked_routes(b: &mut Builder<'_>, clips: &[Clip]) {
    let scene = b.scene;
    let mut involved: HashSet<NodeId> = clips.iter().map(|c| c.clock_node).collect();
    for t in clips.iter().flat_map(|c| &c.tracks) {
        involved.insert(t.source);
        involved.extend(&t.modifiers);
    }
    let animated: HashSet<(NodeId, &str)> = clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| (t.target, t.field.as_str()))
        .collect();
    for (ri, r) in scene.routes.iter().enumerate() {
        if b.used[ri] {
            continue;
        }
        let effect = if involved.contains(&r.to) || animated.contains(&(r.to, r.to_field.as_str()))
        {
            "the clip bakes without them".to_string()
        } else {
            format!(
                "`{}.{}` keeps the value it has at load",
                scene.display_name(r.to),
                r.to_field
            )
        };
        let from = scene.node(r.from);
        // What plays them: world time, and for a sensor a person's event.
        let plays = if from.type_name.ends_with("Sensor") && from.type_name != "TimeSensor" {
            format!(
                "a person's events from {} are played only by `--timeline --event TIME:{}.{}=VALUE`",
                from.type_name,
                scene.display_name(r.from),
                r.from_field
            )
        } else {
            format!(
                "events from {} are played only in world time (`--timeline`)",
                from.type_name
            )
        };
        b.diags.warning(
            format!(
                "ROUTE from `{}.{}` ({}) to `{}.{}` is not baked: {plays}; {effect}",
                scene.display_name(r.from),
                r.from_field,
                from.type_name,
                scene.display_name(r.to),
                r.to_field,
            ),
            Some(r.span),
        );
    }
}

/// Fields that several tracks of one clip set at once: the last event
/// wins, as in a browser's event cascade, which follows the routes from the
/// clock in order as the walk does (X_ITE, measured: of three interpolators
/// driving one translation, the one whose fraction route comes last). The
/// others are dropped with a warning; glTF allows one channel a target in
/// an animation.
fn last_event_wins(diags: &mut Diagnostics, scene: &Scene, clip: &str, tracks: &mut Vec<Track>) {
    let mut last: HashMap<(NodeId, &str), usize> = HashMap::default();
    for (i, t) in tracks.iter().enumerate() {
        last.insert((t.target, t.field.as_str()), i);
    }
    if last.len() == tracks.len() {
        return;
    }
    // The track that wins over each one (itself, if none).
    let winners: Vec<usize> = tracks
        .iter()
        .map(|t| last[&(t.target, t.field.as_str())])
        .collect();
    // The dropped tracks of each field, in order, by the winner's index.
    let mut dropped: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::default();
    for (i, &winner) in winners.iter().enumerate() {
        if winner != i {
            let k = *at.entry(winner).or_insert_with(|| {
                dropped.push((winner, Vec::new()));
                dropped.len() - 1
            });
            dropped[k].1.push(i);
        }
    }
    for (winner, losers) in &dropped {
        let w = &tracks[*winner];
        // The sources of the dropped events (one interpolator can be
        // reached by several routes), each once.
        let mut seen = HashSet::default();
        let sources: Vec<NodeId> = losers
            .iter()
            .map(|&i| tracks[i].source)
            .filter(|&s| seen.insert(s))
            .collect();
        let names: Vec<String> = sources
            .iter()
            .take(3)
            .map(|&s| format!("`{}`", scene.display_name(s)))
            .collect();
        let more = match sources.len() {
            n if n > 3 => format!(" and {} more", n - 3),
            _ => String::new(),
        };
        diags.warning(
            format!(
                "`{}.{}` is set {} times at once in clip `{clip}`: the last event, from `{}`, \
                 wins; the others (from {}{more}) are not baked",
                scene.display_name(w.target),
                w.field,
                losers.len() + 1,
                scene.display_name(w.source),
                names.join(", "),
            ),
            Some(tracks[losers[0]].span),
        );
    }
    let mut i = 0;
    tracks.retain(|_| {
        i += 1;
        winners[i - 1] == i - 1
    });
}

/// A field animated by two clips: they fight when both play.
fn report_conflicts(diags: &mut Diagnostics, scene: &Scene, clips: &[Clip]) {
    // One warning for each pair of clips, naming the first shared field.
    let mut seen: HashMap<(NodeId, &str), usize> = HashMap::default();
    // In the order found, and where each pair is in that list.
    let mut pairs: Vec<((usize, usize), &Track, usize)> = Vec::new();
    let mut pair_at: HashMap<(usize, usize), usize> = HashMap::default();
    for (ci, clip) in clips.iter().enumerate() {
        for t in &clip.tracks {
            match seen.get(&(t.target, t.field.as_str())) {
                Some(&other) if other != ci => match pair_at.get(&(other, ci)) {
                    Some(&i) => pairs[i].2 += 1,
                    None => {
                        pair_at.insert((other, ci), pairs.len());
                        pairs.push(((other, ci), t, 1));
                    }
                },
                _ => {
                    seen.insert((t.target, t.field.as_str()), ci);
                }
            }
        }
    }
    for ((a, b), t, n) in pairs {
        let more = if n > 1 {
            format!(
                " (and {} more field{})",
                n - 1,
                if n == 2 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        diags.warning(
            format!(
                "`{}.{}`{more} is animated by clip `{}` and by clip `{}`: when both play, the last event wins",
                scene.display_name(t.target),
                t.field,
                clips[a].name,
                clips[b].name
            ),
            Some(t.span),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::timeline_clip;
    use crate::anim::cascade::World;
    use crate::{Bake, Limits};
    use std::sync::Arc;

    /// One clock driving `n` Transforms, in world time.
    fn clock_and_transforms(n: usize) -> Bake {
        let mut x3d = String::from("<X3D><Scene><TimeSensor DEF='C' loop='true'/>");
        for i in 0..n {
            x3d.push_str(&format!(
                "<Transform DEF='T{i}'/><PositionInterpolator DEF='P{i}' key='0 1' \
                 keyValue='0 0 0 {i} 0 0'/>\
                 <ROUTE fromNode='C' fromField='fraction_changed' toNode='P{i}' toField='set_fraction'/>\
                 <ROUTE fromNode='P{i}' fromField='value_changed' toNode='T{i}' toField='translation'/>"
            ));
        }
        x3d.push_str("</Scene></X3D>");
        let mut bake = Bake::load("t.x3d", x3d.into_bytes(), None, None, Limits::default());
        bake.animate_in(Default::default(), Some(&World::default()));
        assert!(!bake.diags.has_errors(), "{:?}", bake.diags.list());
        bake
    }

    /// The timeline's curves share the clips that write them: one copy of
    /// the clock's clip for all 200 fields (each curve holding its own made
    /// the timeline quadratic: 4 000 Transforms took 2.3 GB).
    #[test]
    fn the_timeline_keeps_one_copy_of_each_clip() {
        let bake = clock_and_transforms(200);
        let timeline = timeline_clip(&bake.scene, bake.clips, 0.0, 4.0).unwrap();
        assert_eq!(timeline.tracks.len(), 200);
        let curves: Vec<_> = timeline
            .tracks
            .iter()
            .map(|t| t.world.as_ref().expect("a world curve"))
            .collect();
        let first = &curves[0].sources[0].0;
        for c in &curves {
            assert_eq!(c.sources.len(), 1);
            assert!(Arc::ptr_eq(&c.sources[0].0, first));
        }
        assert_eq!(Arc::strong_count(first), 200);
    }
}
