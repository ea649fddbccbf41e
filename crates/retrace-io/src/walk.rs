//! A folder tree to its sessions: the walk that lists the names, the first
//! lines the core asks for, and the core's `split_sessions`, which decides
//! which files make one session (a Claude Code session with its subagent
//! runs, a Codex rollout with its sub-agents', a Gemini CLI session split
//! over files, a store session's event stream).
//!
//! The walk goes down [`MAX_DEPTH`] folders (a Codex `sessions/YYYY/MM/DD`
//! tree and a Gemini `tmp/<hash>/chats/<parent>` tree fit), does not follow
//! links to folders (no loops), and passes over hidden folders, git
//! repositories (a store session's `checkpoints.git`) and `node_modules`.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use retrace_core::{needs_head, split_sessions, HEAD_BYTES};

use crate::error::{FileError, FileResult};
use crate::open::Input;

/// Where agents keep their sessions, under the home folder: what `retrace
/// list` and `retrace serve` look in when given no folder (those that
/// exist).
pub const AGENT_ROOTS: &[&str] = &[
    ".claude/projects",
    ".codex/sessions",
    ".codex/archived_sessions",
    ".gemini/tmp",
    ".pi/agent/sessions",
];

/// Folders below the one given that the walk goes into.
pub const MAX_DEPTH: usize = 6;

/// One session found in a folder: its files in reading order (the
/// conversation first), with their side-cars.
#[derive(Debug, Clone)]
pub struct FoundSession {
    pub inputs: Vec<Input>,
}

impl FoundSession {
    /// The path that names it: its first file.
    pub fn path(&self) -> &Path {
        &self.inputs[0].path
    }

    /// The bytes on disk of its files.
    pub fn size(&self) -> u64 {
        self.inputs
            .iter()
            .filter_map(|i| std::fs::metadata(&i.path).ok())
            .map(|m| m.len())
            .sum()
    }
}

/// The sessions under `dir`, in the order of their first file's path.
pub fn sessions_in(dir: &Path) -> FileResult<Vec<FoundSession>> {
    let mut files = Vec::new();
    walk(dir, "", 0, &mut files)?;
    Ok(split(&files))
}

/// The sessions among `files` (names relative to one folder, and paths).
fn split(files: &[(String, PathBuf)]) -> Vec<FoundSession> {
    let heads: Vec<Option<Vec<u8>>> = files
        .iter()
        .map(|(name, path)| needs_head(name).then(|| first_line(path)).flatten())
        .collect();
    let heads: Vec<Option<&[u8]>> = heads.iter().map(Option::as_deref).collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    split_sessions(&names, &heads)
        .into_iter()
        .map(|session| FoundSession {
            inputs: session
                .into_iter()
                .map(|f| Input {
                    path: files[f.file].1.clone(),
                    meta: f.meta.map(|m| files[m].1.clone()),
                    snapshots: f.snapshots.map(|m| files[m].1.clone()),
                })
                .collect(),
        })
        .collect()
}

/// The session a file is the conversation of: the file, its side-cars and
/// a Claude Code session's own `<stem>/subagents` runs beside it. A file
/// that is part of another session (a subagent run) is read alone.
pub fn session_of_file(path: &Path) -> FileResult<FoundSession> {
    let alone = || FoundSession {
        inputs: vec![crate::load::with_side_car(path)],
    };
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(alone());
    };
    let name = name.to_string_lossy().into_owned();
    let Some(sub) = retrace_core::subagent_dir(&name) else {
        return Ok(alone());
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let sub_path = parent.join(&sub);
    if !sub_path.is_dir() {
        return Ok(alone());
    }
    let mut files = vec![(name.clone(), path.to_path_buf())];
    for car in [
        retrace_core::side_car(&name),
        Some(retrace_core::snapshot_side_car(&name)),
    ]
    .into_iter()
    .flatten()
    {
        let car_path = parent.join(&car);
        if car_path.is_file() {
            files.push((car, car_path));
        }
    }
    files_in(&sub_path, &sub, &mut files, &mut Vec::new())?;
    Ok(split(&files)
        .into_iter()
        .find(|s| s.inputs[0].path == path)
        .unwrap_or_else(alone))
}

/// Lists `dir` and the folders under it, down to [`MAX_DEPTH`].
fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    files: &mut Vec<(String, PathBuf)>,
) -> FileResult<()> {
    let mut folders = Vec::new();
    let first = files.len();
    files_in(dir, prefix, files, &mut folders)?;
    if depth < MAX_DEPTH {
        for (name, path) in folders {
            walk(&path, &name, depth + 1, files)?;
        }
        return Ok(());
    }
    // At the limit, a session's own subagent runs still come with it.
    let sessions: Vec<String> = files[first..].iter().map(|(n, _)| n.clone()).collect();
    for name in sessions {
        let Some(sub) = retrace_core::subagent_dir(base_of(&name)) else {
            continue;
        };
        let path = dir.join(&sub);
        if path.is_dir() {
            let under = match prefix {
                "" => sub,
                p => format!("{p}/{sub}"),
            };
            files_in(&path, &under, files, &mut Vec::new())?;
        }
    }
    Ok(())
}

