//! TimeSensors in world time: each clock's runs, its state at load, and
//! what it does as its inputs are set (start, stop, pause, resume, enable).

use crate::scene::NodeId;

use super::{Ev, Field, Player};
use crate::anim::clock::Clock;

/// A TimeSensor as the cascade plays it.
pub(super) struct Sensor {
    pub(super) clock: Clock,
    /// When the run under way began, moved on by the time it has been
    /// paused: its fraction counts from there (its number is `ended`).
    pub(super) active: Option<f64>,
    /// Runs ended so far.
    pub(super) ended: u32,
    /// The parts of the runs ended so far (a run paused and resumed is a
    /// part a stretch): the clock with each part's start, stop and pause.
    pub(super) played: Vec<Clock>,
    /// The run under way: when its current stretch began sending (a
    /// resume; -∞ at its start), where it paused, its earlier stretches,
    /// and how many stretches it has had (pauses and resumes both count).
    pub(super) from: f64,
    pub(super) paused: Option<f64>,
    pub(super) parts: Vec<Clock>,
    pub(super) stretch: u32,
}

impl Sensor {
    pub(super) fn new(clock: Clock) -> Sensor {
        Sensor {
            clock,
            active: None,
            ended: 0,
            played: Vec::new(),
            from: f64::NEG_INFINITY,
            paused: None,
            parts: Vec::new(),
            stretch: 0,
        }
    }

    /// The run under way: its number and (moved on) start.
    pub(super) fn current(&self) -> Option<(u32, f64)> {
        self.active.map(|start| (self.ended, start))
    }

    /// The current stretch of the run under way as a clock, stopped at
    /// `stop`.
    pub(super) fn part(&self, stop: f64) -> Option<Clock> {
        let start = self.active?;
        Some(self.clock.segment(start, self.from, stop, self.paused))
    }
}

impl<'s> Player<'s> {
    /// The clocks' times from the file in world time, seconds after `load`
    /// (absolute), and each clock's state at load (see
    /// [`Player::initial_start`]).
    pub(super) fn load_clocks(&mut self, load: f64) {
        let mut ids: Vec<NodeId> = self.sensors.keys().copied().collect();
        ids.sort();
        for id in ids {
            if let Some(Sensor {
                clock:
                    Clock::TimeSensor {
                        start_time,
                        stop_time,
                        pause_time,
                        resume_time,
                        ..
                    },
                ..
            }) = self.sensors.get_mut(&id)
            {
                for t in [start_time, stop_time, pause_time, resume_time] {
                    *t -= load;
                }
            }
            self.initial_start(id);
        }
    }

    /// A TimeSensor's own run, from its fields in the file (in world time),
    /// as the text says and X_ITE loads it: a startTime still to come
    /// starts it then; one that has come (at or before load, world time 0)
    /// leaves it running only if it has not stopped (a stopTime after its
    /// startTime, come too) and either loops, in the cycle it is in at load
    /// (fraction (load − startTime) mod cycleInterval / cycleInterval; the
    /// run is begun at that cycle's start, so that a clock of 1970 does not
    /// play its billion cycles), or is still inside its one cycle.
    /// docs/interpretations.md.
    pub(super) fn initial_start(&mut self, id: NodeId) {
        let Clock::TimeSensor {
            start_time,
            stop_time,
            cycle_interval,
            looping,
            enabled,
            ..
        } = self.sensors[&id].clock
        else {
            return;
        };
        if !enabled || cycle_interval <= 0.0 {
            return;
        }
        let stopped = stop_time > start_time && stop_time <= 0.0;
        let at = match () {
            _ if start_time > 0.0 => start_time,
            _ if stopped => return,
            _ if looping => start_time + (-start_time / cycle_interval).floor() * cycle_interval,
            _ if start_time + cycle_interval > 0.0 => start_time,
            _ => return,
        };
        self.push(at, id, Field::Start, Ev::Time(start_time));
    }

    pub(super) fn sensor_input(&mut self, t: f64, id: NodeId, field: &'s str, v: Ev) {
        let Some(active) = self.sensors.get(&id).map(Sensor::current) else {
            return; // a clock that does not run here (a clip's, alone)
        };
        let Some(s) = self.sensors.get_mut(&id) else {
            return;
        };
        let paused = s.paused;
        let Clock::TimeSensor {
            start_time,
            stop_time,
            enabled,
            looping,
            cycle_interval,
            pause_time,
            resume_time,
            ..
        } = &mut s.clock
        else {
            return;
        };
        match field {
            // Ignored while active.
            "startTime" if active.is_none() => {
                let Some(v) = v.time() else { return };
                *start_time = v;
                if *enabled {
                    // A startTime already past starts the clock now.
                    self.push(v.max(t), id, Field::Start, Ev::Time(v));
                }
            }
            "stopTime" => {
                let Some(v) = v.time() else { return };
                *stop_time = v;
                if let Some((run, start)) = active
                    && v > start
                {
                    self.push(v.max(t), id, Field::Stop(run), Ev::Time(v));
                }
            }
            "enabled" => {
                let on = v.truth();
                *enabled = on;
                if !on && active.is_some() {
                    self.end(t, id);
                }
            }
            "pauseTime" => {
                let Some(v) = v.time() else { return };
                *pause_time = v;
                if let Some((run, _)) = active
                    && paused.is_none()
                    && v > *resume_time
                {
                    self.push(v.max(t), id, Field::Pause(run), Ev::Time(v));
                }
            }
            "resumeTime" => {
                let Some(v) = v.time() else { return };
                *resume_time = v;
                if let Some((run, _)) = active
                    && paused.is_some_and(|p| v > p)
                {
                    self.push(v.max(t), id, Field::Resume(run), Ev::Time(v));
                }
            }
            "loop" => *looping = v.truth(),
            "cycleInterval" if active.is_none() => {
                if let Some(v) = v.time() {
                    *cycle_interval = v;
                }
            }
            _ => {}
        }
        if matches!(
            field,
            "startTime"
                | "stopTime"
                | "pauseTime"
                | "resumeTime"
                | "enabled"
                | "loop"
                | "cycleInterval"
        ) {
            self.send(t, id, field, v);
        }
    }

