//! One row of the conversation: a message with its parts, or an event line.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use retrace_core::{
    short_commit, DiffLine as Line, FileChange, Marks, Message, MessageKind, Part, Role, RowKind,
};

use super::tool::{self, Answer, Missing};
use super::viewer;
use crate::invisible::{attr_text, has_invisible, mark_html, name_view};
use crate::markdown::to_html;
use retrace_wasm::protocol::{RowBody, RowInfo};
/// Characters of text rendered as markdown; longer texts show as plain
/// text (markdown of a megabyte blocks the page).
const MARKDOWN_MAX: usize = 30_000;

#[component]
pub fn RowView(index: usize) -> impl IntoView {
    let v = viewer();
    let info = move || v.rows.with(|r| r.get(index));
    // A memo, so a batch of bodies arriving for other rows leaves this one
    // alone: it holds the shared body, changed only when another one comes
    // for this row (no copy of each row's message, nor a comparison of it,
    // per batch: with a window of long rows that made scrolling stall).
    let body = Memo::new_with_compare(
        move |_| v.bodies.with(|b| b.get(&index).cloned()),
        another_body,
    );
    let is_error = move || {
        v.rows.with(|r| {
            r.marks
                .get(index)
                .is_some_and(|&m| Marks(m).has(Marks::ERROR))
        })
    };
    let focused = move || v.focus.get() == Some(index);
    // A row of results shown in their calls' blocks above.
    let folded = move || {
        body.with(|b| {
            b.as_ref()
                .and_then(|b| b.pairing.as_ref())
                .is_some_and(|p| p.folded_into.is_some())
        })
    };
    move || {
        // The head's time follows the UTC switch.
        v.utc.track();
        let info = info()?;
        let class = format!(
            "row {}{}{}{}",
            row_class(&info),
            if is_error() { " error" } else { "" },
            if focused() { " focused" } else { "" },
            if folded() { " folded" } else { "" },
        );
        let label = info.label.clone();
        Some(view! {
            <article class=class data-row=index.to_string() data-entry=label.clone() id=format!("row-{index}")>
                <RowHead info=info.clone() index=index/>
                {info.marks.has(Marks::SUBAGENT).then(|| subagent_view(info.entry, info.count))}
                {move || match body.get() {
                    None => view! { <div class="loading-body">"…"</div> }.into_any(),
                    Some(b) => body_view(index, Arc::unwrap_or_clone(b)).into_any(),
                }}
            </article>
        })
    }
}

pub(super) fn row_class(info: &RowInfo) -> String {
    match info.kind {
        RowKind::Event => format!("event type-{}", info.entry_type.replace(['_', ' '], "-")),
        RowKind::Message => format!(
            "message role-{}",
            if info.role.is_empty() {
                "other"
            } else {
                &info.role
            }
        ),
    }
}

#[component]
fn RowHead(info: RowInfo, index: usize) -> impl IntoView {
    let v = viewer();
    let marks = info.marks;
    // A badge's text is a name from the file (a bookmark's) or ours.
    let mut badges: Vec<(&str, String)> = Vec::new();
    for (mark, class, text) in [
        (Marks::PROMPT, "prompt", "prompt"),
        (Marks::BRANCH_POINT, "fork", "⋔ branches here"),
        (Marks::COMPACTION, "compaction", "compaction"),
        (Marks::SUBAGENT, "subagent", "subagent"),
        (Marks::CHECKPOINT, "checkpoint", "◆ checkpoint"),
    ] {
        if marks.has(mark) {
            badges.push((class, text.to_owned()));
        }
    }
    // The names of its entries' bookmarks (a merged row holds several).
    if marks.has(Marks::BOOKMARK) {
        let rows = info.entry..info.entry + info.count;
        v.summary.with_untracked(|s| {
            let names = s
                .iter()
                .flat_map(|s| s.bookmarked.iter().zip(&s.bookmark_names));
            for (_, name) in names.filter(|(e, _)| rows.contains(e)) {
                badges.push(("bookmark", format!("⚑ {name}")));
            }
        });
    }
    let time = info
        .time
        .map(|t| super::time::time_view(t, v.utc.get_untracked()));
    if let Some(label) = super::harness::type_badge(&info.entry_type) {
        badges.push(("final", label.to_owned()));
    }
    view! {
        <header class="row-head">
            <h3 class="who">{name_view(who(&info))}</h3>
            {badges.into_iter().map(|(c, t)| view! { <span class=format!("badge {c}")>{name_view(t)}</span> }).collect_view()}
            {marks.has(Marks::ERROR).then(|| view! { <span class="badge error">"error"</span> })}
            // What the compaction hid, beside its summary (`compare.rs`).
            {marks.has(Marks::COMPACTION).then(|| view! { <button class="hid" data-cmp="">"what this hid"</button> })}
            <span class="spacer"></span>
            {time}
            {super::edit::fork_button(index)}
            <button class="where" title="Copy a link to this row" on:click=move |_| super::history::copy_link(v, index)>{place(&info)}</button>
        </header>
    }
}

