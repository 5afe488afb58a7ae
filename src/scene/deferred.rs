//! Long float values read on another thread while the reader goes on
//! through the rest of its file (`Builder::defer_long_values`): a value
//! of at least [`par::SPLIT_BYTES`] (a CoordinateInterpolator's keyValue)
//! is handed over as a [`LongFloats`] when the reader comes to it, its
//! field holds an empty placeholder meanwhile, and at the end of the file
//! the reader helps read what is left of it from its end; then each field
//! gets its value, or the diagnostic it would have had, in the place it
//! would have had it. The scene is the one read in turn.

use super::value::{
    Data, Encoding, FieldType, LongFloats, TextPos, ValueError, bad_value, floats_value,
};
use super::{NodeId, Scene};
use crate::diag::Diagnostics;
use crate::par;
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// Where a reader's long float values go to be read, and the fields
/// waiting for them.
pub struct Deferral {
    /// Where the file's text is in memory: each value is a part of it.
    file: std::ops::Range<usize>,
    /// To the other thread; none once the file is read.
    jobs: Option<Sender<Arc<LongFloats>>>,
    /// The fields whose values were handed over, in the file's order.
    pub(super) fields: Vec<Deferred>,
}

/// A field whose value is read on the other thread.
pub(super) struct Deferred {
    pub(super) id: NodeId,
    pub(super) name: String,
    pub(super) ty: FieldType,
    pub(super) pos: TextPos,
    /// The value's text in the file's.
    pub(super) text: std::ops::Range<usize>,
    pub(super) floats: Arc<LongFloats>,
    /// What the field holds until its value is read.
    pub(super) placeholder: Arc<Vec<f32>>,
    /// Where in the list of diagnostics one for the value goes.
    pub(super) diag_at: usize,
}

impl Deferral {
    /// Values of `text` (the file's) go to the thread reading `jobs`.
    pub(super) fn new(text: &str, jobs: Sender<Arc<LongFloats>>) -> Deferral {
        let at = text.as_ptr() as usize;
        Deferral {
            file: at..at + text.len(),
            jobs: Some(jobs),
            fields: Vec::new(),
        }
    }

    /// Hands `value` over when it is long, a part of the file's text, and
    /// the other thread is there: its range in the file's text and the
    /// floats being read.
    pub(super) fn hand_over(
        &mut self,
        value: &str,
        enc: Encoding,
    ) -> Option<(std::ops::Range<usize>, Arc<LongFloats>)> {
        if value.len() < par::SPLIT_BYTES {
            return None;
        }
        let at = value.as_ptr() as usize;
        if at < self.file.start || at + value.len() > self.file.end {
            return None;
        }
        let at = at - self.file.start;
        let floats = Arc::new(LongFloats::new(value, at, enc));
        self.jobs.as_ref()?.send(Arc::clone(&floats)).ok()?;
        Some((at..at + value.len(), floats))
    }

    /// No more values: the other thread stops once it has read those it
    /// has.
    pub(super) fn close(&mut self) {
        self.jobs = None;
    }

    /// The values handed over, in the file's order, for the reader to
    /// help read ([`LongFloats::read_back`]).
    pub fn values(&self) -> impl Iterator<Item = &LongFloats> {
        self.fields.iter().map(|f| &*f.floats)
    }

    /// Gives each field handed over its value (`read`, in the order of
    /// [`Deferral::values`]; `text` the file's), or, for a value in error,
    /// the diagnostic it would have had where it would have had it, and its
    /// default: the scene and diagnostics of reading each value in turn
    /// (read with `encoding`). A field set again later in the file keeps
    /// that value.
    pub fn resolve(
        self,
        text: &str,
        scene: &mut Scene,
        diags: &mut Diagnostics,
        encoding: Encoding,
        read: Vec<Result<Vec<f32>, ValueError>>,
    ) {
        let mut places: Vec<usize> = self.fields.iter().map(|f| f.diag_at).collect();
        for (k, (f, read)) in self.fields.into_iter().zip(read).enumerate() {
            let text = &text[f.text.clone()];
            let value = read.and_then(|floats| floats_value(f.ty, floats, text));
            let values = &mut scene.nodes[f.id.0 as usize].values;
            let held = values.get_mut(&f.name).filter(
                |set| matches!(&set.value.data, Data::Floats(v) if Arc::ptr_eq(v, &f.placeholder)),
            );
            match (value, held) {
                (Ok(value), Some(set)) => set.value = value,
                (Ok(_), None) => {}
                (Err(e), held) => {
                    if held.is_some() {
                        values.remove(&f.name);
                    }
                    let node = &scene.node(f.id).type_name;
                    let d = bad_value(encoding, node, &f.name, f.ty, f.pos, e);
                    let (went, out) = diags.insert(places[k], d);
                    // The places of those still to come move with it.
                    for p in &mut places[k + 1..] {
                        if out.is_some_and(|out| out < *p) {
                            *p -= 1;
                        }
                        if went.is_some_and(|went| went <= *p) {
                            *p += 1;
                        }
                    }
                }
            }
        }
    }
}
