//! A subagent's run linked back to the call that spawned it: the call's
//! block links to the run (`row.rs`'s `subagent_view`); shown on the run,
//! this says which session and call it came from and returns to that
//! call (the result's row folds into the call's, so the call's row is
//! where it lands). A run opened without its session names the session
//! its lines give (`sessionId`), to open with it.

use leptos::prelude::*;

use super::{history, viewer};
use crate::invisible::name_html;
use crate::state::path_segments;
use retrace_wasm::protocol::Summary;

/// What the run the branch ending at `leaf` belongs to says of where it
/// came from, as HTML (its button carries where it goes); `None` on a
/// branch that is no subagent's run.
fn origin_html(s: &Summary, leaf: u32) -> Option<String> {
    let seg = *path_segments(&s.outline, leaf).last()?;
    let agent = s.subagents.iter().find(|a| a.file == s.outline[seg].file)?;
    let mut out = String::from("<b>Subagent run ");
    out.push_str(&name_html(&agent.agent_id));
    if let Some(d) = &agent.description {
        out.push_str(" — ");
        out.push_str(&name_html(d));
    }
    out.push_str("</b><p>");
    match (agent.spawned_leaf, agent.spawned_by) {
        (Some(leaf), Some(entry)) => {
            out.push_str("Spawned by the call <code class=call-id>");
            out.push_str(&name_html(agent.spawned_call.as_deref().unwrap_or("")));
            out.push_str("</code> in ");
            let file = agent.spawned_file.and_then(|f| s.files.get(f as usize));
            let name = file.map_or("", |f| f.name.rsplit(['/', '\\']).next().unwrap_or(&f.name));
            out.push_str(&name_html(name));
            out.push_str(&format!(
                ". <button class=back-to-call data-leaf={leaf} data-entry={entry}>back to the call</button>"
            ));
        }
        // Opened without its session: its lines name it.
        _ => match s.metadata.iter().find(|(k, _)| k == "session") {
            Some((_, id)) => {
                out.push_str("Spawned in session ");
                out.push_str(&name_html(id));
                out.push_str(
                    ", not open here: open its file with this run to go back to the call.",
                );
            }
            None => out.push_str("The session that spawned it is not open here."),
        },
    }
    out.push_str("</p>");
    Some(out)
}

/// Above the conversation of a subagent's run. Plain HTML with one click
/// handler, as the breadcrumb: a view per part costs the bundle more.
#[component]
pub fn Origin() -> impl IntoView {
    let v = viewer();
    let html = move || {
        let leaf = v.leaf.get()?;
        v.summary.with(|s| origin_html(s.as_ref()?, leaf))
    };
    view! {
        <aside class="subagent-origin" aria-label="Subagent run" hidden=move || html().is_none()
            inner_html=move || html().unwrap_or_default()
            on:click=move |ev| {
                let Some(el) = ev
                    .target()
                    .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                else {
                    return;
                };
                let at = |name| el.get_attribute(name).and_then(|n| n.parse::<u32>().ok());
                if let (Some(leaf), Some(entry)) = (at("data-leaf"), at("data-entry")) {
                    history::push_next();
                    v.go_to_entry(leaf, entry);
                }
            }>
        </aside>
    }
}
