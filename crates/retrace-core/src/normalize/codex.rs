//! Codex rollout lines to messages.
//!
//! `response_item`s are what the model saw and are the messages;
//! `event_msg` lines are the UI's copies (`user_message`, `agent_message`,
//! `agent_reasoning`) and are not counted again. One model response is
//! written as several items (reasoning, text, tool calls); they become one
//! assistant message, followed by the tool results. The model comes from the
//! last `turn_context`. Usage comes from `token_count` events, which repeat
//! running totals: a count whose total equals the last one seen is a repeat,
//! otherwise its `last_token_usage` is one request's usage, attached to the
//! response it belongs to (whether the count was written before the
//! response's items, as 0.5x does, or after them, even after its calls'
//! outputs). A count after a response that has its own, with no response
//! after it, is counted in the totals (check) but shown on no message.
//!
//! A turn's settings (`turn_context`: model, effort, approvals, sandbox,
//! directory) are a context piece of the next response, when they differ
//! from the ones the last response was given (0.5x writes them again
//! after every tool call). How a command's run ended (`exec_command_end`
//! and the other tools' end events, the `metadata` of 0.5x shell output:
//! exit code, duration, stderr apart) is a [`ToolRun`] of the message
//! holding its call or result; views show it in the call's block.

use serde_json::Value;

use super::harness;
use super::{base64_size, image, str_field, text_of, ContextOptions};
use crate::model::harness::Piece;
use crate::model::message::{Message, MessageKind, Part, PartExtra, Role, ToolRun, Usage};
use crate::model::provider::Api;
use crate::model::time::parse_rfc3339_ms;
use crate::normalize::{Mode, Normalize, Origin};

/// The stateful normalizer of one rollout (or one branch of it).
pub(crate) struct Rollout {
    mode: Mode,
    model: Option<String>,
    provider: Option<String>,
    /// The running total of the last `token_count` (input, cached, output,
    /// total), to recognise repeats.
    last_total: Option<[u64; 4]>,
    /// The response being assembled (an assistant message) and the tool
    /// results written after it.
    window: Vec<Message>,
    /// Usage counted before its response's items were written.
    pending: Option<Usage>,
    /// The settings of the last `turn_context`, and those the last
    /// response was shown with.
    settings: Option<String>,
    shown_settings: Option<String>,
    /// Reports of runs whose call is not in sight yet.
    runs: Vec<ToolRun>,
    /// The lines fed before were finished with a response still without
    /// its count (a row read after its prelude): a count before any other
    /// response is that one's (written after its outputs).
    unpaid: bool,
}

/// Messages looked back at for the call a run report names.
const RUN_REACH: usize = super::LOOKBACK;

impl Rollout {
    pub(crate) fn new(mode: Mode) -> Rollout {
        Rollout {
            mode,
            model: None,
            provider: None,
            last_total: None,
            window: Vec::new(),
            pending: None,
            settings: None,
            shown_settings: None,
            runs: Vec::new(),
            unpaid: false,
        }
    }

    fn flush(&mut self, out: &mut Vec<Message>) {
        out.append(&mut self.window);
    }

    /// Emits a message that is not part of a response.
    fn emit(&mut self, m: Message, out: &mut Vec<Message>) {
        self.flush(out);
        out.push(m);
    }

    /// The open response, begun if need be.
    fn response(
        &mut self,
        origin: &Origin,
        time: Option<i64>,
        out: &mut Vec<Message>,
    ) -> &mut Message {
        let open = self
            .window
            .first()
            .is_some_and(|m| m.role == Role::Assistant);
        if !open || self.window.len() > 1 {
            self.flush(out);
        }
        if self.window.is_empty() {
            let mut m = Message::new(Role::Assistant);
            m.model = self.model.clone();
            m.provider = self.provider.clone();
            m.timestamp = time;
            m.usage = self.pending.take();
            self.unpaid = false;
            if self.settings != self.shown_settings {
                self.shown_settings = self.settings.clone();
                m.harness.push(Piece::Context {
                    label: "turn settings".to_owned(),
                    text: self.settings.clone().unwrap_or_default(),
                });
            }
            self.window.push(m);
        }
        let m = &mut self.window[0];
        if m.lines.last() != Some(&origin.entry.line) || m.entries.is_empty() {
            origin.stamp(m);
        }
        m
    }

