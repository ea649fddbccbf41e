//! A branch's rows as Markdown, one at a time, as the viewer lays them
//! out (the core's [`Session::rows`], [`Session::row_message`] and
//! [`Session::row_pairing`]): each message under a heading (a prompt
//! someone typed opens a section), its text as Markdown, thinking and
//! each tool call collapsed in `<details>` with the call's result inside
//! it (a row of results shown there is not written again), harness text
//! as what it is, events and markers as one quoted line, a compaction
//! summary collapsed, a branch point said where it is. A subagent's run
//! is nested in the block of the call that spawned it.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::Value;

use super::text::{code, cut, fenced, html, inline, prose};
use super::tool::{self, Missing};
use crate::reading::ansi;
use crate::reading::visible;
use crate::{
    event_line, readable_time, EntryId, ExportError, FileId, Heading, Marks, Message, MessageKind,
    Part, Piece, Role, Row, RowKind, RowPairing, RowResult, Session, Source,
};

/// How deep subagent runs nest inside each other's blocks.
const MAX_NESTING: usize = 6;

/// Characters of an event or marker line kept.
const EVENT_CHARS: usize = 300;

/// What the rows are written with, and what has been written.
pub struct Writer<'a> {
    pub session: &'a Session,
    /// Where bodies are read (redacting, when the export is).
    pub source: &'a mut dyn Source,
    pub out: &'a mut dyn Write,
    /// Texts from the index, hidden as the source hides bodies.
    pub hide: &'a mut dyn FnMut(&str) -> String,
    /// Every branch is written (the branch points then name the later
    /// branches that go on from them: `forks`).
    pub all_branches: bool,
    /// The numbers of the later branches that go on from an entry.
    pub forks: HashMap<EntryId, Vec<usize>>,
    /// Subagent runs written, by their place in [`Session::subagents`].
    pub subagents_written: Vec<bool>,
    /// Rows written (not counting rows shown in a call's block).
    pub rows_written: usize,
}

