//! Gemini CLI sessions: what fork and seal write, in the session's own
//! flavour (the legacy pretty-printed `.json` document, or the `.jsonl`
//! record log), and why compaction is not written.
//!
//! - Fork: the branch as [`export_branch`](crate::export_branch) writes it
//!   (a `.json` document with the branch's messages, each element byte for
//!   byte; a `.jsonl` log of the metadata record and the latest version of
//!   each message on the branch, each line byte for byte, `$set` and
//!   `$rewindTo` records left out), then a new `sessionId` and the fork's
//!   time as `startTime` and `lastUpdated` in the metadata (the document's
//!   head, or every metadata record of the log). Gemini CLI has no field
//!   for a session's parent, so the lineage is a note. It finds a session by
//!   its folder and name: `~/.gemini/tmp/<projectHash>/chats/` and
//!   `session-<YYYY-MM-DDTHH-MM>-<first 8 of sessionId>.json(l)`.
//! - Seal: a call is answered in its own record, as Gemini CLI writes a
//!   finished call: `status` `"error"` and `result`
//!   `[{"functionResponse": {"id", "name", "response": {"error": …}}}]`;
//!   every other byte of the record stays. A `.jsonl` log gets the whole
//!   record appended again with the same `id` (Gemini CLI's own update:
//!   the last write wins, in the message's place, and the reader agrees):
//!   the new file is the log as it was (one file, sealed on its current
//!   branch) or the branch as `export_branch` writes it, then the records.
//!   A `.json` document is written anew with the sealed record in place of
//!   the old one (the inserted `result` laid out like the record).
//! - Compaction: not written; see [`NO_COMPACTION`].

use std::collections::HashMap;
use std::ops::Range;

use serde_json::{json, Value};

use super::lists::{indent_at, write_pieces, Piece, Style};
use super::{Answer, EditError, Note};
use crate::model::entry::EntryId;
use crate::model::sort::sort_by_key;
use crate::model::time::format_rfc3339_ms;
use crate::read::document::{DocEvent, DocumentFramer};
use crate::read::scan::{scan_line, Field, LineScan, ValueKind};
use crate::session::{one_line, Session};
use crate::source::Source;

/// Why a Gemini CLI session is not compacted: the format has no record of
/// a cut. Gemini CLI's `/compress` replaces the history it holds in memory
/// and, in the versions whose files retrace has seen, writes nothing to the
/// chat file (google-gemini/gemini-cli#21335, #20803: a resumed session
/// comes back uncompressed); later recorders may write the whole new
/// message list in a `$set`, which replaces the records wholesale rather
/// than marking where a summary starts, and which Gemini CLI then loads
/// instead of every record after it.
pub(crate) const NO_COMPACTION: &str = "compacted: Gemini CLI records no compression in its \
     chat file (its /compress only replaces the history in memory, \
     google-gemini/gemini-cli#21335), so there is no record to append; fork the session \
     instead";

/// A splice of a byte string: replace `range` with the bytes.
type Splice = (Range<usize>, Vec<u8>);

/// `bytes` with `splices` (non-overlapping) applied.
fn apply(bytes: &[u8], mut splices: Vec<Splice>) -> Vec<u8> {
    sort_by_key(&mut splices, |(r, _)| r.start);
    let mut out = Vec::with_capacity(bytes.len() + 256);
    let mut at = 0;
    for (range, with) in splices {
        out.extend_from_slice(&bytes[at..range.start]);
        out.extend_from_slice(&with);
        at = range.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// The top-level field `key` of a scanned object.
fn top<'a>(scan: &'a LineScan, bytes: &[u8], key: &str) -> Option<&'a Field> {
    scan.fields
        .iter()
        .find(|f| f.parent.is_none() && f.key.get(bytes) == key.as_bytes())
}

/// A field's value with its quotes, when a string.
fn value_range(f: &Field) -> Range<usize> {
    match f.kind {
        ValueKind::String => f.value.start as usize - 1..f.value.end as usize + 1,
        _ => f.value.start as usize..f.value.end as usize,
    }
}

/// A JSON string literal.
fn quoted(s: &str) -> Vec<u8> {
    Value::from(s).to_string().into_bytes()
}

