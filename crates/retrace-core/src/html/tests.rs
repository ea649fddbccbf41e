use super::*;
use sha2::{Digest, Sha256};

const FRAME: &str = "<div id=\"announce\"></div>\n";
const STYLE: &str = "body { color: red }";

/// The open page with the viewer's parts (their names as their bytes),
/// then the given files (the first opening on `leaf`) and the tail.
fn write(files: &[(&str, &[u8])], leaf: Option<&str>) -> Vec<u8> {
    let mut w = PageWriter::new(Vec::new(), FRAME, STYLE).unwrap();
    for name in VIEWER_PARTS {
        let mut p = w.part(name).unwrap();
        p.write_all(name.as_bytes()).unwrap();
        p.finish().unwrap();
    }
    let mut out = w.finish().unwrap();
    for (i, (name, bytes)) in files.iter().enumerate() {
        let mut p = FilePart::new(&mut out, name, leaf.filter(|_| i == 0));
        // In odd pieces, as a compressor hands them over.
        for piece in bytes.chunks(100_003) {
            p.write_all(piece).unwrap();
        }
        p.finish().unwrap();
    }
    out.extend_from_slice(TAIL.as_bytes());
    out
}

/// The page's mark-up, its parts' bytes shown lossily.
fn markup(html: &[u8]) -> String {
    String::from_utf8_lossy(html).into_owned()
}

/// Standard base64 with padding, as a policy names a hash.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The parts of a page as the boot script reads them: (attributes, bytes
/// of each element).
fn parts(html: &[u8]) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut parts: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    let open = format!("<script type=\"{PART_TYPE}\"");
    let mut rest = html;
    while let Some(at) = find(rest, open.as_bytes()) {
        rest = &rest[at + open.len()..];
        let close = rest.iter().position(|&b| b == b'>').unwrap();
        let attrs = std::str::from_utf8(&rest[..close]).unwrap();
        rest = &rest[close + 1..];
        let end = find(rest, b"</script>").unwrap();
        if !attrs.is_empty() {
            parts.push((attrs.trim().to_owned(), Vec::new()));
        }
        parts.last_mut().unwrap().1.push(unescape(&rest[..end]));
        rest = &rest[end..];
    }
    parts
}

#[test]
fn the_policy_pins_the_boot_script_by_its_hash() {
    let hash = Sha256::digest(BOOT.as_bytes());
    let pinned = format!("'sha256-{}'", base64(&hash));
    assert!(
        CSP.contains(&pinned),
        "boot.js changed: its hash is now {pinned} (boot_hash! in html/mod.rs)"
    );
    // Nothing may be fetched: no directive names a host, a scheme that
    // reaches one, or the page's own origin; scripts are the boot script
    // and the blobs it makes.
    assert!(CSP.starts_with("default-src 'none'; connect-src 'none';"));
    for word in ["http", "'self'", "*", "'unsafe-eval'", "file:", "ws:"] {
        assert!(!CSP.contains(word), "{word} in {CSP}");
    }
    let script = CSP
        .split("; ")
        .find_map(|d| d.strip_prefix("script-src "))
        .unwrap();
    assert_eq!(script, format!("{pinned} blob: 'wasm-unsafe-eval'"));
}

#[test]
fn parts_are_cut_in_elements_that_name_the_part_first() {
    let big: Vec<u8> = (0..CHUNK * 2 + 5).map(|i| (i * 7 % 251) as u8).collect();
    let html = write(
        &[("a.jsonl", b"{}\n"), ("big.jsonl", &big), ("empty", b"")],
        Some("L4"),
    );
    let parts = parts(&html);
    let names: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "data-viewer=\"glue\"",
            "data-viewer=\"wasm\"",
            "data-viewer=\"worker\"",
            "data-file=\"a.jsonl\" data-leaf=\"L4\"",
            "data-file=\"big.jsonl\"",
            "data-file=\"empty\"",
        ]
    );
    assert_eq!(parts[1].1, [b"wasm".to_vec()]);
    assert_eq!(parts[3].1, [b"{}\n".to_vec()]);
    // Whole elements of CHUNK bytes, the rest in the last one.
    let lens: Vec<usize> = parts[4].1.iter().map(Vec::len).collect();
    assert_eq!(lens, [CHUNK, CHUNK, 5]);
    assert_eq!(parts[4].1.concat(), big);
    // An empty part still has its element, which names it.
    assert_eq!(parts[5].1, [Vec::<u8>::new()]);
    assert!(html.ends_with(b"</script>\n</body>\n</html>\n"));
}

#[test]
fn the_head_holds_the_policy_the_style_the_boot_script_and_the_frame() {
    let html = markup(&write(&[], None));
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"));
    let csp = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">");
    let at = |s: &str| {
        html.find(s)
            .unwrap_or_else(|| panic!("{s} not in the page"))
    };
    // The policy comes before any script.
    assert!(at(&csp) < at("<script"));
    assert!(html.contains("<style id=\"retrace-style\">body { color: red }</style>"));
    assert!(html.contains(&format!("<script type=\"module\">{BOOT}</script>")));
    assert!(
        at("<body><div id=\"announce\"></div>\n<p id=\"retrace-boot\"")
            < at("<script type=\"application/x-retrace\"")
    );
}

