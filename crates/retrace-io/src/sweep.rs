//! A folder's files sorted for a command that treats each session file on
//! its own (`retrace redact DIR`): the session files as the folder walk
//! picks them ([`folder_inputs`], called here only, so a change of how a
//! folder is split into sessions reaches such commands in one place), and
//! every other file under the folder, to be listed as skipped.

use std::path::{Component, Path, PathBuf};

use crate::error::{FileError, FileResult};
use crate::load::folder_inputs;

/// A folder's files by path relative to it, each list sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sweep {
    /// The session files (subagent files included).
    pub sessions: Vec<PathBuf>,
    /// Every other regular file under the folder (side-cars, notes,
    /// files in folders the walk does not read).
    pub others: Vec<PathBuf>,
}

/// The files of `dir`, sorted into session files and the rest.
pub fn sweep(dir: &Path) -> FileResult<Sweep> {
    let mut sessions: Vec<PathBuf> = folder_inputs(dir)?
        .into_iter()
        .filter_map(|i| i.path.strip_prefix(dir).ok().map(Path::to_path_buf))
        .collect();
    sessions.sort();
    let mut all = Vec::new();
    every_file(dir, Path::new(""), &mut all)?;
    let others = all
        .into_iter()
        .filter(|f| sessions.binary_search(f).is_err())
        .collect();
    Ok(Sweep { sessions, others })
}

/// Every regular file under `dir`, as paths under `rel`, sorted; folders
/// reached through symbolic links are not entered (no loops).
fn every_file(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> FileResult<()> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| FileError::from_io(e, dir))? {
        let entry = entry.map_err(|e| FileError::from_io(e, dir))?;
        let kind = entry
            .file_type()
            .map_err(|e| FileError::from_io(e, &entry.path()))?;
        entries.push((entry.file_name(), kind, entry.path()));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind, path) in entries {
        if kind.is_dir() {
            every_file(&path, &rel.join(&name), out)?;
        } else if path.is_file() {
            out.push(rel.join(&name));
        }
    }
    Ok(())
}

/// Whether `path` is `dir` or under it, once both are resolved (symbolic
/// links, `..`); `path` need not exist yet (its nearest existing folder is
/// resolved, the rest appended).
pub fn within(path: &Path, dir: &Path) -> FileResult<bool> {
    let dir = dir.canonicalize().map_err(|e| FileError::from_io(e, dir))?;
    Ok(resolved(path)?.starts_with(dir))
}

/// `path` made absolute and resolved as far as it exists.
fn resolved(path: &Path) -> FileResult<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| FileError::from_io(e, path))?
            .join(path)
    };
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(real) => {
                let mut out = real;
                for part in rest.iter().rev() {
                    match part {
                        Component::ParentDir => {
                            out.pop();
                        }
                        Component::Normal(p) => out.push(p),
                        _ => {}
                    }
                }
                return Ok(out);
            }
            Err(_) => {
                let Some(parent) = existing.parent() else {
                    return Ok(absolute);
                };
                rest.extend(existing.components().next_back());
                existing = parent;
            }
        }
    }
}

/// Where `rel` goes under `out_dir`, its folders made.
pub fn target(out_dir: &Path, rel: &Path) -> FileResult<PathBuf> {
    let path = out_dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| FileError::write(&e, parent))?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("retrace-io-sweep-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn sessions_and_the_rest() {
        let dir = scratch("mixed");
        std::fs::write(dir.join("a.jsonl"), "{}\n").unwrap();
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        std::fs::create_dir_all(dir.join("deep/er")).unwrap();
        std::fs::write(dir.join("deep/er/b.png"), [0x89, b'P']).unwrap();
        let s = sweep(&dir).unwrap();
        assert_eq!(s.sessions, [PathBuf::from("a.jsonl")]);
        assert_eq!(
            s.others,
            [PathBuf::from("deep/er/b.png"), PathBuf::from("notes.txt")]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn within_resolves_what_does_not_exist_yet() {
        let dir = scratch("within");
        assert!(within(&dir.join("new/x"), &dir).unwrap());
        assert!(within(&dir, &dir).unwrap());
        assert!(within(&dir.join("sub/../.."), &dir).is_ok_and(|w| !w));
        assert!(!within(&std::env::temp_dir(), &dir).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
