//! The viewer's logic on plain types, so it is tested natively; components
//! only call it.

use retrace_wasm::protocol::SegmentInfo;

/// How many rows are rendered at once around what is on screen.
pub const WINDOW: usize = 60;
/// How many rows are added when scrolling near an edge of the window.
pub const GROW: usize = 30;

/// The rows rendered: `start..end` of the branch's rows, `end` never past
/// what the replay shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    pub start: usize,
    pub end: usize,
}

impl Window {
    /// A window of up to [`WINDOW`] rows around row `focus`, among the first
    /// `shown` rows.
    pub fn around(focus: usize, shown: usize) -> Window {
        let end = (focus + WINDOW / 2).max(WINDOW.min(shown)).min(shown);
        let start = end.saturating_sub(WINDOW);
        Window { start, end }
    }

    /// The window after the replay shows `shown` rows: following the end
    /// when it was at the end, otherwise unchanged (but never past it).
    pub fn follow(self, shown: usize, was_at_end: bool) -> Window {
        if was_at_end || self.end > shown || self.start >= shown {
            Window::around(shown.saturating_sub(1), shown)
        } else {
            self
        }
    }

    /// Grows toward the end (scrolling down), dropping rows at the start
    /// beyond twice the window.
    pub fn grow_down(self, shown: usize) -> Window {
        let end = (self.end + GROW).min(shown);
        let start = self.start.max(end.saturating_sub(2 * WINDOW));
        Window { start, end }
    }

    /// Grows toward the start (scrolling up), dropping rows at the end
    /// beyond twice the window.
    pub fn grow_up(self) -> Window {
        let start = self.start.saturating_sub(GROW);
        let end = self.end.min(start + 2 * WINDOW);
        Window { start, end }
    }

    pub fn contains(self, row: usize) -> bool {
        (self.start..self.end).contains(&row)
    }
}

/// `#leaf=…&entry=…&replay`: where a link points.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Spot {
    pub leaf: Option<String>,
    pub entry: Option<String>,
    /// The replay stood at `entry` (rows after it hidden).
    pub replay: bool,
    /// The entry's line, so a page reloaded without its (dropped) file can
    /// say where the link pointed.
    pub line: Option<u32>,
    /// The branch compared with the leaf's, by the first entry of its
    /// segment.
    pub compare: Option<String>,
    /// What the compaction at `entry` hid is shown.
    pub hid: bool,
}

impl Spot {
    pub fn parse(hash: &str) -> Spot {
        let mut spot = Spot::default();
        for pair in hash.trim_start_matches('#').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            match key {
                "leaf" if !value.is_empty() => spot.leaf = Some(value),
                "entry" if !value.is_empty() => spot.entry = Some(value),
                "replay" => spot.replay = true,
                "line" => spot.line = value.parse().ok(),
                "compare" if !value.is_empty() => spot.compare = Some(value),
                "hid" => spot.hid = true,
                _ => {}
            }
        }
        spot
    }

    pub fn format(&self) -> String {
        let mut parts = Vec::new();
        if let Some(leaf) = &self.leaf {
            parts.push(format!("leaf={}", encode(leaf)));
        }
        if let Some(entry) = &self.entry {
            parts.push(format!("entry={}", encode(entry)));
        }
        if let Some(line) = self.line {
            parts.push(format!("line={line}"));
        }
        if self.replay {
            parts.push("replay".to_owned());
        }
        if let Some(other) = &self.compare {
            parts.push(format!("compare={}", encode(other)));
        }
        if self.hid {
            parts.push("hid".to_owned());
        }
        format!("#{}", parts.join("&"))
    }
}

/// Percent-encodes what is not safe in a URL fragment value.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The segments on the path from a root to the segment that ends at `leaf`
/// (for highlighting the current branch in the tree).
pub fn path_segments(outline: &[SegmentInfo], leaf: u32) -> Vec<usize> {
    let Some(mut at) = outline.iter().position(|s| s.last == leaf).or_else(|| {
        outline
            .iter()
            .position(|s| s.tip == leaf && s.children.is_empty())
    }) else {
        return Vec::new();
    };
    let mut path = vec![at];
    while let Some(p) = outline[at].parent {
        at = p as usize;
        path.push(at);
    }
    path.reverse();
    path
}

