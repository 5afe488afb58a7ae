//! Which keys a track writes: exact, fitted within the bound, or sampled
//! at --rate, within the animation values limit.

use super::*;

/// How a sampled track is interpolated: its natural way in exact mode,
/// as `--interpolation` says in sample mode (LINEAR on rotations is slerp;
/// a sequencer's always in steps).
pub(super) fn sampled_interpolation(opts: &Options, track: &Track) -> Interpolation {
    match (opts.mode, opts.interpolation) {
        (Mode::Exact, _) => track.sample_interpolation(),
        // A sequencer's value only jumps: its samples are steps whatever
        // the flag (a light's `on` would otherwise dim between keys).
        _ if track.sample_interpolation() == Interpolation::Step => Interpolation::Step,
        (Mode::Sample, SampleInterpolation::Linear) if track.is_rotation() => Interpolation::Slerp,
        (Mode::Sample, SampleInterpolation::Linear) => Interpolation::Linear,
        (Mode::Sample, SampleInterpolation::Step) => Interpolation::Step,
        (Mode::Sample, SampleInterpolation::Cubic) => Interpolation::Cubic,
    }
}

/// Thinned keys at most this many are fitted again (see `keyframes`).
pub(super) const REFIT_KEYS: usize = 64;

/// How a track no keyframe format holds is fitted in the default mode:
/// its bound and the shapes tried (CUBICSPLINE only where the target takes
/// it, `cubic`); `None` for a track that is exact or sampled.
pub(super) fn default_fit(
    opts: &Options,
    track: &Track,
    cubic: bool,
) -> Option<(f64, &'static [Shape])> {
    let straight = matches!(
        sampled_interpolation(opts, track),
        Interpolation::Linear | Interpolation::Slerp
    );
    if opts.mode != Mode::Exact || !straight || track.exact().is_some() {
        return None;
    }
    let tol = opts
        .tolerance
        .unwrap_or_else(|| fit::default_tolerance(track));
    let shapes = if cubic {
        Shape::EITHER
    } else {
        Shape::STRAIGHT
    };
    Some((tol, shapes))
}

