//! Colour interpolation in HSV along the shorter way round the hue circle.

use std::f64::consts::{PI, TAU};

/// RGB to HSV with hue in radians [0, 2π); grey and black have s = 0, h = 0.
pub fn rgb_to_hsv(c: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = c;
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let delta = max - min;
    if max == 0.0 || delta == 0.0 {
        return [0.0, 0.0, max];
    }
    let mut h = if r == max {
        (g - b) / delta
    } else if g == max {
        2.0 + (b - r) / delta
    } else {
        4.0 + (r - g) / delta
    } * (PI / 3.0);
    if h < 0.0 {
        h += TAU;
    }
    [h, delta / max, max]
}

/// HSV (hue in radians, any value) to RGB, each clamped to [0, 1].
pub fn hsv_to_rgb(c: [f64; 3]) -> [f64; 3] {
    let (h, s, v) = (c[0], c[1].max(0.0), c[2].max(0.0));
    let rgb = if s == 0.0 {
        [v, v, v]
    } else {
        let (i, f) = sixth(h);
        let p = v * (1.0 - s);
        let q = v * (1.0 - s * f);
        let t = v * (1.0 - s * (1.0 - f));
        match i as i64 % 6 {
            0 => [v, t, p],
            1 => [q, v, p],
            2 => [p, v, t],
            3 => [p, q, v],
            4 => [t, p, v],
            _ => [v, p, q],
        }
    };
    rgb.map(|x| x.clamp(0.0, 1.0))
}

/// Which sixth of the circle hue `h` (radians, any value) is in (0 to 5;
/// NaN for NaN), and how far into it (0 to 1): the floor of
/// `h.rem_euclid(2π)` in sixths, and what is left. (Truncation is the
/// floor of a number not below 0, without a call into libm; −0 and NaN
/// take `floor`.)
fn sixth(h: f64) -> (f64, f64) {
    let w = turn(h).to_degrees() / 60.0;
    let i = match w >= 0.0 && w.is_sign_positive() {
        true => w as i64 as f64,
        false => w.floor(),
    };
    (i, w - i)
}

/// `h.rem_euclid(2π)`, the same bits, without a call into libm for the
/// hues an interpolation between two ends gives (within a turn either
/// side of [0, 2π): there the remainder is one subtraction or addition,
/// exact where `fmod` is, and rounded as `rem_euclid` rounds it).
fn turn(h: f64) -> f64 {
    if (0.0..TAU).contains(&h) {
        h
    } else if (TAU..2.0 * TAU).contains(&h) {
        h - TAU
    } else if h > -TAU && h < 0.0 {
        // (At −2π itself the remainder is −0.)
        h + TAU
    } else {
        h.rem_euclid(TAU)
    }
}

/// The HSV ends of an interpolation from `a` to `b`, between which hue,
/// saturation and value each go linearly: the hue the shorter way round
/// (the second end's hue moved by a turn where that is shorter, so past 2π
/// or below 0); an end without saturation (grey, black) takes the other
/// end's hue.
pub fn hsv_ends(a: [f64; 3], b: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let [mut ha, sa, va] = rgb_to_hsv(a);
    let [mut hb, sb, vb] = rgb_to_hsv(b);
    if sa == 0.0 {
        ha = hb;
    }
    if sb == 0.0 {
        hb = ha;
    }
    if hb - ha > PI {
        hb -= TAU;
    } else if ha - hb > PI {
        hb += TAU;
    }
    ([ha, sa, va], [hb, sb, vb])
}

/// The colour at `t` of an interpolation between HSV ends `p` and `q` (see
/// `hsv_ends`, made once for a segment evaluated many times).
pub fn lerp_ends(p: [f64; 3], q: [f64; 3], t: f64) -> [f64; 3] {
    hsv_to_rgb([0, 1, 2].map(|i| p[i] + t * (q[i] - p[i])))
}

