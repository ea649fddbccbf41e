//! How `retrace show` writes a branch for reading: each message under a
//! head line, each tool call as a block titled by its tool (the core's
//! [`ToolView`]) with its result inside (the core's [`pair_calls`]), in
//! colour on a terminal, in full when piped unless cut with `--max-lines`
//! or `--width`. The user's own messages are never cut.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use retrace_core::ansi::{self, Color, Style};
use retrace_core::{
    command_of_argv, diff_of_tool_call, pair_calls, DiffLine, Heading, Message, MessageKind, Part,
    Piece, Role, Side, Tone, ToolOutput, ToolRun, ToolView,
};

use crate::output::time;

/// Untracked paths of a checkpoint listed before "… N more".
const UNTRACKED_SHOWN: usize = 5;

/// Lines of a tool's output shown on a terminal when `--max-lines` is not
/// given (piped output is never cut unless asked).
pub const TERMINAL_TOOL_LINES: usize = 40;

/// What the reader asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    /// Colour escapes in the output.
    pub color: bool,
    /// At most this many lines of each block (the user's messages aside).
    pub max_lines: Option<usize>,
    /// At most this many lines of each tool output (a terminal's default).
    pub tool_lines: Option<usize>,
    /// At most this many characters on a line (the user's messages aside).
    pub width: Option<usize>,
}

/// A subagent run a tool result reports on: its id and how to open it.
pub struct SubagentRun {
    pub agent_id: String,
    pub command: String,
}

/// A branch's messages, for writing: which results are shown inside their
/// calls' blocks, and which messages are then left with nothing to show.
pub struct Branch<'a> {
    messages: &'a [Message],
    /// (message, part) of each call → (message, part) of its result.
    result_of: HashMap<(usize, usize), (usize, usize)>,
    /// Results shown inside a call's block.
    folded: HashSet<(usize, usize)>,
    /// Subagent runs by the label of the entry that reports them.
    subagents: &'a HashMap<String, SubagentRun>,
    /// Results whose streams the file keeps apart (Claude Code's stdout
    /// and stderr), by message.
    streams: &'a HashMap<usize, ToolOutput>,
}

impl<'a> Branch<'a> {
    pub fn new(
        messages: &'a [Message],
        subagents: &'a HashMap<String, SubagentRun>,
        streams: &'a HashMap<usize, ToolOutput>,
    ) -> Self {
        let pairs = pair_calls(messages);
        Branch {
            messages,
            result_of: pairs.iter().map(|p| (p.call, p.result)).collect(),
            folded: pairs.iter().map(|p| p.result).collect(),
            subagents,
            streams,
        }
    }

    /// The result `output` of message `i` taken apart: its streams where
    /// the file keeps them apart, else its text's framing.
    fn output_of(&self, i: usize, output: &str) -> ToolOutput {
        match self.streams.get(&i) {
            Some(o) => o.clone(),
            None => ToolOutput::of(output),
        }
    }

    /// Whether message `i` has anything left to show once its results are
    /// in their calls' blocks.
    pub fn shows(&self, i: usize) -> bool {
        let m = &self.messages[i];
        m.content.is_empty()
            || m.content
                .iter()
                .enumerate()
                .any(|(p, _)| !self.folded.contains(&(i, p)))
    }