    /// A run begins at `t`.
    pub(super) fn begin(&mut self, t: f64, id: NodeId) {
        let s = self.sensors.get_mut(&id).expect("a sensor");
        let Clock::TimeSensor { cycle_interval, .. } = s.clock else {
            return;
        };
        if cycle_interval <= 0.0 {
            return;
        }
        let run = s.ended;
        s.active = Some(t);
        (s.from, s.paused) = (f64::NEG_INFINITY, None);
        s.parts.clear();
        let stretch = s.stretch;
        if let Clock::TimeSensor {
            stop_time,
            pause_time,
            resume_time,
            ..
        } = s.clock
        {
            if stop_time > t {
                self.push(stop_time, id, Field::Stop(run), Ev::Time(stop_time));
            }
            // A pauseTime from the file still to come.
            if pause_time > resume_time && pause_time > t {
                self.push(pause_time, id, Field::Pause(run), Ev::Time(pause_time));
            }
        }
        self.refeed(t, id);
        self.send(t, id, "isActive", Ev::Bool(true));
        self.send(t, id, "cycleTime", Ev::Time(t));
        self.set_cycle_end(t + cycle_interval, id, run, stretch);
    }

    /// Sets the end of a cycle of run `run` in its `stretch` at `at`, if it
    /// comes by the end of the play; for a clock that Scripts or followers
    /// follow at frames, also the instant before it, when it comes before
    /// the end of the play (see [`Player::cycle_ending`]).
    pub(super) fn set_cycle_end(&mut self, at: f64, id: NodeId, run: u32, stretch: u32) {
        if at > self.until {
            return;
        }
        self.push(at, id, Field::CycleEnd(run, stretch), Ev::Time(at));
        if at < self.until && self.frames.sensors.contains(&id) {
            let before = Field::CycleEnding(run, stretch);
            self.push(at.next_down(), id, before, Ev::Time(at));
        }
    }

    /// The sensor is in run `run`, in its `stretch`, not paused: a cycle
    /// end set for them is not stale. Its clock and the run's start.
    fn in_run(&self, id: NodeId, run: u32, stretch: u32) -> Option<(&Clock, f64)> {
        let s = &self.sensors[&id];
        match s.current() {
            Some((r, start)) if r == run && s.stretch == stretch && s.paused.is_none() => {
                Some((&s.clock, start))
            }
            _ => None,
        }
    }

    pub(super) fn cycle_end(&mut self, t: f64, id: NodeId, run: u32, stretch: u32) {
        let Some((
            &Clock::TimeSensor {
                cycle_interval,
                looping,
                ..
            },
            _,
        )) = self.in_run(id, run, stretch)
        else {
            return;
        };
        if !looping {
            self.end(t, id);
            return;
        }
        self.send(t, id, "cycleTime", Ev::Time(t));
        // Only when something listens: a looping clock has no end.
        let framed = self.frames.sensors.contains(&id);
        if framed || self.routes.contains_key(&(id, "cycleTime")) {
            self.set_cycle_end(t + cycle_interval, id, run, stretch);
        }
        // The next cycle's first values, where the fraction wraps.
        let s = &self.sensors[&id];
        if let (true, Some((_, start)), Some(part)) =
            (framed, s.current(), s.part(f64::NEG_INFINITY))
        {
            self.continuous(t, id, &part, start);
        }
    }

    /// The instant before the end of a cycle of a looping clock that
    /// Scripts or followers follow at frames: its continuous outputs as
    /// the cycle ends, the fraction 1, so that with the next cycle's
    /// first values at the end itself what they make of it jumps there.
    pub(super) fn cycle_ending(&mut self, t: f64, id: NodeId, run: u32, stretch: u32) {
        if let Some((&Clock::TimeSensor { looping: true, .. }, start)) =
            self.in_run(id, run, stretch)
        {
            self.continuous_with(t, id, 1.0, start, true);
        }
    }

    /// The run under way ends at `t`.
    pub(super) fn end(&mut self, t: f64, id: NodeId) {
        let s = self.sensors.get_mut(&id).expect("a sensor");
        let Some(run) = s.part(t) else {
            return;
        };
        let start = s.active.take().unwrap_or(t);
        let parts = std::mem::take(&mut s.parts);
        s.played.extend(parts);
        s.played.push(run.clone());
        s.ended += 1;
        s.paused = None;
        // Scripts that follow the fraction get its last value, followers
        // that head for it where it stopped.
        if self.frames.sensors.contains(&id) {
            self.continuous(t, id, &run, start);
        }
        self.unfeed(t, id);
        self.send(t, id, "isActive", Ev::Bool(false));
    }
}
