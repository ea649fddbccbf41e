//! Vendor-prefixed tokens: a fixed prefix, then a body of known length and
//! charset (and for GitHub and npm a CRC32 checksum). The prefix is the
//! anchor, so these are found anywhere, with or without `KEY=` context.

use super::chars::{
    at, at_slice, byte, is_alnum, is_b64, is_hex, is_lower_hex, is_urlsafe, is_word, run, variety,
};
use super::checksum::token_crc_ok;
use super::hit::{rank, Scanner};
use super::kind::{k, KindId};
use super::placeholder;

/// A token starting at the word `s[i..e]`; returns the end of the match.
pub(crate) fn prefixed(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let (end, kind) = match_token(sc.s, i, e)?;
    if placeholder::fake_token(&sc.s[i..end]) {
        return None;
    }
    sc.hit(i, end, kind, rank::TOKEN);
    Some(end)
}

/// The vendor token starting at `i` (the start of the word `s[i..e]`), as
/// its end and kind; used by other rules to name what a value is.
pub(crate) fn match_token(s: &[u8], i: usize, e: usize) -> Option<(usize, KindId)> {
    let w = &s[i..e];
    // Every token is either a long word (`ghp_…`, `AKIA…`) or a short one
    // followed by `-`, `.` or `=` (`sk-`, `SG.`, `AccountKey=`).
    if w.len() < 20 && !matches!(byte(s, e), b'-' | b'.' | b'=') {
        return None;
    }
    let after = |p: &[u8]| i + p.len();
    // `body` = the run of `f` bytes after the prefix; the token must be
    // `min..=max` long and end there (not run on into more body bytes).
    let body = |p: &[u8], f: fn(u8) -> bool, min: usize, max: usize| -> Option<usize> {
        let start = after(p);
        let end = run(s, start, f);
        (end - start >= min && end - start <= max).then_some(end)
    };
    let exact = |p: &[u8], f: fn(u8) -> bool, len: usize| body(p, f, len, len);
    match w[0] {
        b's' => {
            if at(s, i, b"sk-ant-") {
                let end = body(b"sk-ant-", is_urlsafe, 40, 400)?;
                return Some((end, k::ANTHROPIC));
            }
            if at(s, i, b"sk-or-v1-") {
                return Some((exact(b"sk-or-v1-", is_lower_hex, 64)?, k::OPENROUTER));
            }
            for p in [&b"sk-proj-"[..], b"sk-svcacct-", b"sk-admin-", b"sk-None-"] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_urlsafe, 32, 400)?, k::OPENAI));
                }
            }
            if at(s, i, b"sk-") {
                // Legacy keys: 48 alphanumerics (20 + T3BlbkFJ + 20).
                return Some((body(b"sk-", is_alnum, 32, 200)?, k::OPENAI));
            }
            for p in [&b"sk_live_"[..], b"sk_test_"] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_alnum, 20, 250)?, k::STRIPE));
                }
            }
            for p in [&b"shpat_"[..], b"shpca_", b"shppa_", b"shpss_"] {
                if at_slice(s, i, p) {
                    return Some((exact(p, is_hex, 32)?, k::SHOPIFY));
                }
            }
            if at(s, i, b"sntryu_") {
                return Some((exact(b"sntryu_", is_lower_hex, 64)?, k::SENTRY));
            }
            if at(s, i, b"sntrys_") {
                let f = |b: u8| is_b64(b) || b == b'_';
                return Some((body(b"sntrys_", f, 50, 400)?, k::SENTRY));
            }
            None
        }
        b'r' => {
            for p in [&b"rk_live_"[..], b"rk_test_"] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_alnum, 20, 250)?, k::STRIPE));
                }
            }
            None
        }
        b'g' => {
            if w.len() == 40
                && at(s, i, b"gh")
                && matches!(w[2], b'p' | b'o' | b'u' | b's' | b'r')
                && w[3] == b'_'
                && w[4..].iter().all(|&b| is_alnum(b))
                && token_crc_ok(&w[4..])
            {
                return Some((e, k::GITHUB_TOKEN));
            }
            if at(s, i, b"github_pat_") {
                return Some((
                    body(b"github_pat_", is_word, 70, 255)?,
                    k::GITHUB_FINE_GRAINED,
                ));
            }
            for p in [
                &b"glpat-"[..],
                b"gldt-",
                b"glrt-",
                b"glptt-",
                b"glcbt-",
                b"glimt-",
                b"gloas-",
                b"glft-",
            ] {
                if at_slice(s, i, p) {
                    let f = |b: u8| is_urlsafe(b) || b == b'.';
                    let end = trim_end(s, after(p), run(s, after(p), f), b".-");
                    return (end - after(p) >= 20).then_some((end, k::GITLAB));
                }
            }
            if at(s, i, b"gsk_") {
                return Some((body(b"gsk_", is_alnum, 48, 60)?, k::GROQ));
            }
            if at(s, i, b"glsa_") {
                return Some((body(b"glsa_", is_word, 40, 60)?, k::GRAFANA));
            }
            None
        }
        b'e' => jwt(s, i),
        b'h' => {
            if at(s, i, b"hf_") {
                let end = exact(b"hf_", |b| b.is_ascii_alphabetic(), 34)?;
                return (!is_word(byte(s, end))).then_some((end, k::HUGGINGFACE));
            }
            for p in [&b"hvs."[..], b"hvb.", b"hvr."] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_urlsafe, 24, 400)?, k::VAULT));
                }
            }
            None
        }
        b'a' if at(s, i, b"api_org_") => {
            let end = exact(b"api_org_", |b| b.is_ascii_alphabetic(), 34)?;
            Some((end, k::HUGGINGFACE))
        }
        b'x' => {
            if w.len() == 4
                && at(s, i, b"xox")
                && matches!(w[3], b'a' | b'b' | b'p' | b'o' | b's' | b'r' | b'e')
                && byte(s, e) == b'-'
            {
                let end = run(s, e + 1, |b| is_alnum(b) || b == b'-');
                return (end - e > 10).then_some((end, k::SLACK_TOKEN));
            }
            if at(s, i, b"xapp-") {
                let end = run(s, i + 5, |b| is_alnum(b) || b == b'-');
                return (end - i > 20).then_some((end, k::SLACK_TOKEN));
            }
            if at(s, i, b"xai-") {
                return Some((body(b"xai-", is_alnum, 70, 100)?, k::XAI));
            }
            None
        }
        b'y' if at(s, i, b"ya29.") => {
            let f = |b: u8| is_urlsafe(b) || b == b'.';
            let end = trim_end(s, i + 5, run(s, i + 5, f), b".");
            (end - i >= 25).then_some((end, k::GOOGLE_ACCESS_TOKEN))
        }
        b'n' if at(s, i, b"npm_") => {
            (w.len() == 40 && w[4..].iter().all(|&b| is_alnum(b)) && token_crc_ok(&w[4..]))
                .then_some((e, k::NPM))
        }
        b'p' => {
            for p in [&b"pypi-AgEIcHlwaS5vcmc"[..], b"pypi-AgENdGVzdC5weXBpLm9yZw"] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_urlsafe, 16, 400)?, k::PYPI));
                }
            }
            None
        }
        b'l' if at(s, i, b"lin_api_") => Some((body(b"lin_api_", is_alnum, 40, 64)?, k::LINEAR)),
        b'd' => {
            if at(s, i, b"dapi") {
                let end = exact(b"dapi", is_lower_hex, 32)?;
                // An optional `-2` suffix names the workspace.
                let end = if byte(s, end) == b'-' && byte(s, end + 1).is_ascii_digit() {
                    run(s, end + 1, |b| b.is_ascii_digit())
                } else {
                    end
                };
                return Some((end, k::DATABRICKS));
            }
            for p in [&b"dop_v1_"[..], b"doo_v1_", b"dor_v1_"] {
                if at_slice(s, i, p) {
                    return Some((exact(p, is_lower_hex, 64)?, k::DIGITALOCEAN));
                }
            }
            if at(s, i, b"dckr_pat_") {
                return Some((body(b"dckr_pat_", is_urlsafe, 24, 64)?, k::DOCKER_PAT));
            }
            None
        }
        b'w' if at(s, i, b"whsec_") => Some((body(b"whsec_", is_b64, 24, 100)?, k::STRIPE_WEBHOOK)),
        b'A' => {
            if w.len() == 20
                && (at(s, i, b"AKIA")
                    || at(s, i, b"ASIA")
                    || at(s, i, b"ABIA")
                    || at(s, i, b"ACCA"))
                && w[4..]
                    .iter()
                    .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit())
            {
                return Some((e, k::AWS_ACCESS_KEY_ID));
            }
            if at(s, i, b"AIza") {
                return Some((exact(b"AIza", is_urlsafe, 35)?, k::GCP_API_KEY));
            }
            if at(s, i, b"AGE-SECRET-KEY-1") {
                let f = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit();
                return Some((body(b"AGE-SECRET-KEY-1", f, 50, 70)?, k::AGE_KEY));
            }
            if w == b"AccountKey" && byte(s, e) == b'=' {
                let end = run(s, e + 1, is_b64);
                return (end - e > 40).then_some((end, k::AZURE_STORAGE_KEY));
            }
            None
        }
        b'G' if at(s, i, b"GOCSPX-") => Some((
            body(b"GOCSPX-", is_urlsafe, 24, 40)?,
            k::GOOGLE_CLIENT_SECRET,
        )),
        b'I' if at(s, i, b"IQoJb3JpZ2luX2Vj") => Some((
            body(b"IQoJb3JpZ2luX2Vj", is_b64, 100, 4000)?,
            k::AWS_SESSION_TOKEN,
        )),
        b'F' => {
            for p in [&b"FwoGZXIvYXdzE"[..], b"FQoGZXIvYXdzE"] {
                if at_slice(s, i, p) {
                    return Some((body(p, is_b64, 100, 4000)?, k::AWS_SESSION_TOKEN));
                }
            }
            None
        }
        b'S' => {
            if at(s, i, b"SG.") {
                let a = exact(b"SG.", is_urlsafe, 22)?;
                if byte(s, a) != b'.' {
                    return None;
                }
                let end = run(s, a + 1, is_urlsafe);
                return (end - a - 1 == 43).then_some((end, k::SENDGRID));
            }
            (w.len() == 34 && w[1] == b'K' && w[2..].iter().all(|&b| is_hex(b)))
                .then_some((e, k::TWILIO))
        }
        b'P' if at(s, i, b"PMAK-") => {
            let end = run(s, i + 5, |b| is_hex(b) || b == b'-');
            (end - i >= 60).then_some((end, k::POSTMAN))
        }
        _ => None,
    }
}

