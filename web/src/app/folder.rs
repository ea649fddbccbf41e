//! A folder of sessions: the folder picker, a dropped folder read entry by
//! entry, and the list of its sessions when it holds several (the worker
//! splits it with the core's `split_sessions`; one session opens at once).
//! Titles fill in as the worker reads them; a session opens by click or
//! Enter, and "Sessions in this folder" comes back to the list.

use crate::invisible::{attr_text, name_view};
use js_sys::{Array, Promise};
use leptos::prelude::*;
use retrace_core::Listed;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry};

use super::{viewer, Viewer};
use crate::state::{bytes, count};
use retrace_wasm::js::client;
use retrace_wasm::protocol::{FolderSession, Request};

/// Folders below a dropped one that are read, as `retrace list` walks.
const MAX_DEPTH: usize = 6;

/// One session of the folder and its line once the worker read it.
#[derive(Clone)]
pub struct Entry {
    pub session: FolderSession,
    pub listed: RwSignal<Option<Listed>>,
}

/// The folder listed, whether its list is on screen, and which of its
/// sessions is open.
#[derive(Clone, Copy)]
pub struct FolderView {
    pub sessions: RwSignal<Option<Vec<Entry>>>,
    pub shown: RwSignal<bool>,
    pub picked: RwSignal<Option<usize>>,
}

impl FolderView {
    pub fn new() -> FolderView {
        FolderView {
            sessions: RwSignal::new(None),
            shown: RwSignal::new(false),
            picked: RwSignal::new(None),
        }
    }

    /// Forgets the folder (a file opened on its own replaces it).
    pub fn close(self) {
        self.sessions.set(None);
        self.shown.set(false);
        self.picked.set(None);
    }

    /// The worker's list of several sessions: shown at once, by name.
    pub fn show(self, sessions: Vec<FolderSession>) {
        let entries = sessions
            .into_iter()
            .map(|session| Entry {
                session,
                listed: RwSignal::new(None),
            })
            .collect();
        self.sessions.set(Some(entries));
        self.picked.set(None);
        self.shown.set(true);
    }

    /// Titles read since the last batch.
    pub fn fill(self, listed: Vec<(u32, Listed)>) {
        self.sessions.with_untracked(|s| {
            let Some(entries) = s else { return };
            for (i, line) in listed {
                if let Some(e) = entries.get(i as usize) {
                    e.listed.set(Some(line));
                }
            }
        });
    }
}

/// Sends a folder's files (`paths[i]` is `files[i]`'s path under it) to
/// be split into sessions.
pub fn open_folder(v: Viewer, files: Vec<File>, paths: Vec<String>) {
    if files.is_empty() {
        v.failure.set(Some("the folder is empty".to_owned()));
        return;
    }
    v.folder.close();
    v.begin(0);
    client::send(&Request::OpenFolder { paths }, &files);
}

/// Opens the `i`th session of the folder listed.
fn open_listed(v: Viewer, i: usize) {
    let size = v.folder.sessions.with_untracked(|s| {
        s.as_ref()
            .and_then(|s| s.get(i))
            .map_or(0, |e| e.session.size)
    });
    v.folder.picked.set(Some(i));
    v.folder.shown.set(false);
    v.begin(size);
    client::send(&Request::OpenListed { session: i as u32 }, &[]);
}

