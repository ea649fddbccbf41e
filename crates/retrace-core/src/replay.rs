//! Replay: a cursor over a branch's rows, played back at the pace the
//! session happened.
//!
//! The engine has no clock. The caller passes its own time (`now`, in
//! milliseconds of any monotonic clock) to each call that needs it, asks
//! [`Replay::poll_timeout`] when to call back, calls
//! [`Replay::handle_timeout`] then, and drains what happened with
//! [`Replay::poll_event`]. The CLI, the viewer and embeds drive the same
//! engine; tests drive it with a fake clock.
//!
//! Pacing: the pause before a row is the time between its timestamp and the
//! previous row's, with idle gaps cut to [`ReplayOptions::max_gap_ms`] (a
//! night away from the keyboard should not replay as a night), divided by
//! the speed. Rows without usable timestamps get
//! [`ReplayOptions::untimed_gap_ms`].

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::session::{Marks, Row};

/// How fast a replay runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// Real time.
    #[default]
    X1,
    /// Twice as fast.
    X2,
    /// Five times as fast.
    X5,
    /// Ten times as fast.
    X10,
    /// No pauses: playing runs straight to the end (or the next error when
    /// pausing on errors).
    Instant,
}

impl Speed {
    /// Every speed, slowest first.
    pub const ALL: [Speed; 5] = [Speed::X1, Speed::X2, Speed::X5, Speed::X10, Speed::Instant];

    /// How many times faster than real time; `None` for instant.
    pub fn factor(self) -> Option<u64> {
        match self {
            Speed::X1 => Some(1),
            Speed::X2 => Some(2),
            Speed::X5 => Some(5),
            Speed::X10 => Some(10),
            Speed::Instant => None,
        }
    }

    /// `1x`, `2x`, …, `instant`.
    pub fn label(self) -> &'static str {
        match self {
            Speed::X1 => "1x",
            Speed::X2 => "2x",
            Speed::X5 => "5x",
            Speed::X10 => "10x",
            Speed::Instant => "instant",
        }
    }

    /// Parses a [`Speed::label`].
    pub fn from_label(label: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.label() == label)
    }
}

/// Settings of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplayOptions {
    /// How fast it plays.
    pub speed: Speed,
    /// The longest pause between two rows at 1×; longer gaps are cut to it.
    pub max_gap_ms: u64,
    /// The pause before a row whose time is unknown or earlier than the row
    /// before it.
    pub untimed_gap_ms: u64,
    /// Stop playing on a row marked [`Marks::ERROR`].
    pub pause_on_error: bool,
    /// Stop playing on a row with any of these marks ([`Marks`] bits; an
    /// embed's markers), after showing it.
    pub pause_on: u8,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            speed: Speed::X1,
            max_gap_ms: 3_000,
            untimed_gap_ms: 700,
            pause_on_error: false,
            pause_on: 0,
        }
    }
}

/// One row as the replay sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    /// Milliseconds since the Unix epoch.
    pub time: Option<i64>,
    /// What kind of row it is (errors, prompts, compactions).
    pub marks: Marks,
}

impl From<&Row> for Step {
    fn from(row: &Row) -> Step {
        Step {
            time: row.time,
            marks: row.marks,
        }
    }
}

/// Why playing stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseReason {
    /// [`Replay::pause`], a step or a seek.
    Asked,
    /// The last row was shown.
    End,
    /// A row marked as an error was shown and the replay pauses on errors.
    Error,
    /// A row with one of [`ReplayOptions::pause_on`]'s marks was shown.
    Marker,
}

/// What the caller should show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The number of rows shown changed.
    Moved {
        /// Rows shown now.
        position: usize,
    },
    /// Playing started.
    Played,
    /// Playing stopped.
    Paused {
        /// Why.
        reason: PauseReason,
    },
}

/// The replay state machine. See the module docs for how to drive it.
#[derive(Debug, Clone)]
pub struct Replay {
    steps: Vec<Step>,
    /// How many rows are shown: `0..=steps.len()`.
    position: usize,
    /// While playing: when (caller time) the next row is due.
    due: Option<u64>,
    options: ReplayOptions,
    events: VecDeque<Event>,
}

impl Replay {
    /// A replay over `steps` with every row shown (as a session looks when
    /// opened); [`Replay::play`] from the end starts over.
    pub fn new(steps: Vec<Step>, options: ReplayOptions) -> Replay {
        let position = steps.len();
        Replay {
            steps,
            position,
            due: None,
            options,
            events: VecDeque::new(),
        }
    }

