//! Where a migration's body goes, element by element: built as a value
//! ([`Collect`]), dropped ([`Discard`]), or written as the pretty-printed JSON
//! `serde_json::to_writer_pretty` writes of that value ([`Pretty`]), so a
//! long history is never held whole. A body is one list (`messages`,
//! `contents`, `input`) and fields whose names sort after it (`system`,
//! `systemInstruction`), in the order a JSON object without
//! `preserve_order` writes its keys.

use std::io::{self, Write};

use serde_json::{Map, Value};

/// What a renderer writes the body to.
pub(crate) trait Sink {
    /// The next element of the body's list.
    fn item(&mut self, item: Value) -> io::Result<()>;
    /// A field after the list.
    fn field(&mut self, key: &'static str, value: Value) -> io::Result<()>;
}

/// The body as a value.
pub(crate) struct Collect {
    list: &'static str,
    items: Vec<Value>,
    fields: Map<String, Value>,
}

impl Collect {
    pub fn new(list: &'static str) -> Collect {
        Collect {
            list,
            items: Vec::new(),
            fields: Map::new(),
        }
    }

    pub fn into_body(mut self) -> Value {
        self.fields
            .insert(self.list.to_owned(), Value::Array(self.items));
        Value::Object(self.fields)
    }
}

impl Sink for Collect {
    fn item(&mut self, item: Value) -> io::Result<()> {
        self.items.push(item);
        Ok(())
    }

    fn field(&mut self, key: &'static str, value: Value) -> io::Result<()> {
        self.fields.insert(key.to_owned(), value);
        Ok(())
    }
}

/// No body: elements dropped as they come, for a caller that wants only
/// the report ([`super::count_changes`]).
pub(crate) struct Discard;

impl Sink for Discard {
    fn item(&mut self, _: Value) -> io::Result<()> {
        Ok(())
    }

    fn field(&mut self, _: &'static str, _: Value) -> io::Result<()> {
        Ok(())
    }
}

/// The body written as pretty-printed JSON to `out`, byte for byte what
/// `serde_json::to_writer_pretty` writes of the body as a value (without
/// a newline after it). Nothing reaches `out` until an element that is not
/// a system prompt has been written: a history of system prompts alone is
/// refused ([`super::MigrateError::NothingToSend`]), and what it held is
/// then dropped.
pub(crate) struct Pretty<W: Write> {
    out: W,
    list: &'static str,
    /// Where the list stands: not begun, open, closed.
    state: State,
    /// Bytes held until the history says something.
    held: Option<Vec<u8>>,
    /// One element pretty-printed, reused.
    buf: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Open,
    Closed,
}

impl<W: Write> Pretty<W> {
    pub fn new(out: W, list: &'static str) -> Pretty<W> {
        Pretty {
            out,
            list,
            state: State::Start,
            held: Some(Vec::new()),
            buf: Vec::new(),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.held {
            Some(held) => {
                held.extend_from_slice(bytes);
                Ok(())
            }
            None => self.out.write_all(bytes),
        }
    }

    /// `value` pretty-printed, each line after the first indented by
    /// `indent` (a JSON string holds no raw newline, so every newline is
    /// one of the printer's).
    fn value(&mut self, value: &Value, indent: &[u8]) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        serde_json::to_writer_pretty(&mut buf, value)?;
        let mut lines = buf.split(|&b| b == b'\n');
        if let Some(first) = lines.next() {
            self.write(first)?;
        }
        for line in lines {
            self.write(b"\n")?;
            self.write(indent)?;
            self.write(line)?;
        }
        self.buf = buf;
        Ok(())
    }

    fn open(&mut self) -> io::Result<()> {
        let head = format!("{{\n  \"{}\": [", self.list);
        self.write(head.as_bytes())
    }

    fn close(&mut self) -> io::Result<()> {
        match self.state {
            State::Start => {
                let head = format!("{{\n  \"{}\": []", self.list);
                self.write(head.as_bytes())?;
            }
            State::Open => self.write(b"\n  ]")?,
            State::Closed => return Ok(()),
        }
        self.state = State::Closed;
        Ok(())
    }

    /// Ends the body. Whether it was written: false when the history held
    /// nothing but system prompts, and nothing reached `out`.
    pub fn finish(mut self) -> io::Result<bool> {
        self.close()?;
        self.write(b"\n}")?;
        Ok(self.held.is_none())
    }
}

impl<W: Write> Sink for Pretty<W> {
    fn item(&mut self, item: Value) -> io::Result<()> {
        match self.state {
            State::Start => {
                self.open()?;
                self.state = State::Open;
                self.write(b"\n    ")?;
            }
            State::Open => self.write(b",\n    ")?,
            State::Closed => unreachable!("an element after the fields"),
        }
        self.value(&item, b"    ")?;
        let system = matches!(item["role"].as_str(), Some("system" | "developer"));
        if !system {
            if let Some(held) = self.held.take() {
                self.out.write_all(&held)?;
            }
        }
        Ok(())
    }

    fn field(&mut self, key: &'static str, value: Value) -> io::Result<()> {
        self.close()?;
        let head = format!(",\n  \"{key}\": ");
        self.write(head.as_bytes())?;
        self.value(&value, b"  ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `Pretty` writes of items and fields is what serde_json writes
    /// of the body they make, and a history of system prompts writes
    /// nothing.
    /// A body's list elements and its fields after the list.
    type Body<'a> = (&'a [Value], &'a [(&'a str, Value)]);

    #[test]
    fn pretty_is_serde_json_pretty() {
        let bodies: &[Body] = &[
            (&[], &[]),
            (&[], &[("system", json!("be brief"))]),
            (&[json!({"role": "user", "content": "hi"})], &[]),
            (
                &[
                    json!({"role": "user", "content": [{"type": "text", "text": "a\nb"}]}),
                    json!({"role": "assistant", "content": {}, "x": []}),
                ],
                &[("system", json!({"parts": [{"text": "s"}]}))],
            ),
            (&[json!({"role": "system", "content": "only"})], &[]),
        ];
        for (items, fields) in bodies {
            let mut collect = Collect::new("messages");
            let mut bytes = Vec::new();
            let mut pretty = Pretty::new(&mut bytes, "messages");
            for item in *items {
                collect.item(item.clone()).unwrap();
                pretty.item(item.clone()).unwrap();
            }
            for (key, value) in *fields {
                let key: &'static str = if *key == "system" { "system" } else { "x" };
                collect.field(key, value.clone()).unwrap();
                pretty.field(key, value.clone()).unwrap();
            }
            let written = pretty.finish().unwrap();
            let says = items.iter().any(|i| i["role"] != "system");
            assert_eq!(written, says, "{items:?}");
            let expected = if says {
                serde_json::to_string_pretty(&collect.into_body()).unwrap()
            } else {
                String::new()
            };
            assert_eq!(String::from_utf8(bytes).unwrap(), expected);
        }
    }
}
