//! Search over a whole session, with a snippet of text around each match:
//! the viewer's search box, and what `serve` will answer.
//!
//! Two passes. Every entry's bytes as written are looked at first, which
//! is cheap (no parsing): an entry whose bytes cannot hold the query is
//! skipped. The text of each remaining entry, as a person reads it (a
//! message's text, thinking, tool calls and outputs, or an event's line),
//! decides: a match in markup (a key, an id) is no match. The text is read
//! through the source given, so a
//! [`RedactingSource`](crate::redact::RedactingSource) searches the text
//! as shown: a match inside hidden data is no match either.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{EntryId, Flags, Message, Part, Session, Source, SourceError};

/// Characters of context a snippet keeps on each side of the match.
pub const SNIPPET_CONTEXT: usize = 60;

/// What a source may put around text it marks (a revealing
/// `RedactingSource` around the values it leaves in place: the
/// private-use U+E000 and U+E001): a match may run across them, and a
/// snippet keeps them paired.
pub(crate) const MARKS: [char; 2] = ['\u{E000}', '\u{E001}'];

/// Hits a front end asks for unless told otherwise (the viewer's search
/// box, `retrace search`): more than anyone reads, few enough to send.
pub const SEARCH_LIMIT: usize = 500;

/// Which entries a search looks at, by who wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchFilter {
    /// Messages the user wrote.
    pub user: bool,
    /// Messages the model wrote.
    pub assistant: bool,
    /// Tool results.
    pub tool: bool,
    /// Everything else: events, system lines, lines without a role.
    pub events: bool,
}

impl Default for SearchFilter {
    /// What was said: user, assistant and tools; not events.
    fn default() -> Self {
        SearchFilter {
            user: true,
            assistant: true,
            tool: true,
            events: false,
        }
    }
}

impl SearchFilter {
    fn wants(self, role: &str) -> bool {
        match role {
            "user" => self.user,
            "assistant" => self.assistant,
            "tool" => self.tool,
            _ => self.events,
        }
    }
}

/// One entry that matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Hit {
    /// The entry.
    pub entry: EntryId,
    /// The entry's label ([`Session::label`]).
    pub label: String,
    /// Its 1-based line in its file.
    pub line: u32,
    /// `user`, `assistant`, `tool` (a tool result), `event` (no role), or
    /// the role as written (`system`, `developer`, …).
    pub role: String,
    /// Up to [`SNIPPET_CONTEXT`] characters either side of the first match
    /// in the entry's text, whitespace runs as one space, `…` where cut.
    pub snippet: String,
    /// A leaf whose branch holds the entry (followed from it along the
    /// tree's continuations).
    pub leaf: EntryId,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hits {
    /// In file order.
    pub hits: Vec<Hit>,
    /// More entries matched than `limit`.
    pub truncated: bool,
}

/// The entries of the branch tree whose text holds `query`, case
/// insensitively, among those `filter` wants; at most `limit`.
///
/// A query that is blank finds nothing. Bytes are read through `source`
/// (see the module doc for the two passes; a source that changes bytes
/// lends the bytes as written to the first one through
/// [`Source::as_written`]).
pub fn search(
    session: &Session,
    source: &mut dyn Source,
    query: &str,
    filter: SearchFilter,
    limit: usize,
) -> Result<Hits, SourceError> {
    let needle = lower(query.trim());
    let mut out = Hits::default();
    if needle.is_empty() {
        return Ok(out);
    }
    let written = written_part(&needle);
    let finder = memchr::memmem::Finder::new(written.as_bytes());
    let lends = source.as_written().is_some();
    let tree = session.tree();
    let mut folded = Vec::new();
    for (i, entry) in session.entries().iter().enumerate() {
        let e = EntryId(i as u32);
        if !tree.contains(e) || entry.is_broken() {
            continue;
        }
        let role = hit_role(session, e);
        if !filter.wants(role) {
            continue;
        }
        if !written.is_empty() {
            let bytes = match lends {
                true => source.as_written().expect("lent above"),
                false => &mut *source,
            }
            .read(entry.file, entry.range())?;
            folded.clear();
            folded.extend(bytes.iter().map(u8::to_ascii_lowercase));
            if finder.find(&folded).is_none() {
                continue;
            }
        }
        let text = entry_text(session, e, source)?;
        let Some(snippet) = snippet(&text, &needle) else {
            continue;
        };
        if out.hits.len() == limit {
            out.truncated = true;
            break;
        }
        let mut leaf = e;
        while let Some(next) = tree.continuation(leaf) {
            leaf = next;
        }
        out.hits.push(Hit {
            entry: e,
            label: session.label(e),
            line: entry.line,
            role: role.to_owned(),
            snippet,
            leaf,
        });
    }
    Ok(out)
}

