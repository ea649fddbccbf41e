//! A tool call as a collapsed block: `<details>` whose `<summary>` names
//! the tool and what it did on one line (the core's [`ToolView`] title)
//! with how it ended; inside, what it was asked, by the tool's kind (a
//! shell command, a file written, an edit as a diff, a plan as a task
//! list, arguments as key and value), then its result: output and stderr
//! in fences, the images that came with it. The block is left open for
//! what the caller nests in it (a subagent's run); [`close`] ends it.

use std::io::{self, Write};

use serde_json::Value;

use super::text::{code, cut, fenced, html, inline, prose};
use crate::reading::ansi;
use crate::reading::visible;
use crate::{
    diff_of_tool_call, language_of, value_text, DiffLine, RowResult, Tone, ToolOutput, ToolView,
};

/// Characters of a call's title kept in its summary line.
const TITLE_CHARS: usize = 120;

/// Why a call has no result to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// None up to the end of the branch: the call was left open.
    Never,
    /// None within the rows pairing looks at
    /// ([`PAIRING_REACH`](crate::PAIRING_REACH)).
    NotNear,
}

/// Opens the block of the call `name` with `arguments`, answered by
/// `answer`, and writes what it asked and what came back.
pub fn open(
    out: &mut dyn Write,
    name: &str,
    arguments: &Value,
    answer: Result<&RowResult, Missing>,
) -> io::Result<()> {
    let view = ToolView::of(name, arguments);
    let title = view.title(name);
    // The tool's name leads; a title that starts with it says the rest.
    let title = title.strip_prefix(name).unwrap_or(&title).trim_start();
    let output = answer.ok().map(RowResult::framed);
    let mut status: Vec<String> = Vec::new();
    if let (Some(o), Ok(a)) = (&output, answer) {
        for s in o.status(a.is_error) {
            status.push(match s.tone {
                Tone::Bad => format!("✗ {}", s.text),
                _ => s.text,
            });
        }
    }
    match answer {
        Err(Missing::Never) => status.push("✗ no result".to_owned()),
        Err(Missing::NotNear) => status.push("result not nearby".to_owned()),
        Ok(_) => {}
    }
    let mut summary = format!("<code>{}</code>", html(&visible(name)));
    if !title.is_empty() {
        summary.push(' ');
        summary.push_str(&html(&cut(title, TITLE_CHARS)));
    }
    for s in &status {
        summary.push_str(" · ");
        summary.push_str(&html(s));
    }
    writeln!(out, "<details>\n<summary>{summary}</summary>\n")?;
    input(out, name, arguments, &view)?;
    match (answer, output) {
        (Ok(a), Some(o)) => {
            let language = match &view {
                ToolView::Read { path, .. } => language_of(path).unwrap_or("text"),
                _ => "text",
            };
            result(out, a, &o, language)
        }
        (Err(Missing::Never), _) => {
            writeln!(out, "*No result on this branch: the call was left open.*\n")
        }
        _ => writeln!(out, "*Its result is not among the rows near it.*\n"),
    }
}

/// A block for a result whose call is not written before it (cut by a
/// compaction, lost, or on an earlier branch's rows), closed.
pub fn orphan(out: &mut dyn Write, r: &RowResult) -> io::Result<()> {
    let o = r.framed();
    let mut summary = format!("← result of <code>{}</code>", html(&visible(&r.call_id)));
    for s in o.status(r.is_error) {
        summary.push_str(" · ");
        if s.tone == Tone::Bad {
            summary.push_str("✗ ");
        }
        summary.push_str(&html(&s.text));
    }
    writeln!(out, "<details>\n<summary>{summary}</summary>\n")?;
    result(out, r, &o, "text")?;
    close(out)
}

/// A result's output and stderr in fences (terminal colours taken out),
/// then the images that came with it.
fn result(out: &mut dyn Write, r: &RowResult, o: &ToolOutput, language: &str) -> io::Result<()> {
    let text = ansi::strip(o.output.trim_end_matches('\n'));
    let stderr = o.stderr.as_deref().filter(|e| !e.trim().is_empty());
    if !text.trim().is_empty() {
        fenced(out, &text, language)?;
    }
    if let Some(err) = stderr {
        writeln!(out, "stderr:\n")?;
        fenced(out, &ansi::strip(err.trim_end_matches('\n')), "text")?;
    }
    for image in &r.images {
        image_line(out, &image.media_type, image.byte_size)?;
    }
    if text.trim().is_empty() && stderr.is_none() && r.images.is_empty() {
        writeln!(out, "*(no output)*\n")?;
    }
    Ok(())
}

/// An image, as the line that says it was there (its bytes are never
/// written).
pub fn image_line(out: &mut dyn Write, media_type: &str, byte_size: u64) -> io::Result<()> {
    writeln!(
        out,
        "*\\[image: {}, {byte_size} bytes\\]*\n",
        inline(media_type)
    )
}

/// Ends a block [`open`] began.
pub fn close(out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "</details>\n")
}

