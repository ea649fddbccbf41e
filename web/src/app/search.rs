//! Search within the session, filtered by role; a result jumps to its row
//! (switching branch when it is on another one).

use leptos::prelude::*;

use super::viewer;
use crate::protocol::{Request, SearchFilter};

#[component]
pub fn SearchBox() -> impl IntoView {
    let v = viewer();
    let query = RwSignal::new(String::new());
    let run = move || {
        let q = query.get_untracked();
        if q.trim().is_empty() {
            v.hits.set(None);
            return;
        }
        crate::client::send(
            &Request::Search {
                query: q,
                filter: v.filter.get_untracked(),
            },
            &[],
        );
    };
    let check = move |label: &'static str,
                      get: fn(&SearchFilter) -> bool,
                      set: fn(&mut SearchFilter, bool)| {
        view! {
            <label class="toggle">
                <input
                    type="checkbox"
                    prop:checked=move || get(&v.filter.get())
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        v.filter.update(|f| set(f, on));
                        run();
                    }
                />
                {label}
            </label>
        }
    };
    view! {
        <form class="search" on:submit=move |ev| {
            ev.prevent_default();
            run();
        }>
            <input
                id="search"
                type="search"
                placeholder="Search this session"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
            />
            {check("user", |f| f.user, |f, on| f.user = on)}
            {check("assistant", |f| f.assistant, |f, on| f.assistant = on)}
            {check("tools", |f| f.tool, |f, on| f.tool = on)}
            {check("events", |f| f.events, |f, on| f.events = on)}
        </form>
    }
}

#[component]
pub fn Results() -> impl IntoView {
    let v = viewer();
    move || {
        let (query, hits, truncated) = v.hits.get()?;
        let count = if truncated {
            format!("first {} matches for “{query}”", hits.len())
        } else {
            format!("{} matches for “{query}”", hits.len())
        };
        let items = hits
            .into_iter()
            .map(|h| {
                let (leaf, entry) = (h.leaf.0, h.entry.0);
                view! {
                    <li>
                        <button class="hit" on:click=move |_| v.go_to_entry(leaf, entry)>
                            <span class=format!("who role-{}", h.role)>{h.role.clone()}</span>
                            <span class="where">{format!("line {}", h.line)}</span>
                            <span class="snippet">{h.snippet}</span>
                        </button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <section class="results" id="results">
                <div class="panel-head">
                    <span>{count}</span>
                    <button class="close" on:click=move |_| v.hits.set(None)>"close"</button>
                </div>
                <ul>{items}</ul>
            </section>
        })
    }
}
