//! The record of an event stream (`events.jsonl`): one line
//! `{"event_type","timestamp","data"}` per event. The store's recorder
//! writes it and the reader of event streams (`format/events.rs`,
//! `normalize/events.rs`) reads it, so both share this schema and the one
//! rule that names a stream's parts (`events.jsonl`, `events_1.jsonl`, …).
//!
//! Nothing is lost on the way through: fields this schema does not name,
//! at the top or in `data`, are kept in `extra` and written back.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The kind of an event: the five an agent records, the checkpoints the
/// store takes of the files a tool changed, and the compactions that cut
/// what the model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    /// What the user said: `{message}`.
    UserInput,
    /// The agent's state machine moved: `{from_node, to_node, state_diff}`.
    StateTransition,
    /// A model call: `{prompt, response, token_usage, duration}`.
    LlmCall,
    /// A tool call and its outcome: `{tool_name, parameters, output, error, duration}`.
    ToolCall,
    /// The run's answer: `{output, stream}`.
    FinalOutput,
    /// A git checkpoint of the workspace after a tool changed files:
    /// `{commit, tag, tool_name, event, files}`.
    Checkpoint,
    /// The context cut: from here on the model sees `summary`, then the
    /// events from `first_kept_event` (a `seq`) up to this one, then what
    /// follows: `{summary, first_kept_event, tokens_before}`.
    Compaction,
}

impl EventType {
    /// Every type, in the order above.
    pub const ALL: [EventType; 7] = [
        EventType::UserInput,
        EventType::StateTransition,
        EventType::LlmCall,
        EventType::ToolCall,
        EventType::FinalOutput,
        EventType::Checkpoint,
        EventType::Compaction,
    ];

    /// The name written in `event_type`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::UserInput => "user_input",
            EventType::StateTransition => "state_transition",
            EventType::LlmCall => "llm_call",
            EventType::ToolCall => "tool_call",
            EventType::FinalOutput => "final_output",
            EventType::Checkpoint => "checkpoint",
            EventType::Compaction => "compaction",
        }
    }

    /// The type named `name`, if it is one.
    pub fn parse(name: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// One event: its type is the variant of `data`.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When it happened (written as RFC 3339 in UTC, to the microsecond).
    pub timestamp: DateTime<Utc>,
    /// What happened.
    pub data: EventData,
    /// Top-level fields besides `event_type`, `timestamp` and `data`.
    pub extra: Map<String, Value>,
}

/// What an event says, by type.
#[derive(Clone, Debug, PartialEq)]
pub enum EventData {
    /// See [`EventType::UserInput`].
    UserInput(UserInput),
    /// See [`EventType::StateTransition`].
    StateTransition(StateTransition),
    /// See [`EventType::LlmCall`].
    LlmCall(LlmCall),
    /// See [`EventType::ToolCall`].
    ToolCall(ToolCall),
    /// See [`EventType::FinalOutput`].
    FinalOutput(FinalOutput),
    /// See [`EventType::Checkpoint`].
    Checkpoint(Checkpoint),
    /// See [`EventType::Compaction`].
    Compaction(Compaction),
}