/// The piece of `query` that a match leaves in an entry's bytes as
/// written, ASCII-lower-cased (see `written_part`): a file whose bytes,
/// lower-cased, do not hold it holds no match, so a search across many
/// sessions can pass over it without indexing it. Empty when no piece is
/// certain (then every file must be searched).
pub fn written_needle(query: &str) -> String {
    written_part(&lower(query.trim())).to_owned()
}

/// Who wrote an entry, as a search sees it.
fn hit_role(session: &Session, e: EntryId) -> &str {
    match session.role(e) {
        _ if session.entry(e).flags.has(Flags::TOOL_RESULT) => "tool",
        "toolResult" => "tool",
        "" => "event",
        role => role,
    }
}

/// Lower case, character by character, without marks (the same folding
/// for the query and the text, so a match in one is a match in the other).
fn lower(text: &str) -> String {
    text.chars()
        .filter(|c| !MARKS.contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The longest piece of the (lower-case) needle that any JSON writer
/// leaves as it is: ASCII, no quote, backslash or slash (escaped by all or
/// some writers), no `<`, `>`, `&` (Go escapes them), no control
/// characters. When the text holds the needle, the entry's bytes as
/// written hold this piece, ASCII-lower-cased. Empty when no such piece:
/// then every entry is read.
fn written_part(needle: &str) -> &str {
    let plain = |c: char| c.is_ascii() && !c.is_ascii_control() && !"\"\\/<>&'".contains(c);
    needle
        .split(|c| !plain(c))
        .max_by_key(|piece| piece.len())
        .unwrap_or("")
}

/// The text a search looks in for an entry: a message's (see
/// [`searchable_text`]), else an event's line (see [`event_line`]); empty
/// for a body that does not parse.
pub fn entry_text(
    session: &Session,
    e: EntryId,
    source: &mut dyn Source,
) -> Result<String, SourceError> {
    if let Some(message) = session.message(e, source)? {
        return Ok(searchable_text(&message));
    }
    Ok(match session.body(e, source)? {
        Ok(body) => event_line(&body),
        Err(_) => String::new(),
    })
}

/// Up to [`SNIPPET_CONTEXT`] characters either side of the first case
/// insensitive match of `needle` (already lower case) in `text`.
fn snippet(text: &str, needle: &str) -> Option<String> {
    let folded = lower(text);
    let at = folded.find(needle)?;
    let end = at + needle.len();
    // Lower-casing can change lengths outside ASCII: find the characters of
    // `text` that the match came from.
    let (mut first, mut last, mut pos) = (None, 0, 0);
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    for (n, c) in text.chars().enumerate() {
        if pos >= end {
            break;
        }
        if MARKS.contains(&c) {
            continue;
        }
        pos += c.to_lowercase().map(char::len_utf8).sum::<usize>();
        if pos > at {
            first.get_or_insert(n);
            last = n;
        }
    }
    let first = first?;
    let from = first.saturating_sub(SNIPPET_CONTEXT);
    let to = (last + 1 + SNIPPET_CONTEXT).min(starts.len());
    let byte = |n: usize| starts.get(n).copied().unwrap_or(text.len());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    for (i, word) in text[byte(from)..byte(to)].split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    // A cut through a marked value keeps its marks paired.
    let last_mark = |t: &str| t.chars().rev().find(|c| MARKS.contains(c));
    if last_mark(&text[..byte(from)]) == Some(MARKS[0]) {
        out.insert(if from > 0 { '…'.len_utf8() } else { 0 }, MARKS[0]);
    }
    if last_mark(&out) == Some(MARKS[0]) {
        out.push(MARKS[1]);
    }
    if to < starts.len() {
        out.push('…');
    }
    Some(out)
}

/// Everything a person reads in a message: text, thinking, tool names and
/// arguments, tool outputs, image types; one part per line.
pub fn searchable_text(message: &Message) -> String {
    let mut out = String::new();
    for part in &message.content {
        match part {
            Part::Text { text } | Part::Thinking { text, .. } => out.push_str(text),
            Part::ToolCall {
                name, arguments, ..
            } => {
                out.push_str(name);
                out.push(' ');
                out.push_str(&arguments.to_string());
            }
            Part::ToolResult { output, .. } => out.push_str(output),
            Part::Image { media_type, .. } => out.push_str(media_type),
            // The commit in full, so a search for a long id finds it.
            Part::Checkpoint {
                commit, untracked, ..
            } => {
                out.push_str(&part.checkpoint_line().unwrap_or_default());
                out.push(' ');
                out.push_str(commit);
                for path in untracked {
                    out.push(' ');
                    out.push_str(path);
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Milliseconds as seconds to a tenth, rounded half up (`1250` →
/// `1.3`). In integers: formatting a float would link the float printer
/// into the viewer's worker, several kilobytes for this one line.
fn tenths(ms: u64) -> String {
    let t = ms.saturating_add(50) / 100;
    format!("{}.{}", t / 10, t % 10)
}

/// One line saying what an event entry (not a message) is: a setting
/// change, a hook line, a compaction boundary…; for an entry of unknown
/// type, its type and first few scalar fields. At most 300 characters.
pub fn event_line(body: &Value) -> String {
    let s = |key: &str| body.get(key).and_then(Value::as_str);
    let kind = s("type").unwrap_or("entry");
    let detail = match kind {
        "model_change" => Some(format!(
            "model → {}{}",
            s("provider").map(|p| format!("{p}/")).unwrap_or_default(),
            s("modelId").unwrap_or("?")
        )),
        "thinking_level_change" => s("thinkingLevel").map(|l| format!("thinking level → {l}")),
        "label" => Some(match s("label") {
            Some(l) if !l.is_empty() => format!("label “{l}” on {}", s("targetId").unwrap_or("?")),
            _ => format!("label cleared on {}", s("targetId").unwrap_or("?")),
        }),
        "session_info" => s("name").map(|n| format!("session named “{n}”")),
        "custom" => s("customType").map(|t| format!("extension state ({t})")),
        "leaf" => Some(format!("leaf moved to {}", s("targetId").unwrap_or("?"))),
        "system" => {
            let subtype = s("subtype");
            let content = s("content").map(strip_ansi);
            match (subtype, content) {
                (Some("compact_boundary"), _) => Some(format!(
                    "compaction ({})",
                    body.pointer("/compactMetadata/trigger")
                        .and_then(Value::as_str)
                        .unwrap_or("auto")
                )),
                (Some("turn_duration"), _) => body
                    .get("durationMs")
                    .and_then(Value::as_u64)
                    .map(|ms| format!("turn took {} s", tenths(ms))),
                (sub, Some(c)) if !c.is_empty() => Some(match sub {
                    Some(sub) => format!("{sub}: {c}"),
                    None => c,
                }),
                (Some(sub), _) => Some(sub.replace('_', " ")),
                _ => None,
            }
        }
        "progress" => body.get("data").map(|d| {
            let t = d.get("type").and_then(Value::as_str).unwrap_or("progress");
            match (
                d.get("hookEvent").and_then(Value::as_str),
                d.get("hookName").and_then(Value::as_str),
            ) {
                (Some(e), Some(n)) => format!("{} {e}: {n}", t.replace('_', " ")),
                _ => t.replace('_', " "),
            }
        }),
        "attachment" => body
            .pointer("/attachment/type")
            .and_then(Value::as_str)
            .map(|t| format!("attachment: {}", t.replace('_', " "))),
        "event_msg" | "response_item" | "turn_context" | "session_meta" => Some(codex_line(
            kind,
            body.get("payload").unwrap_or(&Value::Null),
        )),
        // A Codex rollout's first line before Sept 2025: the meta bare.
        "entry" if body.get("id").is_some() && body.get("git").is_some() => {
            Some(codex_line("session_meta", body))
        }
        _ => None,
    };
    let line = detail.unwrap_or_else(|| {
        // Unknown entries: the type and the first few scalar fields.
        let mut parts = vec![kind.to_owned()];
        if let Some(object) = body.as_object() {
            let shown = object.iter().filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "type" | "id" | "parentId" | "uuid" | "parentUuid" | "timestamp" | "sessionId"
                )
            });
            for (k, value) in shown {
                if parts.len() > 4 {
                    break;
                }
                match value {
                    Value::String(t) if t.len() < 80 => parts.push(format!("{k}: {t}")),
                    Value::Number(n) => parts.push(format!("{k}: {n}")),
                    Value::Bool(b) => parts.push(format!("{k}: {b}")),
                    _ => {}
                }
            }
        }
        parts.join(" · ")
    });
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// A Codex line that is not a message, by its payload: the UI's copies
/// and notices named in words, token counts as numbers, a turn's settings
/// as they were. Only words a search's first pass can find in the line's
/// bytes or that no one searches for (see `written_part`).
fn codex_line(kind: &str, payload: &Value) -> String {
    let s = |key: &str| payload.get(key).and_then(Value::as_str);
    let sub = s("type").unwrap_or("");
    match (kind, sub) {
        ("turn_context", _) => format!(
            "turn settings: {}",
            crate::normalize::codex::turn_settings(payload)
        ),
        ("session_meta", _) => {
            let mut line = "session started".to_owned();
            if let Some(cwd) = s("cwd") {
                line.push_str(&format!(" in {cwd}"));
            }
            if let Some(v) = s("cli_version") {
                line.push_str(&format!(" (Codex {v})"));
            }
            line
        }
        (_, "token_count") => {
            let last = payload.pointer("/info/last_token_usage");
            let n = |key: &str| {
                last.and_then(|u| u.get(key))
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            };
            match last {
                Some(_) => format!(
                    "token count: in {} · cached {} · out {}",
                    n("input_tokens"),
                    n("cached_input_tokens"),
                    n("output_tokens")
                ),
                None => "token count: rate limits only".to_owned(),
            }
        }
        // The UI's copies of items the conversation shows already: named,
        // their text not repeated (a search would find it twice).
        (_, "agent_reasoning") => "agent reasoning (UI copy)".to_owned(),
        (_, "agent_message") => "agent message (UI copy)".to_owned(),
        (_, "user_message") => "user message (UI copy)".to_owned(),
        (_, "exec_command_end") => {
            let argv: Vec<&str> = payload
                .get("command")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let code = payload.get("exit_code").and_then(Value::as_i64);
            match code {
                Some(c) => format!("command ended (exit {c}): {}", argv.join(" ")),
                None => format!("command ended: {}", argv.join(" ")),
            }
        }
        (_, "task_started") => "turn started".to_owned(),
        (_, "task_complete") => "turn complete".to_owned(),
        (_, "") => kind.replace('_', " "),
        (_, other) => other.replace('_', " "),
    }
}

/// Removes ANSI escape sequences (hook output in Claude Code system lines).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn events_read_as_one_line() {
        let v = json(
            r#"{"type":"model_change","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","provider":"acme","modelId":"alpha"}"#,
        );
        assert_eq!(event_line(&v), "model → acme/alpha");
        let v = json(
            r#"{"type":"system","content":"\u001b[1mPostToolUse:Edit\u001b[22m [hook] completed","level":"info"}"#,
        );
        assert_eq!(event_line(&v), "PostToolUse:Edit [hook] completed");
        let v = json(
            r#"{"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:startup"}}"#,
        );
        assert_eq!(
            event_line(&v),
            "hook progress SessionStart: SessionStart:startup"
        );
        // Fields in key order (serde_json sorts object keys).
        let v = json(r#"{"type":"future_entry","id":"x","note":"hi","n":3}"#);
        assert_eq!(event_line(&v), "future_entry · n: 3 · note: hi");
        let v = json(
            r#"{"id":"5973b6c0","timestamp":"2025-08-06T17:23:31.000Z","instructions":null,"git":{"branch":"main"}}"#,
        );
        assert_eq!(event_line(&v), "session started");
        for (ms, says) in [
            (0, "0.0"),
            (49, "0.0"),
            (50, "0.1"),
            (1250, "1.3"),
            (61_949, "61.9"),
        ] {
            let v = json(&format!(
                r#"{{"type":"system","subtype":"turn_duration","durationMs":{ms}}}"#
            ));
            assert_eq!(event_line(&v), format!("turn took {says} s"));
        }
        let long = format!(r#"{{"type":"system","content":"{}"}}"#, "x".repeat(400));
        assert_eq!(event_line(&json(&long)).chars().count(), 301);
    }

    #[test]
    fn snippets_keep_sixty_characters_either_side() {
        let text = format!("{}needle{}", "a".repeat(100), "b".repeat(100));
        let s = snippet(&text, "needle").unwrap();
        assert_eq!(s, format!("…{}needle{}…", "a".repeat(60), "b".repeat(60)));
        // Whitespace runs collapse; nothing cut, no ellipsis.
        assert_eq!(snippet("a  Needle\n\n b", "needle").unwrap(), "a Needle b");
        assert_eq!(snippet("no match here", "needle"), None);
    }

    #[test]
    fn a_match_runs_across_marks_and_a_snippet_keeps_them_paired() {
        let (open, close) = (MARKS[0], MARKS[1]);
        let text = format!("mail {open}Jane.Doe@x.io{close} today");
        assert_eq!(snippet(&text, "mail jane").unwrap(), text);
        assert_eq!(snippet(&text, "x.io today").unwrap(), text);
        // Cut inside a marked value on both sides: the marks are paired
        // again; a cut that keeps the mark needs nothing added.
        let long = format!("a {open}{}X{}{close} b", "v".repeat(100), "w".repeat(100));
        let s = snippet(&long, "x").unwrap();
        let inner = format!("{}X{}", "v".repeat(60), "w".repeat(60));
        assert_eq!(s, format!("…{open}{inner}{close}…"));
        // (The space and the mark count among the sixty characters.)
        let s = snippet(&long, "a").unwrap();
        assert_eq!(s, format!("a {open}{}{close}…", "v".repeat(58)));
    }

    #[test]
    fn snippets_are_cut_at_characters_whose_case_changes_length() {
        // 'İ' lower-cases to two characters (i + a combining dot), so the
        // match in the lower-cased text is further on than in the text.
        let text = format!("{}{}", "İ".repeat(70), "Straße xyz");
        let s = snippet(&text, &lower("STRASSE")).is_none();
        assert!(s, "ß is not ss");
        let s = snippet(&text, "straße").unwrap();
        assert_eq!(s, format!("…{}Straße xyz", "İ".repeat(60)));
        // Final sigma: the query and the text fold the same way.
        let s = snippet("ΟΔΟΣ ΕΝΑ", &lower("ΟΔΟΣ")).unwrap();
        assert_eq!(s, "ΟΔΟΣ ΕΝΑ");
    }

    #[test]
    fn the_first_pass_looks_for_what_writers_leave_unescaped() {
        assert_eq!(written_part("fix the bug"), "fix the bug");
        // A quote is `\"` in the file, a slash may be `\/`, `<` may be `\u003c`.
        assert_eq!(written_part("say \"hi\" now"), " now");
        assert_eq!(written_part("a/b/cdef"), "cdef");
        assert_eq!(written_part("<environment_context>"), "environment_context");
        // Non-ASCII may be `\u00e9`: no piece, every entry is read.
        assert_eq!(written_part("é"), "");
        assert_eq!(written_part("café au lait"), " au lait");
    }

    #[test]
    fn search_finds_text_however_it_is_escaped() {
        let lines = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"say \"hi\" to the caf\u00e9 at a\/b"}}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi! The café is closed."}]}}"#,
            "\n",
            r#"{"type":"model_change","id":"m1","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","provider":"acme","modelId":"hi-model"}"#,
            "\n",
        );
        let s = Session::from_bytes("t.jsonl", lines.as_bytes());
        let run = |query: &str, filter: SearchFilter, limit: usize| {
            let mut source: &[u8] = lines.as_bytes();
            search(&s, &mut source, query, filter, limit).unwrap()
        };
        let labels = |hits: &Hits| {
            hits.hits
                .iter()
                .map(|h| h.label.clone())
                .collect::<Vec<_>>()
        };
        let all = SearchFilter {
            events: true,
            ..SearchFilter::default()
        };
        assert_eq!(labels(&run("\"HI\"", all, 10)), ["u1"]);
        assert_eq!(labels(&run("CAFÉ", all, 10)), ["u1", "a1"]);
        assert_eq!(labels(&run("a/b", all, 10)), ["u1"]);
        assert_eq!(labels(&run("hi", all, 10)), ["u1", "a1", "m1"]);
        // Events only when asked for; roles by filter.
        assert_eq!(
            labels(&run("hi", SearchFilter::default(), 10)),
            ["u1", "a1"]
        );
        let only_user = SearchFilter {
            assistant: false,
            ..SearchFilter::default()
        };
        assert_eq!(labels(&run("hi", only_user, 10)), ["u1"]);
        // Keys and ids are markup, not text.
        assert!(run("parentId", all, 10).hits.is_empty());
        assert!(run("  ", all, 10).hits.is_empty());
        // The limit, and whether more matched.
        let two = run("hi", all, 2);
        assert_eq!(
            (labels(&two), two.truncated),
            (vec!["u1".into(), "a1".into()], true)
        );
        let three = run("hi", all, 3);
        assert!(!three.truncated);
        let hit = &three.hits[2];
        assert_eq!(
            (hit.role.as_str(), hit.line, hit.leaf),
            ("event", 4, EntryId(3))
        );
        assert_eq!(three.hits[0].leaf, EntryId(3));
        assert_eq!(three.hits[0].snippet, "say \"hi\" to the café at a/b");
    }

    #[test]
    fn messages_read_as_text_with_tool_calls_and_outputs() {
        let mut m = Message::new(crate::Role::Assistant);
        m.content = vec![
            Part::Text {
                text: "look".into(),
            },
            Part::ToolCall {
                id: "c1".into(),
                name: "grep".into(),
                arguments: json(r#"{"pattern":"x"}"#),
            },
            Part::ToolResult {
                call_id: "c1".into(),
                output: "found".into(),
                is_error: false,
            },
        ];
        assert_eq!(
            searchable_text(&m),
            "look\ngrep {\"pattern\":\"x\"}\nfound\n"
        );
    }
}
