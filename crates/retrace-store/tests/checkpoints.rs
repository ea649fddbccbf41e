//! Git checkpoints against real repositories in temporary folders.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use retrace_core::{ChangeKind, FileChange};
use retrace_store::{
    CheckpointOptions, Checkpointer, Checkpoints, SessionId, SkipReason, StoreError,
};
use tempfile::TempDir;

struct Fixture {
    _dir: TempDir,
    ws: PathBuf,
    git_dir: PathBuf,
    session: SessionId,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("workspace");
    fs::create_dir(&ws).unwrap();
    let git_dir = dir.path().join("store").join("s1").join("checkpoints.git");
    Fixture {
        ws,
        git_dir,
        session: SessionId::parse("s1").unwrap(),
        _dir: dir,
    }
}

impl Fixture {
    fn open(&self) -> Checkpoints {
        self.open_with(CheckpointOptions::default())
    }
    fn open_with(&self, options: CheckpointOptions) -> Checkpoints {
        Checkpoints::open(&self.ws, &self.git_dir, &self.session, options).unwrap()
    }
    fn write(&self, path: &str, content: &str) {
        let full = self.ws.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, content).unwrap();
    }
    fn read(&self, path: &str) -> Option<String> {
        fs::read_to_string(self.ws.join(path)).ok()
    }
    fn remove(&self, path: &str) {
        fs::remove_file(self.ws.join(path)).unwrap();
    }
}

fn at(sec: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 27, 3, 0, sec).unwrap()
}

fn fc(path: &str, change: ChangeKind) -> FileChange {
    FileChange {
        path: path.to_owned(),
        change,
    }
}

/// Every file below `root` with its bytes (links as their targets).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if kind.is_dir() {
                out.insert(rel.join(""), Vec::new());
                walk(root, &path, out);
            } else if kind.is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.insert(rel, target.to_string_lossy().as_bytes().to_vec());
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A real repository with one commit, made by libgit2 as a user's git would.
fn user_repo(dir: &Path, file: &str, content: &str) {
    let repo = git2::Repository::init(dir).unwrap();
    fs::write(dir.join(file), content).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new(file)).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("user", "user@example.invalid").unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "user's commit", &tree, &[])
        .unwrap();
}

#[test]
fn commits_and_tags_after_changes_and_none_without() {
    let f = fixture();
    let mut cp = f.open();
    assert!(
        cp.checkpoint("noop", None, at(0)).unwrap().is_none(),
        "empty workspace"
    );
    assert!(cp.list().unwrap().is_empty());
    assert!(cp.list_file_changes("a.txt").unwrap().is_empty());
    assert!(matches!(
        cp.find("tool_x_1"),
        Err(StoreError::UnknownCheckpoint { .. })
    ));

    f.write("a.txt", "one\n");
    f.write("src/lib.rs", "fn main() {}\n");
    let first = cp
        .checkpoint("write_file", Some(3), at(1))
        .unwrap()
        .unwrap();
    assert_eq!(first.tag, "tool_write_file_20261127030001");
    assert_eq!(
        first.files,
        vec![
            fc("a.txt", ChangeKind::Created),
            fc("src/lib.rs", ChangeKind::Created)
        ]
    );
    assert!(cp
        .checkpoint("read_file", Some(4), at(2))
        .unwrap()
        .is_none());

    f.write("a.txt", "two\n");
    let updated = cp.checkpoint("edit", Some(5), at(3)).unwrap().unwrap();
    assert_eq!(updated.files, vec![fc("a.txt", ChangeKind::Updated)]);

    f.remove("src/lib.rs");
    let deleted = cp.checkpoint("bash", Some(6), at(4)).unwrap().unwrap();
    assert_eq!(deleted.files, vec![fc("src/lib.rs", ChangeKind::Deleted)]);
    assert!(cp.checkpoint("bash", Some(7), at(5)).unwrap().is_none());

    // The tags are real refs of the shadow repository, on the commits.
    let shadow = git2::Repository::open_bare(&f.git_dir).unwrap();
    for info in [&first, &updated, &deleted] {
        let r = shadow
            .find_reference(&format!("refs/tags/{}", info.tag))
            .unwrap();
        assert_eq!(r.peel_to_commit().unwrap().id().to_string(), info.commit);
    }
    let message = shadow
        .find_commit(git2::Oid::from_str(&first.commit).unwrap())
        .unwrap()
        .message()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("write_file")
            && message.contains("s1")
            && message.contains("Retrace-Event: 3"),
        "{message}"
    );

    let list = cp.list().unwrap();
    let tags: Vec<_> = list.iter().map(|c| c.tag.as_str()).collect();
    assert_eq!(tags, [&*deleted.tag, &*updated.tag, &*first.tag]);
    assert_eq!(list[0].tool, "bash");
    assert_eq!(list[0].event_seq, Some(6));
    assert_eq!(list[2].time, at(1));
    // Named by tag, by full id and by a prefix.
    assert_eq!(cp.find(&first.tag).unwrap().commit, first.commit);
    assert_eq!(cp.find(&first.commit[..10]).unwrap().commit, first.commit);
}

