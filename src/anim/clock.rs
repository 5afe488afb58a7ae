//! Clocks: how a TimeSensor or a project three Timer turns time into a
//! fraction, over a baked clip and over world time.

use crate::scene::{NodeId, NodeType, Scene};

/// A clock's fields.
#[derive(Clone, Debug, PartialEq)]
pub enum Clock {
    /// An X3D TimeSensor.
    TimeSensor {
        /// `cycleInterval`, seconds.
        cycle_interval: f64,
        /// `loop`.
        looping: bool,
        /// `enabled`.
        enabled: bool,
        /// `startTime`, world seconds.
        start_time: f64,
        /// `stopTime`.
        stop_time: f64,
        /// `pauseTime`.
        pause_time: f64,
        /// `resumeTime`.
        resume_time: f64,
        /// World time before which the clock sends nothing (`-∞`: its
        /// start): the part of a run after a resume, whose start is moved
        /// on by the time it was paused.
        from: f64,
    },
    /// Project three: u = fract((t − shift)/period) for period > 0, or
    /// (t − shift)/(−period) for period < 0.
    Timer {
        /// `period`, seconds (negative: not periodic).
        period: f64,
        /// `shift`, seconds.
        shift: f64,
    },
}

/// A stretch of clip time in which the fraction is linear in time:
/// from (t0, f0) to (t1, f1), with f1 > f0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// Clip time where the piece starts.
    pub t0: f64,
    /// Clip time where it ends.
    pub t1: f64,
    /// The fraction at `t0`.
    pub f0: f64,
    /// The fraction at `t1`.
    pub f1: f64,
}

impl Piece {
    /// The fraction at clip time `t`.
    pub fn fraction(&self, t: f64) -> f64 {
        self.f0 + (t - self.t0) / (self.t1 - self.t0) * (self.f1 - self.f0)
    }
    /// The clip time of fraction `f`.
    pub fn time(&self, f: f64) -> f64 {
        self.t0 + (f - self.f0) / (self.f1 - self.f0) * (self.t1 - self.t0)
    }
    /// Fraction per second.
    pub fn rate(&self) -> f64 {
        (self.f1 - self.f0) / (self.t1 - self.t0)
    }
}

/// The fraction over a clip's time, as linear pieces from 0 to the clip's
/// duration. Between pieces the fraction may jump (the end of a cycle).
#[derive(Clone, Debug, PartialEq)]
pub struct FractionMap {
    /// The pieces, in time order.
    pub pieces: Vec<Piece>,
}

impl FractionMap {
    /// The clip's length in seconds.
    pub fn duration(&self) -> f64 {
        self.pieces.last().map_or(0.0, |p| p.t1)
    }

    /// The fraction at clip time `t`: right-continuous at a jump between
    /// pieces, and the end of the last piece at the clip's end (a baked
    /// cycle ends on fraction 1, as the X3D text says).
    pub fn fraction(&self, t: f64) -> f64 {
        let i = self
            .pieces
            .partition_point(|p| p.t1 <= t)
            .min(self.pieces.len() - 1);
        self.pieces[i].fraction(t.clamp(self.pieces[i].t0, self.pieces[i].t1))
    }
}

impl Clock {
    /// The fraction map of a baked clip of `cycles` cycles. For a Timer with
    /// a negative period, `key_range` gives the fractions the clip spans.
    /// `None` when the clock has no positive cycle.
    pub fn clip(&self, cycles: u32, key_range: (f64, f64)) -> Option<FractionMap> {
        let mut pieces = Vec::new();
        match *self {
            Clock::TimeSensor { cycle_interval, .. } => {
                if cycle_interval <= 0.0 {
                    return None;
                }
                for k in 0..cycles {
                    let t0 = k as f64 * cycle_interval;
                    pieces.push(Piece {
                        t0,
                        t1: t0 + cycle_interval,
                        f0: 0.0,
                        f1: 1.0,
                    });
                }
            }
            Clock::Timer { period, shift } if period > 0.0 => {
                // At clip time 0 the fraction is fract(−shift/period).
                let phase = (-shift / period).rem_euclid(1.0);
                for k in 0..cycles {
                    let base = k as f64 * period;
                    let split = base + (1.0 - phase) * period;
                    if phase < 1.0 {
                        pieces.push(Piece {
                            t0: base,
                            t1: split,
                            f0: phase,
                            f1: 1.0,
                        });
                    }
                    if phase > 0.0 {
                        pieces.push(Piece {
                            t0: split,
                            t1: base + period,
                            f0: 0.0,
                            f1: phase,
                        });
                    }
                }
            }
            Clock::Timer { period, .. } if period < 0.0 => {
                let (lo, hi) = key_range;
                if hi <= lo {
                    return None;
                }
                pieces.push(Piece {
                    t0: 0.0,
                    t1: (hi - lo) * -period,
                    f0: lo,
                    f1: hi,
                });
            }
            Clock::Timer { .. } => return None,
        }
        Some(FractionMap { pieces })
    }

