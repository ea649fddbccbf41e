//! A tool result as a person reads it: the output with the framing agents
//! wrap it in taken apart, so a view can show the exit code as a badge and
//! the error stream beside the output.
//!
//! - Codex exec output: `Exit code: N`, `Wall time: …` (newer: `Chunk ID`,
//!   `Process exited with code N`, `Original token count`) lines, then
//!   `Output:` and the output.
//! - Gemini CLI `run_shell_command`: `Command:`, `Directory:`, `Output:`
//!   (many lines), then `Error:`, `Exit Code:`, `Signal:`,
//!   `Background PIDs:`, `Process Group PGID:`; `(none)` for nothing.
//! - Claude Code writes stdout and stderr apart beside the result, in the
//!   line's `toolUseResult`: [`crate::Session::result_streams`] reads them.
//! - Codex reports a run beside its output (`exec_command_end`, 0.5x
//!   output's `metadata`): a [`ToolRun`] of the message, added with
//!   [`ToolOutput::with_run`].
//!
//! Anything else is its text as it is.

use crate::model::message::ToolRun;

/// A tool result taken apart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// What the tool printed (stdout, or all of it where the format does
    /// not tell the streams apart).
    pub output: String,
    /// What it printed on stderr, where the format keeps it apart.
    pub stderr: Option<String>,
    /// The exit code, where the format records one.
    pub exit_code: Option<i64>,
    /// Wall time as written (`0.1 seconds`), or a run's duration
    /// ([`duration_text`]).
    pub wall_time: Option<String>,
    /// The run was interrupted (Claude Code).
    pub interrupted: bool,
}

impl ToolOutput {
    /// `text` with the framing it is recognised by taken apart.
    pub fn of(text: &str) -> ToolOutput {
        codex_frame(text)
            .or_else(|| gemini_frame(text))
            .unwrap_or_else(|| ToolOutput {
                output: text.to_owned(),
                ..ToolOutput::default()
            })
    }

    /// What the report of the run says that the output does not: its exit
    /// code and duration, and its stdout and stderr apart where the report
    /// keeps both (the output is then the two streams as one); the output
    /// itself where there was none.
    pub fn with_run(mut self, run: &ToolRun) -> ToolOutput {
        self.exit_code = self.exit_code.or(run.exit_code);
        if self.wall_time.is_none() {
            self.wall_time = run.duration_ms.map(duration_text);
        }
        let stderr = run.stderr.as_ref().filter(|e| !e.trim().is_empty());
        match (&run.stdout, stderr) {
            (Some(out), Some(err)) if self.stderr.is_none() => {
                self.output = out.clone();
                self.stderr = Some(err.clone());
            }
            (out, err) if self.output.trim().is_empty() => {
                if let Some(out) = out {
                    self.output = out.clone();
                }
                if self.stderr.is_none() {
                    self.stderr = err.cloned();
                }
            }
            _ => {}
        }
        self
    }
}

/// One mark of how a run ended, as views show it beside a result: `exit
/// 0`, `exit 2`, `error`, `interrupted`, its duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The words shown.
    pub text: String,
    /// Whether it is good news, bad news or neither.
    pub tone: Tone,
}

/// How a [`Status`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// It went well (`exit 0`).
    Good,
    /// It failed (a non-zero exit, an error, an interruption).
    Bad,
    /// Neither (a duration).
    Neutral,
}

impl ToolOutput {
    /// How the run ended, in order: its exit code, `error` when the
    /// result says it failed (`is_error`), `interrupted`, its duration.
    /// Empty when nothing is known.
    pub fn status(&self, is_error: bool) -> Vec<Status> {
        let mark = |text: String, tone| Status { text, tone };
        let mut out = Vec::new();
        match self.exit_code {
            Some(0) => out.push(mark("exit 0".to_owned(), Tone::Good)),
            Some(c) => out.push(mark(format!("exit {c}"), Tone::Bad)),
            None => {}
        }
        if is_error {
            out.push(mark("error".to_owned(), Tone::Bad));
        }
        if self.interrupted {
            out.push(mark("interrupted".to_owned(), Tone::Bad));
        }
        if let Some(t) = &self.wall_time {
            out.push(mark(t.clone(), Tone::Neutral));
        }
        out
    }
}

/// A duration for people: `413 ms`, `2.4 s`, `3 min 05 s` (integers
/// only: no float printer).
pub fn duration_text(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{}.{} s", ms / 1000, ms % 1000 / 100),
        _ => format!("{} min {:02} s", ms / 60_000, ms % 60_000 / 1000),
    }
}

/// Codex: header lines, then `Output:` on a line of its own.
fn codex_frame(text: &str) -> Option<ToolOutput> {
    let mut out = ToolOutput::default();
    let mut rest = text;
    let mut headers = 0;
    loop {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if line == "Output:" {
            if headers == 0 {
                return None;
            }
            out.output = after.to_owned();
            return Some(out);
        }
        if let Some(code) = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
        {
            out.exit_code = Some(code.trim().parse().ok()?);
        } else if let Some(t) = line.strip_prefix("Wall time: ") {
            out.wall_time = Some(t.to_owned());
        } else if !(line.starts_with("Chunk ID: ")
            || line.starts_with("Original token count: ")
            || line.starts_with("Total output lines: "))
        {
            return None;
        }
        headers += 1;
        if after.is_empty() || headers > 8 {
            return None;
        }
        rest = after;
    }
}