#[test]
fn two_checkpoints_in_one_second_get_unique_tags() {
    let f = fixture();
    let mut cp = f.open();
    let mut tags = Vec::new();
    for i in 0..3 {
        f.write("a.txt", &format!("{i}\n"));
        tags.push(
            cp.checkpoint("edit file!", None, at(7))
                .unwrap()
                .unwrap()
                .tag,
        );
    }
    assert_eq!(
        tags,
        [
            "tool_edit_file__20261127030007",
            "tool_edit_file__20261127030007_2",
            "tool_edit_file__20261127030007_3"
        ]
    );
}

#[test]
fn the_recorder_gets_a_checkpoint_event() {
    let f = fixture();
    let mut cp = f.open();
    let recorder: &mut dyn Checkpointer = &mut cp;
    assert!(recorder
        .after_tool_call("bash", 1, at(0))
        .unwrap()
        .is_none());
    f.write("out.txt", "x");
    let event = recorder.after_tool_call("bash", 2, at(1)).unwrap().unwrap();
    assert_eq!(event.tool_name, "bash");
    assert_eq!(event.tag, "tool_bash_20261127030001");
    assert_eq!(event.files, vec![fc("out.txt", ChangeKind::Created)]);
    assert!(event.extra.is_empty());
}

#[test]
fn restore_brings_back_deleted_files_and_removes_later_ones_and_can_be_undone() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "a1\n");
    f.write("dir/b.txt", "b1\n");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();

    // Later: a changed, b deleted (its folder with it), c created, none
    // of it checkpointed yet.
    f.write("a.txt", "a2\n");
    f.remove("dir/b.txt");
    fs::remove_dir(f.ws.join("dir")).unwrap();
    f.write("new/c.txt", "c\n");

    let r = cp.restore(&c1.tag, None).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("a1\n"));
    assert_eq!(f.read("dir/b.txt").as_deref(), Some("b1\n"));
    assert_eq!(f.read("new/c.txt"), None);
    assert!(!f.ws.join("new").exists(), "the emptied folder goes too");
    assert_eq!(
        r.changes,
        vec![
            fc("new/c.txt", ChangeKind::Deleted),
            fc("a.txt", ChangeKind::Updated),
            fc("dir/b.txt", ChangeKind::Created),
        ]
    );
    assert!(r.kept.is_empty(), "{:?}", r.kept);
    assert_eq!(r.undo.tool, "before_restore");
    let restored = r.restored.unwrap();
    assert_eq!(restored.tool_name, "restore");
    assert_eq!(cp.diff(&c1.tag, &restored.tag).unwrap(), vec![]);
    assert!(cp.checkpoint("noop", None, at(9)).unwrap().is_none());

    // Undo: the state before the restore, untracked file included.
    let undo = cp.restore(&r.undo.tag, None).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("a2\n"));
    assert_eq!(f.read("dir/b.txt"), None);
    assert_eq!(f.read("new/c.txt").as_deref(), Some("c\n"));
    assert_eq!(undo.restored.unwrap().files.len(), 3);
    let listed = cp.list().unwrap();
    assert_eq!(listed[0].restored_from.as_deref(), Some(&*r.undo.tag));
}

