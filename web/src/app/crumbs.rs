//! The breadcrumb above the conversation: the segments of the branch
//! shown, root first (a long path shortened in the middle), each a jump to
//! where that segment starts.

use leptos::prelude::*;

use super::{history, viewer};
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
    move || {
        let leaf = v.leaf.get()?;
        let path = v
            .summary
            .with(|s| s.as_ref().map(|s| path_segments(&s.outline, leaf)))?;
        // One segment is the whole session: nothing to say.
        if path.len() < 2 {
            return None;
        }
        let (shown, left_out) = crumbs(&path, CRUMBS);
        let last = shown.last().copied();
        let items = shown
            .into_iter()
            .enumerate()
            .map(|(i, seg)| {
                let label = segment_label(v, seg);
                let short: String = label.chars().take(LABEL_CHARS).collect();
                let first = v.summary.with_untracked(|s| {
                    s.as_ref()
                        .and_then(|s| s.outline.get(seg))
                        .map_or(0, |g| g.first)
                });
                let gap = (i == 1 && left_out > 0).then(|| {
                    view! { <li class="dim">{format!("… {left_out} more")}</li> }
                });
                view! {
                    {gap}
                    <li>
                        <button
                            title=label
                            aria-current=(Some(seg) == last).then_some("step")
                            on:click=move |_| {
                                history::push_next();
                                v.go_to_entry(leaf, first);
                            }
                        >{short}</button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <nav class="crumbs-nav" aria-label="Branch path">
                <ol class="crumbs" id="crumbs">{items}</ol>
            </nav>
        })
    }
}
