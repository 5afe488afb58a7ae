//! Which keys a track writes: exact where a keyframe format holds its
//! curve, else the fewest within the bound (the default) or samples at
//! --rate; all within the document's animation values limit. Writers only
//! turn the keyframes chosen here into their own form.

mod ahead;

use super::clip::{Clip, Track};
use super::fit::{self, Fitted, Shape, TooMany};
use super::keyframes::{Interpolation, Keyframes, exact_len_bound, keyframe_numbers, sample_len};
use super::{nlerp, reduce};
use crate::diag::Diagnostics;
use crate::interp::Exact;
use crate::scene::Scene;
use ahead::Ahead;

/// How tracks are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exact keys where the curve allows (LINEAR, STEP, CUBICSPLINE), samples
    /// where it does not.
    Exact,
    /// Every track sampled.
    Sample,
}

/// The interpolation of sampled tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleInterpolation {
    /// Straight lines between samples (slerp on rotations).
    Linear,
    /// Each sample held until the next.
    Step,
    /// CUBICSPLINE, tangents from the curve's derivative.
    Cubic,
}

/// How a track's keys are chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyOptions {
    /// Exact keys or samples.
    pub mode: Mode,
    /// Samples per second.
    pub rate: f64,
    /// How samples are joined in sample mode.
    pub interpolation: SampleInterpolation,
    /// Fewest keys within this distance of the true curve (scene units;
    /// radians for rotations), measured on a fine grid; constant tracks
    /// collapse to one key.
    pub tolerance: Option<f64>,
    /// With a tolerance: keep tracks that never leave the target's own value.
    pub keep_constant: bool,
    /// CUBICSPLINE keys allowed: splines written exactly, and fits as
    /// CUBICSPLINE where they need fewer keys. Players that drop the
    /// tangents (Blender's importer) play those keys wrong; without it every
    /// curve is LINEAR or STEP keys, splines fitted within the bound.
    pub cubic: bool,
    /// Room the fits leave, in radians, for rounding rotation keys after
    /// (`--compress` writes them as 16-bit integers); 0: none.
    pub rotation_rounding: f64,
    /// How many threads the fits made ahead may keep busy (0: one a core).
    /// A batch baking several files at once gives each its share, so that
    /// no more threads are busy than there are cores.
    pub threads: usize,
}

impl Default for KeyOptions {
    fn default() -> Self {
        KeyOptions {
            mode: Mode::Exact,
            rate: 30.0,
            interpolation: SampleInterpolation::Linear,
            tolerance: None,
            keep_constant: false,
            cubic: false,
            rotation_rounding: 0.0,
            threads: 0,
        }
    }
}

/// The bound a track's keys are fitted within: its bound `tol`, less the
/// room left for rounding its values afterwards, and at least `finest`
/// (its [`fit::finest_tolerance`], which scans a value track's values:
/// made once a track).
fn fit_bound(opts: &KeyOptions, track: &Track, tol: f64, finest: f64) -> f64 {
    let tol = match track.is_rotation() {
        true => tol - opts.rotation_rounding,
        false => tol,
    };
    tol.max(finest)
}

/// Chooses the keys of a document's tracks, one after another, keeping
/// count of the numbers they hold against the animation values limit.
pub struct KeyChooser<'s> {
    scene: &'s Scene,
    opts: KeyOptions,
    /// The animation values limit.
    limit: usize,
    /// Numbers the keys chosen so far hold (past the limit once it is
    /// reported: nothing more is chosen).
    values: usize,
    /// Fits made ahead, on several threads.
    ahead: Ahead,
    /// A --tolerance finer than a track's values hold was reported.
    floored: bool,
}

/// How a sampled track is interpolated: its natural way in exact mode,
/// as `--interpolation` says in sample mode (LINEAR on rotations is slerp;
/// a sequencer's always in steps).
pub fn sampled_interpolation(opts: &KeyOptions, track: &Track) -> Interpolation {
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

/// The track's exact description where its keys may be written as they
/// are: a spline's only with CUBICSPLINE keys allowed, a field of view's
/// only in steps (its keys must hold as angles and as the lens lengths
/// Blender keys: it is fitted, see `fit::Bound::lens`).
pub fn exact_keys<'t>(opts: &KeyOptions, track: &'t Track) -> Option<Exact<'t>> {
    let exact = (opts.mode == Mode::Exact)
        .then(|| track.exact())
        .flatten()?;
    let fitted = match exact {
        Exact::Hermite { .. } => !opts.cubic,
        Exact::Step { .. } => false,
        _ => track.is_field_of_view(),
    };
    (!fitted).then_some(exact)
}

