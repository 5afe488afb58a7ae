//! Clips: the animated fields of each clock, from a scene's ROUTEs (and
//! project three Links), and the world-time clip of `--timeline`.

use super::clock::{Clock, FractionMap};
use super::fit::{self, Bound, Fitted, Shape, TooMany};
use super::keyframes::{Interpolation, Keyframes};
use super::track::sort_corners;
pub use super::track::{SurfaceOutput, Track, WorldSource};
use crate::hash::HashMap;
use crate::interp::{Exact, TangentRule};
use crate::scene::{NodeId, Scene};
use std::sync::Arc;

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
            lens: track.is_field_of_view(),
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

impl WorldSource for WorldCurve {
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
pub(super) fn by_field<'k, T>(
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
pub(super) fn world_time_clip(name: &str, tracks: Vec<Track>, span: (f64, f64)) -> Option<Clip> {
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
    /// A behaviour graph carries the user's events (`--interactive`): the
    /// routes from sensors, event utilities and clocks' `isActive` are not
    /// reported as unbaked (the graph names what it cannot carry).
    pub interactive: bool,
}

impl Default for ClipOptions {
    fn default() -> Self {
        ClipOptions {
            cycles: 1,
            rule: TangentRule::AsWritten,
            interactive: false,
        }
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
            .map(|t| {
                let curve: &dyn std::any::Any = &**t.world.as_ref().expect("a world curve");
                curve
                    .downcast_ref::<super::WorldCurve>()
                    .expect("a WorldCurve")
            })
            .collect();
        let first = &curves[0].sources[0].0;
        for c in &curves {
            assert_eq!(c.sources.len(), 1);
            assert!(Arc::ptr_eq(&c.sources[0].0, first));
        }
        assert_eq!(Arc::strong_count(first), 200);
    }
}
