//! The resume check: whether the branch ending at a leaf can be sent as it
//! is, as the history of a request, to each provider API, and why not.
//!
//! What every API rejects: an empty history, a tool call without its
//! result, a result without its call (the 400s of
//! `../shared/docs/store-anchors.md` section C). What one API rejects and
//! [`migrate`](crate::migrate::migrate) has to fix: a result written
//! after a later turn, a first turn that is not the user's, tool-call ids
//! the API does not take, arguments that are not an object. The counts come
//! from the migration's report, on the context the agent would send
//! (compaction honoured).

use serde::Serialize;

use crate::edit::EditError;
use crate::migrate::{count_changes, Change};
use crate::model::entry::EntryId;
use crate::model::message::MessageKind;
use crate::model::provider::Api;
use crate::session::Session;
use crate::source::Source;

/// The verdict for one API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resumable {
    /// The API (its CLI name in JSON).
    #[serde(serialize_with = "api_name")]
    pub api: Api,
    /// Whether the branch can be sent as it is.
    pub ok: bool,
    /// Why not, each with what fixes it; empty when `ok`.
    pub reasons: Vec<String>,
}

fn api_name<S: serde::Serializer>(api: &Api, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(api.name())
}

/// What blocks a send as-is, per change of the migration's report, and
/// what fixes it.
const BLOCKING: [(Change, &str, &str); 6] = [
    (
        Change::CallWithoutResult,
        "tool calls without a result",
        "`retrace seal` answers them in the file",
    ),
    (
        Change::ResultWithoutCall,
        "tool results without their call",
        "`retrace repair` drops them from the file",
    ),
    (
        Change::ResultMoved,
        "tool results not right after their call",
        "`retrace migrate` moves them",
    ),
    (
        Change::UserTurnAdded,
        "a first turn that is not the user's",
        "`retrace migrate` adds one",
    ),
    (
        Change::IdRegenerated,
        "tool-call ids the API does not take",
        "`retrace migrate` replaces them",
    ),
    (
        Change::ArgumentsWrapped,
        "tool arguments that are not a JSON object",
        "`retrace migrate` wraps them",
    ),
];

/// Whether the branch ending at `leaf` can be sent as it is to each API
/// (in [`Api::ALL`]'s order), and why not.
pub fn resume_check(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
) -> Result<Vec<Resumable>, EditError> {
    let messages = session.context(leaf, source)?;
    let empty = !messages
        .iter()
        .any(|m| m.kind != MessageKind::Marker && m.role != crate::model::message::Role::System);
    Ok(Api::ALL
        .into_iter()
        .map(|api| {
            let mut reasons = Vec::new();
            if empty {
                reasons.push("no messages: every API rejects an empty history".to_owned());
            } else {
                let counts = count_changes(&messages, api, &BLOCKING.map(|b| b.0));
                for ((_, what, fix), n) in BLOCKING.into_iter().zip(counts) {
                    if n > 0 {
                        reasons.push(format!("{what}: {n} ({fix})"));
                    }
                }
            }
            Resumable {
                api,
                ok: reasons.is_empty(),
                reasons,
            }
        })
        .collect())
}
