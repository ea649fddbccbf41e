//! The compatibility report: what a migration to one API loses or changes,
//! and what the caller must do to send it (notes), per field, with counts
//! and where.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::model::provider::Api;
use crate::model::sort::sort_by_key;

/// One kind of thing a migration loses or changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Thinking the target cannot take back: it has no place for it
    /// (OpenAI Chat, Google), or the thinking carries no signature of the
    /// target's own (Anthropic, OpenAI Responses need theirs).
    ThinkingDropped,
    /// Redacted thinking (opaque data only) from another API.
    RedactedThinkingDropped,
    /// Signatures or encrypted reasoning written by another API, which the
    /// target cannot verify.
    SignatureDropped,
    /// Images the target cannot take where they are (in an assistant turn,
    /// in an OpenAI tool result).
    ImageDropped,
    /// Images whose bytes the session does not hold (only their size).
    ImageWithoutPayload,
    /// Tool results marked as errors, for a target without an error flag.
    ErrorFlagDropped,
    /// Messages with model, usage, timestamps or stop reasons: response
    /// metadata, not part of a request.
    MetadataDropped,
    /// Empty text parts and messages left empty (the APIs reject them).
    EmptyDropped,
    /// Tool results with no call before them, written as user text.
    ResultWithoutCall,
    /// Tool calls with no result after them, given a result saying none
    /// was recorded (every API rejects an unanswered call).
    CallWithoutResult,
    /// Tool results written after a user or system turn, moved right after
    /// their call (where every API wants them).
    ResultMoved,
    /// Roles the target names differently (`assistant` → `model`, tool
    /// results in `user` turns).
    RoleRenamed,
    /// System messages moved to where the target keeps instructions
    /// (top-level `system`, `systemInstruction`).
    SystemMoved,
    /// Consecutive turns of one role merged (the target wants turns to
    /// alternate).
    TurnsMerged,
    /// Tool-call ids the target rejects (characters, length, repeats),
    /// replaced by stable ones in calls and results alike.
    IdRegenerated,
    /// Tool calls without ids (Google) given stable generated ones.
    IdGenerated,
    /// Tool arguments that are not a JSON object, wrapped as `{"input": …}`.
    ArgumentsWrapped,
    /// Compaction summaries, shell commands and extension messages, written
    /// as plain user text.
    KindFlattened,
    /// Timeline markers (a rollback, an aborted turn, an error event, a git
    /// checkpoint): retrace's notes of what happened, never said to a model.
    MarkerLeftOut,
    /// Calls of tools the provider ran itself (web search), with their
    /// outcome, written as assistant text: the target cannot be handed a
    /// call it did not make, nor its result.
    ServerToolFlattened,
    /// Tool calls in a message that is not the assistant's (a damaged
    /// history: only the model calls tools), written as text where they
    /// were; a result of one is then a result without a call.
    CallOutsideAssistantFlattened,
    /// A user turn put first: the API wants the history to open with one.
    UserTurnAdded,
    /// Media other than images (a PDF, audio) where the target takes only
    /// images.
    MediaDropped,
    /// OpenAI Responses items written without what the SDKs' typed input
    /// items require: assistant `message` items without `id` and `status`,
    /// `reasoning` items without `id`. The API takes them (Codex sends
    /// them); a client built on those types does not. A note: nothing is
    /// changed.
    ItemIdMissing,
    /// Google: function calls of an open tool loop (the history ends with
    /// their responses; the calls after the last user turn) without a
    /// Gemini thought signature, which Gemini 3 requires. A note: nothing
    /// is changed.
    ThoughtSignatureMissing,
    /// Anthropic: the open tool loop's last assistant turn does not start
    /// with a signed thinking block, which Anthropic requires when extended
    /// thinking is on. A note: nothing is changed.
    LoopThinkingMissing,
}

