//! A tool call as the tool it is: a shell command, a file read or written,
//! an edit, a search, a subagent, a web fetch, an MCP tool, a plan; so
//! views show `$ ls` rather than `{"command":["bash","-lc","ls"]}`.
//!
//! The names and argument keys are each agent's own: Claude Code (`Bash`,
//! `Read`, `Write`, `Edit`, `MultiEdit`, `Grep`, `Glob`, `LS`, `Task`,
//! `Agent`, `WebFetch`, `WebSearch`, `TodoWrite`, `mcp__server__tool`),
//! Codex (`shell`, `exec_command`, `local_shell`, `apply_patch`,
//! `update_plan`), pi (`bash`, `read`, `write`, `edit`), Gemini CLI
//! (`run_shell_command`, `read_file`, `write_file`, `replace`, `glob`,
//! `search_file_content`, `list_directory`, `web_fetch`,
//! `google_web_search`, `write_todos`); event streams and provider lists
//! name tools freely and get the same rules by name. A call that fits none,
//! or whose arguments lack what its kind needs, is [`ToolView::Other`].

use serde_json::Value;

/// What a tool call does, read from its name and arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolView {
    /// A shell command.
    Shell {
        /// The command as typed: an argv joined with quotes where needed,
        /// `bash -lc X` shown as `X`.
        command: String,
        /// The directory it ran in, where the call says.
        cwd: Option<String>,
        /// What the model said it is for (Claude Code, Gemini CLI).
        description: Option<String>,
    },
    /// A file (or part of one) read.
    Read {
        /// The file.
        path: String,
        /// The lines asked for (`lines 10–30`, `from line 10`), if not all.
        range: Option<String>,
    },
    /// A file written whole.
    Write {
        /// The file.
        path: String,
        /// What was written.
        content: String,
        /// The language its extension names (see [`language_of`]).
        language: Option<&'static str>,
    },
    /// An edit or a patch: views show it as a diff
    /// ([`crate::diff_of_tool_call`]).
    Edit {
        /// The file, where the call names one (a patch names its own).
        path: Option<String>,
    },
    /// A search over files: a grep, a glob, a listing.
    Search {
        /// The pattern (a regex, a glob), empty for a listing.
        pattern: String,
        /// Where it looks.
        path: Option<String>,
        /// Other options as written (`glob`, `-n`, `output_mode`).
        options: Vec<(String, String)>,
    },
    /// A subagent run with a prompt.
    Agent {
        /// The prompt, markdown.
        prompt: String,
        /// Its short description.
        description: Option<String>,
        /// The kind of agent (Claude Code `subagent_type`).
        agent_type: Option<String>,
    },
    /// A web fetch or search.
    Web {
        /// The URL fetched.
        url: Option<String>,
        /// The query searched for.
        query: Option<String>,
        /// What the fetch was asked to extract.
        prompt: Option<String>,
    },
    /// A tool of an MCP server (`mcp__server__tool`).
    Mcp {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Its arguments, readable (see [`ToolView::Other`]).
        fields: Vec<(String, String)>,
    },
    /// A plan or todo list written.
    Plan {
        /// Each step with its status (`pending`, `in_progress`, `completed`).
        steps: Vec<(String, String)>,
    },
    /// Any other tool: its arguments as key and value, strings as they
    /// read (no quotes, no `\n`), other values as indented JSON.
    Other {
        /// The arguments in order.
        fields: Vec<(String, String)>,
    },
}

