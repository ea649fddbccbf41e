//! [`SessionPlayer`]: a recorded session played back step by step.
//!
//! A store session's folder is read as what it is on disk, an event
//! stream (`events.jsonl`, `events_1.jsonl`, …), by retrace-io and the
//! core like any other session: the core's folder rule leaves the store's
//! own files aside. The steps are the core's rows of the session's branch,
//! paced by the core's [`Replay`] (no second replay here), and their
//! details come from the core's normalized messages and event record, read
//! through the core's [`RedactingSource`] unless sensitive values are
//! asked for: what the viewer and `retrace show --redact` show.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{
    Checkpoint, Compaction, EventType, Inflated, Marks, Message, Part, Replay, ReplayOptions, Row,
    Session, Source, StateTransition, Step, Usage,
};
use retrace_io::{Bytes, OpenOptions, OutputFile};
use serde::Serialize;
use serde_json::Value;

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::SessionStore;

/// How a session is played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerOptions {
    /// Only the key events: LLM calls, tool calls with their results, the
    /// final output, checkpoints and compactions.
    pub fast: bool,
    /// Show values as recorded; by default secrets and personal data are
    /// replaced by typed placeholders (`[REDACTED:aws_access_key]`).
    pub show_sensitive: bool,
    /// The pacing ([`PlayerStep::pause`]): speed, longest pause.
    pub replay: ReplayOptions,
}

/// One step of a played session: one event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerStep {
    /// The event's position in the session's stream, from 0 (the same in
    /// fast mode, which skips some).
    pub index: usize,
    /// The `event_type` as written (`llm_call`, `tool_call`, …).
    pub event_type: String,
    /// When it happened, if the line says.
    pub timestamp: Option<DateTime<Utc>>,
    /// The time since the step before it (the previous key event in fast
    /// mode); `None` for the first step or when a time is missing or goes
    /// backwards.
    #[serde(serialize_with = "millis")]
    pub since_previous: Option<Duration>,
    /// How long a replay waits before showing it, from
    /// [`PlayerOptions::replay`] (idle gaps cut, divided by the speed);
    /// `None` for the first step.
    #[serde(serialize_with = "millis")]
    pub pause: Option<Duration>,
    /// One line: `tool get_weather`, `LLM call · gpt-4o-mini`, `planner →
    /// tools`.
    pub title: String,
    /// Everything the event says, as text: parameters and output, prompt
    /// and response with model and usage, a transition's diff, a
    /// checkpoint's commit and files, a compaction's first kept event and
    /// summary.
    pub details: String,
    /// A failed tool call (or a line marked as an error).
    pub is_error: bool,
    /// The file the event is in, and its line (from 1).
    pub file: String,
    /// See [`PlayerStep::file`].
    pub line: u32,
}

fn millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&(d.as_millis() as u64)),
        None => s.serialize_none(),
    }
}

/// A recorded session, played: an [`Iterator`] of its steps, in order.
pub struct SessionPlayer {
    /// The session's folder (or file).
    path: PathBuf,
    session: Session,
    source: Inflated<Bytes>,
    /// The rows played (only the key ones in fast mode).
    rows: Vec<Row>,
    /// Their index among all the branch's rows.
    indices: Vec<usize>,
    /// The core's replay over `rows`: where the player is, and the pauses.
    replay: Replay,
    /// The redaction rules, `None` with `show_sensitive`.
    rules: Option<Arc<Rules>>,
    /// The time of the last step given, for `since_previous`.
    previous: Option<i64>,
}

/// The event types fast mode keeps.
const KEY_EVENTS: [&str; 5] = [
    "llm_call",
    "tool_call",
    "final_output",
    "checkpoint",
    "compaction",
];

impl SessionPlayer {
    /// The session `id` of the store at `root` (`{root}/{id}/`).
    pub fn load(root: &Path, id: &SessionId, options: PlayerOptions) -> StoreResult<SessionPlayer> {
        let dir = root.join(id.as_str());
        if !dir.is_dir() {
            return Err(StoreError::NotFound { id: id.to_string() });
        }
        SessionPlayer::open(&dir, options)
    }

