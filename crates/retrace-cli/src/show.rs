//! `retrace show`: the conversation on one branch.

use std::io::Write;

use retrace_core::redact::Redactor;
use retrace_core::{Message, MessageKind, Part, Role};

use crate::input::{leaf, load};
use crate::output::{shorten, time};
use crate::{Failure, Outcome};

pub fn run(
    path: &str,
    wanted: Option<&str>,
    json: bool,
    redact: bool,
    out: &mut impl Write,
) -> Result<Outcome, Failure> {
    let mut loaded = load(path)?;
    let leaf = leaf(&loaded, wanted)?;
    let mut messages = loaded
        .session
        .context(leaf, &mut loaded.source)
        .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let mut redactor = redact.then(crate::redact::shown);
    for m in &mut messages {
        if json {
            let line = serde_json::to_vec(m).map_err(std::io::Error::from)?;
            match redactor.as_mut() {
                Some(r) => out.write_all(&crate::redact::json_lines(r, &line))?,
                None => out.write_all(&line)?,
            }
            writeln!(out)?;
        } else {
            if let Some(r) = redactor.as_mut() {
                redact_message(r, m);
            }
            print_message(m, out)?;
        }
    }
    Ok(Outcome::Clean)
}

/// Redacts a message's text before it is shortened for display (so a key
/// cut in half at the edge is still replaced whole).
fn redact_message(r: &mut Redactor, m: &mut Message) {
    for part in &mut m.content {
        match part {
            Part::Text { text } | Part::Thinking { text, .. } => *text = r.redact_text(text),
            Part::ToolResult { output, .. } => *output = r.redact_text(output),
            Part::ToolCall { arguments, .. } => {
                // As JSON, so `{"password": "…"}` is seen by its key.
                if let Ok(line) = serde_json::to_vec(arguments) {
                    let red = crate::redact::json_lines(r, &line);
                    if let Ok(v) = serde_json::from_slice(&red) {
                        *arguments = v;
                    }
                }
            }
            Part::Image { .. } => {}
        }
    }
}

fn print_message(m: &Message, out: &mut impl Write) -> std::io::Result<()> {
    let mut head = match (m.role, m.kind) {
        (_, MessageKind::CompactionSummary) => "compaction summary".to_owned(),
        (_, MessageKind::BranchSummary) => "branch summary".to_owned(),
        (_, MessageKind::BashExecution) => "user shell command".to_owned(),
        (_, MessageKind::Custom) => "extension message".to_owned(),
        (role, MessageKind::Meta) => format!("{} (injected)", role.as_str()),
        (_, MessageKind::Marker) => "event".to_owned(),
        (Role::Tool, _) => "tool result".to_owned(),
        (role, _) => role.as_str().to_owned(),
    };
    if let Some(model) = &m.model {
        head.push_str(&format!(" · {model}"));
    }
    if let Some(t) = m.timestamp {
        head.push_str(&format!(" · {}", time(t)));
    }
    if let Some(line) = m.lines.first() {
        head.push_str(&format!(" · line {line}"));
    }
    writeln!(out, "── {head} ──")?;
    for part in &m.content {
        match part {
            Part::Text { text } => writeln!(out, "{}", shorten(text, 40, 10))?,
            Part::Thinking {
                text,
                redacted: true,
                ..
            } if text.is_empty() => writeln!(out, "[thinking, redacted]")?,
            // Newer Claude models record only a signature, no text.
            Part::Thinking { text, .. } if text.trim().is_empty() => {
                writeln!(out, "[thinking, no text recorded]")?
            }
            Part::Thinking { text, .. } => {
                writeln!(out, "[thinking]\n{}", indent(&shorten(text, 6, 2)))?
            }
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
                writeln!(out, "→ {name} ({id})\n{}", indent(&shorten(&args, 15, 5)))?;
            }
            Part::ToolResult {
                call_id,
                output,
                is_error,
            } => {
                let flag = if *is_error { " ERROR" } else { "" };
                writeln!(
                    out,
                    "← {call_id}{flag}\n{}",
                    indent(&shorten(output, 10, 5))
                )?;
            }
            Part::Image {
                media_type,
                byte_size,
            } => writeln!(out, "[image {media_type}, {byte_size} bytes]")?,
        }
    }
    if let Some(u) = &m.usage {
        writeln!(
            out,
            "   tokens: in {} out {} cache read {} cache write {}",
            u.input, u.output, u.cache_read, u.cache_write
        )?;
    }
    writeln!(out)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("   {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
