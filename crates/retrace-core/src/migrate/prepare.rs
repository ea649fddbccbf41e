//! The part of a migration every API shares: messages turned into turns of
//! items, images of tool results attached to their result, calls and
//! results paired, and tool-call ids made valid for the target.

use std::collections::HashSet;

use serde_json::Value;

use super::report::{Change, Tally};
use crate::model::message::{
    ImageSource, Message, MessageExtra, MessageKind, Part, PartExtra, Role,
};
use crate::model::provider::Api;
use crate::model::sort::sort_by_key;

/// One message, ready to render.
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    pub role: Role,
    pub items: Vec<Item>,
    /// Where it came from, for the report.
    pub place: String,
    pub extra: Option<MessageExtra>,
}

/// One piece of a turn.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Text {
        text: String,
        extra: PartExtra,
    },
    Thinking {
        text: String,
        redacted: bool,
        extra: PartExtra,
    },
    Call {
        /// The id to write (valid for the target).
        id: String,
        /// False when the source had no id and the target does not need
        /// one (Google).
        emit_id: bool,
        name: String,
        arguments: Value,
        extra: PartExtra,
    },
    Result {
        call_id: String,
        emit_id: bool,
        /// The name of the call it answers.
        name: String,
        output: String,
        is_error: bool,
        /// Images the result returned.
        images: Vec<Image>,
        structured: Option<Value>,
    },
    Image(Image),
}

#[derive(Debug, Clone)]
pub(crate) struct Image {
    pub media_type: String,
    /// `None` when the session holds only the image's size.
    pub source: Option<ImageSource>,
}

/// What a result says when the session recorded none.
pub(crate) const NO_RESULT: &str = "[no result was recorded for this call]";

