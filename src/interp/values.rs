//! Key values as a file gave them or as they were computed.
//!
//! Most key values are single-precision fields (MFFloat, MFVec3f, ...): the
//! linear and step curves use them as they are, read as `f64` one number
//! at a time, so that a large CoordinateInterpolator is held once, in
//! `f32`, rather than again in `f64` beside it (docs/performance.md).
//! Values computed here (quaternions, unit normals, samples) are `f64`.

use std::borrow::Cow;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// Numbers, flat: `f64`, or `f32` as read from a file (widened exactly).
#[derive(Clone, Debug)]
pub enum Values<'a> {
    /// Double precision.
    Wide(Cow<'a, [f64]>),
    /// Single precision, each number widened to `f64` when it is read.
    Narrow(Floats<'a>),
}

/// Single-precision numbers: borrowed, owned, or shared with the scene
/// field they were read into (an interpolator holds a large keyValue
/// without a copy of it).
#[derive(Clone, Debug)]
pub enum Floats<'a> {
    Borrowed(&'a [f32]),
    Owned(Vec<f32>),
    Shared(Arc<Vec<f32>>),
}

impl Deref for Floats<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        match self {
            Floats::Borrowed(v) => v,
            Floats::Owned(v) => v,
            Floats::Shared(v) => v,
        }
    }
}

impl Floats<'_> {
    /// The numbers to change, copied first unless they are this value's
    /// alone.
    fn to_mut(&mut self) -> &mut Vec<f32> {
        match self {
            Floats::Borrowed(v) => {
                *self = Floats::Owned(v.to_vec());
                self.to_mut()
            }
            Floats::Owned(v) => v,
            Floats::Shared(v) => Arc::make_mut(v),
        }
    }

    /// The same numbers, not borrowed (shared ones stay shared).
    fn into_owned(self) -> Floats<'static> {
        match self {
            Floats::Borrowed(v) => Floats::Owned(v.to_vec()),
            Floats::Owned(v) => Floats::Owned(v),
            Floats::Shared(v) => Floats::Shared(v),
        }
    }
}

impl Default for Values<'_> {
    fn default() -> Self {
        Values::Wide(Cow::Borrowed(&[]))
    }
}

impl From<Vec<f64>> for Values<'_> {
    fn from(v: Vec<f64>) -> Self {
        Values::Wide(Cow::Owned(v))
    }
}

impl<'a> From<&'a [f64]> for Values<'a> {
    fn from(v: &'a [f64]) -> Self {
        Values::Wide(Cow::Borrowed(v))
    }
}

/// Equal numbers are equal values, whatever their precision.
impl PartialEq for Values<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl<'a> Values<'a> {
    /// How many numbers.
    pub fn len(&self) -> usize {
        match self {
            Values::Wide(v) => v.len(),
            Values::Narrow(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number `i`.
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::Wide(v) => v[i],
            Values::Narrow(v) => f64::from(v[i]),
        }
    }

    /// Some of the numbers, as `f64` (borrowed when they are).
    pub fn slice(&self, range: Range<usize>) -> Cow<'_, [f64]> {
        match self {
            Values::Wide(v) => Cow::Borrowed(&v[range]),
            Values::Narrow(v) => Cow::Owned(v[range].iter().map(|&x| f64::from(x)).collect()),
        }
    }

    /// Some of the numbers as `f64`: borrowed when they are, else made in
    /// `scratch` (for a loop that would otherwise allocate each time).
    pub fn slice_in<'s>(&'s self, range: Range<usize>, scratch: &'s mut Vec<f64>) -> &'s [f64] {
        match self {
            Values::Wide(v) => &v[range],
            Values::Narrow(v) => {
                scratch.clear();
                scratch.extend(v[range].iter().map(|&x| f64::from(x)));
                scratch
            }
        }
    }

