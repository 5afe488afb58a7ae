//! Clips and tracks from ROUTEs and Links: structure, exact keyframes
//! against direct evaluation, sampling, cycles, and world time.

use crate::util;

use x3dbake::internal::anim::build::clips;
use x3dbake::internal::anim::clip::{Clip, ClipOptions};
use x3dbake::internal::anim::keyframes::Interpolation;
use x3dbake::internal::diag::Diagnostics;
use x3dbake::internal::interp::rotation;
use x3dbake::internal::scene::Scene;

fn load(name: &str, opts: ClipOptions) -> (Scene, Vec<Clip>, Diagnostics) {
    let path = util::root().join("fixtures/scenes").join(name);
    let mut bake = util::load_text(name, &std::fs::read(path).unwrap());
    assert!(!bake.diags.has_errors(), "{:?}", bake.diags.list());
    let clips = clips(&bake.scene, opts, &mut bake.diags);
    (bake.scene, clips, bake.diags)
}

fn clip<'a>(clips: &'a [Clip], name: &str) -> &'a Clip {
    clips.iter().find(|c| c.name == name).unwrap()
}

/// (target.field, source, modifiers) of each track.
fn tracks(scene: &Scene, c: &Clip) -> Vec<String> {
    c.tracks
        .iter()
        .map(|t| {
            let mods: Vec<String> = t.modifiers.iter().map(|&m| scene.display_name(m)).collect();
            format!(
                "{}.{} <- {} [{}]",
                scene.display_name(t.target),
                t.field,
                scene.display_name(t.source),
                mods.join(",")
            )
        })
        .collect()
}

#[test]
fn routes_become_clips_per_clock_with_chains_fan_out_and_sharing() {
    let (scene, clips, diags) = load("routing.x3d", ClipOptions::default());
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["Slow", "Fast"],
        "the clock that drives nothing has no clip"
    );
    let slow = clip(&clips, "Slow");
    assert_eq!((slow.duration(), slow.looping()), (8.0, true));
    assert_eq!(
        tracks(&scene, slow),
        [
            "Mover.translation <- Path [Warp]",
            "Mat.ambientIntensity <- Slow []"
        ]
    );
    let fast = clip(&clips, "Fast");
    assert_eq!((fast.duration(), fast.looping()), (2.0, false));
    assert_eq!(
        tracks(&scene, fast),
        [
            "Mover.translation <- Path []",
            "Mat.transparency <- Glow []",
            "Mat.shininess <- Glow []"
        ]
    );
    let messages = util::messages(&diags);
    assert!(messages.iter().any(|m| m.contains("`Touch.touchTime` (TouchSensor) to `Fast.startTime` is not baked")));
    assert!(
        messages.iter().any(
            |m| m.contains("`Mover.translation` is animated by clip `Slow` and by clip `Fast`")
        )
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("routed into `Mat.ambientIntensity`, which is not a fraction"))
    );
    // The chain through a ScalarInterpolator is sampled; the straight ones are exact.
    assert!(slow.exact_keyframes(&slow.tracks[0]).is_none());
    // Mover is also reached through USE in Other: one node, one track.
    assert_eq!(
        scene
            .value(scene.def("Other").unwrap(), "children")
            .unwrap()
            .nodes()[0],
        scene.def("Mover").unwrap()
    );
}

#[test]
fn linear_keys_land_at_key_times_cycle_interval() {
    let (_, clips, _) = load("bouncing_box.x3d", ClipOptions::default());
    let c = clip(&clips, "Clock");
    let k = c.exact_keyframes(&c.tracks[0]).unwrap();
    assert_eq!(k.interpolation, Interpolation::Linear);
    assert_eq!(k.times, vec![0.0, 1.0, 2.0]);
    assert_eq!(
        *k.values.wide(),
        [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    );
    // The file's single-precision values, as they are: not copied to f64.
    assert!(matches!(
        k.values,
        x3dbake::internal::interp::Values::Narrow(_)
    ));
}

#[test]
fn spline_tangents_are_rescaled_to_seconds() {
    let (_, clips, _) = load("routing.x3d", ClipOptions::default());
    let fast = clip(&clips, "Fast");
    let k = fast.exact_keyframes(&fast.tracks[1]).unwrap();
    assert_eq!(k.interpolation, Interpolation::Cubic);
    assert_eq!(k.times, vec![0.0, 0.5, 2.0]);
    // Glow: keys 0 0.25 1, values 0 1 0.5; T_1 = (0.5 − 0)/2 = 0.25,
    // F+_1 = 2·0.25/1 = 0.5, F−_1 = 2·0.75/1 = 1.5. Arriving at key 1 the
    // segment [0, 0.25] has tangent F−·T = 0.375 per segment, i.e. 0.375 /
    // 0.25 per unit fraction, over a cycle of 2 s: 0.75 per second.
    assert!(
        (k.in_tangents[1] - 0.75).abs() < 1e-6,
        "{:?}",
        k.in_tangents
    );
    // Leaving key 1: F+·T = 0.125 per segment of 0.75: 0.125/0.75/2 per second.
    assert!(
        (k.out_tangents[1] - 0.125 / 0.75 / 2.0).abs() < 1e-6,
        "{:?}",
        k.out_tangents
    );
    assert_eq!((k.in_tangents[0], k.out_tangents[2]), (0.0, 0.0));
}

fn same(a: &[f64], b: &[f64], rotation_values: bool) -> bool {
    if rotation_values {
        return rotation::same_rotation(
            glam::DQuat::from_slice(a),
            glam::DQuat::from_slice(b),
            1e-9,
        );
    }
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + y.abs()))
}

