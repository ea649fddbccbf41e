//! Sensitive data: the header's show/hide toggle, the review pane that
//! lists what redaction would take out, takes "not a secret" per finding
//! and per kind, downloads redacted copies and the exceptions as a rules
//! file for `retrace redact --rules`; and the chips hidden values show as
//! wherever text is rendered ([`chips_html`]).

use std::collections::BTreeSet;

use leptos::prelude::*;
use retrace_core::redact::{typed_placeholders, AllowedFinding, Exceptions, Mode};

use super::viewer;
use crate::state::{bytes, count};
use retrace_wasm::protocol::{Request, ReviewAllow, SensitiveFinding};

/// Rendered HTML (markdown's, text escaped) with each placeholder (the
/// core's `typed_placeholders`) as a chip and each revealed value (see
/// [`note_revealed`]) highlighted, never inside a tag. The markup has no
/// quotes, so one inside an attribute's value stays text there.
pub fn chips_html(html: String) -> String {
    // (start, end, is a chip).
    let mut spans: Vec<(usize, usize, bool)> = typed_placeholders(&html)
        .into_iter()
        .map(|(r, _)| (r.start, r.end, true))
        .collect();
    REVEALED.with(|set| {
        let mut escaped = String::new();
        for value in set.borrow().iter() {
            escaped.clear();
            crate::markdown::escape(value, &mut escaped);
            spans.extend(
                html.match_indices(escaped.as_str())
                    .map(|(at, m)| (at, at + m.len(), false)),
            );
        }
    });
    if spans.is_empty() {
        return html;
    }
    let tags = tag_ranges(&html);
    // Longest first where two start together (a chip first of two as
    // long); overlaps dropped.
    retrace_core::sort_by_key(&mut spans, |&(a, b, chip)| (a, usize::MAX - b, !chip));
    let mut out = String::with_capacity(html.len() + 40 * spans.len());
    let mut at = 0;
    for (start, end, chip) in spans {
        if start < at || in_tag(&tags, start) {
            continue;
        }
        out.push_str(&html[at..start]);
        out.push_str(if chip {
            "<mark class=redacted title=hidden>"
        } else {
            "<mark class=revealed>"
        });
        out.push_str(&html[start..end]);
        out.push_str("</mark>");
        at = end;
    }
    out.push_str(&html[at..]);
    out
}

/// Where the tags of `html` are (`<` to `>`), in order.
fn tag_ranges(html: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = html[from..].find('<').map(|p| from + p) {
        let close = html[open..].find('>').map_or(html.len(), |p| open + p);
        out.push((open, close));
        from = close.max(open + 1);
    }
    out
}

fn in_tag(tags: &[(usize, usize)], at: usize) -> bool {
    let i = tags.partition_point(|t| t.0 <= at);
    i > 0 && at <= tags[i - 1].1
}

thread_local! {
    /// Values the engine found in bodies shown as written (what a redacted
    /// copy takes out): highlighted wherever they are rendered.
    static REVEALED: std::cell::RefCell<BTreeSet<String>> = Default::default();
}

/// Keeps the values the engine named beside bodies shown as written. They
/// go through one place here rather than every renderer: titles, fields
/// and event lines show the plain text, the renderers that call
/// [`chips_html`] highlight.
pub fn note_revealed(values: Vec<String>) {
    if values.is_empty() {
        return;
    }
    REVEALED.with(|set| set.borrow_mut().extend(values));
}

/// One finding marked "not a secret": its file, kind, line and hash.
type Allowed = (u32, String, u64, String);

fn allowed_of(f: &SensitiveFinding) -> Allowed {
    (f.file, f.kind.clone(), f.line, f.hash.clone())
}

/// What the review marked "not a secret" in `file`, as the rules file
/// `retrace redact --rules` reads.
fn exceptions(kinds: &BTreeSet<String>, allowed: &BTreeSet<Allowed>, file: u32) -> Exceptions {
    Exceptions {
        kinds: kinds.iter().cloned().collect(),
        findings: allowed
            .iter()
            .filter(|a| a.0 == file)
            .filter_map(|(_, kind, line, hash)| {
                Some(AllowedFinding {
                    kind: kind.clone(),
                    line: *line,
                    hash: retrace_core::redact::parse_hash(hash)?,
                })
            })
            .collect(),
    }
}

/// Saves the exceptions of `file` as `{stem}.rules.toml`.
fn save_rules(text: &str, name: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/toml");
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) {
        super::save::save(&blob, name);
    }
}

/// A redacted copy of `file`, with what the review marked "not a secret".
fn download(
    file: u32,
    mode: RwSignal<Mode>,
    kinds_ok: RwSignal<BTreeSet<String>>,
    allowed: RwSignal<BTreeSet<Allowed>>,
) -> Request {
    let e = exceptions(&kinds_ok.get_untracked(), &allowed.get_untracked(), file);
    Request::Download {
        file,
        mode: mode.get_untracked().as_str().to_owned(),
        disable: e.kinds,
        allow: e
            .findings
            .into_iter()
            .map(|f| retrace_wasm::protocol::Allow {
                kind: f.kind,
                line: f.line,
                hash: retrace_core::redact::hash_hex(f.hash),
            })
            .collect(),
    }
}