/// A file's path under the folder picked (`webkitRelativePath`).
fn relative_path(file: &File) -> String {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|p| p.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// The `<input type=file webkitdirectory>` picker, beside "Open files…".
#[component]
pub fn FolderPicker() -> impl IntoView {
    let v = viewer();
    view! {
        <label class="button picker folder-picker">
            "Open folder…"
            <input
                id="folder"
                type="file"
                prop:webkitdirectory=true
                on:change=move |ev| {
                    let input: web_sys::HtmlInputElement = event_target(&ev);
                    let files: Vec<File> = input
                        .files()
                        .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
                        .unwrap_or_default();
                    let paths = files.iter().map(relative_path).collect();
                    open_folder(v, files, paths);
                    input.set_value("");
                }
            />
        </label>
    }
}

/// Whether a drop holds a folder: its entries, read before the event ends
/// (the browser forgets them after).
pub fn dropped_entries(data: &web_sys::DataTransfer) -> Option<Vec<FileSystemEntry>> {
    let items = data.items();
    let entries: Vec<FileSystemEntry> = (0..items.length())
        .filter_map(|i| items.get(i)?.webkit_get_as_entry().ok().flatten())
        .collect();
    entries
        .iter()
        .any(FileSystemEntry::is_directory)
        .then_some(entries)
}

/// Reads dropped entries down to their files and sends them as a folder.
pub fn open_dropped(v: Viewer, entries: Vec<FileSystemEntry>) {
    v.begin(0);
    leptos::task::spawn_local(async move {
        match read_entries(entries).await {
            Ok((files, paths)) => open_folder(v, files, paths),
            Err(e) => {
                v.progress.set(None);
                v.failure
                    .set(Some(format!("cannot read the dropped folder: {e:?}")));
            }
        }
    });
}

/// Calls `start(resolve, reject)`, for the entry API's callbacks.
async fn callback(
    mut start: impl FnMut(&js_sys::Function, &js_sys::Function),
) -> Result<JsValue, JsValue> {
    JsFuture::from(Promise::new(&mut |ok, err| start(&ok, &err))).await
}

/// Every file under `entries`, with its path from the drop (hidden
/// folders, git repositories and `node_modules` passed over, as
/// `retrace list` does).
async fn read_entries(entries: Vec<FileSystemEntry>) -> Result<(Vec<File>, Vec<String>), JsValue> {
    let (mut files, mut paths) = (Vec::new(), Vec::new());
    let mut stack: Vec<(FileSystemEntry, usize)> = entries.into_iter().map(|e| (e, 0)).collect();
    while let Some((entry, depth)) = stack.pop() {
        let name = entry.name();
        if entry.is_directory() {
            let skip = name.starts_with('.') || name.ends_with(".git") || name == "node_modules";
            if skip || depth > MAX_DEPTH {
                continue;
            }
            let reader = entry
                .unchecked_ref::<FileSystemDirectoryEntry>()
                .create_reader();
            // `readEntries` gives a batch at a time, then an empty one.
            loop {
                let batch = callback(|ok, err| {
                    let _ = reader.read_entries_with_callback_and_callback(ok, err);
                })
                .await?;
                let batch: Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                stack.extend(batch.iter().map(|e| (e.unchecked_into(), depth + 1)));
            }
        } else {
            let file = entry.unchecked_ref::<FileSystemFileEntry>();
            let got = callback(|ok, err| file.file_with_callback_and_callback(ok, err)).await?;
            paths.push(entry.full_path().trim_start_matches('/').to_owned());
            files.push(got.unchecked_into());
        }
    }
    Ok((files, paths))
}

/// "Sessions in this folder", back to the list from a session opened
/// from it.
#[component]
pub fn BackToList() -> impl IntoView {
    let v = viewer();
    let total = move || v.folder.sessions.with(|s| s.as_ref().map_or(0, Vec::len));
    view! {
        <Show when=move || { total() > 0 && !v.folder.shown.get() }>
            <button class="back-to-list" on:click=move |_| v.folder.shown.set(true)>
                {move || format!("← Sessions in this folder ({})", total())}
            </button>
        </Show>
    }
}

/// A time in milliseconds since the epoch, as `YYYY-MM-DD HH:MM UTC`.
fn when(ms: i64) -> String {
    let iso = js_sys::Date::new(&JsValue::from_f64(ms as f64)).to_iso_string();
    let iso = String::from(iso);
    format!("{} {} UTC", &iso[..10], &iso[11..16])
}

/// The folder's sessions, one a row: title, start, format, size, files.
#[component]
pub fn FolderList() -> impl IntoView {
    let v = viewer();
    let rows = move || {
        v.folder.sessions.with(|s| {
            s.iter()
                .flatten()
                .enumerate()
                .map(|(i, e)| {
                    let Entry { session, listed } = e.clone();
                    let name = session.name.clone();
                    let title = move || {
                        listed.with(|l| match l {
                            None => "…".to_owned(),
                            Some(l) => l.title.clone().unwrap_or_else(|| "(no prompt)".into()),
                        })
                    };
                    let start = move || listed.with(|l| l.as_ref().and_then(|l| l.start).map(when));
                    let format = move || listed.with(|l| l.as_ref().map(|l| l.format.clone()));
                    let picked = move || v.folder.picked.get() == Some(i);
                    view! {
                        <tr class:picked=picked>
                            <td class="title">
                                <button on:click=move |_| open_listed(v, i) title=attr_text(&name)>
                                    {move || name_view(title())}
                                </button>
                                <span class="path">{name_view(name.clone())}</span>
                            </td>
                            <td>{start}</td>
                            <td>{format}</td>
                            <td class="num">{bytes(session.size)}</td>
                            <td class="num">{count(u64::from(session.files))}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let total = move || v.folder.sessions.with(|s| s.as_ref().map_or(0, Vec::len));
    view! {
        <section class="folder-list" aria-labelledby="folder-heading">
            <h2 id="folder-heading">{move || format!("{} sessions in this folder", total())}</h2>
            <p class="dim">"Pick one to open it (click, or Tab to it and press Enter)."</p>
            <table>
                <thead>
                    <tr>
                        <th scope="col">"Session"</th>
                        <th scope="col">"Started"</th>
                        <th scope="col">"Format"</th>
                        <th scope="col">"Size"</th>
                        <th scope="col">"Files"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}
