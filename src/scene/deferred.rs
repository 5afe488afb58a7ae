//! Long float values read on another thread while the reader goes on
//! through the rest of its file (`Builder::defer_long_values`): a value
//! of at least [`par::SPLIT_BYTES`] (a CoordinateInterpolator's keyValue)
//! is handed over as a [`LongFloats`] when the reader comes to it, its
//! field holds an empty placeholder meanwhile, and at the end of the file
//! the reader helps read what is left of it from its end; then each field
//! gets its value, or the diagnostic it would have had, in the place it
//! would have had it. The scene is the one read in turn.

use super::NodeId;
use super::build::TextPos;
use super::value::{Encoding, FieldType, LongFloats};
use crate::par;
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// Where a reader's long float values go to be read.
pub(super) struct Deferral<'t> {
    /// The file's text: each value is a part of it.
    pub text: &'t str,
    /// To the other thread; none once the file is read.
    jobs: Option<Sender<Arc<LongFloats>>>,
    /// The fields whose values were handed over, in the file's order.
    pub fields: Vec<Deferred>,
}

/// A field whose value is read on the other thread.
pub(super) struct Deferred {
    pub id: NodeId,
    pub name: String,
    pub ty: FieldType,
    pub pos: TextPos,
    /// The value's text in the file's.
    pub text: std::ops::Range<usize>,
    pub floats: Arc<LongFloats>,
    /// What the field holds until its value is read.
    pub placeholder: Arc<Vec<f32>>,
    /// Where in the list of diagnostics one for the value goes.
    pub diag_at: usize,
}

impl<'t> Deferral<'t> {
    /// Values of `text` (the file's) go to the thread reading `jobs`.
    pub fn new(text: &'t str, jobs: Sender<Arc<LongFloats>>) -> Deferral<'t> {
        Deferral {
            text,
            jobs: Some(jobs),
            fields: Vec::new(),
        }
    }

    /// Hands `value` over when it is long, a part of the file's text, and
    /// the other thread is there: its range in the file's text and the
    /// floats being read.
    pub fn hand_over(
        &mut self,
        value: &str,
        enc: Encoding,
    ) -> Option<(std::ops::Range<usize>, Arc<LongFloats>)> {
        if value.len() < par::SPLIT_BYTES {
            return None;
        }
        let (base, at) = (self.text.as_ptr() as usize, value.as_ptr() as usize);
        if at < base || at + value.len() > base + self.text.len() {
            return None;
        }
        let at = at - base;
        let floats = Arc::new(LongFloats::new(value, at, enc));
        self.jobs.as_ref()?.send(Arc::clone(&floats)).ok()?;
        Some((at..at + value.len(), floats))
    }

    /// No more values: the other thread stops once it has read those it
    /// has.
    pub fn close(&mut self) {
        self.jobs = None;
    }
}