impl Writer<'_> {
    /// Rows `from..` of `rows` (the rows of one branch), at nesting
    /// `depth`: 0 for the conversation, more inside subagent blocks,
    /// where messages are headed by a bold line rather than a heading.
    pub fn rows(&mut self, rows: &[Row], from: usize, depth: usize) -> Result<(), ExportError> {
        for i in from..rows.len() {
            self.row(rows, i, from, depth)?;
        }
        Ok(())
    }

    fn row(
        &mut self,
        rows: &[Row],
        i: usize,
        from: usize,
        depth: usize,
    ) -> Result<(), ExportError> {
        let s = self.session;
        let row = &rows[i];
        if row.kind == RowKind::Message {
            if let Some(m) = s.row_message(row, &mut *self.source)? {
                let mut pairing = s.row_pairing(rows, i, &m, &mut *self.source)?;
                match pairing.folded_into {
                    // Its results are in the blocks of the calls they
                    // answer, written above.
                    Some(r) if r >= from => return Ok(self.fork_note(row)?),
                    // Those calls are on rows not written here (an earlier
                    // branch's): the results are shown on their own.
                    Some(_) => {
                        pairing.answered.clear();
                        pairing.folded_into = None;
                    }
                    None => {}
                }
                self.message(rows, i, m, &pairing, depth)?;
                self.rows_written += 1;
                return Ok(self.fork_note(row)?);
            }
        }
        // An event, or a message row with no message after all.
        let first = row.entries[0];
        let text = match s.body(first, &mut *self.source)? {
            Ok(v) => event_line(&v),
            Err(_) => "a line that could not be read as JSON".to_owned(),
        };
        let place = self.place(first, None);
        let text = inline(&cut(&text, EVENT_CHARS));
        if row.marks.has(Marks::COMPACTION) {
            writeln!(self.out, "> ⟲ **Compaction** · {text} · {place}\n")?;
        } else {
            writeln!(self.out, "> ⚙ {text} · {place}\n")?;
        }
        self.rows_written += 1;
        Ok(self.fork_note(row)?)
    }

    /// Every entry of a session with no conversation, in file order, as
    /// the line an event row shows.
    pub fn entries(&mut self) -> Result<(), ExportError> {
        let s = self.session;
        if s.entries().is_empty() {
            writeln!(self.out, "*The session has no entries.*\n")?;
            return Ok(());
        }
        for e in (0..s.entries().len() as u32).map(EntryId) {
            let row = Row {
                entries: vec![e],
                kind: RowKind::Event,
                entry_type: s.kind(e).to_owned(),
                role: s.role(e).to_owned(),
                time: s.entry(e).timestamp(),
                marks: Marks::default(),
            };
            self.row(std::slice::from_ref(&row), 0, 0, 0)?;
        }
        Ok(())
    }

    /// Where an entry is: `line N`, or `file K line N` in a later file of
    /// the session; `line` when the message names its own first line.
    fn place(&self, e: EntryId, line: Option<u32>) -> String {
        let entry = self.session.entry(e);
        let line = line.unwrap_or(entry.line);
        match entry.file.0 {
            0 => format!("line {line}"),
            f => format!("file {} line {line}", u32::from(f) + 1),
        }
    }

    fn message(
        &mut self,
        rows: &[Row],
        i: usize,
        mut m: Message,
        pairing: &RowPairing,
        depth: usize,
    ) -> Result<(), ExportError> {
        let row = &rows[i];
        if m.kind == MessageKind::Marker {
            return Ok(self.marker(row, &m)?);
        }
        self.head(row, &m, depth)?;
        let note = match m.kind {
            // Recognised harness text says what it is itself.
            MessageKind::Meta if m.harness.is_empty() => Some("Injected by the harness."),
            MessageKind::BashExecution => Some("A shell command the user ran."),
            MessageKind::Custom => Some("An extension's message."),
            _ => None,
        };
        if let Some(n) = note {
            writeln!(self.out, "*{n}*\n")?;
        }
        let summary = match m.kind {
            MessageKind::CompactionSummary => Some("The summary the context restarts from"),
            MessageKind::BranchSummary => Some("The summary of an abandoned branch"),
            _ => None,
        };
        if let Some(title) = summary {
            writeln!(self.out, "<details>\n<summary>{title}</summary>\n")?;
        }
        let harness = std::mem::take(&mut m.harness);
        // A user's text is written as its recognised pieces instead.
        let pieces_replace_text = !harness.is_empty() && m.role == Role::User;
        for piece in &harness {
            self.piece(piece)?;
        }
        // Each call's result: in this message (a Gemini CLI record, an
        // event stream's call) or on a later row.
        let calls: Vec<&str> = m.tool_calls().map(|(id, _)| id).collect();
        let mut answers: Vec<RowResult> = Vec::new();
        for part in &m.content {
            if let Part::ToolResult {
                call_id,
                output,
                is_error,
            } = part
            {
                if calls.contains(&call_id.as_str()) {
                    answers.push(RowResult::new(
                        i,
                        call_id.clone(),
                        output.clone(),
                        *is_error,
                    ));
                }
            }
        }
        answers.extend(pairing.results.iter().cloned());
        for part in &m.content {
            match part {
                Part::ToolResult { call_id, .. }
                    if calls.contains(&call_id.as_str()) || pairing.answered.contains(call_id) => {}
                Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                } => {
                    let mut r = RowResult::new(i, call_id.clone(), output.clone(), *is_error);
                    if let Some(run) = m.run_of(call_id) {
                        let o = r.framed().with_run(run);
                        r.output = o.output;
                        r.stderr = o.stderr;
                        r.exit_code = o.exit_code;
                        r.wall_time = o.wall_time;
                        r.is_error |= run.failed;
                    }
                    tool::orphan(self.out, &r)?;
                }
                Part::Text { .. } if pieces_replace_text => {}
                Part::Text { text } if m.role == Role::Tool => {
                    fenced(self.out, &ansi::strip(text), "text")?
                }
                Part::Text { text } => prose(self.out, text)?,
                Part::Thinking { text, redacted, .. } => thinking(self.out, text, *redacted)?,
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    let found = answers.iter().position(|a| a.call_id == *id);
                    let answer = found.map(|k| answers.remove(k));
                    let missing = if pairing.unanswered.contains(id) {
                        Missing::Never
                    } else {
                        Missing::NotNear
                    };
                    tool::open(self.out, name, arguments, answer.as_ref().ok_or(missing))?;
                    if let Some(a) = &answer {
                        self.nested_subagents(&rows[a.row].entries, depth)?;
                    }
                    tool::close(self.out)?;
                }
                Part::Image {
                    media_type,
                    byte_size,
                } => tool::image_line(self.out, media_type, *byte_size)?,
                Part::Checkpoint { .. } => self.checkpoint(part)?,
            }
        }
        // A run reported here for a call that is not (Codex: its report
        // was written away from it): a block of its own.
        for a in &answers {
            tool::open(self.out, "run", &Value::Null, Ok(a))?;
            tool::close(self.out)?;
        }
        if summary.is_some() {
            writeln!(self.out, "</details>\n")?;
        }
        // A run the session links to this row itself rather than to a
        // result (Codex: the last call before it began) follows its
        // blocks.
        self.nested_subagents(&row.entries, depth)?;
        self.usage(&m)?;
        Ok(())
    }

    /// The heading of a message: who, the model, the time, where, its
    /// bookmarks, an error mark. A prompt someone typed opens a section.
    fn head(&mut self, row: &Row, m: &Message, depth: usize) -> io::Result<()> {
        let Heading { who, .. } = Heading::of(m);
        let mut who = inline(&who);
        if let Some(first) = who.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        let mut parts = vec![who];
        if let Some(model) = m.model.as_deref().filter(|m| !m.is_empty()) {
            parts.push(inline(model));
        }
        if let Some(t) = m.timestamp.or(row.time) {
            parts.push(readable_time(t));
        }
        parts.push(self.place(row.entries[0], m.lines.first().copied()));
        for &e in &row.entries {
            for b in self.session.bookmarks_on(e) {
                let name = (self.hide)(&b.name);
                parts.push(format!("⚑ {}", inline(&visible(&name))));
            }
        }
        if row.marks.has(Marks::ERROR) {
            parts.push("✗ error".to_owned());
        }
        let line = parts.join(" · ");
        match depth {
            0 if m.is_typed_prompt() => writeln!(self.out, "## {line}\n"),
            0 => writeln!(self.out, "### {line}\n"),
            _ => {
                let (who, rest) = line.split_once(" · ").unwrap_or((&line, ""));
                writeln!(self.out, "**{who}** · {rest}\n")
            }
        }
    }

    /// Token counts, cost and an unusual stop, in small print.
    fn usage(&mut self, m: &Message) -> io::Result<()> {
        let mut meta = Vec::new();
        if let Some(u) = &m.usage {
            meta.push(format!(
                "tokens: in {} · out {} · cache read {} · cache write {}",
                u.input, u.output, u.cache_read, u.cache_write
            ));
            if let Some(cost) = u.cost {
                meta.push(dollars(cost));
            }
        }
        if let Some(stop) = m
            .stop_reason
            .as_deref()
            .filter(|s| !matches!(*s, "stop" | "end_turn" | "tool_use" | "toolUse"))
        {
            meta.push(format!("stopped: {}", html(stop)));
        }
        if meta.is_empty() {
            return Ok(());
        }
        writeln!(self.out, "<sub>{}</sub>\n", meta.join(" · "))
    }

    /// A marker on the timeline (a rollback, an aborted turn, a git
    /// checkpoint): one quoted line, not a turn.
    fn marker(&mut self, row: &Row, m: &Message) -> io::Result<()> {
        let place = self.place(row.entries[0], m.lines.first().copied());
        let mut any = false;
        for part in &m.content {
            if let Part::Checkpoint { .. } = part {
                self.checkpoint(part)?;
                any = true;
            }
        }
        if !any {
            let text = inline(&cut(&m.text(), EVENT_CHARS));
            writeln!(self.out, "> {text} · {place}\n")?;
        }
        Ok(())
    }

    /// A git checkpoint: its line, and the first few paths a Codex
    /// snapshot leaves alone.
    fn checkpoint(&mut self, part: &Part) -> io::Result<()> {
        let Some(line) = part.checkpoint_line() else {
            return Ok(());
        };
        writeln!(self.out, "> ◆ {}", inline(&line))?;
        if let Part::Checkpoint { untracked, .. } = part {
            if !untracked.is_empty() {
                let first: Vec<String> = untracked.iter().take(5).map(|p| code(p)).collect();
                let more = match untracked.len() {
                    n if n > 5 => format!(" and {} more", n - 5),
                    _ => String::new(),
                };
                writeln!(self.out, ">\n> untracked: {}{more}", first.join(", "))?;
            }
        }
        writeln!(self.out)
    }

    /// A piece of harness text, as what it is: a typed prompt as
    /// Markdown, a command as typed, shell lines and output in fences,
    /// context collapsed, an interruption quoted.
    fn piece(&mut self, piece: &Piece) -> io::Result<()> {
        let out = &mut *self.out;
        match piece {
            Piece::Prompt { text } => prose(out, text),
            Piece::Command { .. } => writeln!(out, "{} *(slash command)*\n", code(&piece.plain())),
            Piece::ShellInput { command } => fenced(out, &format!("$ {command}"), "sh"),
            Piece::ShellOutput { stdout, stderr } => {
                if !stdout.trim().is_empty() {
                    fenced(out, &ansi::strip(stdout.trim_end_matches('\n')), "text")?;
                }
                if !stderr.trim().is_empty() {
                    writeln!(out, "stderr:\n")?;
                    fenced(out, &ansi::strip(stderr.trim_end_matches('\n')), "text")?;
                }
                if stdout.trim().is_empty() && stderr.trim().is_empty() {
                    writeln!(out, "*(no output)*\n")?;
                }
                Ok(())
            }
            Piece::Context { label, text } => {
                writeln!(out, "<details>\n<summary>{}</summary>\n", html(label))?;
                fenced(out, text, "text")?;
                writeln!(out, "</details>\n")
            }
            Piece::Interrupted { text } => writeln!(out, "> {}\n", inline(text)),
        }
    }

    /// Where the conversation branches at a row: the later branches that
    /// go on from it (every branch written), or how many there are.
    fn fork_note(&mut self, row: &Row) -> io::Result<()> {
        let later: Vec<String> = row
            .entries
            .iter()
            .filter_map(|e| self.forks.get(e))
            .flatten()
            .map(|n| n.to_string())
            .collect();
        if !later.is_empty() {
            let (word, verb) = match later.len() {
                1 => ("Branch", "goes"),
                _ => ("Branches", "go"),
            };
            return writeln!(
                self.out,
                "> ⋔ {word} {} {verb} on from here.\n",
                later.join(", ")
            );
        }
        if self.all_branches || !row.marks.has(Marks::BRANCH_POINT) {
            return Ok(());
        }
        let tree = self.session.tree();
        let ways = row
            .entries
            .iter()
            .filter(|&&e| tree.is_real_branch_point(e))
            .map(|&e| tree.children(e).len())
            .max()
            .unwrap_or(0);
        writeln!(
            self.out,
            "> ⋔ The conversation branches here ({ways} ways); this is one of them.\n"
        )
    }

    /// The subagent runs the result on `entries` reports, not written yet,
    /// each nested in a block.
    fn nested_subagents(&mut self, entries: &[EntryId], depth: usize) -> Result<(), ExportError> {
        let found: Vec<usize> = (self.session.subagents().iter().enumerate())
            .filter(|(k, a)| {
                !self.subagents_written[*k] && a.spawned_by.is_some_and(|b| entries.contains(&b))
            })
            .map(|(k, _)| k)
            .collect();
        for k in found {
            self.subagent(k, depth + 1, false)?;
        }
        Ok(())
    }

    /// Subagent run `k` (of [`Session::subagents`]): its conversation,
    /// nested in a block (`section` false) or under a heading of its own.
    pub fn subagent(&mut self, k: usize, depth: usize, section: bool) -> Result<(), ExportError> {
        self.subagents_written[k] = true;
        let s = self.session;
        let agent = &s.subagents()[k];
        let mut title = format!("Subagent run {}", visible(&(self.hide)(&agent.agent_id)));
        let described = s.files()[agent.file.0 as usize]
            .meta
            .as_ref()
            .and_then(|m| m.get("description"))
            .and_then(Value::as_str);
        if let Some(d) = described {
            title.push_str(" — ");
            title.push_str(&(self.hide)(d));
        }
        let rows = leaf_of_file(s, agent.file)
            .map(|leaf| s.rows(leaf))
            .unwrap_or_default();
        if section {
            writeln!(self.out, "### {}\n", inline(&title))?;
        } else {
            writeln!(
                self.out,
                "<details>\n<summary>{} · {} rows</summary>\n",
                html(&title),
                rows.len()
            )?;
        }
        if rows.is_empty() {
            writeln!(self.out, "*Its file holds no conversation.*\n")?;
        } else if depth > MAX_NESTING {
            writeln!(self.out, "*Nested too deep to be written here.*\n")?;
        } else {
            self.rows(&rows, 0, depth)?;
        }
        if !section {
            writeln!(self.out, "</details>\n")?;
        }
        Ok(())
    }
}