/// Segments leading to the default leaf or to `current` (the branches a
/// person is following), for hiding abandoned ones.
pub fn live_segments(outline: &[SegmentInfo], current: u32, default: Option<u32>) -> Vec<bool> {
    let mut live = vec![false; outline.len()];
    for leaf in [Some(current), default].into_iter().flatten() {
        for i in path_segments(outline, leaf) {
            live[i] = true;
        }
    }
    live
}

// The page writes its numbers with integers: a float's `{:.1}` or `{}`
// would link Rust's float printer, kilobytes of the bundle.

/// `n / 10^places` with `places` decimals: `decimal(1234, 1)` is `123.4`.
pub fn decimal(n: u64, places: u32) -> String {
    let scale = 10u64.pow(places);
    match places {
        0 => n.to_string(),
        _ => {
            let frac = (n % scale).to_string();
            let zeros = "0".repeat(places as usize - frac.len());
            format!("{}.{zeros}{frac}", n / scale)
        }
    }
}

/// `x` rounded to `places` decimals, half away from zero, written so:
/// `fixed(0.0126, 2)` is `0.01`, `fixed(-2.5, 0)` is `-3`.
pub fn fixed(x: f64, places: u32) -> String {
    let n = (x.abs() * 10f64.powi(places as i32)).round() as u64;
    let sign = if x < 0.0 && n > 0 { "-" } else { "" };
    format!("{sign}{}", decimal(n, places))
}

/// Milliseconds as seconds, as short as exact: `2000` is `2`, `2500` is
/// `2.5`, `1234` is `1.234`.
pub fn seconds(ms: u64) -> String {
    let mut s = decimal(ms, 3);
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    s
}

