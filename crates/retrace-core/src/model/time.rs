//! Timestamps as they appear in session files, turned into Unix milliseconds.
//!
//! No clock here: these are pure conversions of bytes the caller passed in.

/// Parses an RFC 3339 / ISO 8601 date-time such as `2025-12-17T19:52:23.230Z`
/// or `2026-01-01T00:00:02+02:00` into milliseconds since the Unix epoch.
///
/// Fractions beyond milliseconds are truncated. A missing offset is read as
/// UTC. Returns `None` for anything that is not such a timestamp.
pub fn parse_rfc3339_ms(s: &[u8]) -> Option<i64> {
    // The fixed-width head `YYYY-MM-DDTHH:MM:SS` from a fixed-size array:
    // every line of most formats has a timestamp, so no bounds checks and
    // no early exits per digit.
    let head: &[u8; 19] = s.get(..19)?.try_into().ok()?;
    let d = |i: usize| i64::from(head[i].wrapping_sub(b'0'));
    let all_digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        .iter()
        .all(|&i| head[i].wrapping_sub(b'0') < 10);
    let separators = head[4] == b'-'
        && head[7] == b'-'
        && matches!(head[10], b'T' | b't' | b' ')
        && head[13] == b':'
        && head[16] == b':';
    if !all_digits || !separators {
        return None;
    }
    let year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
    let (month, day) = (d(5) * 10 + d(6), d(8) * 10 + d(9));
    let (hour, minute, second) = (d(11) * 10 + d(12), d(14) * 10 + d(15), d(17) * 10 + d(18));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100;
        let start = i;
        while let Some(b) = s.get(i).filter(|b| b.is_ascii_digit()) {
            millis += i64::from(b - b'0') * scale;
            scale /= 10;
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset_min = match s.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == s.len() => 0,
        Some(&sign @ (b'+' | b'-')) if s.len() == i + 6 && s[i + 3] == b':' => {
            let m = two_digits(s, i + 1)? * 60 + two_digits(s, i + 4)?;
            if sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_min * 60;
    Some(secs * 1000 + millis)
}

/// The number written by the two digits at `s[at..at + 2]`.
fn two_digits(s: &[u8], at: usize) -> Option<i64> {
    match s.get(at..at + 2)? {
        &[a @ b'0'..=b'9', b @ b'0'..=b'9'] => Some(i64::from(a - b'0') * 10 + i64::from(b - b'0')),
        _ => None,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_rfc3339_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Unix milliseconds as people read a time: `2025-12-17 19:52:23` (UTC,
/// to the second), as `retrace show` heads messages and the Markdown
/// export writes times.
pub fn readable_time(ms: i64) -> String {
    let t = format_rfc3339_ms(ms);
    t.get(..19).unwrap_or(&t).replace('T', " ")
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of the first version of the parser, digit by digit: what
    /// the fixed-width one must agree with.
    fn reference_head(s: &[u8]) -> Option<(i64, i64, i64, i64, i64, i64)> {
        fn digits(s: &[u8], at: usize, n: usize) -> Option<i64> {
            let mut v = 0i64;
            for &b in s.get(at..at + n)? {
                if !b.is_ascii_digit() {
                    return None;
                }
                v = v * 10 + i64::from(b - b'0');
            }
            Some(v)
        }
        let year = digits(s, 0, 4)?;
        if s.get(4) != Some(&b'-') || s.get(7) != Some(&b'-') {
            return None;
        }
        let month = digits(s, 5, 2)?;
        let day = digits(s, 8, 2)?;
        if !matches!(s.get(10), Some(b'T' | b't' | b' ')) || s.get(13) != Some(&b':') {
            return None;
        }
        let hour = digits(s, 11, 2)?;
        let minute = digits(s, 14, 2)?;
        let second = if s.get(16) == Some(&b':') {
            digits(s, 17, 2)?
        } else {
            return None;
        };
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        if second > 60 {
            return None;
        }
        Some((year, month, day, hour, minute, second))
    }

    #[test]
    fn fixed_width_head_agrees_with_digit_by_digit() {
        let base = *b"2025-12-17T19:52:23.230Z";
        let alphabet = b"0123456789-:T t.Z+x\x00\xff";
        let mut checked = 0;
        for at in 0..base.len() {
            for &b in alphabet {
                let mut s = base;
                s[at] = b;
                for len in [19, 20, 23, 24] {
                    let s = &s[..len];
                    let got = parse_rfc3339_ms(s);
                    if reference_head(s).is_none() {
                        assert_eq!(got, None, "{}", String::from_utf8_lossy(s));
                    } else if let Some(ms) = got {
                        let (y, mo, d, h, mi, se) = reference_head(s).unwrap();
                        let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se;
                        assert_eq!(ms.div_euclid(1000), secs, "{}", String::from_utf8_lossy(s));
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 2000);
    }

    #[test]
    fn parses_real_timestamps() {
        assert_eq!(
            parse_rfc3339_ms(b"2025-12-17T19:52:23.230Z"),
            Some(1_766_001_143_230)
        );
        assert_eq!(parse_rfc3339_ms(b"1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339_ms(b"1970-01-01T02:00:00+02:00"),
            Some(0),
            "offsets are applied"
        );
        assert_eq!(
            parse_rfc3339_ms(b"2026-04-18T13:18:42.368123Z"),
            parse_rfc3339_ms(b"2026-04-18T13:18:42.368Z")
        );
    }

    #[test]
    fn rejects_non_timestamps() {
        for bad in [
            &b""[..],
            b"2025-13-01T00:00:00Z",
            b"yesterday",
            b"2025-01-01",
            b"2025-01-01T00:00:00Zjunk",
        ] {
            assert_eq!(
                parse_rfc3339_ms(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn formats_back() {
        let ms = parse_rfc3339_ms(b"2025-12-17T19:52:23.230Z").unwrap();
        assert_eq!(format_rfc3339_ms(ms), "2025-12-17T19:52:23.230Z");
        assert_eq!(format_rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(readable_time(ms), "2025-12-17 19:52:23");
    }
}