    /// How many rows are shown.
    pub fn position(&self) -> usize {
        self.position
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there are no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Whether it is playing.
    pub fn is_playing(&self) -> bool {
        self.due.is_some()
    }

    /// Its settings.
    pub fn options(&self) -> ReplayOptions {
        self.options
    }

    /// Every step, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Adds marks found later (errors, from bodies) to row `i`.
    pub fn add_marks(&mut self, i: usize, marks: u8) {
        if let Some(step) = self.steps.get_mut(i) {
            step.marks.0 |= marks;
        }
    }

    /// Starts playing; from the end it starts over from the first row.
    pub fn play(&mut self, now: u64) {
        if self.is_playing() || self.steps.is_empty() {
            return;
        }
        if self.position == self.steps.len() {
            self.move_to(0);
        }
        self.due = Some(now + self.pause_before(self.position));
        self.events.push_back(Event::Played);
        if self.options.speed == Speed::Instant {
            self.handle_timeout(now);
        }
    }

    /// Stops playing where it is.
    pub fn pause(&mut self) {
        self.stop(PauseReason::Asked);
    }

    /// Plays when paused, pauses when playing.
    pub fn toggle(&mut self, now: u64) {
        if self.is_playing() {
            self.pause();
        } else {
            self.play(now);
        }
    }

    /// Shows one more row (and stops playing).
    pub fn step_forward(&mut self) {
        self.pause();
        if self.position < self.steps.len() {
            self.move_to(self.position + 1);
        }
    }

    /// Shows one row fewer (and stops playing).
    pub fn step_back(&mut self) {
        self.pause();
        if self.position > 0 {
            self.move_to(self.position - 1);
        }
    }

    /// Shows the first `position` rows; playing goes on from there.
    pub fn seek(&mut self, position: usize, now: u64) {
        let position = position.min(self.steps.len());
        self.move_to(position);
        if self.is_playing() {
            if position == self.steps.len() {
                self.stop(PauseReason::End);
            } else {
                self.due = Some(now + self.pause_before(position));
            }
        }
    }

    /// Seeks to a point of the [`Replay::timeline`]: every row at or before
    /// `offset_ms` is shown.
    pub fn seek_offset(&mut self, offset_ms: u64, now: u64) {
        let position = self.timeline().partition_point(|&t| t <= offset_ms);
        self.seek(position, now);
    }

    /// Changes the speed; a pending row is rescheduled at the new pace.
    pub fn set_speed(&mut self, speed: Speed, now: u64) {
        self.options.speed = speed;
        if self.is_playing() {
            self.due = Some(now + self.pause_before(self.position));
            if speed == Speed::Instant {
                self.handle_timeout(now);
            }
        }
    }

    /// Changes the settings, keeping the position; a playing replay goes on at the new speed from `now`.
    pub fn set_options(&mut self, options: ReplayOptions, now: u64) {
        let speed = options.speed;
        self.options = options;
        self.set_speed(speed, now);
    }

    /// When the caller should call [`Replay::handle_timeout`] next, if
    /// playing.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.due
    }

    /// Shows every row that is due at `now`.
    pub fn handle_timeout(&mut self, now: u64) {
        while let Some(due) = self.due {
            if due > now || self.position >= self.steps.len() {
                break;
            }
            self.move_to(self.position + 1);
            let shown = self.steps[self.position - 1];
            if self.position == self.steps.len() {
                self.stop(PauseReason::End);
            } else if self.options.pause_on_error && shown.marks.has(Marks::ERROR) {
                self.stop(PauseReason::Error);
            } else if shown.marks.has(self.options.pause_on) {
                self.stop(PauseReason::Marker);
            } else {
                // Schedule from when the row was due, not from `now`, so a
                // late timer does not stretch the replay; but never schedule
                // into the past after a long stall (a hidden tab).
                let next = due + self.pause_before(self.position);
                self.due = Some(next.max(now.saturating_sub(self.options.max_gap_ms)));
            }
        }
    }

    /// The next thing that happened, oldest first.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The pause before row `i` is shown, at the current speed.
    pub fn pause_before(&self, i: usize) -> u64 {
        match self.options.speed.factor() {
            None => 0,
            Some(f) => self.gap(i) / f,
        }
    }