/// Turns `messages` into turns for `to`.
pub(crate) fn prepare(messages: &[Message], to: Api, tally: &mut Tally) -> Vec<Turn> {
    let mut turns = Vec::with_capacity(messages.len());
    // Calls in order: (turn, item, original id, name).
    let mut calls: Vec<CallSlot> = Vec::new();
    // Open calls, oldest first (indexes into `calls`).
    let mut open: Vec<usize> = Vec::new();
    // Results that answer a call: (turn, item, call).
    let mut answers: Vec<(usize, usize, usize)> = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        let place = m
            .entries
            .first()
            .cloned()
            .unwrap_or_else(|| format!("#{index}"));
        if m.kind == MessageKind::Marker {
            tally.note(Change::MarkerLeftOut, &place);
            continue;
        }
        if m.model.is_some() || m.usage.is_some() || m.timestamp.is_some() {
            tally.note(Change::MetadataDropped, &place);
        }
        if m.kind != MessageKind::Normal && m.role != Role::Assistant {
            tally.note(Change::KindFlattened, &place);
        }
        let t = turns.len();
        let mut items: Vec<Item> = Vec::with_capacity(m.content.len());
        let served = served_calls(m);
        for (i, part) in m.content.iter().enumerate() {
            let extra = m.part_extra(i).cloned().unwrap_or_default();
            // A Gemini thought signature on a text or a call means nothing
            // to another API (thinking parts are judged by each renderer).
            let foreign = extra.signature.is_some() && extra.api != Some(to);
            if foreign && matches!(part, Part::Text { .. } | Part::ToolCall { .. }) {
                tally.note(Change::SignatureDropped, &place);
            }
            match part {
                Part::Text { text } => {
                    if text.trim().is_empty() {
                        tally.note(Change::EmptyDropped, &place);
                    } else {
                        items.push(Item::Text {
                            text: text.clone(),
                            extra,
                        });
                    }
                }
                Part::Thinking { text, redacted, .. } => items.push(Item::Thinking {
                    text: text.clone(),
                    redacted: *redacted,
                    extra,
                }),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } if served.contains(id.as_str()) => {
                    tally.note(Change::ServerToolFlattened, &place);
                    items.push(Item::Text {
                        text: format!("[{name} {}]", arguments_text(arguments)),
                        extra: PartExtra::default(),
                    });
                }
                Part::ToolResult {
                    call_id, output, ..
                } if served.contains(call_id.as_str()) => {
                    if !output.trim().is_empty() {
                        items.push(Item::Text {
                            text: output.clone(),
                            extra: PartExtra::default(),
                        });
                    }
                }
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    open.push(calls.len());
                    calls.push(CallSlot {
                        turn: t,
                        item: items.len(),
                        original: id.clone(),
                        name: name.clone(),
                        answered: false,
                    });
                    items.push(Item::Call {
                        id: String::new(),
                        emit_id: true,
                        name: name.clone(),
                        arguments: arguments.clone(),
                        extra,
                    });
                }
                Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                } => {
                    let slot = pair(&mut calls, &mut open, call_id, extra.tool_name.as_deref());
                    match slot {
                        Some(s) => {
                            answers.push((t, items.len(), s));
                            items.push(Item::Result {
                                // Filled in once the ids are settled.
                                call_id: String::new(),
                                emit_id: true,
                                name: calls[s].name.clone(),
                                output: output.clone(),
                                is_error: *is_error,
                                images: Vec::new(),
                                structured: extra.structured,
                            });
                        }
                        None => {
                            tally.note(Change::ResultWithoutCall, &place);
                            let shown = if call_id.is_empty() {
                                "[result of a tool call]".to_owned()
                            } else {
                                format!("[result of tool call {call_id}]")
                            };
                            items.push(Item::Text {
                                text: format!("{shown}\n{output}"),
                                extra: PartExtra::default(),
                            });
                        }
                    }
                }
                // A timeline mark in a message of another kind (the
                // normalizers put it in a marker, left out above).
                Part::Checkpoint { .. } => tally.note(Change::MarkerLeftOut, &place),
                Part::Image { media_type, .. } => {
                    let of_result = extra.of_result;
                    let image = Image {
                        media_type: media_type.clone(),
                        source: extra.image,
                    };
                    // Images a tool returned go with its result; others (a
                    // screenshot the user added) stay beside it.
                    match items.last_mut() {
                        Some(Item::Result { images, .. }) if of_result => images.push(image),
                        _ => items.push(Item::Image(image)),
                    }
                }
            }
        }
        if items.is_empty() {
            // (A turn with a call or result is never empty, so the turn
            // numbers recorded above stay right.)
            tally.note(Change::EmptyDropped, &place);
            continue;
        }
        turns.push(Turn {
            role: m.role,
            items,
            place,
            extra: m.extra.as_deref().cloned(),
        });
    }
    let ids = settle_ids(&calls, to, tally, &turns);
    for (s, slot) in calls.iter().enumerate() {
        if let Item::Call { id, emit_id, .. } = &mut turns[slot.turn].items[slot.item] {
            id.clone_from(&ids[s].0);
            *emit_id = ids[s].1;
        }
    }
    for &(t, i, s) in &answers {
        if let Item::Result {
            call_id, emit_id, ..
        } = &mut turns[t].items[i]
        {
            call_id.clone_from(&ids[s].0);
            *emit_id = ids[s].1;
        }
    }
    place_results(&mut turns, &calls, &ids, &answers, tally);
    turns
}

/// The calls an assistant message answers itself: tools the provider ran
/// (a web search), whose outcome it recorded beside the call.
fn served_calls(m: &Message) -> HashSet<&str> {
    if m.role != Role::Assistant {
        return HashSet::new();
    }
    let results: HashSet<&str> = m.tool_results().map(|(id, _)| id).collect();
    m.tool_calls()
        .map(|(id, _)| id)
        .filter(|id| results.contains(id))
        .collect()
}

/// A call's arguments as one line of text.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[derive(Debug)]
struct CallSlot {
    turn: usize,
    item: usize,
    original: String,
    name: String,
    answered: bool,
}