#[test]
fn restore_one_file_leaves_the_rest() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "a1\n");
    f.write("b.txt", "b1\n");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    f.write("a.txt", "a2\n");
    f.write("b.txt", "b2\n");
    let r = cp.restore(&c1.commit[..8], Some("a.txt")).unwrap();
    assert_eq!(r.changes, vec![fc("a.txt", ChangeKind::Updated)]);
    assert_eq!(f.read("a.txt").as_deref(), Some("a1\n"));
    assert_eq!(f.read("b.txt").as_deref(), Some("b2\n"));

    // A file deleted since comes back; one created since goes.
    f.remove("a.txt");
    f.write("c.txt", "c\n");
    cp.restore(&c1.tag, Some("a.txt")).unwrap();
    cp.restore(&c1.tag, Some("c.txt")).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("a1\n"));
    assert_eq!(f.read("c.txt"), None);

    let err = cp.restore(&c1.tag, Some("nowhere.txt")).unwrap_err();
    assert!(matches!(err, StoreError::InvalidPath { .. }), "{err}");
}

#[test]
fn restore_a_folder_and_undo_it() {
    let f = fixture();
    let mut cp = f.open();
    f.write("src/a.rs", "a1");
    f.write("src/deep/b.rs", "b1");
    f.write("other.txt", "o1");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    f.write("src/a.rs", "a2");
    f.remove("src/deep/b.rs");
    f.write("src/c.rs", "c");
    f.write("other.txt", "o2");

    let r = cp.restore(&c1.tag, Some("src")).unwrap();
    assert_eq!(f.read("src/a.rs").as_deref(), Some("a1"));
    assert_eq!(f.read("src/deep/b.rs").as_deref(), Some("b1"));
    assert_eq!(f.read("src/c.rs"), None);
    assert_eq!(
        f.read("other.txt").as_deref(),
        Some("o2"),
        "outside the folder"
    );
    // The undo point holds the folder as it was; the rest is the next
    // checkpoint's.
    let undo = cp.find(&r.undo.tag).unwrap();
    assert_eq!(undo.tool, "before_restore");
    cp.restore(&r.undo.tag, Some("src")).unwrap();
    assert_eq!(f.read("src/a.rs").as_deref(), Some("a2"));
    assert_eq!(f.read("src/deep/b.rs"), None);
    assert_eq!(f.read("src/c.rs").as_deref(), Some("c"));
    let next = cp.checkpoint("edit", None, at(5)).unwrap().unwrap();
    assert_eq!(next.files, vec![fc("other.txt", ChangeKind::Updated)]);
}

#[cfg(unix)]
#[test]
fn restore_keeps_the_permissions_and_the_executable_bit() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    let mut cp = f.open();
    f.write("run.sh", "#!/bin/sh\n");
    fs::set_permissions(f.ws.join("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
    f.write("secret", "s1");
    fs::set_permissions(f.ws.join("secret"), fs::Permissions::from_mode(0o600)).unwrap();
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    f.write("run.sh", "changed");
    f.write("secret", "s2");
    cp.restore(&c1.tag, None).unwrap();
    let mode = |p: &str| fs::metadata(f.ws.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("run.sh"), 0o750);
    assert_eq!(mode("secret"), 0o600);
    assert_eq!(f.read("secret").as_deref(), Some("s1"));
}

#[test]
fn diff_and_patch_between_checkpoints() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "one\ntwo\n");
    f.write("b.txt", "b\n");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    f.write("a.txt", "one\nTWO\n");
    f.remove("b.txt");
    f.write("c.txt", "c\n");
    let c2 = cp.checkpoint("edit", None, at(1)).unwrap().unwrap();
    assert_eq!(
        cp.diff(&c1.tag, &c2.tag).unwrap(),
        vec![
            fc("a.txt", ChangeKind::Updated),
            fc("b.txt", ChangeKind::Deleted),
            fc("c.txt", ChangeKind::Created),
        ]
    );
    assert_eq!(c2.files, cp.diff(&c1.tag, &c2.commit).unwrap());
    let patch = cp.diff_patch(&c1.tag, &c2.tag).unwrap();
    for line in [
        "--- a/a.txt",
        "+++ b/a.txt",
        "-two",
        "+TWO",
        "+++ b/c.txt",
        "+c",
        "-b",
    ] {
        assert!(patch.lines().any(|l| l == line), "no {line:?} in\n{patch}");
    }
}

