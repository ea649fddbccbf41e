//! Versions of state values on files. `{key}.json` holds the value alone,
//! so any tool can read it; its version is in `{key}.json.version`, with
//! the length and CRC-32 of the bytes it belongs to and those of the
//! value before. A save writes the version file first and the value
//! second (each replaced atomically), so after a crash between the two the
//! value file still matches the `previous` stamp and reads back at its old
//! version: a version always names one value.

use serde::{Deserialize, Serialize};

/// The version of some bytes, and how to recognize them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    pub version: u64,
    pub len: u64,
    pub crc32: u32,
}

impl Stamp {
    pub fn of(version: u64, bytes: &[u8]) -> Stamp {
        Stamp {
            version,
            len: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        }
    }

    fn matches(&self, bytes: &[u8]) -> bool {
        self.len == bytes.len() as u64 && self.crc32 == crc32fast::hash(bytes)
    }
}

/// `{key}.json.version`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct VersionFile {
    /// The value being (or last) saved.
    pub current: Stamp,
    /// The value it replaced, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Stamp>,
}

/// The version of the value file's `bytes` (`None`: no value file).
pub(crate) fn version_of(bytes: Option<&[u8]>, file: Option<&VersionFile>) -> u64 {
    match (bytes, file) {
        (None, _) => 0,
        // Written by another tool before any save of ours.
        (Some(_), None) => 1,
        (Some(b), Some(f)) if f.current.matches(b) => f.current.version,
        (Some(b), Some(f)) => match f.previous {
            Some(p) if p.matches(b) => p.version,
            // Changed by someone else since: a version of its own.
            _ => f.current.version + 1,
        },
    }
}

/// The version file for a save of `new` over `old` (at `stored`).
pub(crate) fn next(
    old: Option<&[u8]>,
    stored: u64,
    file: Option<&VersionFile>,
    new: &[u8],
) -> VersionFile {
    // Never reuse a number, even for a value file deleted by hand.
    let highest = file.map_or(0, |f| f.current.version).max(stored);
    VersionFile {
        current: Stamp::of(highest + 1, new),
        previous: old.map(|b| Stamp::of(stored, b)),
    }
}

/// The version file of a value imported at `version` into a key never
/// saved.
pub(crate) fn imported(version: u64, bytes: &[u8]) -> VersionFile {
    VersionFile {
        current: Stamp::of(version, bytes),
        previous: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_between_the_two_files_reads_back_the_old_version() {
        let v1 = next(None, 0, None, b"1");
        assert_eq!(version_of(Some(b"1"), Some(&v1)), 1);
        let v2 = next(Some(b"1"), 1, Some(&v1), b"22");
        // The version file is written, the value file is not yet.
        assert_eq!(version_of(Some(b"1"), Some(&v2)), 1);
        assert_eq!(version_of(Some(b"22"), Some(&v2)), 2);
        // Edited by hand: a new version, stable until the next save.
        assert_eq!(version_of(Some(b"x"), Some(&v2)), 3);
        assert_eq!(version_of(None, Some(&v2)), 0);
        assert_eq!(next(None, 0, Some(&v2), b"y").current.version, 3);
    }
}
