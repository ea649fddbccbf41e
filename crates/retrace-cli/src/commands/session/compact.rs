//! `retrace compact`: the compaction plan of a branch (where to cut so the
//! kept tail fits a budget, never between a tool call and its result), and
//! the compacted session written in its own format into a new file: the
//! input file unchanged (an event stream's parts joined), then what the
//! format appends when it compacts (pi a `compaction` entry, Claude Code a
//! `compact_boundary` and its summary, Codex a `compacted` line, an event
//! stream a `compaction` event); a provider list is written anew whole
//! (`CompactionPlan::appends`).

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{
    compact, compaction_plan, Budget, CompactionPlan, EditError, EntryId, FileId, Format, Note,
    Session, Source, Stamp,
};
use retrace_io::OutputFile;
use serde::Serialize;

use super::{entry_ids, leaf, stamp_time};
use crate::args::{CompactArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for CompactArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    path: &'a str,
    plan: &'a CompactionPlan,
    /// What was done (empty with `--dry-run`).
    notes: &'a [Note],
    /// The file written, if one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a str>,
}

fn run(args: &CompactArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let budget = match (args.keep, args.tokens) {
        (Some(n), _) => Budget::Messages(n),
        (None, Some(n)) => Budget::Tokens(n),
        (None, None) => unreachable!("clap requires one"),
    };
    // Read what the caller supplies before the session: a missing summary
    // fails fast.
    let summary = match (&args.summary_file, args.dry_run) {
        (Some(file), false) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| InputError::io(&e).on(format!("{file}: cannot read the summary")))?,
        ),
        _ => None,
    };
    let time_ms = stamp_time(args.time.as_deref())?;
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    let edit_error = |e: EditError| InputError::new(e).on(path);
    let plan =
        compaction_plan(&loaded.session, &mut loaded.source, leaf, budget).map_err(edit_error)?;

    let mut notes = Vec::new();
    let mut written = None;
    if let (Some(summary), Some(out)) = (&summary, &args.output) {
        if same_file(path, out) {
            return Err(InputError::new(
                "compact never rewrites its input: name another file with -o",
            )
            .on(out));
        }
        let session = &loaded.session;
        let mut new_id = entry_ids(session, args.id.as_deref());
        let mut stamp = Stamp {
            time_ms,
            new_id: &mut new_id,
        };
        let edited =
            compact(session, &mut loaded.source, &plan, summary, &mut stamp).map_err(edit_error)?;
        let cannot =
            |e: &dyn std::fmt::Display| InputError::new(e).on(format!("{out}: cannot write"));
        let mut dest = OutputFile::create(Path::new(out)).map_err(|e| cannot(&e))?;
        // A list is written anew whole: nothing of the input before it.
        let files = match plan.appends() {
            true => copied_files(session, leaf),
            false => Vec::new(),
        };
        for (i, &file) in files.iter().enumerate() {
            let size = session.files()[file.0 as usize].size;
            let original = loaded
                .source
                .read(file, 0..size)
                .map_err(|e| InputError::new(e).on(path))?;
            dest.write_all(&original).map_err(|e| cannot(&e))?;
            // Parts joined: each ends its last line.
            if i + 1 < files.len() && !original.is_empty() && !original.ends_with(b"\n") {
                dest.write_all(b"\n").map_err(|e| cannot(&e))?;
            }
        }
        dest.write_all(&edited.bytes).map_err(|e| cannot(&e))?;
        dest.flush().map_err(|e| cannot(&e))?;
        notes = edited.notes;
        written = Some(out.as_str());
    }

    let report = Report {
        path,
        plan: &plan,
        notes: &notes,
        output: written,
    };
    printer.emit_pretty(|| &report, |out| text(out, &report))?;
    Ok(ExitStatus::Success)
}

/// The plan, then what was written.
fn text(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
    let p = r.plan;
    let budget = match p.budget {
        Budget::Messages(n) => format!("{n} message(s)"),
        Budget::Tokens(n) => format!("~{n} tokens"),
    };
    writeln!(
        out,
        "{}: compaction of the branch ending at {} ({})",
        r.path,
        p.leaf_id,
        p.format.describe()
    )?;
    writeln!(out, "  budget  {budget}")?;
    writeln!(
        out,
        "  cut     {} (line {}): {}",
        p.cut_id,
        p.cut_line,
        p.rule.describe()
    )?;
    writeln!(
        out,
        "  before  {} message(s), ~{} tokens",
        p.messages_before, p.tokens_before
    )?;
    writeln!(
        out,
        "  kept    {} message(s), ~{} tokens, {}",
        p.kept_messages,
        p.kept_tokens,
        if p.fits {
            "within budget"
        } else {
            "over budget"
        }
    )?;
    if !p.split.is_empty() {
        writeln!(out, "  splits  {}", p.split.join(", "))?;
    }
    for note in r.notes {
        writeln!(out, "{}: {}", note.action, note.message)?;
    }
    match r.output {
        Some(file) => writeln!(out, "wrote {file}"),
        None => writeln!(out, "(dry run: nothing written)"),
    }
}

/// The files the output copies before the compaction: the leaf's, or for
/// an event stream every part its branch runs through, joined in order
/// (the compaction names its first kept event by its number in the whole
/// stream).
fn copied_files(session: &Session, leaf: EntryId) -> Vec<FileId> {
    let file = session.entry(leaf).file;
    if session.file_format(file) != Format::Events {
        return vec![file];
    }
    let mut files: Vec<FileId> = session
        .branch(leaf)
        .iter()
        .map(|&e| session.entry(e).file)
        .collect();
    files.dedup();
    files
}

/// Whether `out` names the input (the same file, through any path).
fn same_file(input: &str, out: &str) -> bool {
    match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
