//! The branch tree: one item per segment (a run without real forks), real
//! rewinds as nested branches, the current path highlighted.

use crate::invisible::{attr_text, name_view};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::viewer;
use crate::state::{live_segments, path_segments};
use retrace_wasm::protocol::SegmentInfo;

/// Segment previews asked for per request.
const PREVIEW_BATCH: usize = 40;

/// Tree segments drawn before "show more".
const SEGMENTS_SHOWN: usize = 200;

#[component]
pub fn TreePanel() -> impl IntoView {
    let v = viewer();
    let show_all = RwSignal::new(false);
    // Segments drawn without a preview (the summary carries only the first
    // ones): asked for once the conversation has its first bodies, so the
    // worker reads those first.
    let missing = StoredValue::new(Vec::<u32>::new());
    let painted = Memo::new(move |_| v.bodies.with(|b| !b.is_empty()));
    Effect::new(move |_| {
        if !painted.get() {
            return;
        }
        // In batches, so bodies asked for meanwhile are not held up.
        for batch in missing.get_value().chunks(PREVIEW_BATCH) {
            retrace_wasm::js::client::send(
                &retrace_wasm::protocol::Request::Previews {
                    segments: batch.to_vec(),
                },
                &[],
            );
        }
        missing.set_value(Vec::new());
    });
    let items = move || {
        let summary = v.summary.get()?;
        let leaf = v.leaf.get()?;
        let on_path = path_segments(&summary.outline, leaf);
        let live = live_segments(&summary.outline, leaf, summary.default_leaf);
        let hide = v.hide_abandoned.get();
        let files = summary.files.clone();
        let subagents = summary.subagents.clone();
        let mut last_file = None;
        let mut out = Vec::new();
        let all = show_all.get();
        let mut hidden = 0;
        let mut shown_without_preview = Vec::new();
        for (i, seg) in summary.outline.iter().enumerate() {
            if hide && !live[i] {
                continue;
            }
            // Thousands of branches would stall the page and help nobody:
            // the first ones and the live ones, unless asked for all.
            if !all && i >= SEGMENTS_SHOWN && !live[i] {
                hidden += 1;
                continue;
            }
            if seg.parent.is_none() && files.len() > 1 && last_file != Some(seg.file) {
                last_file = Some(seg.file);
                let name = files
                    .get(seg.file as usize)
                    .map(|f| f.name.rsplit('/').next().unwrap_or(&f.name).to_owned())
                    .unwrap_or_default();
                let agent = subagents.iter().find(|a| a.file == seg.file);
                let title = match agent {
                    Some(a) => format!(
                        "subagent {}{}",
                        a.agent_id,
                        a.description
                            .as_ref()
                            .map(|d| format!(" — {d}"))
                            .unwrap_or_default()
                    ),
                    None => name.clone(),
                };
                out.push(view! { <li class="file-header" title=attr_text(&name)>{name_view(title)}</li> }.into_any());
            }
            if seg.preview.is_none() {
                shown_without_preview.push(i as u32);
            }
            // Roving tabindex: the branch shown is the tree's one Tab stop.
            let stop = on_path.last() == Some(&i);
            out.push(
                segment_item(i as u32, seg, on_path.contains(&i), seg.last == leaf, stop)
                    .into_any(),
            );
        }
        if !shown_without_preview.is_empty() {
            missing.set_value(shown_without_preview);
        }
        if hidden > 0 {
            out.push(
                view! {
                    <li class="more-segments">
                        <button class="more" on:click=move |_| show_all.set(true)>
                            {format!("show {hidden} more branches")}
                        </button>
                    </li>
                }
                .into_any(),
            );
        }
        Some(out)
    };
    view! {
        <nav class="tree" id="tree" aria-label="Branches">
            <div class="panel-head">
                <h2>"Branches"</h2>
                {super::frame::close_button(super::frame::Drawer::Tree)}
                <label class="toggle" title="Hide branches that were rewound away from">
                    <input
                        type="checkbox"
                        prop:checked=move || v.hide_abandoned.get()
                        on:change=move |ev| v.hide_abandoned.set(event_target_checked(&ev))
                    />
                    "hide abandoned"
                </label>
                // Read when a branch is picked (`compare.rs`).
                <label class="toggle" title="Pick a branch to compare it with the one shown (or press c on it)">
                    <input type="checkbox" id="cmp-mode"/>
                    "compare"
                </label>
            </div>
            <ul class="segments" on:keydown=move |ev| on_tree_key(v, ev)>{items}</ul>
        </nav>
    }
}

