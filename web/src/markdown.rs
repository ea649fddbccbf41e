//! Markdown to HTML that cannot run anything.
//!
//! A transcript is untrusted input: a model can be talked into writing
//! `<script>`, `<img onerror>` or `javascript:` links, and a session file can
//! be crafted. So every piece of HTML here is written by this module: every
//! text is escaped, raw HTML is shown as text, a link keeps its URL only for
//! `http`, `https` and `mailto`, and images are never loaded (a link to
//! them instead: a dropped file must cause no requests).
//!
//! It renders the markdown agents write: paragraphs, ATX headings, fenced
//! code, block quotes, nested lists (with task boxes), rules, GFM tables, and
//! inline code, emphasis, strong, strikethrough, links and autolinks. It is
//! written here rather than taken from a CommonMark crate because it is a
//! tenth of the size, and the viewer's whole bundle has a budget.

/// Renders `text` as sanitized HTML.
pub fn to_html(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    blocks(&lines, &mut out, 0);
    out
}

/// How deep block quotes and lists may nest (deeper is shown as text).
const MAX_DEPTH: usize = 16;

fn blocks(lines: &[&str], out: &mut String, depth: usize) {
    let mut para: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            paragraph(&mut para, out);
            i += 1;
            continue;
        }
        if indent < 4 {
            if let Some((fence, info)) = fence_open(trimmed) {
                paragraph(&mut para, out);
                i = code_block(lines, i + 1, fence, info, indent, out);
                continue;
            }
            if let Some((level, rest)) = heading(trimmed) {
                paragraph(&mut para, out);
                // A transcript's headings are not the page's: a bold line
                // of its size, so the page's heading outline (panels, rows)
                // stays in order whatever levels a message uses.
                out.push_str(&format!("<p class=\"md-h md-h{}\">", level.min(6)));
                inline(rest, out);
                out.push_str("</p>");
                i += 1;
                continue;
            }
            if is_rule(trimmed) {
                paragraph(&mut para, out);
                out.push_str("<hr>");
                i += 1;
                continue;
            }
            if trimmed.starts_with('>') && depth < MAX_DEPTH {
                paragraph(&mut para, out);
                let mut inner = Vec::new();
                while i < lines.len() {
                    let t = lines[i].trim_start();
                    let Some(rest) = t.strip_prefix('>') else {
                        break;
                    };
                    inner.push(rest.strip_prefix(' ').unwrap_or(rest));
                    i += 1;
                }
                out.push_str("<blockquote>");
                blocks(&inner, out, depth + 1);
                out.push_str("</blockquote>");
                continue;
            }
            if list_marker(trimmed).is_some() && depth < MAX_DEPTH {
                paragraph(&mut para, out);
                i = list(lines, i, out, depth);
                continue;
            }
            if para.is_empty() && i + 1 < lines.len() && trimmed.contains('|') {
                if let Some(aligns) = table_delimiter(lines[i + 1]) {
                    i = table(lines, i, &aligns, out);
                    continue;
                }
            }
        }
        para.push(line);
        i += 1;
    }
    paragraph(&mut para, out);
}

fn paragraph(para: &mut Vec<&str>, out: &mut String) {
    if para.is_empty() {
        return;
    }
    out.push_str("<p>");
    for (i, line) in para.iter().enumerate() {
        let hard = line.ends_with("  ") || line.ends_with('\\');
        let text = line.trim();
        let text = if hard {
            text.strip_suffix('\\').unwrap_or(text)
        } else {
            text
        };
        inline(text, out);
        if i + 1 < para.len() {
            out.push_str(if hard { "<br>" } else { "\n" });
        }
    }
    out.push_str("</p>");
    para.clear();
}

/// A fence opening: its character run and the info string.
fn fence_open(line: &str) -> Option<(&str, &str)> {
    let ch = line.chars().next().filter(|&c| c == '`' || c == '~')?;
    let run = line.len() - line.trim_start_matches(ch).len();
    if run < 3 {
        return None;
    }
    let info = line[run..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((&line[..run], info))
}

/// Writes a fenced code block from `start` to its closing fence (or the
/// end); returns the line after it.
fn code_block(
    lines: &[&str],
    start: usize,
    fence: &str,
    info: &str,
    indent: usize,
    out: &mut String,
) -> usize {
    out.push_str("<pre><code");
    let lang: String = info
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
        .collect();
    if !lang.is_empty() {
        out.push_str(&format!(" class=\"language-{lang}\""));
    }
    out.push('>');
    let ch = fence.as_bytes()[0] as char;
    let mut i = start;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let run = t.len() - t.trim_start_matches(ch).len();
        if run >= fence.len() && t[run..].trim().is_empty() {
            i += 1;
            break;
        }
        // Lines lose as much of the fence's indentation as they have.
        let line = lines[i];
        let strip = line.len() - line.trim_start_matches(' ').len();
        // Code shows its invisible characters, as code viewers do.
        crate::invisible::push_marked(&line[strip.min(indent)..], out);
        out.push('\n');
        i += 1;
    }
    out.push_str("</code></pre>");
    i
}

fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    // A closing run of `#` is not part of the text.
    let rest = rest.trim();
    let rest = rest.trim_end_matches('#');
    Some((level, rest.trim_end()))
}

fn is_rule(line: &str) -> bool {
    let Some(ch) = line.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    line.chars().filter(|&c| c == ch).count() >= 3 && line.chars().all(|c| c == ch || c == ' ')
}

/// A list item's marker: (ordered start number, width of marker + space).
fn list_marker(line: &str) -> Option<(Option<u64>, usize)> {
    let b = line.as_bytes();
    match b.first()? {
        b'-' | b'*' | b'+' if b.len() == 1 || b[1] == b' ' || b[1] == b'\t' => {
            Some((None, 2.min(b.len())))
        }
        b'0'..=b'9' => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 {
                return None;
            }
            let after = *b.get(digits)?;
            if after != b'.' && after != b')' {
                return None;
            }
            if b.len() > digits + 1 && b[digits + 1] != b' ' {
                return None;
            }
            let n = line[..digits].parse().ok()?;
            Some((Some(n), (digits + 2).min(b.len())))
        }
        _ => None,
    }
}

/// Writes the list starting at line `start`; returns the line after it.
fn list(lines: &[&str], start: usize, out: &mut String, depth: usize) -> usize {
    let first = lines[start].trim_start();
    let base = lines[start].len() - first.len();
    let (number, _) = list_marker(first).expect("caller checked the marker");
    let ordered = number.is_some();
    match number {
        Some(1) | None => out.push_str(if ordered { "<ol>" } else { "<ul>" }),
        Some(n) => out.push_str(&format!("<ol start=\"{n}\">")),
    }
    let mut i = start;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let indent = lines[i].len() - t.len();
        let Some((n, width)) = list_marker(t).filter(|_| indent == base) else {
            break;
        };
        if n.is_some() != ordered {
            break;
        }
        // The item: its first line, then lines indented past the marker
        // (or lazy continuation lines) until a blank line followed by
        // something that is not indented.
        let mut item: Vec<&str> = vec![&t[width..]];
        i += 1;
        let mut loose = false;
        while i < lines.len() {
            let line = lines[i];
            let lt = line.trim_start();
            let li = line.len() - lt.len();
            if lt.is_empty() {
                let next_indented = lines
                    .get(i + 1)
                    .is_some_and(|n| !n.trim().is_empty() && n.len() - n.trim_start().len() > base);
                if !next_indented {
                    break;
                }
                loose = true;
                item.push("");
                i += 1;
                continue;
            }
            if li > base {
                item.push(&line[(base + width).min(li)..]);
            } else if list_marker(lt).is_none() && !loose && fence_open(lt).is_none() {
                item.push(lt);
            } else {
                break;
            }
            i += 1;
        }
        out.push_str("<li>");
        let mut body = item;
        if let Some(rest) = task_box(body[0]) {
            out.push_str(if body[0].as_bytes()[1] == b' ' {
                "<input type=\"checkbox\" disabled> "
            } else {
                "<input type=\"checkbox\" disabled checked> "
            });
            body[0] = rest;
        }
        let mut html = String::new();
        blocks(&body, &mut html, depth + 1);
        // A tight item reads as text, not a paragraph.
        if !loose && html.starts_with("<p>") && html.matches("<p>").count() == 1 {
            if let Some(end) = html.find("</p>") {
                html = format!("{}{}", &html[3..end], &html[end + 4..]);
            }
        }
        out.push_str(&html);
        out.push_str("</li>");
        // Skip blank lines between items.
        while i < lines.len() && lines[i].trim().is_empty() {
            let next_is_item = lines.get(i + 1).is_some_and(|n| {
                let t = n.trim_start();
                n.len() - t.len() == base && list_marker(t).is_some()
            });
            if !next_is_item {
                break;
            }
            i += 1;
        }
    }
    out.push_str(if ordered { "</ol>" } else { "</ul>" });
    i
}

