//! Errors as they cross to a caller: a stable code a program can match on,
//! and a message a person can read (which file, which row, what went wrong).

use serde::{Deserialize, Serialize};

/// What kind of failure an [`EngineError`] is. The codes are written
/// kebab-case (`no-session`) and never change meaning: a JS caller matches
/// on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The request could not be read: not JSON, an unknown kind, a field
    /// missing or of the wrong type, an unknown redaction mode.
    BadRequest,
    /// The request needs an open session and none is.
    NoSession,
    /// An index or id the session (or the folder listed) does not have: a
    /// leaf not in the tree, a row, an image, a file, a listed session.
    NotFound,
    /// What was given is no session: no files, too many, a binary file
    /// (an image, a program), a folder without session files.
    NotASession,
    /// The bytes of a file could not be read (the host's read failed).
    Unreadable,
    /// A later open replaced this one before it finished; its answer will
    /// never come (the later one's will).
    Superseded,
    /// The core refused to change the session: no safe fork point there,
    /// a seal of a format the engine cannot write.
    EditRefused,
    /// A branch with nothing to migrate: no user or model turn (system
    /// lines, markers or empty messages only), a history every API rejects.
    NothingToSend,
    /// Something that is not there in this build or this place (an image
    /// given only by a link, which is never fetched; a request kind of a
    /// cargo feature the build was made without).
    Unsupported,
    /// The engine was closed (`close()`) before it answered.
    Closed,
    /// A fault of the engine or its transport (an answer that could not be
    /// encoded, a worker that could not start); a bug to report.
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::BadRequest,
        ErrorCode::NoSession,
        ErrorCode::NotFound,
        ErrorCode::NotASession,
        ErrorCode::Unreadable,
        ErrorCode::Superseded,
        ErrorCode::EditRefused,
        ErrorCode::NothingToSend,
        ErrorCode::Unsupported,
        ErrorCode::Closed,
        ErrorCode::Internal,
    ];

    /// The code written `code` (`"not-found"`); one this build does not
    /// know (from a newer engine) is `Internal`.
    pub fn parse(code: &str) -> ErrorCode {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == code)
            .unwrap_or(ErrorCode::Internal)
    }

    /// The code as it crosses (`"not-found"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad-request",
            ErrorCode::NoSession => "no-session",
            ErrorCode::NotFound => "not-found",
            ErrorCode::NotASession => "not-a-session",
            ErrorCode::Unreadable => "unreadable",
            ErrorCode::Superseded => "superseded",
            ErrorCode::EditRefused => "edit-refused",
            ErrorCode::NothingToSend => "nothing-to-send",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Closed => "closed",
            ErrorCode::Internal => "internal",
        }
    }
}

/// A request that could not be served: `{ code, message }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EngineError {
    pub code: ErrorCode,
    pub message: String,
}

impl EngineError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> EngineError {
        EngineError {
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> EngineError {
        EngineError::new(ErrorCode::BadRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> EngineError {
        EngineError::new(ErrorCode::NotFound, message)
    }

    pub fn unreadable(message: impl Into<String>) -> EngineError {
        EngineError::new(ErrorCode::Unreadable, message)
    }

    pub fn internal(message: impl Into<String>) -> EngineError {
        EngineError::new(ErrorCode::Internal, message)
    }

    /// A request of `kind`, which this build was made without (its cargo
    /// `feature` adds it): `unsupported`.
    pub fn not_built(kind: &str, feature: &str) -> EngineError {
        EngineError::new(
            ErrorCode::Unsupported,
            format!("`{kind}` is not in this build of the engine (cargo feature `{feature}`; the npm package has it)"),
        )
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for EngineError {}

/// A body that could not be read is the host's failure to give its bytes.
impl From<retrace_core::SourceError> for EngineError {
    fn from(e: retrace_core::SourceError) -> EngineError {
        EngineError::unreadable(e.to_string())
    }
}