/// Thinned keys at most this many are fitted again (see `keyframes`).
const REFIT_KEYS: usize = 64;

/// How a track no keyframe format holds is fitted in the default mode:
/// its bound and the shapes tried (CUBICSPLINE only where the target takes
/// it, `cubic`); `None` for a track that is exact or sampled.
fn default_fit(opts: &KeyOptions, track: &Track, cubic: bool) -> Option<(f64, &'static [Shape])> {
    let straight = matches!(
        sampled_interpolation(opts, track),
        Interpolation::Linear | Interpolation::Slerp
    );
    if opts.mode != Mode::Exact || !straight || exact_keys(opts, track).is_some() {
        return None;
    }
    let tol = opts
        .tolerance
        .unwrap_or_else(|| fit::default_tolerance(track));
    let tol = fit_bound(opts, track, tol, fit::finest_tolerance(track));
    let shapes = if cubic && opts.cubic {
        Shape::EITHER
    } else {
        Shape::STRAIGHT
    };
    Some((tol, shapes))
}

impl<'s> KeyChooser<'s> {
    /// A chooser for the tracks of `scene` (whose values a dropped
    /// constant track is compared with), within `limit` numbers.
    pub fn new(scene: &'s Scene, opts: KeyOptions, limit: usize) -> Self {
        KeyChooser {
            scene,
            opts,
            limit,
            values: 0,
            ahead: Ahead::default(),
            floored: false,
        }
    }

    /// How the keys are chosen.
    pub fn options(&self) -> &KeyOptions {
        &self.opts
    }

    /// Whether the animation values limit was passed (and reported).
    pub fn over_limit(&self) -> bool {
        self.values > self.limit
    }