/// Who a row's head names: the role, an event's type, or what a row
/// without a role is.
pub(super) fn who(info: &RowInfo) -> String {
    match info.kind {
        RowKind::Event => info.entry_type.clone(),
        RowKind::Message if info.role.is_empty() => {
            super::harness::who_without_role(&info.entry_type, info.marks)
        }
        RowKind::Message => info.role.clone(),
    }
}

/// Where a row is: its line, and its file when not the first.
pub(super) fn place(info: &RowInfo) -> String {
    if info.file > 0 {
        format!("file {} line {}", info.file + 1, info.line)
    } else {
        format!("line {}", info.line)
    }
}

/// The subagent a row's tool result reports on, as a block that opens its
/// conversation (the subagent's own file).
pub(super) fn subagent_view(entry: u32, count: u32) -> impl IntoView {
    let v = viewer();
    let found = v.summary.with_untracked(|s| {
        let s = s.as_ref()?;
        let agent = s.subagents.iter().find(|a| {
            a.spawned_by
                .is_some_and(|e| (entry..entry + count).contains(&e))
        })?;
        let tip = s
            .outline
            .iter()
            .find(|seg| seg.file == agent.file && seg.parent.is_none())
            .map(|seg| seg.tip)?;
        let rows = s
            .outline
            .iter()
            .filter(|seg| seg.file == agent.file)
            .map(|seg| seg.len + seg.side)
            .sum::<u32>();
        Some((agent.clone(), tip, rows))
    });
    found.map(|(agent, tip, rows)| {
        view! {
            <details class="subagent-block" open>
                <summary>
                    "Subagent run "{name_view(agent.agent_id)}
                    {agent.description.map(|d| view! { " — "{name_view(d)} })}
                </summary>
                <div class="subagent-body">
                    {format!("{rows} entries in its own file. ")}
                    <button class="open-subagent" on:click=move |_| {
                        super::history::push_next();
                        v.select_leaf(tip);
                    }>
                        "open its conversation"
                    </button>
                </div>
            </details>
        }
    })
}

/// Whether a row's body is another than the one it had (a memo's
/// `changed`).
fn another_body(old: Option<&Option<Arc<RowBody>>>, new: Option<&Option<Arc<RowBody>>>) -> bool {
    match (old, new) {
        (Some(Some(old)), Some(Some(new))) => !Arc::ptr_eq(old, new),
        (Some(None), Some(None)) => false,
        _ => true,
    }
}

pub(super) fn body_view(index: usize, body: RowBody) -> impl IntoView {
    if body.broken {
        return view! {
            <div class="broken">"This line could not be read as a message; see the diagnostics."</div>
        }
        .into_any();
    }
    if let Some(event) = body.event {
        return view! { <div class="event-line">{event}</div> }.into_any();
    }
    match body.message {
        Some(m) => message_view(index, m, body.pairing.unwrap_or_default()).into_any(),
        None => ().into_any(),
    }
}

