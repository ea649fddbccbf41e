//! A result's output streams where the file keeps them apart beside the
//! result's text: Claude Code writes a tool result's text (stdout and
//! stderr run together) in `message.content`, and beside it, in the line's
//! `toolUseResult`, `stdout`, `stderr` and `interrupted` apart. Views show
//! stderr apart from the output ([`ToolOutput::stderr`]).

use serde_json::Value;

use super::output::ToolOutput;
use crate::model::entry::EntryId;
use crate::model::message::Message;
use crate::session::Session;
use crate::source::{Source, SourceError};

impl Session {
    /// The output of the result on `entry` with its streams apart, read
    /// from the line's `toolUseResult` (Claude Code), when `message` (the
    /// line's) holds one result and the line keeps stderr apart or says
    /// the run was interrupted. `None` otherwise: the result's text is
    /// all there is ([`ToolOutput::of`] takes it apart where it can).
    pub fn result_streams<S: Source + ?Sized>(
        &self,
        entry: EntryId,
        message: &Message,
        source: &mut S,
    ) -> Result<Option<ToolOutput>, SourceError> {
        if message.tool_results().count() != 1 {
            return Ok(None);
        }
        if self.file_format(self.entry(entry).file) != crate::Format::ClaudeCode {
            return Ok(None);
        }
        let Ok(body) = self.body(entry, source)? else {
            return Ok(None);
        };
        let Some(r) = body.get("toolUseResult") else {
            return Ok(None);
        };
        let stdout = r.get("stdout").and_then(Value::as_str);
        let stderr = r
            .get("stderr")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let interrupted = r.get("interrupted").and_then(Value::as_bool) == Some(true);
        Ok(match stdout {
            Some(out) if stderr.is_some() || interrupted => Some(ToolOutput {
                output: out.to_owned(),
                stderr: stderr.map(str::to_owned),
                interrupted,
                ..ToolOutput::default()
            }),
            _ => None,
        })
    }
}