/// `[ ] rest` or `[x] rest`: the rest after a task box.
fn task_box(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    (b.len() >= 3 && b[0] == b'[' && b[2] == b']' && matches!(b[1], b' ' | b'x' | b'X'))
        .then(|| line[3..].trim_start())
}

#[derive(Clone, Copy)]
enum Align {
    None,
    Left,
    Center,
    Right,
}

fn cells(line: &str) -> Vec<&str> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    // Split on pipes that are not escaped.
    let mut out = Vec::new();
    let mut start = 0;
    let b = t.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'|' && (i == 0 || b[i - 1] != b'\\') {
            out.push(t[start..i].trim());
            start = i + 1;
        }
    }
    out.push(t[start..].trim());
    out
}

fn table_delimiter(line: &str) -> Option<Vec<Align>> {
    if !line.contains('-') {
        return None;
    }
    cells(line)
        .into_iter()
        .map(|c| {
            let left = c.starts_with(':');
            let right = c.ends_with(':');
            let dashes = c.trim_matches(':');
            (!dashes.is_empty() && dashes.bytes().all(|b| b == b'-')).then_some(
                match (left, right) {
                    (true, true) => Align::Center,
                    (true, false) => Align::Left,
                    (false, true) => Align::Right,
                    (false, false) => Align::None,
                },
            )
        })
        .collect()
}

fn table(lines: &[&str], start: usize, aligns: &[Align], out: &mut String) -> usize {
    let row = |line: &str, tag: &str, out: &mut String| {
        out.push_str("<tr>");
        let cells = cells(line);
        for (i, align) in aligns.iter().enumerate() {
            let style = match align {
                Align::None => "",
                Align::Left => " style=\"text-align:left\"",
                Align::Center => " style=\"text-align:center\"",
                Align::Right => " style=\"text-align:right\"",
            };
            out.push_str(&format!("<{tag}{style}>"));
            inline(cells.get(i).copied().unwrap_or(""), out);
            out.push_str(&format!("</{tag}>"));
        }
        out.push_str("</tr>");
    };
    out.push_str("<table><thead>");
    row(lines[start], "th", out);
    out.push_str("</thead><tbody>");
    let mut i = start + 2;
    while i < lines.len() && !lines[i].trim().is_empty() && lines[i].contains('|') {
        row(lines[i], "td", out);
        i += 1;
    }
    out.push_str("</tbody></table>");
    i
}

/// Inline markdown: code spans, emphasis, strong, strikethrough, links,
/// images (as links) and autolinks; everything else escaped text.
fn inline(text: &str, out: &mut String) {
    inline_at(text, out, 0);
}

