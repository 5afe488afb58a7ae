//! `x3dbake inspect`: a plain-text account of what a scene animates.

use crate::anim::check::{Forms, ids, is_clock, is_interpolator};
use crate::anim::clip::{Clip, Track};
use crate::anim::fit::default_tolerance;
use crate::anim::keyframes::{Interpolation, Keyframes, exact_len_bound, interpolation_of};
use crate::anim::keys::{KeyOptions, exact_keys};
use crate::anim::nlerp;
use crate::interp::Exact;
use crate::limits::Limits;
use crate::scene::{NodeClass, NodeId, Scene};
use crate::write::gltf::{TrackFates, channel};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::fmt::Write as _;

/// What the report is made from: the scene and its clips, the
/// interpolators' forms, and once a glTF document was made, the tracks that
/// reached no channel in it.
#[derive(Clone, Copy)]
pub struct Inspected<'a> {
    /// The scene, loaded and checked.
    pub scene: &'a Scene,
    /// Its clips.
    pub clips: &'a [Clip],
    /// How each interpolator is written.
    pub forms: &'a Forms,
    /// The limits the bake keeps.
    pub limits: &'a Limits,
    /// How a glTF document made wrote the tracks, where it is not their
    /// kind's way.
    pub tracks: Option<&'a TrackFates>,
}

impl Inspected<'_> {
    /// Where a track goes in glTF, in words: where its target's kind goes,
    /// none when the glTF document made left it out, and how many
    /// triangulations a reshaped geometry switches between.
    fn gltf(&self, ci: usize, ti: usize) -> Cow<'static, str> {
        let t = &self.clips[ci].tracks[ti];
        let fates = self.tracks;
        let switched = fates
            .and_then(|f| f.switched.iter().find(|(at, _)| *at == (ci, ti)))
            .map(|(_, n)| *n);
        match (gltf_target(self.scene, t), switched) {
            (g, _) if g.starts_with("none") => g.into(),
            _ if fates.is_some_and(|f| f.dropped.contains(&(ci, ti))) => {
                "none (not written: see its warning)".into()
            }
            (g, Some(n)) => {
                format!("{g}, {n} triangulations shown in turn (KHR_node_visibility)").into()
            }
            (g, None) => g.into(),
        }
    }
}

/// The report, one section a kind of thing.
pub fn report(i: &Inspected) -> String {
    let (scene, clips, forms, limits) = (i.scene, i.clips, i.forms, i.limits);
    let mut out = String::new();
    let label = |id: NodeId| scene.display_name(id);
    let clocks: Vec<NodeId> = live(scene, is_clock).collect();
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

    let interps: Vec<NodeId> = live(scene, is_interpolator).collect();
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
    clips_section(&mut out, i, limits.animation_values);
    out
}

/// The nodes of the scene itself (known types, not prototype templates)
/// whose type `kind` accepts.
fn live(scene: &Scene, kind: fn(&str) -> bool) -> impl Iterator<Item = NodeId> + '_ {
    ids(scene).filter(move |&id| {
        let n = scene.node(id);
        matches!(n.class, NodeClass::Known(_)) && n.in_proto.is_none() && kind(&n.type_name)
    })
}

