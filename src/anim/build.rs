//! A scene's clips: one for each clock that drives a field, its tracks
//! found by walking the ROUTEs from it (and project three's Links), with
//! what cannot be baked said.

use super::InterpOptions;
use super::cascade::{self, World};
use super::check::Built;
use super::clip::{Clip, ClipOptions, world_time_clip};
use super::clock::{Clock, clock_of};
use super::route_reports::{last_event_wins, report_conflicts, report_unbaked_routes};
use super::walk::{
    Builder, feeding_clocks, link_tracks, links_by_timer, listens, motion_clip, set_tracks,
    through_listeners,
};
use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::scene::{NodeId, NodeType, Scene};
use crate::script::Budget;
use crate::source::Sources;

/// How far the clocks' events are played beyond their routes to
/// interpolators.
#[derive(Clone, Copy)]
pub enum Events<'a> {
    /// The routes alone: no Script or follower runs.
    RoutesOnly,
    /// Clip mode: the Scripts and followers a clock feeds run along its
    /// clip (their programs read from `sources`, run within the budget).
    Clips(&'a Sources, &'a Budget),
    /// World time: the event cascade plays the clocks' runs from the load
    /// instant and the user's events of `world` (Scripts within the
    /// budget).
    World(&'a World, &'a Sources, &'a Budget),
}

/// Every clip of a scene: one per clock that drives at least one field,
/// from its routes alone. Problems (cycles, unbakeable routes, conflicts)
/// go to `diags`.
pub fn clips(scene: &Scene, opts: ClipOptions, diags: &mut Diagnostics) -> Vec<Clip> {
    clips_using(scene, opts, &Built::default(), Events::RoutesOnly, diags)
}

/// [`clips`], taking interpolators already built with the default options
/// from `built` (see [`check`](super::check::check)), the events played as
/// `events` says.
pub fn clips_using(
    scene: &Scene,
    opts: ClipOptions,
    built: &Built,
    events: Events,
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
    let feeds = if listening && matches!(events, Events::Clips(..)) {
        feeding_clocks(scene)
    } else {
        HashMap::default()
    };
    let mut clips = Vec::new();
    let mut ordinal: HashMap<NodeType, usize> = HashMap::default();
    for i in 0..scene.nodes.len() {
        let id = NodeId(i as u32);
        if scene.node(id).in_proto.is_some() {
            continue; // a template: its instances' copies are the clocks
        }
        let (Some(clock), Some(ty)) = (clock_of(scene, id), scene.node_type(id)) else {
            continue;
        };
        let n = ordinal.entry(ty).or_insert(0);
        *n += 1;
        let name = scene
            .node(id)
            .def
            .clone()
            .unwrap_or_else(|| format!("{}_{n}", ty.name()));
        let periodic = clock.looping();
        let mut tracks = Vec::new();
        if ty == NodeType::TimeSensor {
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
        if !matches!(events, Events::World(..))
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
            let what = if ty == NodeType::Timer {
                "period is 0"
            } else {
                "cycleInterval is not positive"
            };
            b.diags.error(
                format!("{} `{name}`: its {what}, so it drives no clip", ty.name()),
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
        if scene.node_type(id) != Some(NodeType::HAnimMotion)
            || node.in_proto.is_some()
            || b.stopped
        {
            continue;
        }
        if let Some(m) = super::motion::read(scene, id, b.diags) {
            let n = ordinal.entry(NodeType::HAnimMotion).or_insert(0);
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
    match events {
        _ if b.stopped => {}
        Events::World(world, sources, budget) => {
            let played = cascade::play(
                scene,
                sources,
                world,
                world.end.unwrap_or(cascade::HORIZON),
                budget,
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
            let (tracks, range) = set_tracks(&mut b, &played.created, &played.sets, |t| t);
            clips.extend(world_time_clip("events", tracks, range));
        }
        Events::Clips(sources, budget) => {
            through_listeners(&mut b, &mut clips, &feeds, sources, budget);
        }
        Events::RoutesOnly => {}
    }
    // After a routing limit the unfollowed routes are not news.
    if !b.stopped {
        report_unbaked_routes(&mut b, &clips);
    }
    report_conflicts(b.diags, scene, &clips);
    clips
}