    /// A tool's output: after the response that called it, with the
    /// reports of its run that came before it.
    fn tool_output(&mut self, mut m: Message, out: &mut Vec<Message>) {
        let ids: Vec<String> = m.tool_results().map(|(id, _)| id.to_owned()).collect();
        let (mine, rest) = std::mem::take(&mut self.runs)
            .into_iter()
            .partition(|r| ids.contains(&r.call_id));
        self.runs = rest;
        for run in mine {
            add_run(&mut m, run);
        }
        if self
            .window
            .first()
            .is_some_and(|w| w.role == Role::Assistant)
        {
            self.window.push(m);
        } else {
            self.emit(m, out);
        }
    }

    /// A run's report goes to the message with its result, else its
    /// call, else waits for its output.
    fn report(&mut self, run: ToolRun, out: &mut [Message]) {
        let id = run.call_id.as_str();
        let holds = |m: &Message, result: bool| {
            m.content.iter().any(|p| match p {
                Part::ToolResult { call_id, .. } => result && call_id == id,
                Part::ToolCall { id: call, .. } => !result && call == id,
                _ => false,
            })
        };
        let reach = out.len().saturating_sub(RUN_REACH);
        for result in [true, false] {
            let found = self
                .window
                .iter_mut()
                .rev()
                .chain(out[reach..].iter_mut().rev())
                .find(|m| holds(m, result));
            if let Some(m) = found {
                add_run(m, run);
                return;
            }
        }
        self.runs.push(run);
    }

    /// Reports whose call never came in sight: with the last message, so
    /// they are shown (a call on another row).
    fn settle_runs(&mut self, out: &mut [Message]) {
        if self.runs.is_empty() {
            return;
        }
        if let Some(m) = self.window.last_mut().or(out.last_mut()) {
            m.runs.append(&mut self.runs);
        }
    }

    fn usage(&mut self, info: &Value) {
        let Some(total) = info.get("total_token_usage") else {
            return;
        };
        let key = [
            count(total, "input_tokens"),
            count(total, "cached_input_tokens"),
            count(total, "output_tokens"),
            count(total, "total_tokens"),
        ];
        if self.last_total == Some(key) {
            return;
        }
        self.last_total = Some(key);
        let last = info.get("last_token_usage").unwrap_or(total);
        let usage = token_usage(last);
        match self.window.first_mut() {
            Some(m) if m.role == Role::Assistant && m.usage.is_none() => m.usage = Some(usage),
            _ if self.unpaid => self.unpaid = false,
            _ => match &mut self.pending {
                Some(p) => p.add(&usage),
                None => self.pending = Some(usage),
            },
        }
    }

    fn item(&mut self, origin: &Origin, item: &Value, time: Option<i64>, out: &mut Vec<Message>) {
        let Some(kind) = str_field(item, "type") else {
            return;
        };
        match kind {
            "message" => self.message(origin, item, time, out),
            "reasoning" => {
                let (part, extra) = reasoning(item, origin.options);
                self.response(origin, time, out).push_with(part, extra);
            }
            "function_call" => {
                let name = match (str_field(item, "namespace"), str_field(item, "name")) {
                    (Some(ns), Some(n)) => format!("{ns}.{n}"),
                    (_, n) => n.unwrap_or_default().to_owned(),
                };
                let part = Part::ToolCall {
                    id: call_id(item),
                    name,
                    arguments: json_string(item.get("arguments")),
                };
                self.response(origin, time, out).content.push(part);
            }
            "custom_tool_call" => {
                let part = Part::ToolCall {
                    id: call_id(item),
                    name: str_field(item, "name").unwrap_or_default().to_owned(),
                    arguments: item.get("input").cloned().unwrap_or(Value::Null),
                };
                self.response(origin, time, out).content.push(part);
            }
            "local_shell_call" => {
                let part = Part::ToolCall {
                    id: call_id(item),
                    name: "local_shell".to_owned(),
                    arguments: item.get("action").cloned().unwrap_or(Value::Null),
                };
                self.response(origin, time, out).content.push(part);
            }
            "tool_search_call" => {
                let part = Part::ToolCall {
                    id: call_id(item),
                    name: "tool_search".to_owned(),
                    arguments: item
                        .get("arguments")
                        .map(|a| json_string(Some(a)))
                        .unwrap_or_else(|| without_type(item)),
                };
                self.response(origin, time, out).content.push(part);
            }
            // Server-side tools: the call and its outcome in one item.
            "web_search_call" | "image_generation_call" => {
                let id = match str_field(item, "id") {
                    Some(id) => id.to_owned(),
                    None => format!("{kind}@{}", origin.label),
                };
                let name = kind.trim_end_matches("_call").to_owned();
                let arguments = match kind {
                    "web_search_call" => item.get("action").cloned().unwrap_or(Value::Null),
                    _ => item.get("revised_prompt").cloned().unwrap_or(Value::Null),
                };
                let status = str_field(item, "status").unwrap_or("").to_owned();
                let image = str_field(item, "result").map(|data| Part::Image {
                    media_type: "image/png".to_owned(),
                    byte_size: base64_size(data),
                });
                let m = self.response(origin, time, out);
                m.content.push(Part::ToolCall {
                    id: id.clone(),
                    name,
                    arguments,
                });
                m.content.push(Part::ToolResult {
                    call_id: id,
                    output: status.clone(),
                    is_error: status == "failed",
                });
                m.content.extend(image);
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                let mut m = Message::new(Role::Tool);
                m.timestamp = time;
                let (output, is_error, images, run) = tool_output(item);
                let id = call_id(item);
                if let Some(mut run) = run {
                    run.call_id = id.clone();
                    m.runs.push(run);
                }
                m.content.push(Part::ToolResult {
                    call_id: id,
                    output,
                    is_error,
                });
                m.content.extend(images);
                origin.stamp(&mut m);
                self.tool_output(m, out);
            }
            // An undo snapshot: not said, but a mark on the timeline.
            "ghost_snapshot" => {
                let mut m = match ghost_snapshot(item) {
                    Some(part) => {
                        let mut m = marker(String::new(), time);
                        m.content = vec![part];
                        m
                    }
                    None => marker(format!("{kind}: {item}"), time),
                };
                origin.stamp(&mut m);
                self.emit(m, out);
            }
            "compaction" => {
                let mut m = Message::new(Role::User);
                m.kind = MessageKind::CompactionSummary;
                m.timestamp = time;
                m.content.push(Part::Thinking {
                    text: String::new(),
                    redacted: true,
                    signature: item.get("encrypted_content").is_some(),
                });
                origin.stamp(&mut m);
                self.emit(m, out);
            }
            // An item type this version does not know: shown as its JSON.
            other => {
                let mut m = marker(format!("{other}: {item}"), time);
                origin.stamp(&mut m);
                self.emit(m, out);
            }
        }
    }

