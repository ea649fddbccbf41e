//! What the deep check counts of a line (tool call and result ids, the
//! model and its usage), read straight from the line's bytes without
//! building its `serde_json::Value` or its [`Message`](crate::Message):
//! the check's figures at a fraction of the cost.
//!
//! The line is walked by serde_json's own parser with visitors that keep
//! only those fields, so a line is accepted exactly when
//! `serde_json::from_slice::<Value>` accepts it (same grammar, UTF-8,
//! escapes, number range and nesting limit); where a line is refused, the
//! caller parses it the full way for its diagnostic. Each reader follows
//! its format's normalizer field by field (`claude.rs`, `pi.rs`: what a
//! missing, `null` or mistyped field means, which blocks are calls and
//! results, duplicate keys the last one winning), and a test holds them to
//! it on every corpus line.
//!
//! Natively only: the wasm build (the viewer) normalizes every line, and
//! is spared the readers' bytes (`Rules::figures` is not overridden there).
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::model::message::Usage;

/// The figures of the one message a line holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Figures {
    /// Tool call ids, and tool results as `(call id, is_error)`, in the
    /// order the message's parts hold them.
    pub calls: Vec<String>,
    pub results: Vec<(String, bool)>,
    pub model: Option<String>,
    pub usage: Option<Usage>,
}

/// A format's reader of a line's figures: `Ok(None)` when the line holds
/// no message, an error when it is not valid JSON.
pub(crate) type ReadFigures = fn(&[u8]) -> Result<Option<Figures>, serde_json::Error>;

/// Whether `bytes` is one JSON value, as `serde_json::Value` reads it.
pub(crate) fn valid(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Skip>(bytes).is_ok()
}

/// A Claude Code line's figures (see `claude::line_message`).
pub(crate) fn claude_line(bytes: &[u8]) -> Result<Option<Figures>, serde_json::Error> {
    let line: Fields<ClaudeLine> = serde_json::from_slice(bytes)?;
    let Some(line) = line.0 else { return Ok(None) };
    let (Some(kind), Some(msg)) = (line.kind, line.message) else {
        return Ok(None);
    };
    if kind != "user" && kind != "assistant" {
        return Ok(None);
    }
    // Who wrote it: `message.role` when that is user or assistant, else
    // the line's type.
    let speaker = match msg.role.as_deref() {
        Some(role @ ("user" | "assistant")) => role,
        _ => kind.as_str(),
    };
    let mut figures = Figures::default();
    figures.add(msg.content);
    if speaker == "assistant" {
        figures.model = msg.model;
        figures.usage = msg.usage.map(|u| u.usage(None));
    }
    Ok(Some(figures))
}

/// A pi entry's figures (see `pi::entry_message`).
pub(crate) fn pi_entry(bytes: &[u8]) -> Result<Option<Figures>, serde_json::Error> {
    let entry: Fields<PiEntry> = serde_json::from_slice(bytes)?;
    let Some(entry) = entry.0 else {
        return Ok(None);
    };
    let mut figures = Figures::default();
    match entry.kind.as_deref() {
        Some("message") => {
            let Some(msg) = entry.message else {
                return Ok(None);
            };
            match msg.role.as_deref() {
                Some("user" | "custom" | "hookMessage") => figures.add(msg.content),
                Some("assistant") => {
                    figures.add(msg.content);
                    figures.model = msg.model;
                    figures.usage = msg.usage.map(|u| u.usage(u.cost));
                }
                Some("toolResult") => {
                    let id = msg.tool_call_id.unwrap_or_default();
                    figures.results.push((id, msg.is_error));
                    figures.add(msg.content);
                }
                Some("bashExecution" | "compactionSummary" | "branchSummary") => {}
                _ => return Ok(None),
            }
        }
        Some("compaction" | "branch_summary") if !entry.summary => return Ok(None),
        Some("compaction" | "branch_summary") => {}
        Some("custom_message") => figures.add(entry.content),
        _ => return Ok(None),
    }
    Ok(Some(figures))
}

impl Figures {
    fn add(&mut self, parts: Vec<Counted>) {
        for part in parts {
            match part {
                Counted::Call(id) => self.calls.push(id),
                Counted::Result(id, is_error) => self.results.push((id, is_error)),
            }
        }
    }
}

