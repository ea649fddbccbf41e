//! One scanned object into an [`Entry`]: the keys the formats declared
//! (see `read/fields.rs`) lifted into its slots and flags, ids interned a
//! line late (`pending.rs`), and the entry vector grown to fit.

use memchr::memmem;

use crate::model::entry::{Entry, FileId, Flags};
use crate::model::time::parse_rfc3339_ms;
use crate::read::digest::digest;
use crate::read::fields::Action;
use crate::read::pending::Target;
use crate::read::scan::{Field, ValueKind};

use super::Reader;

impl Reader {
    /// Adds an entry.
    #[inline]
    pub(crate) fn push_entry(&mut self, entry: Entry) {
        if self.entries.len() == self.entries.capacity() {
            self.grow_entries();
        }
        self.entries.push(entry);
    }

    /// Makes room for more entries. Without a size hint the index grows by
    /// a quarter at a time rather than doubling: formats with short lines
    /// (Codex writes a `token_count` event of a few hundred bytes per
    /// request) have an entry per kilobyte, and a doubled vector plus the
    /// copy made while growing was most of the memory of opening them.
    #[cold]
    fn grow_entries(&mut self) {
        /// Bytes read before their density is trusted to size the index.
        const SAMPLE: u64 = 1 << 20;
        /// Fewer bytes per entry than this is not believed of a whole file
        /// (it caps what a dense first stretch can make the index reserve).
        const MIN_ENTRY_BYTES: u64 = 32;
        let len = self.entries.len();
        let step = len / 4 + 1024;
        if let Some(state) = self.current.as_ref().filter(|s| s.expected > 0) {
            if state.input >= SAMPLE {
                let first = self.files[state.id.0 as usize].first_entry as usize;
                let seen = (len - first) as u128;
                let total = (seen * u128::from(state.expected) / u128::from(state.input))
                    .min(u128::from(state.expected / MIN_ENTRY_BYTES));
                // A sixteenth more, for a file that grows denser further on.
                let want = total + total / 16 + 1024;
                let more = usize::try_from(want.saturating_sub(seen)).unwrap_or(usize::MAX);
                // Asked, not demanded: a dense start of a huge file can ask
                // for more than the system will map at once, and then the
                // index grows step by step as it would without a hint.
                if more > step && self.entries.try_reserve_exact(more).is_ok() {
                    // The string table the same way: sized once, rather
                    // than rebuilt at each doubling and again when parts
                    // are merged (in fresh memory each time, which costs a
                    // page fault per 4 KiB besides the copy).
                    let scale = |n: usize| {
                        let n = n as u128 * want / seen.max(1);
                        usize::try_from(n).unwrap_or(usize::MAX)
                    };
                    let (strings, bytes) = (self.interner.len(), self.interner.byte_len());
                    self.interner.reserve(scale(strings), scale(bytes));
                    return;
                }
            }
        }
        self.entries.reserve_exact(step);
    }

    /// Interns the ids [`PendingIds`] holds into the entries they belong to.
    pub(super) fn resolve_pending(&mut self) {
        self.pending.resolve(&mut self.interner, &mut self.entries);
    }

