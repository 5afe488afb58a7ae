//! What the clips leave to world time or cannot bake, said: ROUTEs no
//! clip bakes, fields several clips (or several events) set.

use super::check::{is_event_utility, is_user_sensor};
use super::clip::Clip;
use super::track::Track;
use super::walk::Builder;
use crate::diag::Diagnostics;
use crate::hash::{HashMap, HashSet};
use crate::scene::{NodeId, NodeType, Route, Scene};

/// Routes no track follows: events from sensors, scripts and chains, which
/// are not simulated. Each is named (nothing is lost in silence), with what
/// that leaves: a clip baked without them, or a field keeping its value.
pub(super) fn report_unbaked_routes(b: &mut Builder<'_>, clips: &[Clip]) {
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
        if b.used[ri] || b.opts.interactive && carried_by_graph(scene, r) {
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
pub(super) fn last_event_wins(
    diags: &mut Diagnostics,
    scene: &Scene,
    clip: &str,
    tracks: &mut Vec<Track>,
) {
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
pub(super) fn report_conflicts(diags: &mut Diagnostics, scene: &Scene, clips: &[Clip]) {
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

/// Whether `--interactive`'s behaviour graph takes a route (or names it
/// in a warning of its own): one from a sensor a person works, an event
/// utility or a clock's `isActive`.
fn carried_by_graph(scene: &Scene, r: &Route) -> bool {
    match scene.node_type(r.from) {
        Some(NodeType::TimeSensor) => r.from_field == "isActive",
        Some(ty) => is_user_sensor(ty) || is_event_utility(ty),
        None => false,
    }
}