/// A part that is counted: a tool call or a tool result.
#[derive(Debug)]
enum Counted {
    Call(String),
    Result(String, bool),
}

// ---- the fields each format reads ----

/// An object's fields as `T` reads them; `None` when the value is no
/// object.
struct Fields<T>(Option<T>);

/// A JSON object read field by field, the last of a repeated key winning.
trait FromFields: Default {
    /// Reads the value of `key` (whose index in `KEYS` it is) from `map`.
    const KEYS: &'static [&'static str];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error>;
}

#[derive(Default)]
struct ClaudeLine {
    kind: Option<String>,
    message: Option<ClaudeMessage>,
}

impl FromFields for ClaudeLine {
    const KEYS: &'static [&'static str] = &["type", "message"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.kind = map.next_value::<Str>()?.0,
            _ => self.message = map.next_value::<Fields<ClaudeMessage>>()?.0,
        }
        Ok(())
    }
}

#[derive(Default)]
struct ClaudeMessage {
    role: Option<String>,
    model: Option<String>,
    usage: Option<Tokens>,
    content: Vec<Counted>,
}

impl FromFields for ClaudeMessage {
    const KEYS: &'static [&'static str] = &["role", "model", "usage", "content"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.role = map.next_value::<Str>()?.0,
            1 => self.model = map.next_value::<Str>()?.0,
            2 => self.usage = map.next_value::<Fields<ClaudeUsage>>()?.0.map(|u| u.0),
            _ => self.content = map.next_value::<Blocks<ClaudeBlock>>()?.0,
        }
        Ok(())
    }
}

/// A Claude Code content block (see `claude::block`).
#[derive(Default)]
struct ClaudeBlock {
    kind: Option<String>,
    id: Option<String>,
    /// `tool_use_id`: whether the key is there at all, and its string.
    has_tool_use_id: bool,
    tool_use_id: Option<String>,
    is_error: bool,
    /// The blocks of an array `content` (a tool result's).
    content: Vec<Counted>,
}

impl FromFields for ClaudeBlock {
    const KEYS: &'static [&'static str] = &["type", "id", "tool_use_id", "is_error", "content"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.kind = map.next_value::<Str>()?.0,
            1 => self.id = map.next_value::<Str>()?.0,
            2 => {
                self.has_tool_use_id = true;
                self.tool_use_id = map.next_value::<Str>()?.0;
            }
            3 => self.is_error = map.next_value::<Flag>()?.0,
            _ => self.content = map.next_value::<Blocks<ClaudeBlock>>()?.0,
        }
        Ok(())
    }
}

impl Block for ClaudeBlock {
    fn counted(self, out: &mut Vec<Counted>) {
        match self.kind.as_deref() {
            Some("tool_use" | "server_tool_use") => {
                out.push(Counted::Call(self.id.unwrap_or_default()));
            }
            // Its output's blocks that are not text follow it.
            Some("tool_result") => {
                let id = self.tool_use_id.unwrap_or_default();
                out.push(Counted::Result(id, self.is_error));
                out.extend(self.content);
            }
            Some(t) if t.ends_with("_tool_result") && self.has_tool_use_id => {
                out.push(Counted::Result(self.tool_use_id.unwrap_or_default(), false));
            }
            _ => {}
        }
    }
}

#[derive(Default)]
struct PiEntry {
    kind: Option<String>,
    message: Option<PiMessage>,
    /// Whether `summary` is a string.
    summary: bool,
    content: Vec<Counted>,
}

impl FromFields for PiEntry {
    const KEYS: &'static [&'static str] = &["type", "message", "summary", "content"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.kind = map.next_value::<Str>()?.0,
            1 => self.message = map.next_value::<Fields<PiMessage>>()?.0,
            2 => self.summary = map.next_value::<Str>()?.0.is_some(),
            _ => self.content = map.next_value::<Blocks<PiBlock>>()?.0,
        }
        Ok(())
    }
}

#[derive(Default)]
struct PiMessage {
    role: Option<String>,
    model: Option<String>,
    usage: Option<Tokens>,
    content: Vec<Counted>,
    tool_call_id: Option<String>,
    is_error: bool,
}

