//! Secrets known by their name rather than their shape: `PASSWORD=…`,
//! `"client_secret": "…"`, `api_key: …`, `?access_token=…`,
//! `Authorization: Bearer …`, `curl -u user:pass`, `docker login -p …`,
//! and the prose of a prompt (`the admin password is …`).
//!
//! A name is split into words (`SECRET_KEY`, `secretKey`, `x-api-key`) and
//! its last word decides; a value must then look like material, not code
//! (`os.environ["KEY"]`, `getpass()`, `settings.SECRET_KEY`), a type
//! (`password: str`) or a placeholder (`${VAR}`, `changeme`).

use memchr::memchr;

use super::chars::{at_nocase, byte, is_alnum, is_b64, is_space, is_word, run, run_back, variety};
use super::hit::{rank, Scanner};
use super::home;
use super::kind::{k, KindId};
use super::placeholder::{decode_base64, is_placeholder};

/// How much a name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strength {
    /// A password: any non-placeholder value, even a weak human one.
    Password,
    /// A secret or token: the value must look like key material.
    Secret,
    /// A name that is only sometimes secret (`auth`, `?key=`): the value
    /// must look random.
    Weak,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Class {
    pub kind: KindId,
    pub strength: Strength,
}

/// Longest name and value looked at.
const MAX_NAME: usize = 64;
const MAX_VALUE: usize = 4096;

/// Words before `token` that make it a position, not a credential.
const NOT_CREDENTIAL: &[&[u8]] = &[
    b"next",
    b"page",
    b"prev",
    b"previous",
    b"continuation",
    b"cancellation",
    b"cancel",
    b"sync",
    b"max",
    b"num",
    b"count",
    b"total",
    b"input",
    b"output",
    b"completion",
    b"prompt",
    b"reasoning",
    b"cache",
    b"cached",
    b"last",
    b"first",
    b"end",
    b"start",
    b"stop",
];

/// Words before `key` that make it a credential.
const KEY_OWNERS: &[&[u8]] = &[
    b"api",
    b"secret",
    b"private",
    b"access",
    b"encryption",
    b"signing",
    b"app",
    b"master",
    b"client",
    b"auth",
    b"service",
    b"license",
    b"account",
    b"storage",
    b"shared",
    b"hmac",
    b"session",
    b"webhook",
    b"encrypt",
    b"crypt",
    b"jwt",
    b"cookie",
    b"admin",
    b"subscription",
    b"integration",
    b"deploy",
    b"consumer",
    b"root",
    b"secure",
    b"write",
    b"read",
    b"ingest",
];

/// The last two letters (lower case) of every word that can end a
/// secret's name: pass-word, pass-wd, pa-ss, phra-se, co-de, secr-et, k-ey,
/// credenti-al(s), cre-ds, tok-en, au-th, authorizati-on, s-ig, signatu-re.
const NAME_ENDINGS: [[u8; 2]; 15] = [
    *b"rd", *b"wd", *b"ss", *b"se", *b"de", *b"et", *b"ey", *b"al", *b"ls", *b"ds", *b"en", *b"th",
    *b"on", *b"ig", *b"re",
];

/// A quick look at a name's last word (most names are `type`, `text`,
/// `content`…): could `classify` say it is secret?
fn may_name_secret(name: &[u8], query: bool) -> bool {
    // First the last two letters: every secret-naming last word ends in
    // one of these pairs (pass-word, pass-wd, pa-ss, phra-se, co-de,
    // secr-et, k-ey, credenti-al(s), cre-ds, tok-en, au-th,
    // authorizati-on, s-ig, signatu-re).
    let n = name.len();
    if n < 2 {
        return false;
    }
    let pair = [name[n - 2] | 0x20, name[n - 1] | 0x20];
    if !NAME_ENDINGS.contains(&pair) {
        return false;
    }
    let mut start = name.len();
    while start > 0 {
        let b = name[start - 1];
        if !is_alnum(b) {
            break;
        }
        start -= 1;
        if b.is_ascii_uppercase() && start > 0 && name[start - 1].is_ascii_lowercase() {
            break;
        }
    }
    let last = &name[start..];
    if last.len() > 13 {
        return false;
    }
    let mut buf = [0u8; 13];
    for (d, s) in buf.iter_mut().zip(last) {
        *d = s.to_ascii_lowercase();
    }
    match &buf[..last.len()] {
        b"password" | b"passwd" | b"pwd" | b"pass" | b"passphrase" | b"passcode" | b"pword"
        | b"secret" | b"secretkey" | b"clientsecret" | b"apisecret" | b"credential"
        | b"credentials" | b"creds" | b"apikey" | b"accesskey" | b"privatekey" | b"signingkey"
        | b"masterkey" | b"authtoken" | b"accesstoken" | b"apitoken" | b"refreshtoken"
        | b"bearertoken" | b"idtoken" | b"sessiontoken" | b"token" | b"key" | b"auth"
        | b"authorization" => true,
        b"sig" | b"signature" | b"code" => query,
        _ => false,
    }
}

