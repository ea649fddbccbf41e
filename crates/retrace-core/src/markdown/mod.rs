//! A session as Markdown to read and to share (what `retrace export
//! --md` writes; a viewer's download can write the same bytes): a header
//! (title, format, source file, times, model, counts, whether it is
//! redacted), then the branch to a leaf row by row as the viewer lays it
//! out (`row.rs`), or every branch, each from where it forks off the ones
//! written before it. Subagent runs are nested in the block of the call
//! that spawned them; runs no written call spawned come at the end.
//!
//! Written as it is read: the rows come from the index, their bodies one
//! row at a time through the caller's source (a
//! [`RedactingSource`](crate::redact::RedactingSource) for a redacted
//! export), into `out` in pieces, so a gigabyte session is never held
//! whole. `out` is never flushed here: a caller's atomic file commits on
//! its flush.
//!
//! `text.rs` keeps the session's text from changing the document around
//! it (fences longer than any run of backticks inside, HTML escaped in
//! the HTML we write, raw HTML in the session's Markdown shown as text);
//! `tool.rs` writes a call's block.

mod text;
mod tool;
mod row;

use std::collections::{HashMap, HashSet};
use std::io::Write;

use crate::{
    duration_text, event_line, readable_time, EntryId, ExportError, FileId, Heading, Listed, Marks,
    Recent, Row, Session, Source, Summary,
};
use row::Writer;
use text::{code, cut, inline};

/// Which branches an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Branches {
    /// The branch to the leaf.
    #[default]
    Main,
    /// That branch, then every other branch a person could pick (the
    /// tree's tips, subagent runs aside), each from where it forks off
    /// the branches before it.
    All,
}

/// What to write.
pub struct MarkdownOptions<'a> {
    /// The leaf of the (first) branch; `None` for a session with no
    /// conversation (no entry on a branch): its entries are then written
    /// as event lines.
    pub leaf: Option<EntryId>,
    /// That branch alone, or every branch.
    pub branches: Branches,
    /// Whether bodies are read redacted: the header says so.
    pub redacted: bool,
    /// Texts that come from the index rather than a body read through the
    /// source (file names, bookmark names, a subagent's id and
    /// description): hidden as the source hides bodies, or kept.
    pub hide: &'a mut dyn FnMut(&str) -> String,
}

/// What [`write_markdown`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Markdown {
    /// Branches written.
    pub branches: usize,
    /// Rows written (rows shown in a call's block not counted).
    pub rows: usize,
    /// Subagent runs written.
    pub subagents: usize,
}

/// Bytes of bodies kept for reading again: a few rows' around the one
/// being written, however large their outputs.
const RECENT_BYTES: usize = 16 << 20;

/// Characters of a row's first words quoted where a branch forks from it.
const PREVIEW_CHARS: usize = 100;

/// Writes `session` as Markdown to `out` (see the module doc), reading
/// bodies through `source`.
pub fn write_markdown(
    session: &Session,
    source: &mut dyn Source,
    options: MarkdownOptions<'_>,
    out: &mut dyn Write,
) -> Result<Markdown, ExportError> {
    let s = session;
    // Pairing reads the rows around each row: bodies read again come from
    // what was kept, read and redacted once.
    let mut recent = Recent::new(source, RECENT_BYTES);
    let source: &mut dyn Source = &mut recent;
    let MarkdownOptions {
        leaf,
        branches,
        redacted,
        hide,
    } = options;
    let mut plan = Plan::new(s, leaf, branches);
    let mut rows = leaf.map(|l| s.rows(l)).unwrap_or_default();
    s.mark_typed_prompts(&mut rows, source)?;
    let facts = Facts {
        leaf,
        branches,
        redacted,
        rows: &rows,
        plan: &plan,
    };
    header(s, source, &facts, hide, out)?;
    let mut w = Writer {
        session: s,
        source,
        out,
        hide,
        all_branches: branches == Branches::All,
        forks: std::mem::take(&mut plan.forks),
        subagents_written: vec![false; s.subagents().len()],
        rows_written: 0,
    };
    let Some(leaf) = leaf else {
        w.entries()?;
        return Ok(Markdown {
            rows: w.rows_written,
            ..Markdown::default()
        });
    };
    if plan.branches.len() > 1 {
        branch_heading(&mut w, 1, leaf)?;
    }
    w.rows(&rows, 0, 0)?;
    drop(rows);
    for (n, planned) in plan.branches.iter().enumerate().skip(1) {
        let number = n + 1;
        let rows = s.rows(planned.leaf);
        // The rows of this branch no branch before it wrote.
        let Some(from) = rows.iter().position(|r| {
            r.entries
                .iter()
                .any(|e| plan.on[e.0 as usize] == number as u32)
        }) else {
            continue;
        };
        writeln!(w.out, "---\n")?;
        branch_heading(&mut w, number, planned.leaf)?;
        fork_quote(&mut w, &rows, planned.fork)?;
        w.rows(&rows, from, 0)?;
    }
    let left: Vec<usize> = (0..s.subagents().len())
        .filter(|&k| !w.subagents_written[k])
        .collect();
    if !left.is_empty() {
        writeln!(
            w.out,
            "---\n\n## Other subagent runs\n\n*Runs that no call written above spawned (or that \
             the session does not link to a call).*\n"
        )?;
        for k in left {
            w.subagent(k, 1, true)?;
        }
    }
    Ok(Markdown {
        branches: plan.branches.len(),
        rows: w.rows_written,
        subagents: w.subagents_written.iter().filter(|&&d| d).count(),
    })
}