#[test]
fn a_files_history_names_each_change() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "1");
    let c1 = cp.checkpoint("create", None, at(0)).unwrap().unwrap();
    f.write("other.txt", "x");
    cp.checkpoint("other", None, at(1)).unwrap().unwrap();
    f.write("a.txt", "2");
    let c3 = cp.checkpoint("edit", None, at(2)).unwrap().unwrap();
    f.remove("a.txt");
    let c4 = cp.checkpoint("rm", None, at(3)).unwrap().unwrap();
    f.write("a.txt", "3");
    let c5 = cp.checkpoint("recreate", None, at(4)).unwrap().unwrap();

    let history = cp.list_file_changes("a.txt").unwrap();
    let got: Vec<_> = history
        .iter()
        .map(|c| (c.tag.as_str(), c.tool.as_str(), c.change.unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (&*c5.tag, "recreate", ChangeKind::Created),
            (&*c4.tag, "rm", ChangeKind::Deleted),
            (&*c3.tag, "edit", ChangeKind::Updated),
            (&*c1.tag, "create", ChangeKind::Created),
        ]
    );
    assert!(cp.list_file_changes("never.txt").unwrap().is_empty());
}

#[test]
fn a_users_git_and_a_nested_repository_stay_byte_identical() {
    let f = fixture();
    user_repo(&f.ws, "tracked.txt", "user's file\n");
    let nested = f.ws.join("vendor").join("lib");
    fs::create_dir_all(&nested).unwrap();
    user_repo(&nested, "lib.rs", "pub fn f() {}\n");
    // A worktree-style nested repository: `.git` is a file.
    f.write("linked/.git", "gitdir: /nowhere/else\n");
    f.write("linked/file.txt", "linked\n");
    let before_git = snapshot(&f.ws.join(".git"));
    let before_nested = snapshot(&nested);
    let before_linked = snapshot(&f.ws.join("linked"));

    let mut cp = f.open();
    f.write("agent.txt", "1");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    let mut skipped: Vec<_> = c1
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason))
        .collect();
    skipped.sort_by_key(|s| s.0);
    assert_eq!(
        skipped,
        [
            ("linked/", SkipReason::NestedRepository),
            ("vendor/lib/", SkipReason::NestedRepository)
        ]
    );
    assert_eq!(
        c1.files,
        vec![
            fc("agent.txt", ChangeKind::Created),
            fc("tracked.txt", ChangeKind::Created)
        ]
    );
    // Reported once, still known.
    f.write("agent.txt", "2");
    let c2 = cp.checkpoint("write", None, at(1)).unwrap().unwrap();
    assert!(c2.skipped.is_empty());
    assert_eq!(cp.skipped().len(), 2);

    // Inside the nested repository the agent changes things; checkpoints
    // neither take nor restore them.
    fs::write(nested.join("lib.rs"), "changed by the agent\n").unwrap();
    let before_nested = {
        let mut b = before_nested;
        b.insert(PathBuf::from("lib.rs"), b"changed by the agent\n".to_vec());
        b
    };
    assert!(cp.checkpoint("write", None, at(2)).unwrap().is_none());
    cp.restore(&c1.tag, None).unwrap();
    cp.restore(&c2.tag, None).unwrap();
    fs::remove_file(f.ws.join("agent.txt")).unwrap();
    cp.checkpoint("rm", None, at(3)).unwrap().unwrap();
    cp.restore(&c1.tag, None).unwrap();
    assert_eq!(f.read("agent.txt").as_deref(), Some("1"));
    let err = cp.restore(&c1.tag, Some("vendor/lib/lib.rs")).unwrap_err();
    assert!(err.to_string().contains("neither"), "{err}");
    let err = cp.restore(&c1.tag, Some(".git/config")).unwrap_err();
    assert!(matches!(err, StoreError::InvalidPath { .. }));

    assert_eq!(snapshot(&f.ws.join(".git")), before_git);
    assert_eq!(snapshot(&nested), before_nested);
    assert_eq!(snapshot(&f.ws.join("linked")), before_linked);
    assert!(!f.ws.join(".git_disabled").exists());
    // And no tree of the shadow repository has anything of them.
    let shadow = git2::Repository::open_bare(&f.git_dir).unwrap();
    for info in cp.list().unwrap() {
        let tree = shadow
            .find_commit(git2::Oid::from_str(&info.commit).unwrap())
            .unwrap()
            .tree()
            .unwrap();
        tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
            let name = format!("{dir}{}", entry.name().unwrap());
            assert!(
                !name.starts_with(".git") || name == ".gitignore",
                "{name} in a checkpoint"
            );
            assert!(
                !name.starts_with("vendor") && !name.starts_with("linked"),
                "{name}"
            );
            git2::TreeWalkResult::Ok
        })
        .unwrap();
    }
}

