//! Paths from outside (a command line, an API call): checked once, here,
//! so none can leave the workspace or reach a `.git`.

use std::path::{Component, Path, PathBuf};

use crate::error::{StoreError, StoreResult};

/// Checks a workspace path from outside and returns it `/`-separated, as
/// git stores it: relative, no `.` or `..`, no root or drive, no `\`, no
/// NUL, no `.git` component (in any case, with the trailing dots and
/// spaces Windows ignores).
pub(crate) fn check_rel(path: &str) -> StoreResult<String> {
    let bad = |reason: &str| StoreError::InvalidPath {
        path: path.escape_debug().to_string(),
        reason: reason.to_owned(),
    };
    if path.is_empty() {
        return Err(bad("it is empty"));
    }
    if path.contains('\0') {
        return Err(bad("it holds a NUL byte"));
    }
    if path.contains('\\') {
        return Err(bad("it holds a `\\`; use `/` between folders"));
    }
    // A drive (`C:/x`, `C:`) is refused everywhere, any `:` on Windows
    // (a drive or an alternate data stream, `a.txt:hidden`); on Unix `a:b`
    // is an ordinary name.
    let b = path.as_bytes();
    let drive = b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && matches!(b.get(2), None | Some(b'/'));
    if drive || (cfg!(windows) && path.contains(':')) {
        return Err(bad(
            "it names a drive or a stream; give a path relative to the workspace",
        ));
    }
    if path.starts_with('/') || Path::new(path).has_root() {
        return Err(bad("it is absolute; give a path relative to the workspace"));
    }
    let mut parts = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => {
                let part = part.to_str().unwrap_or_default();
                if is_dot_git(part) {
                    return Err(bad("it goes into a `.git`, which checkpoints never touch"));
                }
                parts.push(part);
            }
            Component::ParentDir => return Err(bad("it holds `..`")),
            Component::CurDir => return Err(bad("it holds `.`")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad("it is absolute; give a path relative to the workspace"))
            }
        }
    }
    // `Path::components` drops inner `.` and doubled `/`: refuse them too,
    // so the path checked is the path used.
    let joined = parts.join("/");
    if joined != path.trim_end_matches('/') {
        return Err(bad("it holds `.` or an empty folder name"));
    }
    Ok(joined)
}

/// Whether a file name is `.git` to some file system (`.GIT`, `.git.`,
/// `.git ` on Windows).
pub(crate) fn is_dot_git(name: &str) -> bool {
    name.trim_end_matches(['.', ' '])
        .eq_ignore_ascii_case(".git")
}

/// A path from a tree of the shadow repository, made a path on disk
/// below `workspace`, after the same checks (libgit2 refuses such paths
/// already; checked again because restore writes there).
pub(crate) fn on_disk(workspace: &Path, git_path: &Path) -> StoreResult<PathBuf> {
    let text = git_path.to_string_lossy();
    if text.contains('\u{fffd}') && git_path.to_str().is_none() {
        // Not UTF-8: check the components one by one below.
        for component in git_path.components() {
            if !matches!(component, Component::Normal(_)) {
                return Err(StoreError::InvalidPath {
                    path: text.into_owned(),
                    reason: "a checkpoint holds a path that leaves the workspace".to_owned(),
                });
            }
        }
        return Ok(workspace.join(git_path));
    }
    let rel = check_rel(&text)?;
    Ok(workspace.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_traversal_is_refused() {
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/../../etc",
            "a/..",
            "/etc/passwd",
            "//server/share",
            "C:\\x",
            "C:/x",
            "a\\b",
            "a\0b",
            ".git",
            ".git/config",
            "sub/.git/HEAD",
            ".GIT/config",
            ".git./config",
            ".git /config",
            "./a",
            "a/./b",
            "a//b",
        ] {
            let err = check_rel(bad).unwrap_err();
            assert!(
                matches!(err, StoreError::InvalidPath { .. }),
                "{bad:?} gave {err}"
            );
        }
        for (good, git) in [
            ("a", "a"),
            ("src/main.rs", "src/main.rs"),
            ("dir/", "dir"),
            (".gitignore", ".gitignore"),
            (".github/x", ".github/x"),
            ("a..b", "a..b"),
            #[cfg(unix)]
            ("a:b", "a:b"),
        ] {
            assert_eq!(check_rel(good).unwrap(), git);
        }
    }

    #[test]
    fn the_error_says_what_is_wrong() {
        let err = check_rel("../etc/passwd").unwrap_err().to_string();
        assert!(
            err.contains("`..`") && err.contains("../etc/passwd"),
            "{err}"
        );
    }
}
