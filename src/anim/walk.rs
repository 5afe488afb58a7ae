//! The route walker: from each clock's fraction through fraction
//! modifiers to interpolators and the fields they set; the tracks of
//! Script and follower listeners, Timer links and clock motion.

use super::cascade::{self};
use super::check::is_chain_node;
use super::clip::{Clip, ClipOptions, by_field};
use super::clock::Clock;
use super::track::{GeoTurn, Modifier, SurfaceOutput, Through, Track};
use super::{InterpOptions, NodeFn, node_function};
use crate::diag::{Diagnostic, Diagnostics};
use crate::hash::{HashMap, HashSet};
use crate::interp::{Interpolator, Kind, PointMap};
use crate::scene::{Dir, FieldType, NodeId, NodeType, Route, Scene};
use crate::script::{Budget, Created};
use crate::source::Sources;
use std::sync::Arc;

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

pub(super) struct Builder<'a> {
    pub(super) scene: &'a Scene,
    pub(super) opts: ClipOptions,
    pub(super) diags: &'a mut Diagnostics,
    pub(super) funcs: HashMap<(NodeId, bool), Arc<Interpolator>>,
    /// Routes that some track follows.
    pub(super) used: Vec<bool>,
    /// The routes out of each node field, in file order.
    pub(super) out_routes: HashMap<(NodeId, &'a str), Vec<usize>>,
    /// Chain nodes reached so far, against [`MAX_ROUTE_STEPS`].
    pub(super) steps: usize,
    /// A routing limit was passed (and reported): no route is followed
    /// further.
    pub(super) stopped: bool,
}

