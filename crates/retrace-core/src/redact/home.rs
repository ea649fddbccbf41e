//! User names in home directories: `/Users/<name>`, `/home/<name>`,
//! `C:\Users\<name>`, and Claude Code's project folder names
//! (`-Users-<name>-src-app`). Only the name is replaced, so paths stay
//! readable. Account names that identify no one (`ubuntu`, `runner`,
//! `root`…) are left.

use super::chars::{at, byte, is_alnum};
use super::hit::{rank, Scanner};
use super::kind::k;

/// Shared, service and CI account names: not a person.
const GENERIC: &[&[u8]] = &[
    b"root",
    b"user",
    b"users",
    b"admin",
    b"ubuntu",
    b"debian",
    b"runner",
    b"dev",
    b"app",
    b"node",
    b"vscode",
    b"ec2-user",
    b"pi",
    b"shared",
    b"guest",
    b"codespace",
    b"codespaces",
    b"jenkins",
    b"git",
    b"www-data",
    b"postgres",
    b"docker",
    b"circleci",
    b"travis",
    b"gitpod",
    b"vagrant",
    b"runneradmin",
    b"build",
    b"builder",
    b"ci",
    b"deploy",
    b"service",
    b"default",
    b"public",
    b"username",
    b"me",
    b"you",
    b"name",
    b"linuxbrew",
    b"nobody",
    b"daemon",
    b"test",
    b"developer",
    b"coder",
    b"workspace",
    b"project",
    b"home",
    b"sandbox",
    b"agent",
    b"claude",
];

fn name_char(b: u8) -> bool {
    is_alnum(b) || matches!(b, b'.' | b'_' | b'-')
}

/// `/Users/`, `/home/` or `\Users\` at `i`; returns where scanning goes on
/// (`i + 1` when there is no name).
pub(crate) fn path(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    let sep = s[i];
    let skip = if sep == b'/' {
        if at(s, i, b"/Users/") {
            7
        } else if at(s, i, b"/home/") {
            6
        } else {
            return i + 1;
        }
    } else if at(s, i, b"\\Users\\") {
        7
    } else if at(s, i, b"\\\\Users\\\\") {
        9
    } else {
        return i + 1;
    };
    if i > 0 && is_alnum(s[i - 1]) && sep == b'/' {
        return i + 1;
    }
    let start = i + skip;
    let mut end = start;
    while end < s.len() && end - start < 64 && name_char(s[end]) && s[end] != sep {
        end += 1;
    }
    // A trailing `.` or `-` ends a sentence, not a name.
    while end > start && matches!(s[end - 1], b'.' | b'-') {
        end -= 1;
    }
    name(sc, start, end)
}

/// `-Users-<name>-` / `-home-<name>-` (a path with `/` turned into `-`).
pub(crate) fn dashed(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    let skip = if at(s, i, b"-Users-") {
        7
    } else if at(s, i, b"-home-") {
        6
    } else {
        return i + 1;
    };
    if i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == b'-') {
        return i + 1;
    }
    let start = i + skip;
    let mut end = start;
    while end < s.len() && end - start < 64 && (is_alnum(s[end]) || matches!(s[end], b'.' | b'_')) {
        end += 1;
    }
    if byte(s, end) != b'-' && is_alnum(byte(s, end)) {
        return i + 1;
    }
    name(sc, start, end)
}

/// The user name `s[start..end]`, unless it is a shared account's.
pub(crate) fn name(sc: &mut Scanner, start: usize, end: usize) -> usize {
    let n = &sc.s[start..end];
    if n.is_empty() || !is_alnum(n[0]) {
        return start;
    }
    let lower: Vec<u8> = n.iter().map(u8::to_ascii_lowercase).collect();
    if GENERIC.contains(&lower.as_slice()) {
        return end;
    }
    sc.hit(start, end, k::HOME_USERNAME, rank::HOME);
    end
}