#[test]
fn gitignore_is_honoured_and_ignored_files_survive_a_restore() {
    let f = fixture();
    f.write(".gitignore", "*.log\nbuild/\n");
    f.write("sub/.gitignore", "secret.txt\n");
    f.write("keep.txt", "k");
    f.write("app.log", "log");
    f.write("build/out.bin", "bin");
    f.write("sub/secret.txt", "s");
    f.write("sub/plain.txt", "p");
    let mut cp = f.open();
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    let paths: Vec<_> = c1.files.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [".gitignore", "keep.txt", "sub/.gitignore", "sub/plain.txt"]
    );

    f.write("app.log", "more log");
    f.write("build/new.bin", "new");
    assert!(cp.checkpoint("build", None, at(1)).unwrap().is_none());

    f.write("later.txt", "l");
    cp.checkpoint("write", None, at(2)).unwrap().unwrap();
    cp.restore(&c1.tag, None).unwrap();
    assert_eq!(f.read("later.txt"), None);
    assert_eq!(f.read("app.log").as_deref(), Some("more log"));
    assert_eq!(f.read("build/new.bin").as_deref(), Some("new"));
    assert_eq!(f.read("sub/secret.txt").as_deref(), Some("s"));
}

#[test]
fn files_over_the_cap_are_skipped_reported_and_never_touched() {
    let f = fixture();
    let mut cp = f.open_with(CheckpointOptions {
        max_file_size: 1000,
        ..CheckpointOptions::default()
    });
    f.write("small.txt", "s");
    f.write("big.bin", &"x".repeat(2000));
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    assert_eq!(c1.files, vec![fc("small.txt", ChangeKind::Created)]);
    assert_eq!(c1.skipped.len(), 1);
    assert_eq!(c1.skipped[0].path, "big.bin");
    assert_eq!(c1.skipped[0].reason, SkipReason::TooLarge { size: 2000 });
    let event = c1.to_event();
    assert_eq!(event.extra["skipped"][0]["path"], "big.bin");

    // A tracked file that grows past the cap stops being tracked.
    f.write("grows.txt", "g");
    let c2 = cp.checkpoint("write", None, at(1)).unwrap().unwrap();
    f.write("grows.txt", &"g".repeat(3000));
    let c3 = cp.checkpoint("write", None, at(2)).unwrap().unwrap();
    assert_eq!(c3.files, vec![fc("grows.txt", ChangeKind::Deleted)]);

    // Restores never delete nor overwrite them.
    cp.restore(&c1.tag, None).unwrap();
    let r = cp.restore(&c2.tag, None).unwrap();
    assert_eq!(
        r.kept,
        vec![(
            "grows.txt".to_owned(),
            "an untracked file is there now".to_owned()
        )]
    );
    assert_eq!(fs::metadata(f.ws.join("big.bin")).unwrap().len(), 2000);
    assert_eq!(fs::metadata(f.ws.join("grows.txt")).unwrap().len(), 3000);
}