impl Builder<'_> {
    pub(super) fn func(&mut self, id: NodeId, periodic: bool) -> Option<NodeFn> {
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

    pub(super) fn interpolator(&mut self, id: NodeId, periodic: bool) -> Option<Arc<Interpolator>> {
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

    pub(super) fn modifier(&mut self, id: NodeId, periodic: bool) -> Option<Modifier> {
        match self.func(id, periodic)? {
            NodeFn::Fraction(e) => Some(Modifier::Ease(e)),
            NodeFn::Value(_) => self.interpolator(id, periodic).map(Modifier::Scalar),
        }
    }

    /// The routes the cascade played are baked.
    pub(super) fn mark_played(&mut self, played: &cascade::Played) {
        for ri in 0..self.scene.routes.len() {
            if played.carried(self.scene, ri) {
                self.used[ri] = true;
            }
        }
    }

    pub(super) fn routes_from(&self, node: NodeId, field: &str) -> Vec<usize> {
        self.out_routes
            .get(&(node, field))
            .cloned()
            .unwrap_or_default()
    }

    /// Follows the fraction out of `node.field` through modifiers to
    /// interpolators and their targets.
    pub(super) fn walk(
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
                && !matches!(self.scene.node_type(r.to), None | Some(NodeType::Script))
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
    pub(super) fn enter(
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
        if self.scene.node_type(node) == Some(NodeType::EaseInEaseOut) {
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
    pub(super) fn interpolator_targets(
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
                && self.scene.node_type(r.to) == Some(NodeType::NurbsSurfaceInterpolator)
            {
                self.surface_targets(&r, interp, chain, &func, path, tracks, periodic);
                continue;
            }
            let track = self.track(&r, interp, chain, func.clone(), periodic);
            tracks.push(match self.geo_view_frame(&r) {
                // (Its glTF node's rotation, as the GeoPositionInterpolator's
                // below: a GeoViewpoint's own fields are in its geoSystem.)
                Some(through) => Track {
                    field: "rotation".into(),
                    through: Some(Box::new(through)),
                    ..track
                },
                None => track,
            });
        }
        // A GeoPositionInterpolator's coordinates into a GeoLocation's
        // geoCoords (a GeoViewpoint's position): it moves and turns with
        // them, its frame there (a GeoViewpoint's then turned by its
        // orientation): its glTF node's translation and rotation (the
        // translation taken through a map as value_changed is, for its
        // bound).
        for ri in self.routes_from(interp, "geovalue_changed") {
            let r = self.scene.routes[ri].clone();
            let then = match (self.scene.node_type(r.to), r.to_field.as_str()) {
                (Some(NodeType::GeoLocation), "geoCoords") => glam::DQuat::IDENTITY,
                (Some(NodeType::GeoViewpoint), "position") => {
                    crate::interp::rotation::from_sf_rotation(
                        self.scene.floats(r.to, "orientation"),
                    )
                }
                _ => continue,
            };
            self.used[ri] = true;
            let frame = crate::geo::Frame::of(self.scene, r.to);
            let map = PointMap(Arc::new(move |p| frame.location(p).translation));
            let moved = Arc::new(func.unmapped().with_map(map));
            let track = self.track(&r, interp, chain, moved, periodic);
            tracks.push(Track {
                field: "translation".into(),
                ty: Some(FieldType::SFVec3f),
                ..track
            });
            let given = Arc::new(func.unmapped());
            let track = self.track(&r, interp, chain, given, periodic);
            tracks.push(Track {
                field: "rotation".into(),
                ty: Some(FieldType::SFRotation),
                through: Some(Box::new(Through::Turn(GeoTurn { frame, then }))),
                ..track
            });
        }
    }

    /// A rotation routed into a GeoViewpoint's orientation: turned by the
    /// frame at its position (+Y up there), as its static orientation is.
    fn geo_view_frame(&self, r: &Route) -> Option<Through> {
        if self.scene.node_type(r.to) != Some(NodeType::GeoViewpoint) || r.to_field != "orientation"
        {
            return None;
        }
        let at = crate::geo::view_location(self.scene, r.to);
        Some(Through::Framed(glam::DQuat::from_mat3(&at.matrix3)))
    }

    /// An interpolator's (u, v) values into a NurbsSurfaceInterpolator
    /// (route `into`): the targets of its position and normal become
    /// tracks of the interpolator through the surface.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn surface_targets(
        &mut self,
        into: &Route,
        interp: NodeId,
        chain: &[NodeId],
        func: &Arc<Interpolator>,
        path: &[usize],
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
                tracks.push(Track {
                    through: Some(Box::new(Through::Surface(SurfaceOutput::new(
                        surface.clone(),
                        normal,
                    )))),
                    ..self.track(&r, interp, chain, func.clone(), periodic)
                });
            }
        }
    }

    pub(super) fn track(
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

    pub(super) fn cycle(&mut self, path: &[usize], closing: usize) {
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
pub(super) fn identity() -> Interpolator {
    let spec = crate::interp::Spec::scalar(Kind::Linear, &[0.0, 1.0], vec![0.0, 1.0]);
    Interpolator::new(spec, &mut Vec::new())
}

/// The fields the event cascade sets (a Switch's whichChoice from an
/// IntegerTrigger, a Transform's translation from a Script) as tracks, and
/// the range of their keys: a track a field, from the field's own value to
/// each value set, keyed at `key_of(time set)` (the last of one time). A
/// value set at frames (a Script following a clock, a follower) is
/// interpolated between them, linearly or (a rotation) on the shorter
/// arc; one set by discrete events holds until the next.
pub(super) fn set_tracks(
    b: &mut Builder<'_>,
    made: &Created,
    sets: &[cascade::Set],
    key_of: impl Fn(f64) -> f64,
) -> (Vec<Track>, (f64, f64)) {
    let scene = b.scene;
    let mut tracks = Vec::new();
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for (key, list) in by_field(sets.iter().map(|s| ((s.node, s.field.as_str()), s))) {
        let first = list[0];
        // A list of numbers (a Coordinate's points a Script moves) is one
        // value of the length it has at load; a set of another length is
        // not shown.
        let numbers = matches!(
            first.ty.scalar(),
            crate::scene::value::Scalar::Float | crate::scene::value::Scalar::Double
        );
        let at_load = list.iter().take_while(|s| s.time <= 0.0).last();
        let width = match at_load {
            Some(s) if first.ty.is_mf() => s.values.len(),
            _ => first.ty.components(),
        };
        let shown = (!first.ty.is_mf() || (numbers && width > 0))
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
                let why = ", which the timeline does not show: the glTF holds its value at load";
                not_shown(b, made, later, key_of(later.time), why);
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
        // A GeoCoordinate's points as drawn: in the scene's frame.
        let geo = (scene.holds(key.0)
            && scene.node_type(key.0) == Some(NodeType::GeoCoordinate)
            && key.1 == "point")
            .then(|| crate::geo::Frame::of(scene, key.0));
        let drawn = |v: &mut [f64]| {
            if let Some(frame) = &geo {
                for p in v.chunks_exact_mut(3) {
                    p.copy_from_slice(&frame.point(glam::DVec3::from_slice(p)).to_array());
                }
            }
        };
        // The field's own value before the first event; the last value set
        // at each time.
        let own = if scene.holds(key.0) {
            scene.value(key.0, key.1)
        } else {
            made.value(key.0, key.1)
        };
        let mut own: Vec<f64> = own.map(crate::scene::Value::numbers).unwrap_or_default();
        own.resize(width, 0.0);
        drawn(&mut own);
        let (mut keys, mut values) = (vec![key_of(first.time) - 1.0], own);
        let mut other_length = None;
        // Whether the last key is the value as a cycle ends: the left side
        // of a jump at its time, which the value set there follows.
        let mut ending = false;
        for &set in &list {
            if set.values.len() != width {
                other_length.get_or_insert(set);
                continue;
            }
            let at = key_of(if set.ending {
                set.time.next_up()
            } else {
                set.time
            });
            if keys.last() == Some(&at) && (set.ending || !ending) {
                keys.pop();
                values.truncate(values.len() - width);
            }
            ending = set.ending;
            if held {
                let before = values[values.len() - width..].to_vec();
                keys.push(at);
                values.extend_from_slice(&before);
            }
            keys.push(at);
            let first = values.len();
            values.extend_from_slice(&set.values);
            drawn(&mut values[first..]);
        }
        if let Some(set) = other_length.filter(|_| first.ty.is_mf()) {
            let why = " to a list of another length than at load, which the timeline does not show";
            not_shown(b, made, set, key_of(set.time), why);
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

/// Names a field the cascade sets at `key` that the glTF does not show,
/// and `why`.
fn not_shown(b: &mut Builder<'_>, made: &Created, set: &cascade::Set, key: f64, why: &str) {
    let node = match made.node(set.node) {
        Some(n) => n.display_name(),
        None => b.scene.display_name(set.node),
    };
    b.diags.warning(
        format!(
            "`{}.{}` ({}) is set at {key} s{why}",
            node,
            set.field,
            set.ty.name(),
        ),
        Some(set.span),
    );
}

/// An HAnimMotion's clip: a track for each joint field it moves, linear
/// between its frames (rotations on the shorter arc).
pub(super) fn motion_clip(
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
pub(super) const CLIP_FRAMES: f64 = 60.0;

/// Whether a node is a Script or a follower.
pub(super) fn listens(scene: &Scene, id: NodeId) -> bool {
    scene.node_type(id) == Some(NodeType::Script)
        || scene
            .known(id)
            .is_some_and(|d| super::check::is_follower(&d.name))
}

/// The TimeSensors whose events reach a Script or a follower, each with
/// the nodes its events reach along routes (through any node but another
/// clock).
pub(super) fn feeding_clocks(scene: &Scene) -> HashMap<NodeId, HashSet<NodeId>> {
    let mut receivers: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
    for r in &scene.routes {
        receivers.entry(r.from).or_default().push(r.to);
    }
    let downstream = |clock: NodeId| {
        let mut seen: HashSet<NodeId> = HashSet::default();
        let mut stack = vec![clock];
        while let Some(n) = stack.pop() {
            for &to in receivers.get(&n).map_or(&[][..], Vec::as_slice) {
                let clock_too = scene.node_type(to) == Some(NodeType::TimeSensor);
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
            scene.node_type(id) == Some(NodeType::TimeSensor) && node.in_proto.is_none()
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
pub(super) fn through_listeners(
    b: &mut Builder<'_>,
    clips: &mut Vec<Clip>,
    feeds: &HashMap<NodeId, HashSet<NodeId>>,
    sources: &Sources,
    budget: &Budget,
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
            budget,
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
            let other_clock =
                r.to != clip.clock_node && scene.node_type(r.to) == Some(NodeType::TimeSensor);
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
                && scene.node_type(r.to) == Some(NodeType::Script)
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
        // (Not those of nodes Scripts made: a clip plays only the Scripts
        // its clock reaches, which need not make them as the load does.)
        let sets: Vec<cascade::Set> = played
            .sets
            .into_iter()
            .filter(|s| reached.contains(&s.source) && scene.holds(s.node))
            .collect();
        clip.tracks
            .retain(|t| !played.listeners.contains(&t.target));
        let (tracks, _) = set_tracks(b, &Created::default(), &sets, |t| t / cycle_interval);
        clip.tracks.extend(tracks);
    }
    clips.retain(|c| !c.tracks.is_empty());
}

/// A Link's first string in `field` (project three's Links name nodes by
/// their DEF).
pub(super) fn link_text(scene: &Scene, link: NodeId, field: &str) -> String {
    scene
        .value(link, field)
        .and_then(|v| v.strings().first().cloned())
        .unwrap_or_default()
}

/// The Links of project three (not in prototype bodies) by the node their
/// TIMER names, in file order: found once, not once a Timer.
pub(super) fn links_by_timer(scene: &Scene) -> HashMap<NodeId, Vec<NodeId>> {
    let mut links: HashMap<NodeId, Vec<NodeId>> = HashMap::default();
    for i in 0..scene.nodes.len() {
        let link = NodeId(i as u32);
        if scene.node_type(link) != Some(NodeType::Link) || scene.node(link).in_proto.is_some() {
            continue;
        }
        if let Some(timer) = scene.def(&link_text(scene, link, "TIMER")) {
            links.entry(timer).or_default().push(link);
        }
    }
    links
}

/// Links of project three that name this Timer.
pub(super) fn link_tracks(
    b: &mut Builder<'_>,
    links: &[NodeId],
    tracks: &mut Vec<Track>,
    periodic: bool,
) {
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
