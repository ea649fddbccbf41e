//! Getting files in: drag and drop, the file picker, paste, and `?src=URL`.
//! Nothing is uploaded: files go from the page to the worker and no further.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, File, FileList};

use super::{viewer, Viewer};
use crate::state::{bytes, fixed};

fn files_of(list: Option<FileList>) -> Vec<File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// The whole page accepts drops.
#[component]
pub fn DropZone(children: Children) -> impl IntoView {
    let v = viewer();
    let dragging = RwSignal::new(false);
    let paste = window_event_listener(leptos::ev::paste, move |ev: web_sys::ClipboardEvent| {
        let Some(data) = ev.clipboard_data() else {
            return;
        };
        let target_is_input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA"));
        if target_is_input {
            return;
        }
        let files = files_of(data.files());
        if !files.is_empty() {
            ev.prevent_default();
            v.open(files);
            return;
        }
        if let Ok(text) = data.get_data("text") {
            if !text.trim().is_empty() {
                ev.prevent_default();
                if let Some(file) = text_file(&text, "pasted.jsonl") {
                    v.open(vec![file]);
                }
            }
        }
    });
    on_cleanup(move || paste.remove());
    view! {
        <div
            id="drop"
            class="drop"
            class:dragging=move || dragging.get()
            on:dragover=move |ev: DragEvent| {
                // Without this the browser never fires `drop`.
                ev.prevent_default();
                dragging.set(true);
            }
            on:dragleave=move |_| dragging.set(false)
            on:drop=move |ev: DragEvent| {
                ev.prevent_default();
                dragging.set(false);
                let Some(data) = ev.data_transfer() else { return };
                // A folder among what is dropped: its sessions are listed.
                if let Some(entries) = super::folder::dropped_entries(&data) {
                    super::folder::open_dropped(v, entries);
                    return;
                }
                v.open(files_of(data.files()));
            }
        >
            {children()}
            <div class="drop-hint">"Drop session files or a folder to open them"</div>
        </div>
    }
}

/// A file made of text (paste).
fn text_file(text: &str, name: &str) -> Option<File> {
    let parts = js_sys::Array::of1(&text.into());
    File::new_with_str_sequence(&parts, name).ok()
}

/// The `<input type=file multiple>` picker.
#[component]
pub fn Picker() -> impl IntoView {
    let v = viewer();
    view! {
        <label class="button picker">
            "Open files…"
            <input
                id="file"
                type="file"
                multiple
                accept=".jsonl,.json,.gz,.jsonl.gz,application/json,application/x-ndjson"
                on:change=move |ev| {
                    let input: web_sys::HtmlInputElement = event_target(&ev);
                    v.open(files_of(input.files()));
                    input.set_value("");
                }
            />
        </label>
    }
}

/// `?src=URL`: opens a same-origin URL (the bundled demo, a file served
/// beside the viewer). Other origins are refused: the viewer promises not to
/// talk to anyone.
pub fn load_from_query(v: Viewer) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(search) = window.location().search() else {
        return;
    };
    let Some(src) = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("src="))
        .map(|s| {
            js_sys::decode_uri_component(s)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default()
        })
    else {
        return;
    };
    let Ok(href) = window.location().href() else {
        return;
    };
    let url = match web_sys::Url::new_with_base(&src, &href) {
        Ok(url) => url,
        Err(_) => {
            v.failure.set(Some(format!("?src={src} is not a URL")));
            return;
        }
    };
    let origin = window.location().origin().unwrap_or_default();
    if url.origin() != origin {
        v.failure.set(Some(format!(
            "?src= only opens files from this site ({origin}); download {src} and drop it here instead"
        )));
        return;
    }
    let name = url
        .pathname()
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("session.jsonl")
        .to_owned();
    v.progress.set(Some((0, 0)));
    leptos::task::spawn_local(async move {
        match fetch_file(&url.href(), &name).await {
            Ok(file) => v.open(vec![file]),
            Err(e) => {
                v.progress.set(None);
                v.failure.set(Some(format!("cannot load {src}: {e}")));
            }
        }
    });
}

pub(super) async fn fetch_file(url: &str, name: &str) -> Result<File, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("{e:?}"))?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let blob = JsFuture::from(response.blob().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("{e:?}"))?;
    let parts = js_sys::Array::of1(&blob);
    File::new_with_blob_sequence(&parts, name).map_err(|e| format!("{e:?}"))
}

/// Progress while opening, what is open, or what went wrong.
#[component]
pub fn Status() -> impl IntoView {
    let v = viewer();
    view! {
        <div class="status" id="status">
            {move || {
                if let Some((done, total)) = v.progress.get() {
                    let pct = if total > 0 { done as f64 * 100.0 / total as f64 } else { 0.0 };
                    view! {
                        <div class="progress" role="progressbar" aria-label="Reading the files" aria-valuenow=fixed(pct, 0)>
                            <div class="bar" style=format!("width: {}%", fixed(pct, 1))></div>
                            <span>{format!("reading {} of {}", bytes(done), bytes(total))}</span>
                        </div>
                    }
                        .into_any()
                } else if let Some(e) = v.failure.get() {
                    view! { <span class="failure">{e}</span> }.into_any()
                } else if let Some(s) = v.summary.get() {
                    let name = s
                        .files
                        .first()
                        .map(|f| f.name.clone())
                        .unwrap_or_default();
                    let more = match s.files.len() {
                        0 | 1 => String::new(),
                        n => format!(" + {} files", n - 1),
                    };
                    view! {
                        <span class="opened">
                            <b>{crate::invisible::name_view(name)}</b>
                            {more}
                            " · "
                            {s.figures.format_label()}
                            " · "
                            {format!("{} entries", crate::state::count(s.figures.entries as u64))}
                            " · "
                            {format!("indexed in {} ms", fixed(s.open_ms, 0))}
                        </span>
                    }
                        .into_any()
                } else {
                    ().into_any()
                }
            }}
        </div>
    }
}

/// What the page says before a session is open.
#[component]
pub fn Welcome() -> impl IntoView {
    view! {
        <main class="welcome">
            <h2>"Replay an agent session"</h2>
            <p>
                "Drop a session file here — Claude Code ("<code>"~/.claude/projects"</code>"), pi ("
                <code>"~/.pi/agent/sessions"</code>"), or any JSONL transcript retrace reads — or use "
                <b>"Open files…"</b>" or paste its text. A Claude Code session opens with its subagent files when you drop them together; a folder ("<b>"Open folder…"</b>" or drop it) lists the sessions it holds."
            </p>
            <p class="private">
                "Files are read in this tab and never leave your machine: nothing is uploaded."
            </p>
            <p>
                <a href="?src=demo.jsonl">"Open the demo session"</a>
            </p>
        </main>
    }
}