    /// Builds the entry for object `object` of the scanned line; the caller
    /// pushes it next.
    pub(crate) fn entry(
        &mut self,
        file: FileId,
        line: u32,
        base: u64,
        bytes: &[u8],
        object: u16,
    ) -> Entry {
        let span = self.scan.objects[object as usize];
        let shared = if self.scan.objects.len() > 1 {
            Flags::SHARED_LINE
        } else {
            0
        };
        let mut e = Entry::new(
            file,
            line,
            base + u64::from(span.start),
            span.end - span.start,
            shared,
        );
        self.resolve_pending();
        let this = self.entries.len();
        let fields = &self.scan.fields;
        let interner = &mut self.interner;
        let pending = &mut self.pending;
        let table = self.table;
        let mut content: Option<&Field> = None;
        let mut text: Option<&Field> = None;
        // The container of the depth-one key whose nested keys follow.
        let mut open: Option<(u16, Option<u16>)> = None;
        for (index, f) in fields.iter().enumerate() {
            if f.object != object {
                continue;
            }
            let key = f.key.get(bytes);
            let action = match f.parent {
                None => {
                    let (action, container) = table.top(key);
                    open = Some((index as u16, container));
                    action
                }
                Some(parent) => {
                    let container = match open {
                        Some((p, c)) if p == parent => c,
                        _ => table.top(fields[parent as usize].key.get(bytes)).1,
                    };
                    container.and_then(|c| table.nested(c, key))
                }
            };
            let Some(action) = action else { continue };
            let value = f.value.get(bytes);
            let string = f.kind == ValueKind::String;
            match action {
                Action::Sym { slot, weak, flag } => {
                    if !string {
                        continue;
                    }
                    let target = Target::Slot(slot);
                    if weak && !target.of(&mut e).is_none() {
                        continue;
                    }
                    *target.of(&mut e) = pending.intern(interner, value, this, target);
                    e.flags.0 |= flag;
                }
                Action::Parent => {
                    e.flags.0 |= Flags::HAS_PARENT_FIELD;
                    if string {
                        e.parent = pending.intern(interner, value, this, Target::Parent);
                    }
                }
                Action::FlagIfTrue(flag) if value == b"true" => e.flags.0 |= flag,
                Action::FlagIfPresent(flag) => e.flags.0 |= flag,
                Action::FlagIfObject(flag) if f.kind == ValueKind::Object => e.flags.0 |= flag,
                Action::FlagIfString { value: want, flag } if string && value == want => {
                    e.flags.0 |= flag
                }
                Action::FlagIfSet(flag) if says_something(value, f.kind) => e.flags.0 |= flag,
                Action::Timestamp => {
                    e.timestamp = if string {
                        parse_rfc3339_ms(value).unwrap_or(i64::MIN)
                    } else {
                        parse_epoch(value).unwrap_or(i64::MIN)
                    }
                }
                Action::Number if f.kind == ValueKind::Other => {
                    if let Some(n) = parse_int(value) {
                        e.number = u32::try_from(n).unwrap_or(u32::MAX);
                    }
                }
                Action::Digest => self.digests.push(this, digest(value)),
                Action::StringInObject { key, slot } if f.kind == ValueKind::Object => {
                    let found = memmem::find(value, key)
                        .and_then(|at| string_after_key(&value[at + key.len()..], b"\""));
                    let target = Target::Slot(slot);
                    if let Some(found) = found.filter(|_| target.of(&mut e).is_none()) {
                        *target.of(&mut e) = pending.intern(interner, found, this, target);
                    }
                }
                Action::StringInJsonString { key, slot } if string => {
                    let found = value
                        .strip_prefix(b"{")
                        .map(|v| v.trim_ascii_start())
                        .and_then(|v| v.strip_prefix(key))
                        .and_then(|v| string_after_key(v, b"\\\""));
                    let target = Target::Slot(slot);
                    if let Some(found) = found.filter(|_| target.of(&mut e).is_none()) {
                        *target.of(&mut e) = pending.intern(interner, found, this, target);
                    }
                }
                Action::ToolResultContent => {
                    content = Some(&fields[index]);
                    text = content;
                }
                Action::UserText => text = Some(&fields[index]),
                _ => {}
            }
        }
        // A Claude Code user line is a tool result when its content blocks
        // say so (older lines have no `toolUseResult` field).
        if let Some(c) = content {
            let blocks = c.value.get(bytes);
            if c.kind == ValueKind::Array && self.interner.get(e.role) == b"user" {
                if !e.flags.has(Flags::TOOL_RESULT)
                    && self.finders.tool_result.find(blocks).is_some()
                {
                    e.flags.0 |= Flags::TOOL_RESULT;
                }
                // A failed result says so in its block; the same words inside
                // a string would have their quotes escaped.
                if e.flags.has(Flags::TOOL_RESULT)
                    && self
                        .finders
                        .is_error
                        .find_iter(blocks)
                        .any(|at| at == 0 || blocks[at - 1] != b'\\')
                {
                    e.flags.0 |= Flags::ERROR;
                }
            }
        }
        // Only what could be a prompt: a user's, not results or summaries
        // (whose content can be long).
        let not_prompt = Flags::TOOL_RESULT | Flags::META | Flags::COMPACT_SUMMARY;
        if let Some(t) = text.filter(|_| !e.flags.has(not_prompt)) {
            if self.interner.get(e.role) == b"user"
                && opens_like_harness(t.value.get(bytes), t.kind)
            {
                e.flags.0 |= Flags::HARNESS_TEXT;
            }
        }
        e
    }
}

