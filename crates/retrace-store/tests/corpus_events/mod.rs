//! Event streams made from the real sessions in `../shared/corpus` (beside
//! the repository): each corpus session's default branch, read and
//! normalized by the core, as the events an agent recording it would have
//! written: a user's text as `user_input`, a model's message as
//! `llm_call`, each tool call with its result as `tool_call`, at the
//! messages' own times. Real text: long, multilingual, full of escapes.
//! Other crates' tests include it (`#[path = "…/corpus_events/mod.rs"]`).

#![allow(dead_code)] // each test binary uses some of it

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use retrace_core::{
    Event, EventData, LlmCall, Message, Part, Role, ToolCall as ToolCallEvent, UserInput,
};
use retrace_io::{sessions_in, Located, OpenOptions};
use serde_json::{json, Map, Value};

/// The shared corpus.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// One corpus session as an event stream.
pub struct Stream {
    /// The corpus file it comes from, relative to the corpus.
    pub name: String,
    pub events: Vec<Event>,
}

/// The longest stream of each agent's folder (`claude-code`, `pi`, …), so
/// each format's text is there at a small cost.
pub fn one_per_agent(min_events: usize) -> Vec<Stream> {
    let mut best: Vec<Stream> = Vec::new();
    for s in streams(min_events) {
        let agent = s.name.split('/').next().unwrap_or("").to_owned();
        match best
            .iter_mut()
            .find(|b| b.name.starts_with(&format!("{agent}/")))
        {
            Some(b) if b.events.len() < s.events.len() => *b = s,
            Some(_) => {}
            None => best.push(s),
        }
    }
    best
}

/// Every corpus session with at least `min_events` events, in path order.
pub fn streams(min_events: usize) -> Vec<Stream> {
    let root = corpus();
    let found = sessions_in(&root).unwrap_or_else(|e| panic!("corpus at {}: {e}", root.display()));
    assert!(!found.is_empty(), "no session in {}", root.display());
    let mut out = Vec::new();
    for session in found {
        let name = session
            .path()
            .strip_prefix(&root)
            .unwrap_or(session.path())
            .display()
            .to_string();
        let Ok(mut loaded) = Located::found(session).load(&OpenOptions::default(), None) else {
            continue;
        };
        let s = &loaded.session;
        let Some(leaf) = s.tree().default_leaf() else {
            continue;
        };
        let mut messages = Vec::new();
        for e in s.branch(leaf) {
            if let Ok(m) = s.messages(e, &mut loaded.source) {
                messages.extend(m);
            }
        }
        let events = to_events(&messages);
        if events.len() >= min_events {
            out.push(Stream { name, events });
        }
    }
    out
}

/// Messages as the events an agent would have recorded.
pub fn to_events(messages: &[Message]) -> Vec<Event> {
    let mut out = Vec::new();
    let mut time: DateTime<Utc> = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    let mut prompt = Value::Null;
    for m in messages {
        if let Some(t) = m.timestamp.and_then(DateTime::from_timestamp_millis) {
            time = time.max(t);
        }
        let text: Vec<&str> = m
            .content
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let text = text.join("\n");
        match m.role {
            Role::User if !text.is_empty() => {
                prompt = json!(text);
                out.push(Event::new(
                    time,
                    EventData::UserInput(UserInput {
                        message: json!(text),
                        extra: Map::new(),
                    }),
                ));
            }
            Role::Assistant => {
                let mut extra = Map::new();
                if let Some(model) = &m.model {
                    extra.insert("model".into(), json!(model));
                }
                out.push(Event::new(
                    time,
                    EventData::LlmCall(LlmCall {
                        prompt: std::mem::take(&mut prompt),
                        response: serde_json::to_value(&m.content).unwrap_or_default(),
                        token_usage: m.usage.as_ref().and_then(|u| serde_json::to_value(u).ok()),
                        duration: None,
                        extra,
                    }),
                ));
            }
            _ => {}
        }
        for p in &m.content {
            match p {
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    calls.insert(id.clone(), (name.clone(), arguments.clone()));
                }
                Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                } => {
                    let (tool_name, parameters) = calls
                        .remove(call_id)
                        .unwrap_or_else(|| ("unknown".to_owned(), Value::Null));
                    out.push(Event::new(
                        time,
                        EventData::ToolCall(ToolCallEvent {
                            tool_name,
                            parameters,
                            output: if *is_error {
                                Value::Null
                            } else {
                                json!(output)
                            },
                            error: if *is_error {
                                json!(output)
                            } else {
                                Value::Null
                            },
                            duration: None,
                            extra: Map::new(),
                        }),
                    ));
                }
                _ => {}
            }
        }
    }
    out
}
