//! Personal data: emails, phone numbers, payment cards (Luhn), IBANs
//! (mod-97), public IP addresses, US social security numbers, MAC
//! addresses. Each is checked beyond its shape (a valid check digit, a
//! public range, a plausible area code), so order numbers, versions,
//! dates and loopback addresses stay.

use super::chars::{at_nocase, byte, is_alnum, is_hex, is_word, run, run_back};
use super::checksum::{iban_ok, luhn_ok};
use super::hit::{rank, Scanner};
use super::kind::k;
use super::svg;

/// PII that starts at the word `s[i..e]`: digits (IP, phone, card, SSN),
/// hex groups (MAC, IPv6), or an IBAN's country code.
pub(crate) fn in_word(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let s = sc.s;
    let len = e - i;
    let next = byte(s, e);
    if (next == b':' || next == b'-') && len <= 4 && s[i..e].iter().all(|&b| is_hex(b)) {
        if let Some(end) = mac(sc, i) {
            return Some(end);
        }
        if next == b':' {
            if let Some(end) = ipv6(sc, i) {
                return Some(end);
            }
        }
    }
    if s[i].is_ascii_digit() {
        // A short number not followed by a separator is just a number.
        if len < 13 && !matches!(next, b' ' | b'-' | b'.') {
            return None;
        }
        if s[i..e].iter().all(u8::is_ascii_digit) {
            return digits(sc, i);
        }
        return None;
    }
    if len >= 4
        && s[i].is_ascii_uppercase()
        && s[i + 1].is_ascii_uppercase()
        && s[i + 2].is_ascii_digit()
        && s[i + 3].is_ascii_digit()
    {
        return iban(sc, i, e);
    }
    None
}

/// Digit groups separated by single spaces, dashes or dots.
struct Groups {
    /// (start, end) of each group of digits.
    spans: [(usize, usize); 8],
    seps: [u8; 8],
    n: usize,
}

impl Groups {
    fn read(s: &[u8], i: usize) -> Groups {
        let mut g = Groups {
            spans: [(0, 0); 8],
            seps: [0; 8],
            n: 0,
        };
        let mut j = i;
        while g.n < 8 {
            let end = run(s, j, |b| b.is_ascii_digit());
            if end == j || is_word(byte(s, end)) {
                break;
            }
            g.spans[g.n] = (j, end);
            g.n += 1;
            let sep = byte(s, end);
            if matches!(sep, b' ' | b'-' | b'.') && byte(s, end + 1).is_ascii_digit() {
                g.seps[g.n - 1] = sep;
                j = end + 1;
            } else {
                break;
            }
        }
        g
    }

    fn len(&self, at: usize) -> usize {
        self.spans[at].1 - self.spans[at].0
    }

    /// The first `n` groups have lengths `lens` and are joined by `sep`,
    /// and the sequence does not go on with the same separator.
    fn shape(&self, lens: &[usize], sep: u8) -> bool {
        let n = lens.len();
        self.n >= n
            && lens.iter().enumerate().all(|(x, &l)| self.len(x) == l)
            && self.seps[..n - 1].iter().all(|&c| c == sep)
            && (self.n == n || self.seps[n - 1] != sep)
    }

    fn end(&self, n: usize) -> usize {
        self.spans[n - 1].1
    }

    /// The digits of the first `n` groups, without separators (at most 32).
    fn digits(&self, s: &[u8], n: usize) -> Digits {
        let mut d = Digits {
            buf: [0; 32],
            len: 0,
        };
        for &(a, b) in &self.spans[..n] {
            for &c in &s[a..b] {
                if d.len < 32 {
                    d.buf[d.len] = c;
                    d.len += 1;
                }
            }
        }
        d
    }
}

/// A few digits on the stack.
struct Digits {
    buf: [u8; 32],
    len: usize,
}