impl ToolView {
    /// The view of a call to `name` with `arguments`.
    pub fn of(name: &str, arguments: &Value) -> ToolView {
        let lower = name.to_ascii_lowercase();
        if let Some(rest) = name.strip_prefix("mcp__") {
            let (server, tool) = rest.split_once("__").unwrap_or((rest, ""));
            return ToolView::Mcp {
                server: server.to_owned(),
                tool: tool.to_owned(),
                fields: fields(arguments),
            };
        }
        let s = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::to_owned);
        let first = |keys: &[&str]| keys.iter().find_map(|k| s(k));
        let path = first(&[
            "file_path",
            "path",
            "filePath",
            "absolute_path",
            "dir_path",
            "directory",
        ]);
        let view = match lower.as_str() {
            "bash" | "shell" | "exec_command" | "local_shell" | "local_shell_call"
            | "run_shell_command" | "shell_command" | "container.exec" | "execute_command"
            | "run_terminal_cmd" => shell(arguments),
            "read" | "read_file" | "view" | "read_many_files" => path.map(|path| ToolView::Read {
                path,
                range: range(arguments),
            }),
            "write" | "write_file" | "create_file" | "create" => {
                match (path, first(&["content", "contents", "file_text"])) {
                    (Some(path), Some(content)) => Some(ToolView::Write {
                        language: language_of(&path),
                        path,
                        content,
                    }),
                    _ => None,
                }
            }
            "edit"
            | "multiedit"
            | "replace"
            | "str_replace"
            | "str_replace_editor"
            | "str_replace_based_edit_tool"
            | "apply_patch"
            | "edit_file"
            | "notebookedit" => Some(ToolView::Edit { path }),
            "grep"
            | "search_file_content"
            | "glob"
            | "find_files"
            | "ls"
            | "list_directory"
            | "codebase_search"
            | "file_search"
            | "grep_search"
            | "find" => {
                let pattern = first(&["pattern", "query", "regex", "glob"]).unwrap_or_default();
                let skip = [
                    "pattern",
                    "query",
                    "regex",
                    "path",
                    "file_path",
                    "dir_path",
                    "directory",
                ];
                let options = fields(arguments)
                    .into_iter()
                    .filter(|(k, _)| {
                        !skip.contains(&k.as_str()) || (k == "glob" && pattern.is_empty())
                    })
                    .collect();
                Some(ToolView::Search {
                    pattern,
                    path,
                    options,
                })
            }
            "task" | "agent" | "spawn_agent" | "subagent" | "dispatch_agent" => {
                let prompt = first(&["prompt", "message", "task"]);
                let description = s("description");
                let agent_type = first(&["subagent_type", "agent_type"]);
                // A call cut short may have lost its prompt: still an agent.
                (prompt.is_some() || description.is_some() || agent_type.is_some()).then(|| {
                    ToolView::Agent {
                        prompt: prompt.unwrap_or_default(),
                        description,
                        agent_type,
                    }
                })
            }
            "webfetch" | "web_fetch" | "fetch" | "websearch" | "web_search"
            | "google_web_search" | "web_search_preview" => {
                let url = first(&["url", "uri"]).or_else(|| {
                    // Gemini's web_fetch takes a prompt holding the URLs.
                    s("prompt").and_then(|p| {
                        p.split_whitespace()
                            .find(|w| w.starts_with("http://") || w.starts_with("https://"))
                            .map(str::to_owned)
                    })
                });
                Some(ToolView::Web {
                    url,
                    query: s("query"),
                    prompt: s("prompt"),
                })
            }
            "todowrite" | "update_plan" | "write_todos" | "todo_write" => plan(arguments),
            _ => None,
        };
        // A shell call whose command is a patch is an edit.
        match view {
            Some(ToolView::Shell { ref command, .. }) if command.starts_with("apply_patch") => {
                ToolView::Edit { path: None }
            }
            Some(view) => view,
            None => ToolView::Other {
                fields: fields(arguments),
            },
        }
    }

    /// The line a view heads the call's block with: `$ ls -la`,
    /// `Read src/main.rs`, `Grep "fn main" in src`.
    pub fn title(&self, name: &str) -> String {
        match self {
            ToolView::Shell { command, .. } => {
                let first = command.lines().next().unwrap_or("");
                let more = if command.contains('\n') { " …" } else { "" };
                format!("$ {first}{more}")
            }
            ToolView::Read { path, range } => match range {
                Some(r) => format!("{name} {path} ({r})"),
                None => format!("{name} {path}"),
            },
            ToolView::Write { path, .. } => format!("{name} {path}"),
            ToolView::Edit { path: Some(p) } => format!("{name} {p}"),
            ToolView::Edit { path: None } => name.to_owned(),
            ToolView::Search { pattern, path, .. } => {
                let mut t = name.to_owned();
                if !pattern.is_empty() {
                    t.push_str(&format!(" {pattern:?}"));
                }
                if let Some(p) = path {
                    t.push_str(&format!(" in {p}"));
                }
                t
            }
            ToolView::Agent {
                description,
                agent_type,
                ..
            } => {
                let mut t = name.to_owned();
                if let Some(a) = agent_type {
                    t.push_str(&format!(" ({a})"));
                }
                if let Some(d) = description {
                    t.push_str(&format!(": {d}"));
                }
                t
            }
            ToolView::Web { url, query, .. } => match (url, query) {
                (Some(u), _) => format!("{name} {u}"),
                (None, Some(q)) => format!("{name} {q:?}"),
                (None, None) => name.to_owned(),
            },
            ToolView::Mcp { server, tool, .. } => format!("{server} · {tool}"),
            ToolView::Plan { steps } => format!("{name} · {} steps", steps.len()),
            ToolView::Other { .. } => name.to_owned(),
        }
    }
}

/// A shell call's command, directory and description.
fn shell(arguments: &Value) -> Option<ToolView> {
    // Codex `local_shell_call` puts them under `action`.
    let a = arguments
        .get("action")
        .filter(|a| a.get("command").is_some())
        .unwrap_or(arguments);
    let command = match a.get("command").or(a.get("cmd")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            command_of_argv(&argv)
        }
        _ => return None,
    };
    let s = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(ToolView::Shell {
        command,
        cwd: s("workdir")
            .or_else(|| s("cwd"))
            .or_else(|| s("working_directory"))
            .or_else(|| s("directory"))
            .or_else(|| s("dir_path")),
        description: s("description").or_else(|| s("justification")),
    })
}