fn message_view(index: usize, mut m: Message, pairing: retrace_core::RowPairing) -> impl IntoView {
    if m.kind == MessageKind::Marker {
        // A git checkpoint: its commit, tag and files.
        if m.content
            .iter()
            .any(|p| matches!(p, Part::Checkpoint { .. }))
        {
            return m
                .content
                .into_iter()
                .map(|p| part_view(p, Role::System, (index, 0)))
                .collect_view()
                .into_any();
        }
        // Rollbacks, aborted turns, errors: one line, not a conversation turn.
        return view! { <div class="marker-line">{name_view(m.text())}</div> }.into_any();
    }
    let summary_kind = match m.kind {
        MessageKind::CompactionSummary => Some("Compaction summary"),
        MessageKind::BranchSummary => Some("Summary of an abandoned branch"),
        _ => None,
    };
    let mut meta = Vec::new();
    if let Some(model) = &m.model {
        meta.push(model.clone());
    }
    if let Some(u) = &m.usage {
        meta.push(format!(
            "in {} · out {} · cache {}/{}",
            u.input, u.output, u.cache_read, u.cache_write
        ));
        if let Some(cost) = u.cost {
            meta.push(format!("${}", crate::state::fixed(cost, 4)));
        }
    }
    if let Some(stop) = m
        .stop_reason
        .as_deref()
        .filter(|s| !matches!(*s, "stop" | "end_turn" | "tool_use" | "toolUse"))
    {
        meta.push(format!("stopped: {stop}"));
    }
    let kind_note = match m.kind {
        // Recognised harness text says what it is itself.
        MessageKind::Meta if !m.harness.is_empty() => None,
        MessageKind::Meta => Some("injected by the harness"),
        MessageKind::BashExecution => Some("shell command run by the user"),
        MessageKind::Custom => Some("extension message"),
        _ => None,
    };
    let role = m.role;
    let class = m.user_class();
    let harness = std::mem::take(&mut m.harness);
    // A user's text is shown as its recognised pieces instead.
    let pieces_replace_text = !harness.is_empty() && role == Role::User;
    let harness = (!harness.is_empty()).then(|| super::harness::harness_view(harness, class));
    let mut images = 0;
    // Each call's result: from this message (a Gemini CLI record, an
    // event stream's call) or another row; results shown in a call's
    // block are not shown again.
    let calls: Vec<String> = m.tool_calls().map(|(id, _)| id.to_owned()).collect();
    let mut answers: HashMap<String, Answer> = HashMap::new();
    let mut content = Vec::with_capacity(m.content.len());
    for p in m.content {
        match p {
            Part::ToolResult {
                call_id,
                output,
                is_error,
            } if calls.contains(&call_id) => {
                answers.insert(
                    call_id,
                    Answer {
                        output,
                        is_error,
                        stderr: None,
                        interrupted: false,
                        row: None,
                        images: Vec::new(),
                        exit_code: None,
                        wall_time: None,
                    },
                );
            }
            Part::ToolResult { call_id, .. } if pairing.answered.contains(&call_id) => {}
            p => content.push(p),
        }
    }
    for r in pairing.results {
        answers.insert(r.call_id.clone(), r.into());
    }
    let parts = content
        .into_iter()
        .filter(|p| !(pieces_replace_text && matches!(p, Part::Text { .. })))
        .map(|p| {
            let image = images;
            if matches!(p, Part::Image { .. }) {
                images += 1;
            }
            if let Part::ToolCall {
                id,
                name,
                arguments,
            } = p
            {
                let answer = answers
                    .remove(&id)
                    .ok_or(if pairing.unanswered.contains(&id) {
                        Missing::Never
                    } else {
                        Missing::NotNear
                    });
                return tool::call_block(id, name, arguments, answer).into_any();
            }
            part_view(p, role, (index, image)).into_any()
        })
        .collect_view();
    // A run reported here for a call that is not (Codex: its report was
    // written away from it): a block of its own.
    let lone = answers
        .into_iter()
        .map(|(id, a)| tool::call_block(id, "run".into(), serde_json::Value::Null, Ok(a)))
        .collect_view();
    let content = view! { <div class="parts">{harness}{parts}{lone}</div> };
    view! {
        {kind_note.map(|n| view! { <div class="kind-note">{n}</div> })}
        {match summary_kind {
            Some(title) => view! {
                <details class="summary-block">
                    <summary>{title}</summary>
                    {content}
                </details>
            }
                .into_any(),
            None => content.into_any(),
        }}
        {(!meta.is_empty()).then(|| view! { <div class="meta">{name_view(meta.join(" · "))}</div> })}
    }
    .into_any()
}