impl std::ops::Deref for Digits {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// A run of digit groups: an IPv4 address, an SSN, a phone number, a card.
fn digits(sc: &mut Scanner, i: usize) -> Option<usize> {
    let s = sc.s;
    let prev = if i > 0 { s[i - 1] } else { b' ' };
    if prev == b'.'
        || prev == b'-'
        || prev == b'+'
        || prev == b'/' && byte(s, i.wrapping_sub(2)).is_ascii_digit()
    {
        return None;
    }
    let g = Groups::read(s, i);
    // A lone number is only ever a card, which has 13 digits or more.
    if g.n == 0 || (g.n == 1 && g.len(0) < 13) {
        return None;
    }
    // Coordinates of an SVG path (`m1.5 1.5.75.75`), not an address.
    if g.n >= 2 && g.seps[0] == b'.' && svg::in_path_data(sc, i) {
        return Some(g.end(g.n));
    }
    if g.n >= 4 && g.seps[..3].iter().all(|&c| c == b'.') && (g.n == 4 || g.seps[3] != b'.') {
        return ipv4(sc, i, &g);
    }
    if g.shape(&[3, 2, 4], b'-') && ssn_ok(&g.digits(s, 3)) {
        sc.hit(i, g.end(3), k::SSN, rank::PII);
        return Some(g.end(3));
    }
    for sep in [b'-', b'.'] {
        if g.shape(&[3, 3, 4], sep) && nanp(&g.digits(s, 3)) {
            sc.hit(i, g.end(3), k::PHONE, rank::PII);
            return Some(g.end(3));
        }
    }
    // UK numbers written nationally: 020 7946 0123, 0161 496 0000, 07700 900123.
    for lens in [&[3, 4, 4][..], &[4, 3, 4], &[5, 6]] {
        if g.shape(lens, b' ') && s[i] == b'0' && s[i + 1] != b'0' {
            sc.hit(i, g.end(lens.len()), k::PHONE, rank::PII);
            return Some(g.end(lens.len()));
        }
    }
    card(sc, i, &g)
}

/// Nine digits of a US social security number in the issued ranges: an
/// area other than 000, 666 and 900–999, and no group or serial of zeros.
pub(crate) fn ssn_ok(d: &[u8]) -> bool {
    if d.len() != 9 {
        return false;
    }
    let area = num(&d[..3]);
    area != 0 && area != 666 && area < 900 && num(&d[3..5]) != 0 && num(&d[5..]) != 0
}

pub(crate) fn num(d: &[u8]) -> u32 {
    d.iter().fold(0, |n, &b| n * 10 + u32::from(b - b'0'))
}

/// Ten NANP digits with a valid area code and exchange (neither starts
/// with 0 or 1).
pub(crate) fn nanp(d: &[u8]) -> bool {
    d.len() == 10 && d[0] >= b'2' && d[3] >= b'2'
}

fn ipv4(sc: &mut Scanner, i: usize, g: &Groups) -> Option<usize> {
    let s = sc.s;
    let mut o = [0u32; 4];
    for (x, slot) in o.iter_mut().enumerate() {
        if g.len(x) > 3 {
            return None;
        }
        *slot = num(&s[g.spans[x].0..g.spans[x].1]);
        if *slot > 255 {
            return None;
        }
    }
    let end = g.end(4);
    // `v1.2.3.4` and `Version 1.2.3.4` are versions.
    let before = &s[i.saturating_sub(9)..i];
    if matches!(before.last(), Some(b'v' | b'V'))
        || before
            .to_ascii_lowercase()
            .windows(7)
            .any(|w| w == b"version")
    {
        return Some(end);
    }
    if public_v4(o) {
        sc.hit(i, end, k::IPV4, rank::PII);
    }
    Some(end)
}

/// Public unicast: not private, loopback, link-local, shared (CGNAT),
/// documentation, benchmarking, multicast or reserved space, and not a
/// network or broadcast address (`8.0.0.0` is a version, not a host).
fn public_v4([a, b, c, d]: [u32; 4]) -> bool {
    !(a == 0
        || a == 10
        || a == 127
        || a >= 224
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || d == 0
        || d == 255)
}

fn card(sc: &mut Scanner, i: usize, g: &Groups) -> Option<usize> {
    let s = sc.s;
    const SHAPES: [&[usize]; 6] = [
        &[4, 4, 4, 4],
        &[4, 4, 4, 4, 3],
        &[4, 6, 5],
        &[4, 6, 4],
        &[4, 4, 4, 3],
        &[4, 4, 4, 2],
    ];
    let lone = (g.n == 1 || g.seps[0] == b'.').then_some(1);
    let grouped = [b' ', b'-']
        .into_iter()
        .flat_map(|sep| SHAPES.iter().filter(move |lens| g.shape(lens, sep)))
        .map(|lens| lens.len());
    for n in lone.into_iter().chain(grouped) {
        let d = g.digits(s, n);
        if (13..=19).contains(&d.len()) && card_brand(&d) && luhn_ok(d.iter().copied()) {
            sc.hit(i, g.end(n), k::CREDIT_CARD, rank::PII);
            return Some(g.end(n));
        }
    }
    None
}

/// The number starts like a card of some network and has its length.
pub(crate) fn card_brand(d: &[u8]) -> bool {
    let n = d.len();
    let p2 = num(&d[..2]);
    let p3 = num(&d[..3]);
    let p4 = num(&d[..4]);
    match d[0] {
        b'4' => matches!(n, 13 | 16 | 19),
        b'5' => (51..=55).contains(&p2) && n == 16,
        b'2' => (2221..=2720).contains(&p4) && n == 16,
        b'3' => {
            ((p2 == 34 || p2 == 37) && n == 15)
                || ((3528..=3589).contains(&p4) && (16..=19).contains(&n))
                || ((p2 == 36 || p2 == 38 || (300..=305).contains(&p3)) && (14..=19).contains(&n))
        }
        b'6' => {
            (p4 == 6011 || p2 == 65 || p2 == 62 || (644..=649).contains(&p3))
                && (16..=19).contains(&n)
        }
        _ => false,
    }
}

/// IBAN lengths by country (the SEPA area and a few more).
const IBAN_LENGTHS: &[(&[u8; 2], usize)] = &[
    (b"AD", 24),
    (b"AE", 23),
    (b"AT", 20),
    (b"BE", 16),
    (b"BG", 22),
    (b"BH", 22),
    (b"BR", 29),
    (b"CH", 21),
    (b"CY", 28),
    (b"CZ", 24),
    (b"DE", 22),
    (b"DK", 18),
    (b"EE", 20),
    (b"ES", 24),
    (b"FI", 18),
    (b"FO", 18),
    (b"FR", 27),
    (b"GB", 22),
    (b"GI", 23),
    (b"GL", 18),
    (b"GR", 27),
    (b"HR", 21),
    (b"HU", 28),
    (b"IE", 22),
    (b"IL", 23),
    (b"IS", 26),
    (b"IT", 27),
    (b"LI", 21),
    (b"LT", 20),
    (b"LU", 20),
    (b"LV", 21),
    (b"MC", 27),
    (b"MT", 31),
    (b"NL", 18),
    (b"NO", 15),
    (b"PL", 28),
    (b"PT", 25),
    (b"RO", 24),
    (b"SA", 24),
    (b"SE", 24),
    (b"SI", 19),
    (b"SK", 24),
    (b"SM", 27),
    (b"TR", 26),
    (b"UA", 29),
    (b"VA", 22),
];

fn iban(sc: &mut Scanner, i: usize, e: usize) -> Option<usize> {
    let s = sc.s;
    let country = [s[i], s[i + 1]];
    let &(_, want) = IBAN_LENGTHS.iter().find(|(c, _)| **c == country)?;
    let upper_alnum = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit();
    let mut chars: Vec<u8> = Vec::with_capacity(34);
    let end;
    if e - i == want {
        if !s[i..e].iter().all(|&b| upper_alnum(b)) {
            return None;
        }
        chars.extend_from_slice(&s[i..e]);
        end = e;
    } else if e - i == 4 {
        // Grouped by four: `DE89 3704 0044 0532 0130 00`.
        chars.extend_from_slice(&s[i..e]);
        let mut j = e;
        while chars.len() < want {
            if byte(s, j) != b' ' {
                return None;
            }
            let g_end = run(s, j + 1, upper_alnum);
            let len = g_end - j - 1;
            if len == 0 || len > 4 || (len < 4 && chars.len() + len != want) {
                return None;
            }
            chars.extend_from_slice(&s[j + 1..g_end]);
            j = g_end;
        }
        if chars.len() != want || is_alnum(byte(s, j)) {
            return None;
        }
        end = j;
    } else {
        return None;
    }
    if !iban_ok(&chars) {
        return None;
    }
    sc.hit(i, end, k::IBAN, rank::PII);
    Some(end)
}

/// Six pairs of hex digits joined by `:` or `-` (one kind per address).
fn mac(sc: &mut Scanner, i: usize) -> Option<usize> {
    let s = sc.s;
    let sep = byte(s, i + 2);
    if !matches!(sep, b':' | b'-') {
        return None;
    }
    if i > 0 && s[i - 1] == sep {
        return None;
    }
    let mut j = i;
    let mut bytes = [0u8; 6];
    for (x, slot) in bytes.iter_mut().enumerate() {
        if !(is_hex(byte(s, j)) && is_hex(byte(s, j + 1))) {
            return None;
        }
        *slot = hex_val(s[j]) << 4 | hex_val(s[j + 1]);
        j += 2;
        if x < 5 {
            if byte(s, j) != sep {
                return None;
            }
            j += 1;
        }
    }
    if is_word(byte(s, j)) || (byte(s, j) == sep && is_hex(byte(s, j + 1))) {
        return None;
    }
    let virtual_or_special = bytes == [0; 6]
        || bytes == [0xff; 6]
        || bytes[..2] == [0x02, 0x42]
        || bytes[..3] == [0x01, 0x00, 0x5e]
        || bytes[..2] == [0x33, 0x33];
    if !virtual_or_special {
        sc.hit(i, j, k::MAC, rank::PII);
    }
    Some(j)
}

fn hex_val(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// A global unicast IPv6 address (2000::/3, not the 2001:db8::/32
/// documentation range), full or with `::`.
fn ipv6(sc: &mut Scanner, i: usize) -> Option<usize> {
    let s = sc.s;
    if i > 0 && (s[i - 1] == b':' || is_hex(s[i - 1])) {
        return None;
    }
    let mut j = i;
    let mut groups = 0;
    let mut double = false;
    let mut first = 0u32;
    let mut second = 0u32;
    loop {
        let end = run(s, j, is_hex);
        let len = end - j;
        if len == 0 || len > 4 {
            return None;
        }
        let v = s[j..end]
            .iter()
            .fold(0u32, |a, &b| a << 4 | u32::from(hex_val(b)));
        if groups == 0 {
            if len != 4 {
                return None;
            }
            first = v;
        } else if groups == 1 {
            second = v;
        }
        groups += 1;
        j = end;
        if byte(s, j) == b':' && byte(s, j + 1) == b':' {
            if double {
                return None;
            }
            double = true;
            j += 2;
            if !is_hex(byte(s, j)) {
                break;
            }
        } else if byte(s, j) == b':' && is_hex(byte(s, j + 1)) {
            j += 1;
        } else {
            break;
        }
        if groups > 8 {
            return None;
        }
    }
    let complete = (groups == 8 && !double) || (double && (2..8).contains(&groups));
    if !complete || is_word(byte(s, j)) || byte(s, j) == b':' {
        return None;
    }
    if (0x2000..=0x3fff).contains(&first) && !(first == 0x2001 && second == 0x0db8) {
        sc.hit(i, j, k::IPV6, rank::PII);
    }
    Some(j)
}

/// `+` (an international number) or `(` (a NANP area code) at `i`.
pub(crate) fn phone_punct(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    if i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == b'+') {
        return i + 1;
    }
    if s[i] == b'(' {
        // (212) 555-0142
        if byte(s, i + 4) != b')'
            || !s
                .get(i + 1..i + 4)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        {
            return i + 1;
        }
        let mut j = i + 5;
        if byte(s, j) == b' ' {
            j += 1;
        }
        let ex_end = run(s, j, |b| b.is_ascii_digit());
        if ex_end - j != 3 || !matches!(byte(s, ex_end), b'-' | b' ' | b'.') {
            return i + 1;
        }
        let line_end = run(s, ex_end + 1, |b| b.is_ascii_digit());
        if line_end - ex_end - 1 != 4 || is_word(byte(s, line_end)) {
            return i + 1;
        }
        let mut d = [0u8; 10];
        d[..3].copy_from_slice(&s[i + 1..i + 4]);
        d[3..6].copy_from_slice(&s[j..ex_end]);
        d[6..].copy_from_slice(&s[ex_end + 1..line_end]);
        if nanp(&d) {
            sc.hit(i, line_end, k::PHONE, rank::PII);
            return line_end;
        }
        return i + 1;
    }
    // +<country> then groups: +1 212 555 0142, +44 (0)20 7946 0123, +12125550142.
    let mut j = i + 1;
    let mut digits: Vec<u8> = Vec::with_capacity(16);
    let mut groups = 0;
    let mut end = i + 1;
    while groups < 8 && digits.len() <= 15 {
        if byte(s, j).is_ascii_digit() {
            let g_end = run(s, j, |b| b.is_ascii_digit());
            digits.extend_from_slice(&s[j..g_end]);
            j = g_end;
        } else if byte(s, j) == b'(' && groups > 0 {
            let g_end = run(s, j + 1, |b| b.is_ascii_digit());
            if byte(s, g_end) != b')' || g_end - j - 1 > 4 || g_end == j + 1 {
                break;
            }
            // A trunk prefix `(0)` is not dialled from abroad.
            if &s[j + 1..g_end] != b"0" {
                digits.extend_from_slice(&s[j + 1..g_end]);
            }
            j = g_end + 1;
        } else {
            break;
        }
        groups += 1;
        end = j;
        if matches!(byte(s, j), b' ' | b'-' | b'.')
            && (byte(s, j + 1).is_ascii_digit() || byte(s, j + 1) == b'(')
        {
            j += 1;
        } else if !(byte(s, j) == b'(' || byte(s, j).is_ascii_digit()) {
            break;
        }
    }
    if groups == 0 || is_word(byte(s, end)) || !(10..=15).contains(&digits.len()) {
        return i + 1;
    }
    let ok = match digits[0] {
        b'1' => digits.len() == 11 && nanp(&digits[1..]),
        b'4' if digits.get(1) == Some(&b'4') => digits.len() == 12 && digits[2] != b'0',
        b'0' => false,
        _ => true,
    };
    if ok {
        sc.hit(i, end, k::PHONE, rank::PII);
        return end;
    }
    i + 1
}

/// Generic top-level domains that are file extensions far more often than
/// mail domains (`logo@2x.png`).
const FILE_TLDS: &[&[u8]] = &[
    b"png",
    b"jpg",
    b"jpeg",
    b"gif",
    b"svg",
    b"webp",
    b"ico",
    b"js",
    b"mjs",
    b"ts",
    b"tsx",
    b"jsx",
    b"py",
    b"rs",
    b"go",
    b"rb",
    b"css",
    b"scss",
    b"html",
    b"json",
    b"yaml",
    b"yml",
    b"toml",
    b"md",
    b"txt",
    b"lock",
    b"sh",
    b"zip",
    b"gz",
    b"tar",
    b"whl",
    b"map",
    b"vue",
    b"java",
    b"kt",
    b"swift",
    b"wasm",
    b"so",
    b"dll",
    b"exe",
    b"bin",
    b"log",
    b"csv",
    b"pdf",
    b"local",
    b"localhost",
    b"internal",
    b"lan",
    b"home",
    b"invalid",
    b"test",
    b"example",
];

/// The `@` at `i`: `local@domain.tld`, except bot and placeholder
/// addresses and `git@host:org/repo` remotes.
pub(crate) fn email(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    let local_char = |b: u8| is_alnum(b) || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-');
    let mut start = run_back(s, i, 64, local_char);
    while start < i && !is_alnum(s[start]) {
        start += 1;
    }
    if start == i {
        return i + 1;
    }
    // The domain: labels of [A-Za-z0-9-] joined by dots.
    let mut j = i + 1;
    let mut labels = 0;
    let mut last_label = (j, j);
    loop {
        let end = run(s, j, |b| is_alnum(b) || b == b'-');
        if end == j || end - j > 63 {
            break;
        }
        labels += 1;
        last_label = (j, end);
        j = end;
        if byte(s, j) == b'.' && is_alnum(byte(s, j + 1)) {
            j += 1;
        } else {
            break;
        }
    }
    // A label does not end with `-` (`amber.io-----BEGIN` ends at `io`).
    while last_label.1 > last_label.0 && s[last_label.1 - 1] == b'-' {
        last_label.1 -= 1;
    }
    let tld = &s[last_label.0..last_label.1];
    if labels < 2 || tld.len() < 2 || tld.len() > 24 || !tld.iter().all(u8::is_ascii_alphabetic) {
        return i + 1;
    }
    let end = last_label.1;
    // `git@github.com:org/repo.git` is a remote, not a person.
    if byte(s, end) == b':' && byte(s, end + 1) != b' ' {
        return end;
    }
    let local = &s[start..i];
    let domain = &s[i + 1..end];
    let tld_lower = tld.to_ascii_lowercase();
    let bot = at_nocase(local, 0, b"noreply")
        || at_nocase(local, 0, b"no-reply")
        || at_nocase(local, 0, b"donotreply")
        || local.eq_ignore_ascii_case(b"git")
        || ends_with_nocase(domain, b"noreply.github.com")
        || ends_with_nocase(domain, b"example.com")
        || ends_with_nocase(domain, b"example.org")
        || ends_with_nocase(domain, b"example.net")
        || FILE_TLDS.contains(&tld_lower.as_slice());
    if !bot {
        sc.hit(start, end, k::EMAIL, rank::PII);
    }
    end
}

fn ends_with_nocase(s: &[u8], suffix: &[u8]) -> bool {
    s.len() >= suffix.len() && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}
