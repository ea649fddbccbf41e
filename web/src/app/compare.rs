//! Two branches side by side from their fork point, or what a compaction
//! hid beside what replaced it: the engine's `compare` answer (the core
//! lines the rows up) drawn as lines of two cells, each row as the
//! conversation draws it (`row.rs`), a gap where a side has none. Opened
//! from the tree (a branch picked with its "compare" switch on, or `c` on
//! a branch) or a compaction's "what this hid"; `#leaf=…&compare=…` (the other branch by the first
//! entry of its segment) or `#leaf=…&entry=…&hid` reopens it; Escape or
//! Back closes it.

use std::cell::RefCell;

use leptos::prelude::*;
use retrace_core::{Marks, RowKind};
use retrace_wasm::js::client;
use retrace_wasm::protocol::{Comparison, Request, RowBody, RowInfo};
use wasm_bindgen::JsCast;

use super::{history, viewer, Viewer};
use crate::state::Spot;

thread_local! {
    /// What the link says of the comparison asked for or shown: a label,
    /// and whether it is a compaction's row (`hid`) or the first entry of
    /// the other branch's segment (`compare`).
    static LINK: RefCell<Option<(String, bool)>> = const { RefCell::new(None) };
    /// The same, of a link being opened, until its branch is shown.
    static WANTED: RefCell<Option<(String, bool)>> = const { RefCell::new(None) };
}

/// Asks for the branch shown beside the one ending at `right`, or, when
/// `right` is a compaction on it, what that hid; `link` names it in the
/// URL.
pub fn open(v: Viewer, right: u32, link: (String, bool)) {
    if let Some(left) = v.leaf.get_untracked() {
        LINK.with(|l| *l.borrow_mut() = Some(link));
        client::send(&Request::Compare { left, right }, &[]);
    }
}

/// Whether the tree's "compare" switch is on: a branch picked there is
/// compared with the one shown rather than shown.
pub fn picking() -> bool {
    document()
        .get_element_by_id("cmp-mode")
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        .is_some_and(|i| i.checked())
}

/// Asks for the branch shown beside the one ending at `tip`, which the
/// link names by the first entry of the tree segment it ends.
pub fn open_tip(v: Viewer, tip: u32) {
    let first = v.summary.with_untracked(|s| {
        let seg = s.as_ref()?.outline.iter().find(|s| s.last == tip)?;
        Some(seg.first_label.clone())
    });
    if let Some(first) = first {
        open(v, tip, (first, false));
    }
}

/// A click on "what this hid" (`data-cmp`) in a compaction row's head: its
/// article names the row.
pub fn clicked(v: Viewer, el: &web_sys::Element) {
    let row = el
        .closest("article")
        .ok()
        .flatten()
        .and_then(|a| a.get_attribute("data-row")?.parse::<usize>().ok());
    let at = v.rows.with_untracked(|r| {
        let i = row?;
        Some((*r.entry.get(i)?, r.label[i].clone()))
    });
    if let Some((entry, label)) = at {
        open(v, entry, (label, true));
    }
}

/// Shows an answer (for the branch still shown) as a new history entry.
pub fn show(v: Viewer, mut c: Comparison) {
    if v.leaf.get_untracked() != Some(c.left) {
        return;
    }
    super::sensitive::note_revealed(std::mem::take(&mut c.revealed));
    v.compare.set(Some(c));
    history::push_next();
    v.write_hash();
    super::frame::focus_later("compare");
}

/// Back to the conversation.
pub fn close(v: Viewer) {
    v.compare.set(None);
    v.write_hash();
    super::frame::focus_later("conversation");
}

/// Notes what a link being opened compares, for [`resume`].
pub fn expect(spot: &Spot) {
    let link = match (&spot.compare, &spot.entry) {
        (Some(segment), _) => Some((segment.clone(), false)),
        (None, Some(entry)) if spot.hid => Some((entry.clone(), true)),
        _ => None,
    };
    WANTED.with(|w| *w.borrow_mut() = link);
}

/// Once the branch a link names is shown: asks for what it compared, the
/// compaction on the row it focuses or the branch through the segment it
/// names.
pub fn resume(v: Viewer) {
    let Some((label, hid)) = WANTED.with(|w| w.borrow_mut().take()) else {
        return;
    };
    let right = if hid {
        let row = v.focus.get_untracked();
        v.rows
            .with_untracked(|r| row.and_then(|i| r.entry.get(i).copied()))
    } else {
        v.summary.with_untracked(|s| {
            let outline = &s.as_ref()?.outline;
            outline
                .iter()
                .find(|s| s.first_label == label)
                .map(|s| s.tip)
        })
    };
    if let Some(right) = right {
        open(v, right, (label, hid));
    }
}