/// Findings listed in the pane at once.
const LISTED: usize = 200;

/// What the review marks "not a secret" is shown as written (highlighted)
/// in the conversation, the player and search snippets, the rest staying
/// hidden: the worker is told of each change (`Request::Review`) and the
/// bodies on screen and the hits are asked for again.
fn show_in_conversation(
    v: super::Viewer,
    kinds_ok: RwSignal<BTreeSet<String>>,
    allowed: RwSignal<BTreeSet<Allowed>>,
) {
    let disable = kinds_ok.with_untracked(|k| k.iter().cloned().collect());
    let allow = allowed.with_untracked(|a| {
        a.iter()
            .map(|(file, kind, line, hash)| ReviewAllow {
                file: *file,
                kind: kind.clone(),
                line: *line,
                hash: hash.clone(),
            })
            .collect()
    });
    retrace_wasm::js::client::send(&Request::Review { disable, allow }, &[]);
    v.reload_bodies();
    super::search::rerun(v);
}

/// Header toggle: sensitive data hidden (the default) or shown.
#[component]
pub fn Toggle() -> impl IntoView {
    let v = viewer();
    let found = move || {
        v.scan.with(|s| {
            s.as_ref()
                .map_or(0, |s| s.counts.iter().map(|c| c.1).sum::<u64>())
        })
    };
    view! {
        <label class="toggle sensitive-toggle" title="Secrets and personal data in the session">
            <input
                id="hide-sensitive"
                type="checkbox"
                prop:checked=move || v.hide_sensitive.get()
                on:change=move |ev| v.set_hide_sensitive(event_target_checked(&ev))
            />
            {move || match (found(), v.hide_sensitive.get()) {
                (0, _) => "hide sensitive data".to_owned(),
                (n, true) => format!("sensitive data hidden ({n} found)"),
                (n, false) => format!("sensitive data shown ({n} found)"),
            }}
        </label>
    }
}