    /// The pause before row `i` at 1×, idle time cut.
    fn gap(&self, i: usize) -> u64 {
        if i == 0 || i >= self.steps.len() {
            return 0;
        }
        match (self.steps[i - 1].time, self.steps[i].time) {
            (Some(a), Some(b)) if b >= a => ((b - a) as u64).min(self.options.max_gap_ms),
            _ => self.options.untimed_gap_ms.min(self.options.max_gap_ms),
        }
    }

    /// Where each row sits on a timeline of the whole branch at 1×, in
    /// milliseconds from the first row (idle gaps cut as when playing), for
    /// a scrubber; the last value is the replay's length.
    pub fn timeline(&self) -> Vec<u64> {
        let mut at = 0;
        (0..self.steps.len())
            .map(|i| {
                at += self.gap(i);
                at
            })
            .collect()
    }

    /// The first row after `from` with any of `marks`.
    pub fn next_marked(&self, from: usize, marks: u8) -> Option<usize> {
        (from + 1..self.steps.len()).find(|&i| self.steps[i].marks.has(marks))
    }

    /// The last row before `from` with any of `marks`.
    pub fn previous_marked(&self, from: usize, marks: u8) -> Option<usize> {
        (0..from.min(self.steps.len()))
            .rev()
            .find(|&i| self.steps[i].marks.has(marks))
    }

    fn move_to(&mut self, position: usize) {
        if position != self.position {
            self.position = position;
            self.events.push_back(Event::Moved { position });
        }
    }

