//! Non-uniform rational B-splines (ISO/IEC 19775-1, 27): the basis of one
//! direction (Cox–de Boor) and the point of a curve, for NURBS geometry and
//! the NurbsPositionInterpolator. Knots: those given when there are as
//! many as control points plus order and they never decrease, otherwise
//! the clamped uniform vector (order equal knots at each end); the order
//! is at least 2 and at most the number of control points.

use std::borrow::Cow;

/// One direction of a NURBS: its order, knots and the parameter range.
#[derive(Debug)]
pub struct Basis<'a> {
    /// The order (degree + 1).
    pub order: usize,
    /// The knots, as many as control points plus order (an interpolator
    /// lends the ones it holds).
    pub knots: Cow<'a, [f64]>,
}

impl Basis<'_> {
    /// The basis of `n` control points of `order` (at least 2, at most n)
    /// with the knots given, or the clamped uniform ones.
    pub fn new(n: usize, order: i32, given: &[f64]) -> Option<Basis<'static>> {
        let order = usize::try_from(order).ok()?.clamp(2, n.max(2));
        if n < order {
            return None;
        }
        let valid = given.len() == n + order && given.windows(2).all(|w| w[0] <= w[1]);
        let knots = if valid {
            given.to_vec()
        } else {
            let inner = n - order;
            (0..n + order)
                .map(|i| {
                    if i < order {
                        0.0
                    } else if i >= n {
                        1.0
                    } else {
                        (i + 1 - order) as f64 / (inner + 1) as f64
                    }
                })
                .collect()
        };
        (knots[order - 1] < knots[n]).then_some(Basis {
            order,
            knots: Cow::Owned(knots),
        })
    }

    /// The parameter range: from knot order−1 to knot n.
    pub fn range(&self) -> (f64, f64) {
        let n = self.knots.len() - self.order;
        (self.knots[self.order - 1], self.knots[n])
    }

    /// The non-zero basis functions at `u`: the first control point they
    /// weigh, and `order` values (Cox–de Boor).
    pub fn at(&self, u: f64) -> (usize, Vec<f64>) {
        let (k, p) = (&self.knots, self.order - 1);
        let n = k.len() - self.order;
        // The span: knots[span] ≤ u < knots[span + 1] (the last span for
        // the end of the range).
        let mut span = p;
        while span + 1 < n && u >= k[span + 1] {
            span += 1;
        }
        let mut values = vec![0.0; p + 1];
        values[0] = 1.0;
        let (mut left, mut right) = (vec![0.0; p + 1], vec![0.0; p + 1]);
        for j in 1..=p {
            left[j] = u - k[span + 1 - j];
            right[j] = k[span + j] - u;
            let mut saved = 0.0;
            for r in 0..j {
                let d = right[r + 1] + left[j - r];
                let t = if d == 0.0 { 0.0 } else { values[r] / d };
                values[r] = saved + right[r + 1] * t;
                saved = left[j - r] * t;
            }
            values[j] = saved;
        }
        (span - p, values)
    }
}

/// The point of a NURBS curve at parameter `u`: its `width`-number control
/// points `points`, one weight each, written to `out` (cleared first;
/// nothing when the basis is empty there).
pub fn point(
    b: &Basis<'_>,
    points: &[f64],
    width: usize,
    weights: &[f64],
    u: f64,
    out: &mut Vec<f64>,
) {
    out.clear();
    let (first, values) = b.at(u);
    let mut total = 0.0;
    out.resize(width, 0.0);
    for (k, v) in values.iter().enumerate() {
        let i = first + k;
        let w = weights.get(i).copied().unwrap_or(1.0) * v;
        for (c, x) in out.iter_mut().enumerate() {
            *x += points[i * width + c] * w;
        }
        total += w;
    }
    if total != 0.0 {
        out.iter_mut().for_each(|x| *x /= total);
    }
}

/// A rational B-spline surface: `dim` numbers a control point, `nu`
/// control points along u for each along v.
#[derive(Debug)]
pub struct Surface {
    bu: Basis<'static>,
    bv: Basis<'static>,
    points: Vec<f64>,
    weights: Vec<f64>,
    nu: usize,
    dim: usize,
}