/// What a new field of `object` (scanned into `scan`) is written with: the
/// blanks and comma between its last two fields (a comma alone when it has
/// one), what stands between a key and its value, and the style of a value.
fn field_layout(object: &[u8], scan: &LineScan) -> (Vec<u8>, Vec<u8>, Style) {
    let tops: Vec<&Field> = scan.fields.iter().filter(|f| f.parent.is_none()).collect();
    let gap = match tops.as_slice() {
        [.., a, b] => object[value_range(a).end..b.key.start as usize - 1].to_vec(),
        _ => b",".to_vec(),
    };
    let colon = match tops.first() {
        Some(f) => object[f.key.end as usize + 1..value_range(f).start].to_vec(),
        None => b":".to_vec(),
    };
    // One level deeper than the object's own line (its closing brace's).
    let outer = indent_at(object, object.len().saturating_sub(1));
    let style = Style::after(&gap, outer);
    (gap, colon, style)
}

/// A tool call record (`toolCalls[i]`) answered by `answer` as Gemini CLI
/// writes a failed call: `status` `"error"` and the error `result`, the
/// call's other bytes kept.
fn seal_call(call: &[u8], answer: &Answer) -> Option<Vec<u8>> {
    let mut scan = LineScan::default();
    scan_line(call, &mut scan);
    if scan.error.is_some() || scan.objects.len() != 1 {
        return None;
    }
    let result = json!([{
        "functionResponse": {
            "id": answer.id,
            "name": answer.name,
            "response": {"error": answer.text},
        }
    }]);
    let (gap, colon, style) = field_layout(call, &scan);
    let mut splices: Vec<Splice> = Vec::new();
    let mut added = Vec::new();
    match top(&scan, call, "status") {
        Some(f) => splices.push((value_range(f), quoted("error"))),
        None => {
            added.extend_from_slice(&gap);
            added.extend_from_slice(&quoted("status"));
            added.extend_from_slice(&colon);
            added.extend_from_slice(&quoted("error"));
        }
    }
    match top(&scan, call, "result") {
        // `null`, or a shape Gemini CLI does not write.
        Some(f) => splices.push((value_range(f), style.write(&result))),
        None => {
            added.extend_from_slice(&gap);
            added.extend_from_slice(&quoted("result"));
            added.extend_from_slice(&colon);
            added.extend_from_slice(&style.write(&result));
        }
    }
    if !added.is_empty() {
        let last = scan.fields.iter().rfind(|f| f.parent.is_none())?;
        let end = value_range(last).end;
        splices.push((end..end, added));
    }
    Some(apply(call, splices))
}

/// A message record with each of `answers` sealed in its `toolCalls`.
fn sealed_record(record: &[u8], answers: &[&Answer]) -> Result<Vec<u8>, EditError> {
    let unreadable =
        |what: &str| EditError::Invalid(format!("a Gemini CLI record's {what} cannot be read"));
    let mut scan = LineScan::default();
    scan_line(record, &mut scan);
    if scan.error.is_some() {
        return Err(unreadable("JSON"));
    }
    let calls = top(&scan, record, "toolCalls")
        .filter(|f| f.kind == ValueKind::Array)
        .ok_or_else(|| unreadable("toolCalls"))?;
    let array = value_range(calls);
    let mut items: Vec<Range<usize>> = Vec::new();
    let mut framer = DocumentFramer::new(0, 1, usize::MAX);
    let mut collect = |event: DocEvent| {
        if let DocEvent::Element { bytes, offset, .. } = event {
            let start = array.start + offset as usize;
            items.push(start..start + bytes.len());
        }
    };
    framer.feed(&record[array.clone()], &mut collect);
    framer.finish(&mut collect);
    let mut splices = Vec::new();
    let mut done = 0;
    for item in items {
        let Ok(call) = serde_json::from_slice::<Value>(&record[item.clone()]) else {
            continue;
        };
        let id = call["id"].as_str().unwrap_or_default();
        let Some(answer) = answers.iter().find(|a| a.id == id) else {
            continue;
        };
        let sealed = seal_call(&record[item.clone()], answer).ok_or_else(|| unreadable("call"))?;
        splices.push((item, sealed));
        done += 1;
    }
    if done != answers.len() {
        return Err(unreadable("toolCalls (a call to seal is not among them)"));
    }
    Ok(apply(record, splices))
}

