//! `--report FILE.html`: one self-contained page showing, per clip and
//! track, the true curve, the keys written and the error a glTF player
//! shows between them against the bound, with key counts and the run's
//! warnings. Plain SVG on a time axis in seconds, a legend per component,
//! no script.

use crate::anim::clip::{Clip, Track};
use crate::anim::fit::default_tolerance;
use crate::anim::keyframes::{Interpolation, Keyframes};
use crate::anim::reduce::distance;
use crate::math;
use crate::scene::{FieldType, Scene};
use std::fmt::Write as _;

/// Points a curve is drawn with.
const SAMPLES: usize = 400;
/// Components drawn of a value (the first ones of a wide value).
const MAX_COMPONENTS: usize = 8;
const WIDTH: f64 = 720.0;
const VALUE_HEIGHT: f64 = 164.0;
const ERROR_HEIGHT: f64 = 84.0;
/// The height of the time axis' labels under each plot.
const AXIS: f64 = 14.0;
const COLOURS: [&str; MAX_COMPONENTS] = [
    "#d62728", "#2ca02c", "#1f77b4", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

/// What the page shows.
pub struct Report<'a> {
    /// The input's name.
    pub title: &'a str,
    /// The scene and its clips.
    pub scene: &'a Scene,
    /// The clips baked.
    pub clips: &'a [Clip],
    /// The keyframes written, by (clip, track) index.
    pub written: &'a [(usize, usize, Keyframes<'static>)],
    /// --tolerance, when given.
    pub tolerance: Option<f64>,
    /// The warnings as the terminal shows them.
    pub messages: &'a str,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page.
