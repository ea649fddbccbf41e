//! `retrace search`: the entries whose text holds a query, each with a
//! snippet around the match: the core's `search`, which the viewer's search
//! box runs too. Exit 0 with hits, 1 without (as grep).

use std::io::Write;

use anyhow::Result;
use retrace_core::{search, SearchFilter};
use serde::Serialize;

use crate::args::{OutputOptions, ReadArgs, SearchArgs, SearchIn};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

/// One hit as `--json` writes it.
#[derive(Serialize)]
struct JsonHit<'a> {
    /// The entry's label (its id, or `L<line>`).
    label: &'a str,
    /// Its file, numbered as the session reads them (0 is the first).
    file: u16,
    line: u32,
    role: &'a str,
    snippet: &'a str,
    /// The label of a leaf whose branch holds the entry (for `--leaf`).
    leaf: String,
}

impl Run for SearchArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, self.redact)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &SearchArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.path;
    let mut loaded = load(path, read, printer)?;
    // With `--redact`, the text as shown with sensitive data hidden.
    let mut source = printer.shown(&mut loaded.source);
    let found = search(
        &loaded.session,
        &mut source,
        &args.query,
        filter(&args.within),
        args.limit,
    )
    .map_err(|e| InputError::new(e).on(path))?;
    drop(source);
    let s = &loaded.session;
    for hit in &found.hits {
        let json = JsonHit {
            label: &hit.label,
            file: s.entry(hit.entry).file.0,
            line: hit.line,
            role: &hit.role,
            snippet: &hit.snippet,
            leaf: s.label(hit.leaf),
        };
        printer.emit_shown(|| &json, |out| print_text(&json, out))?;
    }
    if found.truncated {
        printer.note(&format!(
            "{path}: more than {} hits, the first {} shown (--limit)",
            args.limit, args.limit
        ))?;
    }
    Ok(match found.hits.is_empty() {
        true => ExitStatus::Problems,
        false => ExitStatus::Success,
    })
}

/// `--in`: the roles named, or the viewer's default (what was said, not
/// events).
fn filter(within: &[SearchIn]) -> SearchFilter {
    if within.is_empty() {
        return SearchFilter::default();
    }
    let has = |who| within.contains(&who);
    SearchFilter {
        user: has(SearchIn::User),
        assistant: has(SearchIn::Assistant),
        tool: has(SearchIn::Tool),
        events: has(SearchIn::Events),
    }
}

/// `LABEL (line N, role): snippet`; a later file of the session says which
/// (`file 2, line N`).
fn print_text(hit: &JsonHit, out: &mut dyn Write) -> std::io::Result<()> {
    let at = match hit.file {
        0 => format!("line {}", hit.line),
        f => format!("file {f}, line {}", hit.line),
    };
    writeln!(out, "{} ({at}, {}): {}", hit.label, hit.role, hit.snippet)
}