/// What the link says of the comparison shown.
pub fn mark(v: Viewer, spot: &mut Spot) {
    if v.compare.with_untracked(Option::is_none) {
        return;
    }
    if let Some((label, hid)) = LINK.with(|l| l.borrow().clone()) {
        if hid {
            spot.entry = Some(label);
            spot.line = None;
            spot.hid = true;
        } else {
            spot.compare = Some(label);
        }
    }
}

#[component]
pub fn CompareView() -> impl IntoView {
    let v = viewer();
    move || v.compare.get().map(|c| lines(v, c))
}

fn lines(v: Viewer, c: Comparison) -> impl IntoView {
    let (title, heads) = if c.compaction {
        (
            "What this compaction hid",
            ["Hidden from the context", "What replaced it"],
        )
    } else {
        ("Compare branches", ["Branch shown", "Other branch"])
    };
    super::frame::announce(title);
    let (left, right) = (c.left, c.right);
    let rows = c.rows;
    let mut rows = (0..rows.len()).map(|i| rows.get(i)).zip(c.bodies);
    // A side's row, and the branch it is on (a compaction's sides are
    // both the branch shown's).
    let mut take = |on_right: bool| {
        let (info, body) = rows.next().unzip();
        let leaf = if on_right && !c.compaction {
            right
        } else {
            left
        };
        cell(v, info.flatten(), body, leaf)
    };
    // Each line: its left and right cell (the last row both share is one
    // cell across both sides, where they part marked in CSS).
    let mut out = Vec::new();
    for kind in c.pairs {
        let l = if kind == 4 { gap() } else { take(false) };
        let r = if kind % 3 == 0 { gap() } else { take(true) };
        out.push(view! { <div class=format!("cmp-line k{kind}")>{l}{r}</div> });
    }
    let more = (c.more_left + c.more_right > 0).then(|| {
        format!(
            "{} more rows on the left and {} on the right, not compared: open each branch to read them.",
            c.more_left, c.more_right
        )
    });
    view! {
        <section class=if c.compaction { "compare compacted" } else { "compare" } id="compare" tabindex="-1" role="region" aria-label=title>
            <div class="panel-head">
                <h2>{title}</h2>
                <button class="close" on:click=move |_| close(v)>"close"</button>
            </div>
            <div class="cmp-line cmp-heads"><h3>{heads[0]}</h3><h3>{heads[1]}</h3></div>
            {out}
            <p class="dim">{more}</p>
        </section>
    }
}

/// Where a side has no row.
fn gap() -> AnyView {
    view! { <div class="gap"></div> }.into_any()
}

/// One side of a line: the row as the conversation draws it; its place
/// opens it in its branch. An event row is `ev` (hidden when the
/// conversation hides events), unless it marks a compaction.
fn cell(v: Viewer, info: Option<RowInfo>, body: Option<RowBody>, leaf: u32) -> AnyView {
    let (Some(info), Some(body)) = (info, body) else {
        return gap();
    };
    let entry = info.entry;
    // Images are asked for by the row's place on the branch shown.
    let index = (v.leaf.get_untracked() == Some(leaf))
        .then(|| v.rows.with_untracked(|r| r.row_of(entry)))
        .flatten()
        .unwrap_or(usize::MAX);
    let folded = body
        .pairing
        .as_ref()
        .is_some_and(|p| p.folded_into.is_some());
    let ev = info.kind == RowKind::Event && !info.marks.has(Marks::COMPACTION);
    let class = format!(
        "row {}{}{}",
        super::row::row_class(&info),
        if folded { " folded" } else { "" },
        if ev { " ev" } else { "" }
    );
    view! {
        <article class=class data-entry=info.label.clone()>
            <header class="row-head">
                <h3 class="who">{super::row::who(&info)}</h3>
                <span class="spacer"></span>
                <button class="where" title="Show it in its branch" on:click=move |_| {
                    v.compare.set(None);
                    history::push_next();
                    v.go_to_entry(leaf, entry);
                }>{super::row::place(&info)}</button>
            </header>
            {super::row::body_view(index, body)}
        </article>
    }
    .into_any()
}
