//! `store checkpoint`, `checkpoints`, `restore`, `diff`: the git
//! checkpoints of a session's workspace.

use std::io::Write;

use anyhow::Result;
use retrace_core::FileChange;
use retrace_store::{CommitInfo, SessionId};

use super::sessions::time;
use super::Store;
use crate::exit::ExitStatus;
use crate::printer::Printer;

pub(super) fn take(
    store: &Store,
    id: &SessionId,
    tool: &str,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let mut checkpoints = store.checkpoints(id)?;
    let taken = checkpoints.checkpoint(tool, None, chrono::Utc::now())?;
    let Some(info) = taken else {
        printer.note("nothing changed since the last checkpoint")?;
        return Ok(ExitStatus::Success);
    };
    for s in &info.skipped {
        printer.warn(&format!("left out {}", serde_json::to_string(s)?))?;
    }
    writeln!(printer.stdout(), "{} {}", info.tag, info.commit)?;
    print_changes(printer.stdout(), &info.files)?;
    Ok(ExitStatus::Success)
}

pub(super) fn list(
    store: &Store,
    id: &SessionId,
    path: Option<&str>,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let Some(checkpoints) = store.checkpoints_if_any(id)? else {
        printer.note(&format!(
            "session `{id}` has no workspace, so no checkpoint"
        ))?;
        return Ok(ExitStatus::Success);
    };
    let list = match path {
        Some(path) => checkpoints.list_file_changes(path)?,
        None => checkpoints.list()?,
    };
    for c in &list {
        printer.emit(|| c, |out| writeln!(out, "{}", line(c)))?;
    }
    Ok(ExitStatus::Success)
}

/// `time  tag  commit  tool [event N] [change]`.
fn line(c: &CommitInfo) -> String {
    let mut s = format!(
        "{}  {}  {}  {}",
        time(c.time),
        c.tag,
        &c.commit[..c.commit.len().min(10)],
        c.tool
    );
    if let Some(seq) = c.event_seq {
        s.push_str(&format!(" (event {seq})"));
    }
    if let Some(from) = &c.restored_from {
        s.push_str(&format!(" from {from}"));
    }
    if let Some(change) = c.change {
        s.push_str(&format!("  {}", change.as_str()));
    }
    s
}

pub(super) fn restore(
    store: &Store,
    id: &SessionId,
    checkpoint: &str,
    path: Option<&str>,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let mut checkpoints = store.checkpoints(id)?;
    let info = checkpoints.restore(checkpoint, path)?;
    print_changes(printer.stdout(), &info.changes)?;
    for (path, why) in &info.kept {
        printer.warn(&format!("kept {path} as it is: {why}"))?;
    }
    printer.note(&format!(
        "restored {checkpoint}; undo with `retrace store restore {id} {}`",
        info.undo.tag
    ))?;
    Ok(ExitStatus::Success)
}

pub(super) fn diff(
    store: &Store,
    id: &SessionId,
    a: &str,
    b: &str,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let checkpoints = store.checkpoints(id)?;
    let patch = checkpoints.diff_patch(a, b)?;
    printer.stdout().write_all(patch.as_bytes())?;
    Ok(ExitStatus::Success)
}

fn print_changes(out: &mut dyn Write, changes: &[FileChange]) -> std::io::Result<()> {
    for c in changes {
        writeln!(out, "  {:<8} {}", c.change.as_str(), c.path)?;
    }
    Ok(())
}