/// The branch ending at `leaf` with each of `answers` sealed (see the
/// module doc): the new file, and a note on how it was written.
pub(crate) fn seal(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
    answers: &[Answer],
) -> Result<(Vec<u8>, Note), EditError> {
    let file = session.entry(leaf).file;
    let info = &session.files()[file.0 as usize];
    let branch = session.standalone_branch(leaf);
    let mut by_entry: HashMap<EntryId, Vec<&Answer>> = HashMap::new();
    for a in answers {
        by_entry.entry(a.entry).or_default().push(a);
    }
    let in_document = |e: EntryId| {
        let entry = session.entry(e);
        let doc = session.files()[entry.file.0 as usize].document.as_ref();
        doc.is_some_and(|d| d.end.is_none_or(|end| entry.offset < end))
    };
    // The records to seal, in branch order.
    let mut sealed: Vec<(EntryId, Vec<u8>)> = Vec::new();
    for &e in &branch {
        let Some(open) = by_entry.get(&e) else {
            continue;
        };
        let entry = session.entry(e);
        let mut record = source.read(entry.file, entry.range())?.into_owned();
        if info.document.is_none() && in_document(e) {
            // A legacy element continued in a log: one line, as Gemini CLI
            // writes a record.
            record = one_line(&record);
        }
        sealed.push((e, sealed_record(&record, open)?));
    }
    if info.document.is_some() {
        let mut pieces = Vec::with_capacity(branch.len());
        for &e in &branch {
            match sealed.iter().position(|(s, _)| *s == e) {
                Some(i) => pieces.push(Piece::Bytes(std::mem::take(&mut sealed[i].1))),
                None => pieces.push(Piece::Entry(e)),
            }
        }
        let bytes = write_pieces(session, source, file, &pieces)?;
        let note = Note {
            action: "written",
            line: None,
            id: None,
            message: format!(
                "a new document: the {} sealed record(s) in place, every other message as it was",
                answers.len()
            ),
        };
        return Ok((bytes, note));
    }
    // The log as it was when it is the whole session and the branch is the
    // one Gemini CLI would load; else the branch.
    let whole = session.files().len() == 1 && session.tree().default_leaf() == Some(leaf);
    let mut bytes = Vec::new();
    if whole {
        bytes = source.read(file, 0..info.size)?.into_owned();
    } else {
        crate::export_branch(session, source, leaf, &mut bytes).map_err(|e| match e {
            crate::ExportError::Source(s) => EditError::Source(s),
            crate::ExportError::Write(w) => EditError::Invalid(w.to_string()),
        })?;
    }
    let base = match whole {
        true => "the log as it was",
        false => "the branch (its metadata record and messages, as `retrace cat` writes it)",
    };
    for (_, record) in &sealed {
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(record);
        bytes.push(b'\n');
    }
    let note = Note {
        action: "appended",
        line: None,
        id: None,
        message: format!(
            "{base}, then {} record(s) appended again with the same id (Gemini CLI's own \
             update: the last write wins, in the message's place)",
            sealed.len()
        ),
    };
    Ok((bytes, note))
}

/// A metadata record of a log: `sessionId` and no message `id`, `$set` or
/// `$rewindTo`.
fn is_metadata(line: &[u8], scan: &LineScan) -> bool {
    let has = |k: &str| top(scan, line, k).is_some();
    scan.error.is_none()
        && scan.objects.len() == 1
        && top(scan, line, "sessionId").is_some_and(|f| f.kind == ValueKind::String)
        && !has("id")
        && !has("$set")
        && !has("$rewindTo")
}