/// One part of a message; `image` is (row, ordinal among the row's images)
/// for asking the worker for an image's bytes.
fn part_view(part: Part, role: Role, image: (usize, usize)) -> impl IntoView {
    match part {
        Part::Text { text } if role == Role::Tool => output_view(text, false).into_any(),
        Part::Text { text } => text_view(&text).into_any(),
        Part::Thinking {
            text,
            redacted,
            signature: _,
        } => {
            if redacted {
                view! { <div class="thinking redacted">"Thinking (redacted by the provider)"</div> }
                    .into_any()
            } else {
                let html = super::sensitive::chips_html(to_html(&text));
                // Reasoning summaries open with their subject in bold (Codex,
                // Gemini CLI): the collapsed block is named by it.
                let subject = text
                    .lines()
                    .next()
                    .and_then(|l| l.trim().strip_prefix("**")?.strip_suffix("**"))
                    .filter(|t| !t.is_empty() && t.len() < 120);
                let summary = match subject {
                    Some(t) => format!("Thinking · {t}"),
                    None => format!("Thinking · {} words", text.split_whitespace().count()),
                };
                view! {
                    <details class="thinking">
                        <summary>{name_view(summary)}</summary>
                        {md_view(&text, html, "md")}
                    </details>
                }
                .into_any()
            }
        }
        // Calls are blocks of their own (`tool.rs`), built by the message.
        Part::ToolCall { .. } => ().into_any(),
        Part::ToolResult {
            call_id,
            output,
            is_error,
        } => {
            let lines = output.lines().count();
            view! {
                <details class="tool-result" class:failed=is_error open>
                    <summary class="tool-head">
                        <span class="arrow">"←"</span>
                        {if is_error { "tool error" } else { "tool result" }}
                        <span class="dim">{format!("{lines} lines")}</span>
                        <code class="call-id">{name_view(call_id)}</code>
                    </summary>
                    {output_view(output, is_error)}
                </details>
            }
            .into_any()
        }
        Part::Image {
            media_type,
            byte_size,
        } => image_view(media_type, byte_size, image).into_any(),
        Part::Checkpoint {
            commit,
            parent,
            tag,
            tool,
            files,
            untracked,
        } => checkpoint_view(commit, parent, tag, tool, files, untracked).into_any(),
    }
}

/// A git checkpoint: the commit (short, the full id on hover), its tag and
/// tool, the files it changed; for a Codex snapshot, the commit it was
/// taken on and the paths untracked before it. (Plain strings in few
/// elements: each optional element is a type of its own in the bundle.)
fn checkpoint_view(
    commit: String,
    parent: Option<String>,
    tag: Option<String>,
    tool: Option<String>,
    files: Vec<FileChange>,
    untracked: Vec<String>,
) -> impl IntoView {
    let mut head = format!("◆ checkpoint {}", short_commit(&commit));
    for word in [tag, tool].into_iter().flatten() {
        head.push(' ');
        head.push_str(&word);
    }
    if let Some(p) = parent {
        head.push_str(&format!(" on {}", short_commit(&p)));
    }
    let n = untracked.len();
    let rows = files
        .into_iter()
        .map(|f| (f.change.as_str(), f.path))
        .chain(untracked.into_iter().map(|p| ("untracked", p)))
        .map(|(change, path)| {
            view! {
                <li class=format!("change-{change}")>
                    <span class="change">{change}</span>
                    <code class="path">{name_view(path)}</code>
                </li>
            }
        })
        .collect_view();
    let note = if n == 0 {
        String::new()
    } else {
        format!("{n} paths untracked before it, left alone on restore")
    };
    view! {
        <div class="checkpoint-block">
            <div class="checkpoint-head" title=attr_text(&commit)>{name_view(head)}</div>
            <div class="dim">{note}</div>
            <ul class="checkpoint-files">{rows}</ul>
        </div>
    }
}