    /// A session folder (or any session file retrace reads) at `path`.
    pub fn open(path: &Path, options: PlayerOptions) -> StoreResult<SessionPlayer> {
        let loaded = match retrace_io::load(path, &OpenOptions::default()) {
            Ok(loaded) => loaded,
            // A session created but with no event yet plays as empty.
            Err(retrace_io::FileError::NoSessionFiles { .. })
                if path.join("meta.json").is_file() =>
            {
                return Ok(SessionPlayer::empty(path, options));
            }
            Err(e) => return Err(e.into()),
        };
        Ok(SessionPlayer::start(
            path.to_path_buf(),
            loaded.session,
            loaded.source,
            options,
        ))
    }

    /// A player at the first step of a read session.
    fn start(
        path: PathBuf,
        session: Session,
        source: Inflated<Bytes>,
        options: PlayerOptions,
    ) -> SessionPlayer {
        let all = match session.tree().default_leaf() {
            Some(leaf) => session.rows(leaf),
            None => Vec::new(),
        };
        let (indices, rows): (Vec<usize>, Vec<Row>) = all
            .into_iter()
            .enumerate()
            .filter(|(_, row)| !options.fast || KEY_EVENTS.contains(&row.entry_type.as_str()))
            .unzip();
        let steps = rows.iter().map(Step::from).collect();
        let mut replay = Replay::new(steps, options.replay);
        // A replay opens with every row shown; play from the first.
        replay.seek(0, 0);
        while replay.poll_event().is_some() {}
        SessionPlayer {
            path,
            session,
            source,
            rows,
            indices,
            replay,
            rules: (!options.show_sensitive).then(|| Arc::new(Rules::builtin())),
            previous: None,
        }
    }

    /// Session `id` of any store (a database's too): its events, read
    /// back as the lines they were written as, are one event stream named
    /// `events`, read by the core as a file of them would be.
    pub fn from_store(
        store: &dyn SessionStore,
        id: &SessionId,
        options: PlayerOptions,
    ) -> StoreResult<SessionPlayer> {
        let read = store.read_events(id)?;
        let name = PathBuf::from("events");
        if read.events.is_empty() {
            return Ok(SessionPlayer::empty(&name, options));
        }
        let mut bytes = Vec::new();
        for e in &read.events {
            bytes.extend_from_slice(&e.line);
            bytes.push(b'\n');
        }
        let mut reader = retrace_core::Reader::new();
        reader.begin_file("events");
        reader.push(&bytes);
        let session = reader.finish();
        let source = Inflated::new(Bytes::Memory(bytes), session.files());
        Ok(SessionPlayer::start(name, session, source, options))
    }

    /// A player with no step (a session with no event yet).
    fn empty(path: &Path, options: PlayerOptions) -> SessionPlayer {
        let session = retrace_core::Reader::new().finish();
        SessionPlayer {
            path: path.to_path_buf(),
            source: Inflated::new(Bytes::Memory(Vec::new()), session.files()),
            session,
            rows: Vec::new(),
            indices: Vec::new(),
            replay: Replay::new(Vec::new(), options.replay),
            rules: None,
            previous: None,
        }
    }

    /// The session as the core read it (its diagnostics say what in the
    /// files could not be read).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// How many steps there are in all.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no steps.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Writes the remaining steps to `dest` as JSON lines (gzipped when
    /// the name ends in `.gz`), whole or not at all; returns how many.
    pub fn export(self, dest: &Path) -> StoreResult<usize> {
        let mut out = OutputFile::create(dest)?;
        let cannot_write = |e| StoreError::io("cannot write", dest, e);
        let mut count = 0;
        for step in self {
            let mut line = serde_json::to_vec(&step?).map_err(|e| cannot_write(e.into()))?;
            line.push(b'\n');
            out.write_all(&line).map_err(cannot_write)?;
            count += 1;
        }
        out.flush().map_err(cannot_write)?;
        Ok(count)
    }

