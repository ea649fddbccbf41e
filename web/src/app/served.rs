//! A session a `retrace serve` server holds (`/view/?s=ID`): the server
//! describes its files (`/api/sessions/ID`: name, size, URL each) and the
//! worker reads them by range, as it reads a dropped file. While the page
//! is open the server says when a file grows (`/api/sessions/ID/live`,
//! server-sent events); the session is then read again up to the new
//! sizes, at the branch and row the reader was on.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::Viewer;
use crate::state::Spot;

/// How long a growth waits while the session is still being read.
const RETRY_MS: u64 = 300;

/// Opens `?s=ID`, if the page's query names one.
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
    v.progress.set(Some((0, 0)));
    leptos::task::spawn_local(async move {
        match describe(&id).await {
            Ok(files) => {
                let sizes = sizes(&files);
                v.open_list(files.clone(), sizes.iter().sum(), None);
                follow(v, &id, files, sizes);
            }
            Err(e) => {
                v.progress.set(None);
                v.failure
                    .set(Some(format!("cannot open session {id}: {e}")));
            }
        }
    });
}

/// The files the server describes for session `id`.
async fn describe(id: &str) -> Result<Array, String> {
    let window = web_sys::window().ok_or("no window")?;
    let fail = |e: JsValue| format!("{e:?}");
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(&format!("/api/sessions/{id}")))
            .await
            .map_err(fail)?
            .unchecked_into();
    if !response.ok() {
        return Err(format!("the server answered {}", response.status()));
    }
    let json = JsFuture::from(response.json().map_err(fail)?)
        .await
        .map_err(fail)?;
    Reflect::get(&json, &"files".into())
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| "no files".to_owned())
}

fn sizes(files: &Array) -> Vec<u64> {
    files
        .iter()
        .map(|f| {
            Reflect::get(&f, &"size".into())
                .ok()
                .and_then(|s| s.as_f64())
                .unwrap_or(0.0) as u64
        })
        .collect()
}

/// Listens for the server's `sizes` events and reads the session again
/// when they differ from what was read.
fn follow(v: Viewer, id: &str, files: Array, read: Vec<u64>) {
    let Ok(source) = web_sys::EventSource::new(&format!("/api/sessions/{id}/live")) else {
        return;
    };
    let state = Rc::new(RefCell::new((files, read, Vec::<u64>::new())));
    let on_sizes =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let sizes: Vec<u64> = e
                .data()
                .as_string()
                .and_then(|d| js_sys::JSON::parse(&d).ok())
                .map(|a| sizes_of(&a.unchecked_into()))
                .unwrap_or_default();
            state.borrow_mut().2 = sizes;
            grow(v, state.clone());
        });
    let _ = source.add_event_listener_with_callback("sizes", on_sizes.as_ref().unchecked_ref());
    // Both live as long as the page.
    on_sizes.forget();
    std::mem::forget(source);
}

fn sizes_of(array: &Array) -> Vec<u64> {
    array
        .iter()
        .map(|n| n.as_f64().unwrap_or(0.0) as u64)
        .collect()
}

type Followed = Rc<RefCell<(Array, Vec<u64>, Vec<u64>)>>;

/// Reads the session again up to the latest sizes, once the last reading
/// is done.
fn grow(v: Viewer, state: Followed) {
    let (files, latest) = {
        let s = state.borrow();
        if s.2.len() != s.1.len() || s.2 == s.1 {
            return;
        }
        (s.0.clone(), s.2.clone())
    };
    if v.progress.get_untracked().is_some() {
        let again = state.clone();
        set_timeout(
            move || grow(v, again),
            std::time::Duration::from_millis(RETRY_MS),
        );
        return;
    }
    let list: Array = files
        .iter()
        .zip(&latest)
        .map(|(f, &size)| {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), &f.unchecked_into());
            let _ = Reflect::set(&copy, &"size".into(), &(size as f64).into());
            JsValue::from(copy)
        })
        .collect();
    state.borrow_mut().1 = latest.clone();
    v.open_list(list, latest.iter().sum(), Some(place(v)));
}

/// Where the reader is: the branch they picked (none when it is the
/// default one, which the grown session extends) and the row in focus,
/// else the last one shown.
fn place(v: Viewer) -> Spot {
    let default = v
        .summary
        .with_untracked(|s| s.as_ref().and_then(|s| s.default_leaf));
    let leaf = v.leaf.get_untracked();
    let row = v
        .focus
        .get_untracked()
        .or_else(|| v.window.get_untracked().end.checked_sub(1));
    Spot {
        leaf: (leaf != default).then(|| v.leaf_label.get_untracked()),
        entry: row.and_then(|r| v.rows.with_untracked(|rows| rows.label.get(r).cloned())),
        ..Spot::default()
    }
}