#[test]
fn exact_keyframes_play_back_like_direct_evaluation() {
    for cycles in [1, 3] {
        for name in [
            "bouncing_box.x3d",
            "routing.x3d",
            "timer_link.x3d",
            "def_use_routes.x3d",
        ] {
            let (_, clips, _) = load(
                name,
                ClipOptions {
                    cycles,
                    ..Default::default()
                },
            );
            for c in &clips {
                for t in &c.tracks {
                    let (mut direct, mut played) = (Vec::new(), Vec::new());
                    let rot = t.sample_interpolation() == Interpolation::Slerp;
                    if let Some(k) = c.exact_keyframes(t) {
                        assert!(k.times.windows(2).all(|w| w[0] <= w[1]));
                        for i in 0..=997 {
                            // Avoid the exact instants of jumps between cycles.
                            let time = c.duration() * (i as f64 + 0.5) / 998.0;
                            c.eval(t, time, &mut direct);
                            k.eval(time, &mut played);
                            assert!(
                                same(&direct, &played, rot),
                                "{name} {} at {time}: {direct:?} vs {played:?}",
                                c.name
                            );
                        }
                    }
                    // Sampled keyframes hit the curve at their own times.
                    let s = c.sampled_keyframes(t, 30.0);
                    assert!(s.len() as f64 >= c.duration() * 30.0);
                    for i in 0..s.len() {
                        if i + 1 < s.len() && s.times[i + 1] == s.times[i] {
                            continue; // the left side of a jump
                        }
                        c.eval(t, s.times[i], &mut direct);
                        assert!(same(&direct, &s.value(i), rot), "{name} sample {i}");
                    }
                }
            }
        }
    }
}

#[test]
fn several_cycles_jump_back_at_each_boundary() {
    let (_, clips, _) = load(
        "routing.x3d",
        ClipOptions {
            cycles: 2,
            ..Default::default()
        },
    );
    let fast = clip(&clips, "Fast");
    assert_eq!(fast.duration(), 4.0);
    let k = fast.exact_keyframes(&fast.tracks[0]).unwrap();
    // Path: keys 0 0.5 1 → 0, 1, 2 s; then again from 2 s: a jump at 2 s.
    assert_eq!(k.times, vec![0.0, 1.0, 2.0, 2.0, 3.0, 4.0]);
    assert_eq!(*k.value(2), [1.0, 1.0, 0.0]);
    assert_eq!(*k.value(3), [0.0, 0.0, 0.0]);
}

#[test]
fn timers_and_links_two_timers_share_one_interpolator_one_drives_two() {
    let (scene, clips, diags) = load("timer_link.x3d", ClipOptions::default());
    assert!(diags.list().is_empty(), "{:?}", diags.list());
    let slow = clip(&clips, "timer_slow");
    let fast = clip(&clips, "timer_fast");
    assert_eq!(tracks(&scene, slow), ["Pendulum1.rotation <- swing []"]);
    assert_eq!(
        tracks(&scene, fast),
        [
            "Pendulum2.rotation <- swing []",
            "Pendulum2.translation <- lift []"
        ]
    );
    assert_eq!((slow.duration(), fast.duration()), (4.0, 1.0));
    // timer_fast has shift 0.25: at clip time 0 the fraction is 0.75.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    fast.eval(&fast.tracks[0], 0.0, &mut a);
    fast.tracks[0].eval_fraction(0.75, &mut b);
    assert_eq!(a, b);
    // lift is smooth and its timer periodic with equal ends: a closed
    // spline, so its velocity is continuous across the seam at fraction 0.
    let k = fast.exact_keyframes(&fast.tracks[1]).unwrap();
    assert_eq!(k.interpolation, Interpolation::Cubic);
    let seam = k
        .times
        .iter()
        .position(|&t| (t - 0.25).abs() < 1e-12)
        .unwrap();
    assert!((k.in_tangents[seam * 3 + 1] - k.out_tangents[(seam + 1) * 3 + 1]).abs() < 1e-9);
    assert!(k.out_tangents[(seam + 1) * 3 + 1].abs() < 1e-9, "{k:?}");
    // In world time the timer runs from the beginning.
    fast.world_eval(&fast.tracks[0], 1.75, &mut a);
    fast.tracks[0].eval_fraction(0.5, &mut b);
    assert_eq!(a, b);
}

