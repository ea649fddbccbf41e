//! The replay bar: step, play at a speed, scrub a timeline with markers for
//! prompts, errors, compactions, branch points and subagents.

use leptos::prelude::*;
use retrace_core::{Marks, ReplayOptions, Speed};

use super::{viewer, REPLAY};
use crate::state::duration;

#[component]
pub fn Player() -> impl IntoView {
    let v = viewer();
    let len = move || v.rows.with(Vec::len);
    // The 1x timeline of the branch (idle gaps cut), for the scrubber.
    let timeline = Memo::new(move |_| {
        let _ = v.rows.get();
        let _ = v.errors.get();
        let _ = v.options.get();
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
            let mut out = Vec::new();
            for (i, m) in marks.iter().enumerate() {
                let kind = if m.has(Marks::ERROR) {
                    "error"
                } else if m.has(Marks::COMPACTION) {
                    "compaction"
                } else if m.has(Marks::BRANCH_POINT) {
                    "fork"
                } else if m.has(Marks::SUBAGENT) {
                    "subagent"
                } else if m.has(Marks::PROMPT) {
                    "prompt"
                } else {
                    continue;
                };
                let left = t[i] as f64 * 100.0 / total;
                out.push(view! {
                    <button
                        class=format!("marker {kind}")
                        style=format!("left: {left:.3}%")
                        title=format!("{kind} · row {}", i + 1)
                        on:click=move |_| v.focus_row(i)
                    ></button>
                });
            }
            out
        })
    };
    let set_options = move |f: &dyn Fn(&mut ReplayOptions)| {
        let mut o = v.options.get_untracked();
        f(&mut o);
        v.options.set(o);
        v.replay(|r, now| r.set_options(o, now));
    };
    view! {
        <div class="player" role="toolbar" aria-label="Replay">
            <button title="Start (rows hidden)" on:click=move |_| v.seek(0)>"⇤"</button>
            <button id="step-back" title="Step back (←)" on:click=move |_| v.replay(|r, _| r.step_back())>"◀"</button>
            <button
                id="play"
                class="play"
                title="Play / pause (space)"
                on:click=move |_| v.replay(|r, now| r.toggle(now))
            >
                {move || if v.playing.get() { "❚❚ pause" } else { "▶ play" }}
            </button>
            <button id="step-forward" title="Step forward (→)" on:click=move |_| v.replay(|r, _| r.step_forward())>"▶"</button>
            <button title="End (all rows)" on:click=move |_| v.seek(len())>"⇥"</button>
            <select
                id="speed"
                title="Speed"
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
                    prop:value=move || (v.options.get().max_gap_ms as f64 / 1000.0).to_string()
                    on:change=move |ev| {
                        if let Ok(s) = event_target_value(&ev).parse::<f64>() {
                            let ms = (s.max(0.0) * 1000.0) as u64;
                            set_options(&|o| o.max_gap_ms = ms);
                        }
                    }
                />
                "s"
            </label>
            <div class="scrubber">
                <div class="track">
                    <div class="played" style=move || format!("width: {:.3}%", at() as f64 * 100.0 / total() as f64)></div>
                    {markers}
                </div>
                <input
                    id="scrub"
                    type="range"
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
