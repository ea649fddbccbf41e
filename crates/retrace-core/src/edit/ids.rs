//! New ids for what an operation writes, made the way the session's agent
//! makes them. The rule is here so the CLI and the viewer share it; the
//! random bytes come from the caller (the core draws none).

use std::collections::HashSet;

use crate::model::format_id::Format;
use crate::session::Session;

/// `bytes` as a UUID v4 (`xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx`): the
/// version and variant bits set, the rest as given.
pub fn uuid_v4(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        push_hex(&mut out, *b);
    }
    out
}

fn push_hex(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(HEX[usize::from(b >> 4)] as char);
    out.push(HEX[usize::from(b & 15)] as char);
}

/// A maker of new entry ids for lines written into `session` (the
/// [`Stamp::new_id`](super::Stamp::new_id) of seal, repair, snapshot and
/// compact): pi's 8 hex digits, as pi draws them, used by no entry of the
/// session nor drawn before (drawn again otherwise); for other formats a
/// UUID v4 (Claude Code's `uuid`s). `given`, if any, is the first id
/// made, as it is. `random` gives 16 random bytes per call.
pub fn entry_ids<'a>(
    session: &'a Session,
    mut given: Option<&'a str>,
    mut random: impl FnMut() -> [u8; 16] + 'a,
) -> impl FnMut() -> String + 'a {
    let pi = matches!(session.format(), Format::Pi { .. });
    let mut drawn: HashSet<String> = HashSet::new();
    move || {
        if let Some(id) = given.take() {
            drawn.insert(id.to_owned());
            return id.to_owned();
        }
        let id = loop {
            let bytes = random();
            if !pi {
                break uuid_v4(bytes);
            }
            let mut id = String::with_capacity(8);
            for b in &bytes[..4] {
                push_hex(&mut id, *b);
            }
            if !drawn.contains(&id) && session.find(&id).is_none() {
                break id;
            }
        };
        drawn.insert(id.clone());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(text: &str) -> Session {
        Session::from_bytes("s.jsonl", text.as_bytes())
    }

    /// Random bytes that are all one value, the next of `values` per call.
    fn counting(values: Vec<u8>) -> impl FnMut() -> [u8; 16] {
        let mut values = values.into_iter();
        move || [values.next().expect("enough values"); 16]
    }

    #[test]
    fn uuid_v4_sets_version_and_variant() {
        assert_eq!(uuid_v4([0; 16]), "00000000-0000-4000-8000-000000000000");
        assert_eq!(uuid_v4([0xff; 16]), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        let bytes: [u8; 16] = std::array::from_fn(|i| i as u8 * 17);
        assert_eq!(uuid_v4(bytes), "00112233-4455-4677-8899-aabbccddeeff");
    }

    #[test]
    fn pi_ids_are_eight_hex_digits_unused_in_the_file_and_never_twice() {
        let s = session(concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n",
            "{\"type\":\"message\",\"id\":\"01010101\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        ));
        assert!(matches!(s.format(), Format::Pi { .. }));
        // 01010101 is in the file, 02020202 is drawn twice: each is
        // skipped.
        let mut ids = entry_ids(&s, None, counting(vec![1, 2, 2, 3]));
        assert_eq!(ids(), "02020202");
        assert_eq!(ids(), "03030303");
    }

    #[test]
    fn given_comes_first_and_other_formats_get_uuids() {
        let s = session(
            "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        );
        assert_eq!(s.format(), Format::ClaudeCode);
        let mut ids = entry_ids(&s, Some("mine"), counting(vec![0xab]));
        assert_eq!(ids(), "mine");
        assert_eq!(ids(), "abababab-abab-4bab-abab-abababababab");
    }
}
