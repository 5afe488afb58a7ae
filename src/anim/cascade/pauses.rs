//! A TimeSensor paused and resumed by its pauseTime and resumeTime (set by
//! events, or a pauseTime in the file): ISO/IEC 19775-1, "Time" — a run
//! pauses at a pauseTime after its resumeTime, sends isPaused TRUE and
//! holds its fraction; it resumes at a resumeTime after the pause, sends
//! isPaused FALSE and goes on from the fraction it held, its cycles moved
//! on by the time it was paused (elapsedTime leaves the pause out).
//! Each stretch of a run between pauses is a clock of its own
//! (`Clock::segment`): its start moved on, sending from its resume.

use super::{Ev, Player};
use crate::anim::clock::Clock;
use crate::scene::NodeId;

impl Player<'_> {
    /// Run `run` of a sensor pauses at `t`.
    pub(super) fn pause(&mut self, t: f64, id: NodeId, run: u32) {
        let Some(s) = self.sensors.get_mut(&id) else {
            return;
        };
        if s.current().is_none_or(|(r, _)| r != run) || s.paused.is_some() {
            return;
        }
        s.paused = Some(t);
        s.stretch += 1;
        self.refeed(t, id);
        self.send(t, id, "isPaused", Ev::Bool(true));
    }

    /// Run `run` of a sensor resumes at `t`.
    pub(super) fn resume(&mut self, t: f64, id: NodeId, run: u32) {
        let Some(s) = self.sensors.get_mut(&id) else {
            return;
        };
        let (Some((r, start)), Some(paused)) = (s.current(), s.paused) else {
            return;
        };
        let Clock::TimeSensor {
            stop_time,
            cycle_interval,
            ..
        } = s.clock
        else {
            return;
        };
        if r != run {
            return;
        }
        // The stretch before, held from its pause.
        let before = s.clock.segment(start, s.from, stop_time, Some(paused));
        s.parts.push(before);
        let start = start + (t - paused);
        s.active = Some(start);
        (s.from, s.paused) = (t, None);
        s.stretch += 1;
        let stretch = s.stretch;
        // The cycle under way ends its pause later.
        let next = start + ((t - start) / cycle_interval).floor() * cycle_interval + cycle_interval;
        self.set_cycle_end(next, id, run, stretch);
        self.refeed(t, id);
        self.send(t, id, "isPaused", Ev::Bool(false));
    }
}
