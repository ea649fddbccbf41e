//! One row of the conversation: a message with its parts, or an event line.

use leptos::prelude::*;
use retrace_core::{short_commit, FileChange, Marks, Message, MessageKind, Part, Role, RowKind};

use super::viewer;
use crate::diff::{self, Line};
use crate::markdown::to_html;
use crate::protocol::{RowBody, RowInfo};

/// Tool output lines and characters shown before "show all".
const OUTPUT_LINES: usize = 24;
const OUTPUT_CHARS: usize = 4_000;
/// Characters of text rendered as markdown; longer texts show as plain
/// text (markdown of a megabyte blocks the page).
const MARKDOWN_MAX: usize = 30_000;

#[component]
pub fn RowView(index: usize) -> impl IntoView {
    let v = viewer();
    let info = move || v.rows.with(|r| r.get(index));
    // A memo, so a batch of bodies arriving for other rows leaves this one
    // alone.
    let body = Memo::new(move |_| v.bodies.with(|b| b.get(&index).cloned()));
    let is_error = move || {
        v.rows.with(|r| {
            r.marks
                .get(index)
                .is_some_and(|&m| Marks(m).has(Marks::ERROR))
        })
    };
    let focused = move || v.focus.get() == Some(index);
    move || {
        // The head's time follows the UTC switch.
        v.utc.track();
        let info = info()?;
        let class = format!(
            "row {}{}{}",
            row_class(&info),
            if is_error() { " error" } else { "" },
            if focused() { " focused" } else { "" },
        );
        let label = info.label.clone();
        Some(view! {
            <article class=class data-row=index.to_string() data-entry=label.clone() id=format!("row-{index}")>
                <RowHead info=info.clone() index=index/>
                {info.marks.has(Marks::SUBAGENT).then(|| subagent_view(info.entry, info.count))}
                {move || match body.get() {
                    None => view! { <div class="loading-body">"…"</div> }.into_any(),
                    Some(b) => body_view(index, b).into_any(),
                }}
            </article>
        })
    }
}

fn row_class(info: &RowInfo) -> String {
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
    let where_ = if info.file > 0 {
        format!("file {} line {}", info.file + 1, info.line)
    } else {
        format!("line {}", info.line)
    };
    let who = match info.kind {
        RowKind::Event => info.entry_type.clone(),
        RowKind::Message if info.role.is_empty() => info.entry_type.clone(),
        RowKind::Message => info.role.clone(),
    };
    view! {
        <header class="row-head">
            <h3 class="who">{who}</h3>
            {badges.into_iter().map(|(c, t)| view! { <span class=format!("badge {c}")>{t}</span> }).collect_view()}
            {marks.has(Marks::ERROR).then(|| view! { <span class="badge error">"error"</span> })}
            <span class="spacer"></span>
            {time}
            {super::edit::fork_button(index)}
            <button class="where" title="Copy a link to this row" on:click=move |_| super::history::copy_link(v, index)>{where_}</button>
        </header>
    }
}

/// The subagent a row's tool result reports on, as a block that opens its
/// conversation (the subagent's own file).
fn subagent_view(entry: u32, count: u32) -> impl IntoView {
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
                    {format!("Subagent run {}", agent.agent_id)}
                    {agent.description.map(|d| format!(" — {d}"))}
                </summary>
                <div class="subagent-body">
                    {format!("{rows} entries in its own file. ")}
                    <button class="open-subagent" on:click=move |_| v.select_leaf(tip)>
                        "open its conversation"
                    </button>
                </div>
            </details>
        }
    })
}

fn body_view(index: usize, body: RowBody) -> impl IntoView {
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
        Some(m) => message_view(index, m).into_any(),
        None => ().into_any(),
    }
}

