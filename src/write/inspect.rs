//! `x3dbake inspect`: a plain-text account of what a scene animates.

use crate::anim::check::{Forms, ids, is_clock, is_interpolator};
use crate::anim::clip::Clip;
use crate::anim::keyframes::{Interpolation, Keyframes, exact_len_bound, interpolation_of};
use crate::limits::Limits;
use crate::scene::{NodeClass, NodeId, Scene};
use crate::write::gltf::channel;
use std::fmt::Write as _;

/// The report, one section a kind of thing.
pub fn report(scene: &Scene, clips: &[Clip], forms: &Forms, limits: &Limits) -> String {
    let mut out = String::new();
    let label = |id: NodeId| scene.display_name(id);
    let known = |id: NodeId| matches!(scene.node(id).class, NodeClass::Known(_));

    let live = |id: NodeId| known(id) && scene.node(id).in_proto.is_none();
    let clocks: Vec<NodeId> = ids(scene)
        .filter(|&id| live(id) && is_clock(&scene.node(id).type_name))
        .collect();
    let _ = writeln!(out, "clocks: {}", clocks.len());
    for id in clocks {
        let n = scene.node(id);
        let num = |f: &str| scene.number(id, f);
        if n.type_name == "Timer" {
            let _ = writeln!(
                out,
                "  Timer {} period {} shift {}",
                label(id),
                num("period"),
                num("shift")
            );
        } else {
            let looping = scene.flag(id, "loop");
            let _ = writeln!(
                out,
                "  TimeSensor {} cycleInterval {}s loop {looping}",
                label(id),
                num("cycleInterval")
            );
        }
    }

    let interps: Vec<NodeId> = ids(scene)
        .filter(|&id| live(id) && is_interpolator(&scene.node(id).type_name))
        .collect();
    let _ = writeln!(out, "interpolators: {}", interps.len());
    for id in interps {
        let keys = scene.value(id, "key").map(|v| v.len()).unwrap_or(0);
        let ty = &scene.node(id).type_name;
        let _ = writeln!(
            out,
            "  {ty} {} keys {keys} ({})",
            label(id),
            forms.get(&id).copied().unwrap_or("")
        );
    }

    let _ = writeln!(out, "routes: {}", scene.routes.len());
    for r in &scene.routes {
        let ty = r.ty.map(|t| format!(" ({t})")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {}.{} -> {}.{}{ty}",
            label(r.from),
            r.from_field,
            label(r.to),
            r.to_field
        );
    }

    let mut targets: Vec<(String, String)> = clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| (label(t.target), t.field.clone()))
        .collect();
    targets.sort();
    targets.dedup();
    let _ = writeln!(out, "animated targets: {}", targets.len());
    for (node, field) in targets {
        let _ = writeln!(out, "  {node}.{field}");
    }
    clips_section(&mut out, scene, clips, limits.animation_values);
    out
}

fn clips_section(out: &mut String, scene: &Scene, clips: &[Clip], max_values: usize) {
    let _ = writeln!(out, "clips: {}", clips.len());
    for clip in clips {
        let clock = &scene.node(clip.clock_node).type_name;
        let _ = writeln!(
            out,
            "  {} ({clock}) duration {}s loop {}, {} tracks",
            clip.name,
            clip.duration(),
            clip.looping(),
            clip.tracks.len()
        );
        for t in &clip.tracks {
            let via: String = t
                .modifiers
                .iter()
                .map(|&m| format!(" via {}", scene.display_name(m)))
                .collect();
            let form = match (t.exact(), t.sampled_because(scene)) {
                _ if !t.interpolator().produces() => "no keys: sends nothing".to_string(),
                (Some(e), _) => {
                    let kind = match interpolation_of(&e) {
                        Interpolation::Linear => "linear",
                        Interpolation::Slerp => "slerp",
                        Interpolation::Step => "step",
                        Interpolation::Cubic => "cubic",
                    };
                    // Counted by making them, within the glTF writer's
                    // limit (many --cycles of a large interpolator are
                    // more than memory holds).
                    let bound = exact_len_bound(&e, &clip.map);
                    if bound.saturating_mul(e.width()) <= max_values {
                        let n = Keyframes::exact(e, &clip.map).len();
                        format!("exact {kind}, {n} keyframes")
                    } else {
                        format!("exact {kind}, up to {bound} keyframes")
                    }
                }
                (None, Some(why)) => {
                    let tol = crate::anim::fit::default_tolerance(t);
                    let unit = if t.is_rotation() { " rad" } else { "" };
                    format!("fitted within {tol:.1e}{unit} ({why})")
                }
                (None, None) => "sampled".to_string(),
            };
            let gltf = match channel(scene.node_type(t.target), &t.field) {
                _ if !t.interpolator().produces() => "none (the target keeps its value)",
                Some(c) => c.describe(),
                None => "none (CSV only)",
            };
            let _ = writeln!(
                out,
                "    {}.{} <- {}{via}: {form}; glTF: {gltf}",
                scene.display_name(t.target),
                t.field,
                scene.display_name(t.source)
            );
        }
    }
}
