//! Values that only look like secrets: documentation examples
//! (`AKIAIOSFODNN7EXAMPLE`), template variables (`${VAR}`, `<your-key>`),
//! defaults (`changeme`) and what a redactor already wrote (`***`,
//! `[REDACTED:…]`). None of them is a finding, so re-scanning redacted
//! output finds nothing.

use super::chars::variety;

/// Words that mark a value as an example or a template, wherever they are
/// in it (lower case); `has_marker` looks for these.
#[cfg(test)]
const MARKERS: &[&[u8]] = &[
    b"example",
    b"your-",
    b"your_",
    b"yourkey",
    b"yourtoken",
    b"changeme",
    b"change-me",
    b"change_me",
    b"placeholder",
    b"dummy",
    b"xxxx",
    b"****",
    b"redacted",
    b"replace-me",
    b"replace_me",
    b"insert-",
    b"insert_",
    b"<",
    b"${",
    b"{{",
];

/// Whole values that are defaults or type names, not secrets (lower case).
const WHOLE: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"secret",
    b"token",
    b"none",
    b"null",
    b"nil",
    b"undefined",
    b"true",
    b"false",
    b"test",
    b"pass",
    b"changeit",
    b"default",
    b"string",
    b"str",
    b"required",
    b"optional",
    b"empty",
    b"hidden",
    b"masked",
    b"secret_key",
    b"api_key",
    b"apikey",
];

/// Whether a candidate value (a password, a token, an assignment's value)
/// is a placeholder rather than real material.
pub(crate) fn is_placeholder(v: &[u8]) -> bool {
    let v = trim_quotes(v);
    if v.is_empty() {
        return true;
    }
    // `$VAR`, `${VAR}`, `%s`, `%(name)s`, `***` (but not `%2B…`, a
    // percent-encoded value).
    if matches!(v[0], b'$' | b'*')
        || (v[0] == b'%' && !(v.len() >= 3 && v[1].is_ascii_hexdigit() && v[2].is_ascii_hexdigit()))
    {
        return true;
    }
    // Placeholders are short; long values are material.
    if v.len() > 128 {
        return false;
    }
    if v.len() >= 3 && variety(v) <= 2 {
        return true;
    }
    let mut buf = [0u8; 128];
    let lower = &mut buf[..v.len()];
    for (d, s) in lower.iter_mut().zip(v) {
        *d = s.to_ascii_lowercase();
    }
    let lower = &*lower;
    if WHOLE.contains(&lower) || has_marker(lower) {
        return true;
    }
    // `sk-...a1b2`: a shortened, shown-in-part key.
    if v.len() < 30 && (contains(v, b"...") || contains(v, "…".as_bytes())) {
        return true;
    }
    // A base64 value that decodes to a placeholder (`Y2hhbmdlbWU=` is
    // `changeme` in a Kubernetes Secret).
    if v.len() <= 64 && v.len().is_multiple_of(4) {
        if let Some(decoded) = decode_base64(v) {
            if !decoded.is_empty() && decoded.iter().all(|b| b.is_ascii_graphic()) {
                let lower: Vec<u8> = decoded.iter().map(u8::to_ascii_lowercase).collect();
                return WHOLE.contains(&lower.as_slice()) || has_marker(&lower);
            }
        }
    }
    false
}

/// Whether one of [`MARKERS`] occurs in `lower`: one pass, each byte
/// checked only against the markers that start with it.
fn has_marker(lower: &[u8]) -> bool {
    (0..lower.len()).any(|i| {
        let rest = &lower[i..];
        match rest[0] {
            b'<' => true,
            b'e' => rest.starts_with(b"example"),
            b'y' => rest.starts_with(b"your"),
            b'c' => rest.starts_with(b"change") && matches!(rest.get(6), Some(b'm' | b'-' | b'_')),
            b'p' => rest.starts_with(b"placeholder"),
            b'd' => rest.starts_with(b"dummy"),
            b'x' => rest.starts_with(b"xxxx"),
            b'*' => rest.starts_with(b"****"),
            b'r' => {
                rest.starts_with(b"redacted")
                    || rest.starts_with(b"replace-me")
                    || rest.starts_with(b"replace_me")
            }
            b'i' => rest.starts_with(b"insert-") || rest.starts_with(b"insert_"),
            b'$' => rest.starts_with(b"${"),
            b'{' => rest.starts_with(b"{{"),
            _ => false,
        }
    })
}

/// Whether a prefixed token's body is an obvious stand-in (`ghp_xxxx…`,
/// `AKIAIOSFODNN7EXAMPLE`, `sk-aaaa…`).
pub(crate) fn fake_token(t: &[u8]) -> bool {
    if t.len() >= 16 && variety(t) < 8 {
        return true;
    }
    let lower: Vec<u8> = t.iter().map(u8::to_ascii_lowercase).collect();
    [
        &b"example"[..],
        b"xxxxx",
        b"yourkey",
        b"your-",
        b"your_",
        b"0000000000",
    ]
    .iter()
    .any(|m| contains(&lower, m))
}

fn trim_quotes(v: &[u8]) -> &[u8] {
    let mut v = v;
    while let [b'"' | b'\'' | b'`', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b'"' | b'\'' | b'`'] = v {
        v = rest;
    }
    v
}

/// Naive search: needles here are a few bytes and values short, where
/// building a searcher would cost more than it saves.
pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if hay.len() < needle.len() {
        return false;
    }
    let last_start = hay.len() - needle.len();
    let mut from = 0;
    while let Some(p) = memchr::memchr(first, &hay[from..=last_start]) {
        let at = from + p;
        if &hay[at + 1..at + needle.len()] == rest {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Standard base64 (with padding) to bytes; `None` when `v` is not that.
pub(crate) fn decode_base64(v: &[u8]) -> Option<Vec<u8>> {
    if v.len() < 4 || !v.len().is_multiple_of(4) || v.len() > 4096 {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let pad = v.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let body = &v[..v.len() - pad];
    let mut out = Vec::with_capacity(v.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in body {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_placeholders() {
        for v in [
            "changeme",
            "${DB_PASSWORD}",
            "$TOKEN",
            "<password>",
            "<your-openai-key>",
            "your-api-key-here",
            "xxxxxxxx",
            "***",
            "[REDACTED:password-assignment]",
            "Y2hhbmdlbWU=",
            "'password'",
            "sk-...a1b2",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ] {
            assert!(is_placeholder(v.as_bytes()), "{v}");
        }
        for v in ["Summer2024!", "hunter2", "K7dPq2xZ9mWv", "U3VtbWVyMjAyNCE="] {
            assert!(!is_placeholder(v.as_bytes()), "{v}");
        }
        for m in MARKERS {
            assert!(has_marker(m), "{}", String::from_utf8_lossy(m));
        }
        assert!(fake_token(b"AKIAIOSFODNN7EXAMPLE"));
        assert!(fake_token(b"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
        assert!(!fake_token(b"ghp_R4nd0mT0k3nW1thV4r13tyAbCdEfGh"));
    }
}