fn message_view(index: usize, m: Message) -> impl IntoView {
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
        return view! { <div class="marker-line">{m.text()}</div> }.into_any();
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
        MessageKind::Meta => Some("injected by the harness"),
        MessageKind::BashExecution => Some("shell command run by the user"),
        MessageKind::Custom => Some("extension message"),
        _ => None,
    };
    let role = m.role;
    let mut images = 0;
    let parts = m
        .content
        .into_iter()
        .map(|p| {
            let image = images;
            if matches!(p, Part::Image { .. }) {
                images += 1;
            }
            part_view(p, role, (index, image)).into_any()
        })
        .collect_view();
    let content = view! { <div class="parts">{parts}</div> };
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
        {(!meta.is_empty()).then(|| view! { <div class="meta">{meta.join(" · ")}</div> })}
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
                let html = to_html(&text);
                view! {
                    <details class="thinking">
                        <summary>{format!("Thinking · {} words", text.split_whitespace().count())}</summary>
                        <div class="md" inner_html=html></div>
                    </details>
                }
                .into_any()
            }
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => tool_call_view(id, name, arguments).into_any(),
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
                        <code class="call-id">{call_id}</code>
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
                    <code class="path">{path}</code>
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
            <div class="checkpoint-head" title=commit>{head}</div>
            <div class="dim">{note}</div>
            <ul class="checkpoint-files">{rows}</ul>
        </div>
    }
}

/// An image, loaded from the file only when asked for (from the file's
/// own bytes: it never causes a request).
fn image_view(media_type: String, byte_size: u64, (row, image): (usize, usize)) -> impl IntoView {
    let v = viewer();
    let url = move || v.images.with(|m| m.get(&(row, image)).cloned());
    let label = format!("image · {media_type} · {}", crate::state::bytes(byte_size));
    move || match url() {
        Some(src) => view! { <img class="image" src=src alt=label.clone()/> }.into_any(),
        None => {
            let leaf = v.leaf.get_untracked().unwrap_or(0);
            view! {
                <div class="image-placeholder">
                    {label.clone()}
                    <button class="show-image" on:click=move |_| {
                        crate::client::send(
                            &crate::protocol::Request::Image { leaf, row: row as u32, image: image as u32 },
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
    if text.len() > MARKDOWN_MAX {
        return output_view(text.to_owned(), false).into_any();
    }
    let html = to_html(text);
    view! { <div class="md" inner_html=html></div> }.into_any()
}

fn tool_call_view(id: String, name: String, arguments: serde_json::Value) -> impl IntoView {
    let diff = diff::of_tool_call(&name, &arguments);
    let pretty = match &arguments {
        serde_json::Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    view! {
        <div class="tool-call">
            <div class="tool-head">
                <span class="arrow">"→"</span>
                <span class="tool-name">{name}</span>
                <code class="call-id">{id}</code>
            </div>
            {match diff {
                Some(lines) => diff_view(lines).into_any(),
                None => output_view(pretty, false).into_any(),
            }}
        </div>
    }
}

fn diff_view(lines: Vec<Line>) -> impl IntoView {
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

/// Preformatted output, shortened to its first lines (and characters: one
/// line can be a megabyte of minified JSON) with a button for the rest.
fn output_view(text: String, is_error: bool) -> impl IntoView {
    let short = shorten_output(&text);
    let total = text.lines().count();
    let expanded = RwSignal::new(short.is_none());
    let short = short.unwrap_or_default();
    let full = StoredValue::new(text);
    view! {
        <pre class="output" class:failed=is_error>
            {move || if expanded.get() { full.get_value() } else { short.clone() }}
        </pre>
        {move || (!expanded.get()).then(|| view! {
            <button class="expand" on:click=move |_| expanded.set(true)>
                {format!("show all {total} lines")}
            </button>
        })}
    }
}

/// The first lines of `text` when it is too long to show whole.
fn shorten_output(text: &str) -> Option<String> {
    let cut_at_chars = text.char_indices().nth(OUTPUT_CHARS).map(|(i, _)| i);
    let cut_at_lines = text
        .match_indices('\n')
        .nth(OUTPUT_LINES - 1)
        .map(|(i, _)| i)
        .filter(|_| text.lines().count() > OUTPUT_LINES + 4);
    let cut = match (cut_at_chars, cut_at_lines) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(format!("{}…", &text[..cut]))
}