pub fn html(r: &Report) -> String {
    let mut out = String::new();
    let tracks: usize = r.clips.iter().map(|c| c.tracks.len()).sum();
    let keys: usize = r.written.iter().map(|(_, _, k)| k.len()).sum();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>x3dbake report: {title}</title><style>\
         body{{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:{w}px}}\
         h1{{font-size:20px}}h2{{font-size:17px;margin-top:2em}}h3{{font-size:14px;margin:1.5em 0 .3em}}\
         pre{{background:#f6f6f6;padding:.6em;font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere}}\
         .legend{{margin:.2em 0;font-size:12px}}.legend span{{margin-right:1.2em;white-space:nowrap}}\
         svg{{display:block;background:#fcfcfc;border:1px solid #ddd}}\
         .note{{color:#666}}.over{{color:#b00}}</style></head><body>\n\
         <h1>x3dbake report: {title}</h1>\n<p>clips: {clips}, tracks: {tracks}, keys written: {keys}.</p>\n",
        title = escape(r.title),
        w = WIDTH + 40.0,
        clips = r.clips.len(),
    );
    if r.messages.is_empty() {
        out.push_str("<p>No warnings.</p>\n");
    } else {
        let _ = write!(
            out,
            "<h2>Warnings</h2>\n<pre>{}</pre>\n",
            escape(r.messages)
        );
    }
    for (ci, clip) in r.clips.iter().enumerate() {
        let _ = writeln!(
            out,
            "<h2>Clip {} ({} s{})</h2>",
            escape(&clip.name),
            clip.duration(),
            if clip.looping() { ", loops" } else { "" }
        );
        for (ti, track) in clip.tracks.iter().enumerate() {
            let written = r
                .written
                .iter()
                .find(|(c, t, _)| *c == ci && *t == ti)
                .map(|(_, _, k)| k);
            track_section(&mut out, r, clip, track, written);
        }
    }
    out.push_str("</body></html>\n");
    out
}

fn interpolation_name(k: &Keyframes) -> &'static str {
    match k.interpolation {
        Interpolation::Linear => "LINEAR",
        Interpolation::Slerp => "LINEAR (slerp)",
        Interpolation::Step => "STEP",
        Interpolation::Cubic => "CUBICSPLINE",
    }
}

fn track_section(out: &mut String, r: &Report, clip: &Clip, track: &Track, k: Option<&Keyframes>) {
    let scene = r.scene;
    let form = if !track.interpolator().produces() {
        "sends nothing".to_string()
    } else if track.exact().is_some() {
        "exact".to_string()
    } else {
        format!(
            "fitted ({})",
            track.sampled_because(scene).unwrap_or_default()
        )
    };
    // Keys whose values are the track's own (a morph target's weights
    // channel holds times only: its values are the targets').
    let plotted = k.filter(|k| k.values.len() == k.len() * k.width);
    let written = match k {
        Some(k) => format!("{} keys, {}", k.len(), interpolation_name(k)),
        None => "no channel of its own: written with another field of its node, or named in \
                 the warnings"
            .to_string(),
    };
    let _ = writeln!(
        out,
        "<h3>{}.{} ← {}: {form}; {written}</h3>",
        escape(&scene.display_name(track.target)),
        escape(&track.field),
        escape(&scene.display_name(track.source)),
    );
    let duration = clip.duration().max(1e-9);
    let times: Vec<f64> = (0..=SAMPLES)
        .map(|i| duration * i as f64 / SAMPLES as f64)
        .collect();
    let mut truth: Vec<Vec<f64>> = Vec::with_capacity(times.len());
    let mut v = Vec::new();
    for &t in &times {
        clip.eval(track, t, &mut v);
        truth.push(v.clone());
    }
    let width = truth.first().map_or(0, Vec::len);
    let shown = width.min(MAX_COMPONENTS);
    if shown == 0 {
        return;
    }
    // The value panel: each component's true curve, and the keys.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for row in &truth {
        for &x in &row[..shown] {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if !(hi - lo).is_finite() || hi - lo < 1e-12 {
        (lo, hi) = (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |t: f64| 30.0 + (WIDTH - 40.0) * t / duration;
    let plot = VALUE_HEIGHT - AXIS;
    let y = |v: f64| plot - 10.0 - (plot - 20.0) * (v - lo) / (hi - lo);
    let names = component_names(track, width);
    let legend: String = names[..shown]
        .iter()
        .zip(COLOURS)
        .map(|(n, c)| format!("<span style=\"color:{c}\">━ {}</span>", escape(n)))
        .collect();
    let keys_legend = if k.is_some() {
        "<span>● keys written</span>"
    } else {
        ""
    };
    let _ = write!(
        out,
        "<p class=\"legend\">{legend}<span>true curve</span>{keys_legend}</p>\
         <svg class=\"track\" width=\"{WIDTH}\" height=\"{VALUE_HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {VALUE_HEIGHT}\" role=\"img\">{axis}\
         <text x=\"2\" y=\"12\" font-size=\"10\">{hi:.3}</text>\
         <text x=\"2\" y=\"{}\" font-size=\"10\">{lo:.3}</text>",
        plot - 2.0,
        axis = time_axis(duration, plot, &x),
    );
    for c in 0..shown {
        let points: Vec<String> = times
            .iter()
            .zip(&truth)
            .map(|(&t, row)| format!("{:.1},{:.1}", x(t), y(row[c])))
            .collect();
        let _ = write!(
            out,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"{}\"/>",
            COLOURS[c],
            points.join(" ")
        );
        if let Some(k) = plotted.filter(|k| c < k.width) {
            for i in 0..k.len() {
                let _ = write!(
                    out,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.2\" fill=\"{}\"/>",
                    x(k.times[i]),
                    y(k.value(i)[c]),
                    COLOURS[c]
                );
            }
        }
    }
    out.push_str("</svg>\n");
    let Some(k) = plotted else {
        return;
    };
    // The error panel: the written curve, as a glTF player plays it, its
    // distance from the true one, against the bound.
    let rotation = track.is_rotation();
    let per = track.per_element();
    let bound = r.tolerance.unwrap_or_else(|| default_tolerance(track));
    let mut played = Vec::new();
    let errors: Vec<f64> = times
        .iter()
        .zip(&truth)
        .map(|(&t, want)| {
            k.play(t, rotation, &mut played);
            played.truncate(want.len());
            if played.len() == want.len() {
                distance(&played, want, rotation, per)
            } else {
                0.0
            }
        })
        .collect();
    let worst = errors.iter().copied().fold(0.0, f64::max);
    let top = worst.max(bound) * 1.15;
    let plot = ERROR_HEIGHT - AXIS;
    let ey = |e: f64| plot - 4.0 - (plot - 14.0) * e / top;
    let points: Vec<String> = times
        .iter()
        .zip(&errors)
        .map(|(&t, &e)| format!("{:.1},{:.1}", x(t), ey(e)))
        .collect();
    let unit = if rotation { " (rad)" } else { "" };
    let _ = writeln!(
        out,
        "<p class=\"legend\"><span>━ error{unit} of the keys as a glTF player plays them</span>\
         <span style=\"color:#b00\">╌ bound</span></p>\
         <svg class=\"error\" width=\"{WIDTH}\" height=\"{ERROR_HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {ERROR_HEIGHT}\" role=\"img\">{axis}\
         <line x1=\"30\" x2=\"{}\" y1=\"{b:.1}\" y2=\"{b:.1}\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{}\" y=\"{:.1}\" font-size=\"10\" fill=\"#b00\" text-anchor=\"end\">bound {bound:.1e}</text>\
         <polyline fill=\"none\" stroke=\"#444\" stroke-width=\"1\" points=\"{}\"/></svg>",
        WIDTH - 10.0,
        WIDTH - 12.0,
        ey(bound) - 3.0,
        points.join(" "),
        b = ey(bound),
        axis = time_axis(duration, plot, &x),
    );
    let class = if worst > bound { "over" } else { "note" };
    let more = if width > shown {
        format!("; the first {shown} of {width} components drawn")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "<p class=\"{class}\">largest error at {SAMPLES} times: {worst:.2e} \
         (bound {bound:.1e}{}){more}</p>",
        if rotation { " rad" } else { "" }
    );
}

/// The names of a track's value components for the legend: x y z (w) of
/// vectors and quaternions, r g b (a) of colours, `value` of a number,
/// each with its element's index for a multiple value (`[2].y`).
fn component_names(track: &Track, width: usize) -> Vec<String> {
    let per = track.per_element().max(1);
    let single = track.ty.map(FieldType::single);
    let names: &[&str] = match (single, per) {
        _ if track.is_rotation() => &["x", "y", "z", "w"],
        (Some(FieldType::SFColor), _) => &["r", "g", "b"],
        (Some(FieldType::SFColorRGBA), _) => &["r", "g", "b", "a"],
        (_, 1) => &["value"],
        _ => &["x", "y", "z", "w"],
    };
    let per = if track.is_rotation() { 4 } else { per };
    (0..width)
        .map(|c| {
            let name = names
                .get(c % per)
                .map_or_else(|| (c % per).to_string(), |n| n.to_string());
            if width > per {
                format!("[{}].{name}", c / per)
            } else {
                name
            }
        })
        .collect()
}

/// Ticks and labels of a time axis in seconds under a plot of height
/// `plot`: the smallest step of 1, 2 or 5 × 10ⁿ s that takes at most ten
/// steps to the end, each tick a light line across the plot.
fn time_axis(duration: f64, plot: f64, x: &dyn Fn(f64) -> f64) -> String {
    let raw = duration / 8.0;
    let power = math::powf(10f64, math::log10(raw).floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| duration / s <= 10.0)
        .unwrap_or(10.0 * power);
    let mut out = String::new();
    let mut i = 0u32;
    loop {
        let t = f64::from(i) * step;
        if t > duration * (1.0 + 1e-9) {
            break;
        }
        // As many decimals as the step has.
        let decimals = (-math::log10(step).floor()).max(0.0) as usize;
        let label = format!("{t:.decimals$}");
        let _ = write!(
            out,
            "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"0\" y2=\"{plot}\" stroke=\"#eee\"/>\
             <text x=\"{px:.1}\" y=\"{ly}\" font-size=\"10\" text-anchor=\"middle\" \
             fill=\"#555\">{label} s</text>",
            px = x(t),
            ly = plot + 11.0,
        );
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::time_axis;

    #[test]
    fn the_time_axis_takes_at_most_ten_round_steps_in_seconds() {
        for (duration, want) in [
            (
                2.0,
                "0.0 s|0.2 s|0.4 s|0.6 s|0.8 s|1.0 s|1.2 s|1.4 s|1.6 s|1.8 s|2.0 s",
            ),
            (10.0, "0 s|1 s|2 s|3 s|4 s|5 s|6 s|7 s|8 s|9 s|10 s"),
            (12.0, "0 s|2 s|4 s|6 s|8 s|10 s|12 s"),
            (0.75, "0.0 s|0.1 s|0.2 s|0.3 s|0.4 s|0.5 s|0.6 s|0.7 s"),
            (37.0, "0 s|5 s|10 s|15 s|20 s|25 s|30 s|35 s"),
        ] {
            let svg = time_axis(duration, 100.0, &|t| t);
            let labels: Vec<&str> = svg
                .split("fill=\"#555\">")
                .skip(1)
                .map(|s| &s[..s.find('<').unwrap()])
                .collect();
            assert_eq!(labels.join("|"), want, "{duration}");
        }
    }
}
