//! Markdown to HTML that cannot run anything.
//!
//! A transcript is untrusted input: a model can be talked into writing
//! `<script>`, `<img onerror>` or `javascript:` links, and a session file can
//! be crafted. So the HTML is written here from the parser's events, never
//! passed through: every text is escaped, raw HTML is shown as text, a link
//! keeps its URL only for `http`, `https` and `mailto`, and images are never
//! loaded (a link to them instead: a dropped file must cause no requests).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// Renders `text` as sanitized HTML.
pub fn to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    // Inside an image, its alt text goes into the link text.
    let mut in_image = 0u32;
    let mut in_table_head = false;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(tag) => start(&tag, &mut out, &mut in_image, &mut in_table_head),
            Event::End(tag) => end(tag, &mut out, &mut in_image, &mut in_table_head),
            Event::Text(t) => escape(&t, &mut out),
            Event::Code(t) => {
                out.push_str("<code>");
                escape(&t, &mut out);
                out.push_str("</code>");
            }
            // Raw HTML is shown, not interpreted.
            Event::Html(t) | Event::InlineHtml(t) => {
                out.push_str("<span class=\"raw-html\">");
                escape(&t, &mut out);
                out.push_str("</span>");
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                out.push_str("<code class=\"math\">");
                escape(&t, &mut out);
                out.push_str("</code>");
            }
            Event::SoftBreak => out.push('\n'),
            Event::HardBreak => out.push_str("<br>"),
            Event::Rule => out.push_str("<hr>"),
            Event::TaskListMarker(done) => out.push_str(if done {
                "<input type=\"checkbox\" disabled checked> "
            } else {
                "<input type=\"checkbox\" disabled> "
            }),
            Event::FootnoteReference(name) => {
                out.push_str("<sup>[");
                escape(&name, &mut out);
                out.push_str("]</sup>");
            }
        }
    }
    out
}

fn start(tag: &Tag<'_>, out: &mut String, in_image: &mut u32, in_table_head: &mut bool) {
    match tag {
        Tag::Paragraph => out.push_str("<p>"),
        Tag::Heading { level, .. } => {
            // Transcript headings sit inside a message: keep them small.
            let n = (*level as usize + 2).min(6);
            out.push_str(&format!("<h{n}>"));
        }
        Tag::BlockQuote(_) => out.push_str("<blockquote>"),
        Tag::CodeBlock(kind) => {
            out.push_str("<pre><code");
            if let CodeBlockKind::Fenced(lang) = kind {
                let lang: String = lang
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
                    .collect();
                if !lang.is_empty() {
                    out.push_str(&format!(" class=\"language-{lang}\""));
                }
            }
            out.push('>');
        }
        Tag::HtmlBlock => out.push_str("<div class=\"raw-html\">"),
        Tag::List(Some(1)) => out.push_str("<ol>"),
        Tag::List(Some(n)) => out.push_str(&format!("<ol start=\"{n}\">")),
        Tag::List(None) => out.push_str("<ul>"),
        Tag::Item => out.push_str("<li>"),
        Tag::Table(_) => out.push_str("<table>"),
        Tag::TableHead => {
            *in_table_head = true;
            out.push_str("<thead><tr>");
        }
        Tag::TableRow => out.push_str("<tr>"),
        Tag::TableCell => out.push_str(if *in_table_head { "<th>" } else { "<td>" }),
        Tag::Emphasis => out.push_str("<em>"),
        Tag::Strong => out.push_str("<strong>"),
        Tag::Strikethrough => out.push_str("<del>"),
        Tag::Superscript => out.push_str("<sup>"),
        Tag::Subscript => out.push_str("<sub>"),
        Tag::Link { dest_url, .. } => link_open(dest_url, out),
        Tag::Image { dest_url, .. } => {
            *in_image += 1;
            link_open(dest_url, out);
            out.push_str("[image: ");
        }
        Tag::FootnoteDefinition(name) => {
            out.push_str("<div class=\"footnote\"><sup>");
            escape(name, out);
            out.push_str("</sup> ");
        }
        // Definition lists and metadata blocks: plain containers.
        _ => out.push_str("<div>"),
    }
}

fn end(tag: TagEnd, out: &mut String, in_image: &mut u32, in_table_head: &mut bool) {
    match tag {
        TagEnd::Paragraph => out.push_str("</p>"),
        TagEnd::Heading(level) => {
            let n = (level as usize + 2).min(6);
            out.push_str(&format!("</h{n}>"));
        }
        TagEnd::BlockQuote(_) => out.push_str("</blockquote>"),
        TagEnd::CodeBlock => out.push_str("</code></pre>"),
        TagEnd::HtmlBlock => out.push_str("</div>"),
        TagEnd::List(true) => out.push_str("</ol>"),
        TagEnd::List(false) => out.push_str("</ul>"),
        TagEnd::Item => out.push_str("</li>"),
        TagEnd::Table => out.push_str("</tbody></table>"),
        TagEnd::TableHead => {
            *in_table_head = false;
            out.push_str("</tr></thead><tbody>");
        }
        TagEnd::TableRow => out.push_str("</tr>"),
        TagEnd::TableCell => out.push_str(if *in_table_head { "</th>" } else { "</td>" }),
        TagEnd::Emphasis => out.push_str("</em>"),
        TagEnd::Strong => out.push_str("</strong>"),
        TagEnd::Strikethrough => out.push_str("</del>"),
        TagEnd::Superscript => out.push_str("</sup>"),
        TagEnd::Subscript => out.push_str("</sub>"),
        TagEnd::Link => out.push_str("</a>"),
        TagEnd::Image => {
            *in_image = in_image.saturating_sub(1);
            out.push_str("]</a>");
        }
        TagEnd::FootnoteDefinition => out.push_str("</div>"),
        _ => out.push_str("</div>"),
    }
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
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("alert(1)"));
        assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;"));
    }

    #[test]
    fn only_safe_links_keep_their_url() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( \tjava\nscript:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
        ] {
            let html = to_html(bad);
            assert!(!html.contains("href"), "{bad} -> {html}");
        }
        let html = to_html("[docs](https://example.com/a?b=1&c=\"2\")");
        assert!(html.contains(
            "<a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">docs</a>"
        ), "{html}");
    }

    #[test]
    fn images_are_links_never_loaded() {
        let html = to_html("![a cat](https://example.com/cat.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("[image: a cat]"));
    }

    #[test]
    fn markdown_structure_renders() {
        let html =
            to_html("# Title\n\n- a\n- **b**\n\n```rust\nfn x() {}\n```\n\n| h |\n|---|\n| c |");
        assert!(html.contains("<h3>Title</h3>"));
        assert!(html.contains("<li><strong>b</strong></li>"));
        assert!(html.contains("<pre><code class=\"language-rust\">fn x() {}\n</code></pre>"));
        assert!(
            html.contains("<thead><tr><th>h</th></tr></thead><tbody><tr><td>c</td></tr></tbody>")
        );
    }

    #[test]
    fn attribute_injection_through_code_language_is_impossible() {
        let html = to_html("```rust\" onmouseover=\"alert(1)\nx\n```");
        assert!(!html.contains("onmouseover=\""), "{html}");
    }
}