/// Whether a message's content (a string, or blocks holding `"text"`)
/// opens like what a harness writes into user messages
/// (`normalize/harness.rs`): a tag (`<command-name>`,
/// `<environment_context>`, …, `<` maybe written `\u003c`), Claude Code's
/// caveat line (`Caveat:`) or interruption note (`[Request interrupted`),
/// Codex's `# AGENTS.md`; or is blank there. A hint, not the rule: such a
/// message is read to tell (what the harness writes alone always opens so;
/// a prompt that does is read and kept).
fn opens_like_harness(value: &[u8], kind: ValueKind) -> bool {
    let mut text = match kind {
        ValueKind::String => value,
        ValueKind::Array => {
            // The first `"text": "…"` (not a `"type":"text"` value).
            let mut found = None;
            for at in memmem::find_iter(value, b"\"text\"") {
                let rest = value[at + 6..].trim_ascii_start();
                if let Some(rest) = rest.strip_prefix(b":") {
                    found = rest.trim_ascii_start().strip_prefix(b"\"");
                    break;
                }
            }
            match found {
                Some(t) => t,
                None => return false,
            }
        }
        _ => return false,
    };
    loop {
        text = text.trim_ascii_start();
        match text {
            [b'\\', b'n' | b'r' | b't', rest @ ..] => text = rest,
            _ => break,
        }
    }
    text.is_empty()
        || [
            &b"<"[..],
            b"\\u003c",
            b"\\u003C",
            b"#",
            b"[",
            b"Caveat:",
            b"\"",
        ]
        .iter()
        .any(|p| text.starts_with(p))
}

/// Whether a value (a string without its quotes) is more than `null`,
/// `false`, `""`, `{}` or `[]`.
fn says_something(value: &[u8], kind: ValueKind) -> bool {
    match kind {
        ValueKind::String => !value.is_empty(),
        ValueKind::Object | ValueKind::Array => value[1..value.len() - 1]
            .iter()
            .any(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')),
        ValueKind::Other => !matches!(value, b"null" | b"false"),
    }
}

/// An epoch number as milliseconds: integers of milliseconds, or seconds
/// (with a fraction, or too small to be milliseconds of any recent date:
/// 10^11 ms is March 1973).
fn parse_epoch(s: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(s).ok()?.trim();
    if let Ok(n) = text.parse::<i64>() {
        return Some(if n.abs() < 100_000_000_000 {
            n.saturating_mul(1000)
        } else {
            n
        });
    }
    seconds_as_ms(text)
}

/// Decimal seconds (`1739999999.123456`, `-2.5`, `1.7e9`) as milliseconds,
/// rounded half away from zero, in integers: Rust's float parser and its
/// tables were 12 KB of the viewer's worker for this one use.
fn seconds_as_ms(text: &str) -> Option<i64> {
    let (negative, text) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // digits × 10^shift milliseconds; 19 significant digits are more than
    // any clock writes.
    let mut digits: i128 = 0;
    let mut shift = exponent.checked_add(3)?;
    let mut significant = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        if significant < 19 {
            digits = digits * 10 + i128::from(b - b'0');
            significant += usize::from(digits != 0);
        } else {
            shift += 1;
        }
    }
    shift = shift.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let ms = if shift >= 0 {
        digits.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
    } else {
        match 10i128.checked_pow(shift.unsigned_abs()) {
            Some(div) => (digits + div / 2) / div,
            None => 0,
        }
    };
    let ms = i64::try_from(ms).ok()?;
    Some(if negative { -ms } else { ms })
}

