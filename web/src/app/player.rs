//! The replay bar: step, play at a speed, scrub a timeline with markers for
//! prompts, errors, compactions, branch points, subagents, git checkpoints
//! and bookmarks.

use leptos::prelude::*;
use retrace_core::{Marks, ReplayOptions, Speed};

use super::{viewer, REPLAY};
use crate::state::{duration, fixed, seconds};
use retrace_wasm::protocol::Rows;

#[component]
pub fn Player() -> impl IntoView {
    let v = viewer();
    let len = move || v.rows.with(Rows::len);
    // The 1x timeline of the branch (idle gaps cut), for the scrubber.
    let timeline = Memo::new(move |_| {
        v.rows.track();
        v.options.track();
        REPLAY.with(|r| {
            let r = r.borrow();
            (
                r.timeline(),
                r.steps().iter().map(|s| s.marks).collect::<Vec<Marks>>(),
            )
        })
    });
    let total = move || timeline.with(|(t, _)| t.last().copied().unwrap_or(0).max(1));
    let at = move || {
        let p = v.position.get();
        timeline.with(|(t, _)| {
            if p == 0 {
                0
            } else {
                t.get(p - 1).copied().unwrap_or(0)
            }
        })
    };
    let markers = move || {
        let total = total() as f64;
        timeline.with(|(t, marks)| {
            marker_buckets(t, marks, total)
                .into_iter()
                .map(|(left, kind, row, n)| {
                    let title = if n > 1 {
                        format!("{n} marks from row {}", row + 1)
                    } else {
                        format!("{kind} · row {}", row + 1)
                    };
                    view! {
                        <button
                            class=format!("marker {kind}")
                            style=format!("left: {}%", fixed(left, 3))
                            title=title
                            on:click=move |_| v.focus_row(row)
                        ></button>
                    }
                })
                .collect_view()
        })
    };
    let set_options = move |f: &dyn Fn(&mut ReplayOptions)| {
        let mut o = v.options.get_untracked();
        f(&mut o);
        v.options.set(o);
        v.replay(|r, now| r.set_options(o, now));
    };
    view! {
        <div class="player" id="player" role="toolbar" aria-label="Replay">
            <button title="Start (rows hidden)" aria-label="Start (rows hidden)" on:click=move |_| v.seek(0)>"⇤"</button>
            <button id="step-back" title="Step back (←)" aria-label="Step back" on:click=move |_| v.replay(|r, _| r.step_back())>"◀"</button>
            <button
                id="play"
                class="play"
                title="Play / pause (space)"
                on:click=move |_| v.replay(|r, now| r.toggle(now))
            >
                {move || if v.playing.get() { "❚❚ pause" } else { "▶ play" }}
            </button>
            <button id="step-forward" title="Step forward (→)" aria-label="Step forward" on:click=move |_| v.replay(|r, _| r.step_forward())>"▶"</button>
            <button title="End (all rows)" aria-label="End (all rows)" on:click=move |_| v.seek(len())>"⇥"</button>
            <select
                id="speed"
                title="Speed"
                aria-label="Speed"
                on:change=move |ev| {
                    if let Some(speed) = Speed::from_label(&event_target_value(&ev)) {
                        set_options(&|o| o.speed = speed);
                    }
                }
            >
                {Speed::ALL
                    .into_iter()
                    .map(|s| view! { <option value=s.label() selected=move || v.options.get().speed == s>{s.label()}</option> })
                    .collect_view()}
            </select>
            <label class="toggle" title="Stop when a row with an error is shown">
                <input
                    id="pause-on-error"
                    type="checkbox"
                    prop:checked=move || v.options.get().pause_on_error
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        set_options(&|o| o.pause_on_error = on);
                    }
                />
                "pause on error"
            </label>
            <label class="toggle" title="Longest pause between rows at 1x">
                "gaps ≤"
                <input
                    id="max-gap"
                    type="number"
                    min="0"
                    step="0.5"
                    prop:value=move || seconds(v.options.get().max_gap_ms)
                    on:change=move |ev| {
                        // The browser parses the number: Rust's float
                        // parser was 4 KB of the page for this one field.
                        let s = event_target::<web_sys::HtmlInputElement>(&ev).value_as_number();
                        if s.is_finite() {
                            let ms = (s.max(0.0) * 1000.0) as u64;
                            set_options(&|o| o.max_gap_ms = ms);
                        }
                    }
                />
                "s"
            </label>
            <div class="scrubber">
                <div class="track">
                    <div class="played" style=move || format!("width: {}%", fixed(at() as f64 * 100.0 / total() as f64, 3))></div>
                    {markers}
                </div>
                <input
                    id="scrub"
                    type="range"
                    aria-label="Replay position (rows shown)"
                    min="0"
                    prop:max=move || len().to_string()
                    prop:value=move || v.position.get().to_string()
                    on:input=move |ev| {
                        if let Ok(p) = event_target_value(&ev).parse::<usize>() {
                            v.seek(p);
                        }
                    }
                />
            </div>
            <span class="position" id="position">
                {move || format!("{} / {}", v.position.get(), len())}
            </span>
            <span class="clock">{move || format!("{} / {}", duration(at() as i64), duration(total() as i64))}</span>
        </div>
    }
}

