use super::*;
use sha2::{Digest, Sha256};

const FRAME: &str = "<div id=\"announce\"></div>\n";
const STYLE: &str = "body { color: red }";

/// The open page with the viewer's parts (their names as their bytes),
/// then the given files (the first opening on `leaf`) and the tail.
fn write(files: &[(&str, &[u8])], leaf: Option<&str>) -> String {
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
    String::from_utf8(out).unwrap()
}

fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let digits: Vec<u8> = quad
            .iter()
            .filter(|&&c| c != b'=')
            .map(|&c| value(c))
            .collect();
        let n = digits
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend((0..digits.len() - 1).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    out
}

/// The parts of a page as the boot script reads them: (attributes, bytes
/// of each element).
fn parts(html: &str) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut parts: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    let open = format!("<script type=\"{PART_TYPE}\"");
    for piece in html.split(&open).skip(1) {
        let (attrs, rest) = piece.split_once('>').unwrap();
        let (body, _) = rest.split_once("</script>").unwrap();
        if !attrs.is_empty() {
            parts.push((attrs.trim().to_owned(), Vec::new()));
        }
        parts.last_mut().unwrap().1.push(unbase64(body));
    }
    parts
}

#[test]
fn the_policy_pins_the_boot_script_by_its_hash() {
    let hash = Sha256::digest(BOOT.as_bytes());
    let mut b64 = Vec::new();
    base64(&hash, &mut b64);
    let pinned = format!("'sha256-{}'", String::from_utf8(b64).unwrap());
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
    assert!(html.ends_with("</script>\n</body>\n</html>\n"));
}

#[test]
fn the_head_holds_the_policy_the_style_the_boot_script_and_the_frame() {
    let html = write(&[], None);
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
    let html = write(&[("a\"b<c&d.jsonl", b"x")], Some("id\"1"));
    assert!(html.contains("data-file=\"a&quot;b&lt;c&amp;d.jsonl\" data-leaf=\"id&quot;1\">"));
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
fn base64_is_the_standard_alphabet_with_padding() {
    for (bytes, text) in [
        (&b""[..], ""),
        (b"f", "Zg=="),
        (b"fo", "Zm8="),
        (b"foo", "Zm9v"),
        (b"foob", "Zm9vYg=="),
        (b"\xff\xfe\xfd", "//79"),
    ] {
        let mut out = Vec::new();
        base64(bytes, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), text);
        assert_eq!(unbase64(text), bytes);
    }
}
