//! `retrace show`: the conversation on one branch; a message whose entry
//! is bookmarked says so in its head (`⚑ name`), and in JSON its
//! `bookmarks`.

use std::collections::HashMap;
use std::io::Write;

use anyhow::Result;
use retrace_core::{Message, MessageKind, Part, Role};
use serde::Serialize;

use super::{leaf, warn_bad_bookmarks};
use crate::args::{OutputOptions, ReadArgs, ShowArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::output::{shorten, time};
use crate::printer::Printer;

impl Run for ShowArgs {
    fn output(&self) -> OutputOptions {
        // Redacted unless asked: what the viewer shows (`--redact` is the
        // default, kept for scripts).
        OutputOptions::new(self.json, self.redact || !self.show_sensitive)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &ShowArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let mut loaded = load(path, read, printer)?;
    warn_bad_bookmarks(&loaded, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    // Read through the redacting source (unless `--show-sensitive`): what
    // is shown is what the viewer shows, hidden before it is shortened.
    let messages = loaded
        .session
        .context(leaf, &mut printer.shown(&mut loaded.source))
        .map_err(|e| InputError::new(e).on(path))?;
    // A message names its entries by label, as the session does.
    let s = &loaded.session;
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    for b in s.bookmarks() {
        let name = printer.hide(&b.name);
        names.entry(s.label(b.entry)).or_default().push(name);
    }
    for m in &messages {
        let bookmarks: Vec<&str> = m
            .entries
            .iter()
            .filter_map(|e| names.get(e))
            .flatten()
            .map(String::as_str)
            .collect();
        printer.emit_shown(
            || Shown {
                message: m,
                bookmarks: &bookmarks,
            },
            |out| print_message(m, &bookmarks, out),
        )?;
    }
    Ok(ExitStatus::Success)
}

/// A message as `--json` prints it: its fields, and the names its entries
/// are bookmarked under.
#[derive(Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    message: &'a Message,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    bookmarks: &'a [&'a str],
}

/// Untracked paths of a checkpoint listed before "… N more".
const UNTRACKED_SHOWN: usize = 5;

fn print_message(m: &Message, bookmarks: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
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
    if !bookmarks.is_empty() {
        head.push_str(&format!(" · ⚑ {}", bookmarks.join(", ")));
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
            Part::Checkpoint { untracked, .. } => {
                let line = part.checkpoint_line().unwrap_or_default();
                writeln!(out, "◆ {line}")?;
                // A Codex snapshot names the paths it leaves alone; the
                // first few say what they are.
                for path in untracked.iter().take(UNTRACKED_SHOWN) {
                    writeln!(out, "   untracked: {path}")?;
                }
                if untracked.len() > UNTRACKED_SHOWN {
                    writeln!(out, "   … {} more", untracked.len() - UNTRACKED_SHOWN)?;
                }
            }
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