/// Gemini CLI: `Command:` … `Output:` …, then the trailer from the last
/// `\nError:` on.
fn gemini_frame(text: &str) -> Option<ToolOutput> {
    if !text.starts_with("Command: ") {
        return None;
    }
    let start = text.find("\nOutput: ")? + "\nOutput: ".len();
    let trailer_at = text.rfind("\nError: ").filter(|&i| i + 1 >= start)?;
    let mut out = ToolOutput {
        output: text[start..trailer_at].to_owned(),
        ..ToolOutput::default()
    };
    if out.output == "(empty)" {
        out.output.clear();
    }
    let none = |v: &str| v.trim() == "(none)" || v.trim().is_empty();
    for line in text[trailer_at + 1..].lines() {
        if let Some(e) = line.strip_prefix("Error: ").filter(|e| !none(e)) {
            out.stderr = Some(e.to_owned());
        } else if let Some(c) = line.strip_prefix("Exit Code: ").filter(|c| !none(c)) {
            out.exit_code = c.trim().parse().ok();
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_frames() {
        let o = ToolOutput::of("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom\n");
        assert_eq!(o.exit_code, Some(1));
        assert_eq!(o.wall_time.as_deref(), Some("0.2 seconds"));
        assert_eq!(o.output, "boom\n");
        let o = ToolOutput::of(
            "Chunk ID: 2d\nWall time: 0.0 seconds\nProcess exited with code 2\nOutput:\nboom",
        );
        assert_eq!((o.exit_code, o.output.as_str()), (Some(2), "boom"));
        // Text that merely mentions a header is left alone.
        let plain = "Output:\nnot a frame";
        assert_eq!(ToolOutput::of(plain).output, plain);
        let plain = "Exit code: soon\nOutput:\nx";
        assert_eq!(ToolOutput::of(plain).output, plain);
    }

    #[test]
    fn a_runs_report_fills_what_the_output_lacks() {
        let run = ToolRun {
            call_id: "c".into(),
            exit_code: Some(2),
            duration_ms: Some(61_500),
            stdout: Some("out\n".into()),
            stderr: Some("err\n".into()),
            ..ToolRun::default()
        };
        // The streams apart replace the output that holds both.
        let o = ToolOutput::of("out\nerr\n").with_run(&run);
        assert_eq!(
            (o.output.as_str(), o.stderr.as_deref()),
            ("out\n", Some("err\n"))
        );
        assert_eq!(
            (o.exit_code, o.wall_time.as_deref()),
            (Some(2), Some("1 min 01 s"))
        );
        // The output's own framing wins.
        let o =
            ToolOutput::of("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom").with_run(&run);
        assert_eq!(
            (o.exit_code, o.wall_time.as_deref()),
            (Some(1), Some("0.2 seconds"))
        );
        // Only one stream reported: the output stays, stderr is not
        // shown twice.
        let one = ToolRun {
            stdout: None,
            ..run.clone()
        };
        let o = ToolOutput::of("out\nerr\n").with_run(&one);
        assert_eq!((o.output.as_str(), o.stderr), ("out\nerr\n", None));
        // No output written: the report's.
        let o = ToolOutput::default().with_run(&one);
        assert_eq!(o.stderr.as_deref(), Some("err\n"));
        assert_eq!(
            [0, 999, 1_000, 2_350, 59_999, 185_000].map(duration_text),
            ["0 ms", "999 ms", "1.0 s", "2.3 s", "59.9 s", "3 min 05 s"]
        );
    }

    #[test]
    fn a_status_says_how_the_run_ended() {
        let o = ToolOutput::of("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom");
        let words: Vec<(String, Tone)> = o
            .status(true)
            .into_iter()
            .map(|s| (s.text, s.tone))
            .collect();
        assert_eq!(
            words,
            [
                ("exit 1".into(), Tone::Bad),
                ("error".into(), Tone::Bad),
                ("0.2 seconds".into(), Tone::Neutral)
            ]
        );
        let ok = ToolOutput {
            exit_code: Some(0),
            ..ToolOutput::default()
        };
        assert_eq!(ok.status(false)[0].tone, Tone::Good);
        assert!(ToolOutput::of("plain").status(false).is_empty());
    }

    #[test]
    fn gemini_frames() {
        let text = "Command: ls\nDirectory: (root)\nOutput: a\nb\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 1";
        let o = ToolOutput::of(text);
        assert_eq!(o.output, "a\nb");
        assert_eq!((o.exit_code, o.stderr), (Some(0), None));
        let o = ToolOutput::of(
            "Command: x\nDirectory: (root)\nOutput: (empty)\nError: not found\nExit Code: 127",
        );
        assert_eq!(o.output, "");
        assert_eq!(o.stderr.as_deref(), Some("not found"));
        assert_eq!(o.exit_code, Some(127));
    }
}