    fn step(&mut self, i: usize, pause: u64) -> StoreResult<PlayerStep> {
        let row = &self.rows[i];
        let e = row.entries[0];
        let entry = self.session.entry(e).clone();
        let file = self.session.files()[entry.file.0 as usize].name.clone();
        let raw: &mut dyn Source = &mut self.source;
        let mut redacting;
        let source: &mut dyn Source = match &self.rules {
            Some(rules) => {
                redacting = RedactingSource::new(raw, rules.clone());
                &mut redacting
            }
            None => raw,
        };
        let unreadable = |e: retrace_core::SourceError| StoreError::Corrupt {
            path: format!("{file}:{}", entry.line),
            reason: format!("cannot read the event: {e}"),
        };
        let mut messages = Vec::new();
        let mut data = Value::Null;
        for &e in &row.entries {
            messages.extend(self.session.messages(e, source).map_err(unreadable)?);
            if let Ok(body) = self.session.body(e, source).map_err(unreadable)? {
                data = body.get("data").cloned().unwrap_or(Value::Null);
            }
        }
        let (title, details) = describe(&row.entry_type, &messages, &data);
        let since_previous = match (self.previous, row.time) {
            (Some(a), Some(b)) if b >= a => Some(Duration::from_millis((b - a) as u64)),
            _ => None,
        };
        self.previous = row.time.or(self.previous);
        let is_error = row.marks.has(Marks::ERROR)
            || messages
                .iter()
                .flat_map(|m| &m.content)
                .any(|p| matches!(p, Part::ToolResult { is_error: true, .. }));
        Ok(PlayerStep {
            index: self.indices[i],
            event_type: row.entry_type.clone(),
            timestamp: row.time.and_then(DateTime::from_timestamp_millis),
            since_previous,
            pause: (i > 0).then(|| Duration::from_millis(pause)),
            title,
            details,
            is_error,
            file,
            line: entry.line,
        })
    }
}

impl Iterator for SessionPlayer {
    type Item = StoreResult<PlayerStep>;

    /// The next step; an event whose bytes cannot be read any more (the
    /// file changed under the player) is an error, and playing goes on.
    fn next(&mut self) -> Option<StoreResult<PlayerStep>> {
        let i = self.replay.position();
        if i >= self.rows.len() {
            return None;
        }
        let pause = self.replay.pause_before(i);
        self.replay.step_forward();
        while self.replay.poll_event().is_some() {}
        Some(self.step(i, pause))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.rows.len() - self.replay.position();
        (left, Some(left))
    }
}

impl std::fmt::Debug for SessionPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionPlayer")
            .field("path", &self.path)
            .field("steps", &self.rows.len())
            .field("position", &self.replay.position())
            .field("redacted", &self.rules.is_some())
            .finish()
    }
}