/// The review pane: scan progress, counts per kind, where each finding is,
/// and redacted downloads.
#[component]
pub fn Review() -> impl IntoView {
    let v = viewer();
    let mode = RwSignal::new(Mode::default());
    // What the review marked "not a secret".
    let kinds_ok: RwSignal<BTreeSet<String>> = RwSignal::new(BTreeSet::new());
    let allowed: RwSignal<BTreeSet<Allowed>> = RwSignal::new(BTreeSet::new());
    let status = move || {
        let s = v.scan.get()?;
        let total: u64 = s.counts.iter().map(|c| c.1).sum();
        let progress = if s.finished {
            format!("{} found in the whole session", count(total))
        } else {
            format!(
                "{} found so far · scanned {} of {}",
                count(total),
                bytes(s.done),
                bytes(s.total)
            )
        };
        let kinds = s
            .counts
            .iter()
            .map(|(k, n)| {
                let kind = k.clone();
                let name = k.clone();
                let ok = Signal::derive(move || kinds_ok.with(|set| set.contains(&kind)));
                let flip = name.clone();
                view! {
                    <li class:allowed=ok>
                        <span class="code">{name.clone()}</span>" "{count(*n)}" "
                        <button
                            class="not-secret-kind"
                            data-kind=name.clone()
                            aria-pressed=move || ok.get().to_string()
                            title="Leave every value of this kind in the download"
                            on:click=move |_| {
                                kinds_ok.update(|set| {
                                    if !set.remove(&flip) {
                                        set.insert(flip.clone());
                                    }
                                });
                                show_in_conversation(v, kinds_ok, allowed);
                            }
                        >
                            {move || if ok.get() { "kept (undo)" } else { "not a secret" }}
                        </button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <p class="dim" id="scan-status">{progress}</p>
            <ul class="kinds" id="sensitive-kinds">{kinds}</ul>
        })
    };
    let findings = move || {
        let s = v.scan.get()?;
        let shown = s.findings.len().min(LISTED);
        let more = s.findings.len() - shown;
        let multi = v
            .summary
            .with(|s| s.as_ref().is_some_and(|s| s.files.len() > 1));
        let items = s
            .findings
            .into_iter()
            .take(LISTED)
            .map(|f| {
                let place = if multi {
                    format!("file {} line {}", f.file + 1, f.line)
                } else {
                    format!("line {}", f.line)
                };
                let target = f.entry.zip(f.leaf);
                let key = allowed_of(&f);
                let kind = f.kind.clone();
                let ok = {
                    let key = key.clone();
                    Signal::derive(move || {
                        allowed.with(|a| a.contains(&key)) || kinds_ok.with(|k| k.contains(&kind))
                    })
                };
                view! {
                    <li class:allowed=ok>
                        <button
                            class="not-secret"
                            aria-pressed=move || ok.get().to_string()
                            title="Leave this value in the download"
                            on:click=move |_| {
                                allowed.update(|a| {
                                    if !a.remove(&key) {
                                        a.insert(key.clone());
                                    }
                                });
                                show_in_conversation(v, kinds_ok, allowed);
                            }
                        >
                            {move || if ok.get() { "kept" } else { "not a secret" }}
                        </button>
                        <button
                            class="finding"
                            disabled=target.is_none()
                            on:click=move |_| {
                                if let Some((entry, leaf)) = target {
                                    v.go_to_entry(leaf, entry);
                                }
                            }
                        >
                            <span class="place">{place}</span>
                            <span class="code">{f.kind}</span>
                            <span class="path">{crate::invisible::name_view(f.path)}</span>
                        </button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <ul class="findings" id="findings">{items}</ul>
            {(more > 0).then(|| view! { <p class="dim">{format!("and {more} more (all are redacted)")}</p> })}
        })
    };
    let downloads = move || {
        let files = v.summary.with(|s| s.as_ref().map(|s| s.files.clone()))?;
        let busy = v.download.get();
        let count = files.len() as u32;
        let buttons = files
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let name = f
                    .name
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or(&f.name)
                    .to_owned();
                let progress = busy
                    .filter(|b| b.0 == i as u32)
                    .map(|(_, done, total)| format!(" ({} of {})", bytes(done), bytes(total)));
                view! {
                    <li>
                        <button
                            class="download"
                            data-file=i.to_string()
                            disabled=busy.is_some()
                            on:click=move |_| {
                                v.download.set(Some((i as u32, 0, f.size)));
                                retrace_wasm::js::client::send(&download(i as u32, mode, kinds_ok, allowed), &[]);
                            }
                        >
                            "Download "{crate::invisible::name_view(name.clone())}" redacted"
                        </button>
                        {progress}
                        {
                            let rules_name = retrace_wasm::engine::edited_name(&name, "rules");
                            let rules_name = match rules_name.rsplit_once('.') {
                                Some((stem, _)) => format!("{stem}.toml"),
                                None => format!("{rules_name}.toml"),
                            };
                            let shown = move || {
                                !kinds_ok.with(BTreeSet::is_empty)
                                    || allowed.with(|a| a.iter().any(|x| x.0 == i as u32))
                            };
                            move || shown().then(|| {
                                let rules_name = rules_name.clone();
                                view! {
                                    <button
                                        class="rules-file"
                                        data-file=i.to_string()
                                        title="The choices above as a file for retrace redact --rules"
                                        on:click=move |_| {
                                            let e = exceptions(&kinds_ok.get_untracked(), &allowed.get_untracked(), i as u32);
                                            save_rules(&e.to_toml(), &rules_name);
                                        }
                                    >
                                        "Save the exceptions (rules file)"
                                    </button>
                                }
                            })
                        }
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <ul class="downloads">{buttons}</ul>
            <p>
                <button
                    id="download-html"
                    disabled=busy.is_some()
                    on:click=move |_| {
                        let every = (0..count).map(|i| download(i, mode, kinds_ok, allowed));
                        super::share::start(v, every.collect())
                    }
                >
                    "Download as HTML"
                </button>
            </p>
        })
    };
    view! {
        <h3>"Sensitive data"</h3>
        {status}
        <div class="redact-mode">
            <label for="redact-mode">"Replace with "</label>
            <select
                id="redact-mode"
                on:change=move |ev| {
                    if let Some(m) = Mode::parse(&event_target_value(&ev)) {
                        mode.set(m);
                    }
                }
            >
                <option value="typed" selected=true>"[REDACTED:kind] (default)"</option>
                <option value="mask">"***"</option>
                <option value="pseudo">"<email-1> (same value, same name)"</option>
            </select>
        </div>
        {downloads}
        <p class="dim small">"The same bytes as " <code>"retrace redact --mode MODE"</code> " writes (with "<code>"--rules"</code>" and the saved exceptions when some values are marked not a secret); made in this tab."</p>
        {findings}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_and_revealed_values_are_marked_outside_tags() {
        // Nothing to mark: the same text.
        assert_eq!(chips_html("<b>plain</b>".to_owned()), "<b>plain</b>");
        note_revealed(vec!["bob@example.org".to_owned()]);
        let html = "<p>mail <a href=\"mailto:bob@example.org\">bob@example.org</a> or [REDACTED:email]</p>";
        assert_eq!(
            chips_html(html.to_owned()),
            "<p>mail <a href=\"mailto:bob@example.org\"><mark class=revealed>bob@example.org</mark></a> \
             or <mark class=redacted title=hidden>[REDACTED:email]</mark></p>"
        );
    }
}
