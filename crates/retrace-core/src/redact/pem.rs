//! Private keys in PEM armour: the whole block, from `-----BEGIN … PRIVATE
//! KEY-----` to its `-----END …-----` line, whether its lines are broken
//! by real newlines or by literal `\n` (a key pasted into a `.env` value or
//! a service-account JSON). Certificates and public keys are left alone.

use memchr::memmem;

use super::chars::{at, byte, run_back};
use super::hit::{rank, Scanner};
use super::kind::k;

/// How far the `END` line may be from the `BEGIN` line (an RSA-8192 key
/// is about 6.5 KB).
const MAX_BLOCK: usize = 64 * 1024;

/// A block starting at the `-----` at `i`; returns where scanning goes on.
pub(crate) fn block(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    if !at(s, i, b"-----BEGIN ") {
        // Not a header: skip the dash run.
        let mut j = i;
        while byte(s, j) == b'-' {
            j += 1;
        }
        return j;
    }
    let label_start = i + 11;
    let window = &s[label_start..s.len().min(label_start + 64)];
    let Some(label_len) = memmem::find(window, b"-----") else {
        return i + 11;
    };
    let label = &window[..label_len];
    if memmem::find(label, b"PRIVATE KEY").is_none() {
        return label_start + label_len + 5;
    }
    let body = label_start + label_len + 5;
    let search = &s[body..s.len().min(body + MAX_BLOCK)];
    let end = match memmem::find(search, b"-----END ") {
        Some(at_end) => {
            let after = body + at_end + 9;
            let tail = &s[after..s.len().min(after + 64)];
            match memmem::find(tail, b"-----") {
                Some(t) => after + t + 5,
                None => after,
            }
        }
        // A cut-off block (output truncated): everything that still looks
        // like its body.
        None => {
            body + search
                .iter()
                .position(|&b| {
                    !(b.is_ascii_alphanumeric()
                        || matches!(
                            b,
                            b'+' | b'/' | b'=' | b'\n' | b'\r' | b' ' | b'\\' | b':' | b',' | b'-'
                        ))
                })
                .unwrap_or(search.len())
        }
    };
    let kind = if service_account(sc, i) {
        k::GCP_SERVICE_ACCOUNT
    } else {
        k::PRIVATE_KEY
    };
    sc.hit(i, end, kind, rank::TOKEN);
    end
}

/// A key that is a Google service account's `private_key` (the JSON key of
/// the value, or `"private_key": "` just before it in text).
fn service_account(sc: &Scanner, i: usize) -> bool {
    if sc.key == Some(b"private_key") && i == 0 {
        return true;
    }
    let s = sc.s;
    let start = run_back(s, i, 8, |b| matches!(b, b'"' | b':' | b' ' | b'='));
    start >= 11 && &s[start - 11..start] == b"private_key"
}