/// Human duration: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`, `3 d 4 h`.
pub fn duration(ms: i64) -> String {
    let ms = ms.max(0);
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{ms} ms"),
        0..=59 => format!("{} s", decimal((ms as u64 + 50) / 100, 1)),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        3600..=86_399 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        _ => format!("{} d {} h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// Bytes as `512 B`, `12.0 KB`, `3.4 MB`, `1.02 GB`.
pub fn bytes(n: u64) -> String {
    match n {
        0..=999 => format!("{n} B"),
        1_000..=999_999 => format!("{} KB", decimal((n + 50) / 100, 1)),
        1_000_000..=999_999_999 => format!("{} MB", decimal((n + 50_000) / 100_000, 1)),
        _ => format!("{} GB", decimal((n + 5_000_000) / 10_000_000, 2)),
    }
}

/// Thousands separated by thin spaces: `1 234 567`.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// Depths of the branch tree that get their own indent; deeper segments
/// keep this indent and show their depth as a number, so labels stay
/// readable at any depth.
pub const INDENT_DEPTHS: u32 = 6;

/// A tree segment's indent in tenths of an em, and the depth to print when
/// the indent is capped.
pub fn indent(depth: u32) -> (u64, Option<u32>) {
    let capped = depth.min(INDENT_DEPTHS);
    (
        4 + 9 * u64::from(capped),
        (depth > INDENT_DEPTHS).then_some(depth),
    )
}

/// Byte ranges of `query` in `text`, ASCII case ignored (what the core's
/// search matches for ASCII; other letters are matched as written), not
/// overlapping, in order.
pub fn matches(text: &str, query: &str) -> Vec<(usize, usize)> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let hay = text.to_ascii_lowercase();
    let needle = query.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = hay[from..].find(&needle) {
        let start = from + at;
        out.push((start, start + needle.len()));
        from = start + needle.len();
    }
    out
}

/// Which segments of a branch's path a breadcrumb shows: all of a short
/// path; of a long one the first, the last `keep - 1`, and how many were
/// left out between them.
pub fn crumbs(path: &[usize], keep: usize) -> (Vec<usize>, usize) {
    if path.len() <= keep || keep < 2 {
        return (path.to_vec(), 0);
    }
    let tail = keep - 1;
    let mut shown = vec![path[0]];
    shown.extend_from_slice(&path[path.len() - tail..]);
    (shown, path.len() - 1 - tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_stays_within_what_is_shown() {
        let w = |start, end| Window { start, end };
        assert_eq!(Window::around(0, 10), w(0, 10));
        assert_eq!(Window::around(500, 1000), w(470, 530));
        assert_eq!(Window::around(999, 1000), w(940, 1000));
        assert_eq!(w(0, 60).grow_down(1000), w(0, 90));
        assert_eq!(w(100, 220).grow_down(1000), w(130, 250));
        assert_eq!(w(10, 90).grow_up(), w(0, 90));
        assert_eq!(w(200, 320).grow_up(), w(170, 290));
        // A replay that steps back hides rows past the cursor.
        assert_eq!(w(0, 60).follow(50, false), w(0, 50));
        // Following the end while playing.
        assert_eq!(w(0, 50).follow(51, true), w(0, 51));
    }

    #[test]
    fn spots_round_trip_through_the_hash() {
        let spot = Spot {
            leaf: Some("d107d4c0-ae71-4d3d-af3a-cf7a370bd21f".into()),
            entry: Some("F1L20".into()),
            replay: true,
            line: Some(20),
            ..Spot::default()
        };
        let hash = spot.format();
        assert_eq!(
            hash,
            "#leaf=d107d4c0-ae71-4d3d-af3a-cf7a370bd21f&entry=F1L20&line=20&replay"
        );
        assert_eq!(Spot::parse(&hash), spot);
        let odd = Spot {
            leaf: Some("a b&c=d%".into()),
            entry: None,
            replay: false,
            line: None,
            compare: Some("L9 x".into()),
            hid: false,
        };
        assert_eq!(Spot::parse(&odd.format()), odd);
        // A comparison: the other branch, or what a compaction hid.
        let compared = Spot::parse("#leaf=e6&compare=e7");
        assert_eq!(
            (compared.leaf.as_deref(), compared.compare.as_deref()),
            (Some("e6"), Some("e7"))
        );
        let hid = Spot {
            leaf: Some("e6".into()),
            entry: Some("e5".into()),
            hid: true,
            ..Spot::default()
        };
        assert_eq!(hid.format(), "#leaf=e6&entry=e5&hid");
        assert_eq!(Spot::parse("#leaf=e6&entry=e5&hid"), hid);
        assert_eq!(Spot::parse("#entry=x&line=9z").line, None);
        assert_eq!(Spot::parse(""), Spot::default());
        assert_eq!(Spot::parse("#leaf=&junk"), Spot::default());
    }

    #[test]
    fn human_numbers() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(12_345), "12.3 s");
        assert_eq!(duration(245_000), "4 min 5 s");
        assert_eq!(duration(7_380_000), "2 h 3 min");
        assert_eq!(duration(59_960), "60.0 s");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(12_049), "12.0 KB");
        assert_eq!(bytes(3_450_000), "3.5 MB");
        assert_eq!(bytes(1_020_000_000), "1.02 GB");
        assert_eq!(bytes(999_999_999_999), "1000.00 GB");
        assert_eq!(count(1_234_567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(999), "999");
    }

    #[test]
    fn numbers_with_decimals_in_integers() {
        assert_eq!(decimal(1234, 1), "123.4");
        assert_eq!(decimal(5, 3), "0.005");
        assert_eq!(decimal(7, 0), "7");
        assert_eq!(fixed(0.0126, 2), "0.01");
        assert_eq!(fixed(1.23456, 4), "1.2346");
        assert_eq!(fixed(12.5, 0), "13");
        assert_eq!(fixed(-2.5, 0), "-3");
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(33.3333, 3), "33.333");
        assert_eq!(seconds(2000), "2");
        assert_eq!(seconds(2500), "2.5");
        assert_eq!(seconds(1234), "1.234");
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(10), "0.01");
    }

    #[test]
    fn deep_segments_keep_their_indent_and_show_their_depth() {
        assert_eq!(indent(0), (4, None));
        assert_eq!(indent(6), (58, None));
        assert_eq!(indent(7), (58, Some(7)));
        assert_eq!(indent(15), (58, Some(15)));
    }

    #[test]
    fn matches_ignore_ascii_case_and_do_not_overlap() {
        assert_eq!(matches("Weak and WEAK", "weak"), [(0, 4), (9, 13)]);
        assert_eq!(matches("aaaa", "aa"), [(0, 2), (2, 4)]);
        assert_eq!(matches("naïve Naïve", "naïve"), [(0, 6), (7, 13)]);
        assert!(matches("anything", "  ").is_empty());
        assert!(matches("abc", "x").is_empty());
    }

    #[test]
    fn long_paths_are_shortened_in_the_middle() {
        let path: Vec<usize> = (0..10).collect();
        assert_eq!(crumbs(&path, 4), (vec![0, 7, 8, 9], 6));
        assert_eq!(crumbs(&path[..3], 4), (vec![0, 1, 2], 0));
        assert_eq!(crumbs(&path[..4], 4), (vec![0, 1, 2, 3], 0));
    }
}
