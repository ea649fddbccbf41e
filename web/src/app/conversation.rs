//! The conversation: the rows of the branch, rendered only around what is
//! on screen (a window that grows as you scroll and drops rows far away),
//! so a branch of a million rows scrolls like a short one.

use leptos::html::Div;
use leptos::prelude::*;
use retrace_core::{Marks, RowKind};
use wasm_bindgen::JsCast;

use super::{row::RowView, viewer};
use retrace_wasm::protocol::Rows;

/// How close to an edge (in pixels) scrolling loads more rows.
const EDGE: i32 = 600;

#[component]
pub fn Conversation() -> impl IntoView {
    let v = viewer();
    let scroller = NodeRef::<Div>::new();
    let on_scroll = move |_| {
        let Some(el) = scroller.get() else { return };
        let (top, height, client) = (el.scroll_top(), el.scroll_height(), el.client_height());
        let w = v.window.get_untracked();
        let shown = v.position.get_untracked();
        if top + client > height - EDGE && w.end < shown {
            v.window.set(w.grow_down(shown));
            v.request_bodies();
        } else if top < EDGE && w.start > 0 {
            v.window.set(w.grow_up());
            v.request_bodies();
        }
    };
    // A jump to a row folded into a call's block (a result shown there)
    // focuses the call's row instead, once the body says so.
    Effect::new(move |_| {
        let Some(row) = v.focus.get() else { return };
        let into = v.bodies.with(|b| {
            b.get(&row)
                .and_then(|b| b.pairing.as_ref())
                .and_then(|p| p.folded_into)
        });
        if let Some(into) = into {
            v.focus.set(Some(into));
        }
    });
    // Bring the focused row into view when it changes, once the bodies
    // from the window's start to it have come: scrolled earlier, it would
    // be pushed below the fold as they arrive and grow. A playing replay
    // follows at once (its rows come one at a time at the end).
    // Each landing once (the leaf, the row, the jump): rows loaded later
    // (scrolling up) do not pull the view back to the focused row.
    let landed = StoredValue::new(None);
    Effect::new(move |_| {
        let Some(row) = v.focus.get() else { return };
        let key = (v.leaf.get(), row, v.jumps.get());
        let w = v.window.get();
        let ready = v.playing.get_untracked()
            || v.bodies
                .with(|b| (w.start..=row.min(w.end.saturating_sub(1))).all(|i| b.contains_key(&i)));
        if !ready || landed.get_value() == Some(key) {
            return;
        }
        landed.set_value(Some(key));
        let row = key.1;
        let playing = v.playing.get_untracked();
        request_animation_frame(move || {
            let Some(el) = scroller.get_untracked() else {
                return;
            };
            let selector = format!("[data-row=\"{row}\"]");
            if let Ok(Some(target)) = el.query_selector(&selector) {
                let Ok(target) = target.dyn_into::<web_sys::HtmlElement>() else {
                    return;
                };
                // A row taller than the pane shows its head.
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(if playing {
                    web_sys::ScrollLogicalPosition::End
                } else if target.offset_height() > el.client_height() {
                    web_sys::ScrollLogicalPosition::Start
                } else {
                    web_sys::ScrollLogicalPosition::Center
                });
                {
                    target.scroll_into_view_with_scroll_into_view_options(&options);
                }
            }
        });
    });
    let visible = move || {
        let w = v.window.get();
        let shown = v.position.get();
        let show_events = v.show_events.get();
        let leaf = v.leaf.get().unwrap_or(0);
        v.rows.with(|rows| {
            (w.start..w.end.min(shown).min(rows.len()))
                .filter(|&i| {
                    show_events
                        || rows.kind(i) == RowKind::Message
                        || rows.marks(i).has(Marks::COMPACTION)
                })
                .map(|i| (leaf, i))
                .collect::<Vec<_>>()
        })
    };
    let above = move || {
        let w = v.window.get();
        (w.start > 0).then(|| {
            view! {
                <button class="more" on:click=move |_| {
                    v.window.update(|w| *w = w.grow_up());
                    v.request_bodies();
                }>{format!("↑ {} earlier rows", w.start)}</button>
            }
        })
    };
    let below = move || {
        let w = v.window.get();
        let shown = v.position.get();
        let hidden = v.rows.with(Rows::len).saturating_sub(shown);
        view! {
            {(w.end < shown).then(|| view! {
                <button class="more" on:click=move |_| {
                    v.window.update(|w| *w = w.grow_down(v.position.get_untracked()));
                    v.request_bodies();
                }>{format!("↓ {} later rows", shown.saturating_sub(w.end))}</button>
            })}
            {(hidden > 0).then(|| view! {
                <div class="replay-hidden">{format!("{hidden} rows not yet replayed")}</div>
            })}
        }
    };
    view! {
        <div class="conversation" id="conversation" tabindex="-1" aria-label="Conversation" role="region" node_ref=scroller on:scroll=on_scroll>
            <div class="panel-head">
                <h2>"Conversation"</h2>
                <label class="toggle" title="Hook, progress and settings lines">
                    <input
                        type="checkbox"
                        prop:checked=move || v.show_events.get()
                        on:change=move |ev| {
                            v.show_events.set(event_target_checked(&ev));
                            // The search looks in what the conversation shows.
                            super::search::rerun(v);
                        }
                    />
                    "show events"
                </label>
            </div>
            {above}
            <For each=visible key=|k| *k let:key>
                <RowView index=key.1/>
            </For>
            {below}
            <Show when=move || v.rows.with(Rows::is_empty) && v.leaf.get().is_some()>
                <div class="empty">"Loading the branch…"</div>
            </Show>
        </div>
    }
}
