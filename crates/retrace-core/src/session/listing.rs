//! A session in one line, as `retrace list` prints it and the viewer lists
//! the sessions of a dropped folder: its title, when it started, its
//! format and model. From the index and a few bodies at the start of the
//! conversation, never the whole session, so a folder of thousands of
//! sessions lists quickly.

use serde::{Deserialize, Serialize};

use crate::session::preview::segment_preview;
use crate::{Session, Source, SourceError};

/// Segments looked at for a title: a session that starts with events or
/// tool output still finds its first prompt, without reading every body.
const TITLE_SEGMENTS: usize = 8;

/// Entries of the default branch read for the model.
const MODEL_ENTRIES: usize = 64;

/// What a list of sessions shows of one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Listed {
    /// The first prompt someone typed (see [`session_title`]), if any.
    pub title: Option<String>,
    /// The format's name, as `--format` takes it.
    pub format: String,
    /// The earliest and latest entry timestamps, in milliseconds since
    /// the Unix epoch.
    pub start: Option<i64>,
    /// See `start`.
    pub end: Option<i64>,
    /// The first model named on the default branch.
    pub model: Option<String>,
    /// Entries read.
    pub entries: usize,
    /// Files read (the conversation and its subagent runs).
    pub files: usize,
    /// Subagent runs linked to the conversation.
    pub subagents: usize,
}

impl Listed {
    /// The line of `session`, reading bodies through `source` (a
    /// [`RedactingSource`](crate::redact::RedactingSource) lists titles
    /// with sensitive data hidden). A body that does not parse is passed
    /// over.
    pub fn new(session: &Session, source: &mut dyn Source) -> Result<Listed, SourceError> {
        let (mut start, mut end) = (None::<i64>, None::<i64>);
        for t in session.entries().iter().filter_map(|e| e.timestamp()) {
            start = Some(start.map_or(t, |s| s.min(t)));
            end = Some(end.map_or(t, |e| e.max(t)));
        }
        Ok(Listed {
            title: session_title(session, source)?,
            format: session.format().name().to_owned(),
            start,
            end,
            model: first_model(session, source)?,
            entries: session.entries().len(),
            files: session.files().len(),
            subagents: session.subagents().len(),
        })
    }
}

/// A session's title: the preview ([`segment_preview`]) of the first of
/// its first segments that is a prompt someone typed, else the first thing
/// said; `None` when nothing is said in text there.
pub fn session_title(
    session: &Session,
    source: &mut dyn Source,
) -> Result<Option<String>, SourceError> {
    let mut fallback = None;
    for segment in session.outline().iter().take(TITLE_SEGMENTS) {
        if let Some(preview) = segment_preview(session, source, segment)? {
            if preview.prompt {
                return Ok(Some(preview.text));
            }
            fallback.get_or_insert(preview.label());
        }
    }
    Ok(fallback)
}

/// The first model a message of the default branch names, among its
/// first [`MODEL_ENTRIES`] entries.
fn first_model(session: &Session, source: &mut dyn Source) -> Result<Option<String>, SourceError> {
    let Some(leaf) = session.tree().default_leaf() else {
        return Ok(None);
    };
    for e in session.branch(leaf).into_iter().take(MODEL_ENTRIES) {
        for message in session.messages(e, source)? {
            if let Some(model) = message.model.filter(|m| !m.is_empty()) {
                return Ok(Some(model));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_the_first_prompt_and_the_model() {
        let lines = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix the build\nplease"}]}}"#,
            "\n",
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:05:00.000Z","message":{"role":"assistant","model":"m-1","content":[{"type":"text","text":"Done."}]}}"#,
            "\n",
        );
        let s = Session::from_bytes("s.jsonl", lines.as_bytes());
        let mut source: &[u8] = lines.as_bytes();
        let listed = Listed::new(&s, &mut source).unwrap();
        assert_eq!(listed.title.as_deref(), Some("Fix the build"));
        assert_eq!(listed.model.as_deref(), Some("m-1"));
        assert_eq!(listed.format, "pi");
        assert_eq!(listed.end.unwrap() - listed.start.unwrap(), 300_000);
        assert_eq!((listed.entries, listed.files), (3, 1));
    }
}
