//! The breadcrumb above the conversation: the segments of the branch
//! shown, root first (a long path shortened in the middle), each a jump to
//! where that segment starts.

use leptos::prelude::*;

use super::{history, viewer};
use crate::invisible::{attr_text, name_html};
use crate::markdown::escape;
use crate::state::{crumbs, path_segments};

/// Segments a breadcrumb shows before it shortens the path.
const CRUMBS: usize = 5;
/// Characters of a segment's label in the breadcrumb.
const LABEL_CHARS: usize = 40;

/// A segment's label: its preview, else how long it is.
pub fn segment_label(v: super::Viewer, index: usize) -> String {
    v.summary.with(|s| {
        let Some(seg) = s.as_ref().and_then(|s| s.outline.get(index)) else {
            return String::new();
        };
        let preview = seg
            .preview
            .clone()
            .or_else(|| v.previews.with(|p| p.get(&(index as u32)).cloned()));
        match preview {
            Some(p) => p.label(),
            None => format!("{} entries", seg.len),
        }
    })
}

#[component]
pub fn Crumbs() -> impl IntoView {
    let v = viewer();
    // Plain HTML with one handler for the list (a view per crumb cost the
    // bundle kilobytes); each button carries the entry it jumps to.
    let html = move || {
        let leaf = v.leaf.get()?;
        let path = v
            .summary
            .with(|s| s.as_ref().map(|s| path_segments(&s.outline, leaf)))?;
        // One segment is the whole session: nothing to say.
        if path.len() < 2 {
            return None;
        }
        let (shown, left_out) = crumbs(&path, CRUMBS);
        let mut out = String::new();
        for (i, &seg) in shown.iter().enumerate() {
            if i == 1 && left_out > 0 {
                out.push_str(&format!("<li class=\"dim\">… {left_out} more</li>"));
            }
            let label = segment_label(v, seg);
            let short: String = label.chars().take(LABEL_CHARS).collect();
            let first = v.summary.with_untracked(|s| {
                s.as_ref()
                    .and_then(|s| s.outline.get(seg))
                    .map_or(0, |g| g.first)
            });
            let current = if i + 1 == shown.len() {
                " aria-current=\"step\""
            } else {
                ""
            };
            out.push_str(&format!(
                "<li><button data-entry=\"{first}\"{current} title=\""
            ));
            escape(&attr_text(&label), &mut out);
            out.push_str("\">");
            out.push_str(&name_html(&short));
            out.push_str("</button></li>");
        }
        Some(out)
    };
    view! {
        <nav class="crumbs-nav" aria-label="Branch path" hidden=move || html().is_none()>
            <ol class="crumbs" id="crumbs" inner_html=move || html().unwrap_or_default() on:click=move |ev| {
                let entry = ev
                    .target()
                    .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                    // The click lands on the label's <bdi> or a mark in it.
                    .and_then(|el| el.closest("[data-entry]").ok().flatten())
                    .and_then(|el| el.get_attribute("data-entry"))
                    .and_then(|e| e.parse::<u32>().ok());
                if let (Some(entry), Some(leaf)) = (entry, v.leaf.get_untracked()) {
                    history::push_next();
                    v.go_to_entry(leaf, entry);
                }
            }></ol>
        </nav>
    }
}