    /// Where a non-periodic Timer's clip starts in world time.
    pub fn clip_start(&self, key_range: (f64, f64)) -> f64 {
        match *self {
            Clock::Timer { period, shift } if period < 0.0 => shift + key_range.0 * -period,
            _ => 0.0,
        }
    }

    /// Whether the clock repeats (a looping TimeSensor or a periodic Timer).
    pub fn looping(&self) -> bool {
        match *self {
            Clock::TimeSensor { looping, .. } => looping,
            Clock::Timer { period, .. } => period > 0.0,
        }
    }

    /// The world times within `span` where this clock sends one of
    /// `fractions` (in every cycle), and where its run starts, stops or
    /// pauses, appended to `out` (until it holds `max`).
    pub fn world_times(&self, fractions: &[f64], span: (f64, f64), max: usize, out: &mut Vec<f64>) {
        let (from, to) = span;
        let push = |t: f64, out: &mut Vec<f64>| {
            if t >= from && t <= to && out.len() < max {
                out.push(t);
            }
        };
        match *self {
            Clock::TimeSensor {
                cycle_interval: c,
                looping,
                enabled,
                start_time: s,
                stop_time,
                pause_time,
                resume_time,
                from: sends_from,
            } => {
                if !enabled || c <= 0.0 {
                    return;
                }
                let run = Run::of(s, c, looping, stop_time, pause_time, resume_time);
                // (A paused clock sends nothing more.)
                let end = run.pause.unwrap_or(run.end);
                let begin = s.max(sends_from);
                push(begin, out);
                push(end, out);
                let first = ((from.max(begin) - s) / c).floor().max(0.0) as u64;
                let mut k = first;
                while s + k as f64 * c <= to.min(end) && out.len() < max {
                    for &g in fractions {
                        let t = s + (k as f64 + g) * c;
                        if t <= end && t >= begin {
                            push(t, out);
                        }
                    }
                    k += 1;
                }
            }
            Clock::Timer { period, shift } if period > 0.0 => {
                let first = ((from - shift) / period).floor() as i64;
                let last = ((to - shift) / period).ceil() as i64;
                for k in first..=last {
                    for &g in fractions {
                        push(shift + (k as f64 + g) * period, out);
                    }
                    if out.len() >= max {
                        return;
                    }
                }
            }
            Clock::Timer { period, shift } if period < 0.0 => {
                for &g in fractions {
                    push(shift + g * -period, out);
                }
            }
            Clock::Timer { .. } => {}
        }
    }

    /// The same clock with one run's start and stop (a stop at or before
    /// the start: none).
    pub fn run(&self, start: f64, stop: f64) -> Clock {
        match self.clone() {
            Clock::TimeSensor {
                cycle_interval,
                looping,
                enabled,
                pause_time,
                resume_time,
                ..
            } => Clock::TimeSensor {
                cycle_interval,
                looping,
                enabled,
                start_time: start,
                stop_time: stop,
                pause_time,
                resume_time,
                from: f64::NEG_INFINITY,
            },
            timer => timer,
        }
    }

    /// One part of a run paused and resumed by events: it sends from
    /// `from` (a resume; -∞ for the run's first part), its fraction as if
    /// it had started at `start` (the run's start moved on by the time it
    /// was paused), until a stop after it (`stop`) and, when `pause` is
    /// given, frozen from then on.
    pub fn segment(&self, start: f64, from: f64, stop: f64, pause: Option<f64>) -> Clock {
        match self.run(start, stop) {
            Clock::TimeSensor {
                cycle_interval,
                looping,
                enabled,
                start_time,
                stop_time,
                ..
            } => Clock::TimeSensor {
                cycle_interval,
                looping,
                enabled,
                start_time,
                stop_time,
                pause_time: pause.unwrap_or(f64::NEG_INFINITY),
                resume_time: f64::NEG_INFINITY,
                from,
            },
            timer => timer,
        }
    }