/// Markers on the scrubber, at most one per [`BUCKETS`]th of its width: a
/// long branch has thousands of prompts, and a marker each would stall the
/// page. Each bucket shows its most important mark and jumps to its first
/// marked row. Returns (left %, kind, first row, marks in the bucket).
fn marker_buckets(
    timeline: &[u64],
    marks: &[Marks],
    total: f64,
) -> Vec<(f64, &'static str, usize, usize)> {
    const BUCKETS: usize = 400;
    // Most important first; a bookmark is a place someone chose to find
    // again.
    const KINDS: [(u8, &str); 7] = [
        (Marks::ERROR, "error"),
        (Marks::BOOKMARK, "bookmark"),
        (Marks::COMPACTION, "compaction"),
        (Marks::BRANCH_POINT, "fork"),
        (Marks::SUBAGENT, "subagent"),
        (Marks::CHECKPOINT, "checkpoint"),
        (Marks::PROMPT, "prompt"),
    ];
    let mut buckets: Vec<Option<(usize, usize, usize)>> = vec![None; BUCKETS];
    for (i, m) in marks.iter().enumerate() {
        let Some(rank) = KINDS.iter().position(|(bit, _)| m.has(*bit)) else {
            continue;
        };
        let b = ((timeline[i] as f64 / total) * (BUCKETS - 1) as f64) as usize;
        let slot = &mut buckets[b.min(BUCKETS - 1)];
        *slot = Some(match *slot {
            None => (rank, i, 1),
            Some((r, first, n)) => (r.min(rank), first, n + 1),
        });
    }
    buckets
        .into_iter()
        .filter_map(|b| {
            let (rank, row, n) = b?;
            let left = timeline[row] as f64 * 100.0 / total;
            Some((left, KINDS[rank].1, row, n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_bucketed_with_the_most_important_kind() {
        let timeline: Vec<u64> = (0..10_000).collect();
        let mut marks = vec![Marks(Marks::PROMPT); 10_000];
        marks[5].0 |= Marks::ERROR;
        let buckets = marker_buckets(&timeline, &marks, 10_000.0);
        assert!(buckets.len() <= 400);
        assert_eq!(buckets[0].1, "error");
        assert_eq!(buckets[0].2, 0, "jumps to the bucket's first row");
        assert!(buckets[1..].iter().all(|b| b.1 == "prompt"));
        assert_eq!(buckets.iter().map(|b| b.3).sum::<usize>(), 10_000);
    }

    /// A checkpoint has a marker of its own, above a prompt in its bucket;
    /// a bookmark, above a branch point.
    #[test]
    fn checkpoints_and_bookmarks_are_marked() {
        let timeline: Vec<u64> = (0..5).map(|i| i * 1_000).collect();
        let marks = [
            Marks(Marks::PROMPT),
            Marks(Marks::CHECKPOINT),
            Marks(Marks::CHECKPOINT | Marks::PROMPT),
            Marks(Marks::BOOKMARK | Marks::BRANCH_POINT),
            Marks(0),
        ];
        let buckets = marker_buckets(&timeline, &marks, 5_000.0);
        let kinds: Vec<(&str, usize)> = buckets.iter().map(|b| (b.1, b.2)).collect();
        assert_eq!(
            kinds,
            [
                ("prompt", 0),
                ("checkpoint", 1),
                ("checkpoint", 2),
                ("bookmark", 3)
            ]
        );
    }
}
