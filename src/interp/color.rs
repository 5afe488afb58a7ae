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
        let w = h.rem_euclid(TAU).to_degrees() / 60.0;
        let i = w.floor();
        let f = w - i;
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

/// Interpolates two RGB colours in HSV: hue the shorter way round; an end
/// without saturation (grey, black) takes the other end's hue.
pub fn lerp_hsv(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    let [mut ha, sa, va] = rgb_to_hsv(a);
    let [mut hb, sb, vb] = rgb_to_hsv(b);
    if sa == 0.0 {
        ha = hb;
    }
    if sb == 0.0 {
        hb = ha;
    }
    let range = (hb - ha).abs();
    let h = if range <= PI {
        ha + t * (hb - ha)
    } else {
        let step = (TAU - range) * t;
        let h = if ha < hb { ha - step } else { ha + step };
        h.rem_euclid(TAU)
    };
    hsv_to_rgb([h, sa + t * (sb - sa), va + t * (vb - va)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
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
}
