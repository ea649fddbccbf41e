//! SVG path data: numbers like `1.5.75.75` that are coordinates, not
//! addresses. Minified paths drop zeros and separators (`m1.5 1.5.75.75`
//! is the numbers 1.5, 1.5, .75, .75), so runs of dotted digits in a `d`,
//! `points` or `viewBox` attribute look like IPv4 addresses (and now and
//! then like dotted phone numbers). A digit rule asks here before it
//! reports dotted groups; prose around the markup is scanned as usual.

use super::chars::{byte, is_space};
use super::hit::Scanner;

/// Whether `s[i..]` is inside the value of an SVG path-data attribute:
/// the bytes before it back to an opening quote are path data, and the
/// quote follows `d=`, `points=` or `viewBox=` (also `\"` in text escaped
/// twice); or the whole string is such a value, under the JSON key `d`,
/// `points` or `viewBox`.
///
/// Linear over a string however many candidates it has: the last answer
/// is remembered (`Scanner::svg`), and a later candidate whose bytes back
/// to it are all path data shares it.
pub(crate) fn in_path_data(sc: &mut Scanner, i: usize) -> bool {
    let s = sc.s;
    let mut j = i;
    while j > 0 && is_path_byte(s[j - 1]) {
        if let Some((at, verdict)) = sc.svg {
            if at == j && at <= i {
                sc.svg = Some((i, verdict));
                return verdict;
            }
        }
        j -= 1;
    }
    let verdict = opens_path_data(s, j, sc.key);
    sc.svg = Some((i, verdict));
    verdict
}

/// Digits, signs, dots, commas, spaces, exponents and the path commands.
fn is_path_byte(b: u8) -> bool {
    b.is_ascii_digit()
        || is_space(b)
        || matches!(
            b,
            b'.' | b'-'
                | b'+'
                | b','
                | b'e'
                | b'E'
                | b'M'
                | b'm'
                | b'Z'
                | b'z'
                | b'L'
                | b'l'
                | b'H'
                | b'h'
                | b'V'
                | b'v'
                | b'C'
                | b'c'
                | b'S'
                | b's'
                | b'Q'
                | b'q'
                | b'T'
                | b't'
                | b'A'
                | b'a'
        )
}

/// Whether the path-data run starting at `j` is an attribute's value.
fn opens_path_data(s: &[u8], j: usize, key: Option<&[u8]>) -> bool {
    let first = s[j..].iter().copied().find(|&b| !is_space(b));
    let name: &[u8] = if j == 0 {
        // The whole string: a JSON value under the attribute's name.
        match key {
            Some(k) => k,
            None => return false,
        }
    } else {
        let q = j - 1;
        if !matches!(s[q], b'"' | b'\'') {
            return false;
        }
        let mut k = q;
        if k > 0 && s[k - 1] == b'\\' {
            k -= 1;
        }
        while k > 0 && is_space(s[k - 1]) {
            k -= 1;
        }
        if k == 0 || s[k - 1] != b'=' {
            return false;
        }
        k -= 1;
        while k > 0 && is_space(s[k - 1]) {
            k -= 1;
        }
        let end = k;
        while k > 0 && s[k - 1].is_ascii_alphabetic() {
            k -= 1;
        }
        // `d=` but not `id=`; the name stands after a space or `<tag`.
        if k > 0 && !(is_space(s[k - 1]) || byte(s, k - 1) == b'\\') {
            return false;
        }
        &s[k..end]
    };
    match name {
        // Path data starts with a move-to.
        b"d" => matches!(first, Some(b'M' | b'm')),
        b"points" | b"viewBox" | b"viewbox" => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(s: &str, key: Option<&str>, at: &str) -> bool {
        let mut hits = Vec::new();
        let mut sc = Scanner::new(s.as_bytes(), key.map(str::as_bytes), &mut hits);
        in_path_data(&mut sc, s.find(at).unwrap())
    }

    #[test]
    fn attributes_that_hold_path_data() {
        assert!(inside(
            r#"<path d="M3 3zm4.5 4.5.75.75-1"/>"#,
            None,
            "4.5.75"
        ));
        assert!(inside(r#"<path d = 'm1 1 1.5.75.75'/>"#, None, "1.5.75"));
        assert!(inside(
            r#"<polyline points="1.5.75.75 9 3"/>"#,
            None,
            "1.5.75"
        ));
        assert!(inside(r#"<svg viewBox="0 0 1.5.75.75">"#, None, "1.5.75"));
        // Text escaped twice: `d=\"…\"`.
        assert!(inside(r#"<path d=\"M0 0 1.5.75.75\"/>"#, None, "1.5.75"));
        // A JSON value under the attribute's name.
        assert!(inside("M0 0 1.5.75.75", Some("d"), "1.5.75"));
        assert!(inside("1.5.75.75 2 2", Some("points"), "1.5.75"));
    }

    #[test]
    fn anything_else_is_not() {
        assert!(!inside("served from 1.5.75.75 today", None, "1.5.75"));
        assert!(!inside(r#"<a title="1.5.75.75">"#, None, "1.5.75"));
        assert!(!inside(r#"<g id="1.5.75.75">"#, None, "1.5.75"));
        assert!(!inside(r#"<g data-d="M 1.5.75.75">"#, None, "1.5.75"));
        // Path data starts with a move-to.
        assert!(!inside(r#"<x d="1.5.75.75">"#, None, "1.5.75"));
        assert!(!inside("1.5.75.75", Some("host"), "1.5.75"));
        assert!(!inside("M0 0 1.5.75.75", None, "1.5.75"));
        // Prose after the attribute closed.
        assert!(!inside(
            r#"<path d="M0 0"/> then 1.5.75.75"#,
            None,
            "1.5.75"
        ));
    }

    #[test]
    fn a_later_candidate_shares_the_answer_of_an_earlier_one() {
        let s = r#"<path d="M0 0 1.5.75.75 2.5.75.75"/> at 3.5.75.75"#;
        let mut hits = Vec::new();
        let mut sc = Scanner::new(s.as_bytes(), None, &mut hits);
        assert!(in_path_data(&mut sc, s.find("1.5").unwrap()));
        assert!(in_path_data(&mut sc, s.find("2.5").unwrap()));
        assert!(!in_path_data(&mut sc, s.find("3.5").unwrap()));
    }
}