#[test]
fn every_traversal_attempt_is_refused() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "a");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    for bad in [
        "../x",
        "/etc/passwd",
        "a/../../x",
        ".git/config",
        "..",
        "",
        "a\\..\\b",
        "C:/x",
    ] {
        let err = cp.list_file_changes(bad).unwrap_err();
        assert!(
            matches!(err, StoreError::InvalidPath { .. }),
            "{bad:?}: {err}"
        );
        let err = cp.restore(&c1.tag, Some(bad)).unwrap_err();
        assert!(
            matches!(err, StoreError::InvalidPath { .. }),
            "{bad:?}: {err}"
        );
    }
    for bad in [
        "HEAD~1",
        "../../HEAD",
        "refs/tags/x",
        "@{0}",
        ":/a",
        "abc",
        "",
    ] {
        let err = cp.find(bad).unwrap_err();
        assert!(
            matches!(err, StoreError::UnknownCheckpoint { .. }),
            "{bad:?}: {err}"
        );
        assert!(cp.diff(bad, &c1.tag).is_err());
    }
    // A shadow repository inside the workspace (or around it) is refused.
    drop(cp);
    for git_dir in [f.ws.join("cp.git"), f.ws.parent().unwrap().to_path_buf()] {
        let err = Checkpoints::open(&f.ws, &git_dir, &f.session, CheckpointOptions::default())
            .err()
            .unwrap();
        assert!(matches!(err, StoreError::InvalidPath { .. }), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn restore_never_writes_through_a_linked_folder() {
    use std::os::unix::fs::symlink;
    let f = fixture();
    let outside = tempfile::tempdir().unwrap();
    let mut cp = f.open();
    f.write("d/a.txt", "a");
    f.write("e/b.txt", "b");
    let c1 = cp.checkpoint("write", None, at(0)).unwrap().unwrap();

    // A tracked link where the folder was: the link itself is removed
    // (never followed) and the folder comes back.
    fs::remove_dir_all(f.ws.join("d")).unwrap();
    symlink(outside.path(), f.ws.join("d")).unwrap();
    // An ignored link where the other folder was: left alone, and nothing
    // is written through it.
    fs::remove_dir_all(f.ws.join("e")).unwrap();
    symlink(outside.path(), f.ws.join("e")).unwrap();
    f.write(".gitignore", "e\n");

    let r = cp.restore(&c1.tag, None).unwrap();
    assert_eq!(
        r.kept,
        vec![(
            "e/b.txt".to_owned(),
            "a folder above it is a symbolic link".to_owned()
        )]
    );
    assert!(fs::read_dir(outside.path()).unwrap().next().is_none());
    assert!(!fs::symlink_metadata(f.ws.join("d")).unwrap().is_symlink());
    assert_eq!(f.read("d/a.txt").as_deref(), Some("a"));
    assert!(fs::symlink_metadata(f.ws.join("e")).unwrap().is_symlink());

    // Undo puts the tracked link back.
    cp.restore(&r.undo.tag, None).unwrap();
    assert_eq!(fs::read_link(f.ws.join("d")).unwrap(), outside.path());
    assert!(fs::read_dir(outside.path()).unwrap().next().is_none());
}

#[test]
fn a_stale_index_lock_is_recovered_and_a_second_writer_refused() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "a");
    cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    let busy = Checkpoints::open(&f.ws, &f.git_dir, &f.session, CheckpointOptions::default());
    assert!(matches!(busy, Err(StoreError::SessionBusy { .. })));
    drop(cp);

    // A process killed while writing the index left its lock.
    fs::write(f.git_dir.join("index.lock"), "").unwrap();
    fs::write(f.git_dir.join("refs/tags/x.lock"), "").unwrap();
    // And the pack it was writing.
    let tmp_pack = f.git_dir.join("objects/pack/pack_git2_0123456789abcdef");
    fs::write(&tmp_pack, vec![0u8; 4096]).unwrap();
    let mut cp = f.open();
    assert_eq!(cp.recovered_locks().len(), 3);
    assert!(!tmp_pack.exists());
    assert!(!f.git_dir.join("index.lock").exists());
    f.write("a.txt", "b");
    let c = cp.checkpoint("write", None, at(1)).unwrap().unwrap();
    assert_eq!(c.files, vec![fc("a.txt", ChangeKind::Updated)]);
}

#[test]
fn an_unreadable_index_is_rebuilt_without_a_spurious_checkpoint() {
    let f = fixture();
    let mut cp = f.open();
    f.write("a.txt", "a");
    f.write("d/b.txt", "b");
    cp.checkpoint("write", None, at(0)).unwrap().unwrap();
    drop(cp);
    fs::write(
        f.git_dir.join("index"),
        b"DIRC garbage, as a crash might leave",
    )
    .unwrap();
    let mut cp = f.open();
    assert!(cp.checkpoint("noop", None, at(1)).unwrap().is_none());
    f.write("a.txt", "a2");
    let c = cp.checkpoint("edit", None, at(2)).unwrap().unwrap();
    assert_eq!(c.files, vec![fc("a.txt", ChangeKind::Updated)]);
}

