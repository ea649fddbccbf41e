//! The redactor never panics, keeps the line count, and turns every JSON
//! line into a JSON line with the same shape, however the input is
//! chunked and whatever the mode.
//!
//! Control bytes: [0] the chunking, [1] the mode.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use retrace_core::redact::{Mode, Redactor, Rules};
use serde_json::Value;

fn rules() -> Arc<Rules> {
    static RULES: OnceLock<Arc<Rules>> = OnceLock::new();
    RULES.get_or_init(|| Arc::new(Rules::builtin())).clone()
}

fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Array(m.values().map(shape).collect()),
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        Value::String(_) => Value::Null,
        other => other.clone(),
    }
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
        if let Ok(before) = serde_json::from_slice::<Value>(&x) {
            let after: Value = serde_json::from_slice(&y).expect("a JSON line stays JSON");
            assert_eq!(shape(&before), shape(&after), "same structure");
        } else if serde_json::from_slice::<Value>(&y).is_err() {
            // Not JSON (to serde_json): left as it was unless our walker
            // read it as JSON (it accepts what serde_json may reject, e.g.
            // lone surrogates), in which case only strings changed.
        }
    }
});