impl FromFields for PiMessage {
    const KEYS: &'static [&'static str] =
        &["role", "model", "usage", "content", "toolCallId", "isError"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.role = map.next_value::<Str>()?.0,
            1 => self.model = map.next_value::<Str>()?.0,
            2 => self.usage = map.next_value::<Fields<PiUsage>>()?.0.map(|u| u.0),
            3 => self.content = map.next_value::<Blocks<PiBlock>>()?.0,
            4 => self.tool_call_id = map.next_value::<Str>()?.0,
            _ => self.is_error = map.next_value::<Flag>()?.0,
        }
        Ok(())
    }
}

/// A pi content block (see `pi::block`): a `toolCall` is counted.
#[derive(Default)]
struct PiBlock {
    kind: Option<String>,
    id: Option<String>,
}

impl FromFields for PiBlock {
    const KEYS: &'static [&'static str] = &["type", "id"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.kind = map.next_value::<Str>()?.0,
            _ => self.id = map.next_value::<Str>()?.0,
        }
        Ok(())
    }
}

impl Block for PiBlock {
    fn counted(self, out: &mut Vec<Counted>) {
        if self.kind.as_deref() == Some("toolCall") {
            out.push(Counted::Call(self.id.unwrap_or_default()));
        }
    }
}

/// Token counts as the normalizers read them: a count is a non-negative
/// integer (else 0), a cost any number.
#[derive(Default, Clone, Copy)]
struct Tokens {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cost: Option<f64>,
}

impl Tokens {
    fn usage(self, cost: Option<f64>) -> Usage {
        Usage {
            input: self.input,
            output: self.output,
            cache_read: self.cache_read,
            cache_write: self.cache_write,
            cost,
        }
    }

    fn count<'de, A: MapAccess<'de>>(map: &mut A) -> Result<u64, A::Error> {
        Ok(map
            .next_value::<Num>()?
            .0
            .and_then(Number::as_u64)
            .unwrap_or(0))
    }
}

#[derive(Default)]
struct ClaudeUsage(Tokens);

impl FromFields for ClaudeUsage {
    const KEYS: &'static [&'static str] = &[
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        let n = Tokens::count(map)?;
        let t = &mut self.0;
        *[
            &mut t.input,
            &mut t.output,
            &mut t.cache_read,
            &mut t.cache_write,
        ][key] = n;
        Ok(())
    }
}

#[derive(Default)]
struct PiUsage(Tokens);

impl FromFields for PiUsage {
    const KEYS: &'static [&'static str] = &["input", "output", "cacheRead", "cacheWrite", "cost"];
    fn field<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        let t = &mut self.0;
        if key == 4 {
            // `cost.total`, any number.
            let cost = map.next_value::<Fields<Total>>()?.0;
            t.cost = cost.and_then(|c| c.0).and_then(|n| n.as_f64());
            return Ok(());
        }
        let n = Tokens::count(map)?;
        *[
            &mut t.input,
            &mut t.output,
            &mut t.cache_read,
            &mut t.cache_write,
        ][key] = n;
        Ok(())
    }
}

/// `cost`'s `total`.
#[derive(Default)]
struct Total(Option<Number>);

impl FromFields for Total {
    const KEYS: &'static [&'static str] = &["total"];
    fn field<'de, A: MapAccess<'de>>(&mut self, _: usize, map: &mut A) -> Result<(), A::Error> {
        self.0 = map.next_value::<Num>()?.0;
        Ok(())
    }
}

// ---- values read leniently, everything else checked and dropped ----

/// A block of a content array: what it adds to the counted parts.
trait Block: FromFields {
    fn counted(self, out: &mut Vec<Counted>);
}

/// A number as `serde_json::Value` holds it.
#[derive(Clone, Copy)]
enum Number {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

impl Number {
    fn as_u64(self) -> Option<u64> {
        match self {
            Number::PosInt(n) => Some(n),
            _ => None,
        }
    }

