//! One block per tool call, titled by its tool (the core's `ToolView`),
//! with its result inside: a shell command as `$ command` and its output
//! (exit code badge, stderr apart), a read or write as the path and the
//! content highlighted by its language, a search as its pattern and
//! matches, an agent's prompt as markdown with a link to its run, a web
//! fetch as its URL, an MCP tool as its server and tool, anything else as
//! key and value. Terminal colours in output are drawn (`highlight.rs`).

use leptos::prelude::*;
use retrace_core::{
    ansi, diff_of_tool_call, language_of, Marks, ResultImage, RowResult, ToolOutput, ToolView,
};
use serde_json::Value;

use super::viewer;
use crate::highlight::{ansi_html, code_html};
use crate::invisible::{name_view, push_marked};
use crate::markdown::{safe_url, to_html};

/// Output lines and characters shown before "show all".
const OUTPUT_LINES: usize = 24;
const OUTPUT_CHARS: usize = 4_000;

/// A call's result, from its own row or another.
pub struct Answer {
    pub output: String,
    pub is_error: bool,
    pub stderr: Option<String>,
    pub interrupted: bool,
    /// The row that holds it, when not the call's own.
    pub row: Option<usize>,
    /// The images that came with it on that row (loaded on request).
    pub images: Vec<ResultImage>,
    /// The exit code and duration the run's report gives (Codex).
    pub exit_code: Option<i64>,
    pub wall_time: Option<String>,
}

impl From<RowResult> for Answer {
    fn from(r: RowResult) -> Answer {
        Answer {
            output: r.output,
            is_error: r.is_error,
            stderr: r.stderr,
            interrupted: r.interrupted,
            row: Some(r.row),
            images: r.images,
            exit_code: r.exit_code,
            wall_time: r.wall_time,
        }
    }
}

/// What is known of a call that has no answer here.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// No result up to the end of the branch.
    Never,
    /// None within the rows looked at.
    NotNear,
}

/// The block of a call to `name`.
pub fn call_block(
    id: String,
    name: String,
    arguments: Value,
    answer: Result<Answer, Missing>,
) -> impl IntoView {
    let view = ToolView::of(&name, &arguments);
    let title = view.title(&name);
    // Titles that do not start with the tool's name get it in front.
    let (tool, title) = match title.strip_prefix(name.as_str()) {
        Some(rest) => (name.clone(), rest.trim_start().to_owned()),
        None => (name.clone(), title),
    };
    let (kind, language) = match &view {
        ToolView::Shell { .. } => ("shell", None),
        ToolView::Read { path, .. } => ("read", language_of(path)),
        ToolView::Write { .. } => ("write", None),
        ToolView::Edit { .. } => ("edit", None),
        ToolView::Search { .. } => ("search", None),
        ToolView::Agent { .. } => ("agent", None),
        ToolView::Web { .. } => ("web", None),
        ToolView::Mcp { .. } => ("mcp", None),
        ToolView::Plan { .. } => ("plan", None),
        ToolView::Other { .. } => ("other", None),
    };
    let framed = answer.as_ref().ok().map(|a| {
        let mut o = ToolOutput::of(&a.output);
        if a.stderr.is_some() {
            o.stderr = a.stderr.clone();
        }
        o.interrupted |= a.interrupted;
        o.exit_code = o.exit_code.or(a.exit_code);
        o.wall_time = o.wall_time.take().or(a.wall_time.clone());
        o
    });
    let mut badges: Vec<(&str, String)> = Vec::new();
    match (&answer, framed.as_ref().and_then(|o| o.exit_code)) {
        (_, Some(0)) => badges.push(("ok", "exit 0".into())),
        (_, Some(c)) => badges.push(("bad", format!("exit {c}"))),
        (Ok(a), None) if a.is_error => badges.push(("bad", "error".into())),
        (Err(Missing::Never), _) => badges.push(("bad", "no result".into())),
        (Err(Missing::NotNear), _) => badges.push(("dim", "result not nearby".into())),
        _ => {}
    }
    if let Some(o) = &framed {
        if o.interrupted {
            badges.push(("bad", "interrupted".into()));
        }
        if let Some(t) = &o.wall_time {
            badges.push(("dim", t.clone()));
        }
    }
    let failed = answer.as_ref().is_ok_and(|a| a.is_error);
    let subagent = answer
        .as_ref()
        .ok()
        .and_then(|a| a.row)
        .and_then(subagent_of);
    let input = input_view(&name, &arguments, view);
    let output = match (answer, framed) {
        (Ok(a), Some(o)) => {
            // Its images stay in its folded row: asked for from there.
            let row = a.row.unwrap_or_default();
            let images = a.images.into_iter().map(move |i| {
                super::row::image_view(i.media_type, i.byte_size, (row, i.index))
            });
            view! { {output_view(o, a.is_error, language)} {images.collect_view()} }.into_any()
        }
        (Err(Missing::Never), _) => view! {
            <div class="no-result">"No result on this branch: the call was left open (seal gives it one)."</div>
        }
        .into_any(),
        _ => ().into_any(),
    };
    view! {
        <details class=format!("tool-block tool-{kind}") class:failed=failed open>
            <summary class="tool-head">
                <span class="tool-name">{name_view(tool)}</span>
                <span class="tool-title">{name_view(title)}</span>
                {badges.into_iter().map(|(c, t)| view! { <span class=format!("tool-badge {c}")>{t}</span> }).collect_view()}
                <code class="call-id">{name_view(id)}</code>
            </summary>
            {input}
            {output}
            {subagent}
        </details>
    }
}