#[test]
fn world_time_follows_start_and_loop() {
    let (_, clips, _) = load("routing.x3d", ClipOptions::default());
    let fast = clip(&clips, "Fast");
    let t = &fast.tracks[0];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(fast.world_eval(t, 1.0, &mut a), Some(1.0));
    t.eval_fraction(0.5, &mut b);
    assert_eq!(a, b);
    // Not looping: after one cycle the fraction stays at 1.
    fast.world_eval(t, 100.0, &mut a);
    t.eval_fraction(1.0, &mut b);
    assert_eq!(a, b);
    assert_eq!(
        fast.world_eval(t, -1.0, &mut a),
        None,
        "before startTime nothing is sent"
    );
}

/// The scene's keyValues freed once the clips are made: the fields are
/// empty, and the glTF (morph targets, position, rotation and colour keys)
/// is the same bytes.
#[test]
fn freeing_the_key_values_changes_no_output() {
    for name in ["morph.x3d", "bouncing_box.x3d", "chain.x3d"] {
        let path = util::root().join("fixtures/scenes").join(name);
        let mut bake = util::load_text(name, &std::fs::read(path).unwrap());
        bake.animate(ClipOptions::default());
        let before = bake.gltf(&Default::default(), None).unwrap();
        let key_values = |bake: &x3dbake::Bake| -> usize {
            (0..bake.scene.nodes.len() as u32)
                .map(x3dbake::internal::scene::NodeId)
                .filter(|&id| bake.scene.node(id).type_name.ends_with("Interpolator"))
                .filter_map(|id| bake.scene.value(id, "keyValue"))
                .map(|v| v.scalar_len())
                .sum()
        };
        assert!(key_values(&bake) > 0, "{name}");
        let (report, json) = (bake.report(), bake.report_json());
        assert_eq!(bake.ready(&[], None).unwrap(), None);
        assert_eq!(key_values(&bake), 0, "{name}: freed");
        let after = bake.gltf(&Default::default(), None).unwrap();
        assert!(before.json() == after.json(), "{name}: JSON");
        assert!(
            before.buffer().unwrap() == after.buffer().unwrap(),
            "{name}: buffer"
        );
        // The reports do not read them either: the same before and after.
        assert_eq!((bake.report(), bake.report_json()), (report, json));
        // Animating again would read them: refused, said.
        assert!(!bake.diags.has_errors());
        bake.animate(ClipOptions::default());
        assert!(bake.diags.has_errors(), "{name}: animated again");
    }
}

/// A TimeSensor with enabled FALSE that no ROUTE enables never runs in a
/// browser: no clip is written for it, and a warning says so; one that a
/// ROUTE may enable keeps its clip.
#[test]
fn a_clock_disabled_for_good_writes_no_clip() {
    let (_dir, f) = util::scene_file(
        "d.x3d",
        "<X3D><Scene><Transform DEF='T'/><Transform DEF='U'/>\
         <TimeSensor DEF='Off' enabled='false' loop='true'/>\
         <TimeSensor DEF='Later' enabled='false' loop='true'/><BooleanToggle DEF='B'/>\
         <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 0 0'/>\
         <PositionInterpolator DEF='Q' key='0 1' keyValue='0 0 0 1 0 0'/>\
         <ROUTE fromNode='Off' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/>\
         <ROUTE fromNode='Later' fromField='fraction_changed' toNode='Q' toField='set_fraction'/>\
         <ROUTE fromNode='Q' fromField='value_changed' toNode='U' toField='translation'/>\
         <ROUTE fromNode='B' fromField='toggle_changed' toNode='Later' toField='set_enabled'/>\
         </Scene></X3D>",
    );
    let o = util::run(&["inspect", "--json", &f]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let clips: Vec<&str> = doc["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(clips, ["Later"]);
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["message"]
                == "TimeSensor `Off` has enabled FALSE and no ROUTE enables it: it never runs, so \
                no clip is written for it"),
        "{doc}"
    );
}
