//! `retrace list`: the sessions under folders, one line each (title,
//! start, size, format, model, the path to open it by), newest first.
//!
//! Which files make one session is the core's `split_sessions` (through
//! retrace-io's `sessions_in`); each session's line is the core's
//! `Listed`, from its index and the first bodies of its conversation.
//! Sessions are read on several threads, one session per thread at a
//! time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Result;
use retrace_core::{format_rfc3339_ms, Listed, ReaderOptions};
use retrace_io::{sessions_in, FoundSession, Located, OpenOptions, AGENT_ROOTS};
use serde::Serialize;

use crate::args::{ListArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::output::time;
use crate::printer::Printer;

/// Characters of a title on a text line.
const TITLE_WIDTH: usize = 60;

/// `retrace list --json`: a public interface; fields are only added.
#[derive(Serialize)]
struct Document<'a> {
    /// The folders scanned.
    roots: Vec<String>,
    sessions: Vec<Line<'a>>,
}

#[derive(Serialize)]
struct Line<'a> {
    /// The path that opens it (its conversation's file).
    path: String,
    /// Every file read for it, the conversation first (`files` counts
    /// them).
    paths: Vec<String>,
    /// Bytes on disk.
    size: u64,
    #[serde(flatten)]
    listed: &'a Listed,
    /// `start` and `end` as RFC 3339.
    start_time: Option<String>,
    end_time: Option<String>,
}

impl Run for ListArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &ListArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let roots = match args.dirs.is_empty() {
        false => args.dirs.iter().map(PathBuf::from).collect(),
        true => agent_roots()?,
    };
    let mut status = ExitStatus::Success;
    let mut found = Vec::new();
    for root in &roots {
        if root.is_file() {
            found.push(retrace_io::session_of_file(root).map_err(|e| unusable(root, &e))?);
            continue;
        }
        match sessions_in(root) {
            Ok(sessions) => found.extend(sessions),
            Err(e) => {
                printer.warn(&format!("{:#}", unusable(root, &e)))?;
                status = ExitStatus::Unreadable;
            }
        }
    }
    let read_all = read_sessions(found, read.reader_options());
    let mut lines = Vec::new();
    for (session, listed) in read_all {
        match listed {
            Ok(listed) => lines.push((session, listed)),
            Err(why) => {
                // One unreadable session does not hide the others.
                printer.warn(&format!("{}: {why}", session.path().display()))?;
                status = ExitStatus::Unreadable;
            }
        }
    }
    // Newest first; sessions without a time last, by path.
    lines.sort_by(|(a, la), (b, lb)| lb.start.cmp(&la.start).then_with(|| a.path().cmp(b.path())));
    let doc = || Document {
        roots: roots.iter().map(|r| r.display().to_string()).collect(),
        sessions: lines
            .iter()
            .map(|(session, listed)| Line {
                path: session.path().display().to_string(),
                paths: session
                    .inputs
                    .iter()
                    .map(|i| i.path.display().to_string())
                    .collect(),
                size: session.size(),
                listed,
                start_time: listed.start.map(format_rfc3339_ms),
                end_time: listed.end.map(format_rfc3339_ms),
            })
            .collect(),
    };
    printer.emit(doc, |out| print_text(&lines, out))?;
    Ok(status)
}

/// The agents' folders under the home folder that exist; an error naming
/// them all when none does.
fn agent_roots() -> Result<Vec<PathBuf>> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let roots: Vec<PathBuf> = home
        .iter()
        .flat_map(|h| AGENT_ROOTS.iter().map(move |r| h.join(r)))
        .filter(|p| p.is_dir())
        .collect();
    if roots.is_empty() {
        let names: Vec<String> = AGENT_ROOTS.iter().map(|r| format!("~/{r}")).collect();
        return Err(InputError::new(format!(
            "none of the agents' session folders exists ({}); name a folder to list",
            names.join(", ")
        ))
        .on("list"));
    }
    Ok(roots)
}

fn unusable(path: &Path, e: &retrace_io::FileError) -> anyhow::Error {
    InputError::file(e).on(path.display())
}

/// Each session's line, read on as many threads as there are cores, in
/// the order given.
fn read_sessions(
    found: Vec<FoundSession>,
    reader: ReaderOptions,
) -> Vec<(FoundSession, Result<Listed, String>)> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(found.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Listed, String>>>> =
        Mutex::new((0..found.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(session) = found.get(i) else { break };
                let listed = listed(session, reader);
                results.lock().expect("no worker panics holding it")[i] = Some(listed);
            });
        }
    });
    let results = results.into_inner().expect("no worker panicked");
    found
        .into_iter()
        .zip(results)
        .map(|(s, r)| (s, r.unwrap_or_else(|| Err("not read".to_owned()))))
        .collect()
}

/// One session's line; why not, in words.
fn listed(session: &FoundSession, reader: ReaderOptions) -> Result<Listed, String> {
    let options = OpenOptions {
        // The sessions are read side by side already.
        threads: 1,
        reader,
        ..OpenOptions::default()
    };
    let mut loaded = Located::found(session.clone())
        .load(&options, None)
        .map_err(|e| e.reason())?;
    Listed::new(&loaded.session, &mut loaded.source).map_err(|e| e.to_string())
}

fn print_text(lines: &[(FoundSession, Listed)], out: &mut dyn Write) -> std::io::Result<()> {
    for (session, listed) in lines {
        let start = listed.start.map_or_else(|| "-".repeat(19), time);
        let title = listed.title.as_deref().unwrap_or("(no text)");
        let title = match title.char_indices().nth(TITLE_WIDTH) {
            Some((at, _)) => format!("{}…", &title[..at]),
            None => title.to_owned(),
        };
        let more = match session.inputs.len() {
            1 => String::new(),
            n => format!(" (+{} files)", n - 1),
        };
        writeln!(
            out,
            "{start}  {:>9}  {:<12}  {:<24}  {title:<width$}  {}{more}",
            size(session.size()),
            listed.format,
            listed.model.as_deref().unwrap_or("-"),
            session.path().display(),
            width = TITLE_WIDTH + 1,
        )?;
    }
    Ok(())
}

/// `812 B`, `48.2 KB`, `1.3 MB` (powers of 1000, as file managers show).
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}
