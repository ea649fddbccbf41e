//! `retrace store`: sessions that agents record, over `retrace-store`. One
//! module per concept: the sessions themselves, their events, replay, and
//! the git checkpoints of their workspace. What they share is here: the
//! store's folder, ids from the command line, a session's workspace.

mod checkpoints;
mod events;
mod replay;
mod sessions;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use retrace_store::{
    CheckpointOptions, Checkpoints, FsStore, SessionId, SessionManager, SessionMeta, SessionStore,
};

use crate::args::{OutputOptions, ReadArgs, StoreArgs, StoreCommand};
use crate::commands::Run;
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// The meta field that names a session's workspace when it is not the
/// default one.
const WORKSPACE_KEY: &str = "workspace";

impl Run for StoreArgs {
    fn output(&self) -> OutputOptions {
        let json = match &self.command {
            StoreCommand::List { json, .. }
            | StoreCommand::Show { json, .. }
            | StoreCommand::Checkpoints { json, .. } => *json,
            _ => false,
        };
        OutputOptions::new(json, false)
    }

    fn run(&self, _read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        let store = Store::open(&self.root)?;
        match &self.command {
            StoreCommand::Create {
                name,
                config,
                workspace,
            } => sessions::create(
                &store,
                name,
                config.as_deref(),
                workspace.as_deref(),
                printer,
            ),
            StoreCommand::List { agent, limit, .. } => {
                sessions::list(&store, agent.as_deref(), *limit, printer)
            }
            StoreCommand::Show { id, .. } => sessions::show(&store, &parse_id(id)?, printer),
            StoreCommand::Destroy { id } => sessions::destroy(&store, &parse_id(id)?, printer),
            StoreCommand::Record { id, event, durable } => {
                events::record(&store, &parse_id(id)?, event, *durable, printer)
            }
            StoreCommand::Events { id, last, json } => {
                events::list(&store, &parse_id(id)?, *last, *json, printer)
            }
            StoreCommand::Pop { id } => events::pop(&store, &parse_id(id)?, printer),
            StoreCommand::Resume { id, message } => {
                events::resume(&store, &parse_id(id)?, message, printer)
            }
            StoreCommand::Export { id, redact, output } => {
                events::export(&store, &parse_id(id)?, *redact, output.as_deref(), printer)
            }
            StoreCommand::Replay {
                id,
                fast,
                show_sensitive,
            } => replay::run(&store, &parse_id(id)?, *fast, *show_sensitive, printer),
            StoreCommand::Checkpoint { id, tool } => {
                checkpoints::take(&store, &parse_id(id)?, tool, printer)
            }
            StoreCommand::Checkpoints { id, path, .. } => {
                checkpoints::list(&store, &parse_id(id)?, path.as_deref(), printer)
            }
            StoreCommand::Restore {
                id,
                checkpoint,
                path,
            } => checkpoints::restore(&store, &parse_id(id)?, checkpoint, path.as_deref(), printer),
            StoreCommand::Diff { id, a, b } => {
                checkpoints::diff(&store, &parse_id(id)?, a, b, printer)
            }
        }
    }
}

/// An id from the command line, checked before it reaches a path.
fn parse_id(id: &str) -> Result<SessionId> {
    Ok(SessionId::parse(id)?)
}

/// The store a command works on: its folder, as a file store and through
/// a manager.
struct Store {
    root: PathBuf,
    files: Arc<FsStore>,
    manager: SessionManager,
}

impl Store {
    fn open(root: &Path) -> Result<Store> {
        let files = Arc::new(
            FsStore::open(root)
                .with_context(|| format!("cannot open the store in {}", root.display()))?,
        );
        // The store's warnings (a failed save, a line left out of an
        // export) on stderr, as the CLI's own are; no logger is set up.
        let manager = SessionManager::with_warnings(
            files.clone() as Arc<dyn SessionStore>,
            Arc::new(|id: &SessionId, e: &retrace_store::StoreError| {
                eprintln!("retrace: session `{id}`: {e}")
            }),
        );
        Ok(Store {
            root: root.to_path_buf(),
            files,
            manager,
        })
    }

    fn meta(&self, id: &SessionId) -> Result<SessionMeta> {
        Ok(self.files.meta(id)?)
    }

    /// Where session `id` works: as named at creation, else
    /// `workspace/{id}` beside the store's folder.
    fn workspace(&self, meta: &SessionMeta) -> PathBuf {
        match meta.extra.get(WORKSPACE_KEY).and_then(|w| w.as_str()) {
            Some(dir) => PathBuf::from(dir),
            None => self.default_workspace(&meta.session_id),
        }
    }

    fn default_workspace(&self, id: &SessionId) -> PathBuf {
        let parent = self.root.parent().unwrap_or(Path::new(""));
        parent.join("workspace").join(id.as_str())
    }

    /// The repository the store keeps a session's checkpoints in: inside
    /// the session's folder, so it goes with the session.
    fn git_dir(&self, id: &SessionId) -> PathBuf {
        self.files.session_dir(id).join("checkpoints.git")
    }

    /// The session's checkpoints; an error naming the workspace when it
    /// does not exist.
    fn checkpoints(&self, id: &SessionId) -> Result<Checkpoints> {
        let meta = self.meta(id)?;
        let workspace = self.workspace(&meta);
        if !workspace.is_dir() {
            anyhow::bail!(
                "session `{id}` has no workspace: {} is not a folder",
                workspace.display()
            );
        }
        Ok(Checkpoints::open(
            &workspace,
            &self.git_dir(id),
            id,
            CheckpointOptions::default(),
        )?)
    }

    /// The session's checkpoints, if its workspace exists.
    fn checkpoints_if_any(&self, id: &SessionId) -> Result<Option<Checkpoints>> {
        let meta = self.meta(id)?;
        if !self.workspace(&meta).is_dir() {
            return Ok(None);
        }
        self.checkpoints(id).map(Some)
    }
}