/// A step's title and details, from the core's messages for the event
/// (what the viewer shows) and, where they drop something (a transition's
/// diff, a checkpoint's files, a compaction's first kept event, durations),
/// the event's `data` in the core's event record.
fn describe(kind: &str, messages: &[Message], data: &Value) -> (String, String) {
    let text = |m: &Message| {
        m.content
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let duration = data.get("duration").and_then(Value::as_f64);
    let mut d = String::new();
    let title = match EventType::parse(kind) {
        Some(EventType::UserInput) => {
            d = messages.iter().map(text).collect::<Vec<_>>().join("\n");
            "user input".to_owned()
        }
        Some(EventType::FinalOutput) => {
            d = messages.iter().map(text).collect::<Vec<_>>().join("\n");
            "final output".to_owned()
        }
        Some(EventType::LlmCall) => {
            // The prompt as sent (an injected user message), then the
            // response with the model and usage.
            let response = messages
                .iter()
                .find(|m| m.model.is_some() || m.usage.is_some());
            let model = response.and_then(|m| m.model.clone());
            if let Some(model) = &model {
                let _ = writeln!(d, "model: {model}");
            }
            if let Some(usage) = response.and_then(|m| m.usage.as_ref()) {
                let _ = writeln!(d, "usage: {}", usage_line(usage));
            }
            if let Some(s) = duration {
                let _ = writeln!(d, "duration: {s}s");
            }
            if let Some(prompt) = messages.first() {
                let _ = writeln!(d, "prompt:\n{}", text(prompt));
            }
            if let Some(response) = messages.get(1) {
                let _ = write!(d, "response:\n{}", text(response));
            }
            match model {
                Some(model) => format!("LLM call · {model}"),
                None => "LLM call".to_owned(),
            }
        }
        Some(EventType::ToolCall) => {
            let mut name = String::new();
            let mut failed = false;
            for part in messages.iter().flat_map(|m| &m.content) {
                match part {
                    Part::ToolCall {
                        name: n, arguments, ..
                    } => {
                        name.clone_from(n);
                        let _ = writeln!(d, "tool: {n}\nparameters: {arguments}");
                    }
                    Part::ToolResult {
                        output, is_error, ..
                    } => {
                        failed = *is_error;
                        let label = if *is_error { "error" } else { "output" };
                        let _ = write!(d, "{label}:\n{output}");
                    }
                    _ => {}
                }
            }
            if let Some(s) = duration {
                let _ = write!(d, "\nduration: {s}s");
            }
            match failed {
                true => format!("tool {name} (failed)"),
                false => format!("tool {name}"),
            }
        }
        Some(EventType::StateTransition) => {
            match serde_json::from_value::<StateTransition>(data.clone()) {
                Ok(t) => {
                    let _ = write!(d, "from: {}\nto: {}", t.from_node, t.to_node);
                    if !t.state_diff.is_null() {
                        let diff = serde_json::to_string_pretty(&t.state_diff).unwrap_or_default();
                        let _ = write!(d, "\ndiff: {diff}");
                    }
                    format!("{} → {}", t.from_node, t.to_node)
                }
                Err(_) => {
                    d = data.to_string();
                    "state transition".to_owned()
                }
            }
        }
        Some(EventType::Checkpoint) => match serde_json::from_value::<Checkpoint>(data.clone()) {
            Ok(c) => {
                let _ = write!(
                    d,
                    "commit: {}\ntag: {}\ntool: {}\nfiles:",
                    c.commit, c.tag, c.tool_name
                );
                for f in &c.files {
                    let change = serde_json::to_value(f.change).unwrap_or_default();
                    let _ = write!(d, "\n  {} {}", change.as_str().unwrap_or("?"), f.path);
                }
                let short = c.commit.get(..12).unwrap_or(&c.commit);
                format!("checkpoint {short} after {}", c.tool_name)
            }
            Err(_) => {
                d = data.to_string();
                "checkpoint".to_owned()
            }
        },
        Some(EventType::Compaction) => match serde_json::from_value::<Compaction>(data.clone()) {
            Ok(c) => {
                let kept = match c.first_kept_event {
                    Some(seq) => format!("events from {seq} on"),
                    None => "no event".to_owned(),
                };
                let _ = writeln!(d, "kept: {kept}");
                if let Some(tokens) = c.tokens_before {
                    let _ = writeln!(d, "tokens before: {tokens}");
                }
                let _ = write!(d, "summary:\n{}", c.summary);
                format!("compaction, keeping {kept}")
            }
            Err(_) => {
                d = data.to_string();
                "compaction".to_owned()
            }
        },
        // A type this version does not know: the core's marker text, or
        // the data as written.
        None => {
            d = match messages.first() {
                Some(m) => text(m),
                None => data.to_string(),
            };
            kind.to_owned()
        }
    };
    (title, d)
}

/// `in 52 out 9 cache read 0 cache write 0` (and the cost where known),
/// as `retrace show` prints it.
fn usage_line(u: &Usage) -> String {
    let mut line = format!(
        "in {} out {} cache read {} cache write {}",
        u.input, u.output, u.cache_read, u.cache_write
    );
    if let Some(cost) = u.cost {
        let _ = write!(line, " cost ${cost:.4}");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    const AWS_KEY: &str = "AKIA2E0A8F3B244C9986";
    const ANTHROPIC_KEY: &str = "sk-ant-api03-Zq7Kp2Lm9Xw4Rt8Yb3Nc6Vd1Hf5Gj0Ks2Lq9Wm4Ex7Tr3Yu8Io1Pa6Sd5Fg2Hj-Kl9Zx4Cv7Bn3Mq8Wr1Et6Yu2Io5PaQ";

    /// A store at a fresh temporary root holding one session, `s1`: the
    /// fixture event stream, then a part with a tool call whose output
    /// holds two keys and a checkpoint, beside the store's own files.
    fn store(name: &str) -> (PathBuf, SessionId) {
        let root = std::env::temp_dir().join(format!(
            "retrace-store-player-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let id = SessionId::parse("s1").unwrap();
        let dir = root.join(id.as_str());
        std::fs::create_dir_all(&dir).unwrap();
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/events/events.jsonl");
        std::fs::copy(fixture, dir.join("events.jsonl")).unwrap();
        let tool = serde_json::json!({
            "event_type": "tool_call",
            "timestamp": "2026-02-10T14:00:02.000Z",
            "data": {
                "tool_name": "read_env",
                "parameters": {"file": ".env"},
                "output": format!("AWS_ACCESS_KEY_ID={AWS_KEY}\nANTHROPIC_API_KEY={ANTHROPIC_KEY}"),
                "error": null,
                "duration": 0.05
            }
        });
        let checkpoint = serde_json::json!({
            "event_type": "checkpoint",
            "timestamp": "2026-02-10T14:00:02.100Z",
            "data": {
                "commit": "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
                "tag": "tool_read_env_20260210140002",
                "tool_name": "read_env",
                "event": 9,
                "files": [
                    {"path": "notes/weather.md", "change": "created"},
                    {"path": "src/main.rs", "change": "updated"}
                ]
            }
        });
        std::fs::write(
            dir.join("events_1.jsonl"),
            format!("{tool}\n{checkpoint}\n"),
        )
        .unwrap();
        std::fs::write(
            dir.join("meta.json"),
            r#"{"session_id":"s1","agent_config":"weather","create_time":"2026-02-10T14:00:00Z","last_active_time":"2026-02-10T14:00:02.1Z"}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("config_snapshot.json"),
            r#"{"model":"gpt-4o-mini"}"#,
        )
        .unwrap();
        std::fs::write(dir.join("state.json"), r#"{"version":1,"value":{}}"#).unwrap();
        std::fs::write(dir.join("memory_messages.jsonl"), "{\"role\":\"user\"}\n").unwrap();
        std::fs::write(dir.join(".lock"), "").unwrap();
        (root, id)
    }

    fn play(root: &Path, id: &SessionId, options: PlayerOptions) -> Vec<PlayerStep> {
        SessionPlayer::load(root, id, options)
            .unwrap()
            .collect::<StoreResult<Vec<_>>>()
            .unwrap()
    }

    fn types(steps: &[PlayerStep]) -> Vec<&str> {
        steps.iter().map(|s| s.event_type.as_str()).collect()
    }

    #[test]
    fn every_event_in_order_from_the_stream_only() {
        let (root, id) = store("order");
        let player = SessionPlayer::load(&root, &id, PlayerOptions::default()).unwrap();
        // meta.json, state.json and the rest are the store's, not the stream.
        assert_eq!(player.session().files().len(), 2);
        assert_eq!(player.len(), 11);
        let steps: Vec<PlayerStep> = player.map(Result::unwrap).collect();
        assert_eq!(
            types(&steps),
            [
                "user_input",
                "state_transition",
                "llm_call",
                "state_transition",
                "tool_call",
                "tool_call",
                "state_transition",
                "llm_call",
                "final_output",
                "tool_call",
                "checkpoint",
            ]
        );
        assert_eq!(
            steps.iter().map(|s| s.index).collect::<Vec<_>>(),
            (0..11).collect::<Vec<_>>()
        );
        assert_eq!(steps[0].title, "user input");
        assert_eq!(steps[0].details, "What is the weather in Paris?");
        assert_eq!(steps[0].since_previous, None);
        assert_eq!(steps[0].line, 1);
        assert!(steps[0].file.ends_with("events.jsonl"));
        assert_eq!(steps[1].since_previous, Some(Duration::from_millis(10)));
        assert_eq!(steps[1].title, "start → planner");
        assert!(
            steps[1]
                .details
                .contains("\"query\": \"What is the weather in Paris?\""),
            "{}",
            steps[1].details
        );
        // The replay's pacing: the real gap at 1×, cut at 3 s.
        assert_eq!(steps[2].pause, Some(Duration::from_millis(840)));
        assert_eq!(steps[9].line, 1);
        assert!(steps[9].file.ends_with("events_1.jsonl"));
    }

    #[test]
    fn fast_mode_gives_the_key_events_with_their_details() {
        let (root, id) = store("fast");
        let options = PlayerOptions {
            fast: true,
            ..PlayerOptions::default()
        };
        let steps = play(&root, &id, options);
        assert_eq!(
            types(&steps),
            [
                "llm_call",
                "tool_call",
                "tool_call",
                "llm_call",
                "final_output",
                "tool_call",
                "checkpoint"
            ]
        );
        assert_eq!(
            steps.iter().map(|s| s.index).collect::<Vec<_>>(),
            [2, 4, 5, 7, 8, 9, 10]
        );
        let llm = &steps[0];
        assert_eq!(llm.title, "LLM call · gpt-4o-mini");
        for want in [
            "model: gpt-4o-mini",
            "usage: in 52 out 9 cache read 0 cache write 0",
            "duration: 0.83s",
            "prompt:\n[system] You are a weather assistant. Use tools.",
            "response:\nI will call get_weather and get_forecast.",
        ] {
            assert!(
                llm.details.contains(want),
                "{want:?} not in {}",
                llm.details
            );
        }
        // Since the previous key event, not the transition between them.
        assert_eq!(steps[1].since_previous, Some(Duration::from_millis(220)));
        assert_eq!(steps[1].title, "tool get_weather");
        assert_eq!(
            steps[1].details,
            "tool: get_weather\nparameters: {\"city\":\"Paris\"}\noutput:\n18°C, cloudy\nduration: 0.21s"
        );
        assert!(!steps[1].is_error);
        assert_eq!(steps[2].title, "tool get_forecast (failed)");
        assert!(steps[2].is_error);
        assert!(steps[2].details.contains("error:\nrate limited (429)"));
        assert_eq!(steps[4].details, "It is 18°C and cloudy in Paris.");
        let checkpoint = &steps[6];
        assert_eq!(checkpoint.title, "checkpoint 4f2a9c1e8b7d after read_env");
        assert_eq!(
            checkpoint.details,
            "commit: 4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\ntag: tool_read_env_20260210140002\n\
             tool: read_env\nfiles:\n  created notes/weather.md\n  updated src/main.rs"
        );
    }

    #[test]
    fn secrets_are_hidden_unless_asked_for() {
        let (root, id) = store("secrets");
        let fast = PlayerOptions {
            fast: true,
            ..PlayerOptions::default()
        };
        let hidden = play(&root, &id, fast);
        let tool = &hidden[5];
        assert_eq!(tool.title, "tool read_env");
        assert!(!tool.details.contains(AWS_KEY), "{}", tool.details);
        assert!(!tool.details.contains("sk-ant-api03"), "{}", tool.details);
        assert!(tool.details.contains("[REDACTED:"), "{}", tool.details);
        // The rest of the output is still there.
        assert!(
            tool.details.contains("AWS_ACCESS_KEY_ID="),
            "{}",
            tool.details
        );

        let shown = play(
            &root,
            &id,
            PlayerOptions {
                show_sensitive: true,
                ..fast
            },
        );
        let tool = &shown[5];
        assert!(tool.details.contains(AWS_KEY), "{}", tool.details);
        assert!(tool.details.contains(ANTHROPIC_KEY), "{}", tool.details);
        assert!(!tool.details.contains("[REDACTED:"), "{}", tool.details);
    }

    #[test]
    fn a_session_with_no_event_yet_plays_as_empty() {
        let (root, id) = store("new");
        let dir = root.join(id.as_str());
        std::fs::remove_file(dir.join("events.jsonl")).unwrap();
        std::fs::remove_file(dir.join("events_1.jsonl")).unwrap();
        let mut player = SessionPlayer::load(&root, &id, PlayerOptions::default()).unwrap();
        assert!(player.is_empty());
        assert!(player.next().is_none());
    }

    #[test]
    fn a_missing_session_is_not_found() {
        let (root, _) = store("missing");
        let err = SessionPlayer::load(
            &root,
            &SessionId::parse("nope").unwrap(),
            PlayerOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    }

    #[test]
    fn export_writes_every_step_as_a_json_line() {
        let (root, id) = store("export");
        let dest = root.join("s1-steps.jsonl");
        let player = SessionPlayer::load(&root, &id, PlayerOptions::default()).unwrap();
        assert_eq!(player.export(&dest).unwrap(), 11);
        let text = std::fs::read_to_string(&dest).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[1]["since_previous"], 10);
        assert_eq!(lines[10]["event_type"], "checkpoint");
        assert!(!text.contains(AWS_KEY));
    }
}