/// A name without its folders.
fn base_of(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The files directly in `dir`, each as its name under `prefix` and its
/// path; the folders to walk into go to `folders`.
fn files_in(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, PathBuf)>,
    folders: &mut Vec<(String, PathBuf)>,
) -> FileResult<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| FileError::from_io(e, dir))? {
        let entry = entry.map_err(|e| FileError::from_io(e, dir))?;
        let base = entry.file_name().to_string_lossy().into_owned();
        let name = match prefix {
            "" => base.clone(),
            p => format!("{p}/{base}"),
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            let skip = base.starts_with('.') || base.ends_with(".git") || base == "node_modules";
            if !skip {
                folders.push((name, path));
            }
        } else if path.is_file() {
            files.push((name, path));
        }
    }
    Ok(())
}

/// The start of a file up to its first line end, decompressed if it is
/// gzip, at most [`HEAD_BYTES`]; `None` if it cannot be read.
fn first_line(path: &Path) -> Option<Vec<u8>> {
    let mut file = File::open(path).ok()?;
    let mut magic = [0u8; 2];
    let gz = file.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    let file = File::open(path).ok()?;
    let reader: Box<dyn Read> = match gz {
        true => Box::new(flate2::read::MultiGzDecoder::new(file)),
        false => Box::new(file),
    };
    let mut head = Vec::new();
    // A gzip stream cut short still gives its start.
    let _ = reader.take(HEAD_BYTES as u64).read_to_end(&mut head);
    if let Some(end) = head.iter().position(|&b| b == b'\n') {
        head.truncate(end);
    }
    Some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus")
            .join(rel)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("retrace-io-walk-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Each session as its files' paths under `root`.
    fn found(root: &Path) -> Vec<Vec<String>> {
        sessions_in(root)
            .unwrap()
            .iter()
            .map(|s| {
                s.inputs
                    .iter()
                    .map(|i| {
                        let rel = i.path.strip_prefix(root).unwrap();
                        rel.to_string_lossy().into_owned()
                    })
                    .collect()
            })
            .collect()
    }

    const PROJECTS: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects";

    #[test]
    fn a_projects_root_holds_each_projects_sessions() {
        let root = corpus(PROJECTS);
        let got = found(&root);
        assert_eq!(got.len(), 11, "{got:#?}");
        // A 2.1 session with its six subagent runs is one session.
        let worktrees = got
            .iter()
            .find(|s| s[0].starts_with("-experiments-worktrees/"))
            .unwrap();
        assert_eq!(worktrees.len(), 7);
        assert!(worktrees[1..]
            .iter()
            .all(|f| f.contains("/subagents/agent-")));
        // A 2.0 agent file goes with the session its sessionId names.
        let recorder = got
            .iter()
            .find(|s| s[0].ends_with("7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"))
            .unwrap();
        assert_eq!(
            recorder[1],
            "-Users-dain-workspace-JSSoundRecorder/agent-3430b97e.jsonl"
        );
        // The two projects copied under a new root: the same sessions.
        let dir = scratch("projects");
        for project in ["-src-deep-manifest", "-src-experiments-claude_p"] {
            copy_tree(&root.join(project), &dir.join(project));
        }
        assert_eq!(
            found(&dir),
            [
                vec![
                    "-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
                    "-src-deep-manifest/agent-c8d9b115.jsonl"
                ],
                vec![
                    "-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
                    "-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl"
                ],
                vec!["-src-experiments-claude_p/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl"],
            ]
        );
    }

    #[test]
    fn a_codex_dated_tree_and_a_mixed_folder() {
        let dir = scratch("codex");
        let rollout = "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
        let day = dir.join("2025/11/17");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::copy(
            corpus(&format!(
                "codex/AcidicSoil__codex-session-view/.sample_session/{rollout}"
            )),
            day.join(rollout),
        )
        .unwrap();
        // A sub-agent's rollout a day later names its parent thread.
        let child = "rollout-2025-11-18T09-00-00-019a93ba-0000-7600-98ff-940e6b99603c.jsonl";
        std::fs::create_dir_all(dir.join("2025/11/18")).unwrap();
        std::fs::write(
            dir.join("2025/11/18").join(child),
            concat!(
                r#"{"timestamp":"2025-11-18T09:00:00.000Z","type":"session_meta","payload":{"id":"019a93ba-0000-7600-98ff-940e6b99603c","source":{"subagent":{"thread_spawn":{"parent_thread_id":"019a93b9-f380-7600-98ff-940e6b99603c","depth":1}}}}}"#,
                "\n"
            ),
        )
        .unwrap();
        // Files of other agents beside them: each a session of its own.
        std::fs::copy(
            corpus("pi/badlogic__pi-mono/session.jsonl"),
            dir.join("pi.jsonl"),
        )
        .unwrap();
        std::fs::copy(
            corpus("gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-03T04-04-ff205d73.json"),
            dir.join("session-2025-12-03T04-04-ff205d73.json"),
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), "not a session").unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/x.jsonl"), "{}\n").unwrap();
        assert_eq!(
            found(&dir),
            [
                vec![
                    format!("2025/11/17/{rollout}"),
                    format!("2025/11/18/{child}")
                ],
                vec!["pi.jsonl".to_owned()],
                vec!["session-2025-12-03T04-04-ff205d73.json".to_owned()],
            ]
        );
    }

    #[test]
    fn a_session_file_brings_its_subagent_runs() {
        let file = corpus(&format!(
            "{PROJECTS}/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
        ));
        let session = session_of_file(&file).unwrap();
        assert_eq!(session.inputs.len(), 7);
        assert!(session.inputs[1..].iter().all(|i| i.meta.is_some()));
        // A subagent run named alone is read alone.
        let run = &session.inputs[1].path;
        assert_eq!(session_of_file(run).unwrap().inputs.len(), 1);
    }

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
}