/// What a name says its value is, or `None` for an ordinary name.
/// `query`: the name is a URL query parameter.
pub(crate) fn classify(name: &[u8], query: bool) -> Option<Class> {
    if name.is_empty() || name.len() > MAX_NAME || !may_name_secret(name, query) {
        return None;
    }
    // Split into lower-case words at `_ - .`, other punctuation, and
    // lower-to-upper case changes.
    let mut buf = [0u8; MAX_NAME];
    let mut words: [(usize, usize); 12] = [(0, 0); 12];
    let mut n = 0;
    let mut start = 0;
    for (x, &b) in name.iter().enumerate() {
        let split =
            !is_alnum(b) || (x > 0 && b.is_ascii_uppercase() && name[x - 1].is_ascii_lowercase());
        if split && x > start && n < words.len() {
            words[n] = (start, x);
            n += 1;
        }
        if split {
            start = if is_alnum(b) { x } else { x + 1 };
        }
        buf[x] = b.to_ascii_lowercase();
    }
    if start < name.len() && n < words.len() {
        words[n] = (start, name.len());
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let word = |x: usize| &buf[words[x].0..words[x].1];
    let has = |w: &[u8]| (0..n).any(|x| word(x) == w);
    if has(b"public") || has(b"publishable") || has(b"pub") || has(b"example") || has(b"dummy") {
        return None;
    }
    let last = word(n - 1);
    let prev: &[u8] = if n >= 2 { word(n - 2) } else { b"" };
    let strength = match last {
        b"password" | b"passwd" | b"pwd" | b"pass" | b"passphrase" | b"passcode" | b"pword" => {
            Strength::Password
        }
        b"secret" | b"secretkey" | b"clientsecret" | b"apisecret" | b"credential"
        | b"credentials" | b"creds" | b"apikey" | b"accesskey" | b"privatekey" | b"signingkey"
        | b"masterkey" | b"authtoken" | b"accesstoken" | b"apitoken" | b"refreshtoken"
        | b"bearertoken" | b"idtoken" | b"sessiontoken" => Strength::Secret,
        b"token" if !NOT_CREDENTIAL.contains(&prev) => Strength::Secret,
        b"key" if KEY_OWNERS.contains(&prev) => Strength::Secret,
        b"auth" | b"authorization" => Strength::Weak,
        b"key" | b"sig" | b"signature" | b"code" if query => Strength::Weak,
        // A constant named just `KEY` (`KEY = "…"`): only a random value
        // (`cache key: …` in a log is not one).
        b"key" if n == 1 && name == b"KEY" => Strength::Weak,
        _ => return None,
    };
    let kind =
        if has(b"aws") && has(b"secret") || (has(b"secret") && has(b"access") && last == b"key") {
            k::AWS_SECRET_ACCESS_KEY
        } else if has(b"aws") && has(b"session") {
            k::AWS_SESSION_TOKEN
        } else if last == b"key" && prev == b"account" {
            k::AZURE_STORAGE_KEY
        } else if strength == Strength::Password {
            k::PASSWORD
        } else if query {
            k::URL_QUERY_TOKEN
        } else {
            k::GENERIC_SECRET
        };
    Some(Class { kind, strength })
}

/// Whether `v` is a value worth redacting under a name of `strength`.
/// `quoted`: it was written as a string literal (so it is not code).
pub(crate) fn value_ok(v: &[u8], quoted: bool, strength: Strength) -> bool {
    if v.is_empty() || v.len() > MAX_VALUE || is_placeholder(v) {
        return false;
    }
    if at_nocase(v, 0, b"http://")
        || at_nocase(v, 0, b"https://")
        || path_like(v)
        || matches!(v[0], b'<' | b'@')
    {
        return false;
    }
    let (mut lower, mut upper, mut digit, mut other, mut space) =
        (false, false, false, false, false);
    for &b in v {
        match b {
            b'a'..=b'z' => lower = true,
            b'A'..=b'Z' => upper = true,
            b'0'..=b'9' => digit = true,
            b' ' | b'\t' | b'\n' | b'\r' => space = true,
            _ => other = true,
        }
    }
    if !quoted && code_like(v) {
        return false;
    }
    if quoted && memchr(b'{', v).is_some() && memchr(b'}', v).is_some() {
        return false;
    }
    if matches!(v, b"true" | b"false" | b"null" | b"None" | b"nil") {
        return false;
    }
    let classes = lower as u8 + upper as u8 + digit as u8 + other as u8;
    match strength {
        Strength::Password => {
            v.len() >= 4 && (classes >= 2 || upper || digit) && !(space && v.len() < 12)
        }
        Strength::Secret => !space && v.len() >= 8 && classes >= 2 && (digit || v.len() >= 16),
        Strength::Weak => !space && v.len() >= 16 && classes >= 2 && digit,
    }
}

/// Unquoted values that are expressions: calls and indexing
/// (`os.environ[`, `getpass.getpass(`), literals of containers, attribute
/// chains of identifiers (`settings.SECRET_KEY`), bare variable names.
fn code_like(v: &[u8]) -> bool {
    if matches!(v[0], b'(' | b'[' | b'{') {
        return true;
    }
    let ident_end = v
        .iter()
        .position(|&b| !(is_word(b) || b == b'.'))
        .unwrap_or(v.len());
    if ident_end < v.len() && matches!(v[ident_end], b'(' | b'[') && v[0].is_ascii_alphabetic() {
        return true;
    }
    if ident_end == v.len() && v.iter().all(|&b| b.is_ascii_lowercase() || b == b'_') {
        return true;
    }
    // A type or variable name without digits (`creds: OAuthCredentials`,
    // `password: SecretStr`).
    if ident_end == v.len() && identifier_like(v) && !v.iter().any(u8::is_ascii_digit) {
        return true;
    }
    ident_end == v.len()
        && memchr(b'.', v).is_some()
        && v.split(|&b| b == b'.').all(identifier_like)
}

/// A word written the way code names things: `snake_case`,
/// `UPPER_CASE`, `camelCase`, `PascalCase` (random material mixes case
/// without that rhythm: `i2TybWnfAHAh`).
fn identifier_like(w: &[u8]) -> bool {
    if w.is_empty() || w[0].is_ascii_digit() {
        return false;
    }
    // Digits among mixed case in a longer word: material, not a name
    // (`SkOpbj64eTk258`).
    let has = |f: fn(&u8) -> bool| w.iter().any(f);
    if w.len() >= 8
        && has(u8::is_ascii_digit)
        && has(u8::is_ascii_uppercase)
        && has(u8::is_ascii_lowercase)
    {
        return false;
    }
    let lower = w.iter().all(|&b| !b.is_ascii_uppercase());
    let upper = w.iter().all(|&b| !b.is_ascii_lowercase());
    let camel = w.iter().enumerate().all(|(x, &b)| {
        !b.is_ascii_uppercase()
            || (x + 1 < w.len() && !w[x + 1].is_ascii_uppercase() && w[x + 1] != b'_')
    });
    lower || upper || camel
}

/// Paths (`/run/secrets/db`, `./key.pem`, `~/.ssh/id_rsa`) name where a
/// secret is, not the secret; base64 material with a leading `/` or `+`
/// is not one.
fn path_like(v: &[u8]) -> bool {
    let rooted =
        v[0] == b'/' || v.starts_with(b"./") || v.starts_with(b"~/") || v.starts_with(b"../");
    // A segment of 20+ characters mixing case and digits is base64
    // material, not a directory name.
    let random_segment = v.split(|&b| b == b'/').any(|seg| {
        seg.len() >= 20
            && seg.iter().any(u8::is_ascii_digit)
            && seg.iter().any(u8::is_ascii_uppercase)
            && seg.iter().any(u8::is_ascii_lowercase)
    });
    rooted
        && !random_segment
        && !v.iter().any(|&b| matches!(b, b'+' | b'='))
        && (v.iter().filter(|&&b| b == b'/').count() >= 2 || memchr(b'.', &v[1..]).is_some())
}

/// `=` or `:` at `i`: an assignment when the name before it says secret.
pub(crate) fn operator(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    let op = s[i];
    let prev = if i > 0 { s[i - 1] } else { 0 };
    if op == b'=' && (matches!(prev, b'=' | b'!' | b'<' | b'>') || byte(s, i + 1) == b'=') {
        return i + 1;
    }
    // The name: back over spaces, a `]` and a quote (`config["KEY"] =`).
    let mut j = run_back(s, i, 3, |b| b == b' ' || b == b'\t');
    if j > 0 && s[j - 1] == b']' {
        j -= 1;
    }
    if j > 0 && matches!(s[j - 1], b'"' | b'\'') {
        j -= 1;
    }
    // Before walking back over the name, its last two bytes: a line
    // number (`file:12:`), `USER`/`LOGNAME`/`USERNAME`, or the end of a
    // secret-naming word; anything else is an ordinary `key: value`.
    if j < 2 {
        return i + 1;
    }
    let (a, b) = (s[j - 2], s[j - 1]);
    let digits = b.is_ascii_digit() && (a.is_ascii_digit() || matches!(a, b':' | b'\n'));
    let pair = [a | 0x20, b | 0x20];
    let user = op == b'=' && matches!(&pair, b"er" | b"me");
    if !(digits || user || NAME_ENDINGS.contains(&pair)) {
        return i + 1;
    }
    let mut name_start = run_back(s, j, MAX_NAME + 2, |b| is_word(b) || b == b'-' || b == b'.');
    while name_start < j && matches!(s[name_start], b'-' | b'.') {
        name_start += 1;
    }
    if name_start == j {
        return i + 1;
    }
    let name = &s[name_start..j];
    if op == b':' && name.iter().all(u8::is_ascii_digit) {
        return grep_hit(sc, i, name_start);
    }
    // `PWD` is the shell's working directory, not a password.
    if name == b"PWD" {
        return i + 1;
    }
    if op == b'=' && matches!(name, b"USER" | b"LOGNAME" | b"USERNAME") {
        let end = run(s, i + 1, |b| is_alnum(b) || matches!(b, b'.' | b'_' | b'-'));
        return home::name(sc, i + 1, end).max(i + 1);
    }
    let query = name_start > 0 && matches!(s[name_start - 1], b'?' | b'&');
    let Some(class) = classify(name, query) else {
        return i + 1;
    };
    let mut v = i + 1;
    if (op == b'=' && byte(s, v) == b'>') || (op == b':' && byte(s, v) == b'=') {
        v += 1;
    }
    v = run(s, v, |b| b == b' ' || b == b'\t').min(v + 8);
    if let Some((start, end, quoted)) = value_at(s, v, query) {
        let value = &s[start..end];
        // An AWS secret key is 40 base64 characters, even when it starts
        // with `/` like a path.
        let aws = !is_placeholder(value)
            && class.kind == k::AWS_SECRET_ACCESS_KEY
            && value.len() == 40
            && value.iter().all(|&b| is_b64(b));
        let type_name = !quoted
            && value[0].is_ascii_alphabetic()
            && value.iter().all(|&b| is_word(b) || b == b'.')
            && type_position(s, end);
        if (aws || value_ok(value, quoted, class.strength)) && !type_name {
            sc.hit(start, end, class.kind, rank::ASSIGNMENT);
        }
    }
    // The value is scanned too: a vendor token in it names the kind.
    i + 1
}

/// An unquoted value followed by `)`, `=`, `{` or `|` is a type in a
/// signature or declaration (`creds: OAuthCredentials): void`,
/// `credentials: OAuthCredentials = {`), not a value.
fn type_position(s: &[u8], end: usize) -> bool {
    if byte(s, end) == b')' {
        return true;
    }
    let next = run(s, end, |b| b == b' ');
    matches!(byte(s, next), b'=' | b'{' | b'|') && byte(s, next + 1) != b'='
}

/// `path:LINE:TOKEN` (grep or rg output) where the matched line is a lone
/// random token: a secret found by searching for one. `i` is the colon
/// after the line number, which starts at `digits`.
fn grep_hit(sc: &mut Scanner, i: usize, digits: usize) -> usize {
    let s = sc.s;
    if digits == 0 || s[digits - 1] != b':' {
        return i + 1;
    }
    let path_start = run_back(s, digits - 1, 200, |b| {
        is_alnum(b) || matches!(b, b'.' | b'/' | b'_' | b'-')
    });
    let path = &s[path_start..digits - 1];
    if path.is_empty()
        || !(path_start == 0 || s[path_start - 1] == b'\n')
        || memchr(b'.', path).is_none()
    {
        return i + 1;
    }
    let start = skip_ansi(s, i + 1);
    let end = run(s, start, |b| {
        !is_space(b) && b != 0x1b && b != b'"' && b != b'\''
    });
    let after = skip_ansi(s, end);
    if !(after == s.len() || matches!(s[after], b'\n' | b'\r')) {
        return i + 1;
    }
    let tok = &s[start..end];
    if tok.len() >= 20 && variety(tok) >= 12 && value_ok(tok, true, Strength::Weak) {
        sc.hit(start, end, k::GENERIC_SECRET, rank::ASSIGNMENT);
        return end;
    }
    i + 1
}

/// Past any ANSI escape sequences at `i`.
fn skip_ansi(s: &[u8], mut i: usize) -> usize {
    while byte(s, i) == 0x1b && byte(s, i + 1) == b'[' {
        let mut j = i + 2;
        while j < s.len() && (s[j].is_ascii_digit() || s[j] == b';') {
            j += 1;
        }
        if j < s.len() && (0x40..=0x7e).contains(&s[j]) {
            i = j + 1;
        } else {
            break;
        }
    }
    i
}

/// The value starting at `v`: a quoted string on one line, or a run up to
/// whitespace, a quote or a separator. Returns (start, end, quoted).
fn value_at(s: &[u8], v: usize, query: bool) -> Option<(usize, usize, bool)> {
    let q = byte(s, v);
    if matches!(q, b'"' | b'\'' | b'`') {
        let limit = s.len().min(v + 1 + MAX_VALUE);
        let close = v + 1 + memchr(q, &s[v + 1..limit])?;
        if memchr(b'\n', &s[v + 1..close]).is_some() {
            return None;
        }
        return Some((v + 1, close, true));
    }
    let mut end = run(s, v, |b| {
        !(is_space(b)
            || matches!(b, b'"' | b'\'' | b'`' | b',' | b';')
            || (query && matches!(b, b'&' | b'#')))
    })
    .min(v + MAX_VALUE);
    // A closing bracket or full stop that ends the surrounding text.
    while end > v && matches!(s[end - 1], b')' | b']' | b'}' | b'>' | b'.' | b':') {
        let open = match s[end - 1] {
            b')' => b'(',
            b']' => b'[',
            b'}' => b'{',
            b'>' => b'<',
            _ => 0,
        };
        if open != 0 && memchr(open, &s[v..end]).is_some() {
            break;
        }
        end -= 1;
    }
    (end > v).then_some((v, end, false))
}

/// The whole string value of a JSON key that names a secret
/// (`{"password": "…"}`).
pub(crate) fn key_value(sc: &mut Scanner) {
    let Some(key) = sc.key else { return };
    let s = sc.s;
    if s.len() > MAX_VALUE || memchr(b'\n', s).is_some() {
        return;
    }
    let Some(class) = classify(key, false) else {
        return;
    };
    let start = run(s, 0, is_space);
    let end = s.len()
        - s[start..]
            .iter()
            .rev()
            .take_while(|&&b| is_space(b))
            .count();
    if start < end && value_ok(&s[start..end], true, class.strength) {
        sc.hit(start, end, class.kind, rank::ASSIGNMENT);
    }
}

/// Words that introduce a secret: `Bearer <token>`, `Basic <b64>`,
/// `password is <pw>`. `s[i..e]` is the word.
pub(crate) fn keyword(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let s = sc.s;
    if byte(s, e) != b' ' {
        return None;
    }
    let w = &s[i..e];
    let v = run(s, e, |b| b == b' ').min(e + 3);
    match w.len() {
        6 if w.eq_ignore_ascii_case(b"bearer") => {
            let f =
                |b: u8| is_alnum(b) || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-');
            let mut end = run(s, v, f);
            while end > v && s[end - 1] == b'.' {
                end -= 1;
            }
            let tok = &s[v..end];
            if tok.len() >= 16 && !is_placeholder(tok) && value_ok(tok, true, Strength::Secret) {
                sc.hit(v, end, k::BEARER, rank::ASSIGNMENT + 1);
                return Some(end);
            }
            None
        }
        5 if w.eq_ignore_ascii_case(b"basic") => {
            let end = run(s, v, is_b64);
            let decoded = decode_base64(&s[v..end])?;
            if decoded.len() >= 3
                && memchr(b':', &decoded).is_some_and(|c| c + 1 < decoded.len())
                && decoded.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
            {
                sc.hit(v, end, k::HTTP_BASIC_AUTH, rank::ASSIGNMENT + 1);
                return Some(end);
            }
            None
        }
        5 if w.eq_ignore_ascii_case(b"token") => {
            // `Authorization: token <classic GitHub token>`
            let before = &s[i.saturating_sub(16)..i];
            if !before
                .to_ascii_lowercase()
                .windows(14)
                .any(|x| x == b"authorization:")
            {
                return None;
            }
            let end = run(s, v, |b| is_word(b) || b == b'-');
            if value_ok(&s[v..end], true, Strength::Secret) && end - v >= 20 {
                sc.hit(v, end, k::BEARER, rank::ASSIGNMENT + 1);
                return Some(end);
            }
            None
        }
        8 | 10
            if w.eq_ignore_ascii_case(b"password")
                || w.eq_ignore_ascii_case(b"passphrase")
                || w.eq_ignore_ascii_case(b"passcode") =>
        {
            // `the admin password is Summer2024!`
            let after = if at_nocase(s, v, b"is ") {
                v + 3
            } else if at_nocase(s, v, b"was ") {
                v + 4
            } else {
                return None;
            };
            let start = run(s, after, |b| b == b' ');
            let (vs, ve, quoted) = value_at(s, start, false)?;
            let mut ve = ve;
            while ve > vs && matches!(s[ve - 1], b',' | b';' | b':') {
                ve -= 1;
            }
            let pw = &s[vs..ve];
            if value_ok(pw, quoted, Strength::Password) && !pw.iter().all(u8::is_ascii_alphabetic) {
                sc.hit(vs, ve, k::PASSWORD, rank::ASSIGNMENT);
                return Some(ve);
            }
            None
        }
        _ => None,
    }
}

/// A command-line flag at `i` (`-`): `-u user:pass`, `--user user:pass`,
/// `-p pass` after a login, `--password pass`, `--api-key key`.
pub(crate) fn flag(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    if i > 0 && !matches!(s[i - 1], b' ' | b'\t' | b'\n' | b'\'' | b'"') {
        return i + 1;
    }
    let name_end = run(s, i, |b| is_alnum(b) || b == b'-' || b == b'_');
    let name = &s[i..name_end];
    let sep = byte(s, name_end);
    if name.len() < 2 {
        return i + 1;
    }
    let line_start = memchr::memrchr(b'\n', &s[i.saturating_sub(300)..i])
        .map_or(i.saturating_sub(300), |p| i.saturating_sub(300) + p + 1);
    let line = &s[line_start..i];
    match name {
        b"-u" | b"--user" if sep == b' ' || sep == b'=' => {
            let v = name_end + 1;
            let Some((start, end, _)) = value_at(s, v, false) else {
                return name_end;
            };
            let Some(colon) = memchr(b':', &s[start..end]) else {
                return name_end;
            };
            let pw = start + colon + 1;
            if pw < end && !is_placeholder(&s[pw..end]) {
                sc.hit(pw, end, k::CURL_BASIC_AUTH, rank::ASSIGNMENT + 1);
            }
            // The user part is scanned too (`-u sk_live_…:` is a key).
            name_end
        }
        b"-p" if sep == b' ' => {
            let login = memchr::memmem::find(line, b"login").is_some()
                || memchr::memmem::find(line, b" -u ").is_some()
                || memchr::memmem::find(line, b"--username").is_some();
            if !login {
                return name_end;
            }
            match value_at(s, name_end + 1, false) {
                Some((start, end, quoted))
                    if value_ok(&s[start..end], quoted, Strength::Password) =>
                {
                    sc.hit(start, end, k::PASSWORD, rank::ASSIGNMENT);
                    end
                }
                _ => name_end,
            }
        }
        _ if name.len() > 2
            && name.starts_with(b"-p")
            && !name.starts_with(b"--")
            && memchr::memmem::find(line, b"mysql").is_some() =>
        {
            // mysql -pSECRET
            if value_ok(&name[2..], false, Strength::Password) {
                sc.hit(i + 2, name_end, k::PASSWORD, rank::ASSIGNMENT);
            }
            name_end
        }
        _ if name.starts_with(b"--") && sep == b' ' => {
            let Some(class) = classify(&name[2..], false) else {
                return name_end;
            };
            match value_at(s, name_end + 1, false) {
                Some((start, end, quoted)) if value_ok(&s[start..end], quoted, class.strength) => {
                    sc.hit(start, end, class.kind, rank::ASSIGNMENT);
                    end
                }
                _ => name_end,
            }
        }
        _ => name_end.max(i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str) -> Option<(KindId, Strength)> {
        classify(name.as_bytes(), false).map(|c| (c.kind, c.strength))
    }

    #[test]
    fn names() {
        assert_eq!(
            class("DB_PASSWORD"),
            Some((k::PASSWORD, Strength::Password))
        );
        assert_eq!(class("spring.datasource.password").unwrap().0, k::PASSWORD);
        assert_eq!(class("SECRET_KEY").unwrap().0, k::GENERIC_SECRET);
        assert_eq!(class("_authToken").unwrap().0, k::GENERIC_SECRET);
        assert_eq!(class("x-api-key").unwrap().0, k::GENERIC_SECRET);
        assert_eq!(
            class("aws_secret_access_key").unwrap().0,
            k::AWS_SECRET_ACCESS_KEY
        );
        assert_eq!(
            class("SecretAccessKey").unwrap().0,
            k::AWS_SECRET_ACCESS_KEY
        );
        assert_eq!(class("AccountKey").unwrap().0, k::AZURE_STORAGE_KEY);
        for plain in [
            "PublicKeyToken",
            "STRIPE_PUBLISHABLE_KEY",
            "password_hash",
            "token_type",
            "max_tokens",
            "next_page_token",
            "private_key_id",
            "GOOGLE_CLIENT_ID",
            "input_tokens",
        ] {
            assert_eq!(class(plain), None, "{plain}");
        }
        assert_eq!(classify(b"key", true).unwrap().kind, k::URL_QUERY_TOKEN);
        // A bare `KEY = "…"` only takes random-looking values.
        assert_eq!(class("KEY"), Some((k::GENERIC_SECRET, Strength::Weak)));
    }

    #[test]
    fn values() {
        assert!(value_ok(b"Summer2024!", false, Strength::Password));
        assert!(!value_ok(b"str", false, Strength::Password));
        assert!(!value_ok(b"getpass.getpass", false, Strength::Password));
        assert!(!value_ok(b"os.environ[", false, Strength::Secret));
        assert!(!value_ok(b"settings.SECRET_KEY", false, Strength::Secret));
        assert!(value_ok(
            b"9f86d081884c7d659a2feaa0c55ad015",
            false,
            Strength::Secret
        ));
        assert!(!value_ok(b"development", true, Strength::Secret));
        assert!(!value_ok(
            b"${POSTGRES_PASSWORD}",
            false,
            Strength::Password
        ));
    }
}