/// Where, strictly between 0 and 1, the interpolation between HSV ends `p`
/// and `q` (see `hsv_ends`) crosses from one sixth of the hue circle to
/// the next: there the RGB curve turns (each sixth has its own formula),
/// increasing.
pub fn hue_corners(p: [f64; 3], q: [f64; 3]) -> Vec<f64> {
    let sixth = PI / 3.0;
    let (lo, hi) = (p[0].min(q[0]) / sixth, p[0].max(q[0]) / sixth);
    let mut out: Vec<f64> = ((lo.floor() as i64 + 1)..=(hi.ceil() as i64 - 1))
        .map(|k| (k as f64 * sixth - p[0]) / (q[0] - p[0]))
        .filter(|t| *t > 0.0 && *t < 1.0)
        .collect();
    out.sort_by(f64::total_cmp);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interpolates two RGB colours in HSV, as an interpolator's segment
    /// does (its ends made once).
    fn lerp_hsv(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
        let (p, q) = hsv_ends(a, b);
        lerp_ends(p, q, t)
    }

    /// The hue corners of the interpolation from RGB `a` to `b`.
    fn corners_of(a: [f64; 3], b: [f64; 3]) -> Vec<f64> {
        let (p, q) = hsv_ends(a, b);
        hue_corners(p, q)
    }

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    /// `sixth` gives the bits `rem_euclid` and `floor` give: hues from −3
    /// turns to 3, halves of a turn, the turn's own ends either side, −0,
    /// NaN and far hues.
    #[test]
    fn a_hue_is_taken_round_the_circle_as_rem_euclid_takes_it() {
        let reference = |h: f64| {
            let w = h.rem_euclid(TAU).to_degrees() / 60.0;
            (w.floor(), w - w.floor())
        };
        let bits = |(i, f): (f64, f64)| (i.to_bits(), f.to_bits());
        let mut hues: Vec<f64> = (-3000..=3000).map(|k| k as f64 * TAU / 1000.0).collect();
        for k in -6..=6 {
            let h = k as f64 * PI;
            hues.extend([h, h.next_up(), h.next_down()]);
        }
        hues.extend([-0.0, 0.0, -1e-300, f64::NAN, 1e300, -1e300]);
        for h in hues {
            assert_eq!(bits(sixth(h)), bits(reference(h)), "{h:?}");
        }
    }

    #[test]
    fn hsv_round_trip() {
        for c in [
            [1.0, 0.0, 0.0],
            [0.2, 0.4, 0.6],
            [0.9, 0.9, 0.1],
            [0.5, 0.5, 0.5],
            [0.0; 3],
        ] {
            assert!(close(hsv_to_rgb(rgb_to_hsv(c)), c), "{c:?}");
        }
    }

    #[test]
    fn hue_goes_the_shorter_way() {
        // Red (0°) to blue (240°): the shorter way passes magenta (300°).
        let m = lerp_hsv([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], 0.5);
        assert!(close(m, [1.0, 0.0, 1.0]), "{m:?}");
        // Red to green (120°): through yellow (60°).
        let y = lerp_hsv([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.5);
        assert!(close(y, [1.0, 1.0, 0.0]), "{y:?}");
    }

    #[test]
    fn grey_end_takes_the_other_hue() {
        // Black to red: hue stays red; s and v rise from 0 to 1 together:
        // at 0.25, v = 0.25 and s = 0.25, so g = b = v(1 − s) = 0.1875.
        let c = lerp_hsv([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.25);
        assert!(close(c, [0.25, 0.1875, 0.1875]), "{c:?}");
        let w = lerp_hsv([1.0, 1.0, 1.0], [0.0, 0.0, 1.0], 0.5);
        assert!(close(w, [0.5, 0.5, 1.0]), "{w:?}");
    }

    #[test]
    fn hue_corners_are_where_the_sixths_change() {
        // Red to green the short way: through yellow (60°) at t = 1/2; the
        // RGB curve is straight on each side of it.
        let c = corners_of([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(c.len(), 1);
        assert!((c[0] - 0.5).abs() < 1e-12);
        assert!(close(
            lerp_hsv([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.25),
            [1.0, 0.5, 0.0]
        ));
        // 30° to 330° goes down through 0° (the shorter way): one crossing,
        // at t = 1/2.
        let c = corners_of([1.0, 0.5, 0.0], [1.0, 0.0, 0.5]);
        assert_eq!(c.len(), 1);
        assert!((c[0] - 0.5).abs() < 1e-12, "{c:?}");
        // Blue (240°) to red (360°): through magenta (300°) only; none inside
        // one sixth.
        let c = corners_of([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
        assert_eq!(c.len(), 1);
        assert!((c[0] - 0.5).abs() < 1e-12, "{c:?}");
        assert!(corners_of([1.0, 0.1, 0.0], [1.0, 0.2, 0.0]).is_empty());
    }
}
