//! `retrace show`: the conversation on one branch, written for reading
//! (`render.rs`); a message whose entry is bookmarked says so in its head
//! (`⚑ name`), and in JSON its `bookmarks`.

mod render;

use std::collections::HashMap;
use std::io::IsTerminal;

use anyhow::Result;
use retrace_core::{ContextOptions, EntryId, Message, Session, Source, SourceError, ToolOutput};
use serde::Serialize;

use super::{each_message, leaf, warn_bad_bookmarks};
use crate::args::{ColorChoice, OutputOptions, ReadArgs, ShowArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
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
    // A message names its entries by label, as the session does.
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    for b in loaded.session.bookmarks() {
        let name = printer.hide(&b.name);
        names
            .entry(loaded.session.label(b.entry))
            .or_default()
            .push(name);
    }
    // Read through the redacting source (unless `--show-sensitive`): what
    // is shown is what the viewer shows, hidden before it is shortened.
    if printer.is_json() {
        // Each message on its own line as it is read (and redacted, on a
        // thread of its own): a long branch is never held.
        let (by, source) = (printer.shown_by(), &mut loaded.source);
        let written = each_message(
            &loaded.session,
            || by.over(source),
            leaf,
            ContextOptions::default(),
            |m| -> Result<(), Failed> {
                let bookmarks = bookmarks_of(&m, &names);
                printer
                    .emit_shown(
                        || Shown {
                            message: &m,
                            bookmarks: &bookmarks,
                        },
                        |_| Ok(()),
                    )
                    .map_err(Failed::Write)
            },
        );
        return match written {
            Ok(()) => Ok(ExitStatus::Success),
            Err(Failed::Read(e)) => Err(InputError::new(e).on(path)),
            Err(Failed::Write(e)) => Err(e.into()),
        };
    }
    let messages = loaded
        .session
        .context(leaf, &mut printer.shown(&mut loaded.source))
        .map_err(|e| InputError::new(e).on(path))?;
    let s = &loaded.session;
    let subagents = subagent_runs(s);
    let streams = result_streams(s, leaf, &messages, &mut printer.shown(&mut loaded.source))
        .map_err(|e| InputError::new(e).on(path))?;
    let branch = render::Branch::new(&messages, &subagents, &streams);
    let layout = layout(args);
    for (i, m) in messages.iter().enumerate() {
        // A result shown inside its call's block has no head of its own.
        if !branch.shows(i) {
            continue;
        }
        let bookmarks = bookmarks_of(m, &names);
        printer.emit_shown(
            || Shown {
                message: m,
                bookmarks: &bookmarks,
            },
            |out| branch.write(i, &bookmarks, layout, out),
        )?;
    }
    Ok(ExitStatus::Success)
}

/// Why `--json` stopped.
enum Failed {
    Read(SourceError),
    Write(std::io::Error),
}

impl From<SourceError> for Failed {
    fn from(e: SourceError) -> Failed {
        Failed::Read(e)
    }
}

/// The names the entries of `m` are bookmarked under.
fn bookmarks_of<'a>(m: &Message, names: &'a HashMap<String, Vec<String>>) -> Vec<&'a str> {
    m.entries
        .iter()
        .filter_map(|e| names.get(e))
        .flatten()
        .map(String::as_str)
        .collect()
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

/// Colour and cuts from the arguments and where stdout goes: colour on a
/// terminal unless `NO_COLOR` says otherwise; nothing cut when piped.
fn layout(args: &ShowArgs) -> render::Layout {
    let terminal = std::io::stdout().is_terminal();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    render::Layout {
        color: color_on(args.color, terminal, no_color),
        max_lines: args.max_lines,
        tool_lines: terminal.then_some(render::TERMINAL_TOOL_LINES),
        width: args.width,
    }
}

/// Whether to write colour: `--color always` and `never` as they say;
/// `auto` on a terminal unless `NO_COLOR` is set (to anything but empty).
fn color_on(choice: ColorChoice, terminal: bool, no_color: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color,
    }
}

/// Each subagent run by the label of the result entry that reports it,
/// with the command that shows its conversation.
fn subagent_runs(s: &Session) -> HashMap<String, render::SubagentRun> {
    s.subagents()
        .iter()
        .filter_map(|a| {
            let by = a.spawned_by?;
            let file = &s.files()[a.file.0 as usize].name;
            Some((
                s.label(by),
                render::SubagentRun {
                    agent_id: a.agent_id.clone(),
                    command: format!("retrace show {}", shell_word(file)),
                },
            ))
        })
        .collect()
}

/// The results on the branch ending at `leaf` whose file keeps their
/// streams apart (Claude Code's stdout and stderr), by message index: a
/// body read per Claude Code message that holds one result.
fn result_streams(
    s: &Session,
    leaf: EntryId,
    messages: &[Message],
    source: &mut dyn Source,
) -> Result<HashMap<usize, ToolOutput>, SourceError> {
    let by_label: HashMap<String, EntryId> = s
        .branch(leaf)
        .into_iter()
        .map(|e| (s.label(e), e))
        .collect();
    let mut out = HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        let [label] = &m.entries[..] else {
            continue;
        };
        let Some(&entry) = by_label.get(label) else {
            continue;
        };
        if let Some(o) = s.result_streams(entry, m, source)? {
            out.insert(i, o);
        }
    }
    Ok(out)
}

/// A path as a shell word.
fn shell_word(path: &str) -> String {
    retrace_core::command_of_argv(&[path])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_terminal_no_color_and_the_switch() {
        assert!(color_on(ColorChoice::Auto, true, false));
        assert!(!color_on(ColorChoice::Auto, true, true));
        assert!(!color_on(ColorChoice::Auto, false, false));
        assert!(color_on(ColorChoice::Always, false, true));
        assert!(!color_on(ColorChoice::Never, true, false));
    }
}
