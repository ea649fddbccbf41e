//! Edit and patch tool calls as diffs, for every view (the viewer's
//! blocks, `retrace show`).
//!
//! Claude Code's `Edit`/`MultiEdit` (`file_path`, `old_string`,
//! `new_string`), pi's `edit` (`path`, `oldText`, `newText`), `str_replace`
//! editors, and patch texts (`apply_patch` and friends, `*** Begin Patch` or
//! unified diffs) become lines marked added, removed or kept.

use serde_json::Value;

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line both sides have.
    Same(String),
    /// A line the edit adds.
    Added(String),
    /// A line the edit removes.
    Removed(String),
    /// A file name or hunk header.
    Header(String),
}

/// Lines of the edit a tool call makes, if it is an edit.
pub fn of_tool_call(name: &str, arguments: &Value) -> Option<Vec<Line>> {
    let s = |k: &str| arguments.get(k).and_then(Value::as_str);
    let path = s("file_path").or(s("path")).or(s("filePath"));
    // A patch text, given as the whole argument or as a field.
    let patch = arguments
        .as_str()
        .or(s("patch"))
        .or(s("input"))
        .or_else(|| {
            arguments
                .get("command")
                .and_then(Value::as_array)
                .and_then(|c| {
                    c.iter()
                        .filter_map(Value::as_str)
                        .find(|t| t.contains("*** Begin Patch"))
                })
        });
    if let Some(patch) = patch.filter(|p| looks_like_patch(p)) {
        return Some(patch_lines(patch));
    }
    let pairs: Vec<(&str, &str)> = match arguments.get("edits").and_then(Value::as_array) {
        // MultiEdit: several replacements in one file.
        Some(edits) => edits
            .iter()
            .filter_map(|e| {
                let old = e.get("old_string").or(e.get("oldText"))?.as_str()?;
                let new = e.get("new_string").or(e.get("newText"))?.as_str()?;
                Some((old, new))
            })
            .collect(),
        None => {
            let old = s("old_string").or(s("oldText")).or(s("old_str"));
            let new = s("new_string").or(s("newText")).or(s("new_str"));
            match (old, new) {
                (Some(o), Some(n)) => vec![(o, n)],
                _ => return None,
            }
        }
    };
    if pairs.is_empty() || !name_is_edit(name) {
        return None;
    }
    let mut out = Vec::new();
    if let Some(p) = path {
        out.push(Line::Header(p.to_owned()));
    }
    for (i, (old, new)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(Line::Header("…".to_owned()));
        }
        out.extend(lines(old, new));
    }
    Some(out)
}

fn name_is_edit(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("edit") || n.contains("replace") || n.contains("write") || n == "str_replace_editor"
}

fn looks_like_patch(text: &str) -> bool {
    text.contains("*** Begin Patch") || (text.contains("\n@@") && text.contains("\n+"))
}

/// A patch text as diff lines, by its leading characters.
fn patch_lines(patch: &str) -> Vec<Line> {
    patch
        .lines()
        .filter(|l| !matches!(*l, "*** Begin Patch" | "*** End Patch"))
        .map(|l| {
            if l.starts_with("*** ")
                || l.starts_with("@@")
                || l.starts_with("+++ ")
                || l.starts_with("--- ")
            {
                Line::Header(l.to_owned())
            } else if let Some(rest) = l.strip_prefix('+') {
                Line::Added(rest.to_owned())
            } else if let Some(rest) = l.strip_prefix('-') {
                Line::Removed(rest.to_owned())
            } else {
                Line::Same(l.strip_prefix(' ').unwrap_or(l).to_owned())
            }
        })
        .collect()
}

/// The line diff of `old` into `new`: common head and tail kept, the middle
/// by longest common subsequence (or all removed then all added when the
/// middle is too big to compare cheaply).
pub fn lines(old: &str, new: &str) -> Vec<Line> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<Line> = a[..head]
        .iter()
        .map(|l| Line::Same((*l).to_owned()))
        .collect();
    if ma.len() * mb.len() > 250_000 {
        out.extend(ma.iter().map(|l| Line::Removed((*l).to_owned())));
        out.extend(mb.iter().map(|l| Line::Added((*l).to_owned())));
    } else {
        out.extend(lcs(ma, mb));
    }
    out.extend(
        a[a.len() - tail..]
            .iter()
            .map(|l| Line::Same((*l).to_owned())),
    );
    out
}

fn lcs(a: &[&str], b: &[&str]) -> Vec<Line> {
    let (n, m) = (a.len(), b.len());
    // table[i][j]: LCS length of a[i..] and b[j..].
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if a[i] == b[j] {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Line::Same(a[i].to_owned()));
            i += 1;
            j += 1;
        } else if i < n && (j == m || table[at(i + 1, j)] >= table[at(i, j + 1)]) {
            // Removals before additions, as diffs are read.
            out.push(Line::Removed(a[i].to_owned()));
            i += 1;
        } else {
            out.push(Line::Added(b[j].to_owned()));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_edit_is_a_line_diff() {
        let args = json!({"file_path": "/p/a.rs", "old_string": "fn a() {\n    1\n}", "new_string": "fn a() {\n    2\n}"});
        let d = of_tool_call("Edit", &args).unwrap();
        assert_eq!(
            d,
            [
                Line::Header("/p/a.rs".into()),
                Line::Same("fn a() {".into()),
                Line::Removed("    1".into()),
                Line::Added("    2".into()),
                Line::Same("}".into()),
            ]
        );
    }

    #[test]
    fn pi_edit_and_multi_edit() {
        let d = of_tool_call(
            "edit",
            &json!({"path": "x.md", "oldText": "a\nb", "newText": "a\nc\nb"}),
        )
        .unwrap();
        assert_eq!(d[2], Line::Added("c".into()));
        let d = of_tool_call(
            "MultiEdit",
            &json!({"file_path": "f", "edits": [{"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q"}]}),
        )
        .unwrap();
        assert_eq!(d.len(), 6);
        assert_eq!(d[3], Line::Header("…".into()));
    }

    #[test]
    fn codex_patch_text() {
        let patch = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n fn main() {\n-    old();\n+    new();\n }\n*** End Patch";
        let d = of_tool_call("apply_patch", &json!(patch)).unwrap();
        assert_eq!(d[0], Line::Header("*** Update File: src/main.rs".into()));
        assert!(d.contains(&Line::Removed("    old();".into())));
        assert!(d.contains(&Line::Added("    new();".into())));
        let shell = json!({"command": ["apply_patch", patch]});
        assert!(of_tool_call("shell", &shell).is_some());
    }

    #[test]
    fn other_tools_are_not_diffs() {
        assert!(of_tool_call("Bash", &json!({"command": "ls"})).is_none());
        assert!(of_tool_call("Read", &json!({"file_path": "x"})).is_none());
    }
}
