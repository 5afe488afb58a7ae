//! Key lookup: which segment a fraction falls in, kept apart from how the
//! values of the segment are blended (as bevy's curve cores do).

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Where a fraction falls among the keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seg {
    /// The value of one key: before the first key, after the last, exactly on
    /// a key, or the only key.
    At(usize),
    /// Between key `i` and key `i + 1`, at local parameter `s` in (0, 1).
    Between(usize, f64),
}

/// Finds the segment of fraction `f`.
///
/// At and before the first key the first value applies (the X3D text's
/// f(t) = v_0 for t ≤ t_0), at and after the last the last. At a repeated
/// inner key (a jump) the last of the repeated values applies from
/// the key on; just before it, the segment runs to the first of them.
/// Keys that decrease give what an upper-bound search gives (as X_ITE).
/// `keys` must not be empty.
pub fn lookup(keys: &[f64], f: f64) -> Seg {
    lookup_with(keys, f, |keys| keys.partition_point(|&k| k <= f))
}

/// Where a search of keys starts: lookups of nearby fractions one after
/// another (as a fit or a sampler makes them) then cost a comparison or
/// two instead of a binary search. Shared between threads as a relaxed
/// atomic: whatever it holds, the answer is the same.
#[derive(Debug, Default)]
pub struct Hint(AtomicUsize);

impl Clone for Hint {
    fn clone(&self) -> Self {
        Hint(AtomicUsize::new(self.0.load(Relaxed)))
    }
}

/// [`lookup`] on keys that never decrease, starting from `hint`.
pub fn lookup_near(keys: &[f64], f: f64, hint: &Hint) -> Seg {
    lookup_with(keys, f, |keys| {
        let n = keys.len();
        let u = hint.0.load(Relaxed);
        // The first index whose key is greater than f, near the last one.
        let upper = [u, u + 1]
            .into_iter()
            .find(|&u| u >= 1 && u < n && keys[u - 1] <= f && f < keys[u])
            .unwrap_or_else(|| keys.partition_point(|&k| k <= f));
        hint.0.store(upper, Relaxed);
        upper
    })
}

/// The segment of `f` given how to find the first index whose key is
/// greater than it (called when f is past the first key).
fn lookup_with(keys: &[f64], f: f64, first_greater: impl FnOnce(&[f64]) -> usize) -> Seg {
    let n = keys.len();
    if n == 1 || f <= keys[0] {
        return Seg::At(0);
    }
    let upper = first_greater(keys);
    if upper == n {
        return Seg::At(n - 1);
    }
    let i = upper - 1; // upper >= 1 because keys[0] <= f
    let (a, b) = (keys[i], keys[upper]);
    let s = if b > a { (f - a) / (b - a) } else { 0.0 };
    if s <= 0.0 {
        Seg::At(i)
    } else {
        Seg::Between(i, s.min(1.0))
    }
}

/// Problems with key and keyValue lists, found when an interpolator is built.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyWarning {
    /// keyValue has fewer values than key has keys: padded with its last.
    ShortKeyValue {
        /// Keys in `key`.
        keys: usize,
        /// Values in `keyValue` (for MF interpolators, numbers).
        values: usize,
    },
    /// keyValue has more values than key has keys: the extra are unused.
    LongKeyValue {
        /// Keys in `key`.
        keys: usize,
        /// Values in `keyValue` (for MF interpolators, numbers).
        values: usize,
    },
    /// An MF interpolator whose keyValue count is not a multiple of the keys.
    NotAMultiple {
        /// Keys in `key`.
        keys: usize,
        /// Values in `keyValue` (for MF interpolators, numbers).
        values: usize,
    },
    /// Key i is smaller than key i - 1.
    Decreasing {
        /// The index of the smaller key.
        index: usize,
    },
    /// keyVelocity has a size other than N or 2: ignored.
    VelocityIgnored {
        /// Values in `keyVelocity`.
        size: usize,
        /// Keys in `key`.
        keys: usize,
    },
    /// closed was asked for but cannot apply (why).
    ClosedIgnored(&'static str),
    /// Two consecutive normals are opposite: the arc between them is not
    /// unique.
    OppositeNormals {
        /// The first of the two keys.
        key: usize,
    },
    /// smooth on an interpolator that cannot be smooth (orientation).
    SmoothIgnored,
    /// A NURBS interpolator with fewer control points than its order (or
    /// none): it sends nothing.
    NoCurve,
}

impl std::fmt::Display for KeyWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyWarning::ShortKeyValue { keys, values } => write!(
                f,
                "keyValue has {values} values for {keys} keys: padded with its last value"
            ),
            KeyWarning::LongKeyValue { keys, values } => write!(
                f,
                "keyValue has {values} values for {keys} keys: the extra values are not used"
            ),
            KeyWarning::NotAMultiple { keys, values } => write!(
                f,
                "keyValue has {values} values, not a multiple of the {keys} keys: {} per key are used",
                values / keys
            ),
            KeyWarning::Decreasing { index } => write!(
                f,
                "key {index} is smaller than the key before it: keys must not decrease"
            ),
            KeyWarning::VelocityIgnored { size, keys } => write!(
                f,
                "keyVelocity has {size} values; it must have {keys} (one per key) or 2 (first and last): ignored"
            ),
            KeyWarning::ClosedIgnored(why) => write!(f, "closed is ignored: {why}"),
            KeyWarning::OppositeNormals { key } => write!(
                f,
                "normals at keys {key} and {} are opposite: the path between them is chosen arbitrarily",
                key + 1
            ),
            KeyWarning::NoCurve => write!(
                f,
                "fewer control points than its order (or knots that span nothing): it sends nothing"
            ),
            KeyWarning::SmoothIgnored => {
                write!(
                    f,
                    "smooth is ignored on orientation interpolators: slerp is used"
                )
            }
        }
    }
}

/// Warns about decreasing keys.
pub fn check_keys(keys: &[f64], warnings: &mut Vec<KeyWarning>) {
    if let Some(i) = keys.windows(2).position(|w| w[1] < w[0]) {
        warnings.push(KeyWarning::Decreasing { index: i + 1 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_ends_and_jumps() {
        let k = [0.0, 0.5, 0.5, 1.0];
        assert_eq!(lookup(&k, -1.0), Seg::At(0));
        assert_eq!(lookup(&k, 0.0), Seg::At(0));
        assert_eq!(lookup(&k, 0.25), Seg::Between(0, 0.5));
        // At the repeated key, the last of the repeated values.
        assert_eq!(lookup(&k, 0.5), Seg::At(2));
        assert_eq!(lookup(&k, 0.75), Seg::Between(2, 0.5));
        assert_eq!(lookup(&k, 1.0), Seg::At(3));
        assert_eq!(lookup(&k, 2.0), Seg::At(3));
        assert_eq!(lookup(&[0.3], 0.9), Seg::At(0));
        // From any hint, the same answers.
        let hint = Hint::default();
        for f in [0.25, 0.75, -1.0, 0.5, 2.0, 0.25, 0.0, 1.0, 0.75, 0.3] {
            assert_eq!(lookup_near(&k, f, &hint), lookup(&k, f), "{f}");
        }
    }

    #[test]
    fn decreasing_keys_warn() {
        let mut w = Vec::new();
        check_keys(&[0.0, 0.6, 0.4, 1.0], &mut w);
        assert_eq!(w, vec![KeyWarning::Decreasing { index: 2 }]);
    }
}