    fn stop(&mut self, reason: PauseReason) {
        if self.due.take().is_some() {
            self.events.push_back(Event::Paused { reason });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(times: &[Option<i64>]) -> Vec<Step> {
        times
            .iter()
            .map(|&time| Step {
                time,
                marks: Marks::default(),
            })
            .collect()
    }

    /// Runs the replay with a fake clock until it stops, returning when
    /// each row was shown.
    fn drive(replay: &mut Replay, start: u64) -> Vec<(u64, usize)> {
        let mut shown = Vec::new();
        let mut now = start;
        while let Some(due) = replay.poll_timeout() {
            now = now.max(due);
            replay.handle_timeout(now);
            while let Some(e) = replay.poll_event() {
                if let Event::Moved { position } = e {
                    shown.push((now, position));
                }
            }
        }
        shown
    }

    #[test]
    fn plays_at_the_recorded_pace_with_idle_gaps_cut() {
        // Rows 1 s, 10 min and 2 s apart.
        let mut r = Replay::new(
            steps(&[Some(0), Some(1_000), Some(601_000), Some(603_000)]),
            ReplayOptions::default(),
        );
        assert_eq!(r.position(), 4, "a session opens with every row shown");
        r.play(100);
        let mut shown = vec![];
        while let Some(e) = r.poll_event() {
            if let Event::Moved { position } = e {
                shown.push((100, position));
            }
        }
        shown.extend(drive(&mut r, 100));
        assert_eq!(
            shown,
            [(100, 0), (100, 1), (1_100, 2), (4_100, 3), (6_100, 4)]
        );
        assert!(!r.is_playing());
        assert_eq!(r.timeline(), [0, 1_000, 4_000, 6_000]);
    }

    #[test]
    fn speed_divides_pauses_and_instant_runs_to_the_end() {
        let times = [Some(0), Some(1_000), Some(3_000), None, Some(3_500)];
        let mut r = Replay::new(steps(&times), ReplayOptions::default());
        r.set_speed(Speed::X10, 0);
        r.play(0);
        let shown = drive(&mut r, 0);
        // 100 ms, 200 ms, untimed 70 ms, then 70 ms (time after a gap).
        assert_eq!(
            shown,
            [(0, 0), (0, 1), (100, 2), (300, 3), (370, 4), (440, 5)]
        );

        let mut r = Replay::new(steps(&times), ReplayOptions::default());
        r.set_speed(Speed::Instant, 0);
        r.play(0);
        assert!(!r.is_playing());
        assert_eq!(r.position(), 5);
    }

    #[test]
    fn pauses_on_errors_when_asked() {
        let mut s = steps(&[Some(0), Some(10), Some(20), Some(30)]);
        s[2].marks.0 |= Marks::ERROR;
        let mut r = Replay::new(
            s,
            ReplayOptions {
                pause_on_error: true,
                ..ReplayOptions::default()
            },
        );
        r.play(0);
        drive(&mut r, 0);
        assert_eq!(r.position(), 3, "stopped right after showing the error row");
        let mut events = vec![];
        r.play(1_000);
        while let Some(e) = r.poll_event() {
            events.push(e);
        }
        assert_eq!(events, [Event::Played]);
        drive(&mut r, 1_000);
        assert_eq!(r.position(), 4);
    }

    #[test]
    fn pauses_on_marks_when_asked() {
        /// Plays from `now` until it stops: the position and why.
        fn run(r: &mut Replay, now: u64) -> (usize, Option<PauseReason>) {
            r.play(now);
            let mut why = None;
            loop {
                while let Some(e) = r.poll_event() {
                    if let Event::Paused { reason } = e {
                        why = Some(reason);
                    }
                }
                match r.poll_timeout() {
                    Some(due) => r.handle_timeout(due),
                    None => return (r.position(), why),
                }
            }
        }
        let mut s = steps(&[Some(0), Some(10), Some(20), Some(30), Some(40)]);
        s[1].marks.0 = Marks::PROMPT;
        s[3].marks.0 = Marks::COMPACTION | Marks::ERROR;
        let mut r = Replay::new(
            s,
            ReplayOptions {
                pause_on: Marks::PROMPT | Marks::COMPACTION,
                ..ReplayOptions::default()
            },
        );
        // Right after showing the prompt, then the compaction (an error
        // the replay does not pause on is the marker it is), then the end,
        // which the last row is, marked or not.
        assert_eq!(run(&mut r, 0), (2, Some(PauseReason::Marker)));
        assert_eq!(run(&mut r, 100), (4, Some(PauseReason::Marker)));
        assert_eq!(run(&mut r, 200), (5, Some(PauseReason::End)));
        // Without marks to pause on, it plays through.
        r.set_options(ReplayOptions::default(), 300);
        assert_eq!(run(&mut r, 300), (5, Some(PauseReason::End)));
        // Pausing on errors comes first.
        r.set_options(
            ReplayOptions {
                pause_on: Marks::COMPACTION,
                pause_on_error: true,
                ..ReplayOptions::default()
            },
            400,
        );
        assert_eq!(run(&mut r, 400), (4, Some(PauseReason::Error)));
    }

    #[test]
    fn steps_and_seeks() {
        let mut r = Replay::new(
            steps(&[Some(0), Some(500), Some(900), Some(5_000)]),
            ReplayOptions::default(),
        );
        r.step_back();
        r.step_back();
        assert_eq!(r.position(), 2);
        r.step_forward();
        assert_eq!(r.position(), 3);
        r.seek_offset(600, 0);
        assert_eq!(r.position(), 2, "rows at 0 and 500 ms are on or before 600");
        r.play(0);
        r.seek(1, 50);
        assert_eq!(r.poll_timeout(), Some(550));
        r.pause();
        assert_eq!(r.poll_timeout(), None);
        let events: Vec<Event> = std::iter::from_fn(|| r.poll_event()).collect();
        assert_eq!(
            events.last(),
            Some(&Event::Paused {
                reason: PauseReason::Asked
            })
        );
        // Stepping past the ends does nothing.
        r.seek(0, 0);
        r.step_back();
        assert_eq!(r.position(), 0);
    }

    #[test]
    fn marks_are_found_both_ways() {
        let mut s = steps(&[None; 6]);
        s[1].marks.0 = Marks::PROMPT;
        s[4].marks.0 = Marks::PROMPT | Marks::BRANCH_POINT;
        let r = Replay::new(s, ReplayOptions::default());
        assert_eq!(r.next_marked(1, Marks::PROMPT), Some(4));
        assert_eq!(r.next_marked(4, Marks::PROMPT), None);
        assert_eq!(r.previous_marked(4, Marks::PROMPT), Some(1));
        assert_eq!(r.previous_marked(6, Marks::BRANCH_POINT), Some(4));
    }

    #[test]
    fn a_late_timer_does_not_replay_a_stall() {
        let mut r = Replay::new(
            steps(&[Some(0), Some(1_000), Some(2_000), Some(3_000)]),
            ReplayOptions::default(),
        );
        r.play(0);
        // The tab was hidden for a minute: everything due is shown at once,
        // and the last row is not scheduled far in the past.
        r.handle_timeout(60_000);
        assert_eq!(r.position(), 4);
        assert!(!r.is_playing());
    }
}