/// A thinking part: collapsed, named by its subject (reasoning summaries
/// open with it in bold: Codex, Gemini CLI) or its length; a line when
/// there is no text to show.
fn thinking(out: &mut dyn Write, text: &str, redacted: bool) -> io::Result<()> {
    if redacted && text.is_empty() {
        return writeln!(out, "*Thinking, redacted by the provider.*\n");
    }
    // Newer Claude models record only a signature.
    if text.trim().is_empty() {
        return writeln!(out, "*Thinking, no text recorded.*\n");
    }
    let subject = text
        .lines()
        .next()
        .and_then(|l| l.trim().strip_prefix("**")?.strip_suffix("**"))
        .filter(|t| !t.is_empty() && t.len() < 120);
    let summary = match subject {
        Some(t) => format!("Thinking · {}", html(t)),
        None => format!("Thinking · {} words", text.split_whitespace().count()),
    };
    writeln!(out, "<details>\n<summary>{summary}</summary>\n")?;
    prose(out, text.trim())?;
    writeln!(out, "</details>\n")
}

/// A cost in dollars to four decimals (`$0.0123`), from integers: no
/// float printer.
fn dollars(cost: f64) -> String {
    let tenths_of_cents = (cost * 10_000.0).round() as i64;
    let sign = if tenths_of_cents < 0 { "-" } else { "" };
    let n = tenths_of_cents.unsigned_abs();
    format!("{sign}${}.{:04}", n / 10_000, n % 10_000)
}

/// The leaf a file's conversation is read to: its last tip, else its last
/// entry on the tree.
fn leaf_of_file(s: &Session, file: FileId) -> Option<EntryId> {
    let tree = s.tree();
    if let Some(&tip) = tree.tips().iter().rev().find(|&&t| s.entry(t).file == file) {
        return Some(tip);
    }
    let info = &s.files()[file.0 as usize];
    (info.first_entry..info.end_entry)
        .rev()
        .map(EntryId)
        .find(|&e| tree.contains(e))
}