fn segment_item(
    index: u32,
    seg: &SegmentInfo,
    on_path: bool,
    current: bool,
    tab_stop: bool,
) -> impl IntoView {
    let v = viewer();
    let tip = seg.tip;
    // A preview that arrives later fills in without redrawing the tree.
    let fallback = format!("{} entries", seg.len);
    let title = preview_title(seg);
    let preview = {
        let given = seg.preview.clone();
        move || {
            let preview = given
                .clone()
                .or_else(|| v.previews.with(|p| p.get(&index).cloned()));
            match preview {
                Some(p) if p.prompt => name_view(p.text),
                // Not a prompt (a branch that starts with the model's
                // answer): who said it, then what.
                Some(p) => view! {
                    <span class="dim">{format!("{}: ", p.role.as_str())}</span>
                    {name_view(p.text)}
                }
                .into_any(),
                None => fallback.clone().into_any(),
            }
        }
    };
    let mut meta = format!("{} entries", seg.len + seg.side);
    if seg.compactions > 0 {
        meta.push_str(&format!(" · {} compaction", seg.compactions));
    }
    if !seg.children.is_empty() {
        meta.push_str(&format!(" · ⋔ {}", seg.children.len()));
    }
    if seg.has_default {
        meta.push_str(" · latest");
    }
    // Deep trees keep their labels: the indent stops growing and the depth
    // is written instead.
    let (indent, deep) = crate::state::indent(seg.depth);
    let style = format!("padding-left: {}em", crate::state::decimal(indent, 1));
    let class = format!(
        "segment{}{}{}",
        if on_path { " on-path" } else { "" },
        if current { " current" } else { "" },
        if seg.sidechain { " sidechain" } else { "" }
    );
    view! {
        <li class=class style=style data-leaf=tip.to_string()>
            <button
                class="segment-button"
                data-depth=seg.depth.to_string()
                tabindex=if tab_stop { "0" } else { "-1" }
                aria-current=current.then_some("true")
                on:click=move |ev| pick(v, tip, &ev)
                title=attr_text(&title)
            >
                <span class="glyph" aria-hidden="true">{if seg.children.is_empty() { "●" } else { "⋔" }}</span>
                <span class="preview" data-deep=deep.map(|d| format!("↳{d}"))>{preview}</span>
                <span class="meta">{meta}</span>
            </button>
        </li>
    }
}

fn preview_title(seg: &SegmentInfo) -> String {
    seg.preview
        .as_ref()
        .map(retrace_core::Preview::label)
        .unwrap_or_else(|| format!("{} entries", seg.len))
}

/// Opens a branch from the tree: a history entry; the drawer (if the tree
/// is one) closes; focus, when it was in the tree, follows the branch
/// through the tree's redraw.
fn pick(v: super::Viewer, tip: u32, ev: &leptos::ev::MouseEvent) {
    if super::compare::picking() {
        super::frame::close_drawer(v);
        super::compare::open_tip(v, tip);
        return;
    }
    let from_keyboard = ev.detail() == 0;
    super::history::push_next();
    v.select_leaf(tip);
    if super::frame::close_drawer(v) {
        return;
    }
    if from_keyboard {
        request_animation_frame(|| {
            if let Ok(Some(el)) = document().query_selector(".segment.current .segment-button") {
                if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
        });
    }
}

/// Arrow keys in the tree: ↑/↓ the previous or next branch, Home/End the
/// first or last, ← the parent (the nearest shallower one above), → the
/// first child; the focused branch becomes the tree's Tab stop. `c`
/// compares the focused branch with the one shown.
fn on_tree_key(v: super::Viewer, ev: leptos::ev::KeyboardEvent) {
    let Some(list) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Ok(nodes) = list.query_selector_all(".segment-button") else {
        return;
    };
    let buttons: Vec<web_sys::HtmlElement> = (0..nodes.length())
        .filter_map(|i| nodes.get(i)?.dyn_into().ok())
        .collect();
    let active = document().active_element();
    let Some(at) = buttons
        .iter()
        .position(|b| active.as_ref() == Some(b.unchecked_ref::<web_sys::Element>()))
    else {
        return;
    };
    let depth = |i: usize| {
        buttons[i]
            .get_attribute("data-depth")
            .and_then(|d| d.parse::<u32>().ok())
            .unwrap_or(0)
    };
    let target = match ev.key().as_str() {
        "c" if !ev.ctrl_key() && !ev.meta_key() => {
            let tip = buttons[at]
                .parent_element()
                .and_then(|li| li.get_attribute("data-leaf"));
            if let Some(tip) = tip.and_then(|t| t.parse().ok()) {
                super::compare::open_tip(v, tip);
            }
            None
        }
        "ArrowDown" => (at + 1 < buttons.len()).then_some(at + 1),
        "ArrowUp" => at.checked_sub(1),
        "Home" => Some(0),
        "End" => buttons.len().checked_sub(1),
        "ArrowLeft" => (0..at).rev().find(|&i| depth(i) < depth(at)),
        "ArrowRight" => (at + 1 < buttons.len() && depth(at + 1) > depth(at)).then_some(at + 1),
        _ => return,
    };
    // Handled even at an edge: the page's own arrow keys (replay steps)
    // must not act while the tree has focus.
    ev.prevent_default();
    if let Some(t) = target {
        buttons[at].set_tab_index(-1);
        buttons[t].set_tab_index(0);
        let _ = buttons[t].focus();
    }
}
