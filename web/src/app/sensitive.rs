//! Sensitive data: the header's show/hide toggle, and the review pane that
//! lists what redaction would take out and downloads redacted copies.

use leptos::prelude::*;
use retrace_core::redact::Mode;

use super::viewer;
use crate::protocol::Request;
use crate::state::{bytes, count};

/// Findings listed in the pane at once.
const LISTED: usize = 200;

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
    let mode = RwSignal::new(Mode::Typed);
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
            .map(|(k, n)| view! { <li><span class="code">{k.clone()}</span>" "{count(*n)}</li> })
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
                view! {
                    <li>
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
                            <span class="path">{f.path}</span>
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
                                crate::client::send(
                                    &Request::Download {
                                        file: i as u32,
                                        mode: mode.get_untracked().as_str().to_owned(),
                                    },
                                    &[],
                                );
                            }
                        >
                            {format!("Download {name} redacted")}
                        </button>
                        {progress}
                    </li>
                }
            })
            .collect_view();
        Some(view! { <ul class="downloads">{buttons}</ul> })
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
                <option value="typed" selected=true>"[REDACTED:kind]"</option>
                <option value="mask">"***"</option>
                <option value="pseudo">"<email-1> (same value, same name)"</option>
            </select>
        </div>
        {downloads}
        <p class="dim small">"The same bytes as " <code>"retrace redact --mode MODE"</code> " writes; made in this tab."</p>
        {findings}
    }
}
