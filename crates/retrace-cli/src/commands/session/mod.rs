//! The verbs that read a session file (or a folder of them, or stdin), and
//! what they share: several inputs in turn, the branch named by `--leaf`.

pub(super) mod cat;
pub(super) mod compact;
pub(super) mod info;
pub(super) mod migrate;
pub(super) mod redact;
pub(super) mod search;
pub(super) mod show;
pub(super) mod tree;
pub(super) mod validate;

use anyhow::Result;
use retrace_core::EntryId;

use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::Loaded;
use crate::printer::Printer;

/// Runs `each` over every path; an unusable input is reported and the rest
/// are still handled (like `cat a b`), ending in [`ExitStatus::Unreadable`].
/// Any other error (a failed write) ends the run.
fn for_each_input(
    paths: &[String],
    printer: &mut Printer,
    mut each: impl FnMut(&str, &mut Printer) -> Result<ExitStatus>,
) -> Result<ExitStatus> {
    let mut worst = ExitStatus::Success;
    for path in paths {
        let status = match each(path, printer) {
            Ok(status) => status,
            Err(err) if err.downcast_ref::<InputError>().is_some() => {
                printer.warn(&format!("{err:#}"))?;
                ExitStatus::Unreadable
            }
            Err(err) => return Err(err),
        };
        worst = worst.max(status);
    }
    Ok(worst)
}

/// The entry named by `--leaf`, or the default leaf.
fn leaf(loaded: &Loaded, wanted: Option<&str>) -> Result<EntryId> {
    let s = &loaded.session;
    let name = &loaded.name;
    match wanted {
        Some(id) => {
            let e = s.find(id).ok_or_else(|| {
                InputError::new(format!(
                    "no entry with id `{id}` (ids are entry ids, or L<line> for entries without one)"
                ))
                .on(name)
            })?;
            if !s.tree().contains(e) {
                let kind = match s.kind(e) {
                    "" => "a broken line".to_owned(),
                    k => format!("a `{k}` line"),
                };
                return Err(InputError::new(format!(
                    "`{id}` is not part of the conversation tree ({kind}, line {})",
                    s.entry(e).line
                ))
                .on(name));
            }
            Ok(e)
        }
        None => s.tree().default_leaf().ok_or_else(|| {
            let why = if s.entries().is_empty() {
                "the session has no entries".to_owned()
            } else {
                format!(
                    "no conversation to show: {} entries, none of them on a branch ({})",
                    s.entries().len(),
                    s.format().describe()
                )
            };
            InputError::new(why).on(name)
        }),
    }
}
