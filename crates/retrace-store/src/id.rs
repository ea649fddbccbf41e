//! Session ids: new ones are random UUIDs; ids from outside (a command
//! line, a URL, a folder name) are checked once, here, so no id that could
//! leave the store's folder ever reaches the file system.

use std::fmt;
use std::str::FromStr;

use crate::error::StoreError;

/// The longest id accepted from outside.
pub const MAX_ID_LEN: usize = 128;

/// A session's id: ASCII letters, digits, `_` and `-`, 1 to
/// [`MAX_ID_LEN`] bytes. Safe to use as a file name on every system.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct SessionId(String);

impl SessionId {
    /// A new random id (UUID v4).
    pub fn new() -> SessionId {
        SessionId(uuid::Uuid::new_v4().to_string())
    }

    /// Checks an id from outside.
    pub fn parse(s: &str) -> Result<SessionId, StoreError> {
        let bad = |why: &str| StoreError::InvalidId {
            id: s.escape_debug().to_string(),
            reason: why.to_owned(),
        };
        if s.is_empty() {
            return Err(bad("it is empty"));
        }
        if s.len() > MAX_ID_LEN {
            return Err(bad(&format!("it is longer than {MAX_ID_LEN} bytes")));
        }
        if let Some(c) = s
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            let what = match c {
                '/' | '\\' => "a path separator".to_owned(),
                '.' => "a `.` (ids are never paths)".to_owned(),
                '\0' => "a NUL byte".to_owned(),
                c => format!("`{}`", c.escape_debug()),
            };
            return Err(bad(&format!(
                "it holds {what}; an id is letters, digits, `_` and `-`"
            )));
        }
        Ok(SessionId(s.to_owned()))
    }

    /// The id as text (also its folder's name).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for SessionId {
    fn default() -> SessionId {
        SessionId::new()
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for SessionId {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<SessionId, StoreError> {
        SessionId::parse(s)
    }
}

impl<'de> serde::Deserialize<'de> for SessionId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SessionId, D::Error> {
        let s = String::deserialize(d)?;
        SessionId::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_uuid_v4_and_parse_back() {
        let id = SessionId::new();
        let uuid = uuid::Uuid::parse_str(id.as_str()).unwrap();
        assert_eq!(uuid.get_version_num(), 4);
        assert_eq!(SessionId::parse(id.as_str()).unwrap(), id);
    }

    #[test]
    fn every_traversal_is_refused() {
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/../../etc",
            "/etc/passwd",
            "a/b",
            "a\\b",
            "C:\\x",
            "a\0b",
            "a b",
            "é",
            "a.json",
            &"x".repeat(MAX_ID_LEN + 1),
        ] {
            let err = SessionId::parse(bad).unwrap_err();
            assert!(
                matches!(err, StoreError::InvalidId { .. }),
                "{bad:?} gave {err}"
            );
        }
        for good in ["a", "A-1_b", &"x".repeat(MAX_ID_LEN)] {
            SessionId::parse(good).unwrap();
        }
    }

    #[test]
    fn the_error_says_what_is_wrong() {
        let err = SessionId::parse("../etc").unwrap_err().to_string();
        assert!(err.contains("`.`"), "{err}");
        assert!(err.contains("../etc"), "{err}");
    }
}
