//! The part of a migration every API shares: messages turned into turns of
//! items, images of tool results attached to their result, calls and
//! results paired, and tool-call ids made valid for the target.

use std::collections::{HashSet, VecDeque};

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

/// Pairing as it stands after the messages so far: every call in order,
/// the open ones oldest first. Both passes build it alike (it is
/// deterministic), so a call's number means the same call in each.
#[derive(Debug, Default)]
struct Pairing {
    calls: Vec<CallSlot>,
    /// Open calls, oldest first (indexes into `calls`).
    open: Vec<usize>,
    /// Turns made so far.
    turns: usize,
}

/// One message as a turn (call ids and result ids still empty), with the
/// results it holds that answer a call: (item, call). `None` for a message
/// left out (a marker) or left empty.
fn turn_of(
    m: &Message,
    index: usize,
    to: Api,
    tally: &mut Tally,
    pairing: &mut Pairing,
) -> Option<(Turn, Vec<(usize, usize)>)> {
    let place = m
        .entries
        .first()
        .cloned()
        .unwrap_or_else(|| format!("#{index}"));
    if m.kind == MessageKind::Marker {
        tally.note(Change::MarkerLeftOut, &place);
        return None;
    }
    if m.model.is_some() || m.usage.is_some() || m.timestamp.is_some() {
        tally.note(Change::MetadataDropped, &place);
    }
    if m.kind != MessageKind::Normal && m.role != Role::Assistant {
        tally.note(Change::KindFlattened, &place);
    }
    let t = pairing.turns;
    let mut items: Vec<Item> = Vec::with_capacity(m.content.len());
    let mut answers = Vec::new();
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
            // Only the assistant calls tools: a call anywhere else (a
            // damaged history) would be one the APIs reject, and moved
            // again by the next migration.
            Part::ToolCall {
                id,
                name,
                arguments,
            } if m.role != Role::Assistant => {
                tally.note(Change::CallOutsideAssistantFlattened, &place);
                let shown = if id.is_empty() {
                    format!("[tool call {name}]")
                } else {
                    format!("[tool call {id}: {name}]")
                };
                items.push(Item::Text {
                    text: format!("{shown}\n{}", arguments_text(arguments)),
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
                pairing.open.push(pairing.calls.len());
                pairing.calls.push(CallSlot {
                    turn: t,
                    original: id.clone(),
                    name: name.clone(),
                    answered: false,
                });
                items.push(Item::Call {
                    // Filled in once the ids are settled.
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
                let slot = pair(
                    &mut pairing.calls,
                    &mut pairing.open,
                    call_id,
                    extra.tool_name.as_deref(),
                );
                match slot {
                    Some(s) => {
                        answers.push((items.len(), s));
                        items.push(Item::Result {
                            // Filled in once the ids are settled.
                            call_id: String::new(),
                            emit_id: true,
                            name: pairing.calls[s].name.clone(),
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
        return None;
    }
    pairing.turns += 1;
    Some((
        Turn {
            role: m.role,
            items,
            place,
            extra: m.extra.as_deref().cloned(),
        },
        answers,
    ))
}

/// The first pass of a migration: what the turns cannot know until the
/// history has been read to its end (which calls are answered, which
/// results come too late and move up to their call, the ids every call
/// gets), from the messages one at a time. It keeps a few bytes per turn
/// and per call, and the results that move (rare: a result written after
/// a user turn); the turns themselves are made again by the second pass
/// ([`Emitter`]).
///
/// Every API wants a call's result after the call's turn, before anything
/// the user or system says: a result written after such a turn moves right
/// after its call, and an unanswered call gets one saying none was
/// recorded. (Assistant turns may sit between: parallel calls written a
/// turn each, which the renderers join.) The results of one turn's calls
/// go in call order, after those already there.
#[derive(Debug)]
pub(crate) struct Planner {
    to: Api,
    pairing: Pairing,
    /// The place of every turn so far.
    turns: Vec<String>,
    /// The last turn so far that is a user message in every body: a user
    /// or system turn, or a run of tool turns holding no result that
    /// answers a call (the text of results answering none).
    last_said: Option<usize>,
    /// The tool turns just read: whether one answers a call, and the last
    /// of them. A run's texts follow its results ([`after_results`]), so
    /// only a run without results is a user message.
    tool_run: Option<(bool, usize)>,
    /// Results that move to their call: (turn, item, call, the result).
    late: Vec<(usize, usize, usize, Item)>,
    messages: usize,
    /// The changes preparing the turns makes: each message's, then the
    /// ids', then the placed results'.
    tally: Tally,
}

/// What the [`Planner`] learnt, for the [`Emitter`].
#[derive(Debug)]
pub(crate) struct Plan {
    pub to: Api,
    /// Each call's id for the target, and whether to write it.
    ids: Vec<(String, bool)>,
    /// The (turn, item) of each result that moves, back to front.
    late: Vec<(usize, usize)>,
    /// Results to place after a call's turn, by (call turn, call): the
    /// ones that move and the ones written for unanswered calls.
    placed: VecDeque<(usize, usize, Item)>,
    /// The preparation's changes.
    pub tally: Tally,
}

impl Planner {
    pub fn new(to: Api) -> Planner {
        Planner {
            to,
            pairing: Pairing::default(),
            turns: Vec::new(),
            last_said: None,
            tool_run: None,
            late: Vec::new(),
            messages: 0,
            tally: Tally::default(),
        }
    }

    /// Reads the next message of the history.
    pub fn add(&mut self, m: &Message) {
        let index = self.messages;
        self.messages += 1;
        let Some((turn, answers)) = turn_of(m, index, self.to, &mut self.tally, &mut self.pairing)
        else {
            return;
        };
        let t = self.turns.len();
        if turn.role != Role::Tool {
            self.end_tool_run();
        }
        for &(i, s) in &answers {
            // Late: a user or system turn between the call and its result.
            let call = self.pairing.calls[s].turn;
            let late = self.last_said.is_some_and(|u| u > call);
            if late {
                self.late.push((t, i, s, turn.items[i].clone()));
            }
        }
        match turn.role {
            Role::User | Role::System => self.last_said = Some(t),
            Role::Tool => {
                let (answered, _) = self.tool_run.get_or_insert((false, t));
                let answered = *answered || !answers.is_empty();
                self.tool_run = Some((answered, t));
            }
            Role::Assistant => {}
        }
        self.turns.push(turn.place);
    }

    /// A run of tool turns that answered no call was a user message.
    fn end_tool_run(&mut self) {
        if let Some((false, t)) = self.tool_run.take() {
            self.last_said = Some(t);
        }
    }

    pub fn finish(mut self) -> Plan {
        let tally = &mut self.tally;
        let calls = &self.pairing.calls;
        let ids = settle_ids(calls, self.to, tally, &self.turns);
        // (call turn, call, result) of each result to place.
        let mut placed: Vec<(usize, usize, Item)> = Vec::new();
        // Back to front, as the results are taken out.
        sort_by_key(&mut self.late, |&(t, i, _, _)| std::cmp::Reverse((t, i)));
        let mut late = Vec::with_capacity(self.late.len());
        for (t, i, s, mut item) in self.late {
            tally.note(Change::ResultMoved, &self.turns[t]);
            if let Item::Result {
                call_id, emit_id, ..
            } = &mut item
            {
                call_id.clone_from(&ids[s].0);
                *emit_id = ids[s].1;
            }
            late.push((t, i));
            placed.push((calls[s].turn, s, item));
        }
        for (s, slot) in calls.iter().enumerate() {
            if slot.answered {
                continue;
            }
            tally.note(Change::CallWithoutResult, &self.turns[slot.turn]);
            placed.push((
                slot.turn,
                s,
                Item::Result {
                    call_id: ids[s].0.clone(),
                    emit_id: ids[s].1,
                    name: slot.name.clone(),
                    output: NO_RESULT.to_owned(),
                    is_error: true,
                    images: Vec::new(),
                    structured: None,
                },
            ));
        }
        sort_by_key(&mut placed, |&(turn, s, _)| (turn, s));
        Plan {
            to: self.to,
            ids,
            late,
            placed: placed.into(),
            tally: self.tally,
        }
    }
}

/// The second pass: the same messages again, each made into its turn with
/// the ids and moved results of the [`Plan`], handed on in order. A turn
/// is held until the next one comes, since the results placed after a
/// call's turn join the next turn when it holds results.
#[derive(Debug)]
pub(crate) struct Emitter {
    plan: Plan,
    pairing: Pairing,
    /// Calls numbered so far.
    calls: usize,
    /// The turn last made (its number and the turn, maybe emptied of
    /// results that moved), not yet handed on.
    held: Option<(usize, Turn)>,
    /// Next in `plan.late`.
    next_late: usize,
    messages: usize,
    /// The run of tool turns handed on last, held until the turn after it
    /// ([`after_results`] moves texts to the run's end); empty turns are
    /// dropped only then, as the whole list's were.
    run: Vec<Turn>,
}

impl Emitter {
    pub fn new(mut plan: Plan) -> Emitter {
        plan.late.reverse();
        Emitter {
            plan,
            pairing: Pairing::default(),
            calls: 0,
            held: None,
            next_late: 0,
            messages: 0,
            run: Vec::new(),
        }
    }

    /// The turns ready after message `m`, in order, to `out`.
    pub fn add(&mut self, m: &Message, mut out: impl FnMut(Turn)) {
        let index = self.messages;
        self.messages += 1;
        // What preparing notes was noted by the first pass.
        let mut scratch = Tally::default();
        let Some((mut turn, answers)) =
            turn_of(m, index, self.plan.to, &mut scratch, &mut self.pairing)
        else {
            return;
        };
        let t = self.pairing.turns - 1;
        for item in &mut turn.items {
            if let Item::Call { id, emit_id, .. } = item {
                let settled = &self.plan.ids[self.calls];
                id.clone_from(&settled.0);
                *emit_id = settled.1;
                self.calls += 1;
            }
        }
        for (i, s) in answers {
            if let Item::Result {
                call_id, emit_id, ..
            } = &mut turn.items[i]
            {
                call_id.clone_from(&self.plan.ids[s].0);
                *emit_id = self.plan.ids[s].1;
            }
        }
        // Results that move away, back to front so the items stay put.
        let mut gone = Vec::new();
        while let Some(&(lt, li)) = self.plan.late.get(self.next_late) {
            if lt != t {
                break;
            }
            gone.push(li);
            self.next_late += 1;
        }
        for li in gone.into_iter().rev() {
            turn.items.remove(li);
        }
        self.step(Some((t, turn)), &mut out);
    }

    /// Hands on the turn held, with what is placed after it, given the
    /// turn after it (`None` at the end).
    fn step(&mut self, next: Option<(usize, Turn)>, out: &mut impl FnMut(Turn)) {
        let Some((held_t, held)) = self.held.take() else {
            self.held = next;
            return;
        };
        let mut results = Vec::new();
        while self.plan.placed.front().is_some_and(|p| p.0 == held_t) {
            results.extend(self.plan.placed.pop_front().map(|p| p.2));
        }
        let place = held.place.clone();
        self.emit(held, out);
        let next = match next {
            _ if results.is_empty() => next,
            Some((nt, mut t)) if t.role == Role::Tool => {
                // After the results already there.
                let at = t
                    .items
                    .iter()
                    .rposition(|i| matches!(i, Item::Result { .. }))
                    .map_or(0, |i| i + 1);
                t.items.splice(at..at, results);
                Some((nt, t))
            }
            next => {
                let results = Turn {
                    role: Role::Tool,
                    items: results,
                    place,
                    extra: None,
                };
                self.emit(results, out);
                next
            }
        };
        self.held = next;
    }

    /// Hands on `turn` through the run of tool turns: a tool turn joins
    /// the run, any other turn ends it.
    fn emit(&mut self, turn: Turn, out: &mut impl FnMut(Turn)) {
        if turn.role == Role::Tool {
            self.run.push(turn);
            return;
        }
        self.end_run(out);
        if !turn.items.is_empty() {
            out(turn);
        }
    }

    /// The run held, its texts after its results, without the turns left
    /// empty.
    fn end_run(&mut self, out: &mut impl FnMut(Turn)) {
        after_results(&mut self.run);
        for turn in self.run.drain(..) {
            if !turn.items.is_empty() {
                out(turn);
            }
        }
    }

    /// Hands on the last turn.
    pub fn finish(mut self, mut out: impl FnMut(Turn)) {
        self.step(None, &mut out);
        self.end_run(&mut out);
    }
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
    turns: &[String],
) -> Vec<(String, bool)> {
    let mut used: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(calls.len());
    for (n, slot) in calls.iter().enumerate() {
        let place = &turns[slot.turn];
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
/// is enough, else `call_` and a hash of it; made unique, and still valid
/// once it is (a suffix may take an id past a length limit).
fn regenerate(to: Api, original: &str, used: &HashSet<String>) -> String {
    let valid = |id: &str| valid_id(to, id) && valid_id(Api::OpenAiChat, id);
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
    // (A suffix only lengthens an id: one valid after it was valid before.)
    let id = unique(safe, used);
    if valid(&id) {
        return id;
    }
    unique(format!("call_{:016x}", fnv1a(original.as_bytes())), used)
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