impl Surface {
    /// A surface of `points` (`dim` numbers each, `nu` × `nv` of them, u
    /// first) with weights, orders and knots; `None` when they make none.
    pub fn new(
        points: Vec<f64>,
        dim: usize,
        (nu, nv): (usize, usize),
        weights: Vec<f64>,
        (u_order, v_order): (i32, i32),
        (u_knot, v_knot): (&[f64], &[f64]),
    ) -> Option<Surface> {
        if nu == 0 || nv == 0 || points.len() < nu * nv * dim {
            return None;
        }
        Some(Surface {
            bu: Basis::new(nu, u_order, u_knot)?,
            bv: Basis::new(nv, v_order, v_knot)?,
            points,
            weights,
            nu,
            dim,
        })
    }

    /// The valid parameter ranges along u and v.
    pub fn ranges(&self) -> [(f64, f64); 2] {
        [self.bu.range(), self.bv.range()]
    }

    /// The point at fractions (s, t) of the valid range along u and v.
    pub fn at(&self, s: f64, t: f64, out: &mut Vec<f64>) {
        let ((u0, u1), (v0, v1)) = (self.bu.range(), self.bv.range());
        let ((fu, nus), (fv, nvs)) = (
            self.bu.at(u0 + (u1 - u0) * s),
            self.bv.at(v0 + (v1 - v0) * t),
        );
        out.clear();
        out.resize(self.dim, 0.0);
        let mut total = 0.0;
        for (b, nb) in nvs.iter().enumerate() {
            for (a, na) in nus.iter().enumerate() {
                let i = (fu + a) + (fv + b) * self.nu;
                let k = na * nb * self.weights[i];
                for (o, p) in out.iter_mut().zip(&self.points[i * self.dim..]) {
                    *o += p * k;
                }
                total += k;
            }
        }
        if total != 0.0 {
            out.iter_mut().for_each(|o| *o /= total);
        }
    }

    /// The partial derivatives at fractions (s, t), per unit of the
    /// parameters u and v: central differences of 1e-6 of the range
    /// (one-sided at its ends).
    pub fn derivatives(&self, s: f64, t: f64) -> [Vec<f64>; 2] {
        const H: f64 = 1e-6;
        let ((u0, u1), (v0, v1)) = (self.bu.range(), self.bv.range());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut along = |(s0, t0): (f64, f64), (s1, t1): (f64, f64), span: f64| {
            self.at(s0, t0, &mut a);
            self.at(s1, t1, &mut b);
            b.iter()
                .zip(&a)
                .map(|(y, x)| (y - x) / span)
                .collect::<Vec<f64>>()
        };
        let (sa, sb) = ((s - H).max(0.0), (s + H).min(1.0));
        let (ta, tb) = ((t - H).max(0.0), (t + H).min(1.0));
        [
            along((sa, t), (sb, t), (sb - sa) * (u1 - u0)),
            along((s, ta), (s, tb), (tb - ta) * (v1 - v0)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(points: &[f64], weights: &[f64], order: i32, knots: &[f64], u: f64) -> Vec<f64> {
        let b = Basis::new(points.len() / 3, order, knots).unwrap();
        let mut out = Vec::new();
        point(&b, points, 3, weights, u, &mut out);
        out
    }

    /// A quadratic Bézier (order 3, knots 0 0 0 1 1 1) at u = ½, worked by
    /// hand: ¼P₀ + ½P₁ + ¼P₂; with the middle weight 2, (¼P₀ + P₁ + ¼P₂)/1.5;
    /// the ends are the end points; knots not given are the same clamped
    /// vector.
    #[test]
    fn curve_points_are_the_rational_b_spline() {
        let p = [0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 2.0, 0.0, 0.0];
        let knots = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        assert_eq!(at(&p, &[1.0; 3], 3, &knots, 0.5), [1.0, 1.0, 0.0]);
        let got = at(&p, &[1.0, 2.0, 1.0], 3, &knots, 0.5);
        let want = [(0.0 + 1.0 + 0.5) / 1.5, 2.0 / 1.5, 0.0];
        assert!(
            got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{got:?}"
        );
        assert_eq!(at(&p, &[1.0; 3], 3, &knots, 1.0), [2.0, 0.0, 0.0]);
        assert_eq!(at(&p, &[1.0; 3], 3, &[], 0.5), [1.0, 1.0, 0.0]);
    }

    /// A quarter circle as a rational quadratic (weights 1, √½, 1) lies on
    /// the unit circle at every parameter.
    #[test]
    fn a_rational_quarter_circle_is_round() {
        let p = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
        let w = [1.0, std::f64::consts::FRAC_1_SQRT_2, 1.0];
        for k in 0..=10 {
            let q = at(&p, &w, 3, &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0], k as f64 / 10.0);
            assert!((q[0].hypot(q[1]) - 1.0).abs() < 1e-12, "{q:?}");
        }
    }
}