    /// Some of the numbers, borrowed in their own precision.
    pub fn part(&self, range: Range<usize>) -> Values<'_> {
        match self {
            Values::Wide(v) => Values::Wide(Cow::Borrowed(&v[range])),
            Values::Narrow(v) => Values::Narrow(Floats::Borrowed(&v[range])),
        }
    }

    /// All the numbers as `f64` (borrowed when they are).
    pub fn wide(&self) -> Cow<'_, [f64]> {
        self.slice(0..self.len())
    }

    /// The same numbers, borrowed.
    pub fn borrowed(&self) -> Values<'_> {
        match self {
            Values::Wide(v) => Values::Wide(Cow::Borrowed(v)),
            Values::Narrow(v) => Values::Narrow(Floats::Borrowed(v)),
        }
    }

    /// The same numbers, owned.
    pub fn into_owned(self) -> Values<'static> {
        match self {
            Values::Wide(v) => Values::Wide(Cow::Owned(v.into_owned())),
            Values::Narrow(v) => Values::Narrow(v.into_owned()),
        }
    }

    /// Appends numbers (those held in `f32` are widened first).
    pub fn extend(&mut self, more: impl Iterator<Item = f64>) {
        match self {
            Values::Wide(v) => v.to_mut().extend(more),
            Values::Narrow(_) => {
                let mut wide = self.wide().into_owned();
                wide.extend(more);
                *self = wide.into();
            }
        }
    }

    /// Negates the numbers of `range` (exact in either precision).
    pub fn negate(&mut self, range: Range<usize>) {
        match self {
            Values::Wide(v) => v.to_mut()[range].iter_mut().for_each(|x| *x = -*x),
            Values::Narrow(v) => v.to_mut()[range].iter_mut().for_each(|x| *x = -*x),
        }
    }

    /// Exactly `n` frames of `frame` numbers: extra numbers dropped, and
    /// missing frames copies of the last whole one (`frame` and the number
    /// of whole frames are not zero). Owned numbers are kept in place, and
    /// shared ones that are already `n` frames stay shared.
    pub fn in_frames(self, frame: usize, n: usize) -> Values<'static> {
        fn fit<T: Clone>(mut v: Vec<T>, frame: usize, n: usize) -> Vec<T> {
            let whole = v.len() / frame;
            v.truncate(whole.min(n) * frame);
            while v.len() < n * frame {
                let last = v.len() - frame;
                v.extend_from_within(last..last + frame);
            }
            v
        }
        match self {
            Values::Wide(v) => Values::Wide(Cow::Owned(fit(v.into_owned(), frame, n))),
            Values::Narrow(v) if v.len() == n * frame => Values::Narrow(v.into_owned()),
            Values::Narrow(mut v) => {
                Values::Narrow(Floats::Owned(fit(std::mem::take(v.to_mut()), frame, n)))
            }
        }
    }

    /// The numbers of `range` appended to `out`, as `f64`.
    pub fn extend_into(&self, range: Range<usize>, out: &mut Vec<f64>) {
        match self {
            Values::Wide(v) => out.extend_from_slice(&v[range]),
            Values::Narrow(v) => out.extend(v[range].iter().map(|&x| f64::from(x))),
        }
    }

    /// `a + s (b − a)` for the numbers of two ranges of equal length,
    /// appended to `out`.
    pub fn lerp_into(&self, a: Range<usize>, b: Range<usize>, s: f64, out: &mut Vec<f64>) {
        fn lerp<T: Copy + Into<f64>>(a: &[T], b: &[T], s: f64, out: &mut Vec<f64>) {
            out.extend(a.iter().zip(b).map(|(&x, &y)| {
                let (x, y) = (x.into(), y.into());
                x + s * (y - x)
            }));
        }
        match self {
            Values::Wide(v) => lerp(&v[a], &v[b], s, out),
            Values::Narrow(v) => lerp(&v[a], &v[b], s, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_numbers_read_as_their_exact_f64() {
        let x = [0.1f32, -3.5, 1e-7, f32::MAX];
        let narrow = Values::Narrow(Floats::Borrowed(&x));
        let wide: Values = x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>().into();
        assert_eq!(narrow, wide);
        assert_eq!(narrow.get(0), 0.1f32 as f64);
        assert_ne!(narrow.get(0), 0.1);
        assert_eq!(*narrow.slice(1..3), [-3.5, 1e-7f32 as f64]);
        let mut out = Vec::new();
        narrow.lerp_into(0..2, 2..4, 0.25, &mut out);
        wide.lerp_into(0..2, 2..4, 0.25, &mut out);
        assert_eq!(out[..2], out[2..]);
        assert_eq!(out[1], -3.5 + 0.25 * (f32::MAX as f64 + 3.5));
        let mut negated = narrow.clone();
        negated.negate(1..2);
        assert!(matches!(negated, Values::Narrow(_)));
        assert_eq!(negated.get(1), 3.5);
        let mut longer = narrow.clone();
        longer.extend([2.0].into_iter());
        assert!(matches!(longer, Values::Wide(_)));
        assert_eq!(
            (longer.len(), longer.get(0), longer.get(4)),
            (5, 0.1f32 as f64, 2.0)
        );
        let framed = narrow.into_owned().in_frames(3, 2);
        assert_eq!(
            *framed.wide(),
            *Values::Narrow(Floats::Borrowed(&[0.1f32, -3.5, 1e-7, 0.1, -3.5, 1e-7])).wide()
        );
        assert_ne!(framed, Values::from(vec![0.1; 6]));
    }
}
