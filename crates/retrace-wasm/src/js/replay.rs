//! The core's replay as a JS class, `Replay`, for players on a page (the
//! `direct` transport's; `<retrace-player>` drives one per session). A
//! thin wrapper: pacing, idle cuts, speeds, seeking, the timeline and the
//! marks are `retrace_core::Replay`'s, over the steps of a branch's rows
//! (the `time` and `marks` columns of a `branch` answer). As in the core,
//! time comes in as an argument (`now`: milliseconds of any monotonic
//! clock, `performance.now()`), and the caller asks `pollTimeout` when
//! to call `handleTimeout` and drains `pollEvent`.
//!
//! Options and events cross as the core's serde values: options
//! `{speed, max_gap_ms, untimed_gap_ms, pause_on_error, pause_on}`
//! (`speed` one of `x1`, `x2`, `x5`, `x10`, `instant`; `pause_on` the
//! marks' bits), events `{event: "moved", position}`, `{event:
//! "played"}`, `{event: "paused", reason}` (`asked`, `end`, `error`,
//! `marker`).

use retrace_core::{Marks, Replay, ReplayOptions, Step};
use wasm_bindgen::prelude::*;

use super::direct::thrown;
use super::wire::to_js;
use crate::protocol::{EngineError, ErrorCode};

/// A time from JS: milliseconds, never negative.
fn ms(now: f64) -> u64 {
    if now.is_finite() && now > 0.0 {
        now as u64
    } else {
        0
    }
}

/// Options from JS: the core's `ReplayOptions` as serde writes them, a
/// missing field its default.
fn options_of(value: JsValue) -> Result<ReplayOptions, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(ReplayOptions::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        thrown(EngineError::new(
            ErrorCode::BadRequest,
            format!("replay options: {e}"),
        ))
    })
}

/// A replay of one branch.
#[wasm_bindgen(js_name = Replay)]
pub struct JsReplay {
    replay: Replay,
}

#[wasm_bindgen(js_class = Replay)]
impl JsReplay {
    /// A replay over rows with these times (Unix milliseconds, `null`
    /// when unknown) and marks (the `branch` answer's `rows.time` and
    /// `rows.marks`), every row shown as the core starts it.
    #[wasm_bindgen(constructor)]
    pub fn new(time: JsValue, marks: Vec<u8>, options: JsValue) -> Result<JsReplay, JsValue> {
        let time: Vec<Option<i64>> = serde_wasm_bindgen::from_value(time).map_err(|e| {
            thrown(EngineError::bad_request(format!(
                "replay times are not a list of numbers or nulls: {e}"
            )))
        })?;
        if time.len() != marks.len() {
            return Err(thrown(EngineError::bad_request(format!(
                "{} times but {} marks",
                time.len(),
                marks.len()
            ))));
        }
        let steps = time
            .into_iter()
            .zip(marks)
            .map(|(time, marks)| Step {
                time,
                marks: Marks(marks),
            })
            .collect();
        Ok(JsReplay {
            replay: Replay::new(steps, options_of(options)?),
        })
    }

    /// How many rows are shown.
    #[wasm_bindgen(js_name = position)]
    pub fn position(&self) -> u32 {
        self.replay.position() as u32
    }

    /// How many rows there are.
    #[wasm_bindgen(js_name = len)]
    pub fn len(&self) -> u32 {
        self.replay.len() as u32
    }

    /// Whether there are no rows.
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.replay.is_empty()
    }

    /// Whether it is playing.
    #[wasm_bindgen(js_name = isPlaying)]
    pub fn is_playing(&self) -> bool {
        self.replay.is_playing()
    }

    /// Changes the options (fields left out take their defaults), keeping
    /// the position; playing goes on at the new speed from `now`.
    #[wasm_bindgen(js_name = setOptions)]
    pub fn set_options(&mut self, options: JsValue, now: f64) -> Result<(), JsValue> {
        self.replay.set_options(options_of(options)?, ms(now));
        Ok(())
    }

    /// Starts playing (from the end: over from the first row).
    #[wasm_bindgen(js_name = play)]
    pub fn play(&mut self, now: f64) {
        self.replay.play(ms(now));
    }

    /// Stops playing where it is.
    #[wasm_bindgen(js_name = pause)]
    pub fn pause(&mut self) {
        self.replay.pause();
    }

    /// Plays when paused, pauses when playing.
    #[wasm_bindgen(js_name = toggle)]
    pub fn toggle(&mut self, now: f64) {
        self.replay.toggle(ms(now));
    }

    /// Shows one more row (and stops playing).
    #[wasm_bindgen(js_name = stepForward)]
    pub fn step_forward(&mut self) {
        self.replay.step_forward();
    }

    /// Shows one row fewer (and stops playing).
    #[wasm_bindgen(js_name = stepBack)]
    pub fn step_back(&mut self) {
        self.replay.step_back();
    }

    /// Shows the first `position` rows; playing goes on from there.
    #[wasm_bindgen(js_name = seek)]
    pub fn seek(&mut self, position: u32, now: f64) {
        self.replay.seek(position as usize, ms(now));
    }

    /// Shows every row at or before `offset` milliseconds of the timeline.
    #[wasm_bindgen(js_name = seekOffset)]
    pub fn seek_offset(&mut self, offset: f64, now: f64) {
        self.replay.seek_offset(ms(offset), ms(now));
    }

    /// When to call `handleTimeout` next (caller time), while playing;
    /// `undefined` when not.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.replay.poll_timeout().map(|t| t as f64)
    }

    /// Shows every row due at `now`.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) {
        self.replay.handle_timeout(ms(now));
    }

    /// The next thing that happened, oldest first; `undefined` when none.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Result<JsValue, JsValue> {
        match self.replay.poll_event() {
            Some(event) => to_js(&event).map_err(thrown),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Where each row sits on the timeline at 1x, in milliseconds from
    /// the first (idle gaps cut); the last is the replay's length.
    #[wasm_bindgen(js_name = timeline)]
    pub fn timeline(&self) -> Vec<f64> {
        self.replay
            .timeline()
            .into_iter()
            .map(|t| t as f64)
            .collect()
    }

    /// The first row after `from` with any of `marks`.
    #[wasm_bindgen(js_name = nextMarked)]
    pub fn next_marked(&self, from: u32, marks: u8) -> Option<u32> {
        self.replay
            .next_marked(from as usize, marks)
            .map(|i| i as u32)
    }

    /// The last row before `from` with any of `marks`.
    #[wasm_bindgen(js_name = previousMarked)]
    pub fn previous_marked(&self, from: u32, marks: u8) -> Option<u32> {
        self.replay
            .previous_marked(from as usize, marks)
            .map(|i| i as u32)
    }
}