fn clips_section(out: &mut String, i: &Inspected, max_values: usize) {
    let (scene, clips) = (i.scene, i.clips);
    let _ = writeln!(out, "clips: {}", clips.len());
    for (ci, clip) in clips.iter().enumerate() {
        let clock = &scene.node(clip.clock_node).type_name;
        let _ = writeln!(
            out,
            "  {} ({clock}) duration {}s loop {}, {} tracks",
            clip.name,
            clip.duration(),
            clip.looping(),
            clip.tracks.len()
        );
        for (ti, t) in clip.tracks.iter().enumerate() {
            let via: String = t
                .modifiers
                .iter()
                .map(|&m| format!(" via {}", scene.display_name(m)))
                .collect();
            let form = TrackForm::of(t, clip, scene, max_values).to_string();
            let gltf = i.gltf(ci, ti);
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

/// Where a track goes in glTF, in words.
fn gltf_target(scene: &Scene, t: &Track) -> &'static str {
    match channel(scene.node_type(t.target), &t.field) {
        _ if !t.interpolator().produces() => "none (the target keeps its value)",
        Some(c) => c.describe(),
        None => "none (CSV only)",
    }
}

/// How a default bake writes a track.
enum TrackForm {
    /// The interpolator has no keys.
    Silent,
    /// Exact keys: their interpolation and count (`up_to` when only a
    /// bound is known).
    Exact {
        interpolation: &'static str,
        keyframes: usize,
        up_to: bool,
    },
    /// Fitted within a bound, and why it is not exact.
    Fitted {
        bound: f64,
        rotation: bool,
        why: String,
    },
    /// Sampled at --rate.
    Sampled,
}

impl TrackForm {
    fn of(t: &Track, clip: &Clip, scene: &Scene, max_values: usize) -> TrackForm {
        // What a default bake writes: a spline and a field of view have
        // exact descriptions but are fitted (see `keys::exact_keys`).
        let written = exact_keys(&KeyOptions::default(), t);
        let fitted_because = match t.exact() {
            Some(_) if written.is_some() => None,
            Some(Exact::Hermite { .. }) => {
                Some("a spline in LINEAR keys; exact with --interpolation cubic".to_string())
            }
            Some(_) => Some("a field of view, keyed by Blender as a lens length".to_string()),
            None => t.sampled_because(scene),
        };
        match (written, fitted_because) {
            _ if !t.interpolator().produces() => TrackForm::Silent,
            (Some(e), _) => {
                let interpolation = match interpolation_of(&e) {
                    Interpolation::Linear => "linear",
                    Interpolation::Slerp => "slerp",
                    Interpolation::Step => "step",
                    Interpolation::Cubic => "cubic",
                };
                // Counted by making them, within the glTF writer's limit
                // (many --cycles of a large interpolator are more than
                // memory holds).
                let bound = exact_len_bound(&e, &clip.map);
                let up_to = bound.saturating_mul(e.width()) > max_values;
                let keyframes = if up_to {
                    bound
                } else {
                    // (Slerp keys cut for nlerp players, as written.)
                    let k = Keyframes::exact(e, &clip.map);
                    nlerp::split_len(&k, || default_tolerance(t))
                };
                TrackForm::Exact {
                    interpolation,
                    keyframes,
                    up_to,
                }
            }
            (None, Some(why)) => TrackForm::Fitted {
                bound: default_tolerance(t),
                rotation: t.is_rotation(),
                why,
            },
            (None, None) => TrackForm::Sampled,
        }
    }

    fn json(&self) -> Value {
        match self {
            TrackForm::Silent => json!({"form": "silent"}),
            TrackForm::Exact {
                interpolation,
                keyframes,
                up_to,
            } => json!({
                "form": "exact",
                "interpolation": interpolation,
                "keyframes": keyframes,
                "keyframesAtMost": up_to,
            }),
            TrackForm::Fitted {
                bound,
                rotation,
                why,
            } => json!({
                "form": "fitted",
                "bound": bound,
                "boundUnit": if *rotation { "rad" } else { "value" },
                "why": why,
            }),
            TrackForm::Sampled => json!({"form": "sampled"}),
        }
    }
}

impl std::fmt::Display for TrackForm {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TrackForm::Silent => write!(f, "no keys: sends nothing"),
            TrackForm::Exact {
                interpolation,
                keyframes,
                up_to: false,
            } => write!(f, "exact {interpolation}, {keyframes} keyframes"),
            TrackForm::Exact {
                interpolation,
                keyframes,
                up_to: true,
            } => write!(f, "exact {interpolation}, up to {keyframes} keyframes"),
            TrackForm::Fitted {
                bound,
                rotation,
                why,
            } => {
                let unit = if *rotation { " rad" } else { "" };
                write!(f, "fitted within {bound:.1e}{unit} ({why})")
            }
            TrackForm::Sampled => write!(f, "sampled"),
        }
    }
}

/// The report as JSON, for scripts (the schema is in docs/inspect-json.md):
/// clocks, interpolators, routes, and clips with their tracks.
pub fn report_json(i: &Inspected) -> Value {
    let (scene, clips, forms, limits) = (i.scene, i.clips, i.forms, i.limits);
    let label = |id: NodeId| scene.display_name(id);
    let clocks: Vec<Value> = live(scene, is_clock)
        .map(|id| {
            let ty = &scene.node(id).type_name;
            let mut c = json!({"name": label(id), "type": ty});
            if ty == "Timer" {
                c["period"] = json!(scene.number(id, "period"));
                c["shift"] = json!(scene.number(id, "shift"));
            } else {
                c["cycleInterval"] = json!(scene.number(id, "cycleInterval"));
                c["loop"] = json!(scene.flag(id, "loop"));
            }
            c
        })
        .collect();
    let interpolators: Vec<Value> = live(scene, is_interpolator)
        .map(|id| {
            json!({
                "name": label(id),
                "type": scene.node(id).type_name,
                "keys": scene.value(id, "key").map(|v| v.len()).unwrap_or(0),
                "form": forms.get(&id).copied().unwrap_or(""),
            })
        })
        .collect();
    let routes: Vec<Value> = scene
        .routes
        .iter()
        .map(|r| {
            json!({
                "from": label(r.from), "fromField": r.from_field,
                "to": label(r.to), "toField": r.to_field,
                "type": r.ty.map(|t| t.to_string()),
            })
        })
        .collect();
    let clips: Vec<Value> = clips
        .iter()
        .enumerate()
        .map(|(ci, clip)| {
            let tracks: Vec<Value> = clip
                .tracks
                .iter()
                .enumerate()
                .map(|(ti, t)| {
                    let mut v = TrackForm::of(t, clip, scene, limits.animation_values).json();
                    v["target"] = json!(label(t.target));
                    v["field"] = json!(t.field);
                    v["source"] = json!(label(t.source));
                    v["via"] = json!(t.modifiers.iter().map(|&m| label(m)).collect::<Vec<_>>());
                    v["gltf"] = json!(i.gltf(ci, ti));
                    v
                })
                .collect();
            json!({
                "name": clip.name,
                "clock": label(clip.clock_node),
                "duration": clip.duration(),
                "loop": clip.looping(),
                "tracks": tracks,
            })
        })
        .collect();
    json!({
        "clocks": clocks,
        "interpolators": interpolators,
        "routes": routes,
        "clips": clips,
    })
}