/// A fork's identity in its metadata (see the module doc): the new
/// `sessionId`, and `startTime` and `lastUpdated` the fork's time. `bytes`
/// are the exported branch of a session named `name`.
pub(crate) fn lineage(
    bytes: &mut Vec<u8>,
    name: &str,
    new_id: &str,
    time_ms: i64,
    forked_at: &str,
) -> Result<Note, EditError> {
    let time = format_rfc3339_ms(time_ms);
    let fields = [
        ("sessionId", new_id),
        ("startTime", &time),
        ("lastUpdated", &time),
    ];
    let old: String;
    let document = Session::from_bytes(name, bytes).files()[0].document.clone();
    let (extension, records, left_out) = match document {
        Some(doc) => {
            let value = |key: &str| {
                doc.field(key)
                    .map(|f| f.value.start as usize..f.value.end as usize)
            };
            let id = value("sessionId").ok_or_else(|| {
                EditError::Invalid("the branch's document has no sessionId".into())
            })?;
            old = serde_json::from_slice::<String>(&bytes[id.clone()]).unwrap_or_default();
            let mut splices = Vec::new();
            for (key, new) in fields {
                if let Some(range) = value(key) {
                    splices.push((range, quoted(new)));
                }
            }
            *bytes = apply(bytes, splices);
            ("json", "the document's head", "")
        }
        None => {
            let mut out = Vec::with_capacity(bytes.len() + 128);
            let mut first: Option<String> = None;
            let mut count = 0;
            let mut scan = LineScan::default();
            for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
                let body = line.strip_suffix(b"\n").unwrap_or(line);
                let body = body.strip_suffix(b"\r").unwrap_or(body);
                scan_line(body, &mut scan);
                if !is_metadata(body, &scan) {
                    if n == 0 {
                        return Err(EditError::Invalid(
                            "the branch does not start with a Gemini CLI metadata record \
                             (sessionId, projectHash) to carry the new id"
                                .into(),
                        ));
                    }
                    out.extend_from_slice(line);
                    continue;
                }
                let id = top(&scan, body, "sessionId").expect("checked");
                first.get_or_insert_with(|| String::from_utf8_lossy(id.value.get(body)).into());
                let (_, colon, _) = field_layout(body, &scan);
                let mut splices = Vec::new();
                let mut missing = Vec::new();
                for (key, new) in fields {
                    match top(&scan, body, key) {
                        Some(f) => splices.push((value_range(f), quoted(new))),
                        // Gemini CLI loads a missing time as the time it loads.
                        None if count == 0 => {
                            missing.push(b',');
                            missing.extend_from_slice(&quoted(key));
                            missing.extend_from_slice(&colon);
                            missing.extend_from_slice(&quoted(new));
                        }
                        None => {}
                    }
                }
                let end = value_range(id).end;
                splices.push((end..end, missing));
                out.extend_from_slice(&apply(body, splices));
                out.extend_from_slice(&line[body.len()..]);
                count += 1;
            }
            *bytes = out;
            old = first.unwrap_or_default();
            let records = if count == 1 {
                "its metadata record"
            } else {
                "its metadata records"
            };
            (
                "jsonl",
                records,
                "; `$set` and `$rewindTo` records and earlier versions of messages are not \
                 carried (the branch is what Gemini CLI would load)",
            )
        }
    };
    let short: String = new_id.chars().take(8).collect();
    // Gemini CLI names a new session by its start, to the minute, in UTC.
    let minute = time.get(..16).unwrap_or(&time).replace(':', "-");
    Ok(Note {
        action: "lineage",
        line: None,
        id: None,
        message: format!(
            "sessionId {new_id} (was {old}), startTime and lastUpdated {time} in {records}; \
             Gemini CLI has no field for a parent session, so the lineage is only this note \
             (forked from {old} at {forked_at}){left_out}; name the file \
             session-{minute}-{short}.{extension} in ~/.gemini/tmp/<projectHash>/chats/ for \
             Gemini CLI to list it"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: &str) -> Answer {
        Answer {
            entry: EntryId(0),
            id: id.into(),
            name: "ls".into(),
            text: "sealed".into(),
        }
    }

    #[test]
    fn a_call_is_sealed_in_place_in_the_record_s_own_layout() {
        let line = br#"{"id":"m1","type":"gemini","toolCalls":[{"id":"a","name":"ls","args":{},"status":"executing"},{"id":"b","name":"ls","args":{},"result":null,"status":"scheduled"}],"model":"x"}"#;
        let a = answer("a");
        let b = answer("b");
        let out = sealed_record(line, &[&a, &b]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"id":"m1","type":"gemini","toolCalls":[{"id":"a","name":"ls","args":{},"status":"error","result":[{"functionResponse":{"id":"a","name":"ls","response":{"error":"sealed"}}}]},{"id":"b","name":"ls","args":{},"result":[{"functionResponse":{"id":"b","name":"ls","response":{"error":"sealed"}}}],"status":"error"}],"model":"x"}"#
        );
        // Pretty-printed, as in a legacy document.
        let pretty = b"{\n      \"id\": \"m1\",\n      \"toolCalls\": [\n        {\n          \"id\": \"a\",\n          \"name\": \"ls\"\n        }\n      ]\n    }";
        let out = sealed_record(pretty, &[&a]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n      \"id\": \"m1\",\n      \"toolCalls\": [\n        {\n          \"id\": \"a\",\n          \"name\": \"ls\",\n          \"status\": \"error\",\n          \"result\": [\n            {\n              \"functionResponse\": {\n                \"id\": \"a\",\n                \"name\": \"ls\",\n                \"response\": {\n                  \"error\": \"sealed\"\n                }\n              }\n            }\n          ]\n        }\n      ]\n    }"
        );
        // A call that is not there is an error, not a silent skip.
        assert!(sealed_record(line, &[&answer("zz")]).is_err());
    }
}
