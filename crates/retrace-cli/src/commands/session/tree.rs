//! `retrace tree`: the branch tree as text. Linear runs are collapsed into
//! one line, structural fan-outs (parallel tool calls, hook lines) are
//! folded into the run they belong to, and real branch points (rewinds,
//! forks) open nested branches. Each run says what it is about: the core's
//! `segment_preview`, the line the viewer's branch panel shows; which of
//! its lines are git checkpoints (`◆`) and which are bookmarked (`⚑`, with
//! their names: pi labels and snapshot side-cars).

use std::io::Write;

use anyhow::Result;
use retrace_core::{segment_preview, BranchKind, EntryId, Preview, Segment, Session};
use serde::Serialize;

use super::warn_bad_bookmarks;
use crate::args::{OutputOptions, ReadArgs, TreeArgs};
use crate::commands::Run;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for TreeArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &TreeArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let mut loaded = load(&args.path, read, printer)?;
    warn_bad_bookmarks(&loaded, printer)?;
    let s = &loaded.session;
    let outline = s.outline();
    // As the viewer does, a body that cannot be read gives no preview.
    let previews: Vec<Option<Preview>> = outline
        .iter()
        .map(|seg| segment_preview(s, &mut loaded.source, seg).ok().flatten())
        .collect();
    printer.emit(
        || json(s, &loaded.side_cars, &outline, &previews),
        |out| print_text(s, &outline, &previews, out),
    )?;
    Ok(ExitStatus::Success)
}

fn print_text(
    s: &Session,
    outline: &[Segment],
    previews: &[Option<Preview>],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let tree = s.tree();
    writeln!(
        out,
        "{} · {} entries · {} leaves · {} real branch points",
        s.format().describe(),
        s.entries().len(),
        tree.tips().len(),
        tree.real_branch_points().count()
    )?;
    // (segment, prefix for its line, prefix for its children)
    let mut stack: Vec<(usize, String, String)> = outline
        .iter()
        .enumerate()
        .filter(|(_, seg)| seg.parent.is_none())
        .map(|(i, _)| (i, String::new(), String::new()))
        .rev()
        .collect();
    let mut current_file = None;
    while let Some((index, lead, rest)) = stack.pop() {
        let run = &outline[index];
        let file = s.entry(run.first).file;
        if lead.is_empty() && s.files().len() > 1 && current_file != Some(file) {
            current_file = Some(file);
            let name = &s.files()[file.0 as usize].name;
            match s.subagents().iter().find(|a| a.file == file) {
                Some(a) => {
                    let by = a
                        .spawned_by
                        .map(|e| format!(", reported to {} (line {})", s.label(e), s.entry(e).line))
                        .unwrap_or_default();
                    writeln!(out, "[{name}] subagent {}{by}", a.agent_id)?;
                }
                None => writeln!(out, "[{name}]")?,
            }
        }
        let a = s.entry(run.first).line;
        let b = s.entry(run.last).line;
        // A branch that goes on in a later file of a split session says
        // which: its line numbers are that file's.
        let of = match current_file {
            Some(header) if file != header && s.entry(run.last).file == file => {
                format!(" of {}", s.files()[file.0 as usize].name)
            }
            _ => String::new(),
        };
        let mut line = if run.first == run.last {
            format!("{lead}● {} (line {a}{of})", s.label(run.first))
        } else if s.entry(run.first).file != s.entry(run.last).file {
            // A run across the parts of a split set.
            format!(
                "{lead}● {} … {}  {} entries",
                s.label(run.first),
                s.label(run.last),
                run.len
            )
        } else {
            format!(
                "{lead}● {} … {}  {} entries, lines {a}–{b}{of}",
                s.label(run.first),
                s.label(run.last),
                run.len
            )
        };
        if run.side > 0 {
            line.push_str(&format!(
                " (+{} side lines at {} structural fan-out{})",
                run.side,
                run.fanouts,
                if run.fanouts == 1 { "" } else { "s" }
            ));
        }
        if run.len + run.side > 2 {
            let roles: Vec<String> = run.roles.iter().map(|(r, n)| format!("{n} {r}")).collect();
            line.push_str(&format!(" [{}]", roles.join(", ")));
        }
        if run.compactions > 0 {
            line.push_str(&format!(" · {} compaction", run.compactions));
        }
        if !run.checkpoints.is_empty() {
            let n = run.checkpoints.len();
            let lines: Vec<String> = run
                .checkpoints
                .iter()
                .map(|&e| s.entry(e).line.to_string())
                .collect();
            line.push_str(&format!(
                " · ◆ {n} checkpoint{} (line{} {})",
                if n == 1 { "" } else { "s" },
                if n == 1 { "" } else { "s" },
                lines.join(", ")
            ));
        }
        if !run.bookmarks.is_empty() {
            let marks: Vec<String> = run
                .bookmarks
                .iter()
                .flat_map(|&e| {
                    let line = s.entry(e).line;
                    s.bookmarks_on(e)
                        .iter()
                        .map(move |b| format!("\"{}\" (line {line})", b.name))
                })
                .collect();
            line.push_str(&format!(" · ⚑ {}", marks.join(", ")));
        }
        match &previews[index] {
            Some(p) if p.prompt => line.push_str(&format!("  \"{}\"", p.text)),
            // Not a prompt (a branch that starts with the model's answer):
            // who said it, then what.
            Some(p) => line.push_str(&format!("  {}: \"{}\"", p.role.as_str(), p.text)),
            None => {}
        }
        let mut default = run.has_default.then_some(" (default)");
        if run.is_tip {
            line.push_str(" ◀ leaf");
            line.push_str(default.take().unwrap_or_default());
        } else if run.children.is_empty() {
            line.push_str(" ◀ dead end");
        }
        // A tip with children: the conversation was rewound to here and
        // nothing written since; the children were rewound away.
        match run.children.len() {
            0 => {}
            1 => line.push_str(" ⑂ 1 branch"),
            n => line.push_str(&format!(" ⑂ {n} branches")),
        }
        line.push_str(default.unwrap_or_default());
        if s.is_sidechain(run.first) {
            line.push_str(" [sidechain]");
        }
        writeln!(out, "{line}")?;
        for (i, &k) in run.children.iter().enumerate().rev() {
            let last = i + 1 == run.children.len();
            let (l, r) = if last {
                ("└─ ", "   ")
            } else {
                ("├─ ", "│  ")
            };
            stack.push((k, format!("{rest}{l}"), format!("{rest}{r}")));
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonTree<'a> {
    format: String,
    files: Vec<JsonFile<'a>>,
    default_leaf: Option<String>,
    roots: Vec<String>,
    leaves: Vec<String>,
    segments: Vec<JsonSegment<'a>>,
    nodes: Vec<JsonNode>,
}

/// A file of the session, in the order read (what a node's `file` counts).
#[derive(Serialize)]
struct JsonFile<'a> {
    /// As named on the command line, or under the folder named.
    name: &'a str,
    /// The side-car read with it (a subagent's `<stem>.meta.json`).
    side_car: Option<&'a str>,
}

/// A segment of the outline, as the text shows it on one line.
#[derive(Serialize)]
struct JsonSegment<'a> {
    /// Labels of its first and last entries.
    first: String,
    last: String,
    /// Indices into `segments`.
    parent: Option<usize>,
    depth: u32,
    children: &'a [usize],
    len: usize,
    preview: &'a Option<Preview>,
    /// Labels of the git checkpoints on the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    checkpoints: Vec<String>,
    /// The bookmarks on the run, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    bookmarks: Vec<JsonBookmark<'a>>,
}