/// What the call asked for, by its kind.
fn input_view(name: &str, arguments: &Value, view: ToolView) -> impl IntoView {
    match view {
        ToolView::Shell {
            command,
            cwd,
            description,
        } => view! {
            {description.map(|d| view! { <div class="tool-note">{name_view(d)}</div> })}
            <pre class="shell-cmd"><span class="prompt-sign">"$ "</span>{name_view(command)}</pre>
            {cwd.map(|c| view! { <div class="tool-note">"in "{name_view(c)}</div> })}
        }
        .into_any(),
        ToolView::Write {
            content, language, ..
        } => pre(content, "output code", Box::new(move |t| code_html(t, language))).into_any(),
        ToolView::Edit { .. } => match diff_of_tool_call(name, arguments) {
            Some(lines) => super::row::diff_view(lines).into_any(),
            None => fields_view(vec![("input".into(), retrace_core::value_text(arguments))]).into_any(),
        },
        ToolView::Search { options, .. } => fields_view(options).into_any(),
        ToolView::Agent { prompt, .. } => {
            let html = to_html(&prompt);
            super::row::md_view(&prompt, html, "md agent-prompt")
        }
        ToolView::Web { url, prompt, .. } => {
            let link = url.as_deref().and_then(safe_url).map(str::to_owned);
            view! {
                {link.map(|u| {
                    let href = u.clone();
                    view! { <a class="tool-url" href=href rel="noopener noreferrer" target="_blank">{name_view(u)}</a> }
                })}
                {prompt.map(|p| view! { <div class="tool-note">{name_view(p)}</div> })}
            }
            .into_any()
        }
        ToolView::Plan { steps } => view! {
            <ul class="plan">
                {steps.into_iter().map(|(status, text)| view! { <li class=format!("step-{status}")>{name_view(text)}</li> }).collect_view()}
            </ul>
        }
        .into_any(),
        ToolView::Mcp { fields, .. } | ToolView::Other { fields } => fields_view(fields).into_any(),
        ToolView::Read { .. } => ().into_any(),
    }
}

/// Arguments as a key/value list, values as they read.
fn fields_view(fields: Vec<(String, String)>) -> impl IntoView {
    (!fields.is_empty()).then(|| {
        view! {
            <dl class="tool-fields">
                {fields.into_iter().map(|(k, v)| view! { <dt>{name_view(k)}</dt><dd>{name_view(v)}</dd> }).collect_view()}
            </dl>
        }
    })
}

/// A result: its output (highlighted as the file it read, else with its
/// terminal colours), stderr apart.
fn output_view(o: ToolOutput, is_error: bool, language: Option<&'static str>) -> impl IntoView {
    let class = if is_error { "output failed" } else { "output" };
    let main = (!o.output.trim().is_empty()).then(|| match language {
        Some(l) => pre(o.output, class, Box::new(move |t| code_html(t, Some(l)))).into_any(),
        None => terminal(o.output, class).into_any(),
    });
    let stderr = o
        .stderr
        .filter(|e| !e.trim().is_empty())
        .map(|e| view! { <div class="stderr-label">"stderr"</div> {terminal(e, "output stderr")} });
    view! { {main} {stderr} }
}

/// Text as a terminal shows it: its colours drawn, shortened with a
/// button for the rest.
pub fn terminal(text: String, class: &'static str) -> impl IntoView {
    if ansi::has_escapes(&text) {
        pre(text, class, Box::new(ansi_html)).into_any()
    } else {
        pre(text, class, Box::new(plain_html)).into_any()
    }
}

fn plain_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_marked(text, &mut out);
    out
}

/// Text to HTML for a `<pre>`: a highlighter.
type ToHtml = Box<dyn Fn(&str) -> String + Send + Sync>;

/// A `<pre>` of `text` made HTML by `html`, cut to its first lines (and
/// characters: one line can be a megabyte of minified JSON) until "show
/// all" is pressed. `html` is boxed: one copy of this view for every
/// highlighter, not one per highlighter's type.
fn pre(text: String, class: &'static str, html: ToHtml) -> impl IntoView {
    let short = shorten(&text);
    let total = text.lines().count();
    let expanded = RwSignal::new(short.is_none());
    // Hidden values show as chips in tool output as in text.
    let html = move |t: &str| super::sensitive::chips_html(html(t));
    let short = short.map(|s| html(&s)).unwrap_or_default();
    let full = StoredValue::new(text);
    let html = StoredValue::new(html);
    view! {
        <pre class=class inner_html=move || if expanded.get() { full.with_value(|t| html.with_value(|h| h(t))) } else { short.clone() }></pre>
        {move || (!expanded.get()).then(|| view! {
            <button class="expand" on:click=move |_| expanded.set(true)>
                {format!("show all {total} lines")}
            </button>
        })}
    }
}

/// The first lines of `text` when it is too long to show whole.
pub fn shorten(text: &str) -> Option<String> {
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

/// The subagent run the result on row `row` reports, as a link to it.
fn subagent_of(row: usize) -> Option<impl IntoView> {
    let v = viewer();
    let (entry, count, marks) = v.rows.with_untracked(|r| {
        let info = r.get(row)?;
        Some((info.entry, info.count, info.marks))
    })?;
    marks
        .has(Marks::SUBAGENT)
        .then(|| super::row::subagent_view(entry, count))
}