impl Change {
    /// The stable kebab-case code.
    pub fn code(self) -> &'static str {
        match self {
            Change::ThinkingDropped => "thinking-dropped",
            Change::RedactedThinkingDropped => "redacted-thinking-dropped",
            Change::SignatureDropped => "signature-dropped",
            Change::ImageDropped => "image-dropped",
            Change::ImageWithoutPayload => "image-without-payload",
            Change::ErrorFlagDropped => "error-flag-dropped",
            Change::MetadataDropped => "metadata-dropped",
            Change::EmptyDropped => "empty-dropped",
            Change::ResultWithoutCall => "result-without-call",
            Change::CallWithoutResult => "call-without-result",
            Change::ResultMoved => "result-moved",
            Change::RoleRenamed => "role-renamed",
            Change::SystemMoved => "system-moved",
            Change::TurnsMerged => "turns-merged",
            Change::IdRegenerated => "id-regenerated",
            Change::IdGenerated => "id-generated",
            Change::ArgumentsWrapped => "arguments-wrapped",
            Change::KindFlattened => "kind-flattened",
            Change::MarkerLeftOut => "marker-left-out",
            Change::ServerToolFlattened => "server-tool-flattened",
            Change::CallOutsideAssistantFlattened => "call-outside-assistant-flattened",
            Change::UserTurnAdded => "user-turn-added",
            Change::MediaDropped => "media-dropped",
            Change::ItemIdMissing => "item-id-missing",
            Change::ThoughtSignatureMissing => "thought-signature-missing",
            Change::LoopThinkingMissing => "loop-thinking-missing",
        }
    }

    /// The model field it is about.
    pub fn field(self) -> &'static str {
        match self {
            Change::ThinkingDropped | Change::RedactedThinkingDropped => "thinking",
            Change::SignatureDropped => "thinking.signature",
            Change::ImageDropped | Change::ImageWithoutPayload | Change::MediaDropped => "image",
            Change::ErrorFlagDropped => "tool_result.is_error",
            Change::MetadataDropped => "model/usage/timestamp",
            Change::EmptyDropped => "text",
            Change::ResultWithoutCall | Change::ResultMoved => "tool_result",
            Change::CallWithoutResult => "tool_call",
            Change::RoleRenamed => "role",
            Change::SystemMoved => "system",
            Change::TurnsMerged => "turns",
            Change::IdRegenerated | Change::IdGenerated => "tool_call.id",
            Change::ArgumentsWrapped => "tool_call.arguments",
            Change::KindFlattened | Change::MarkerLeftOut => "kind",
            Change::ServerToolFlattened | Change::CallOutsideAssistantFlattened => "tool_call",
            Change::UserTurnAdded => "turns",
            Change::ItemIdMissing => "item.id",
            Change::ThoughtSignatureMissing => "tool_call.signature",
            Change::LoopThinkingMissing => "thinking",
        }
    }

    /// Whether content is lost (rather than only written differently).
    pub fn is_loss(self) -> bool {
        matches!(
            self,
            Change::ThinkingDropped
                | Change::RedactedThinkingDropped
                | Change::SignatureDropped
                | Change::ImageDropped
                | Change::ImageWithoutPayload
                | Change::MediaDropped
                | Change::ErrorFlagDropped
        )
    }

    /// Whether it is a note for the caller: the history is written as it
    /// is, but sending it needs something of the caller (a setting, a
    /// client that takes raw JSON) that the note says.
    pub fn is_note(self) -> bool {
        matches!(
            self,
            Change::ItemIdMissing | Change::ThoughtSignatureMissing | Change::LoopThinkingMissing
        )
    }

    fn describe(self, to: Api) -> &'static str {
        match (self, to) {
            (Change::ThinkingDropped, Api::OpenAiChat | Api::Google) => {
                "thinking dropped: this API takes no thinking back"
            }
            (Change::ThinkingDropped, Api::Anthropic) => {
                "thinking dropped: no Anthropic signature to send it back with"
            }
            (Change::ThinkingDropped, Api::OpenAiResponses) => {
                "thinking dropped: no OpenAI reasoning item id to send it back with"
            }
            (Change::RedactedThinkingDropped, _) => {
                "redacted thinking dropped: opaque data of another API"
            }
            (Change::SignatureDropped, _) => {
                "thinking signatures / encrypted reasoning of another API dropped"
            }
            (Change::ImageDropped, Api::Google) => {
                "images dropped: given by a URL that does not say their type, which Google needs"
            }
            (Change::ImageDropped, _) => "images dropped: not allowed there by this API",
            (Change::ImageWithoutPayload, _) => {
                "images dropped: the session holds only their size, not their bytes"
            }
            (Change::ErrorFlagDropped, _) => {
                "tool results' error flag dropped: this API has none (the text is kept)"
            }
            (Change::MetadataDropped, _) => {
                "model names, token usage, timestamps and stop reasons left out (not part of a request)"
            }
            (Change::EmptyDropped, _) => "empty texts or messages left out",
            (Change::ResultWithoutCall, _) => {
                "tool results without a call before them written as user text"
            }
            (Change::CallWithoutResult, _) => {
                "tool calls without a result given one saying none was recorded"
            }
            (Change::ResultMoved, _) => {
                "tool results written after a user or system turn moved right after their call"
            }
            (Change::RoleRenamed, Api::Google) => {
                "roles renamed: assistant → model, tool results in user turns"
            }
            (Change::RoleRenamed, _) => "tool results written in user turns",
            (Change::SystemMoved, Api::Google) => {
                "system messages moved into systemInstruction"
            }
            (Change::SystemMoved, _) => "system messages moved into the top-level system",
            (Change::TurnsMerged, _) => "consecutive turns of one role merged",
            (Change::IdRegenerated, _) => {
                "tool-call ids this API rejects replaced by stable ones (calls and results alike)"
            }
            (Change::IdGenerated, _) => "tool calls without ids given stable generated ones",
            (Change::ArgumentsWrapped, _) => {
                "tool arguments that are not a JSON object wrapped as {\"input\": …}"
            }
            (Change::KindFlattened, _) => {
                "summaries, shell commands and extension messages written as user text"
            }
            (Change::MarkerLeftOut, _) => {
                "timeline markers (rollbacks, aborted turns, errors, checkpoints) left out: never said to a model"
            }
            (Change::ServerToolFlattened, _) => {
                "calls of tools the provider ran itself (web search) written as assistant text, with their outcome"
            }
            (Change::CallOutsideAssistantFlattened, _) => {
                "tool calls in a user, tool or system message written as text there: only the assistant calls tools"
            }
            (Change::MediaDropped, Api::Anthropic) => {
                "media this API takes nowhere dropped (it takes JPEG, PNG, GIF and WebP images and PDFs)"
            }
            (Change::MediaDropped, _) => {
                "media other than images (a PDF, audio) dropped: this API takes them nowhere here"
            }
            (Change::UserTurnAdded, _) => {
                "a user turn added at the start: this API wants the history to open with one"
            }
            (Change::ItemIdMissing, _) => {
                "assistant message items without id/status, reasoning items without id: the API takes them (Codex sends them), the SDKs' typed input items do not; send the body as JSON, not built from those types"
            }
            (Change::ThoughtSignatureMissing, _) => {
                "function calls of the open tool loop (after the last user turn) have no Gemini thought signature: Gemini 3 rejects them; for Gemini 3 set their thoughtSignature to \"skip_thought_signature_validator\", or send a user message after the results (earlier models take them as they are)"
            }
            (Change::LoopThinkingMissing, _) => {
                "the open tool loop's last assistant turn has no Anthropic thinking block: with extended thinking on, Anthropic rejects it; send this request with thinking off (a tool loop is one turn: turn it on again once the loop ends)"
            }
        }
    }
}

