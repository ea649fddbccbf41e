//! The page's frame on any screen: skip links, the drawers the branch tree
//! and the details panel become on a narrow screen, and the live region
//! that tells a screen reader what changed (player position, loading,
//! search counts).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::Viewer;

/// A side panel shown as a drawer (below the width of three columns).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Drawer {
    Tree,
    Details,
}

impl Drawer {
    /// The button that opens it, where focus returns when it closes.
    fn toggle_id(self) -> &'static str {
        match self {
            Drawer::Tree => "open-tree",
            Drawer::Details => "open-details",
        }
    }

    /// The button that closes it, focused when it opens.
    fn close_id(self) -> &'static str {
        match self {
            Drawer::Tree => "close-tree",
            Drawer::Details => "close-details",
        }
    }
}

/// Focuses the element with id `id` once the page has drawn.
pub fn focus_later(id: &'static str) {
    request_animation_frame(move || focus(id));
}

fn focus(id: &str) {
    let el = document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = el {
        let _ = el.focus();
    }
}

/// Whether drawers are in use: their toggles are shown only then.
fn narrow() -> bool {
    document()
        .get_element_by_id("open-tree")
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|e| e.offset_parent().is_some())
}

pub fn open_drawer(v: Viewer, d: Drawer) {
    v.drawer.set(Some(d));
    focus_later(d.close_id());
}

/// Closes the open drawer (if any) and gives focus back to its toggle.
pub fn close_drawer(v: Viewer) -> bool {
    match v.drawer.get_untracked() {
        Some(d) => {
            v.drawer.set(None);
            focus_later(d.toggle_id());
            true
        }
        None => false,
    }
}

/// The close button a panel's head carries (shown only as a drawer; its
/// clicks go through [`listen_clicks`]).
pub fn close_button(d: Drawer) -> impl IntoView {
    let label = match d {
        Drawer::Tree => "Close branches",
        Drawer::Details => "Close details",
    };
    view! { <button class="drawer-close" id=d.close_id() aria-label=label>"×"</button> }
}

/// The header's own controls: the drawers' toggles (shown on a narrow
/// screen with a session open), the theme and UTC switches, the key list.
/// Plain HTML, their clicks read by [`listen_clicks`]: a view with a
/// handler each cost the bundle kilobytes.
#[component]
pub fn HeaderTools() -> impl IntoView {
    let (theme, utc) = super::prefs::current();
    let html = format!(
        concat!(
            r#"<button class="drawer-toggle" id="open-tree" aria-controls="tree" aria-expanded="false">☰ Branches</button>"#,
            r#"<button class="drawer-toggle" id="open-details" aria-controls="details" aria-expanded="false">Details · download</button>"#,
            r#"<button id="theme" class="theme-switch" title="Colour theme: auto (the system's), light or dark">Theme: {}</button>"#,
            r#"<button id="utc" title="Show times in UTC instead of your time zone" aria-pressed="{}">UTC</button>"#,
            r#"<button id="keys-open" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>"#,
        ),
        theme, utc
    );
    view! { <span class="tools" inner_html=html></span> }
}

/// Mirrors the open drawer into the page (written to the DOM: the panels'
/// views stay as they are): the panes' class, the toggles' state, and
/// `inert` on everything else, so focus stays in the drawer and a screen
/// reader reads only it.
pub fn follow_drawer(v: Viewer) {
    Effect::new(move |_| {
        let open = v.drawer.get();
        let doc = document();
        let set = |selector: &str, on: bool| {
            if let Ok(Some(el)) = doc.query_selector(selector) {
                let _ = if on {
                    el.set_attribute("inert", "")
                } else {
                    el.remove_attribute("inert")
                };
            }
        };
        set("header.top", open.is_some());
        set(".center", open.is_some());
        set("#tree", open == Some(Drawer::Details));
        set("#details", open == Some(Drawer::Tree));
        if let Ok(Some(panes)) = doc.query_selector(".panes") {
            let list = panes.class_list();
            let _ = list.toggle_with_force("tree-open", open == Some(Drawer::Tree));
            let _ = list.toggle_with_force("details-open", open == Some(Drawer::Details));
        }
        for d in [Drawer::Tree, Drawer::Details] {
            if let Some(el) = doc.get_element_by_id(d.toggle_id()) {
                let _ = el.set_attribute(
                    "aria-expanded",
                    if open == Some(d) { "true" } else { "false" },
                );
            }
        }
    });
}

/// Closes an open drawer when the window grows past the drawers' width:
/// the panel is then in its column, and an open drawer would keep the rest
/// of the page `inert` (unclickable, unreadable) with no toggle to close it.
pub fn listen_resize(v: Viewer) -> WindowListenerHandle {
    window_event_listener(leptos::ev::resize, move |_| {
        if v.drawer.get_untracked().is_some() && !narrow() {
            v.drawer.set(None);
        }
    })
}

/// Tells a screen reader `text` (the live region in `index.html`).
pub fn announce(text: &str) {
    if let Some(el) = document().get_element_by_id("announce") {
        el.set_text_content(Some(text));
    }
}

/// The clicks on the frame's plain buttons (`index.html`, the header's
/// tools, the drawers' close buttons): the skip buttons, which move focus
/// past the rows (a long branch has thousands of focusable things before
/// the player), the drawers, the switches, the key list and the toast;
/// and a compaction row's "what this hid".
pub fn listen_clicks(v: Viewer) -> WindowListenerHandle {
    window_event_listener(leptos::ev::click, move |ev| {
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        if el.has_attribute("data-cmp") {
            super::compare::clicked(v, &el);
            return;
        }
        if let Some(to) = el.get_attribute("data-skip") {
            if to == "details" && narrow() {
                open_drawer(v, Drawer::Details);
            } else {
                focus(&to);
            }
            return;
        }
        match el.id().as_str() {
            "open-tree" => open_drawer(v, Drawer::Tree),
            "open-details" => open_drawer(v, Drawer::Details),
            "close-tree" | "close-details" => {
                close_drawer(v);
            }
            "theme" => super::prefs::next_theme(&el),
            "utc" => super::prefs::toggle_utc(v, &el),
            "keys-open" => super::keys::open(),
            "keys-close" => super::keys::close(),
            "toast-close" => super::history::hide_toast(),
            _ => {}
        }
    })
}

/// Says how far the reading is, in quarters (every percent would be
/// noise).
pub fn announce_progress(before: Option<(u64, u64)>, done: u64, total: u64) {
    let quarter = |d: u64| (total > 0).then(|| d * 4 / total);
    let was = before.filter(|b| b.1 == total).and_then(|b| quarter(b.0));
    if let Some(q) = quarter(done).filter(|q| Some(*q) != was) {
        announce(&format!("Reading the session: {}%", q * 25));
    }
}

/// Says where the replay is after a step, a seek or a pause (not every
/// row of a playing replay).
pub fn announce_position(was: (usize, bool), now: (usize, bool), len: usize) {
    if len == 0 || was == now {
        return;
    }
    if now.1 && !was.1 {
        announce("Playing");
    } else if !now.1 {
        announce(&format!("Replay at row {} of {len}", now.0));
    }
}

/// `5 matches for “weak”` (`first 500 matches…` when cut).
pub fn count_text(query: &str, n: usize, truncated: bool) -> String {
    format!(
        "{}{n} {} for “{query}”",
        if truncated { "first " } else { "" },
        if n == 1 { "match" } else { "matches" }
    )
}
