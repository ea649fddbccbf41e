//! Small text helpers shared by the commands.

/// A duration in milliseconds as `2h 03m`, `4m 10s` or `12.3s`.
pub fn duration(ms: i64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// A timestamp as `2025-12-17 19:52:23` (UTC).
pub fn time(ms: i64) -> String {
    retrace_core::readable_time(ms)
}

/// `text` cut to at most `head` first and `tail` last lines, with the
/// number of lines left out in between; long lines are cut too.
pub fn shorten(text: &str, head: usize, tail: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let cut = |l: &str| -> String {
        const WIDTH: usize = 200;
        match l.char_indices().nth(WIDTH) {
            Some((i, _)) => format!("{}…", &l[..i]),
            None => l.to_owned(),
        }
    };
    if lines.len() <= head + tail + 1 {
        return lines.iter().map(|l| cut(l)).collect::<Vec<_>>().join("\n");
    }
    let mut out: Vec<String> = lines[..head].iter().map(|l| cut(l)).collect();
    out.push(format!("… {} more lines …", lines.len() - head - tail));
    out.extend(lines[lines.len() - tail..].iter().map(|l| cut(l)));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortens_long_outputs() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let short = shorten(&text, 3, 2);
        assert_eq!(
            short,
            "line 1\nline 2\nline 3\n… 95 more lines …\nline 99\nline 100"
        );
        assert_eq!(shorten("a\nb", 3, 2), "a\nb");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(12_300), "12.3s");
        assert_eq!(duration(250_000), "4m 10s");
        assert_eq!(duration(7_380_000), "2h 03m");
    }
}