/// A bookmark: its name and the label of the entry it marks.
#[derive(Serialize)]
struct JsonBookmark<'a> {
    name: &'a str,
    at: String,
}

#[derive(Serialize)]
struct JsonNode {
    id: String,
    file: u16,
    line: u32,
    #[serde(rename = "type")]
    kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    role: String,
    parent: Option<String>,
    children: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<BranchKind>,
    /// The entry records a git checkpoint (the store's `checkpoint`
    /// event, Codex `ghost_snapshot`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    checkpoint: bool,
    /// The names the entry is bookmarked under.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    bookmarks: Vec<String>,
}

fn json<'a>(
    s: &'a Session,
    side_cars: &'a [Option<String>],
    outline: &'a [Segment],
    previews: &'a [Option<Preview>],
) -> JsonTree<'a> {
    let tree = s.tree();
    let nodes = (0..s.entries().len() as u32)
        .map(EntryId)
        .filter(|&e| tree.contains(e))
        .map(|e| {
            let children = tree.children(e).len();
            JsonNode {
                id: s.label(e),
                file: s.entry(e).file.0,
                line: s.entry(e).line,
                kind: s.kind(e).to_owned(),
                role: s.role(e).to_owned(),
                parent: tree.parent(e).map(|p| s.label(p)),
                children,
                // A default leaf with children is a real branch point
                // with one.
                branch: (children > 1 || tree.is_real_branch_point(e)).then(|| {
                    if tree.is_real_branch_point(e) {
                        BranchKind::Real
                    } else {
                        BranchKind::Structural
                    }
                }),
                checkpoint: s.is_checkpoint(e),
                bookmarks: s.bookmarks_on(e).iter().map(|b| b.name.clone()).collect(),
            }
        })
        .collect();
    JsonTree {
        format: s.format().describe(),
        files: s
            .files()
            .iter()
            .enumerate()
            .map(|(i, f)| JsonFile {
                name: &f.name,
                side_car: side_cars.get(i).and_then(Option::as_deref),
            })
            .collect(),
        default_leaf: tree.default_leaf().map(|e| s.label(e)),
        roots: tree.roots().iter().map(|&e| s.label(e)).collect(),
        leaves: tree.tips().iter().map(|&e| s.label(e)).collect(),
        segments: outline
            .iter()
            .zip(previews)
            .map(|(seg, preview)| JsonSegment {
                first: s.label(seg.first),
                last: s.label(seg.last),
                parent: seg.parent,
                depth: seg.depth,
                children: &seg.children,
                len: seg.len,
                preview,
                checkpoints: seg.checkpoints.iter().map(|&e| s.label(e)).collect(),
                bookmarks: seg
                    .bookmarks
                    .iter()
                    .flat_map(|&e| s.bookmarks_on(e))
                    .map(|b| JsonBookmark {
                        name: &b.name,
                        at: s.label(b.entry),
                    })
                    .collect(),
            })
            .collect(),
        nodes,
    }
}
