//! The details panel: files, time span, branches, tokens per model, tool
//! calls and failures, and the core's diagnostics with their lines.

use crate::invisible::{attr_text, name_view};
use leptos::prelude::*;

use super::viewer;
use crate::state::{bytes, count, duration, fixed};

#[component]
pub fn Details() -> impl IntoView {
    let v = viewer();
    let overview = move || {
        let s = v.summary.get()?;
        let figures = &s.figures;
        let span = figures.start.zip(figures.end);
        let span_iso = span.map(|(a, b)| {
            format!(
                "{} → {}",
                retrace_core::format_rfc3339_ms(a),
                retrace_core::format_rfc3339_ms(b)
            )
        });
        let files = s
            .files
            .iter()
            .map(|f| {
                view! {
                    <li title=attr_text(&f.name)>
                        {name_view(f.name.rsplit('/').next().unwrap_or(&f.name).to_owned())}
                        <span class="dim">{format!(" · {} · {} · {} lines", f.format, bytes(f.size), count(f.lines as u64))}</span>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <dl class="facts">
                <dt>"Format"</dt><dd id="format">{figures.format_label()}</dd>
                {s.metadata.iter().map(|(k, val)| view! { <dt>{name_view(k.clone())}</dt><dd class="meta-value" title=attr_text(val)>{name_view(val.clone())}</dd> }).collect_view()}
                <dt>"Entries"</dt><dd>{count(figures.entries as u64)}{format!(" ({} in the tree)", count(figures.nodes as u64))}</dd>
                <dt>"Time"</dt>
                <dd title=span_iso>{move || span_text(span, v.utc.get())}</dd>
                <dt>"Branches"</dt>
                <dd>
                    {format!("{} leaves · {} rewinds", figures.leaves, figures.branch_points)}
                    {(figures.structural_branch_points > 0).then(|| format!(" · {} structural fan-outs folded", figures.structural_branch_points))}
                </dd>
                {(!s.subagents.is_empty()).then(|| view! {
                    <dt>"Subagents"</dt><dd>{s.subagents.len()}</dd>
                })}
                <dt>"Index"</dt>
                <dd>
                    {format!("{} ms ({} ms waiting for reads) · worker memory ", fixed(s.open_ms, 0), fixed(s.read_ms, 0))}
                    <span id="worker-memory">{bytes(s.memory)}</span>
                </dd>
            </dl>
            <h3>"Files"</h3>
            <ul class="files">{files}</ul>
        })
    };
    let stats = move || {
        let Some((st, _)) = v.stats.get() else {
            if v.stats_asked.get() {
                return view! { <p class="dim">"Counting tokens and tool calls…"</p> }.into_any();
            }
            return view! {
                <p class="dim">
                    "Token and tool totals read every message of this large session (seconds; the viewer keeps working). "
                    <button id="count-tokens" class="more" on:click=move |_| {
                        v.stats_asked.set(true);
                        retrace_wasm::js::client::send(&retrace_wasm::protocol::Request::Stats, &[]);
                    }>"Count them"</button>
                </p>
            }
            .into_any();
        };
        let models = st
            .models
            .iter()
            .map(|(model, m)| {
                view! {
                    <tr>
                        <td>{name_view(model.clone())}</td>
                        <td>{count(m.messages)}</td>
                        <td>{count(m.input_tokens)}</td>
                        <td>{count(m.output_tokens)}</td>
                        <td>{count(m.cache_read_tokens)}</td>
                        <td>{count(m.cache_write_tokens)}</td>
                        <td>{m.cost_usd.map(|c| format!("${}", fixed(c, 2))).unwrap_or_default()}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <dl class="facts">
                <dt>"Messages"</dt><dd>{count(st.messages)}</dd>
                <dt>"Tool calls"</dt>
                <dd id="tool-calls">
                    {count(st.tool_calls)}
                    {format!(" · {} results · {} failed", count(st.tool_results), count(st.tool_errors))}
                </dd>
                <dt>"Unpaired"</dt>
                <dd>{format!("{} calls without result · {} results without call", st.calls_without_result, st.results_without_call)}</dd>
            </dl>
            {(!st.models.is_empty()).then(|| view! {
                <h3>"Tokens per model"</h3>
                <table class="models">
                    <thead><tr><th>"model"</th><th>"msgs"</th><th>"in"</th><th>"out"</th><th>"cache read"</th><th>"cache write"</th><th>"cost"</th></tr></thead>
                    <tbody>{models}</tbody>
                </table>
            })}
        }
        .into_any()
    };
    let diagnostics = move || {
        let s = v.summary.get()?;
        let mut all = s.diagnostics.clone();
        if let Some((_, found)) = v.stats.get() {
            all.extend(found.iter().cloned());
        }
        retrace_core::sort_by_key(&mut all, |d| (d.file, d.line));
        let total = s.figures.diagnostics
            + v.stats
                .with(|st| st.as_ref().map_or(0, |(st, _)| st.diagnostics));
        let multi = s.files.len() > 1;
        let items = all
            .into_iter()
            .map(|d| {
                let place = if multi {
                    format!("file {} line {}", d.file.0 + 1, d.line)
                } else {
                    format!("line {}", d.line)
                };
                view! {
                    <li class=format!("diag {:?}", d.severity).to_lowercase()>
                        <span class="place">{place}</span>
                        <span class="code">{d.kind.code()}</span>
                        <span class="text">{name_view(d.message)}</span>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <h3>{format!("Diagnostics ({total})")}</h3>
            <ul class="diagnostics" id="diagnostics">{items}</ul>
        })
    };
    view! {
        <aside class="details" id="details" aria-label="Details" tabindex="-1">
            <div class="panel-head">
                <h2>"Details"</h2>
                {super::frame::close_button(super::frame::Drawer::Details)}
            </div>
            {overview}
            {stats}
            <super::sensitive::Review/>
            <super::edit::EditPanel/>
            {diagnostics}
        </aside>
    }
}

/// The session's time span, in the reader's zone or UTC (one text: a view
/// per part costs the bundle more).
fn span_text(span: Option<(i64, i64)>, utc: bool) -> String {
    match span {
        Some((a, b)) => format!(
            "{} → {} ({})",
            super::time::stamp(a, utc, false),
            super::time::stamp(b, utc, false),
            duration(b - a)
        ),
        None => "no timestamps".to_owned(),
    }
}
