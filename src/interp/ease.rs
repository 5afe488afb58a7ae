//! EaseInEaseOut: modifies a fraction inside the segment of keys it falls in.

use super::keys::{Seg, lookup};

/// An EaseInEaseOut node's key and easeInEaseOut fields.
#[derive(Clone, Debug)]
pub struct Ease {
    keys: Vec<f64>,
    /// Per key: (easeIn, easeOut); padded with the last pair.
    ease: Vec<[f64; 2]>,
}

impl Ease {
    /// Builds from `key` and the flat `easeInEaseOut` (2 numbers a key). A
    /// short list is padded with its last pair; none at all means zeros.
    pub fn new(keys: Vec<f64>, ease_in_ease_out: &[f64]) -> Ease {
        let pairs: Vec<[f64; 2]> = ease_in_ease_out
            .chunks_exact(2)
            .map(|p| [p[0], p[1]])
            .collect();
        let last = pairs.last().copied().unwrap_or([0.0, 0.0]);
        let ease = (0..keys.len())
            .map(|i| pairs.get(i).copied().unwrap_or(last))
            .collect();
        Ease { keys, ease }
    }

    /// The modified fraction, in key space: key_i + (key_{i+1} − key_i)·g(u)
    /// for u the local fraction in the segment; outside the keys (and with no
    /// keys) the fraction passes unchanged.
    pub fn modify(&self, f: f64) -> f64 {
        if self.keys.is_empty() {
            return f;
        }
        match lookup(&self.keys, f) {
            Seg::At(_) => f,
            Seg::Between(i, u) => {
                let e_out = self.ease[i][1];
                let e_in = self.ease[i + 1][0];
                if e_out + e_in <= 0.0 {
                    // No modification: the fraction itself, not a round trip
                    // through the local fraction.
                    return f;
                }
                let (a, b) = (self.keys[i], self.keys[i + 1]);
                a + (b - a) * ease_local(u, e_out, e_in)
            }
        }
    }

    /// The fraction that [`Ease::modify`] turns into `y`: each segment of
    /// keys is mapped onto itself by an increasing g, whose parabolas and
    /// line are inverted in closed form. Outside the keys, `y` itself.
    pub fn preimage(&self, y: f64) -> f64 {
        if self.keys.is_empty() {
            return y;
        }
        let Seg::Between(i, v) = lookup(&self.keys, y) else {
            return y;
        };
        let (a, b) = (self.keys[i], self.keys[i + 1]);
        let Some((e_out, e_in)) = scaled(self.ease[i][1], self.ease[i + 1][0]) else {
            return y;
        };
        let t = 1.0 / (2.0 - e_out - e_in);
        let u = if e_out > 0.0 && v < t * e_out {
            (v * e_out / t).sqrt()
        } else if e_in == 0.0 || v <= 1.0 - t * e_in {
            (v / t + e_out) / 2.0
        } else {
            1.0 - ((1.0 - v) * e_in / t).sqrt()
        };
        a + (b - a) * u
    }

    /// Where the modified fraction is not smooth: the keys, and inside an
    /// eased segment the ends of its constant-speed part (where g changes
    /// from or to a parabola: its second derivative jumps there).
    pub fn corners(&self) -> Vec<f64> {
        let mut out = self.keys.clone();
        for i in 0..self.keys.len().saturating_sub(1) {
            let (a, b) = (self.keys[i], self.keys[i + 1]);
            let Some((e_out, e_in)) = scaled(self.ease[i][1], self.ease[i + 1][0]) else {
                continue;
            };
            if b <= a {
                continue;
            }
            out.extend([a + (b - a) * e_out, b - (b - a) * e_in]);
        }
        out
    }
}

/// A segment's easeOut and easeIn as the text uses them: scaled to sum to 1
/// when they sum to more; `None` when they sum to 0 or less (no easing).
fn scaled(e_out: f64, e_in: f64) -> Option<(f64, f64)> {
    let s = e_out + e_in;
    if s <= 0.0 {
        None
    } else if s > 1.0 {
        Some((e_out / s, e_in / s))
    } else {
        Some((e_out, e_in))
    }
}