#[test]
fn names_are_escaped_in_their_attribute() {
    let html = markup(&write(&[("a\"b<c&d.jsonl", b"x")], Some("id\"1")));
    assert!(html.contains("data-file=\"a&#x22;b&#x3c;c&#x26;d.jsonl\" data-leaf=\"id&#x22;1\">"));
    let html = markup(&write(&[("sitzung-ü.jsonl", b"x")], Some("λ")));
    assert!(html.contains("data-file=\"sitzung-&#xfc;.jsonl\" data-leaf=\"&#x3bb;\">"));
    let html = markup(&write(&[("\u{1f600}", b"x")], None));
    assert!(html.contains("data-file=\"&#x1f600;\">"));
}

#[test]
fn a_page_without_a_viewer_part_or_with_one_twice_is_refused() {
    let mut w = PageWriter::new(Vec::new(), FRAME, STYLE).unwrap();
    for name in ["glue", "wasm"] {
        w.part(name).unwrap().finish().unwrap();
    }
    let e = w.part("glue").err().unwrap();
    assert_eq!(e.to_string(), "the viewer's part `glue` was written twice");
    let e = w.part("logo").err().unwrap();
    assert_eq!(e.to_string(), "no viewer part `logo` (glue, wasm, worker)");
    let e = w.finish().unwrap_err();
    assert_eq!(e.to_string(), "the viewer's part `worker` was not written");
}

#[test]
fn a_stylesheet_that_would_end_its_element_is_refused() {
    let e = PageWriter::new(Vec::new(), FRAME, "a::after { content: '</STYLE>' }")
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "the viewer's stylesheet holds `</style`, which would end it early"
    );
}

#[test]
fn the_frame_is_the_body_of_the_viewers_page() {
    let index = "<!DOCTYPE html><html><head><title>x</title></head>\n<body class=\"a\">\n  <div id=\"toast\"></div>\n</body>\n</html>\n";
    assert_eq!(frame_of(index), Ok("\n  <div id=\"toast\"></div>\n"));
    assert_eq!(
        frame_of("<html><head></head></html>"),
        Err(HtmlError::NoBody)
    );
}

#[test]
fn a_file_is_carried_under_its_base_name_unzipped() {
    assert_eq!(part_name("/a/b/s.jsonl.gz"), "s.jsonl");
    assert_eq!(part_name("C:\\x\\agent-1.jsonl"), "agent-1.jsonl");
    assert_eq!(part_name("-"), "-");
}

#[test]
fn every_byte_comes_back_and_none_the_parser_would_change_is_written() {
    // Every byte, every escaped byte next to every other, runs of them.
    let mut bytes: Vec<u8> = (0..=255).collect();
    for a in [0, b'\r', b'<', ESCAPE] {
        for b in 0..=255u8 {
            bytes.extend([a, b, b, a]);
        }
    }
    bytes.extend([ESCAPE; 9]);
    let mut text = Vec::new();
    escape(&bytes, &mut text);
    assert_eq!(unescape(&text), bytes);
    for bad in [0, b'\r', b'<'] {
        assert!(!text.contains(&bad), "{bad:#x} written as it is");
    }
    // Only the four escaped bytes cost two: 1 + 4/256 for gzip's
    // random-looking bytes, where base64 costs 4/3.
    let n = |b: u8| bytes.iter().filter(|&&x| x == b).count();
    let twice = n(0) + n(b'\r') + n(b'<') + n(ESCAPE);
    assert_eq!(text.len(), bytes.len() + twice);
}

#[test]
fn the_page_is_windows_1252_and_its_markup_ascii() {
    let frame = "<table><tr><th>\u{2190} \u{2192}</th><td>step</td></tr></table>\n";
    let style = ".a::before { content: \"\u{25b8}\"; } /* \u{2500}\u{2500} x */";
    let mut w = PageWriter::new(Vec::new(), frame, style).unwrap();
    for name in VIEWER_PARTS {
        let mut p = w.part(name).unwrap();
        p.write_all(&[0x80, 0x9f, 0xff, b'<', 0]).unwrap();
        p.finish().unwrap();
    }
    let html = w.finish().unwrap();
    let head = &html[..find(&html, b"<script type=\"application/x-retrace\"").unwrap()];
    assert!(head.is_ascii(), "{}", markup(head));
    let head = markup(head);
    assert!(head.contains("<meta charset=\"windows-1252\">"));
    assert!(head.contains("<th>&#8592; &#8594;</th>"));
    assert!(head.contains(".a::before { content: \"\\25b8 \"; } /* \\2500 \\2500  x */"));
    assert!(head.contains("Opening the session&#8230;"));
    // The boot script is ASCII, so its hash is the same in any encoding.
    assert!(BOOT.is_ascii());
    assert_eq!(parts(&html)[0].1, [vec![0x80, 0x9f, 0xff, b'<', 0]]);
}
