//! A session a `retrace serve` server holds (`/view/?s=ID`): the page
//! sends `{session: ID}` to the worker in place of `File`s, and the worker
//! reads the files the server describes by range, as it reads a dropped
//! file. While the page is open the server says the files' sizes
//! (`/api/sessions/ID/live`, server-sent events, on each change and every
//! few seconds); when they changed, the session is read again (up to the
//! new sizes) at the branch and row the reader was on.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Viewer;
use crate::state::Spot;
use leptos::prelude::*;

/// Opens `?s=ID`, if the page's query names one, and follows it.
pub fn open_from_query(v: Viewer) {
    let Some(id) = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| {
            q.trim_start_matches('?')
                .split('&')
                .find_map(|p| p.strip_prefix("s="))
                .map(str::to_owned)
        })
    else {
        return;
    };
    let session = Object::new();
    let _ = Reflect::set(&session, &"session".into(), &id.as_str().into());
    let list = Array::of1(&session);
    v.open_list(list.clone(), 0, None);
    let Ok(source) = web_sys::EventSource::new(&format!("/api/sessions/{id}/live")) else {
        return;
    };
    // The sizes read: the first event's (the page asked just before).
    let mut read: Option<String> = None;
    let on_sizes =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let sizes = e.data().as_string();
            if read.is_none() || v.progress.get_untracked().is_some() {
                read = read.take().or(sizes);
                return;
            }
            if sizes != read {
                read = sizes;
                v.open_list(list.clone(), 0, Some(place(v)));
            }
        });
    let _ = source.add_event_listener_with_callback("sizes", on_sizes.as_ref().unchecked_ref());
    // Both live as long as the page.
    on_sizes.forget();
    std::mem::forget(source);
}

/// Where the reader is: the branch they picked (none when it is the
/// default one, which the grown session extends) and the row in focus,
/// else the last one shown.
fn place(v: Viewer) -> Spot {
    let default = v
        .summary
        .with_untracked(|s| s.as_ref().and_then(|s| s.default_leaf));
    let row = v
        .focus
        .get_untracked()
        .or_else(|| v.window.get_untracked().end.checked_sub(1));
    Spot {
        leaf: (v.leaf.get_untracked() != default).then(|| v.leaf_label.get_untracked()),
        entry: row.and_then(|r| v.rows.with_untracked(|rows| rows.label.get(r).cloned())),
        ..Spot::default()
    }
}
