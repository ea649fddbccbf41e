//! The verbs that read a session file (or a folder of them, or stdin), and
//! what they share: several inputs in turn, the branch named by `--leaf`.

pub(super) mod cat;
pub(super) mod compact;
pub(super) mod export;
mod export_html;
pub(super) mod fork;
pub(super) mod info;
pub(super) mod list;
pub(super) mod serve;
pub(super) mod migrate;
pub(super) mod points;
pub(super) mod redact;
pub(super) mod repair;
pub(super) mod seal;
pub(super) mod search;
pub(super) mod show;
pub(super) mod snapshot;
pub(super) mod tree;
pub(super) mod validate;

use anyhow::Result;
use retrace_core::{
    ContextOptions, DiagnosticKind, EntryId, Message, Session, Source, SourceError,
};

use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::Loaded;
use crate::printer::Printer;

/// Runs `each` over every path; an unusable input is reported and the rest
/// are still handled (like `cat a b`), ending in [`ExitStatus::Unreadable`].
/// Any other error (a failed write) ends the run.
fn for_each_input(
    paths: &[String],
    printer: &mut Printer,
    mut each: impl FnMut(&str, &mut Printer) -> Result<ExitStatus>,
) -> Result<ExitStatus> {
    let mut worst = ExitStatus::Success;
    for path in paths {
        let status = match each(path, printer) {
            Ok(status) => status,
            Err(err) if err.downcast_ref::<InputError>().is_some() => {
                printer.warn(&format!("{err:#}"))?;
                ExitStatus::Unreadable
            }
            Err(err) => return Err(err),
        };
        worst = worst.max(status);
    }
    Ok(worst)
}

/// Messages handed from the reading thread at once (one at a time, the
/// threads would spend their time waking each other), and batches read
/// ahead of the one being written, at most.
const BATCH: usize = 64;
const READ_AHEAD: usize = 4;

/// The messages of the branch ending at `leaf` handed to `each` one at a
/// time ([`Session::context_each`], never the whole branch), read from
/// the source `open` gives and normalized on a thread of their own while
/// `each` runs on this one: reading bodies (and redacting them, for views)
/// and writing what they say take about as long, so two cores do both.
/// At most [`READ_AHEAD`] batches of [`BATCH`] messages wait between them.
/// The first error of either ends it; `each`'s is returned first.
fn each_message<S, E>(
    session: &Session,
    open: impl FnOnce() -> S + Send,
    leaf: EntryId,
    options: ContextOptions,
    mut each: impl FnMut(Message) -> Result<(), E>,
) -> Result<(), E>
where
    S: Source,
    E: From<SourceError>,
{
    /// Why the reading thread stopped early.
    enum Stop {
        Read(SourceError),
        /// `each` failed and dropped the receiver.
        Gone,
    }
    impl From<SourceError> for Stop {
        fn from(e: SourceError) -> Stop {
            Stop::Read(e)
        }
    }
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Message>>(READ_AHEAD);
        let reader = scope.spawn(move || {
            let mut source = open();
            let mut batch = Vec::with_capacity(BATCH);
            session.context_each(leaf, &mut source, options, |m| {
                batch.push(m);
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    tx.send(full).map_err(|_| Stop::Gone)?;
                }
                Ok::<_, Stop>(())
            })?;
            tx.send(batch).map_err(|_| Stop::Gone)
        });
        let written = rx.into_iter().flatten().try_for_each(&mut each);
        // (The receiver is dropped: a reader still sending stops.)
        let read = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        written?;
        match read {
            Ok(()) | Err(Stop::Gone) => Ok(()),
            Err(Stop::Read(e)) => Err(e.into()),
        }
    })
}

/// The entry named by `--leaf`, or the default leaf.
fn leaf(loaded: &Loaded, wanted: Option<&str>) -> Result<EntryId> {
    let s = &loaded.session;
    let name = &loaded.name;
    match wanted {
        Some(id) => {
            let found = match s.find_all(id) {
                found if !found.is_empty() => found,
                _ => by_prefix(s, id).map_err(|why| InputError::new(why).on(name))?,
            };
            let e = match found.as_slice() {
                [e] => *e,
                several => return Err(InputError::new(ambiguous(s, id, several)).on(name)),
            };
            if !s.tree().contains(e) {
                let kind = match s.kind(e) {
                    "" => "a broken line".to_owned(),
                    k => format!("a `{k}` line"),
                };
                return Err(InputError::new(format!(
                    "`{id}` is not part of the conversation tree ({kind}, line {})",
                    s.entry(e).line
                ))
                .on(name));
            }
            Ok(e)
        }
        None => s.tree().default_leaf().ok_or_else(|| {
            let why = if s.entries().is_empty() {
                "the session has no entries".to_owned()
            } else {
                format!(
                    "no conversation to show: {} entries, none of them on a branch ({})",
                    s.entries().len(),
                    s.format().describe()
                )
            };
            InputError::new(why).on(name)
        }),
    }
}