    fn as_f64(self) -> Option<f64> {
        Some(match self {
            Number::PosInt(n) => n as f64,
            Number::NegInt(n) => n as f64,
            Number::Float(f) => f,
        })
    }
}

/// A string value (`None` for any other value).
struct Str(Option<String>);
/// A boolean that is `true` (`false` for any other value).
struct Flag(bool);
/// A number value (`None` for any other value).
struct Num(Option<Number>);
/// An array's blocks, counted (none for any other value).
struct Blocks<B>(Vec<Counted>, std::marker::PhantomData<B>);
/// Any value, checked and dropped.
struct Skip;

/// The visitor methods that check and drop a value of a kind the reader
/// does not want, giving `$none`.
macro_rules! drop_others {
    ($none:expr; $($skip:ident),*) => {
        $(drop_others!(@one $skip, $none);)*
    };
    (@one bool, $none:expr) => { fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> { Ok($none) } };
    (@one i64, $none:expr) => { fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> { Ok($none) } };
    (@one u64, $none:expr) => { fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> { Ok($none) } };
    (@one f64, $none:expr) => { fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> { Ok($none) } };
    (@one str, $none:expr) => { fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> { Ok($none) } };
    (@one unit, $none:expr) => { fn visit_unit<E>(self) -> Result<Self::Value, E> { Ok($none) } };
    (@one seq, $none:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok($none)
        }
    };
    (@one map, $none:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_key::<Skip>()?.is_some() {
                map.next_value::<Skip>()?;
            }
            Ok($none)
        }
    };
}

/// A visitor for `$ty` with the given methods; every other kind of value is
/// checked and dropped as `$none`.
macro_rules! lenient {
    ($ty:ty, $value:ty, $expecting:literal, $none:expr; [$($skip:ident),*] $($own:item)*) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $value;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    drop_others!($none; $($skip),*);
                    $($own)*
                }
                d.deserialize_any(V)
            }
        }
    };
}

lenient!(Skip, Skip, "any value", Skip; [bool, i64, u64, f64, str, unit, seq, map]);

lenient!(Str, Str, "any value", Str(None); [bool, i64, u64, f64, unit, seq, map]
    fn visit_str<E>(self, s: &str) -> Result<Str, E> {
        Ok(Str(Some(s.to_owned())))
    }
);

lenient!(Flag, Flag, "any value", Flag(false); [i64, u64, f64, str, unit, seq, map]
    fn visit_bool<E>(self, b: bool) -> Result<Flag, E> {
        Ok(Flag(b))
    }
);

lenient!(Num, Num, "any value", Num(None); [bool, str, unit, seq, map]
    fn visit_u64<E>(self, n: u64) -> Result<Num, E> {
        Ok(Num(Some(Number::PosInt(n))))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Num, E> {
        Ok(Num(Some(if n < 0 { Number::NegInt(n) } else { Number::PosInt(n as u64) })))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Num, E> {
        Ok(Num(Some(Number::Float(f))))
    }
);

impl<'de, T: FromFields> serde::Deserialize<'de> for Fields<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromFields> Visitor<'de> for V<T> {
            type Value = Fields<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            drop_others!(Fields(None); bool, i64, u64, f64, str, unit, seq);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<T>, A::Error> {
                let mut fields = T::default();
                while let Some(key) = map.next_key_seed(KeySeed(T::KEYS))? {
                    match key {
                        Some(k) => fields.field(k, &mut map)?,
                        None => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(Fields(Some(fields)))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de, B: Block> serde::Deserialize<'de> for Blocks<B> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<B>(std::marker::PhantomData<B>);
        impl<'de, B: Block> Visitor<'de> for V<B> {
            type Value = Blocks<B>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            drop_others!(Blocks(Vec::new(), std::marker::PhantomData); bool, i64, u64, f64, str, unit, map);
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks<B>, A::Error> {
                let mut out = Vec::new();
                while let Some(block) = seq.next_element::<Fields<B>>()? {
                    if let Some(block) = block.0 {
                        block.counted(&mut out);
                    }
                }
                Ok(Blocks(out, std::marker::PhantomData))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A key, as its index in a list of wanted keys (`None`: not wanted).
struct KeySeed(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        struct V(&'static [&'static str]);
        impl<'de> Visitor<'de> for V {
            type Value = Option<usize>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, key: &str) -> Result<Option<usize>, E> {
                Ok(self.0.iter().position(|k| *k == key))
            }
        }
        d.deserialize_str(V(self.0))
    }
}