    /// Message `i`, its head line first.
    pub fn write(
        &self,
        i: usize,
        bookmarks: &[&str],
        layout: Layout,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let m = &self.messages[i];
        let mut w = Writer { layout, out };
        w.head(m, bookmarks)?;
        // The user's own words are never cut.
        if m.role == Role::User && m.kind == MessageKind::Normal {
            w.layout.max_lines = None;
            w.layout.width = None;
        }
        // Recognised harness text is written as its pieces, never its tags.
        for piece in &m.harness {
            w.piece(piece)?;
        }
        for (p, part) in m.content.iter().enumerate() {
            if self.folded.contains(&(i, p)) {
                continue;
            }
            match part {
                Part::Text { .. } if !m.harness.is_empty() && m.role == Role::User => {}
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    let mut run = m.run_of(id).cloned();
                    let result = self.result_of.get(&(i, p)).and_then(|&(mi, pi)| {
                        let m = &self.messages[mi];
                        if let Some(r) = m.run_of(id) {
                            let mut r = r.clone();
                            if let Some(call_side) = run.take() {
                                r.merge(call_side);
                            }
                            run = Some(r);
                        }
                        let subagent = m.entries.iter().find_map(|e| self.subagents.get(e));
                        match &m.content[pi] {
                            Part::ToolResult {
                                output, is_error, ..
                            } => Some((self.output_of(mi, output), *is_error, subagent)),
                            _ => None,
                        }
                    });
                    w.tool_call(id, name, arguments, result, run.as_ref())?;
                }
                Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                } => {
                    // A result whose call is not on the branch (cut by a
                    // compaction, or lost).
                    w.line(&format!("← result of {call_id}"), Paint::Title)?;
                    let mut o = self.output_of(i, output);
                    if let Some(run) = m.run_of(call_id) {
                        o = o.with_run(run);
                    }
                    w.output(&o, *is_error)?;
                }
                other => w.part(other)?,
            }
        }
        // A run reported beside a message without its call (its report
        // written away from it): its command and how it ended.
        for run in &m.runs {
            let mine = m.content.iter().any(|p| match p {
                Part::ToolCall { id, .. } => *id == run.call_id,
                Part::ToolResult { call_id, .. } => *call_id == run.call_id,
                _ => false,
            });
            if !mine {
                w.run(run)?;
            }
        }
        if let Some(u) = &m.usage {
            w.line(
                &format!(
                    "   tokens: in {} out {} cache read {} cache write {}",
                    u.input, u.output, u.cache_read, u.cache_write
                ),
                Paint::Dim,
            )?;
        }
        writeln!(w.out)
    }
}

/// What a piece of text is, for its colour.
#[derive(Clone, Copy)]
enum Paint {
    Plain,
    Dim,
    Title,
    User,
    Assistant,
    Other,
    Good,
    Bad,
    Added,
    Removed,
}

impl Paint {
    fn sgr(self) -> &'static str {
        match self {
            Paint::Plain => "",
            Paint::Dim => "\x1b[2m",
            Paint::Title => "\x1b[1;33m",
            Paint::User => "\x1b[1;36m",
            Paint::Assistant => "\x1b[1;32m",
            Paint::Other => "\x1b[1;35m",
            Paint::Good => "\x1b[32m",
            Paint::Bad => "\x1b[1;31m",
            Paint::Added => "\x1b[32m",
            Paint::Removed => "\x1b[31m",
        }
    }
}

struct Writer<'o> {
    layout: Layout,
    out: &'o mut dyn Write,
}