    /// When it begins sending in world time: its start, or for the
    /// stretch of a run after a resume, the resume (a Timer: always).
    pub fn begins(&self) -> f64 {
        match *self {
            Clock::TimeSensor {
                start_time, from, ..
            } => start_time.max(from),
            Clock::Timer { .. } => f64::NEG_INFINITY,
        }
    }

    /// The fraction this clock sends at world time `t`, or `None` when it
    /// has sent none yet (the targets keep their own values).
    pub fn world_fraction(&self, t: f64) -> Option<f64> {
        self.world_event(t).map(|(f, _)| f)
    }

    /// The last fraction this clock has sent by world time `t` and when it
    /// sent it, or `None` when it has sent none yet.
    ///
    /// A TimeSensor starts at startTime (if enabled), runs one cycle or,
    /// looping, until a stopTime after its startTime; it sends fraction 1 at
    /// the end of a cycle that ends its run, and keeps its last fraction once
    /// stopped. It pauses at a pauseTime inside its run only when pauseTime
    /// is after resumeTime (a pauseTime at or before resumeTime is ignored,
    /// and so the default 0 and 0 never pause), and, both being fixed, stays
    /// paused: a resumeTime after pauseTime would have made the pause
    /// ignored. A paused clock sends nothing.
    pub fn world_event(&self, t: f64) -> Option<(f64, f64)> {
        match *self {
            Clock::Timer { period, shift } => {
                if period > 0.0 {
                    Some((((t - shift) / period).rem_euclid(1.0), t))
                } else if period < 0.0 {
                    Some(((t - shift) / -period, t))
                } else {
                    None
                }
            }
            Clock::TimeSensor {
                cycle_interval: cycle,
                looping,
                enabled,
                start_time: start,
                stop_time: stop,
                pause_time: pause,
                resume_time: resume,
                from,
            } => {
                if !enabled || cycle <= 0.0 || t < start || t < from {
                    return None;
                }
                let run = Run::of(start, cycle, looping, stop, pause, resume);
                // The time of the last event: now, or the end of the run, or
                // the pause.
                let last = match (run.pause, t.min(run.end)) {
                    (Some(pause), now) if now >= pause => pause,
                    (_, now) => now,
                };
                let cycles = (last - start) / cycle;
                if !looping && last - start >= cycle {
                    return Some((1.0, last));
                }
                let f = cycles.fract();
                // A run stopped exactly at the end of a cycle shows 1.
                if f == 0.0 && cycles > 0.0 && last >= run.stop {
                    Some((1.0, last))
                } else {
                    Some((f, last))
                }
            }
        }
    }
}

/// When a TimeSensor's run from `start` ends: at a stopTime after its
/// start (`stop`, else never), or after one cycle when it does not loop;
/// and where it pauses, at a pauseTime inside the run that is after the
/// resumeTime (one at or before it is ignored, as the defaults 0 and 0 are).
struct Run {
    stop: f64,
    end: f64,
    pause: Option<f64>,
}

impl Run {
    fn of(start: f64, cycle: f64, looping: bool, stop: f64, pause: f64, resume: f64) -> Run {
        let stop = if stop > start { stop } else { f64::INFINITY };
        // A one-cycle run ends by itself.
        let end = if looping {
            stop
        } else {
            stop.min(start + cycle)
        };
        let pause = (pause > resume && pause > start && pause < end).then_some(pause);
        Run { stop, end, pause }
    }
}