/// The objects of every checkpoint, read back; and the files in
/// `objects/pack` and loose.
fn stored_objects(git_dir: &Path, cp: &Checkpoints) -> (usize, usize) {
    let shadow = git2::Repository::open_bare(git_dir).unwrap();
    for info in cp.list().unwrap() {
        let commit = shadow
            .find_commit(git2::Oid::from_str(&info.commit).unwrap())
            .unwrap();
        commit
            .tree()
            .unwrap()
            .walk(git2::TreeWalkMode::PreOrder, |_, entry| {
                let object = entry.to_object(&shadow).unwrap();
                if let Some(blob) = object.as_blob() {
                    assert_eq!(
                        git2::Oid::hash_object(git2::ObjectType::Blob, blob.content()).unwrap(),
                        entry.id()
                    );
                }
                git2::TreeWalkResult::Ok
            })
            .unwrap();
    }
    let packs = fs::read_dir(git_dir.join("objects/pack")).unwrap().count();
    let loose = fs::read_dir(git_dir.join("objects"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().len() == 2)
        .map(|e| fs::read_dir(e.path()).unwrap().count())
        .sum();
    (packs, loose)
}

#[test]
fn the_first_checkpoint_is_one_pack_and_the_same_without_it() {
    let mut commits = Vec::new();
    for budget in [CheckpointOptions::default().first_scan_in_memory, 100, 0] {
        let f = fixture();
        for i in 0..40 {
            f.write(
                &format!("d{}/f{i}.txt", i % 4),
                &format!("{i}\n").repeat(i + 1),
            );
        }
        f.write("empty", "");
        let mut cp = f.open_with(CheckpointOptions {
            first_scan_in_memory: budget,
            ..CheckpointOptions::default()
        });
        // An empty folder adds nothing, and writes no pack either.
        let ignored = f.ws.join("ignored");
        fs::create_dir(&ignored).unwrap();
        let mut empty = Checkpoints::open(
            &ignored,
            &f.git_dir.with_extension("empty"),
            &f.session,
            CheckpointOptions::default(),
        )
        .unwrap();
        assert!(empty.checkpoint("noop", None, at(0)).unwrap().is_none());
        assert!(empty.checkpoint("noop", None, at(0)).unwrap().is_none());
        assert_eq!(stored_objects(empty.git_dir(), &empty).0, 0);
        fs::remove_dir(&ignored).unwrap();

        let first = cp.checkpoint("write", None, at(0)).unwrap().unwrap();
        assert_eq!(first.files.len(), 41);
        let (packs, loose) = stored_objects(&f.git_dir, &cp);
        if budget > 1000 {
            assert_eq!((packs, loose), (2, 1), "a .pack, its .idx and the commit");
        } else {
            assert_eq!(packs, 0, "budget {budget}");
            assert!(loose > 41, "budget {budget}: {loose}");
        }
        // Later checkpoints see the packed objects as stored.
        f.write("d0/f0.txt", "changed");
        let next = cp.checkpoint("edit", None, at(1)).unwrap().unwrap();
        assert_eq!(next.files, vec![fc("d0/f0.txt", ChangeKind::Updated)]);
        cp.restore(&first.tag, None).unwrap();
        assert_eq!(f.read("d0/f0.txt").as_deref(), Some("0\n"));
        stored_objects(&f.git_dir, &cp);
        // git itself finds the repository sound, where it is installed.
        if let Ok(out) = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(&f.git_dir)
            .args(["fsck", "--strict", "--full"])
            .output()
        {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // Same trees whatever the way.
        let shadow = git2::Repository::open_bare(&f.git_dir).unwrap();
        let tree = |c: &str| {
            shadow
                .find_commit(git2::Oid::from_str(c).unwrap())
                .unwrap()
                .tree_id()
        };
        commits.push((tree(&first.commit), tree(&next.commit)));
    }
    assert!(commits.windows(2).all(|w| w[0] == w[1]), "{commits:?}");
}
