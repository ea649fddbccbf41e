//! `store create`, `list`, `show`, `destroy`: the sessions themselves.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use retrace_core::format_rfc3339_ms;
use retrace_store::{ListQuery, SessionId, SessionMeta, StateKey};
use serde_json::{json, Map, Value};

use super::{Store, CHECKPOINTS_KEY, WORKSPACE_KEY};
use crate::exit::ExitStatus;
use crate::printer::Printer;

pub(super) fn create(
    store: &Store,
    name: &str,
    config: Option<&Path>,
    workspace: Option<&Path>,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let config: Value = match config {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read the configuration {}", path.display()))?;
            serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not JSON", path.display()))?
        }
        None => Value::Object(Map::new()),
    };
    let id = SessionId::new();
    let mut extra = Map::new();
    // A database has no folder to put the workspace beside: its place
    // is recorded, as the current folder names it.
    let workspace = match (workspace, store.files.is_some()) {
        (Some(dir), _) => Some(dir.to_path_buf()),
        (None, false) => Some(store.default_workspace(&id)),
        (None, true) => None,
    };
    if let Some(dir) = workspace {
        let dir = std::path::absolute(&dir)
            .with_context(|| format!("cannot resolve {}", dir.display()))?;
        extra.insert(
            WORKSPACE_KEY.into(),
            Value::String(dir.display().to_string()),
        );
    }
    if let Some(record) = store.checkpoints_record(&id)? {
        extra.insert(CHECKPOINTS_KEY.into(), record);
    }
    let id = store.manager.create_as(id, name, &config, extra)?;
    // The workspace is there from the start, so the first tool call that
    // writes into it is checkpointed.
    let workspace = store.workspace(&store.meta(&id)?);
    std::fs::create_dir_all(&workspace)
        .with_context(|| format!("cannot create the workspace {}", workspace.display()))?;
    writeln!(printer.stdout(), "{id}")?;
    Ok(ExitStatus::Success)
}

pub(super) fn list(
    store: &Store,
    agent: Option<&str>,
    limit: usize,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let mut query = ListQuery {
        agent_config: agent.map(str::to_owned),
        after: None,
        limit,
    };
    let mut left = limit;
    while left > 0 {
        query.limit = left.min(ListQuery::DEFAULT_LIMIT);
        let page = store.manager.list(&query)?;
        for warning in &page.warnings {
            printer.warn(warning)?;
        }
        for meta in &page.items {
            printer.emit(
                || meta,
                |out| {
                    writeln!(
                        out,
                        "{}  {}  {}",
                        meta.session_id,
                        time(meta.last_active_time),
                        meta.agent_config
                    )
                },
            )?;
        }
        left = left.saturating_sub(page.items.len());
        match page.next {
            Some(next) if !page.items.is_empty() => query.after = Some(next),
            _ => break,
        }
    }
    Ok(ExitStatus::Success)
}

pub(super) fn show(store: &Store, id: &SessionId, printer: &mut Printer) -> Result<ExitStatus> {
    let meta = store.meta(id)?;
    let state = store.sessions.load_state(id, &StateKey::state())?;
    let config = store.sessions.config_snapshot(id)?;
    let events = store.sessions.read_events(id)?;
    let workspace = store.workspace(&meta);
    // Where it is kept: its folder, or the database.
    let (place, at) = match &store.files {
        Some(files) => ("folder", files.session_dir(id).display().to_string()),
        None => ("store", store.shown.clone()),
    };
    let checkpoints = match store.checkpoints_if_any(id)? {
        Some(c) => c.list()?.len(),
        None => 0,
    };
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for e in &events.events {
        let t = e.event.event_type().as_str();
        match counts.iter_mut().find(|(k, _)| *k == t) {
            Some((_, n)) => *n += 1,
            None => counts.push((t, 1)),
        }
    }
    printer.emit_pretty(
        || {
            json!({
                "meta": &meta,
                place: &at,
                "workspace": &workspace,
                "state_version": state.as_ref().map(|s| s.version),
                "state": state.as_ref().map(|s| &s.value),
                "config_snapshot": &config,
                "events": events.events.len(),
                "event_types": counts.iter().map(|(k, n)| (k.to_string(), json!(n))).collect::<Map<_, _>>(),
                "problems": &events.problems,
                "checkpoints": checkpoints,
            })
        },
        |out| {
            print_meta(out, &meta)?;
            writeln!(out, "  {place:<13} {at}")?;
            writeln!(out, "  workspace     {}", workspace.display())?;
            match &state {
                Some(s) => writeln!(out, "  state         version {}", s.version)?,
                None => writeln!(out, "  state         never saved")?,
            }
            let kinds: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            writeln!(
                out,
                "  events        {}{}",
                events.events.len(),
                if kinds.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", kinds.join(", "))
                }
            )?;
            writeln!(out, "  checkpoints   {checkpoints}")?;
            for p in &events.problems {
                writeln!(out, "  problem       {}:{}: {}", p.file, p.line, p.message)?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}

fn print_meta(out: &mut dyn Write, meta: &SessionMeta) -> std::io::Result<()> {
    writeln!(out, "{}", meta.session_id)?;
    writeln!(out, "  agent         {}", meta.agent_config)?;
    writeln!(out, "  created       {}", time(meta.create_time))?;
    writeln!(out, "  last active   {}", time(meta.last_active_time))
}

pub(super) fn destroy(store: &Store, id: &SessionId, printer: &mut Printer) -> Result<ExitStatus> {
    if store.manager.destroy(id)? {
        printer.note(&format!("destroyed session `{id}`"))?;
        Ok(ExitStatus::Success)
    } else {
        Err(retrace_store::StoreError::NotFound { id: id.to_string() }.into())
    }
}

/// A time as the rest of the CLI prints it.
pub(super) fn time(t: chrono::DateTime<chrono::Utc>) -> String {
    format_rfc3339_ms(t.timestamp_millis())
}
