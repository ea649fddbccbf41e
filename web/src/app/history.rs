//! Navigation that can be undone and shared: a branch picked or a jump is a
//! history entry (Back and Forward bring it back, and Back stays in the
//! app while there is somewhere in it to go back to), and "copy link"
//! copies a row's address with a visible confirmation.

use std::cell::Cell;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::Viewer;

thread_local! {
    /// The next hash written starts a history entry.
    static PUSH: Cell<bool> = const { Cell::new(false) };
}

/// Makes the next hash written a new history entry (a person went
/// somewhere) rather than a correction of the current one (the replay
/// moved, the branch's rows arrived).
pub fn push_next() {
    PUSH.with(|p| p.set(true));
}

/// Writes `hash`, with where it points as the entry's state (`"leaf"` or
/// `"leaf entry"`), which Back and Forward read.
pub fn write(hash: &str, leaf: u32, entry: Option<u32>) {
    let push = PUSH.with(|p| p.replace(false));
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let state = JsValue::from_str(&match entry {
        Some(e) => format!("{leaf} {e}"),
        None => leaf.to_string(),
    });
    let same = w.location().hash().is_ok_and(|h| h == hash);
    let _ = if push && !same {
        history.push_state_with_url(&state, "", Some(hash))
    } else {
        history.replace_state_with_url(&state, "", Some(hash))
    };
}

/// Back and Forward: shows the branch and row the entry points at.
pub fn listen(v: Viewer) -> WindowListenerHandle {
    window_event_listener(leptos::ev::popstate, move |ev| {
        let Some(state) = ev.state().as_string() else {
            return;
        };
        if v.summary.with_untracked(Option::is_none) {
            return;
        }
        v.compare.set(None);
        let mut parts = state.split(' ').map(|p| p.parse::<u32>().ok());
        let Some(Some(leaf)) = parts.next() else {
            return;
        };
        match parts.next().flatten() {
            Some(entry) => v.go_to_entry(leaf, entry),
            None => v.select_leaf(leaf),
        }
    })
}

/// Shows the toast (`index.html`): a confirmation, or with `by_hand` the
/// link in a box, selected, to copy by hand.
fn show_toast(text: &str, by_hand: Option<&str>) {
    let doc = document();
    let (Some(toast), Some(label)) = (
        doc.get_element_by_id("toast"),
        doc.get_element_by_id("toast-text"),
    ) else {
        return;
    };
    label.set_text_content(Some(text));
    let input = doc
        .get_element_by_id("copy-by-hand")
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
    let _ = toast.remove_attribute("hidden");
    super::frame::announce(text);
    if let Some(input) = input {
        input.set_hidden(by_hand.is_none());
        if let Some(url) = by_hand {
            input.set_value(url);
            let _ = input.focus();
            input.select();
        }
    }
}

pub fn hide_toast() {
    if let Some(toast) = document().get_element_by_id("toast") {
        let _ = toast.set_attribute("hidden", "");
    }
}

/// Focuses row `row` and copies the page's address, which now points at
/// it, to the clipboard.
pub fn copy_link(v: Viewer, row: usize) {
    push_next();
    v.focus_row(row);
    let Some(w) = web_sys::window() else { return };
    let url = w.location().href().unwrap_or_default();
    // `navigator.clipboard` is missing outside secure contexts, and
    // `writeText` may be refused: both end in the copy-by-hand box.
    let promise = js_sys::Reflect::get(&w.navigator(), &"clipboard".into())
        .ok()
        .filter(|c| !c.is_undefined())
        .and_then(|clipboard| {
            let write = js_sys::Reflect::get(&clipboard, &"writeText".into()).ok()?;
            let write: js_sys::Function = write.dyn_into().ok()?;
            write.call1(&clipboard, &url.as_str().into()).ok()
        })
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    leptos::task::spawn_local(async move {
        let copied = match promise {
            Some(p) => JsFuture::from(p).await.is_ok(),
            None => false,
        };
        if copied {
            show_toast("Link copied to the clipboard", None);
            set_timeout(hide_toast, std::time::Duration::from_millis(3000));
        } else {
            show_toast("The clipboard refused; copy this link:", Some(&url));
        }
    });
}

/// After a reload of a page whose file was dropped (a tab cannot read it
/// again by itself), says where the link in the address bar points (the
/// note is in `index.html`; it hides once a session is open).
pub fn show_return_hint() {
    let Some(w) = web_sys::window() else { return };
    let location = w.location();
    if location.search().is_ok_and(|q| q.contains("src=")) {
        return;
    }
    let spot = crate::state::Spot::parse(&location.hash().unwrap_or_default());
    if spot.entry.is_none() && spot.leaf.is_none() {
        return;
    }
    let (Some(note), Some(text)) = (
        document().get_element_by_id("return-hint"),
        document().get_element_by_id("return-hint-text"),
    ) else {
        return;
    };
    let place = match spot.line {
        Some(line) => format!("line {line}"),
        None => "the same branch".to_owned(),
    };
    text.set_text_content(Some(&format!(
        "This link points into a file that was dropped here: drop the file again to return to {place}."
    )));
    let _ = note.remove_attribute("hidden");
}