/// Candidates an ambiguous id prefix lists, at most.
const PREFIX_CANDIDATES: usize = 10;

/// The entries `--leaf` names when it is no whole id or `L<line>` label:
/// the one id that starts with `given` (`2f4668dd` for a 36-character
/// UUID); else why not, in words: a line past the end with the file's line
/// count, a prefix several ids start with (listed), or nothing at all.
fn by_prefix(s: &Session, given: &str) -> std::result::Result<Vec<EntryId>, String> {
    if let Some((file, line)) = line_label(given) {
        let Some(info) = s.files().get(file) else {
            return Err(format!(
                "`{given}` names file {file}, but the session has {} file{}",
                s.files().len(),
                if s.files().len() == 1 { "" } else { "s" }
            ));
        };
        // The file is named when the session has several.
        let of = match s.files().len() {
            1 => String::new(),
            _ => format!(" of {}", info.name),
        };
        return Err(if line > info.lines || line == 0 {
            format!("line {line} is past the end{of} ({} lines)", info.lines)
        } else {
            format!("no entry starts on line {line}{of} (a blank or continued line)")
        });
    }
    let mut ids: Vec<&str> = (0..s.entries().len() as u32)
        .map(EntryId)
        .filter_map(|e| s.id(e))
        .filter(|id| id.starts_with(given))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.as_slice() {
        [] => Err(format!(
            "no entry with id `{given}` or an id starting with it (ids are entry ids, a unique \
             prefix of one, or L<line> for entries without one)"
        )),
        [one] => Ok(s.find_all(one)),
        several => {
            let shown: Vec<String> = several
                .iter()
                .take(PREFIX_CANDIDATES)
                .map(|id| format!("`{id}`"))
                .collect();
            let more = match several.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            Err(format!(
                "`{given}` is the start of {} ids: {}{more}; give more of it",
                several.len(),
                shown.join(", ")
            ))
        }
    }
}

/// `L12` → (0, 12), `F2L5` → (2, 5).
fn line_label(label: &str) -> Option<(usize, u32)> {
    let (file, line) = match label.strip_prefix('F') {
        Some(rest) => {
            let (f, l) = rest.split_once('L')?;
            (f.parse().ok()?, l)
        }
        None => (0, label.strip_prefix('L')?),
    };
    Some((file, line.parse().ok()?))
}

/// Says on stderr what is wrong with the session's bookmarks (a side-car
/// that does not parse, a bookmark that names no entry), so that a mark
/// missing from `tree`, `show` or `snapshot --list` is not missing without
/// a word.
fn warn_bad_bookmarks(loaded: &Loaded, printer: &mut Printer) -> Result<()> {
    let s = &loaded.session;
    let bad = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::BadBookmark);
    for d in bad {
        // A side-car's problem (line 0) names the side-car itself.
        match d.line {
            0 => printer.warn(&d.message)?,
            line => {
                let file = &s.files()[d.file.0 as usize].name;
                printer.warn(&format!("{file}:{line}: {}", d.message))?
            }
        }
    }
    Ok(())
}

/// Why an id used by several entries names none of them: where each is,
/// and the labels that name one (`id X is used on lines 4 and 9; name one
/// as L4 or L9`).
fn ambiguous(s: &Session, id: &str, entries: &[EntryId]) -> String {
    let one_file = entries.iter().all(|&e| s.entry(e).file.0 == 0);
    let places: Vec<String> = entries
        .iter()
        .map(|&e| match one_file {
            true => s.entry(e).line.to_string(),
            false => s.line_label(e),
        })
        .collect();
    let labels: Vec<String> = entries.iter().map(|&e| s.line_label(e)).collect();
    let lines = if one_file { "lines" } else { "entries" };
    format!(
        "id `{id}` is used on {lines} {}; name one as {}",
        join(&places, "and"),
        join(&labels, "or")
    )
}

/// `a`, `a and b`, `a, b and c`.
fn join(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [rest @ .., end] => format!("{} {last} {end}", rest.join(", ")),
    }
}

/// The time a command stamps on what it writes: `--time` (RFC 3339, for
/// reproducible output) or now.
/// In milliseconds since the Unix epoch.
pub(super) fn stamp_time(given: Option<&str>) -> Result<i64> {
    match given {
        Some(t) => Ok(chrono::DateTime::parse_from_rfc3339(t)
            .map_err(|e| {
                InputError::new(format!("`{t}` is not an RFC 3339 time: {e}")).on("--time")
            })?
            .timestamp_millis()),
        None => Ok(chrono::Utc::now().timestamp_millis()),
    }
}

/// New entry ids for a sealed, repaired, snapshotted or compacted session,
/// as its agent makes them (`retrace_core::entry_ids` has the rule), from
/// random UUIDs' bytes. `given` (`--id`), if any, is the first id drawn.
pub(super) fn entry_ids<'a>(
    session: &'a retrace_core::Session,
    given: Option<&'a str>,
) -> impl FnMut() -> String + 'a {
    retrace_core::entry_ids(session, given, || *uuid::Uuid::new_v4().as_bytes())
}
