//! The index page: a small static page (HTML, a script and a stylesheet,
//! in `page/`), apart from the viewer's bundle. It asks `/api/sessions`
//! and `/api/search` and inserts text only through `textContent`.

const FILES: &[(&str, &[u8])] = &[
    ("index.html", include_bytes!("page/index.html")),
    ("index.js", include_bytes!("page/index.js")),
    ("index.css", include_bytes!("page/index.css")),
];

/// One of the page's files by name.
pub fn file(name: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}