/// What the header says beside the session's own facts.
struct Facts<'r> {
    leaf: Option<EntryId>,
    branches: Branches,
    redacted: bool,
    /// The rows of the first branch.
    rows: &'r [Row],
    plan: &'r Plan,
}

/// A branch to write: its leaf, and the entry it forks after with the
/// number of the branch that wrote that entry (`None` for the first, or
/// a conversation that shares nothing with those before it).
struct Planned {
    leaf: EntryId,
    fork: Option<(EntryId, usize)>,
}

/// The branches to write, in order, and what each one adds.
struct Plan {
    branches: Vec<Planned>,
    /// The number of the branch that first holds each entry (0: none),
    /// for every entry; empty when one branch is written.
    on: Vec<u32>,
    /// The later branches that go on from an entry.
    forks: HashMap<EntryId, Vec<usize>>,
}

impl Plan {
    fn new(s: &Session, leaf: Option<EntryId>, branches: Branches) -> Plan {
        let mut plan = Plan {
            branches: Vec::new(),
            on: Vec::new(),
            forks: HashMap::new(),
        };
        let Some(leaf) = leaf else {
            return plan;
        };
        plan.branches.push(Planned { leaf, fork: None });
        if branches == Branches::Main {
            return plan;
        }
        plan.on = vec![0; s.entries().len()];
        for e in s.branch(leaf) {
            plan.on[e.0 as usize] = 1;
        }
        // Subagent runs are nested under their calls, not branches.
        let runs: HashSet<FileId> = s.subagents().iter().map(|a| a.file).collect();
        for &tip in s.tree().tips() {
            if runs.contains(&s.entry(tip).file) || plan.on[tip.0 as usize] != 0 {
                continue;
            }
            let number = plan.branches.len() + 1;
            // The path from the root: its written part is a prefix.
            let fork = (s.tree().path(tip).into_iter().rev())
                .find(|e| plan.on[e.0 as usize] != 0)
                .map(|e| (e, plan.on[e.0 as usize] as usize));
            for e in s.branch(tip) {
                if plan.on[e.0 as usize] == 0 {
                    plan.on[e.0 as usize] = number as u32;
                }
            }
            if let Some((e, _)) = fork {
                plan.forks.entry(e).or_default().push(number);
            }
            plan.branches.push(Planned { leaf: tip, fork });
        }
        plan
    }
}