/// How often one change happens, and the first few messages it touches.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeCount {
    /// The change.
    pub change: Change,
    /// Its stable code (`thinking-dropped`), as `--report --json` names it.
    pub code: &'static str,
    /// The field of the target it concerns.
    pub field: &'static str,
    /// How many times it happened.
    pub count: usize,
    /// Whether something was lost rather than written differently.
    pub loss: bool,
    /// Whether it is a note for the caller: nothing changed, but sending
    /// the history needs what the description says.
    pub note: bool,
    /// What happened, in a sentence.
    pub description: &'static str,
    /// Where, as the messages' entry ids (or `#<index>` of the message in
    /// the context when it has none), first few only.
    pub at: Vec<String>,
}

/// What a migration of a message list to one API loses or changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    /// The API migrated to.
    pub to: Api,
    /// Messages read.
    pub messages: usize,
    /// Turns written (after merging and splitting).
    pub turns: usize,
    /// Each change that happens, most serious first.
    pub changes: Vec<ChangeCount>,
}

impl Report {
    /// Whether nothing is lost (changes of form only).
    pub fn is_lossless(&self) -> bool {
        self.changes.iter().all(|c| !c.loss)
    }

    /// How often `change` happens.
    pub fn count(&self, change: Change) -> usize {
        self.changes
            .iter()
            .find(|c| c.change == change)
            .map_or(0, |c| c.count)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} messages → {} turns for {}",
            self.messages,
            self.turns,
            self.to.title()
        )?;
        if self.changes.is_empty() {
            return writeln!(f, "nothing lost or changed");
        }
        for c in &self.changes {
            let mark = match (c.loss, c.note) {
                (true, _) => "lost",
                (false, true) => "note",
                (false, false) => "changed",
            };
            write!(
                f,
                "{:>6}  {:<7} {:<24} {}",
                c.count, mark, c.field, c.description
            )?;
            if !c.at.is_empty() {
                write!(f, " (at {})", c.at.join(", "))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Counts changes while a migration runs.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    counts: BTreeMap<Change, (usize, Vec<String>)>,
}

/// How many places a report names per change.
const EXAMPLES: usize = 3;

impl Tally {
    /// Notes one occurrence of `change` at `place`.
    pub fn note(&mut self, change: Change, place: &str) {
        self.note_n(change, 1, place);
    }

    /// Notes a thinking part the target cannot take: dropped, with its
    /// signature when it had one.
    pub fn thinking_dropped(&mut self, redacted: bool, signed: bool, place: &str) {
        if redacted {
            self.note(Change::RedactedThinkingDropped, place);
        } else {
            self.note(Change::ThinkingDropped, place);
            if signed {
                self.note(Change::SignatureDropped, place);
            }
        }
    }

    /// Notes `n` occurrences of `change` at `place`.
    pub fn note_n(&mut self, change: Change, n: usize, place: &str) {
        if n == 0 {
            return;
        }
        let slot = self.counts.entry(change).or_default();
        slot.0 += n;
        if slot.1.len() < EXAMPLES && slot.1.last().map(String::as_str) != Some(place) {
            slot.1.push(place.to_owned());
        }
    }

    /// How many of `change` were noted.
    pub fn count(&self, change: Change) -> usize {
        self.counts.get(&change).map_or(0, |c| c.0)
    }

    pub fn into_report(self, to: Api, messages: usize, turns: usize) -> Report {
        let mut changes: Vec<ChangeCount> = self
            .counts
            .into_iter()
            .map(|(change, (count, at))| ChangeCount {
                change,
                code: change.code(),
                field: change.field(),
                count,
                loss: change.is_loss(),
                note: change.is_note(),
                description: change.describe(to),
                at,
            })
            .collect();
        // Losses first, then notes, then changes of form; each in
        // declaration order.
        sort_by_key(&mut changes, |c| (!c.loss, !c.note, c.change));
        Report {
            to,
            messages,
            turns,
            changes,
        }
    }
}
