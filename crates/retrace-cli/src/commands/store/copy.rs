//! `store copy`: sessions from one store to another (folders and
//! databases, either way), through the store's `copy_session`; and
//! `store migrate`: a database store's tables made or brought up to date.

use std::io::Write;

use anyhow::Result;
use retrace_store::{copy_session, ListQuery, SessionId};

use super::location::Location;
use super::parse_id;
use crate::exit::ExitStatus;
use crate::printer::Printer;

pub(super) fn run(
    from: &str,
    to: &str,
    ids: &[String],
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let (from, to) = (Location::parse(from), Location::parse(to));
    let source = from.open(false)?;
    let dest = to.open(false)?;
    let ids: Vec<SessionId> = if ids.is_empty() {
        every_session(&*source.sessions)?
    } else {
        ids.iter().map(|id| parse_id(id)).collect::<Result<_>>()?
    };
    let mut failed = 0;
    let (mut events, mut bytes) = (0u64, 0u64);
    for id in &ids {
        match copy_session(&*source.sessions, &*dest.sessions, id) {
            Ok(report) => {
                events += report.events;
                bytes += report.event_bytes;
                writeln!(
                    printer.stdout(),
                    "{id}  {} events ({} bytes), {} values, {} lists",
                    report.events,
                    report.event_bytes,
                    report.values,
                    report.lists
                )?;
                // Git checkpoints stay on the host that took them.
                if let Some(files) = &source.files {
                    let repository = files.session_dir(id).join("checkpoints.git");
                    if repository.is_dir() && dest.files.is_none() {
                        printer.note(&format!(
                            "session `{id}`'s checkpoints stay in {} on this host; they are not \
                             copied",
                            repository.display()
                        ))?;
                    }
                }
            }
            Err(e) => {
                failed += 1;
                printer.warn(&format!("session `{id}` was not copied: {e}"))?;
            }
        }
    }
    printer.note(&format!(
        "copied {} of {} session{} from {} to {}: {events} events, {bytes} bytes",
        ids.len() - failed,
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        source.shown,
        dest.shown
    ))?;
    Ok(if failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Problems
    })
}

/// Every session of a store, newest activity first.
fn every_session(store: &dyn retrace_store::SessionStore) -> Result<Vec<SessionId>> {
    let mut query = ListQuery::default();
    let mut ids = Vec::new();
    loop {
        let page = store.list(&query)?;
        ids.extend(page.items.into_iter().map(|m| m.session_id));
        match page.next {
            Some(next) => query.after = Some(next),
            None => return Ok(ids),
        }
    }
}

pub(super) fn migrate(location: &Location, printer: &mut Printer) -> Result<ExitStatus> {
    let opened = location.open(true)?;
    let Some(schema) = opened.schema else {
        printer.note(&format!(
            "{} is a folder store: it has no tables to migrate",
            opened.shown
        ))?;
        return Ok(ExitStatus::Success);
    };
    for (version, name) in &schema.applied {
        writeln!(printer.stdout(), "applied migration {version}: {name}")?;
    }
    printer.note(&format!(
        "{}: schema at version {}{}",
        opened.shown,
        schema.to,
        if schema.applied.is_empty() {
            " already".to_owned()
        } else {
            format!(" (was {})", schema.from)
        }
    ))?;
    Ok(ExitStatus::Success)
}