/// The title and the facts of the session.
fn header(
    s: &Session,
    source: &mut dyn Source,
    facts: &Facts<'_>,
    hide: &mut dyn FnMut(&str) -> String,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let listed = Listed::new(s, source)?;
    let summary = Summary::new(s);
    // The file the branch ends in, else the first.
    let file = facts.leaf.map_or(FileId(0), |l| s.entry(l).file);
    let name = s
        .files()
        .get(file.0 as usize)
        .map_or("", |f| f.name.as_str());
    let name = hide(name.rsplit(['/', '\\']).next().unwrap_or(name));
    let title = listed.title.as_deref().unwrap_or(&name);
    writeln!(out, "# {}\n", inline(&cut(title, PREVIEW_CHARS * 2)))?;
    writeln!(out, "- **Format:** {}", inline(&summary.format_label()))?;
    let mut line = format!("- **Source:** {}", code(&name));
    if summary.files > 1 {
        line.push_str(&format!(" and {} more files", summary.files - 1));
        if summary.subagents > 0 {
            line.push_str(&format!(" ({} subagent runs)", summary.subagents));
        }
    }
    writeln!(out, "{line}")?;
    if let Some(start) = summary.start {
        writeln!(out, "- **Started:** {} UTC", readable_time(start))?;
    }
    if let Some(end) = summary.end {
        let took = summary
            .duration_ms()
            .map(|ms| format!(" ({})", duration_text(ms.max(0) as u64)))
            .unwrap_or_default();
        writeln!(out, "- **Ended:** {} UTC{took}", readable_time(end))?;
    }
    if let Some(model) = &listed.model {
        writeln!(out, "- **Model:** {}", inline(model))?;
    }
    let files = match summary.files {
        1 => String::new(),
        n => format!(" in {n} files"),
    };
    let Some(leaf) = facts.leaf else {
        writeln!(
            out,
            "- **Entries:** {}{files}, none of them on a branch: no conversation",
            summary.entries
        )?;
        return redaction_line(out, facts.redacted);
    };
    let prompts = facts
        .rows
        .iter()
        .filter(|r| r.marks.has(Marks::PROMPT))
        .count();
    let label = code(&hide(&s.label(leaf)));
    writeln!(
        out,
        "- **Entries:** {}{files}; on the branch to {label}: {}, {}",
        summary.entries,
        counted(facts.rows.len(), "row"),
        counted(prompts, "prompt")
    )?;
    match facts.branches {
        Branches::All => writeln!(
            out,
            "- **Branches:** {}, each written from where it forks off the ones before it",
            facts.plan.branches.len()
        )?,
        Branches::Main if summary.leaves > 1 => writeln!(
            out,
            "- **Branches:** {} in the session; this is the one to {label} ({})",
            summary.leaves,
            place(s, leaf)
        )?,
        Branches::Main => {}
    }
    redaction_line(out, facts.redacted)
}

/// Whether the bodies are redacted, the header's last line.
fn redaction_line(out: &mut dyn Write, redacted: bool) -> Result<(), ExportError> {
    if redacted {
        writeln!(
            out,
            "- **Redacted:** secrets and personal data are replaced by `[REDACTED:kind]`\n"
        )?;
    } else {
        writeln!(
            out,
            "- **Not redacted:** secrets and personal data are as written\n"
        )?;
    }
    Ok(())
}

/// `3 rows`, `1 prompt`.
fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// Where an entry is: `line N`, or `file K line N` in a later file.
fn place(s: &Session, e: EntryId) -> String {
    let entry = s.entry(e);
    match entry.file.0 {
        0 => format!("line {}", entry.line),
        f => format!("file {} line {}", u32::from(f) + 1, entry.line),
    }
}

/// The heading of branch `number`, to `leaf`.
fn branch_heading(w: &mut Writer<'_>, number: usize, leaf: EntryId) -> std::io::Result<()> {
    let label = (w.hide)(&w.session.label(leaf));
    writeln!(
        w.out,
        "## Branch {number} · to {} · {}\n",
        code(&label),
        place(w.session, leaf)
    )
}