    fn message(
        &mut self,
        origin: &Origin,
        item: &Value,
        time: Option<i64>,
        out: &mut Vec<Message>,
    ) {
        let parts = content(item.get("content"));
        match str_field(item, "role").unwrap_or("user") {
            "assistant" => {
                let m = self.response(origin, time, out);
                m.content.extend(parts);
            }
            role => {
                self.settle_runs(out);
                let mut m = Message::new(match role {
                    "developer" | "system" => Role::System,
                    _ => Role::User,
                });
                m.timestamp = time;
                m.content = parts;
                // What the harness injects (the environment, instructions,
                // an aborted turn) is recognised; such an item is not typed.
                harness::recognise(&mut m, harness::codex, false);
                if !m.harness.is_empty() {
                    m.kind = MessageKind::Meta;
                }
                origin.stamp(&mut m);
                self.emit(m, out);
            }
        }
    }

    fn event(&mut self, origin: &Origin, event: &Value, time: Option<i64>, out: &mut Vec<Message>) {
        let text = match str_field(event, "type").unwrap_or("") {
            "token_count" => {
                if let Some(info) = event.get("info").filter(|i| i.is_object()) {
                    self.usage(info);
                }
                return;
            }
            "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" => {
                if let Some(run) = run_report(event) {
                    self.report(run, out);
                }
                return;
            }
            "turn_aborted" => format!(
                "turn aborted ({})",
                str_field(event, "reason").unwrap_or("no reason given")
            ),
            "thread_rolled_back" => format!(
                "rolled back {} turn(s)",
                event.get("num_turns").and_then(Value::as_u64).unwrap_or(0)
            ),
            "error" => format!("error: {}", str_field(event, "message").unwrap_or("")),
            // UI copies of response items, turn bookkeeping.
            _ => return,
        };
        let mut m = marker(text, time);
        origin.stamp(&mut m);
        self.emit(m, out);
    }

    fn compacted(
        &mut self,
        origin: &Origin,
        payload: &Value,
        time: Option<i64>,
        out: &mut Vec<Message>,
    ) {
        let history = payload
            .get("replacement_history")
            .and_then(Value::as_array)
            .filter(|h| !h.is_empty());
        match history {
            // The history the model continues with replaces everything
            // before it; the check counts it where it first happened.
            Some(items) if self.mode == Mode::Context => {
                self.flush(out);
                for item in items {
                    self.item(origin, item, time, out);
                }
                self.flush(out);
            }
            _ => {
                let mut m = Message::new(Role::User);
                m.kind = MessageKind::CompactionSummary;
                m.timestamp = time;
                m.content.push(Part::Text {
                    text: str_field(payload, "message").unwrap_or_default().to_owned(),
                });
                origin.stamp(&mut m);
                self.emit(m, out);
            }
        }
    }
}