/// The open call a result answers: by id, or (for results without one, as
/// Google writes them) the oldest open call of the same name, or the oldest.
fn pair(
    calls: &mut [CallSlot],
    open: &mut Vec<usize>,
    call_id: &str,
    name: Option<&str>,
) -> Option<usize> {
    let at = if !call_id.is_empty() {
        open.iter().rposition(|&s| calls[s].original == call_id)
    } else {
        name.and_then(|n| open.iter().position(|&s| calls[s].name == n))
            .or_else(|| (!open.is_empty()).then_some(0))
    }?;
    let s = open.remove(at);
    calls[s].answered = true;
    Some(s)
}

/// The id each call gets for `to`, and whether to write it: the original
/// when the target accepts it and it is not taken, else a stable new one.
fn settle_ids(
    calls: &[CallSlot],
    to: Api,
    tally: &mut Tally,
    turns: &[Turn],
) -> Vec<(String, bool)> {
    let mut used: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(calls.len());
    for (n, slot) in calls.iter().enumerate() {
        let place = &turns[slot.turn].place;
        let (id, emit) = if slot.original.is_empty() {
            // Google needs no id; the others get a generated one.
            if to != Api::Google {
                tally.note(Change::IdGenerated, place);
            }
            (unique(format!("call_{n}"), &used), to != Api::Google)
        } else if valid_id(to, &slot.original) && !used.contains(&slot.original) {
            (slot.original.clone(), true)
        } else {
            tally.note(Change::IdRegenerated, place);
            (regenerate(to, &slot.original, &used), true)
        };
        used.insert(id.clone());
        out.push((id, emit));
    }
    out
}