/// What a branch forks from: the branch and the row it leaves after,
/// with that row's first words.
fn fork_quote(
    w: &mut Writer<'_>,
    rows: &[Row],
    fork: Option<(EntryId, usize)>,
) -> Result<(), ExportError> {
    let Some((e, from)) = fork else {
        writeln!(
            w.out,
            "> A conversation of its own: it shares no entry with the branches above.\n"
        )?;
        return Ok(());
    };
    let s = w.session;
    let said = match rows.iter().find(|r| r.entries.contains(&e)) {
        Some(row) => match s.row_message(row, &mut *w.source)? {
            Some(m) => {
                let who = Heading::of(&m).who;
                let text = if m.is_typed_prompt() {
                    m.typed_text()
                } else {
                    m.text()
                };
                match text.lines().find(|l| !l.trim().is_empty()) {
                    Some(first) => format!("{who}: “{}”", cut(first.trim(), PREVIEW_CHARS)),
                    None => who,
                }
            }
            None => match s.body(e, &mut *w.source)? {
                Ok(v) => event_line(&v),
                Err(_) => String::new(),
            },
        },
        None => String::new(),
    };
    let after = match said.is_empty() {
        true => String::new(),
        false => format!(": {}", inline(&said)),
    };
    writeln!(
        w.out,
        "> Forks from branch {from} after {}{after}\n",
        place(s, e)
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pi session whose user message is answered twice: first by a
    /// tool call and a reply (lines 3–5), then, someone having gone back,
    /// by another reply (line 6, the default leaf).
    const FORKED: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix the build"}]}}"#,
        "\n",
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","model":"m-1","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make"}}]}}"#,
        "\n",
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}}"#,
        "\n",
        r#"{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","model":"m-1","content":[{"type":"text","text":"Built."}]}}"#,
        "\n",
        r#"{"type":"message","id":"e","parentId":"a","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","model":"m-1","content":[{"type":"text","text":"Another way."}]}}"#,
        "\n",
    );

    fn markdown(text: &str, branches: Branches) -> (String, Markdown) {
        let s = Session::from_bytes("forked.jsonl", text.as_bytes());
        let mut source: &[u8] = text.as_bytes();
        let mut out = Vec::new();
        let options = MarkdownOptions {
            leaf: s.tree().default_leaf(),
            branches,
            redacted: false,
            hide: &mut |t: &str| t.to_owned(),
        };
        let done = write_markdown(&s, &mut source, options, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), done)
    }

    #[test]
    fn the_branch_to_the_leaf_says_where_it_forks() {
        let (md, done) = markdown(FORKED, Branches::Main);
        assert!(
            md.starts_with("# Fix the build\n\n- **Format:** pi v3\n"),
            "{md}"
        );
        assert!(md.contains("- **Branches:** 2 in the session; this is the one to `e` (line 6)\n"));
        assert!(md.contains("## User · 2026-01-01 00:00:01 · line 2\n\nFix the build\n\n"));
        assert!(md.contains("> ⋔ The conversation branches here (2 ways); this is one of them.\n"));
        assert!(md.contains("### Assistant · m-1 · 2026-01-01 00:00:05 · line 6\n\nAnother way.\n"));
        assert!(!md.contains("Built."), "{md}");
        assert_eq!((done.branches, done.rows), (1, 2));
    }

    /// A tool's name, its call's id and what it ran hold bidi controls
    /// and a zero-width space: written as marks, so nothing reads
    /// reordered; the prompt (prose) keeps its characters.
    #[test]
    fn bidi_controls_in_names_and_code_are_marked() {
        let text = FORKED
            .replace(r#""name":"bash""#, r#""name":"ba\u202esh""#)
            .replace(r#""command":"make""#, r#""command":"make \u2067x""#)
            .replace("Fix the build", "Fix the build\\u200d");
        let (md, _) = markdown(&text, Branches::All);
        assert!(md.contains("<code>ba&lt;U+202E&gt;sh</code>"), "{md}");
        assert!(md.contains("make <U+2067>x"), "{md}");
        assert!(md.contains("Fix the build\u{200d}"), "{md}");
        assert!(!md.contains('\u{202e}') && !md.contains('\u{2067}'), "{md}");
    }

    #[test]
    fn every_branch_is_written_once_from_its_fork() {
        let (md, done) = markdown(FORKED, Branches::All);
        assert_eq!(done.branches, 2);
        let second = md.find("## Branch 2 · to `d` · line 5\n").expect(&md);
        assert!(
            md[..second].contains("> ⋔ Branch 2 goes on from here.\n"),
            "{md}"
        );
        assert!(md[second..].starts_with(
            "## Branch 2 · to `d` · line 5\n\n> Forks from branch 1 after line 2: user: “Fix the build”\n\n"
        ));
        // The shared prompt once; the call with its result inside its
        // block, the result row not again.
        assert_eq!(md.matches("## User").count(), 1, "{md}");
        assert!(md[second..].contains(
            "<details>\n<summary><code>bash</code> $ make</summary>\n\n```sh\nmake\n```\n\n```text\nok\n```\n\n</details>\n"
        ));
        assert_eq!(md.matches("Tool result").count(), 0, "{md}");
        assert!(md.ends_with("Built.\n\n"), "{md}");
    }

    #[test]
    fn a_session_without_a_conversation_lists_its_entries() {
        let text = "{\"type\":\"summary\",\"summary\":\"Cache fix\"}\n";
        let (md, done) = markdown(text, Branches::Main);
        assert!(md.contains("- **Entries:** 1, none of them on a branch: no conversation\n"));
        assert!(
            md.contains("> ⚙ summary · summary: Cache fix · line 1\n"),
            "{md}"
        );
        assert_eq!((done.branches, done.rows), (0, 1));
        let (md, _) = markdown("", Branches::All);
        assert!(md.contains("*The session has no entries.*"), "{md}");
    }
}