/// `user_input`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserInput {
    /// What the user said (usually a string).
    pub message: Value,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `state_transition`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StateTransition {
    /// The node the agent left.
    pub from_node: String,
    /// The node it entered.
    pub to_node: String,
    /// What changed in its state.
    #[serde(default)]
    pub state_diff: Value,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `llm_call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmCall {
    /// What was sent (a string or a message list).
    #[serde(default)]
    pub prompt: Value,
    /// What came back.
    #[serde(default)]
    pub response: Value,
    /// Token counts as the provider gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_usage: Option<Value>,
    /// Seconds the call took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Fields not named above (`model` among them).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tool_call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// Its arguments.
    #[serde(default)]
    pub parameters: Value,
    /// What it returned (`null` when it failed).
    #[serde(default)]
    pub output: Value,
    /// Why it failed (`null` when it did not).
    #[serde(default)]
    pub error: Value,
    /// Seconds the call took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `final_output`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FinalOutput {
    /// The answer.
    #[serde(default)]
    pub output: Value,
    /// Whether it was streamed.
    #[serde(default)]
    pub stream: bool,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `checkpoint`: the store committed the workspace after a tool call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The commit's id (hex).
    pub commit: String,
    /// The tag that names it (`tool_{tool_name}_{YYYYMMDDHHMMSS}`).
    pub tag: String,
    /// The tool whose changes it holds.
    pub tool_name: String,
    /// The files it changed, with how.
    #[serde(default)]
    pub files: Vec<FileChange>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `compaction`: what the model sees from here on is `summary`, then the
/// events numbered `first_kept_event` up to this one, then the events after
/// it. Events are numbered as the store reads them (`seq`): from 0, every
/// part of the stream in order, counting the lines whose `event_type` is
/// one of [`EventType::ALL`] (the number a checkpoint's `event` gives too).
/// An earlier compaction among the kept events is not shown again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Compaction {
    /// What stands in for the events before the first one kept.
    pub summary: String,
    /// The `seq` of the first event kept; `None` keeps none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_event: Option<u64>,
    /// The estimated tokens of the context the summary replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One file of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileChange {
    /// The path in the workspace, `/`-separated.
    pub path: String,
    /// How it changed.
    pub change: ChangeKind,
}

/// How a file changed between two checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It did not exist before.
    Created,
    /// Its content or mode changed.
    Updated,
    /// It no longer exists.
    Deleted,
}

impl ChangeKind {
    /// The name written in `change`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Updated => "updated",
            ChangeKind::Deleted => "deleted",
        }
    }
}

impl EventData {
    /// The type of this event.
    pub fn event_type(&self) -> EventType {
        match self {
            EventData::UserInput(_) => EventType::UserInput,
            EventData::StateTransition(_) => EventType::StateTransition,
            EventData::LlmCall(_) => EventType::LlmCall,
            EventData::ToolCall(_) => EventType::ToolCall,
            EventData::FinalOutput(_) => EventType::FinalOutput,
            EventData::Checkpoint(_) => EventType::Checkpoint,
            EventData::Compaction(_) => EventType::Compaction,
        }
    }
}

impl Event {
    /// An event at `timestamp` (the core reads no clock: the caller does).
    pub fn new(timestamp: DateTime<Utc>, data: EventData) -> Event {
        Event {
            timestamp,
            data,
            extra: Map::new(),
        }
    }

    /// The type of this event.
    pub fn event_type(&self) -> EventType {
        self.data.event_type()
    }
}

/// The name of part `n` of an event stream: `events.jsonl` for 0,
/// `events_{n}.jsonl` after it. The recorder writes these names and the
/// reader orders them by [`part_of_file_name`] (one rule both ways).
pub fn part_file_name(n: u32) -> String {
    match n {
        0 => "events.jsonl".to_owned(),
        n => format!("events_{n}.jsonl"),
    }
}

/// The part number of an event stream's file (`events.jsonl` → 0,
/// `events_12.jsonl` → 12, `events_3.jsonl.gz` → 3), folder ignored;
/// `None` for any other name.
pub fn part_of_file_name(path: &str) -> Option<u32> {
    match split_part(path)? {
        ("events", n) => Some(n),
        _ => None,
    }
}

/// A part of a split set of any base: `events.jsonl` → (`events`, 0),
/// `events_12.jsonl.gz` → (`events`, 12), `run_a.jsonl` → (`run_a`, 0);
/// `None` for a name that is not `*.jsonl` (gzipped or not) or whose
/// number does not fit.
pub(crate) fn split_part(path: &str) -> Option<(&str, u32)> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let stem = name.strip_suffix(".jsonl")?;
    match split_stem(stem) {
        (base, Some(n)) => Some((base, u32::try_from(n).ok()?)),
        (stem, None) => Some((stem, 0)),
    }
}

/// The split-set rule on a stem: `events_12` → (`events`, Some(12)),
/// `events` → (`events`, None); a number too long for u64 is `u64::MAX`.
pub(crate) fn split_stem(stem: &str) -> (&str, Option<u64>) {
    match stem.rsplit_once('_') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (base, Some(n.parse::<u64>().unwrap_or(u64::MAX)))
        }
        _ => (stem, None),
    }
}

/// How one event was written, for serde.
#[derive(Serialize, Deserialize)]
struct Raw {
    event_type: EventType,
    #[serde(with = "timestamp")]
    timestamp: DateTime<Utc>,
    #[serde(default)]
    data: Value,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let data = match &self.data {
            EventData::UserInput(d) => serde_json::to_value(d),
            EventData::StateTransition(d) => serde_json::to_value(d),
            EventData::LlmCall(d) => serde_json::to_value(d),
            EventData::ToolCall(d) => serde_json::to_value(d),
            EventData::FinalOutput(d) => serde_json::to_value(d),
            EventData::Checkpoint(d) => serde_json::to_value(d),
            EventData::Compaction(d) => serde_json::to_value(d),
        }
        .map_err(S::Error::custom)?;
        Raw {
            event_type: self.event_type(),
            timestamp: self.timestamp,
            data,
            extra: self.extra.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Event, D::Error> {
        use serde::de::Error;
        let raw = Raw::deserialize(d)?;
        let data = raw.data;
        let data = match raw.event_type {
            EventType::UserInput => serde_json::from_value(data).map(EventData::UserInput),
            EventType::StateTransition => {
                serde_json::from_value(data).map(EventData::StateTransition)
            }
            EventType::LlmCall => serde_json::from_value(data).map(EventData::LlmCall),
            EventType::ToolCall => serde_json::from_value(data).map(EventData::ToolCall),
            EventType::FinalOutput => serde_json::from_value(data).map(EventData::FinalOutput),
            EventType::Checkpoint => serde_json::from_value(data).map(EventData::Checkpoint),
            EventType::Compaction => serde_json::from_value(data).map(EventData::Compaction),
        }
        .map_err(|e| D::Error::custom(format!("data of {}: {e}", raw.event_type.as_str())))?;
        Ok(Event {
            timestamp: raw.timestamp,
            data,
            extra: raw.extra,
        })
    }
}

/// Timestamps as RFC 3339 in UTC to the microsecond, or to the nanosecond
/// when a time read has digits past the microsecond (written shorter, it
/// would not read back as the same time); read also as Unix seconds (a
/// number), as some frameworks write them.
mod timestamp {
    use super::*;

    pub(super) fn serialize<S: serde::Serializer>(
        t: &DateTime<Utc>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let digits = if t.timestamp_subsec_nanos().is_multiple_of(1_000) {
            SecondsFormat::Micros
        } else {
            SecondsFormat::Nanos
        };
        s.serialize_str(&t.to_rfc3339_opts(digits, true))
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<DateTime<Utc>, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(s) => DateTime::parse_from_rfc3339(&s)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|e| D::Error::custom(format!("timestamp `{s}`: {e}"))),
            Value::Number(n) => n
                .as_f64()
                .and_then(|secs| DateTime::from_timestamp_micros((secs * 1e6).round() as i64))
                .ok_or_else(|| D::Error::custom(format!("timestamp {n} is out of range"))),
            other => Err(D::Error::custom(format!(
                "timestamp must be a string or a number, not {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn parse(v: Value) -> Result<Event, serde_json::Error> {
        serde_json::from_value(v)
    }

    #[test]
    fn each_type_round_trips_with_unknown_fields_kept() {
        let lines = [
            json!({"event_type": "user_input", "timestamp": "2025-01-02T03:04:05.123456Z",
                   "data": {"message": "hi", "lang": "en"}, "run": 7}),
            json!({"event_type": "state_transition", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"from_node": "a", "to_node": "b", "state_diff": {"x": 1}, "why": "go"}}),
            json!({"event_type": "llm_call", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"prompt": "p", "response": "r", "token_usage": {"in": 1},
                            "duration": 0.5, "model": "m"}}),
            json!({"event_type": "tool_call", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"tool_name": "ls", "parameters": {"d": "."}, "output": "x",
                            "error": null, "duration": 0.25, "id": "t1"}}),
            json!({"event_type": "final_output", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"output": "done", "stream": true, "more": [1]}}),
            json!({"event_type": "checkpoint", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"commit": "ab", "tag": "tool_ls_20250102030405", "tool_name": "ls",
                            "files": [{"path": "a", "change": "created"}], "event": 3}}),
            json!({"event_type": "compaction", "timestamp": "2025-01-02T03:04:05Z",
                   "data": {"summary": "s", "first_kept_event": 4, "tokens_before": 900,
                            "by": "retrace"}}),
        ];
        for (line, ty) in lines.iter().zip(EventType::ALL) {
            let event = parse(line.clone()).unwrap();
            assert_eq!(event.event_type(), ty);
            // Written back: every field, unknown ones included, at its place.
            let back = serde_json::to_value(&event).unwrap();
            let mut want = line.clone();
            if let Some(t) = want.get("timestamp").and_then(Value::as_str) {
                let t = at(t).to_rfc3339_opts(SecondsFormat::Micros, true);
                want["timestamp"] = Value::String(t);
            }
            assert_eq!(back, want, "{ty:?}");
            assert_eq!(parse(back).unwrap(), event);
        }
        let event = parse(lines[0].clone()).unwrap();
        assert_eq!(event.extra["run"], json!(7));
        let EventData::UserInput(d) = &event.data else {
            panic!("{event:?}")
        };
        assert_eq!(d.extra["lang"], json!("en"));
    }

    #[test]
    fn timestamps_read_as_rfc3339_or_unix_seconds_and_write_as_rfc3339() {
        let data = json!({"message": "m"});
        let from_text = parse(json!({"event_type": "user_input",
            "timestamp": "2025-01-02T04:04:05.5+01:00", "data": data}))
        .unwrap();
        assert_eq!(from_text.timestamp, at("2025-01-02T03:04:05.5Z"));
        let secs = at("2025-01-02T03:04:05.5Z").timestamp_micros() as f64 / 1e6;
        let from_number = parse(json!({"event_type": "user_input",
            "timestamp": secs, "data": data}))
        .unwrap();
        assert_eq!(from_number.timestamp, from_text.timestamp);
        let line = serde_json::to_string(&from_number).unwrap();
        assert!(
            line.contains(r#""timestamp":"2025-01-02T03:04:05.500000Z""#),
            "{line}"
        );
        let err = parse(json!({"event_type": "user_input", "timestamp": "yesterday",
            "data": data}))
        .unwrap_err()
        .to_string();
        assert!(err.contains("timestamp `yesterday`"), "{err}");
        let err = parse(json!({"event_type": "user_input", "timestamp": true, "data": data}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("string or a number"), "{err}");
    }

    #[test]
    fn unknown_types_and_bad_data_say_what_is_wrong() {
        let err = parse(json!({"event_type": "dance", "timestamp": 0, "data": {}}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("dance") && err.contains("user_input"), "{err}");
        let err = parse(json!({"event_type": "tool_call", "timestamp": 0,
            "data": {"parameters": {}}}))
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("data of tool_call") && err.contains("tool_name"),
            "{err}"
        );
        let err = parse(json!({"event_type": "state_transition", "timestamp": 0,
            "data": {"from_node": 1, "to_node": "b"}}))
        .unwrap_err()
        .to_string();
        assert!(err.contains("data of state_transition"), "{err}");
    }

    #[test]
    fn one_naming_rule_for_parts() {
        assert_eq!(part_file_name(0), "events.jsonl");
        assert_eq!(part_file_name(7), "events_7.jsonl");
        for n in [0, 1, 9, 10, 4_000_000] {
            assert_eq!(part_of_file_name(&part_file_name(n)), Some(n));
            assert_eq!(
                part_of_file_name(&format!("{}.gz", part_file_name(n))),
                Some(n)
            );
        }
        assert_eq!(part_of_file_name("/x/events_3.jsonl"), Some(3));
        assert_eq!(part_of_file_name("events_3.jsonl.torn"), None);
        assert_eq!(part_of_file_name("run_3.jsonl"), None);
        assert_eq!(split_part("/x/events.jsonl"), Some(("events", 0)));
        assert_eq!(split_part("events_2.jsonl"), Some(("events", 2)));
        assert_eq!(split_part("a/events_10.jsonl.gz"), Some(("events", 10)));
        assert_eq!(split_part("run_a.jsonl"), Some(("run_a", 0)));
        assert_eq!(split_part("events.json"), None);
        assert_eq!(split_part("events_99999999999.jsonl"), None);
        assert_eq!(split_stem("e_12"), ("e", Some(12)));
        assert_eq!(split_stem("e_"), ("e_", None));
        assert_eq!(
            split_stem("e_99999999999999999999999"),
            ("e", Some(u64::MAX))
        );
    }
}
