//! The branch tree: one item per segment (a run without real forks), real
//! rewinds as nested branches, the current path highlighted.

use leptos::prelude::*;

use super::viewer;
use crate::protocol::SegmentInfo;
use crate::state::{live_segments, path_segments};

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
            crate::client::send(
                &crate::protocol::Request::Previews {
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
                out.push(view! { <li class="file-header" title=name>{title}</li> }.into_any());
            }
            if seg.preview.is_none() {
                shown_without_preview.push(i as u32);
            }
            out.push(
                segment_item(i as u32, seg, on_path.contains(&i), seg.last == leaf).into_any(),
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
        <nav class="tree" aria-label="Branches">
            <div class="panel-head">
                <span>"Branches"</span>
                <label class="toggle" title="Hide branches that were rewound away from">
                    <input
                        type="checkbox"
                        prop:checked=move || v.hide_abandoned.get()
                        on:change=move |ev| v.hide_abandoned.set(event_target_checked(&ev))
                    />
                    "hide abandoned"
                </label>
            </div>
            <ul class="segments">{items}</ul>
        </nav>
    }
}

fn segment_item(index: u32, seg: &SegmentInfo, on_path: bool, current: bool) -> impl IntoView {
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
                Some(p) if p.prompt => p.text.into_any(),
                // Not a prompt (a branch that starts with the model's
                // answer): who said it, then what.
                Some(p) => view! {
                    <span class="dim">{format!("{}: ", p.role.as_str())}</span>
                    {p.text}
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
    let style = format!(
        "padding-left: {}em",
        crate::state::decimal(4 + 9 * u64::from(seg.depth), 1)
    );
    let class = format!(
        "segment{}{}{}",
        if on_path { " on-path" } else { "" },
        if current { " current" } else { "" },
        if seg.sidechain { " sidechain" } else { "" }
    );
    view! {
        <li class=class style=style data-leaf=tip.to_string()>
            <button class="segment-button" on:click=move |_| v.select_leaf(tip) title=title>
                <span class="glyph">{if seg.children.is_empty() { "●" } else { "⋔" }}</span>
                <span class="preview">{preview}</span>
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