/// Whether `to` accepts `id` as a tool-call id.
pub(crate) fn valid_id(to: Api, id: &str) -> bool {
    let charset = || {
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    match to {
        // `^[a-zA-Z0-9_-]+$`
        Api::Anthropic => !id.is_empty() && charset(),
        // At most 40 characters.
        Api::OpenAiChat => !id.is_empty() && id.len() <= 40,
        // At most 64 characters.
        Api::OpenAiResponses => !id.is_empty() && id.len() <= 64,
        Api::Google => true,
    }
}

/// A stable replacement for `original`: its characters made safe when that
/// is enough, else `call_` and a hash of it.
fn regenerate(to: Api, original: &str, used: &HashSet<String>) -> String {
    let safe: String = original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let candidate = if valid_id(to, &safe) && valid_id(Api::OpenAiChat, &safe) {
        safe
    } else {
        format!("call_{:016x}", fnv1a(original.as_bytes()))
    };
    unique(candidate, used)
}

/// `id`, or `id_2`, `id_3`, … whichever is not taken.
fn unique(id: String, used: &HashSet<String>) -> String {
    if !used.contains(&id) {
        return id;
    }
    (2..)
        .map(|k| format!("{id}_{k}"))
        .find(|c| !used.contains(c))
        .expect("some suffix is free")
}

/// FNV-1a, 64 bits: a stable hash (the standard library's is seeded).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Puts every call's result after the call's turn before anything the user
/// or system says, where every API wants it: a result written after such a
/// turn is moved right after its call, and an unanswered call gets one
/// saying none was recorded. (Assistant turns may sit between: parallel
/// calls written a turn each, which the renderers join.) The results of one
/// turn's calls go in call order, after those already there.
fn place_results(
    turns: &mut Vec<Turn>,
    calls: &[CallSlot],
    ids: &[(String, bool)],
    answers: &[(usize, usize, usize)],
    tally: &mut Tally,
) {
    // (call turn, call, result) of each result to place.
    let mut placed: Vec<(usize, usize, Item)> = Vec::new();
    let mut late: Vec<(usize, usize, usize)> = answers
        .iter()
        .copied()
        .filter(|&(t, _, s)| {
            let call = calls[s].turn;
            t > call + 1
                && turns[call + 1..t]
                    .iter()
                    .any(|x| matches!(x.role, Role::User | Role::System))
        })
        .collect();
    // Back to front, so taking an item out does not move the others.
    sort_by_key(&mut late, |&(t, i, _)| std::cmp::Reverse((t, i)));
    for (t, i, s) in late {
        tally.note(Change::ResultMoved, &turns[t].place.clone());
        let item = turns[t].items.remove(i);
        placed.push((calls[s].turn, s, item));
    }
    for (s, slot) in calls.iter().enumerate() {
        if slot.answered {
            continue;
        }
        tally.note(Change::CallWithoutResult, &turns[slot.turn].place.clone());
        let result = Item::Result {
            call_id: ids[s].0.clone(),
            emit_id: ids[s].1,
            name: slot.name.clone(),
            output: NO_RESULT.to_owned(),
            is_error: true,
            images: Vec::new(),
            structured: None,
        };
        placed.push((slot.turn, s, result));
    }
    sort_by_key(&mut placed, |&(turn, s, _)| (turn, s));
    // Back to front, so inserting a turn does not move the ones still to do.
    let mut placed = placed.into_iter().rev().peekable();
    while let Some((turn, _, last)) = placed.next() {
        let mut results = vec![last];
        while let Some((_, _, item)) = placed.next_if(|p| p.0 == turn) {
            results.push(item);
        }
        results.reverse();
        let next = turn + 1;
        match turns.get_mut(next) {
            Some(t) if t.role == Role::Tool => {
                // After the results already there.
                let at = t
                    .items
                    .iter()
                    .rposition(|i| matches!(i, Item::Result { .. }))
                    .map_or(0, |i| i + 1);
                t.items.splice(at..at, results);
            }
            _ => {
                let place = turns[turn].place.clone();
                turns.insert(
                    next,
                    Turn {
                        role: Role::Tool,
                        items: results,
                        place,
                        extra: None,
                    },
                );
            }
        }
    }
    after_results(turns);
    // A turn that held only results moved away.
    turns.retain(|t| !t.items.is_empty());
}

/// Moves the texts a run of tool turns holds (a result that answers no
/// call, written as text) after the run's last result: written where it
/// was, it became a user message between the results of one turn's calls,
/// which OpenAI Chat refuses, and which a migration of the migrated
/// history moved (found by the `migrate` fuzz target). Images stay where
/// they are: a result's image read back from a Google body is an image
/// beside it, which must stay there for a second migration to give the
/// same body.
fn after_results(turns: &mut [Turn]) {
    let mut start = 0;
    while start < turns.len() {
        if turns[start].role != Role::Tool {
            start += 1;
            continue;
        }
        let end = start
            + turns[start..]
                .iter()
                .take_while(|t| t.role == Role::Tool)
                .count();
        let mut others = Vec::new();
        for t in &mut turns[start..end] {
            let (kept, rest): (Vec<Item>, Vec<Item>) = std::mem::take(&mut t.items)
                .into_iter()
                .partition(|i| !matches!(i, Item::Text { .. }));
            t.items = kept;
            others.extend(rest);
        }
        turns[end - 1].items.extend(others);
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_per_target() {
        assert!(valid_id(Api::Anthropic, "toolu_01EF5USX"));
        assert!(!valid_id(Api::Anthropic, "call_1|fc_1"));
        assert!(!valid_id(Api::Anthropic, "Bash:12"));
        let gemini = "google_web_search-1763585186176-b4f984d5c6a1a8";
        assert!(valid_id(Api::Anthropic, gemini));
        assert!(!valid_id(Api::OpenAiChat, gemini));
        assert!(valid_id(Api::OpenAiResponses, gemini));
        let used = HashSet::new();
        assert_eq!(
            regenerate(Api::Anthropic, "call_1|fc_1", &used),
            "call_1_fc_1"
        );
        let long = regenerate(Api::OpenAiChat, gemini, &used);
        assert!(long.starts_with("call_") && long.len() == 21, "{long}");
        assert_eq!(long, regenerate(Api::OpenAiChat, gemini, &used));
        let used: HashSet<String> = ["x".to_owned(), "x_2".to_owned()].into();
        assert_eq!(unique("x".into(), &used), "x_3");
    }
}
