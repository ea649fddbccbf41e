//! Where `serve` looks for sessions: the folders named on the command
//! line, or else the agents' folders under the home folder
//! (retrace-io's `AGENT_ROOTS`) and the store's root that exist. The home
//! folder, `RETRACE_STORE` and the current folder come in as arguments,
//! so tests point them at a scratch folder and never read the real ones.

use std::path::{Path, PathBuf};

use retrace_io::AGENT_ROOTS;

/// The store's folder when `RETRACE_STORE` is not set, under the current
/// folder (as `retrace store` takes it).
pub const STORE_DEFAULT: &str = "sessions";

/// A folder sessions are found under, with the name the index page groups
/// it by (`~/.claude/projects`, or the folder as given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub label: String,
    pub path: PathBuf,
}

/// What the default roots are looked for from.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$RETRACE_STORE`.
    pub store: Option<PathBuf>,
    /// The current folder (the default store's `./sessions`).
    pub cwd: Option<PathBuf>,
}

/// The roots of `dirs` when any is named (each as given, whether or not
/// it exists: the catalog says which cannot be read), else the default
/// roots that exist under `places`.
pub fn roots(dirs: &[PathBuf], places: &Places) -> Vec<Root> {
    if !dirs.is_empty() {
        return dirs
            .iter()
            .map(|d| Root {
                label: d.display().to_string(),
                path: d.clone(),
            })
            .collect();
    }
    let mut found = Vec::new();
    if let Some(home) = &places.home {
        for rel in AGENT_ROOTS {
            found.push(Root {
                label: format!("~/{rel}"),
                path: home.join(rel),
            });
        }
    }
    let store = match (&places.store, &places.cwd) {
        (Some(store), _) => Some(store.clone()),
        (None, Some(cwd)) => Some(cwd.join(STORE_DEFAULT)),
        (None, None) => None,
    };
    if let Some(store) = store {
        found.push(Root {
            label: format!("store {}", store.display()),
            path: store,
        });
    }
    found.retain(|r| r.path.is_dir());
    found
}

/// A session's project, read from its path: the folder holding its file
/// under its root (a Claude Code project folder, pi's `--cwd--` folder),
/// less what agents add below a project (Gemini CLI's `chats`, Codex's
/// dated `YYYY/MM/DD` tree); a file directly in the root belongs to the
/// root itself.
pub fn project_of(root: &Root, file: &Path) -> String {
    let rel = file.strip_prefix(&root.path).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    while parts
        .last()
        .is_some_and(|p| p == "chats" || (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    {
        parts.pop();
    }
    match parts.is_empty() {
        true => root.label.clone(),
        false => format!("{}/{}", root.label, parts.join("/")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_folders_win_and_defaults_must_exist() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude/projects")).unwrap();
        std::fs::create_dir_all(home.path().join("work/sessions")).unwrap();
        let places = Places {
            home: Some(home.path().to_owned()),
            store: None,
            cwd: Some(home.path().join("work")),
        };
        let got: Vec<String> = roots(&[], &places).into_iter().map(|r| r.label).collect();
        let store = home.path().join("work/sessions");
        assert_eq!(
            got,
            [
                "~/.claude/projects".to_owned(),
                format!("store {}", store.display())
            ]
        );
        let named = roots(&[PathBuf::from("/nowhere")], &places);
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].path, Path::new("/nowhere"));
    }

    #[test]
    fn a_project_is_the_first_folder_under_the_root() {
        let root = Root {
            label: "~/.claude/projects".into(),
            path: "/h/.claude/projects".into(),
        };
        let p = |f: &str| project_of(&root, Path::new(f));
        assert_eq!(
            p("/h/.claude/projects/-w-app/s.jsonl"),
            "~/.claude/projects/-w-app"
        );
        assert_eq!(p("/h/.claude/projects/s.jsonl"), "~/.claude/projects");
        assert_eq!(
            p("/h/.claude/projects/2025/11/17/r.jsonl"),
            "~/.claude/projects"
        );
        assert_eq!(
            p("/h/.claude/projects/abc/chats/s.json"),
            "~/.claude/projects/abc"
        );
        assert_eq!(
            p("/h/.claude/projects/x/-w-app/s.jsonl"),
            "~/.claude/projects/x/-w-app"
        );
    }
}