/// An image, loaded from the file only when asked for (from the file's
/// own bytes: it never causes a request).
pub(super) fn image_view(
    media_type: String,
    byte_size: u64,
    (row, image): (usize, usize),
) -> impl IntoView {
    let v = viewer();
    let url = move || v.images.with(|m| m.get(&(row, image)).cloned());
    let label = format!("image · {media_type} · {}", crate::state::bytes(byte_size));
    move || match url() {
        Some(src) => view! { <img class="image" src=src alt=label.clone()/> }.into_any(),
        // A row of another branch (compared): its image is not asked for.
        None if row == usize::MAX => label.clone().into_any(),
        None => {
            let leaf = v.leaf.get_untracked().unwrap_or(0);
            view! {
                <div class="image-placeholder">
                    {label.clone()}
                    <button class="show-image" on:click=move |_| {
                        retrace_wasm::js::client::send(
                            &retrace_wasm::protocol::Request::Image { leaf, row: row as u32, image: image as u32 },
                            &[],
                        )
                    }>"show"</button>
                </div>
            }
            .into_any()
        }
    }
}

fn text_view(text: &str) -> impl IntoView {
    if text.trim().is_empty() {
        return ().into_any();
    }
    // Terminal output (a command's colours) reads as a terminal, not as
    // markdown.
    if text.len() > MARKDOWN_MAX || retrace_core::ansi::has_escapes(text) {
        return output_view(text.to_owned(), false).into_any();
    }
    md_view(text, super::sensitive::chips_html(to_html(text)), "md")
}

/// Prose (`html`, rendered from `text`) as a `.md` block of `class`.
/// Prose keeps its bidi marks and joiners (right-to-left text and emoji
/// need them), its blocks isolated (style.css); when it holds invisible
/// characters the reader is told so and can see them as marks.
pub(super) fn md_view(text: &str, html: String, class: &'static str) -> AnyView {
    if !has_invisible(text) {
        return view! { <div class=class inner_html=html></div> }.into_any();
    }
    let shown = RwSignal::new(false);
    let marked = mark_html(&html);
    view! {
        <div class="hidden-note">
            "This text holds invisible characters (bidi controls or zero-width). "
            <button class="show-hidden" on:click=move |_| shown.update(|s| *s = !*s)>
                {move || if shown.get() { "hide them" } else { "show them" }}
            </button>
        </div>
        <div class=class inner_html=move || if shown.get() { marked.clone() } else { html.clone() }></div>
    }
    .into_any()
}

pub(super) fn diff_view(lines: Vec<Line>) -> impl IntoView {
    let rows = lines
        .into_iter()
        .map(|l| {
            let (class, sign, text) = match l {
                Line::Same(t) => ("same", " ", t),
                Line::Added(t) => ("added", "+", t),
                Line::Removed(t) => ("removed", "-", t),
                Line::Header(t) => ("header", "", t),
            };
            view! { <div class=format!("diff-line {class}")><span class="sign">{sign}</span>{text}</div> }
        })
        .collect_view();
    view! { <div class="diff">{rows}</div> }
}

/// Preformatted output with its terminal colours, shortened to its first
/// lines with a button for the rest.
fn output_view(text: String, is_error: bool) -> impl IntoView {
    tool::terminal(text, if is_error { "output failed" } else { "output" })
}