    /// Takes `n` numbers for `track` from the animation values limit; false, with the
    /// error reported once, when that passes it.
    pub fn spend(&mut self, n: usize, clip: &Clip, track: &Track, diags: &mut Diagnostics) -> bool {
        let reported = self.values > self.limit;
        self.values = self.values.saturating_add(n);
        if self.values <= self.limit {
            return true;
        }
        if !reported {
            diags.error(
                format!(
                    "the animations would hold more than {} numbers (keys, morph targets \
                     and weights): stopped at `{}.{}` in clip `{}` ({} s, --rate {}); fewer keys \
                     come from a lower --rate, fewer --cycles, or --tolerance",
                    self.limit,
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
    pub fn sampled(
        &mut self,
        clip: &Clip,
        track: &Track,
        interpolation: Interpolation,
        diags: &mut Diagnostics,
    ) -> Option<Keyframes<'static>> {
        let cubic = interpolation == Interpolation::Cubic;
        self.sampled_with(clip, track, track.width(), cubic, diags)
            .then(|| clip.sampled_as(track, self.opts.rate, interpolation))
    }

    /// Whether keyframes of `width` numbers sampled at --rate on the clip
    /// fit in the animation values limit (taken from it if so).
    pub fn sampled_with(
        &mut self,
        clip: &Clip,
        track: &Track,
        width: usize,
        cubic: bool,
        diags: &mut Diagnostics,
    ) -> bool {
        let n =
            sample_len(&clip.map, self.opts.rate).saturating_mul(keyframe_numbers(width, cubic));
        self.spend(n, clip, track, diags)
    }

    /// The keyframes written for a track; `None` for a track dropped under a
    /// tolerance because it never leaves the target's own value, or past
    /// the animation values limit (reported). Exact where a keyframe format
    /// holds the curve; otherwise, unless sampling is asked for, the fewest
    /// keys within the tolerance (or the default bound) of the true curve:
    /// CUBICSPLINE where `cubic` allows it and needs fewer keys.
    pub fn keyframes<'t>(
        &mut self,
        clip: &Clip,
        track: &'t Track,
        cubic: bool,
        diags: &mut Diagnostics,
    ) -> Option<Keyframes<'t>> {
        let opts = self.opts;
        // (Under a tolerance, for the warning and the bound.)
        let finest = opts.tolerance.map(|_| fit::finest_tolerance(track));
        if let (Some(tol), Some(finest)) = (opts.tolerance, finest)
            && tol < finest
            && !self.floored
        {
            self.floored = true;
            diags.warning(
                format!(
                    "--tolerance {tol:e} is finer than glTF's f32 numbers hold `{}.{}`: \
                     its keys are fitted within {finest:.2e} (four f32 steps of its \
                     largest value), and those of every other such track within theirs",
                    self.scene.display_name(track.target),
                    track.field,
                ),
                Some(track.span),
            );
        }
        // The animation values the exact keys took from the limit.
        let mut charged = 0;
        let exact = match exact_keys(&opts, track) {
            Some(e) => {
                let per = keyframe_numbers(e.width(), matches!(e, Exact::Hermite { .. }));
                charged = exact_len_bound(&e, &clip.map).saturating_mul(per);
                if !self.spend(charged, clip, track, diags) {
                    return None;
                }
                let k = Keyframes::exact(e, &clip.map);
                // Slerp keys are cut where nlerp between them would leave
                // the bound (see `nlerp`); thinning, under a tolerance,
                // measures both ways too.
                let room = || {
                    let full = opts
                        .tolerance
                        .unwrap_or_else(|| fit::default_tolerance(track));
                    let finest = finest.unwrap_or_else(|| fit::finest_tolerance(track));
                    fit_bound(&opts, track, full, finest)
                };
                match nlerp::split(&k, room) {
                    Some(cut) => {
                        let added = (cut.len() - k.len()) * keyframe_numbers(4, false);
                        if !self.spend(added, clip, track, diags) {
                            return None;
                        }
                        charged += added;
                        Some(cut)
                    }
                    None => Some(k),
                }
            }
            None => None,
        };
        let (rotation, per) = (track.is_rotation(), track.per_element());
        // The bound the keys are fitted within (less the room left for
        // rounding them).
        let bound = opts
            .tolerance
            .zip(finest)
            .map(|(tol, finest)| fit_bound(&opts, track, tol, finest));
        // The keyframes, and how far their curve is from the true one.
        let (mut k, error) = match (exact, bound) {
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
                        self.spent(clip, track, Ok(fewer), diags)?
                    }
                    _ => (k, error),
                }
            }
            (None, tol) => {
                let interpolation = sampled_interpolation(&opts, track);
                let straight =
                    matches!(interpolation, Interpolation::Linear | Interpolation::Slerp);
                match (default_fit(&opts, track, cubic), tol) {
                    (Some((tol, shapes)), _) => self.fitted(clip, track, tol, shapes, diags)?,
                    (None, Some(tol)) if straight && opts.mode == Mode::Sample => {
                        self.fitted(clip, track, tol, Shape::STRAIGHT, diags)?
                    }
                    // Samples: no bound.
                    _ => (self.sampled(clip, track, interpolation, diags)?, 0.0),
                }
            }
        };
        let Some(bound) = bound else {
            return Some(k);
        };
        // Constant when the keys' curve is within what the fit left of the
        // tolerance: then the true curve is within the tolerance.
        let room = (bound - error).max(0.0);
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
    pub fn fitted(
        &mut self,
        clip: &Clip,
        track: &Track,
        tol: f64,
        shapes: &[Shape],
        diags: &mut Diagnostics,
    ) -> Option<(Keyframes<'static>, f64)> {
        let fitted = match self.made_ahead(track, tol, shapes) {
            Some(made) => made,
            None => {
                let width = track.width();
                let room = self.room(width, shapes.contains(&Shape::Cubic));
                clip.fitted(track, tol, shapes, room)
            }
        };
        self.spent(clip, track, fitted, diags)
    }

    /// A curve made from several tracks (`value_at`, `width` numbers a
    /// fraction) fitted within --tolerance or the default relative bound,
    /// with the corners of them all; `None` past the animation values limit.
    pub fn joint(
        &mut self,
        clip: &Clip,
        tracks: &[&Track],
        width: usize,
        shapes: &[Shape],
        value_at: &mut dyn FnMut(f64, &mut Vec<f64>),
        diags: &mut Diagnostics,
    ) -> Option<Keyframes<'static>> {
        let shapes = if self.opts.cubic {
            shapes
        } else {
            Shape::STRAIGHT
        };
        let room = self.room(width, shapes.contains(&Shape::Cubic));
        let mut corners: Vec<f64> = tracks
            .iter()
            .flat_map(|t| t.corners(t.corner_room(room)))
            .collect();
        corners.sort_by(f64::total_cmp);
        let finest = tracks
            .iter()
            .map(|t| fit::finest_tolerance(t))
            .fold(0.0, f64::max);
        let bound = fit::Bound {
            tol: self
                .opts
                .tolerance
                .unwrap_or(fit::DEFAULT_RELATIVE)
                .max(finest),
            rotation: false,
            per: width,
            lens: false,
        };
        let fitted = fit::fewest(&clip.map, &corners, width, shapes, bound, room, value_at);
        let first = tracks.first()?;
        self.spent(clip, first, fitted, diags).map(|(k, _)| k)
    }

    /// How many keys of `width` numbers are left in the animation values
    /// limit.
    pub fn room(&self, width: usize, cubic: bool) -> usize {
        self.limit.saturating_sub(self.values) / keyframe_numbers(width, cubic)
    }

    /// Fitted keyframes (and their error) taken from the animation values
    /// limit.
    pub fn spent(
        &mut self,
        clip: &Clip,
        track: &Track,
        fitted: Result<Fitted, TooMany>,
        diags: &mut Diagnostics,
    ) -> Option<(Keyframes<'static>, f64)> {
        let n = match &fitted {
            Ok(f) => f.keys.len().saturating_mul(keyframe_numbers(
                f.keys.width,
                f.keys.interpolation == Interpolation::Cubic,
            )),
            Err(TooMany) => usize::MAX,
        };
        let taken = self.spend(n, clip, track, diags);
        fitted.ok().filter(|_| taken).map(|f| (f.keys, f.error))
    }
}