/// A clock node's fields.
pub fn clock_of(scene: &Scene, id: NodeId) -> Option<Clock> {
    match scene.node_type(id)? {
        NodeType::TimeSensor => Some(Clock::TimeSensor {
            cycle_interval: scene.number(id, "cycleInterval"),
            looping: scene.flag(id, "loop"),
            enabled: scene.flag(id, "enabled"),
            start_time: scene.number(id, "startTime"),
            stop_time: scene.number(id, "stopTime"),
            pause_time: scene.number(id, "pauseTime"),
            resume_time: scene.number(id, "resumeTime"),
            from: f64::NEG_INFINITY,
        }),
        NodeType::Timer => Some(Clock::Timer {
            period: scene.number(id, "period"),
            shift: scene.number(id, "shift"),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(cycle: f64, looping: bool, start: f64, stop: f64) -> Clock {
        Clock::TimeSensor {
            cycle_interval: cycle,
            looping,
            enabled: true,
            start_time: start,
            stop_time: stop,
            pause_time: 0.0,
            resume_time: 0.0,
            from: f64::NEG_INFINITY,
        }
    }

    #[test]
    fn time_sensor_clip_ends_on_one_and_cycles_jump() {
        let m = ts(2.0, true, 0.0, 0.0).clip(2, (0.0, 1.0)).unwrap();
        assert_eq!(m.duration(), 4.0);
        assert_eq!(m.fraction(0.5), 0.25);
        assert_eq!(m.fraction(2.0), 0.0); // start of the second cycle
        assert_eq!(m.fraction(4.0), 1.0); // end of the clip
        assert!(ts(0.0, true, 0.0, 0.0).clip(1, (0.0, 1.0)).is_none());
    }

    #[test]
    fn timer_phase_and_negative_period() {
        // period 1, shift 0.25: at t = 0 the fraction is 0.75.
        let m = Clock::Timer {
            period: 1.0,
            shift: 0.25,
        }
        .clip(1, (0.0, 1.0))
        .unwrap();
        assert_eq!(m.pieces.len(), 2);
        assert_eq!(m.fraction(0.0), 0.75);
        assert_eq!(m.fraction(0.25), 0.0);
        assert_eq!(m.fraction(0.5), 0.25);
        assert_eq!(m.fraction(1.0), 0.75);
        let neg = Clock::Timer {
            period: -2.0,
            shift: 1.0,
        };
        let m = neg.clip(1, (0.5, 3.0)).unwrap();
        assert_eq!(m.duration(), 5.0);
        assert_eq!(m.fraction(1.0), 1.0);
        assert_eq!(neg.clip_start((0.5, 3.0)), 2.0);
        assert_eq!(neg.world_fraction(4.0), Some(1.5));
        assert!(
            Clock::Timer {
                period: 0.0,
                shift: 0.0
            }
            .clip(1, (0.0, 1.0))
            .is_none()
        );
    }

    #[test]
    fn world_time_start_stop_loop_pause() {
        let once = ts(2.0, false, 10.0, 0.0);
        assert_eq!(once.world_fraction(9.0), None);
        assert_eq!(once.world_fraction(11.0), Some(0.5));
        assert_eq!(once.world_fraction(12.0), Some(1.0));
        assert_eq!(once.world_fraction(50.0), Some(1.0));
        let looped = ts(2.0, true, 10.0, 15.0);
        assert_eq!(looped.world_fraction(13.0), Some(0.5));
        assert_eq!(looped.world_fraction(14.5), Some(0.25));
        assert_eq!(looped.world_fraction(20.0), Some(0.5)); // stopped at 15
        let forever = ts(2.0, true, 0.0, -1.0);
        assert_eq!(forever.world_fraction(101.0), Some(0.5));
        // A pauseTime after resumeTime freezes the fraction from then on.
        let paused = |pause: f64, resume: f64| {
            let mut c = ts(4.0, false, 0.0, 0.0);
            if let Clock::TimeSensor {
                pause_time,
                resume_time,
                ..
            } = &mut c
            {
                (*pause_time, *resume_time) = (pause, resume);
            }
            c
        };
        assert_eq!(paused(1.0, 0.5).world_fraction(2.0), Some(0.25)); // frozen at 1 s
        assert_eq!(paused(1.0, 0.5).world_event(10.0), Some((0.25, 1.0)));
        // One at or before resumeTime is ignored (the defaults, 0 and 0).
        assert_eq!(paused(1.0, 3.0).world_fraction(2.0), Some(0.5));
        assert_eq!(paused(1.0, 3.0).world_fraction(10.0), Some(1.0));
        let early = ts(2.0, true, -1.0, -1.0);
        assert_eq!(early.world_fraction(0.5), Some(0.75));
        assert_eq!(early.world_event(3.0), Some((0.0, 3.0)));
        // The last event of a finished run is its end.
        assert_eq!(ts(2.0, false, 1.0, 0.0).world_event(7.0), Some((1.0, 3.0)));
        assert_eq!(ts(2.0, true, 0.0, 5.0).world_event(7.0), Some((0.5, 5.0)));
    }
}