fn inline_at(text: &str, out: &mut String, depth: usize) {
    let b = text.as_bytes();
    let mut i = 0;
    // Text since the last markup, written escaped in one go.
    let mut plain = 0;
    let flush = |out: &mut String, from: usize, to: usize| escape(&text[from..to], out);
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() && b[i + 1].is_ascii_punctuation() => {
                flush(out, plain, i);
                escape(&text[i + 1..i + 2], out);
                i += 2;
                plain = i;
            }
            b'`' => {
                let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                let close = find_run(b, i + run, b'`', run);
                match close {
                    Some(end) => {
                        flush(out, plain, i);
                        out.push_str("<code>");
                        let code = &text[i + run..end];
                        let code = if code.starts_with(' ') && code.ends_with(' ') && code.len() > 1
                        {
                            &code[1..code.len() - 1]
                        } else {
                            code
                        };
                        crate::invisible::push_marked(code, out);
                        out.push_str("</code>");
                        i = end + run;
                        plain = i;
                    }
                    None => i += run,
                }
            }
            b'*' | b'_' | b'~' if depth < MAX_DEPTH => {
                let c = b[i];
                let run = b[i..].iter().take_while(|&&x| x == c).count();
                let (width, open, close) = match (c, run) {
                    (b'~', 2..) => (2, "<del>", "</del>"),
                    (b'~', _) => {
                        i += run;
                        continue;
                    }
                    (_, 2..) => (2, "<strong>", "</strong>"),
                    _ => (1, "<em>", "</em>"),
                };
                // Opens only before text, and `_` only at a word start.
                let next = b.get(i + width).copied();
                let word_before = i > 0 && b[i - 1].is_ascii_alphanumeric();
                let opens =
                    next.is_some_and(|n| n != b' ' && n != b'\n') && !(c == b'_' && word_before);
                let end = opens.then(|| find_closer(b, i + width, c, width)).flatten();
                match end {
                    Some(end) => {
                        flush(out, plain, i);
                        out.push_str(open);
                        inline_at(&text[i + width..end], out, depth + 1);
                        out.push_str(close);
                        i = end + width;
                        plain = i;
                    }
                    None => i += run,
                }
            }
            b'!' if b.get(i + 1) == Some(&b'[') => match link(text, i + 1) {
                Some((label, url, end)) => {
                    flush(out, plain, i);
                    link_open(url, out);
                    out.push_str("[image: ");
                    escape(label, out);
                    out.push_str("]</a>");
                    i = end;
                    plain = i;
                }
                None => i += 1,
            },
            b'[' if depth < MAX_DEPTH => match link(text, i) {
                Some((label, url, end)) => {
                    flush(out, plain, i);
                    link_open(url, out);
                    inline_at(label, out, depth + 1);
                    out.push_str("</a>");
                    i = end;
                    plain = i;
                }
                None => i += 1,
            },
            b'<' => {
                // `<https://…>` autolinks; any other tag is shown as text.
                let end = text[i..].find('>').map(|e| i + e);
                let inner = end.map(|e| &text[i + 1..e]);
                match inner.filter(|u| !u.contains([' ', '<']) && safe_url(u).is_some()) {
                    Some(url) => {
                        flush(out, plain, i);
                        link_open(url, out);
                        escape(url, out);
                        out.push_str("</a>");
                        i = end.expect("inner came from end") + 1;
                        plain = i;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    flush(out, plain, b.len());
}

/// The start of the next run of exactly `len` × `c` at or after `from`.
fn find_run(b: &[u8], from: usize, c: u8, len: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        if b[i] == c {
            let run = b[i..].iter().take_while(|&&x| x == c).count();
            if run == len {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// Where emphasis opened at `from` closes: `width` × `c` right after
/// non-space text, not inside a code span.
fn find_closer(b: &[u8], from: usize, c: u8, width: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'`' => {
                let run = b[i..].iter().take_while(|&&x| x == b'`').count();
                i = find_run(b, i + run, b'`', run).map_or(i + run, |e| e + run);
            }
            b'\\' => i += 2,
            x if x == c => {
                let run = b[i..].iter().take_while(|&&y| y == c).count();
                let after_text = i > from && b[i - 1] != b' ';
                let word_after = b.get(i + run).is_some_and(|n| n.is_ascii_alphanumeric());
                if after_text && run >= width && !(c == b'_' && word_after) {
                    return Some(i);
                }
                i += run;
            }
            _ => i += 1,
        }
    }
    None
}

/// `[label](url …)` starting at `open` (the `[`): the label, the URL and
/// the index after the `)`.
fn link(text: &str, open: usize) -> Option<(&str, &str, usize)> {
    let b = text.as_bytes();
    let mut depth = 0;
    let mut i = open;
    let close = loop {
        match b.get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            _ => {}
        }
        i += 1;
    };
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut parens = 0;
    let mut j = close + 2;
    let end = loop {
        match b.get(j)? {
            b'(' => parens += 1,
            b')' if parens == 0 => break j,
            b')' => parens -= 1,
            _ => {}
        }
        j += 1;
    };
    let target = text[close + 2..end].trim();
    // A title after the URL is dropped; `<url>` brackets are unwrapped.
    let url = target.split_whitespace().next().unwrap_or("");
    let url = url
        .strip_prefix('<')
        .and_then(|u| u.strip_suffix('>'))
        .unwrap_or(url);
    Some((&text[open + 1..close], url, end + 1))
}

/// Opens a link: an `<a>` with the URL when it is safe to follow, else a
/// `<a>` without one (the text still shows).
fn link_open(url: &str, out: &mut String) {
    match safe_url(url) {
        Some(url) => {
            out.push_str("<a href=\"");
            escape(url, out);
            out.push_str("\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">");
        }
        None => out.push_str("<a class=\"unsafe-link\">"),
    }
}

/// `url` if it is `http:`, `https:` or `mailto:` (case and leading
/// control characters as browsers treat them).
pub fn safe_url(url: &str) -> Option<&str> {
    // Browsers ignore leading whitespace and control characters and strip
    // tabs and newlines anywhere before deciding the scheme.
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .take(8)
        .collect::<String>()
        .to_ascii_lowercase();
    let ok = cleaned.starts_with("http://")
        || cleaned.starts_with("https://")
        || cleaned.starts_with("mailto:");
    ok.then_some(url)
}

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_shown_not_run() {
        let html = to_html("hi <script>alert(1)</script>\n\n<img src=x onerror=alert(2)>");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(2)&gt;"),
            "{html}"
        );
    }

    #[test]
    fn only_safe_links_keep_their_url() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](\tjava\nscript:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
            "![x](javascript:alert(1))",
        ] {
            let html = to_html(bad);
            assert!(!html.contains("href"), "{bad} -> {html}");
        }
        let html = to_html("[docs](https://example.com/a?b=1&c=\"2\")");
        assert_eq!(
            html,
            "<p><a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">docs</a></p>"
        );
        let html = to_html("see <https://example.com/x>");
        assert!(html.contains("<a href=\"https://example.com/x\""), "{html}");
    }

    #[test]
    fn images_are_links_never_loaded() {
        let html = to_html("![a cat](https://example.com/cat.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("[image: a cat]</a>"), "{html}");
    }

    #[test]
    fn markdown_structure_renders() {
        let html = to_html(
            "# Title\n\n- a\n- **b**\n\n```rust\nfn x() {}\n```\n\n| h | i |\n|---|--:|\n| c | d |",
        );
        assert!(html.contains("<p class=\"md-h md-h1\">Title</p>"), "{html}");
        assert!(
            html.contains("<ul><li>a</li><li><strong>b</strong></li></ul>"),
            "{html}"
        );
        assert!(
            html.contains("<pre><code class=\"language-rust\">fn x() {}\n</code></pre>"),
            "{html}"
        );
        assert!(html.contains("<table><thead><tr><th>h</th><th style=\"text-align:right\">i</th></tr></thead><tbody><tr><td>c</td><td style=\"text-align:right\">d</td></tr></tbody></table>"), "{html}");
    }

    #[test]
    fn lists_nest_and_count() {
        let html = to_html("3. three\n4. four\n   - inner *x*\n   - [x] done\n5. five");
        assert_eq!(
            html,
            "<ol start=\"3\"><li>three</li><li>four<ul><li>inner <em>x</em></li><li><input type=\"checkbox\" disabled checked> done</li></ul></li><li>five</li></ol>"
        );
    }

    #[test]
    fn inline_markup() {
        assert_eq!(
            to_html("a `b *c*` and ~~d~~, snake_case_name and \\*e\\*"),
            "<p>a <code>b *c*</code> and <del>d</del>, snake_case_name and *e*</p>"
        );
        assert_eq!(
            to_html("> quoted\n> more"),
            "<blockquote><p>quoted\nmore</p></blockquote>"
        );
        assert_eq!(
            to_html("line one  \nline two"),
            "<p>line one<br>line two</p>"
        );
        assert_eq!(to_html("---"), "<hr>");
    }

    #[test]
    fn attribute_injection_through_code_language_is_impossible() {
        let html = to_html("```rust\" onmouseover=\"alert(1)\nx\n```");
        assert!(!html.contains("onmouseover=\""), "{html}");
    }

    /// No input panics or writes a tag this module does not write.
    #[test]
    fn any_input_renders_to_known_tags() {
        let pieces = [
            "*",
            "**",
            "_",
            "~~",
            "`",
            "``",
            "[",
            "](",
            ")",
            "![",
            "<",
            ">",
            "\\",
            "#",
            "- ",
            "1. ",
            "> ",
            "|",
            "---",
            "\n",
            "\n\n",
            "```",
            " ",
            "é",
            "日本",
            "😀",
            "http://x",
            "a",
            "[x]",
            "javascript:",
            "<b>",
            "\t",
            "\u{202E}",
            "\u{200B}",
        ];
        let allowed = [
            "p",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "code",
            "blockquote",
            "ul",
            "ol",
            "li",
            "hr",
            "br",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "em",
            "strong",
            "del",
            "a",
            "input",
            // An invisible character's mark in code (`invisible.rs`).
            "span",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..4000 {
            let mut text = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let html = to_html(&text);
            for tag in html.split('<').skip(1) {
                let name: String = tag
                    .trim_start_matches('/')
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                assert!(allowed.contains(&name.as_str()), "<{tag} from {text:?}");
            }
            assert!(!html.contains("javascript:\""), "{text:?} -> {html}");
        }
    }
}
