//! Fork and seal: a new session file made in the worker by the core's
//! `fork` and `seal` (the CLI's `retrace fork` and `retrace seal`) and
//! saved as a download, with what the core did.
//!
//! Few reactive pieces and no view switching: the bundle has a budget.

use leptos::prelude::*;

use super::viewer;
use retrace_wasm::js::client;
use retrace_wasm::protocol::Request;

/// Where the branch shown can be forked (row indices: its safe fork points
/// and its last row) and its tool calls without a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    pub leaf: u32,
    pub rows: Vec<u32>,
    pub open: Vec<String>,
}

/// "fork here" on a row, shown where the row is a safe fork point or the
/// branch's end.
pub fn fork_button(index: usize) -> impl IntoView {
    let v = viewer();
    let safe = move || {
        v.edit
            .with(|e| e.as_ref().is_some_and(|p| p.rows.contains(&(index as u32))))
    };
    view! {
        <button
            class="fork-here"
            hidden=move || !safe()
            title="Download a new session: this branch up to here (retrace fork)"
            on:click=move |_| {
                if let Some(leaf) = v.leaf.get_untracked() {
                    client::send(&Request::Fork { leaf, row: index as u32 }, &[]);
                }
            }
        >
            "fork here"
        </button>
    }
}

/// What the panel's reactive parts read, as plain `fn` pointers: one
/// type for all of them, so leptos's rendering code is built once, not
/// once per closure (the bundle has a budget).
type Flag = fn() -> bool;
type Text = fn() -> String;

fn points_known() -> bool {
    viewer().edit.with(Option::is_some)
}

fn points_unknown() -> bool {
    !points_known()
}

fn nothing_to_seal() -> bool {
    !viewer()
        .edit
        .with(|e| e.as_ref().is_some_and(|p| !p.open.is_empty()))
}

fn status() -> String {
    viewer().edit.with(|e| match e {
        None => String::new(),
        Some(p) if p.open.is_empty() => format!(
            "{} fork points on this branch; no unpaired tool call.",
            p.rows.len()
        ),
        Some(p) => format!(
            "{} tool call{} without a result: {}",
            p.open.len(),
            if p.open.len() == 1 { "" } else { "s" },
            p.open.join(", ")
        ),
    })
}

fn nothing_saved() -> bool {
    viewer().edited.with(Option::is_none)
}

fn notes() -> String {
    viewer().edited.with(|e| {
        e.as_ref().map_or(String::new(), |(name, notes)| {
            format!("Saved {name}: {}", notes.join(" "))
        })
    })
}

type Click = fn(web_sys::MouseEvent);

/// Asks the worker for the fork points of the branch shown.
fn find_points(_: web_sys::MouseEvent) {
    if let Some(leaf) = viewer().leaf.get_untracked() {
        client::send(&Request::EditPoints { leaf }, &[]);
    }
}

/// Asks the worker to seal the branch shown.
fn seal(_: web_sys::MouseEvent) {
    if let Some(leaf) = viewer().leaf.get_untracked() {
        client::send(&Request::Seal { leaf }, &[]);
    }
}

/// The panel's section: seal the branch's unpaired calls, ask for fork
/// points on a big session, and the notes of the last file made.
#[component]
pub fn EditPanel() -> impl IntoView {
    view! {
        <h3>"Fork and seal"</h3>
        <button id="edit-points" hidden=points_known as Flag on:click=find_points as Click>
            "Find fork points and unpaired calls"
        </button>
        <p id="edit-status" hidden=points_unknown as Flag>{status as Text}</p>
        <button id="seal" hidden=nothing_to_seal as Flag on:click=seal as Click>
            "Seal and download"
        </button>
        <p id="edit-notes" hidden=nothing_saved as Flag>{notes as Text}</p>
        <p class="dim small">
            "The same bytes as retrace fork and retrace seal write (new ids and time from this tab)."
        </p>
    }
}