fn parse_int(s: &[u8]) -> Option<i64> {
    std::str::from_utf8(s).ok()?.trim().parse().ok()
}

/// The string after a key in JSON text (`rest` starts right after the
/// key): a colon, then a string opened and closed by `quote` (`"`, or `\"`
/// inside a JSON string). Only a string without escapes, as ids are.
fn string_after_key<'a>(rest: &'a [u8], quote: &[u8]) -> Option<&'a [u8]> {
    let rest = rest.trim_ascii_start().strip_prefix(b":")?;
    let rest = rest.trim_ascii_start().strip_prefix(quote)?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    rest[end..].starts_with(quote).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::{opens_like_harness, parse_epoch, seconds_as_ms, ValueKind};

    #[test]
    fn epoch_numbers_as_milliseconds() {
        assert_eq!(parse_epoch(b"1739999999123"), Some(1_739_999_999_123));
        assert_eq!(parse_epoch(b"1739999999"), Some(1_739_999_999_000));
        assert_eq!(parse_epoch(b" 1739999999.1234 "), Some(1_739_999_999_123));
        assert_eq!(parse_epoch(b"1739999999.9995"), Some(1_740_000_000_000));
        assert_eq!(parse_epoch(b"-2.5"), Some(-2_500));
        assert_eq!(parse_epoch(b"-0.0005"), Some(-1));
        assert_eq!(parse_epoch(b"1.7399e9"), Some(1_739_900_000_000));
        assert_eq!(parse_epoch(b"17399E-1"), Some(1_739_900));
        assert_eq!(parse_epoch(b".5"), Some(500));
        assert_eq!(parse_epoch(b"5."), Some(5_000));
        assert_eq!(
            parse_epoch(b"1739999999.123456789012345678901234"),
            Some(1_739_999_999_123)
        );
        for bad in [
            "", "-", ".", "1.2.3", "1e", "e5", "abc", "1,5", "NaN", "inf", "1e999999",
        ] {
            assert_eq!(seconds_as_ms(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn seconds_agree_with_the_float_parser() {
        let mut rng = crate::test_rng::Rng(7);
        for _ in 0..20_000 {
            let whole = rng.below(2_000_000_000);
            let digits = rng.below(7);
            let fraction: String = (0..digits)
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect();
            let text = format!("{whole}.{fraction}");
            let float: f64 = text.parse().unwrap();
            let want = (float * 1000.0).round() as i64;
            let got = seconds_as_ms(&text).unwrap();
            // The float rounds a half that is not exactly representable
            // either way; the integers round the decimal as written.
            assert!((got - want).abs() <= 1, "{text}: {got} vs {want}");
        }
    }

    #[test]
    fn harness_text_is_told_by_how_the_text_opens() {
        let string = |t: &str| opens_like_harness(t.as_bytes(), ValueKind::String);
        let blocks = |t: &str| opens_like_harness(t.as_bytes(), ValueKind::Array);
        for harness in [
            "<command-name>/clear</command-name>",
            "\\n  <bash-input>ls</bash-input>",
            "\\u003cenvironment_context>",
            "Caveat: The messages below were generated",
            "[Request interrupted by user]",
            "# AGENTS.md instructions for /w",
            "",
            "  ",
        ] {
            assert!(string(harness), "{harness:?}");
        }
        for typed in ["Fix the bug", "why <b> is bold", "ok"] {
            assert!(!string(typed), "{typed:?}");
        }
        // In blocks, the first text (not `"type":"text"`).
        assert!(blocks(
            r#"[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"hi"}]"#
        ));
        assert!(blocks(
            r#"[{"type":"input_text","text" : "<environment_context>"}]"#
        ));
        assert!(!blocks(r#"[{"type":"text","text":"hi <b>"}]"#));
        // An image alone says nothing typed or harness.
        assert!(!blocks(
            r#"[{"type":"image","source":{"type":"base64","data":"AAAA"}}]"#
        ));
        assert!(!opens_like_harness(b"{}", ValueKind::Object));
    }
}
