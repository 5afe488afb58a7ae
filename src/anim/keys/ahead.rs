//! Tracks fitted ahead on several threads. The default bake's fit costs a
//! few microseconds a key written (src/anim/fit.rs), so the chooser fits
//! the next tracks that need it in a batch, split over the machine's cores,
//! before it takes them in order. A fit depends on its track alone, so the
//! output is the same bytes as fitting them one by one.

use super::{KeyChooser, default_fit};
use crate::anim::clip::{Clip, Track};
use crate::anim::fit::{Fitted, Shape, TooMany};
use crate::hash::HashMap;
use crate::par;
use crate::scene::NodeId;

/// Tracks looked at a batch (the fits it holds at once bound the memory).
const BATCH: usize = 64;

/// What identifies a track within a clip.
type TrackKey = (NodeId, NodeId, String);

fn key(track: &Track) -> TrackKey {
    (track.source, track.target, track.field.clone())
}

/// A fit made ahead: the bound and shapes it was made with, and its result.
type Made = (f64, &'static [Shape], Result<Fitted, TooMany>);

/// The fits made ahead for one clip, and how far its tracks were looked at.
#[derive(Default)]
pub(super) struct Ahead {
    clip: usize,
    until: usize,
    made: HashMap<TrackKey, Made>,
}

impl KeyChooser<'_> {
    /// Before the writer takes track `ti` of clip `ci`: the fits of the next
    /// batch of tracks from it, unless they were made; `skip` tells the
    /// tracks the writer will not ask for (written with another).
    pub fn fit_ahead(&mut self, ci: usize, ti: usize, clip: &Clip, skip: impl Fn(usize) -> bool) {
        let opts = self.opts;
        if self.ahead.clip != ci {
            self.ahead = Ahead {
                clip: ci,
                ..Ahead::default()
            };
        }
        if ti < self.ahead.until {
            return;
        }
        let end = (ti + BATCH).min(clip.tracks.len());
        self.ahead.until = end;
        let jobs: Vec<(&Track, f64, &'static [Shape], usize)> = (ti..end)
            .filter(|&i| !skip(i))
            .map(|i| &clip.tracks[i])
            .filter(|t| t.interpolator().produces())
            .filter_map(|t| {
                let (tol, shapes) = default_fit(&opts, t, true)?;
                Some((t, tol, shapes, self.room(t.width(), true)))
            })
            .collect();
        // One thread does one at a time as well as the batch.
        if jobs.len() < 2 {
            return;
        }
        let threads = par::budget(opts.threads);
        let made = par::with_share(threads, || fit_all(clip, &jobs));
        for (job, made) in jobs.iter().zip(made) {
            self.ahead.made.insert(key(job.0), (job.1, job.2, made));
        }
    }

    /// The fit made ahead for `track` with this bound and these shapes.
    pub(super) fn made_ahead(
        &mut self,
        track: &Track,
        tol: f64,
        shapes: &[Shape],
    ) -> Option<Result<Fitted, TooMany>> {
        let (t, s, made) = self.ahead.made.remove(&key(track))?;
        (t == tol && s == shapes).then_some(made)
    }
}

/// Each job's fit, in order, on this thread's share of the cores.
fn fit_all(
    clip: &Clip,
    jobs: &[(&Track, f64, &'static [Shape], usize)],
) -> Vec<Result<Fitted, TooMany>> {
    if par::budget(0) < 2 || jobs.len() < 2 {
        return jobs
            .iter()
            .map(|&(track, tol, shapes, room)| clip.fitted(track, tol, shapes, room))
            .collect();
    }
    let (a, b) = jobs.split_at(jobs.len() / 2);
    let (mut a, b) = par::join(|| fit_all(clip, a), || fit_all(clip, b));
    a.extend(b);
    a
}
