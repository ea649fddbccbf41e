//! Credentials in URLs: the password of `scheme://user:PASS@host` (database
//! connection strings, git remotes, package indexes) and Slack webhook
//! URLs, whose path is the secret. Query-string tokens (`?access_token=`)
//! are assignments (see `assign`).

use super::chars::{at, byte, is_alnum, run, run_back};
use super::hit::{rank, Scanner};
use super::kind::{k, KindId};
use super::placeholder;
use super::tokens;

/// Schemes whose URLs are database or broker connection strings.
const DB_SCHEMES: &[&[u8]] = &[
    b"postgres",
    b"postgresql",
    b"mysql",
    b"mariadb",
    b"mongodb",
    b"redis",
    b"rediss",
    b"amqp",
    b"amqps",
    b"mssql",
    b"sqlserver",
    b"oracle",
    b"clickhouse",
    b"cockroachdb",
    b"neo4j",
    b"couchdb",
    b"memcached",
    b"cassandra",
    b"kafka",
    b"nats",
];

/// The `://` at `i`; returns where scanning goes on.
pub(crate) fn authority(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    let scheme_start = run_back(s, i, 40, |b| {
        is_alnum(b) || matches!(b, b'+' | b'.' | b'-' | b':')
    });
    let scheme = &s[scheme_start..i];
    if scheme.is_empty() || !scheme[0].is_ascii_alphabetic() {
        return i + 3;
    }
    let host_start = i + 3;
    let end = run(s, host_start, |b| {
        !matches!(
            b,
            b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\' | b'{' | b'}'
        ) && b > b' '
    })
    .min(host_start + 512);
    let auth = &s[host_start..end];
    if is_slack_webhook(scheme, auth, s, end) {
        let path_end = run(s, end, |b| is_alnum(b) || matches!(b, b'/' | b'_' | b'-'));
        sc.hit(scheme_start, path_end, k::SLACK_WEBHOOK, rank::TOKEN);
        return path_end;
    }
    let Some(at_sign) = auth.iter().rposition(|&b| b == b'@') else {
        return host_start;
    };
    let userinfo = &auth[..at_sign];
    let Some(colon) = userinfo.iter().position(|&b| b == b':') else {
        // `https://TOKEN@host`: the token rules see the user part.
        return host_start;
    };
    let pw_start = host_start + colon + 1;
    let pw_end = host_start + at_sign;
    let pw = &s[pw_start..pw_end];
    if pw.is_empty() || placeholder::is_placeholder(pw) {
        return pw_end + 1;
    }
    let kind = password_kind(scheme, s, pw_start, pw_end);
    let r = if kind == k::DB_PASSWORD || kind == k::URL_BASIC_AUTH {
        rank::URL
    } else {
        rank::TOKEN
    };
    sc.hit(pw_start, pw_end, kind, r);
    // Past the `@`, so the host is not read as an email's domain.
    pw_end + 1
}

fn password_kind(scheme: &[u8], s: &[u8], start: usize, end: usize) -> KindId {
    let word_end = run(s, start, super::chars::is_word);
    if let Some((token_end, kind)) =
        tokens::match_token(s, start, word_end.max(start + 1).min(s.len()))
    {
        if token_end == end {
            return kind;
        }
    }
    let base = scheme
        .rsplit(|&b| b == b':')
        .next()
        .unwrap_or(scheme)
        .split(|&b| b == b'+')
        .next()
        .unwrap_or(scheme);
    let lower: Vec<u8> = base.iter().map(u8::to_ascii_lowercase).collect();
    if DB_SCHEMES.contains(&lower.as_slice()) || at(scheme, 0, b"jdbc") {
        k::DB_PASSWORD
    } else {
        k::URL_BASIC_AUTH
    }
}

fn is_slack_webhook(scheme: &[u8], auth: &[u8], s: &[u8], end: usize) -> bool {
    scheme.eq_ignore_ascii_case(b"https")
        && auth == b"hooks.slack.com"
        && (at(s, end, b"/services/") || at(s, end, b"/workflows/") || at(s, end, b"/triggers/"))
        && byte(s, end + 10) != 0
}
