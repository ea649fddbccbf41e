//! `retrace cat`: one branch as a standalone session file, each original
//! line byte for byte: `retrace_core::export_branch` (whose doc gives the
//! rule) written to stdout. A branch that begins in a JSON document and
//! ends in JSON lines gets those elements as lines, and a Codex branch
//! leaves out its rollbacks (already applied); a note says so.

use anyhow::Result;
use retrace_core::{export_branch, ExportError};

use super::leaf;
use crate::args::{CatArgs, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for CatArgs {
    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &CatArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    let done = export_branch(&loaded.session, &mut loaded.source, leaf, printer.stdout()).map_err(
        |e| match e {
            ExportError::Source(e) => InputError::new(e).on(path),
            // A closed pipe or a full disk: as any failed write.
            ExportError::Write(e) => e.into(),
        },
    )?;
    if done.relaid > 0 {
        printer.note(&format!(
            "{path}: {} messages from a JSON document written as JSON lines, \
             each on one line (blanks between its tokens dropped, the rest byte for byte)",
            done.relaid
        ))?;
    }
    if done.left_out > 0 {
        printer.note(&format!(
            "{path}: {} thread_rolled_back line(s) left out: the branch already leaves out \
             the turns they drop, and read again they would drop earlier ones",
            done.left_out
        ))?;
    }
    Ok(ExitStatus::Success)
}
