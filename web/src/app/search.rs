//! Search within the session as you type, filtered by role (events as the
//! conversation shows them); a result names its branch and jumps to its
//! row (switching branch when it is on another one); matches are
//! highlighted in the snippets and in the rows on screen.

use crate::invisible::{name_view, push_marked};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::{crumbs::segment_label, history, viewer, Viewer};
use crate::state::matches;
use retrace_wasm::protocol::{Request, SearchFilter};

/// Typing pauses this long before the session is searched.
const DEBOUNCE_MS: u64 = 150;

/// Asks the worker for `query`'s hits with the role filter, events as the
/// conversation shows them.
fn run(v: Viewer, query: &str) {
    if query.trim().is_empty() {
        clear(v);
        return;
    }
    let mut filter = v.filter.get_untracked();
    filter.events = v.show_events.get_untracked();
    retrace_wasm::js::client::send(
        &Request::Search {
            query: query.to_owned(),
            filter,
        },
        &[],
    );
}

#[component]
pub fn SearchBox() -> impl IntoView {
    let v = viewer();
    let query = RwSignal::new(String::new());
    let timer = StoredValue::new(None::<TimeoutHandle>);
    let cancel = move || {
        timer.update_value(|t| {
            if let Some(t) = t.take() {
                t.clear();
            }
        })
    };
    let run_now = move || {
        cancel();
        run(v, &query.get_untracked());
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
                        run_now();
                    }
                />
                {label}
            </label>
        }
    };
    view! {
        <form class="search" role="search" on:submit=move |ev| {
            ev.prevent_default();
            run_now();
        }>
            <input
                id="search"
                type="search"
                aria-label="Search this session"
                title="Search this session (/)"
                placeholder="Search this session"
                prop:value=move || query.get()
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    cancel();
                    let handle = set_timeout_with_handle(run_now, std::time::Duration::from_millis(DEBOUNCE_MS));
                    timer.set_value(handle.ok());
                }
            />
            {check("user", |f| f.user, |f, on| f.user = on)}
            {check("assistant", |f| f.assistant, |f, on| f.assistant = on)}
            {check("tools", |f| f.tool, |f, on| f.tool = on)}
        </form>
    }
}

/// `text` as HTML, escaped (invisible characters as marks), each match of `query` in a `<mark>` (a string
/// for `inner_html`: smaller than a view per piece).
fn marked(text: &str, query: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (start, end) in matches(text, query) {
        push_marked(&text[at..start], &mut out);
        out.push_str("<mark>");
        push_marked(&text[start..end], &mut out);
        out.push_str("</mark>");
        at = end;
    }
    push_marked(&text[at..], &mut out);
    out
}

#[component]
pub fn Results() -> impl IntoView {
    let v = viewer();
    move || {
        let (query, hits, truncated) = v.hits.get()?;
        let count = super::frame::count_text(&query, hits.len(), truncated);
        let branches = v
            .summary
            .with_untracked(|s| s.as_ref().map_or(0, |s| s.tips.len()));
        let items = hits
            .into_iter()
            .map(|h| {
                let (leaf, entry) = (h.leaf.0, h.entry.0);
                let branch = if branches < 2 {
                    String::new()
                } else {
                    let here = v.rows.with_untracked(|r| r.row_of(entry).is_some());
                    let name = if here {
                        "this branch".to_owned()
                    } else {
                        let seg = v.summary.with_untracked(|s| {
                            s.as_ref()
                                .and_then(|s| s.outline.iter().position(|g| g.last == leaf))
                        });
                        seg.map(|i| segment_label(v, i))
                            .unwrap_or_else(|| "another branch".to_owned())
                    };
                    format!("on {name}")
                };
                let q = query.clone();
                view! {
                    <li>
                        <button class="hit" on:click=move |_| {
                            history::push_next();
                            v.go_to_entry(leaf, entry);
                        }>
                            <span class=format!("who role-{}", h.role)>{name_view(h.role.clone())}</span>
                            <span class="where">{format!("line {}", h.line)}</span>
                            <span class="snippet" inner_html=super::sensitive::chips_html(marked(&h.snippet, &q))></span>
                            <span class="branch">{name_view(branch)}</span>
                        </button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <section class="results" id="results" aria-label="Search results">
                <div class="panel-head">
                    <span>{count}</span>
                    <button class="close" on:click=move |_| clear(v)>"close"</button>
                </div>
                <ul>{items}</ul>
            </section>
        })
    }
}

/// Closes the results and their highlights.
pub fn clear(v: Viewer) {
    v.hits.set(None);
    highlight_later(v);
}

/// Searches again for the query shown (the events filter changed).
pub fn rerun(v: Viewer) {
    if let Some(query) = v.hits.with_untracked(|h| h.as_ref().map(|h| h.0.clone())) {
        run(v, &query);
    }
}

/// Highlights the matches of the search shown in the rows on screen, once
/// they are drawn: the rows' DOM, which leptos owns, is left alone (CSS
/// Custom Highlights).
pub fn highlight_later(v: Viewer) {
    let query = v.hits.with_untracked(|h| h.as_ref().map(|h| h.0.clone()));
    request_animation_frame(move || highlight(query.as_deref()));
}

/// Sets the `search` highlight to the matches of `query` in the rows'
/// text (cleared for none); a browser without the API is left as it is.
fn highlight(query: Option<&str>) {
    let Some(registry) = js_sys::Reflect::get(&js_sys::global(), &"CSS".into())
        .and_then(|css| js_sys::Reflect::get(&css, &"highlights".into()))
        .ok()
        .filter(|r| !r.is_undefined())
    else {
        return;
    };
    let call = |name: &str, args: &js_sys::Array| {
        if let Ok(f) = js_sys::Reflect::get(&registry, &name.into()) {
            if let Ok(f) = f.dyn_into::<js_sys::Function>() {
                let _ = f.apply(&registry, args);
            }
        }
    };
    let ranges = js_sys::Array::new();
    let doc = document();
    if let (Some(query), Ok(Some(pane))) = (query, doc.query_selector("#conversation")) {
        // Text nodes under the rows (SHOW_TEXT).
        if let Ok(walker) = doc.create_tree_walker_with_what_to_show(&pane, 4) {
            while let Ok(Some(node)) = walker.next_node() {
                let text = node.text_content().unwrap_or_default();
                for (start, end) in matches(&text, query) {
                    let Ok(range) = doc.create_range() else {
                        continue;
                    };
                    // DOM offsets count UTF-16 units.
                    let units = |b: usize| text[..b].encode_utf16().count() as u32;
                    if range.set_start(&node, units(start)).is_ok()
                        && range.set_end(&node, units(end)).is_ok()
                    {
                        ranges.push(&range);
                    }
                }
            }
        }
    }
    if ranges.length() == 0 {
        call("delete", &js_sys::Array::of1(&"search".into()));
        return;
    }
    let Ok(constructor) = js_sys::Reflect::get(&js_sys::global(), &"Highlight".into()) else {
        return;
    };
    let Ok(constructor) = constructor.dyn_into::<js_sys::Function>() else {
        return;
    };
    if let Ok(h) = js_sys::Reflect::construct(&constructor, &ranges) {
        call("set", &js_sys::Array::of2(&JsValue::from_str("search"), &h));
    }
}