impl Normalize for Rollout {
    fn feed(&mut self, origin: &Origin, line: &Value, out: &mut Vec<Message>) {
        let Some((kind, payload)) = envelope(line) else {
            return;
        };
        let time = str_field(line, "timestamp").and_then(|t| parse_rfc3339_ms(t.as_bytes()));
        match kind {
            "session_meta" => {
                if let Some(p) = str_field(payload, "model_provider") {
                    self.provider = Some(p.to_owned());
                }
                let instructions = str_field(payload, "instructions").or_else(|| {
                    payload
                        .get("base_instructions")
                        .and_then(|b| str_field(b, "text"))
                });
                if let Some(text) = instructions.filter(|t| !t.is_empty()) {
                    let mut m = Message::new(Role::System);
                    m.timestamp = time;
                    m.content.push(Part::Text {
                        text: text.to_owned(),
                    });
                    origin.stamp(&mut m);
                    self.emit(m, out);
                }
            }
            "turn_context" => {
                if let Some(model) = str_field(payload, "model") {
                    self.model = Some(model.to_owned());
                }
                self.settings = Some(turn_settings(payload));
            }
            "response_item" => self.item(origin, payload, time, out),
            "event_msg" => self.event(origin, payload, time, out),
            "compacted" => self.compacted(origin, payload, time, out),
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Message>) {
        let mode = self.mode;
        let open = self
            .window
            .first_mut()
            .filter(|m| m.role == Role::Assistant);
        match (self.pending.take(), open) {
            (Some(p), Some(m)) => match &mut m.usage {
                // A count after a response that has its own is of a
                // request whose response is not here: the totals count
                // it, no message shows it.
                Some(u) if mode == Mode::Check => u.add(&p),
                Some(_) => {}
                None => m.usage = Some(p),
            },
            (None, Some(m)) => self.unpaid = m.usage.is_none(),
            _ => {}
        }
        self.settle_runs(out);
        self.flush(out);
    }
}

/// `run` added to what `m` reports, merged with a report of the same run.
fn add_run(m: &mut Message, run: ToolRun) {
    match m.runs.iter_mut().find(|r| r.call_id == run.call_id) {
        // The event's report says more than the output's metadata.
        Some(r) => {
            let older = std::mem::replace(r, run);
            r.merge(older);
        }
        None => m.runs.push(run),
    }
}

/// A turn's settings in one line: model, reasoning effort, approvals,
/// directory and sandbox (`sandbox_policy` is `{mode}` in 0.5x, `{type}`
/// later, or a string).
pub(crate) fn turn_settings(payload: &Value) -> String {
    let mut parts = Vec::new();
    for (key, name) in [
        ("model", "model"),
        ("effort", "effort"),
        ("approval_policy", "approval"),
        ("cwd", "cwd"),
    ] {
        if let Some(v) = str_field(payload, key) {
            parts.push(format!("{name} {v}"));
        }
    }
    let sandbox = payload.get("sandbox_policy").map(|p| match p {
        Value::String(mode) => mode.clone(),
        other => str_field(other, "mode")
            .or_else(|| str_field(other, "type"))
            .unwrap_or("set")
            .to_owned(),
    });
    if let Some(mode) = sandbox {
        parts.push(format!("sandbox {mode}"));
    }
    parts.join(" · ")
}

/// How a tool's run ended, from its end event: `exec_command_end`
/// (`exit_code`, `duration` as `{secs, nanos}` or `duration_ms`, `stdout`
/// and `stderr` apart or `aggregated_output`, `status`),
/// `patch_apply_end` (`success`, `stdout`, `stderr`), `mcp_tool_call_end`
/// (`duration`, a `result` that is `Ok` or `Err`). Not a command the
/// user ran.
fn run_report(event: &Value) -> Option<ToolRun> {
    // A command the user ran (`!`) is shown from the message that holds
    // it (`<user_shell_command>`, see `harness.rs`).
    if str_field(event, "source") == Some("user_shell") {
        return None;
    }
    let text = |key: &str| {
        str_field(event, key)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let duration_ms = match event.get("duration") {
        Some(d) if d.is_object() => {
            let nanos = d.get("nanos").and_then(Value::as_u64).unwrap_or(0);
            let secs = d.get("secs").and_then(Value::as_u64);
            secs.map(|secs| secs * 1000 + nanos / 1_000_000)
        }
        _ => event.get("duration_ms").and_then(Value::as_u64),
    };
    let status = str_field(event, "status");
    Some(ToolRun {
        call_id: str_field(event, "call_id")?.to_owned(),
        command: event
            .get("command")
            .and_then(Value::as_array)
            .map(|argv| {
                argv.iter()
                    .filter_map(|w| w.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        exit_code: event.get("exit_code").and_then(Value::as_i64),
        duration_ms,
        stdout: text("stdout").or_else(|| text("aggregated_output")),
        stderr: text("stderr"),
        failed: matches!(status, Some("failed" | "declined"))
            || event.get("success").and_then(Value::as_bool) == Some(false)
            || event.pointer("/result/Err").is_some(),
    })
}

/// A message views show as an event in the conversation.
fn marker(text: String, time: Option<i64>) -> Message {
    let mut m = Message::new(Role::System);
    m.kind = MessageKind::Marker;
    m.timestamp = time;
    m.content.push(Part::Text { text });
    m
}

/// A `ghost_snapshot {ghost_commit: {id, parent, preexisting_untracked_files,
/// preexisting_untracked_dirs}}` as a checkpoint; `None` without an id.
fn ghost_snapshot(item: &Value) -> Option<Part> {
    let ghost = item.get("ghost_commit")?;
    let paths = |key: &str, suffix: &str| -> Vec<String> {
        ghost
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|p| format!("{}{suffix}", p.trim_end_matches('/')))
            .collect()
    };
    let mut untracked = paths("preexisting_untracked_files", "");
    untracked.extend(paths("preexisting_untracked_dirs", "/"));
    Some(Part::Checkpoint {
        commit: str_field(ghost, "id")?.to_owned(),
        parent: str_field(ghost, "parent").map(str::to_owned),
        tag: None,
        tool: None,
        files: Vec::new(),
        untracked,
    })
}

fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// OpenAI counts cached input inside `input_tokens`; the message model
/// keeps cache reads apart (as Anthropic does). Reasoning tokens are part of
/// `output_tokens`.
fn token_usage(u: &Value) -> Usage {
    let input = count(u, "input_tokens");
    let cached = count(u, "cached_input_tokens");
    Usage {
        input: input.saturating_sub(cached),
        output: count(u, "output_tokens"),
        cache_read: cached,
        cache_write: 0,
        cost: None,
    }
}

fn call_id(item: &Value) -> String {
    str_field(item, "call_id")
        .or_else(|| str_field(item, "id"))
        .unwrap_or_default()
        .to_owned()
}

/// `arguments` are a JSON document in a string: parsed, or kept as the
/// string when they do not parse.
fn json_string(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

fn without_type(item: &Value) -> Value {
    let mut v = item.clone();
    if let Some(map) = v.as_object_mut() {
        map.remove("type");
        map.remove("call_id");
    }
    v
}

/// A `reasoning` item: its text, and what OpenAI needs to take it back
/// (the Responses item id and encrypted content, as a Responses item list
/// read by `normalize/provider.rs` keeps them).
fn reasoning(item: &Value, options: ContextOptions) -> (Part, PartExtra) {
    let texts = |key: &str| -> Vec<String> {
        item.get(key)
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|p| str_field(p, "text").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    // Raw reasoning where it was kept, else the summary.
    let mut text = texts("content").join("\n\n");
    if text.is_empty() {
        text = texts("summary").join("\n\n");
    }
    let encrypted = str_field(item, "encrypted_content").filter(|c| !c.is_empty());
    let extra = PartExtra {
        api: Some(Api::OpenAiResponses),
        item_id: str_field(item, "id").map(str::to_owned),
        signature: encrypted.filter(|_| options.payloads).map(str::to_owned),
        ..PartExtra::default()
    };
    let part = Part::Thinking {
        redacted: text.is_empty() && encrypted.is_some(),
        text,
        signature: encrypted.is_some(),
    };
    (part, extra)
}

/// Message content: a string, or `input_text`/`output_text`/`input_image`
/// parts. Unknown parts are kept as their JSON.
fn content(value: Option<&Value>) -> Vec<Part> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![Part::Text { text: s.clone() }],
        Some(Value::Array(parts)) => parts.iter().map(content_part).collect(),
        Some(other) => vec![Part::Text {
            text: other.to_string(),
        }],
    }
}

fn content_part(p: &Value) -> Part {
    match str_field(p, "type") {
        Some("input_text" | "output_text" | "text") => Part::Text {
            text: text_of(p.get("text").unwrap_or(&Value::Null)),
        },
        Some("input_image") => data_url_image(str_field(p, "image_url")),
        _ => Part::Text { text: text_of(p) },
    }
}

/// An image given as a `data:` URL (sized, not decoded) or a link.
fn data_url_image(url: Option<&str>) -> Part {
    let url = url.unwrap_or("");
    match url
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"))
    {
        Some((media_type, data)) => image(Some(media_type), Some(data)),
        None => image(None, None),
    }
}

/// A tool output: text, whether it failed, images, and what it says of
/// the run. Old shell output is a JSON string
/// `{"output","metadata":{"exit_code","duration_seconds"}}`; newer output
/// is plain text with a `Process exited with code N` line; either may be
/// a list of content items. A tool search returns `tools` instead.
type Output = (String, bool, Vec<Part>, Option<ToolRun>);

fn tool_output(item: &Value) -> Output {
    match item.get("output") {
        Some(Value::String(s)) => {
            if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s) {
                if let Some(output) = o.get("output").and_then(Value::as_str) {
                    let meta = o.get("metadata");
                    let code = meta
                        .and_then(|m| m.get("exit_code"))
                        .and_then(Value::as_i64);
                    // 0.5x writes 0.0 for every command: no duration.
                    let ms = meta
                        .and_then(|m| m.get("duration_seconds"))
                        .and_then(Value::as_f64)
                        .map(|s| (s * 1000.0).round() as u64)
                        .filter(|&ms| ms > 0);
                    let run = ToolRun {
                        exit_code: code,
                        duration_ms: ms,
                        ..ToolRun::default()
                    };
                    let run = (code.is_some() || ms.is_some()).then_some(run);
                    return (
                        output.to_owned(),
                        code.is_some_and(|c| c != 0),
                        Vec::new(),
                        run,
                    );
                }
            }
            (
                s.clone(),
                exit_code_in_text(s).is_some_and(|c| c != 0),
                Vec::new(),
                None,
            )
        }
        Some(Value::Array(items)) => {
            let mut text = String::new();
            let mut images = Vec::new();
            for part in items.iter().map(content_part) {
                match part {
                    Part::Text { text: t } => {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(&t);
                    }
                    other => images.push(other),
                }
            }
            (text, false, images, None)
        }
        // `{content, success}` as some versions wrote it.
        Some(Value::Object(o)) => {
            let text = o.get("content").map(text_of).unwrap_or_default();
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            (text, failed, Vec::new(), None)
        }
        Some(other) => (text_of(other), false, Vec::new(), None),
        // A `tool_search_output` has no output: what it found is its
        // `tools`, kept as JSON text.
        None => (
            item.get("tools").map(text_of).unwrap_or_default(),
            false,
            Vec::new(),
            None,
        ),
    }
}

/// `Process exited with code N` in the first lines of a plain-text output.
fn exit_code_in_text(s: &str) -> Option<i64> {
    s.lines()
        .take(8)
        .find_map(|l| l.strip_prefix("Process exited with code "))
        .and_then(|n| n.trim().parse().ok())
}

/// A Codex line's type and payload: the envelope's, or (old layout) the
/// bare item itself. `None` for state lines.
pub(crate) fn envelope(line: &Value) -> Option<(&str, &Value)> {
    if let Some(payload) = line.get("payload").filter(|p| p.is_object()) {
        return Some((line.get("type")?.as_str()?, payload));
    }
    if line.get("record_type").is_some() {
        return None;
    }
    match line.get("type").and_then(Value::as_str) {
        Some(_) => Some(("response_item", line)),
        None if line.get("id").is_some() => Some(("session_meta", line)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::entry::{Entry, FileId};

    fn run(lines: &[&str], mode: Mode) -> Vec<Message> {
        let mut n = Rollout::new(mode);
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let entry = Entry::new(FileId(0), i as u32 + 1, 0, 0, 0);
            let origin = Origin {
                entry: &entry,
                label: format!("L{}", i + 1),
                options: Default::default(),
            };
            n.feed(&origin, &serde_json::from_str(l).unwrap(), &mut out);
        }
        n.finish(&mut out);
        out
    }

    // Trimmed from the corpus rollout (Codex 0.58.0): the usage is counted
    // before the response's items, then repeated after them.
    const TURN: &[&str] = &[
        r#"{"timestamp":"2025-11-17T21:32:46.911Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"finish up"}]}}"#,
        r#"{"timestamp":"2025-11-17T21:32:46.911Z","type":"event_msg","payload":{"type":"user_message","message":"finish up","images":[]}}"#,
        r#"{"timestamp":"2025-11-17T21:32:46.915Z","type":"turn_context","payload":{"cwd":"/x","approval_policy":"never","sandbox_policy":{"mode":"danger-full-access"},"model":"gpt-5.1-codex","effort":"high","summary":"auto"}}"#,
        r#"{"timestamp":"2025-11-17T21:32:50.526Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10128,"cached_input_tokens":0,"output_tokens":37,"reasoning_output_tokens":0,"total_tokens":10165},"last_token_usage":{"input_tokens":10128,"cached_input_tokens":0,"output_tokens":37,"reasoning_output_tokens":0,"total_tokens":10165},"model_context_window":258400}}}"#,
        r#"{"timestamp":"2025-11-17T21:32:50.530Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Planning**"}],"content":null,"encrypted_content":"gAAAA"}}"#,
        r#"{"timestamp":"2025-11-17T21:32:50.530Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"call_1"}}"#,
        r#"{"timestamp":"2025-11-17T21:32:50.530Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"README.md\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.0}}"}}"#,
        r#"{"timestamp":"2025-11-17T21:32:51.512Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10128,"cached_input_tokens":0,"output_tokens":37,"reasoning_output_tokens":0,"total_tokens":10165},"last_token_usage":{"input_tokens":10128,"cached_input_tokens":0,"output_tokens":37,"reasoning_output_tokens":0,"total_tokens":10165},"model_context_window":258400}}}"#,
    ];

    #[test]
    fn one_response_with_usage_once() {
        let out = run(TURN, Mode::Context);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].role, Role::User);
        assert_eq!(out[0].text(), "finish up");
        let response = &out[1];
        assert_eq!(response.role, Role::Assistant);
        assert_eq!(response.model.as_deref(), Some("gpt-5.1-codex"));
        assert_eq!(response.lines, [5, 6]);
        assert_eq!(
            response.content[0],
            Part::Thinking {
                text: "**Planning**".into(),
                redacted: false,
                signature: true
            }
        );
        assert_eq!(
            response.tool_calls().collect::<Vec<_>>(),
            [("call_1", "shell")]
        );
        let Part::ToolCall { arguments, .. } = &response.content[1] else {
            panic!()
        };
        assert_eq!(arguments["command"][2], "ls");
        let usage = response.usage.unwrap();
        assert_eq!(
            (usage.input, usage.output, usage.cache_read),
            (10128, 37, 0)
        );
        assert_eq!(
            out[2].content,
            [Part::ToolResult {
                call_id: "call_1".into(),
                output: "README.md\n".into(),
                is_error: true
            }]
        );
    }

    #[test]
    fn the_turns_settings_are_the_first_responses_context_until_they_change() {
        let settings = |m: &Message| -> Vec<String> {
            m.harness
                .iter()
                .map(|p| match p {
                    Piece::Context { label, text } => format!("{label}: {text}"),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let high = TURN[2];
        let low = &high.replace(r#""effort":"high""#, r#""effort":"low""#);
        let out = run(
            &[
                TURN[0], high, TURN[4], TURN[5], TURN[6], high, TURN[4], TURN[6], low, TURN[4],
            ],
            Mode::Context,
        );
        let responses: Vec<Vec<String>> = out
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(settings)
            .collect();
        assert_eq!(
            responses,
            [
                vec!["turn settings: model gpt-5.1-codex · effort high · approval never · cwd /x · sandbox danger-full-access".to_owned()],
                vec![],
                vec!["turn settings: model gpt-5.1-codex · effort low · approval never · cwd /x · sandbox danger-full-access".to_owned()],
            ]
        );
    }

    #[test]
    fn a_runs_report_goes_to_its_call_or_result_and_never_away() {
        let call = TURN[5];
        let output = r#"{"timestamp":"2025-11-17T21:32:50.530Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"README.md\n"}}"#;
        let end = |id: &str| {
            format!(
                r#"{{"timestamp":"2025-11-17T21:32:50.600Z","type":"event_msg","payload":{{"type":"exec_command_end","call_id":"{id}","command":["ls"],"stdout":"README.md\n","stderr":"","exit_code":0,"duration":{{"secs":1,"nanos":500000000}}}}}}"#
            )
        };
        let report = ToolRun {
            call_id: "call_1".into(),
            command: vec!["ls".into()],
            exit_code: Some(0),
            duration_ms: Some(1500),
            stdout: Some("README.md\n".into()),
            ..ToolRun::default()
        };
        // Before the output: the call's.
        let out = run(&[call, &end("call_1"), output], Mode::Context);
        assert_eq!(out[0].runs, std::slice::from_ref(&report));
        assert!(out[1].runs.is_empty());
        // After it: the output's.
        let out = run(&[call, output, &end("call_1")], Mode::Context);
        assert_eq!(
            (out[0].runs.len(), &out[1].runs[..]),
            (0, &[report.clone()][..])
        );
        // Ahead of both (a row read alone): waits for the output.
        let out = run(&[&end("call_1"), output], Mode::Context);
        assert_eq!(out[0].runs, std::slice::from_ref(&report));
        // With no call nor output in sight (its call on another row): with
        // the last message, never dropped. A command the user ran is shown
        // from its own message, not again.
        let out = run(&[TURN[0], &end("other")], Mode::Context);
        assert_eq!(out[0].runs[0].call_id, "other");
        let user = end("mine").replace(r#""command""#, r#""source":"user_shell","command""#);
        let out = run(&[TURN[0], &user], Mode::Context);
        assert!(out[0].runs.is_empty());
        // 0.5x output's metadata is a report too; an exit code, and no
        // duration of 0.0.
        let out = run(&[call, TURN[6]], Mode::Context);
        assert_eq!(
            out[1].runs,
            [ToolRun {
                call_id: "call_1".into(),
                exit_code: Some(1),
                ..ToolRun::default()
            }]
        );
    }

    #[test]
    fn usage_written_after_the_items_goes_to_the_same_response() {
        let lines = [TURN[2], TURN[4], TURN[5], TURN[3], TURN[6]];
        let out = run(&lines, Mode::Context);
        assert_eq!(out[0].usage.unwrap().input, 10128);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn plain_text_output_custom_tools_and_injected_context() {
        let out = run(
            &[
                r#"{"timestamp":"2026-03-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"}]}}"#,
                r#"{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch"}}"#,
                r#"{"timestamp":"2026-03-01T10:00:02.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Chunk ID: 2d\nWall time: 0.0 seconds\nProcess exited with code 2\nOutput:\nboom"}}"#,
                r#"{"timestamp":"2026-03-01T10:00:03.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"rust"}}}"#,
            ],
            Mode::Context,
        );
        assert_eq!(out[0].kind, MessageKind::Meta);
        assert_eq!(
            out[1].tool_calls().collect::<Vec<_>>(),
            [("c2", "apply_patch")]
        );
        assert_eq!(out[2].tool_results().collect::<Vec<_>>(), [("c2", true)]);
        // A web search is its own call and result.
        assert_eq!(out[3].tool_calls().count(), 1);
        assert_eq!(out[3].tool_results().count(), 1);
    }

    #[test]
    fn a_tool_search_result_is_the_tools_it_found() {
        // `tool_search_output` is `{call_id, status, execution, tools}`.
        let tools = r#"[{"type":"function","name":"calendar.create_event","description":"Create an event","parameters":{"type":"object","properties":{"title":{"type":"string"}}}}]"#;
        let output = format!(
            r#"{{"timestamp":"2026-03-01T10:00:02.000Z","type":"response_item","payload":{{"type":"tool_search_output","call_id":"ts1","status":"completed","execution":"client","tools":{tools}}}}}"#
        );
        let out = run(
            &[
                r#"{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","payload":{"type":"tool_search_call","call_id":"ts1","status":"completed","execution":"client","arguments":{"query":"calendar"}}}"#,
                &output,
            ],
            Mode::Context,
        );
        assert_eq!(
            out[0].tool_calls().collect::<Vec<_>>(),
            [("ts1", "tool_search")]
        );
        assert_eq!(out[1].tool_results().collect::<Vec<_>>(), [("ts1", false)]);
        let Part::ToolResult { output, .. } = &out[1].content[0] else {
            panic!("{:?}", out[1].content)
        };
        assert_eq!(
            serde_json::from_str::<Value>(output).unwrap(),
            serde_json::from_str::<Value>(tools).unwrap()
        );
    }

    #[test]
    fn compacted_history_replaces_context_but_is_not_counted_twice() {
        let lines = [
            r#"{"timestamp":"2026-03-01T10:00:00.000Z","type":"compacted","payload":{"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"earlier"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}]}}"#,
        ];
        let context = run(&lines, Mode::Context);
        assert_eq!(context.len(), 2);
        assert_eq!(context[1].text(), "done");
        let check = run(&lines, Mode::Check);
        assert_eq!(check.len(), 1);
        assert_eq!(check[0].kind, MessageKind::CompactionSummary);
    }
}