/// The eased local fraction g(u) of the X3D text, with S = 0 meaning no
/// modification and the divisions by e_out and e_in guarded at zero.
pub fn ease_local(u: f64, e_out: f64, e_in: f64) -> f64 {
    let Some((e_out, e_in)) = scaled(e_out, e_in) else {
        return u;
    };
    let t = 1.0 / (2.0 - e_out - e_in);
    if u < e_out {
        (t / e_out) * u * u
    } else if u < 1.0 - e_in || e_in == 0.0 {
        t * (2.0 * u - e_out)
    } else {
        1.0 - (t * (1.0 - u) * (1.0 - u)) / e_in
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_values() {
        // e_out = 0.4, e_in = 0.3: t = 1 / 1.3.
        let t = 1.0 / 1.3;
        assert!((ease_local(0.2, 0.4, 0.3) - t / 0.4 * 0.04).abs() < 1e-15);
        assert!((ease_local(0.5, 0.4, 0.3) - t * (1.0 - 0.4)).abs() < 1e-15);
        assert!((ease_local(0.9, 0.4, 0.3) - (1.0 - t * 0.01 / 0.3)).abs() < 1e-15);
        // Sum over 1: both scaled so that they sum to 1 (no constant part).
        assert!((ease_local(0.5, 1.0, 1.0) - 0.5).abs() < 1e-15);
        assert_eq!(ease_local(1.0, 0.5, 0.0), 1.0);
        assert_eq!(ease_local(0.0, 0.0, 0.5), 0.0);
    }

    #[test]
    fn zeros_are_the_identity_and_ends_are_kept() {
        let e = Ease::new(vec![0.0, 0.3, 1.0], &[0.0; 6]);
        for i in 0..=20 {
            let f = i as f64 / 20.0;
            assert_eq!(e.modify(f), f);
        }
        let e = Ease::new(vec![0.0, 0.3, 1.0], &[0.0, 0.5, 0.5, 0.5, 0.5, 0.0]);
        for f in [-1.0, 0.0, 0.3, 1.0, 2.0] {
            assert_eq!(e.modify(f), f);
        }
        // Mapped back into the segment [0.3, 1].
        // u = 0.5 with e_out = e_in = 0.5: S = 1, t = 1, g = 1 − 0.25/0.5 = 0.5.
        assert!((e.modify(0.65) - 0.65).abs() < 1e-12);
        // u = 0.25 < e_out: g = u²/e_out = 0.125.
        assert!((e.modify(0.475) - (0.3 + 0.7 * 0.125)).abs() < 1e-12);
    }

    #[test]
    fn preimage_inverts_modify() {
        let e = Ease::new(vec![0.0, 0.3, 1.0], &[0.0, 0.5, 0.4, 0.3, 0.9, 0.0]);
        for i in 0..=200 {
            let f = i as f64 / 200.0;
            let back = e.preimage(e.modify(f));
            assert!((back - f).abs() < 1e-12, "{f}: {back}");
        }
        // Hand-computed: segment [0, 0.3] with e_out = 0.5, e_in = 0.4:
        // t = 1/1.1; y = 0.15 is v = 0.5 ≥ t·e_out = 0.4545 and ≤ 1 − t·e_in
        // = 0.6364: the line, u = (0.5·1.1 + 0.5)/2 = 0.525, f = 0.1575.
        assert!((e.preimage(0.15) - 0.1575).abs() < 1e-12);
    }

    #[test]
    fn eased_fraction_is_monotonic_and_continuous() {
        for (eo, ei) in [(0.2, 0.3), (0.9, 0.6), (1.0, 0.0), (0.0, 1.0)] {
            let mut last = 0.0;
            for i in 0..=1000 {
                let u = i as f64 / 1000.0;
                let g = ease_local(u, eo, ei);
                assert!(g >= last - 1e-12 && g - last < 0.01, "{eo} {ei} {u}");
                last = g;
            }
            assert!((last - 1.0).abs() < 1e-12);
        }
    }
}