impl Writer<'_> {
    fn paint(&self, text: &str, paint: Paint) -> String {
        if self.layout.color && !paint.sgr().is_empty() {
            format!("{}{text}\x1b[0m", paint.sgr())
        } else {
            text.to_owned()
        }
    }

    /// One line, cut to the width, painted.
    fn line(&mut self, text: &str, paint: Paint) -> io::Result<()> {
        let text = self.cut_width(text);
        let painted = self.paint(&text, paint);
        writeln!(self.out, "{painted}")
    }

    fn cut_width(&self, line: &str) -> String {
        match self.layout.width.and_then(|w| line.char_indices().nth(w)) {
            Some((i, _)) => format!("{}…", &line[..i]),
            None => line.to_owned(),
        }
    }

    /// `text` indented by `indent`, cut to `max` lines (head and tail kept)
    /// and to the width; terminal colours kept on a terminal, stripped
    /// otherwise.
    fn block(
        &mut self,
        text: &str,
        indent: &str,
        max: Option<usize>,
        paint: Paint,
    ) -> io::Result<()> {
        let lines: Vec<&str> = text.lines().collect();
        // A quarter of what is kept from the end: how a long output ended
        // matters as much as how it began.
        let (head, tail) = match max {
            Some(m) if lines.len() > m + 1 => (m - m / 4, m / 4),
            _ => (lines.len(), 0),
        };
        let write = |w: &mut Self, l: &str| -> io::Result<()> {
            let shown = w.terminal_text(&w.cut_width(l));
            let painted = if ansi::has_escapes(l) {
                shown
            } else {
                w.paint(&shown, paint)
            };
            writeln!(w.out, "{indent}{painted}")
        };
        for l in &lines[..head] {
            write(self, l)?;
        }
        if tail > 0 || head < lines.len() {
            let left = lines.len() - head - tail;
            let note = format!("{indent}… {left} more lines (--max-lines to see more) …");
            let note = self.paint(&note, Paint::Dim);
            writeln!(self.out, "{note}")?;
            for l in &lines[lines.len() - tail..] {
                write(self, l)?;
            }
        }
        Ok(())
    }

    /// A line of tool output: its SGR colours re-written (every other
    /// escape dropped) on a terminal, all of them stripped otherwise.
    fn terminal_text(&self, line: &str) -> String {
        if !ansi::has_escapes(line) {
            return line.to_owned();
        }
        if !self.layout.color {
            return ansi::strip(line).into_owned();
        }
        let mut s = String::new();
        for span in ansi::parse(line) {
            if span.style.is_plain() {
                s.push_str(&span.text);
            } else {
                s.push_str(&sgr(span.style));
                s.push_str(&span.text);
                s.push_str("\x1b[0m");
            }
        }
        s
    }

    fn head(&mut self, m: &Message, bookmarks: &[&str]) -> io::Result<()> {
        let Heading { who, side } = Heading::of(m);
        let paint = match side {
            Side::User => Paint::User,
            Side::Assistant => Paint::Assistant,
            Side::Tool => Paint::Title,
            Side::Injected => Paint::Dim,
            Side::Other => Paint::Other,
        };
        let mut rest = String::new();
        if let Some(model) = &m.model {
            rest.push_str(&format!(" · {model}"));
        }
        if let Some(t) = m.timestamp {
            rest.push_str(&format!(" · {}", time(t)));
        }
        if let Some(line) = m.lines.first() {
            rest.push_str(&format!(" · line {line}"));
        }
        if !bookmarks.is_empty() {
            rest.push_str(&format!(" · ⚑ {}", bookmarks.join(", ")));
        }
        let who = self.paint(&who, paint);
        writeln!(self.out, "── {who}{rest} ──")
    }

    /// A piece of harness text: a command as typed, output as printed
    /// (cut like a tool's), context as its label and first line.
    fn piece(&mut self, piece: &Piece) -> io::Result<()> {
        let max = self.layout.max_lines.or(self.layout.tool_lines);
        match piece {
            Piece::Prompt { text } => self.block(text, "", None, Paint::Plain),
            Piece::Command { .. } => self.line(&piece.plain(), Paint::Title),
            Piece::ShellInput { command } => self.line(&format!("$ {command}"), Paint::Title),
            Piece::ShellOutput { stdout, stderr } => {
                if !stdout.is_empty() {
                    self.block(stdout, "   ", max, Paint::Plain)?;
                }
                if !stderr.is_empty() {
                    self.line("   stderr:", Paint::Bad)?;
                    self.block(stderr, "   ", max, Paint::Plain)?;
                }
                if stdout.is_empty() && stderr.is_empty() {
                    self.line("   (no output)", Paint::Dim)?;
                }
                Ok(())
            }
            Piece::Context { label, text } => {
                let lines = text.lines().count();
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let more = if lines > 1 {
                    format!(" (+{} lines)", lines - 1)
                } else {
                    String::new()
                };
                self.line(&format!("[{label}] {}{more}", first.trim()), Paint::Dim)
            }
            Piece::Interrupted { text } => self.line(&format!("[{text}]"), Paint::Dim),
        }
    }

    fn part(&mut self, part: &Part) -> io::Result<()> {
        let max = self.layout.max_lines;
        match part {
            Part::Text { text } => self.block(text, "", max, Paint::Plain),
            Part::Thinking {
                text,
                redacted: true,
                ..
            } if text.is_empty() => self.line("[thinking, redacted]", Paint::Dim),
            // Newer Claude models record only a signature, no text.
            Part::Thinking { text, .. } if text.trim().is_empty() => {
                self.line("[thinking, no text recorded]", Paint::Dim)
            }
            Part::Thinking { text, .. } => {
                self.line("[thinking]", Paint::Dim)?;
                self.block(text.trim(), "   ", max, Paint::Dim)?;
                self.line("[/thinking]", Paint::Dim)
            }
            Part::Image {
                media_type,
                byte_size,
            } => self.line(
                &format!("[image {media_type}, {byte_size} bytes]"),
                Paint::Dim,
            ),
            Part::Checkpoint { untracked, .. } => {
                let line = part.checkpoint_line().unwrap_or_default();
                self.line(&format!("◆ {line}"), Paint::Other)?;
                // A Codex snapshot names the paths it leaves alone; the
                // first few say what they are.
                for path in untracked.iter().take(UNTRACKED_SHOWN) {
                    self.line(&format!("   untracked: {path}"), Paint::Dim)?;
                }
                if untracked.len() > UNTRACKED_SHOWN {
                    let more = format!("   … {} more", untracked.len() - UNTRACKED_SHOWN);
                    self.line(&more, Paint::Dim)?;
                }
                Ok(())
            }
            Part::ToolCall { .. } | Part::ToolResult { .. } => Ok(()),
        }
    }

    /// A call's block: its title, what it does, then its result (or that
    /// none came on this branch).
    fn tool_call(
        &mut self,
        id: &str,
        name: &str,
        arguments: &serde_json::Value,
        result: Option<(ToolOutput, bool, Option<&SubagentRun>)>,
        run: Option<&ToolRun>,
    ) -> io::Result<()> {
        let view = ToolView::of(name, arguments);
        let title = view.title(name);
        let title = if title.starts_with(name) {
            title
        } else {
            format!("{name} · {title}")
        };
        let id_note = if id.is_empty() {
            String::new()
        } else {
            format!("  ({id})")
        };
        let head = format!(
            "{}{}",
            self.paint(&format!("▶ {title}"), Paint::Title),
            self.paint(&id_note, Paint::Dim)
        );
        writeln!(self.out, "{head}")?;
        let max = self.layout.max_lines;
        let body = "   ";
        match &view {
            ToolView::Shell {
                command,
                cwd,
                description,
            } => {
                if let Some(d) = description {
                    self.line(&format!("{body}# {d}"), Paint::Dim)?;
                }
                if let Some(c) = cwd {
                    self.line(&format!("{body}in {c}"), Paint::Dim)?;
                }
                // A command of several lines (a heredoc) in full under
                // the title's first line.
                if command.contains('\n') {
                    self.block(&format!("$ {command}"), body, max, Paint::Plain)?;
                }
            }
            ToolView::Read { .. } | ToolView::Search { options: _, .. } => {
                if let ToolView::Search { options, .. } = &view {
                    for (k, v) in options {
                        self.line(&format!("{body}{k}: {v}"), Paint::Dim)?;
                    }
                }
            }
            ToolView::Write { content, .. } => self.block(content, body, max, Paint::Plain)?,
            ToolView::Edit { .. } => match diff_of_tool_call(name, arguments) {
                Some(lines) => {
                    let text: Vec<(String, Paint)> = lines
                        .into_iter()
                        .map(|l| match l {
                            DiffLine::Same(t) => (format!(" {t}"), Paint::Plain),
                            DiffLine::Added(t) => (format!("+{t}"), Paint::Added),
                            DiffLine::Removed(t) => (format!("-{t}"), Paint::Removed),
                            DiffLine::Header(t) => (t, Paint::Dim),
                        })
                        .collect();
                    let limit = max.unwrap_or(usize::MAX);
                    for (t, p) in text.iter().take(limit) {
                        self.line(&format!("{body}{t}"), *p)?;
                    }
                    if text.len() > limit {
                        let more = format!("{body}… {} more lines of the diff", text.len() - limit);
                        self.line(&more, Paint::Dim)?;
                    }
                }
                None => self.fields(&retrace_core::value_text(arguments), body, max)?,
            },
            ToolView::Agent { prompt, .. } => self.block(prompt, body, max, Paint::Plain)?,
            ToolView::Web { prompt, query, url } => {
                if let (Some(p), Some(_)) = (prompt, url) {
                    self.block(p, body, max, Paint::Dim)?;
                } else if let (Some(p), None, None) = (prompt, url, query) {
                    self.block(p, body, max, Paint::Plain)?;
                }
            }
            ToolView::Plan { steps } => {
                for (status, text) in steps {
                    let mark = match status.as_str() {
                        "completed" => "[x]",
                        "in_progress" => "[~]",
                        _ => "[ ]",
                    };
                    self.line(&format!("{body}{mark} {text}"), Paint::Plain)?;
                }
            }
            ToolView::Mcp { fields, .. } | ToolView::Other { fields } => {
                for (k, v) in fields {
                    if v.contains('\n') {
                        self.line(&format!("{body}{k}:"), Paint::Dim)?;
                        self.block(v, "      ", max, Paint::Plain)?;
                    } else {
                        let line = format!("{body}{}: {v}", self.paint(k, Paint::Dim));
                        writeln!(self.out, "{}", self.cut_width(&line))?;
                    }
                }
            }
        }
        match result {
            Some((mut o, is_error, subagent)) => {
                if let Some(run) = run {
                    o = o.with_run(run);
                }
                self.output(&o, is_error)?;
                if let Some(run) = subagent {
                    let line = format!("   ↳ subagent run {}: {}", run.agent_id, run.command);
                    self.line(&line, Paint::Other)?;
                }
                Ok(())
            }
            _ => match run {
                // The report of its run, where no result was written.
                Some(run) => self.output(&ToolOutput::default().with_run(run), run.failed),
                None => self.line("   ← no result on this branch", Paint::Bad),
            },
        }
    }

    /// A run reported apart from any call here: its command, then its
    /// output as a result's.
    fn run(&mut self, run: &ToolRun) -> io::Result<()> {
        let argv: Vec<&str> = run.command.iter().map(String::as_str).collect();
        let head = if argv.is_empty() {
            format!("▶ run of {}", run.call_id)
        } else {
            format!("▶ $ {}", command_of_argv(&argv))
        };
        self.line(&head, Paint::Title)?;
        self.output(&ToolOutput::default().with_run(run), run.failed)
    }

    /// A result: its output (and stderr apart) under a rule, then its exit
    /// code or error.
    fn output(&mut self, o: &ToolOutput, is_error: bool) -> io::Result<()> {
        let max = self.layout.max_lines.or(self.layout.tool_lines);
        if !o.output.trim().is_empty() {
            self.block(o.output.trim_end_matches('\n'), "   │ ", max, Paint::Plain)?;
        }
        if let Some(err) = o.stderr.as_deref().filter(|e| !e.trim().is_empty()) {
            self.line("   stderr:", Paint::Bad)?;
            self.block(err.trim_end_matches('\n'), "   │ ", max, Paint::Removed)?;
        }
        let status: Vec<String> = o
            .status(is_error)
            .iter()
            .map(|s| {
                let paint = match s.tone {
                    Tone::Good => Paint::Good,
                    Tone::Bad => Paint::Bad,
                    Tone::Neutral => Paint::Dim,
                };
                self.paint(&s.text, paint)
            })
            .collect();
        if !status.is_empty() {
            writeln!(self.out, "   ← {}", status.join(" · "))?;
        }
        Ok(())
    }

    fn fields(&mut self, text: &str, indent: &str, max: Option<usize>) -> io::Result<()> {
        self.block(text, indent, max, Paint::Plain)
    }
}

/// The SGR escape that draws `style`.
fn sgr(style: Style) -> String {
    let mut codes: Vec<String> = Vec::new();
    for (on, code) in [
        (style.bold, "1"),
        (style.dim, "2"),
        (style.italic, "3"),
        (style.underline, "4"),
        (style.inverse, "7"),
    ] {
        if on {
            codes.push(code.to_owned());
        }
    }
    let color = |c: Color, base: u8| match c {
        Color::Indexed(i @ 0..=7) => format!("{}", base + i),
        Color::Indexed(i @ 8..=15) => format!("{}", base + 60 + i - 8),
        Color::Indexed(i) => format!("{};5;{i}", base + 8),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
    };
    if let Some(c) = style.fg {
        codes.push(color(c, 30));
    }
    if let Some(c) = style.bg {
        codes.push(color(c, 40));
    }
    format!("\x1b[{}m", codes.join(";"))
}