/// An argv as a person would type it: `bash -lc SCRIPT` (and `sh -c`,
/// `zsh -lc`, …) is the script; other words are quoted where the shell
/// would need it.
pub fn command_of_argv(argv: &[&str]) -> String {
    if let [shell, flag, script] = argv {
        let shell = shell.rsplit('/').next().unwrap_or(shell);
        let is_shell = matches!(shell, "bash" | "sh" | "zsh" | "dash" | "fish" | "ksh");
        let is_command_flag = flag.starts_with('-') && flag.ends_with('c');
        if is_shell && is_command_flag {
            return (*script).to_owned();
        }
    }
    if let [shell, flag, script] = argv {
        if matches!(
            *shell,
            "powershell" | "pwsh" | "powershell.exe" | "cmd.exe" | "cmd"
        ) && matches!(flag.to_ascii_lowercase().as_str(), "-command" | "/c" | "-c")
        {
            return (*script).to_owned();
        }
    }
    argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

/// A word quoted for a POSIX shell when it holds anything but plain
/// characters.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The lines a read asks for: Claude Code and pi `offset`/`limit`, Gemini
/// `offset`/`limit`, editors' `view_range`.
fn range(arguments: &Value) -> Option<String> {
    let n = |k: &str| arguments.get(k).and_then(Value::as_u64);
    if let Some([a, b]) = arguments
        .get("view_range")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_i64).collect::<Vec<_>>())
        .as_deref()
    {
        return Some(format!("lines {a}–{b}"));
    }
    let from = n("offset").or(n("start_line"));
    let limit = n("limit");
    let to = n("end_line");
    match (from, limit, to) {
        (Some(f), Some(l), _) => Some(format!("lines {f}–{}", f + l.saturating_sub(1))),
        (Some(f), None, Some(t)) => Some(format!("lines {f}–{t}")),
        (None, Some(l), _) => Some(format!("first {l} lines")),
        (Some(f), None, None) => Some(format!("from line {f}")),
        (None, None, _) => None,
    }
}

/// A todo list or plan: each item's text and status.
fn plan(arguments: &Value) -> Option<ToolView> {
    let items = arguments
        .get("todos")
        .or(arguments.get("plan"))
        .and_then(Value::as_array)?;
    let steps = items
        .iter()
        .map(|i| {
            let text = ["content", "step", "description", "text"]
                .iter()
                .find_map(|k| i.get(*k).and_then(Value::as_str))
                .unwrap_or_default();
            let status = i.get("status").and_then(Value::as_str).unwrap_or_default();
            (status.to_owned(), text.to_owned())
        })
        .collect();
    Some(ToolView::Plan { steps })
}

/// Arguments as key and value: a string as it reads, other values as
/// indented JSON; a whole argument that is not an object under `input`.
fn fields(arguments: &Value) -> Vec<(String, String)> {
    match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect(),
        Value::Null => Vec::new(),
        other => vec![("input".to_owned(), value_text(other))],
    }
}

/// A JSON value as a person reads it: strings unquoted and unescaped.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The language a file's extension names, as the short name views use
/// for highlighting (`rust`, `python`, `js`, `json`, `shell`, `markdown`,
/// …); `None` when unknown.
pub fn language_of(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e)?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "js" | "mjs" | "cjs" | "jsx" => "js",
        "ts" | "tsx" | "mts" | "cts" => "ts",
        "json" | "jsonl" => "json",
        "sh" | "bash" | "zsh" => "shell",
        "md" | "markdown" => "markdown",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "swift" => "swift",
        "rb" => "ruby",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "html" | "htm" | "xml" | "svg" => "html",
        "css" | "scss" => "css",
        "sql" => "sql",
        "lua" => "lua",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argv_is_joined_as_typed() {
        assert_eq!(
            command_of_argv(&["bash", "-lc", "ls -la | head"]),
            "ls -la | head"
        );
        assert_eq!(command_of_argv(&["/bin/zsh", "-c", "x"]), "x");
        assert_eq!(
            command_of_argv(&["rg", "-n", "fn main", "src/"]),
            "rg -n 'fn main' src/"
        );
        assert_eq!(command_of_argv(&["echo", "it's"]), r"echo 'it'\''s'");
    }

    #[test]
    fn reads_and_ranges() {
        let v = ToolView::of(
            "Read",
            &json!({"file_path": "/a/b.rs", "offset": 10, "limit": 21}),
        );
        assert_eq!(
            v,
            ToolView::Read {
                path: "/a/b.rs".into(),
                range: Some("lines 10–30".into())
            }
        );
        assert_eq!(v.title("Read"), "Read /a/b.rs (lines 10–30)");
    }

    #[test]
    fn unknown_tools_read_as_fields() {
        let v = ToolView::of("Frobnicate", &json!({"text": "a\nb", "n": [1]}));
        let ToolView::Other { fields } = v else {
            panic!("{v:?}")
        };
        assert_eq!(fields[1], ("text".into(), "a\nb".into()));
        assert_eq!(fields[0].1, "[\n  1\n]");
    }

    #[test]
    fn languages() {
        assert_eq!(language_of("src/main.rs"), Some("rust"));
        assert_eq!(language_of("C:\\x\\Y.PY"), Some("python"));
        assert_eq!(language_of("Makefile"), None);
    }
}
