//! The redactor never panics, keeps the line count, and turns every JSON
//! line into a JSON line with the same shape, however the input is
//! chunked and whatever the mode.
//!
//! Control bytes: [0] the chunking, [1] the mode.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use retrace_core::redact::{Mode, Redactor, Rules};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

fn rules() -> Arc<Rules> {
    static RULES: OnceLock<Arc<Rules>> = OnceLock::new();
    RULES.get_or_init(|| Arc::new(Rules::builtin())).clone()
}

/// A JSON value's structure in the order of its text: objects and arrays
/// with their members' structures, literals and numbers as they are,
/// strings as strings. Keys are left out (they are data: a secret used as
/// a key is redacted), and the text's order is kept because a renamed key
/// moves in a sorted map.
#[derive(Debug, PartialEq)]
enum Shape {
    Object(Vec<Shape>),
    Array(Vec<Shape>),
    String(String),
    Number(String),
    Bool(bool),
    Null,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Shape, E> {
        Ok(Shape::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Shape, E> {
        Ok(Shape::Number(n.to_string()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Shape, E> {
        Ok(Shape::Number(n.to_string()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Shape, E> {
        Ok(Shape::Number(n.to_string()))
    }
    fn visit_str<E>(self, s: &str) -> Result<Shape, E> {
        Ok(Shape::String(s.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Shape::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut values = Vec::new();
        while let Some((_, value)) = map.next_entry::<IgnoredAny, Shape>()? {
            values.push(value);
        }
        Ok(Shape::Object(values))
    }
}

/// Redaction kept `before`'s structure: only strings changed, and numbers
/// only into a placeholder string (personal data stored as a number: a JSON
/// number has no room for a placeholder).
fn same_structure(before: &Shape, after: &Shape) -> bool {
    match (before, after) {
        (Shape::Object(a), Shape::Object(b)) | (Shape::Array(a), Shape::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_structure(x, y))
        }
        (Shape::String(_), Shape::String(_)) => true,
        (Shape::Number(_), Shape::String(p)) => is_placeholder(p),
        (a, b) => a == b,
    }
}

/// What a mode writes for one whole value: `***`, `[REDACTED:kind]`,
/// `<kind-N>`.
fn is_placeholder(s: &str) -> bool {
    let kind = |k: &str| {
        !k.is_empty()
            && k
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    s == "***"
        || s.strip_prefix("[REDACTED:")
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(kind)
        || s.strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .is_some_and(kind)
}

fuzz_target!(|data: &[u8]| {
    let (control, input) = retrace_fuzz::split(data);
    let mode = match control[1] % 3 {
        0 => Mode::Mask,
        1 => Mode::Typed,
        _ => Mode::Pseudo,
    };
    let mut r = Redactor::new(rules(), mode);
    let mut out = Vec::new();
    for piece in retrace_fuzz::chunking(control[0], input) {
        r.push(&input[piece], &mut out);
        r.drain_findings().for_each(drop);
    }
    r.finish(&mut out);
    let a: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(a.len(), b.len(), "line count");
    for (x, y) in a.iter().zip(&b) {
        let strip = |l: &[u8]| l.strip_suffix(b"\n").unwrap_or(l).to_vec();
        let (x, y) = (strip(x), strip(y));
        if let Ok(before) = serde_json::from_slice::<Shape>(&x) {
            let after: Shape = serde_json::from_slice(&y).expect("a JSON line stays JSON");
            assert!(
                same_structure(&before, &after),
                "same structure: {before:?} became {after:?}"
            );
        } else if serde_json::from_slice::<Shape>(&y).is_err() {
            // Not JSON (to serde_json): left as it was unless our walker
            // read it as JSON (it accepts what serde_json may reject, e.g.
            // lone surrogates), in which case only strings changed.
        }
    }
});