/// What the call asked for, by its kind (a read says it all in its
/// title).
fn input(out: &mut dyn Write, name: &str, arguments: &Value, view: &ToolView) -> io::Result<()> {
    match view {
        ToolView::Shell {
            command,
            cwd,
            description,
        } => {
            if let Some(d) = description {
                writeln!(out, "{}\n", inline(d))?;
            }
            if let Some(c) = cwd {
                writeln!(out, "in {}\n", code(c))?;
            }
            fenced(out, command, "sh")
        }
        ToolView::Read { .. } => Ok(()),
        ToolView::Write {
            content, language, ..
        } => fenced(out, content, language.unwrap_or("text")),
        ToolView::Edit { .. } => match diff_of_tool_call(name, arguments) {
            Some(lines) => {
                let mut text = String::new();
                for l in lines {
                    match l {
                        DiffLine::Same(t) => text.push_str(&format!(" {t}\n")),
                        DiffLine::Added(t) => text.push_str(&format!("+{t}\n")),
                        DiffLine::Removed(t) => text.push_str(&format!("-{t}\n")),
                        DiffLine::Header(t) => text.push_str(&format!("{t}\n")),
                    }
                }
                fenced(out, &text, "diff")
            }
            None => fenced(out, &value_text(arguments), "text"),
        },
        ToolView::Search { options, .. } => {
            for (k, v) in options {
                writeln!(out, "- {}: {}", inline(k), code(v))?;
            }
            if !options.is_empty() {
                writeln!(out)?;
            }
            Ok(())
        }
        ToolView::Agent { prompt, .. } => prose(out, prompt),
        ToolView::Web { url, prompt, .. } => {
            if let Some(u) = url {
                writeln!(out, "{}\n", code(u))?;
            }
            match prompt {
                Some(p) => prose(out, p),
                None => Ok(()),
            }
        }
        ToolView::Plan { steps } => {
            for (status, text) in steps {
                let (mark, note) = match status.as_str() {
                    "completed" => ("x", ""),
                    "in_progress" => (" ", " *(in progress)*"),
                    _ => (" ", ""),
                };
                writeln!(out, "- [{mark}] {}{note}", inline(text))?;
            }
            writeln!(out)
        }
        ToolView::Mcp { fields, .. } | ToolView::Other { fields } => {
            if fields.is_empty() {
                return Ok(());
            }
            let mut text = String::new();
            for (k, v) in fields {
                if v.contains('\n') {
                    text.push_str(&format!("{k}:\n"));
                    for line in v.lines() {
                        text.push_str(&format!("  {line}\n"));
                    }
                } else {
                    text.push_str(&format!("{k}: {v}\n"));
                }
            }
            fenced(out, &text, "text")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(output: &str, is_error: bool) -> RowResult {
        RowResult::new(1, "c1".into(), output.into(), is_error)
    }

    fn block(name: &str, arguments: Value, answer: Result<&RowResult, Missing>) -> String {
        let mut out = Vec::new();
        open(&mut out, name, &arguments, answer).unwrap();
        close(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_shell_call_with_its_output() {
        let md = block(
            "Bash",
            json!({"command": "ls <dir>", "description": "List *files*"}),
            Ok(&result("a\nb\n", false)),
        );
        assert_eq!(
            md,
            "<details>\n<summary><code>Bash</code> $ ls &lt;dir&gt;</summary>\n\n\
             List \\*files\\*\n\n```sh\nls <dir>\n```\n\n```text\na\nb\n```\n\n</details>\n\n"
        );
    }

    #[test]
    fn errors_and_open_calls_are_marked_in_the_summary() {
        let codex = result(
            "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom\n",
            false,
        );
        let md = block("shell", json!({"command": ["ls"]}), Ok(&codex));
        assert!(
            md.starts_with(
                "<details>\n<summary><code>shell</code> $ ls · ✗ exit 2 · 0.1 seconds</summary>"
            ),
            "{md}"
        );
        let md = block("Read", json!({"file_path": "a.rs"}), Ok(&result("x", true)));
        assert!(md.contains("a.rs · ✗ error</summary>"), "{md}");
        assert!(md.contains("```rust\nx\n```"), "{md}");
        let md = block("Read", json!({"file_path": "a.rs"}), Err(Missing::Never));
        assert!(md.contains("· ✗ no result</summary>"), "{md}");
        assert!(md.contains("*No result on this branch"), "{md}");
    }

    #[test]
    fn output_that_holds_fences_and_tags_stays_inside() {
        let output = "```\n</details>\n</summary>\n````";
        let md = block(
            "Bash",
            json!({"command": "cat x.md"}),
            Ok(&result(output, false)),
        );
        assert!(
            md.contains(&format!("`````text\n{output}\n`````\n\n</details>")),
            "{md}"
        );
    }

    #[test]
    fn edits_plans_and_other_tools() {
        let md = block(
            "Edit",
            json!({"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
            Ok(&result("ok", false)),
        );
        assert!(md.contains("```diff\n"), "{md}");
        assert!(md.contains("-one\n+two\n"), "{md}");
        let md = block(
            "TodoWrite",
            json!({"todos": [{"content": "ship *it*", "status": "completed"}, {"content": "test", "status": "in_progress"}]}),
            Ok(&result("", false)),
        );
        assert!(
            md.contains("- [x] ship \\*it\\*\n- [ ] test *(in progress)*\n"),
            "{md}"
        );
        assert!(md.contains("*(no output)*"), "{md}");
        let md = block(
            "frobnicate",
            json!({"level": 3, "note": "two\nlines"}),
            Ok(&result("done", false)),
        );
        assert!(
            md.contains("```text\nlevel: 3\nnote:\n  two\n  lines\n```"),
            "{md}"
        );
    }
}