/// A JWT: `eyJ<header>.eyJ<payload>.<signature>` in base64url.
fn jwt(s: &[u8], i: usize) -> Option<(usize, KindId)> {
    if !at(s, i, b"eyJ") {
        return None;
    }
    let f = |b: u8| is_alnum(b) || b == b'-' || b == b'_';
    let a = run(s, i, f);
    if a - i < 10 || byte(s, a) != b'.' || !at(s, a + 1, b"eyJ") {
        return None;
    }
    let b = run(s, a + 1, f);
    if b - a < 10 || byte(s, b) != b'.' {
        return None;
    }
    let c = run(s, b + 1, f);
    (c - b > 16).then_some((c, k::JWT))
}

/// `end` moved back over trailing bytes in `strip` (a sentence's full
/// stop after a token).
fn trim_end(s: &[u8], start: usize, mut end: usize, strip: &[u8]) -> usize {
    while end > start && strip.contains(&s[end - 1]) {
        end -= 1;
    }
    end
}

/// A Telegram bot token `<8-10 digits>:AA<33>`, whose digits end the word
/// `s[i..e]` (the word may be `bot123…` inside an API URL).
pub(crate) fn telegram(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let s = sc.s;
    let digits = s[i..e]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(8..=10).contains(&digits) {
        return None;
    }
    let end = run(s, e + 1, is_urlsafe);
    if end - e - 1 != 35 {
        return None;
    }
    sc.hit(e - digits, end, k::TELEGRAM, rank::TOKEN);
    Some(end)
}

/// An Azure AD client secret `xxx8Q~` + 31–34 characters; the word
/// `s[i..e]` is the five bytes before the `~`.
pub(crate) fn azure_client_secret(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let s = sc.s;
    if !(s[i + 3].is_ascii_digit() && s[i + 4] == b'Q' && s[i..i + 3].iter().all(|&b| is_alnum(b)))
    {
        return None;
    }
    let f = |b: u8| is_alnum(b) || matches!(b, b'_' | b'~' | b'.' | b'-');
    let end = trim_end(s, e + 1, run(s, e + 1, f), b".");
    let body = &s[e + 1..end];
    if !(31..=40).contains(&body.len()) || variety(body) < 10 {
        return None;
    }
    sc.hit(i, end, k::AZURE_CLIENT_SECRET, rank::TOKEN);
    Some(end)
}