#[cfg(test)]
mod tests {
    use super::{KeyChooser, KeyOptions, Mode, SampleInterpolation, sampled_interpolation};
    use crate::anim::keyframes::Interpolation;
    use crate::diag::Diagnostics;
    use crate::{Bake, Limits};

    /// A clock driving a position (2 keys), a rotation and a sequencer.
    fn bake() -> Bake {
        let x3d = "<X3D><Scene><TimeSensor DEF='C' loop='true'/>\
            <Transform DEF='T'/><Switch DEF='S'/>\
            <PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 0 0'/>\
            <OrientationInterpolator DEF='O' key='0 1' keyValue='0 1 0 0 0 1 0 1'/>\
            <IntegerSequencer DEF='Q' key='0 0.5' keyValue='0 1'/>\
            <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
            <ROUTE fromNode='C' fromField='fraction_changed' toNode='O' toField='set_fraction'/>\
            <ROUTE fromNode='C' fromField='fraction_changed' toNode='Q' toField='set_fraction'/>\
            <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/>\
            <ROUTE fromNode='O' fromField='value_changed' toNode='T' toField='rotation'/>\
            <ROUTE fromNode='Q' fromField='value_changed' toNode='S' toField='whichChoice'/>\
            </Scene></X3D>";
        let mut bake = Bake::load(
            "t.x3d",
            x3d.as_bytes().to_vec(),
            None,
            None,
            Limits::default(),
        );
        bake.animate(Default::default());
        assert!(!bake.diags.has_errors(), "{:?}", bake.diags.list());
        assert_eq!(bake.clips.len(), 1);
        bake
    }

    /// The limit is counted in numbers (a key's time and values): what
    /// fits is taken, what passes it is refused and reported once.
    #[test]
    fn the_animation_values_limit_is_spent_and_reported_once() {
        let bake = bake();
        let clip = &bake.clips[0];
        let position = clip.tracks.iter().find(|t| t.field == "translation");
        let position = position.expect("a translation track");
        let mut diags = Diagnostics::default();
        // Exact keys are charged their bound: (2 keys + a piece's 2 ends)
        // of a time and three numbers, 16.
        let mut keys = KeyChooser::new(&bake.scene, KeyOptions::default(), 20);
        let k = keys
            .keyframes(clip, position, true, &mut diags)
            .expect("within the limit");
        assert_eq!((k.len(), k.interpolation), (2, Interpolation::Linear));
        assert_eq!(keys.room(3, false), 1);
        assert!(!keys.over_limit());
        assert!(keys.keyframes(clip, position, true, &mut diags).is_none());
        assert!(keys.over_limit());
        assert!(!keys.spend(1, clip, position, &mut diags));
        assert_eq!(diags.counts(), (1, 0), "one error: {:?}", diags.list());
        assert!(diags.list()[0].message.contains("more than 20 numbers"));
    }

    /// Samples are joined as their kind needs: slerp for rotations,
    /// steps for a sequencer whatever --interpolation says.
    #[test]
    fn sampled_tracks_are_joined_as_their_kind_needs() {
        let bake = bake();
        let track = |field: &str| {
            let t = bake.clips[0].tracks.iter().find(|t| t.field == field);
            t.expect("a track")
        };
        let sample = |interpolation| KeyOptions {
            mode: Mode::Sample,
            interpolation,
            ..KeyOptions::default()
        };
        let linear = sample(SampleInterpolation::Linear);
        let cubic = sample(SampleInterpolation::Cubic);
        let of = |o: &KeyOptions, f| sampled_interpolation(o, track(f));
        assert_eq!(of(&linear, "rotation"), Interpolation::Slerp);
        assert_eq!(of(&linear, "translation"), Interpolation::Linear);
        assert_eq!(of(&cubic, "whichChoice"), Interpolation::Step);
        assert_eq!(of(&cubic, "translation"), Interpolation::Cubic);
        let exact = KeyOptions::default();
        assert_eq!(of(&exact, "whichChoice"), Interpolation::Step);
    }
}