impl Writer<'_> {
    /// Takes `n` numbers for `track` from the animation values limit; false, with the
    /// error reported once, when that passes it.
    pub(super) fn spend(&mut self, n: usize, clip: &Clip, track: &Track) -> bool {
        let reported = self.values > self.opts.limits.animation_values;
        self.values = self.values.saturating_add(n);
        if self.values <= self.opts.limits.animation_values {
            return true;
        }
        if !reported {
            self.diags.error(
                format!(
                    "the animations would hold more than {} numbers (keys, morph targets \
                     and weights): stopped at `{}.{}` in clip `{}` ({} s, --rate {}); fewer keys \
                     come from a lower --rate, fewer --cycles, or --tolerance",
                    self.opts.limits.animation_values,
                    self.scene.display_name(track.target),
                    track.field,
                    clip.name,
                    clip.duration(),
                    self.opts.rate
                ),
                Some(track.span),
            );
        }
        false
    }

    /// A track sampled at --rate, when the samples fit in the animation values limit.
    pub(super) fn sampled(
        &mut self,
        clip: &Clip,
        track: &Track,
        interpolation: Interpolation,
    ) -> Option<Keyframes<'static>> {
        let cubic = interpolation == Interpolation::Cubic;
        self.sampled_with(clip, track, track.width(), cubic)
            .then(|| clip.sampled_as(track, self.opts.rate, interpolation))
    }

    /// Whether keyframes of `width` numbers sampled at --rate on the clip
    /// fit in the animation values limit (taken from it if so).
    pub(super) fn sampled_with(
        &mut self,
        clip: &Clip,
        track: &Track,
        width: usize,
        cubic: bool,
    ) -> bool {
        let n =
            sample_len(&clip.map, self.opts.rate).saturating_mul(keyframe_numbers(width, cubic));
        self.spend(n, clip, track)
    }

    /// The keyframes written for a track; `None` for a track dropped under a
    /// tolerance because it never leaves the target's own value, or past
    /// the animation values limit (reported). Exact where a keyframe format
    /// holds the curve; otherwise, unless sampling is asked for, the fewest
    /// keys within the tolerance (or the default bound) of the true curve:
    /// CUBICSPLINE where `cubic` allows it and needs fewer keys.
    pub(super) fn keyframes<'t>(
        &mut self,
        clip: &Clip,
        track: &'t Track,
        opts: &Options,
        cubic: bool,
    ) -> Option<Keyframes<'t>> {
        // The animation values the exact keys took from the limit.
        let mut charged = 0;
        let exact = match (opts.mode == Mode::Exact).then(|| track.exact()).flatten() {
            Some(e) => {
                let per = keyframe_numbers(e.width(), matches!(e, Exact::Hermite { .. }));
                charged = exact_len_bound(&e, &clip.map).saturating_mul(per);
                if !self.spend(charged, clip, track) {
                    return None;
                }
                Some(Keyframes::exact(e, &clip.map))
            }
            None => None,
        };
        let (rotation, per) = (track.is_rotation(), track.per_element());
        // The keyframes, and how far their curve is from the true one.
        let (mut k, error) = match (exact, opts.tolerance) {
            (Some(k), None) => (k, 0.0),
            // Step curves are kept: their error is zero.
            (Some(k), Some(_)) if k.interpolation == Interpolation::Step => (k, 0.0),
            // Linear and slerp keys are thinned (at their own keys); a fit
            // within the tolerance, free to put keys anywhere, replaces
            // them when it needs fewer: always for cubic keys, and where
            // thinning left few keys (a fit costs microseconds a key).
            (Some(k), Some(tol)) => {
                let (k, error, refit) = match reduce::thin(k, tol, per) {
                    Ok((k, error)) => {
                        let few = k.len() <= REFIT_KEYS;
                        (k, error, few)
                    }
                    Err(k) => (k, 0.0, true),
                };
                let shapes = match k.interpolation {
                    Interpolation::Cubic => Shape::EITHER,
                    _ => Shape::STRAIGHT,
                };
                let room = k.len().saturating_sub(1);
                match refit.then(|| clip.fitted(track, tol, shapes, room)) {
                    Some(Ok(fewer)) => {
                        self.values -= charged;
                        self.spent(clip, track, Ok(fewer))?
                    }
                    _ => (k, error),
                }
            }
            (None, tol) => {
                let interpolation = sampled_interpolation(opts, track);
                let straight =
                    matches!(interpolation, Interpolation::Linear | Interpolation::Slerp);
                match (default_fit(opts, track, cubic), tol) {
                    (Some((tol, shapes)), _) => self.fitted(clip, track, tol, shapes)?,
                    (None, Some(tol)) if straight && opts.mode == Mode::Sample => {
                        self.fitted(clip, track, tol, Shape::STRAIGHT)?
                    }
                    // Samples: no bound.
                    _ => (self.sampled(clip, track, interpolation)?, 0.0),
                }
            }
        };
        let Some(tol) = opts.tolerance else {
            return Some(k);
        };
        // Constant when the keys' curve is within what the fit left of the
        // tolerance: then the true curve is within the tolerance.
        let room = (tol - error).max(0.0);
        reduce::collapse_constant(&mut k, room, rotation, per);
        let mut own = Vec::new();
        track.initial_value(self.scene, &mut own);
        if !opts.keep_constant && reduce::constant_at(&k, &own, room, rotation, per) {
            return None;
        }
        Some(k)
    }

    /// A track's fewest keys of one of `shapes` within `tol` of its curve,
    /// when they fit in the animation values limit (taken from it if so).
    pub(super) fn fitted(
        &mut self,
        clip: &Clip,
        track: &Track,
        tol: f64,
        shapes: &[Shape],
    ) -> Option<(Keyframes<'static>, f64)> {
        let fitted = match self.made_ahead(track, tol, shapes) {
            Some(made) => made,
            None => {
                let width = track.width();
                let room = self.room(width, shapes.contains(&Shape::Cubic));
                clip.fitted(track, tol, shapes, room)
            }
        };
        self.spent(clip, track, fitted)
    }

    /// A curve made from several tracks (`value_at`, `width` numbers a
    /// fraction) fitted within --tolerance or the default relative bound,
    /// with the corners of them all; `None` past the animation values limit.
    pub(super) fn joint(
        &mut self,
        clip: &Clip,
        tracks: &[&Track],
        width: usize,
        shapes: &[Shape],
        value_at: &mut dyn FnMut(f64, &mut Vec<f64>),
    ) -> Option<Keyframes<'static>> {
        let room = self.room(width, shapes.contains(&Shape::Cubic));
        let mut corners: Vec<f64> = tracks
            .iter()
            .flat_map(|t| t.corners(t.corner_room(room)))
            .collect();
        corners.sort_by(f64::total_cmp);
        let bound = fit::Bound {
            tol: self.opts.tolerance.unwrap_or(fit::DEFAULT_RELATIVE),
            rotation: false,
            per: width,
        };
        let fitted = fit::fewest(&clip.map, &corners, width, shapes, bound, room, value_at);
        let first = tracks.first()?;
        self.spent(clip, first, fitted).map(|(k, _)| k)
    }

    /// How many keys of `width` numbers are left in the animation values
    /// limit.
    pub(super) fn room(&self, width: usize, cubic: bool) -> usize {
        self.opts
            .limits
            .animation_values
            .saturating_sub(self.values)
            / keyframe_numbers(width, cubic)
    }

    /// Fitted keyframes (and their error) taken from the animation values
    /// limit.
    pub(super) fn spent(
        &mut self,
        clip: &Clip,
        track: &Track,
        fitted: Result<Fitted, TooMany>,
    ) -> Option<(Keyframes<'static>, f64)> {
        let n = match &fitted {
            Ok(f) => f.keys.len().saturating_mul(keyframe_numbers(
                f.keys.width,
                f.keys.interpolation == Interpolation::Cubic,
            )),
            Err(TooMany) => usize::MAX,
        };
        let taken = self.spend(n, clip, track);
        fitted.ok().filter(|_| taken).map(|f| (f.keys, f.error))
    }
}
