//! What the harness wrote, shown as what it is: a slash command as a chip,
//! a `!` command and its output as a terminal block, context (the
//! environment, instructions, caveats, a framework's prompt) as a collapsed
//! row, an interruption as a line. The pieces come recognised from the core
//! (`Message::harness`); no tag is ever shown.

use crate::invisible::name_view;
use leptos::prelude::*;
use retrace_core::{Marks, Piece, UserClass};

use crate::markdown::to_html;

/// The pieces of a message, in order, in a block whose class names the
/// message's class (`harness-command`, …): the stylesheet hides a row's
/// "prompt" badge when it holds no typed prompt.
pub fn harness_view(pieces: Vec<Piece>, class: UserClass) -> impl IntoView {
    let class = format!("harness harness-{}", class.as_str().replace(' ', "-"));
    let pieces = pieces.into_iter().map(piece_view).collect_view();
    view! { <div class=class>{pieces}</div> }
}

fn piece_view(piece: Piece) -> AnyView {
    match piece {
        Piece::Prompt { text } => {
            super::row::md_view(&text, to_html(&text), "md")
        }
        Piece::Command { name, args } => view! {
            <div class="command-chip" title="slash command">
                <code class="command-name">{name_view(name)}</code>
                {(!args.is_empty()).then(|| view! { <code class="command-args">{name_view(args)}</code> })}
            </div>
        }
        .into_any(),
        Piece::ShellInput { command } => {
            view! { <pre class="terminal shell-input">{name_view(command)}</pre> }.into_any()
        }
        // Output as a tool's: its terminal colours drawn, long output cut
        // until "show all", stderr apart.
        Piece::ShellOutput { stdout, stderr } => {
            let empty = stdout.is_empty() && stderr.is_empty();
            view! {
                {(!stdout.is_empty()).then(|| super::tool::terminal(stdout, "output"))}
                {(!stderr.is_empty()).then(|| view! {
                    <div class="stderr-label">"stderr"</div>
                    {super::tool::terminal(stderr, "output stderr")}
                })}
                {empty.then(|| view! { <div class="tool-note">"(no output)"</div> })}
            }
            .into_any()
        }
        Piece::Context { label, text } => view! {
            <details class="context-row">
                <summary>{label}</summary>
                <pre class="context-text">{text}</pre>
            </details>
        }
        .into_any(),
        Piece::Interrupted { text } => {
            view! { <div class="marker-line interrupted">{text}</div> }.into_any()
        }
    }
}

/// What a row's head says it is when its entry has no role: a Gemini CLI
/// notice by its level, a checkpoint, else an event (never a bare type
/// name such as `response_item`).
pub fn who_without_role(entry_type: &str, marks: Marks) -> String {
    if marks.has(Marks::CHECKPOINT) {
        return "checkpoint".to_owned();
    }
    match entry_type {
        "info" | "error" | "warning" | "compaction" | "compacted" => entry_type.to_owned(),
        "state_transition" => "state".to_owned(),
        _ => "event".to_owned(),
    }
}

/// A badge for rows whose type says more than their role: an event
/// stream's answer.
pub fn type_badge(entry_type: &str) -> Option<&'static str> {
    (entry_type == "final_output").then_some("final output")
}
