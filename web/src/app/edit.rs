//! Fork and seal: a new session file made in the worker by the core's
//! `fork` and `seal` (the CLI's `retrace fork` and `retrace seal`) and
//! saved as a download, with what the core did.

use leptos::prelude::*;

use super::viewer;
use crate::client;
use crate::protocol::Request;

/// Where the branch shown can be forked (row indices: its safe fork points
/// and its last row) and its tool calls without a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    pub leaf: u32,
    pub rows: Vec<u32>,
    pub open: Vec<String>,
}

/// "fork here" on a row that is a safe fork point or the branch's end.
pub fn fork_button(index: usize) -> Option<impl IntoView> {
    let v = viewer();
    let leaf = v
        .edit
        .with(|e| e.as_ref().filter(|p| p.rows.contains(&(index as u32))).map(|p| p.leaf))?;
    Some(view! {
        <button
            class="fork-here"
            title="Download a new session: this branch up to here (retrace fork)"
            on:click=move |_| client::send(&Request::Fork { leaf, row: index as u32 }, &[])
        >
            "fork here"
        </button>
    })
}

/// The panel's section: seal the branch's unpaired calls, ask for fork
/// points on a big session, and the notes of the last file made.
#[component]
pub fn EditPanel() -> impl IntoView {
    let v = viewer();
    let actions = move || {
        let leaf = v.leaf.get()?;
        let points = v.edit.get();
        Some(match points {
            None => view! {
                <button
                    id="edit-points"
                    on:click=move |_| client::send(&Request::EditPoints { leaf }, &[])
                >
                    "Find fork points and unpaired calls"
                </button>
            }
            .into_any(),
            Some(p) if p.open.is_empty() => view! {
                <p class="dim small" id="edit-status">
                    {format!("{} fork points on this branch; no unpaired tool call.", p.rows.len())}
                </p>
            }
            .into_any(),
            Some(p) => {
                let n = p.open.len();
                view! {
                    <p id="edit-status">
                        {format!("{n} tool call{} without a result: ", if n == 1 { "" } else { "s" })}
                        {p.open.join(", ")}
                    </p>
                    <button
                        id="seal"
                        on:click=move |_| client::send(&Request::Seal { leaf }, &[])
                    >
                        "Seal and download"
                    </button>
                }
                .into_any()
            }
        })
    };
    let notes = move || {
        let (name, notes) = v.edited.get()?;
        Some(view! {
            <div id="edit-notes">
                <p>{format!("Saved {name}:")}</p>
                <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </div>
        })
    };
    view! {
        <h3>"Fork and seal"</h3>
        {actions}
        {notes}
        <p class="dim small">
            "The same bytes as " <code>"retrace fork"</code> " and " <code>"retrace seal"</code>
            " write (new ids and time from this tab); made in this tab."
        </p>
    }
}
