//! `Range: bytes=…` of a file's bytes: one range (a start and an end, a
//! start alone, or the last N bytes), answered with 206; several ranges
//! are answered with the whole file (200), as HTTP allows; a range past
//! the end with 416.

/// What to send of a file of `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// The whole file (no `Range`, or one this server does not split).
    Whole,
    /// `start..end` (end exclusive).
    Part { start: u64, end: u64 },
    /// Nothing of the file is in the range asked.
    Unsatisfiable,
}

/// The part of a file of `size` bytes that `header` asks for.
pub fn want(header: Option<&str>, size: u64) -> Want {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Want::Whole;
    };
    if spec.contains(',') {
        return Want::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Want::Whole;
    };
    let num = |s: &str| s.trim().parse::<u64>().ok();
    let (start, end) = match (first.trim().is_empty(), last.trim().is_empty()) {
        // The last N bytes.
        (true, false) => match num(last) {
            Some(0) => return Want::Unsatisfiable,
            Some(n) => (size.saturating_sub(n), size),
            None => return Want::Whole,
        },
        (false, true) => match num(first) {
            Some(s) => (s, size),
            None => return Want::Whole,
        },
        (false, false) => match (num(first), num(last)) {
            (Some(s), Some(l)) if l >= s => (s, (l + 1).min(size)),
            _ => return Want::Whole,
        },
        (true, true) => return Want::Whole,
    };
    if start >= size {
        return Want::Unsatisfiable;
    }
    Want::Part { start, end }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(want(None, 10), Want::Whole);
        assert_eq!(want(Some("bytes=0-3"), 10), Want::Part { start: 0, end: 4 });
        assert_eq!(want(Some("bytes=4-"), 10), Want::Part { start: 4, end: 10 });
        assert_eq!(want(Some("bytes=-3"), 10), Want::Part { start: 7, end: 10 });
        assert_eq!(
            want(Some("bytes=5-100"), 10),
            Want::Part { start: 5, end: 10 }
        );
        assert_eq!(want(Some("bytes=10-"), 10), Want::Unsatisfiable);
        assert_eq!(want(Some("bytes=-0"), 10), Want::Unsatisfiable);
        assert_eq!(want(Some("bytes=0-1,4-5"), 10), Want::Whole);
        assert_eq!(want(Some("bytes=5-2"), 10), Want::Whole);
        assert_eq!(want(Some("items=0-1"), 10), Want::Whole);
    }
}
