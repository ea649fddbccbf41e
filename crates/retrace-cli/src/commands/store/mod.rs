//! `retrace store`: sessions that agents record, over `retrace-store`. One
//! module per concept: where a store is (a folder or a database), the
//! sessions themselves, their events, replay, copies between stores, and
//! the git checkpoints of their workspace. What they share is here: the
//! opened store, ids from the command line, a session's workspace and
//! checkpoint repository.

mod checkpoints;
mod copy;
mod events;
mod location;
mod replay;
mod sessions;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Result};
use retrace_store::{
    CheckpointOptions, Checkpoints, FsStore, PlayerOptions, SessionId, SessionManager, SessionMeta,
    SessionPlayer, SessionStore,
};
use serde_json::Value;

use location::{this_host, Location};

use crate::args::{OutputOptions, ReadArgs, StoreArgs, StoreCommand};
use crate::commands::Run;
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// The meta field that names a session's workspace when it is not the
/// default one.
const WORKSPACE_KEY: &str = "workspace";

/// The meta field that records where a session's checkpoints are when
/// its store is a database: `{"host": …, "repository": …}`. They stay on
/// the file system of the host that runs the tools.
const CHECKPOINTS_KEY: &str = "checkpoints";

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
        // Between stores: named by the command, not by --root or --url.
        if let StoreCommand::Copy { from, to, ids } = &self.command {
            return copy::run(from, to, ids, printer);
        }
        let location = Location::of(self)?;
        if let StoreCommand::Migrate = &self.command {
            return copy::migrate(&location, printer);
        }
        let store = Store::open(location)?;
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
            StoreCommand::Copy { .. } | StoreCommand::Migrate => unreachable!("run above"),
        }
    }
}

/// An id from the command line, checked before it reaches a path.
fn parse_id(id: &str) -> Result<SessionId> {
    Ok(SessionId::parse(id)?)
}

/// The store a command works on, through the contract and a manager; a
/// folder store also as itself (its paths).
struct Store {
    location: Location,
    sessions: Arc<dyn SessionStore>,
    files: Option<Arc<FsStore>>,
    shown: String,
    manager: SessionManager,
}

impl Store {
    fn open(location: Location) -> Result<Store> {
        let opened = location.open(false)?;
        // The store's warnings (a failed save, a line left out of an
        // export) on stderr, as the CLI's own are; no logger is set up.
        let manager = SessionManager::with_warnings(
            opened.sessions.clone(),
            Arc::new(|id: &SessionId, e: &retrace_store::StoreError| {
                eprintln!("retrace: session `{id}`: {e}")
            }),
        );
        Ok(Store {
            location,
            sessions: opened.sessions,
            files: opened.files,
            shown: opened.shown,
            manager,
        })
    }

    fn meta(&self, id: &SessionId) -> Result<SessionMeta> {
        Ok(self.sessions.meta(id)?)
    }

    /// Where session `id` works: as named at creation, else
    /// `workspace/{id}` beside the store's folder (the current folder for
    /// a database).
    fn workspace(&self, meta: &SessionMeta) -> PathBuf {
        match meta.extra.get(WORKSPACE_KEY).and_then(|w| w.as_str()) {
            Some(dir) => PathBuf::from(dir),
            None => self.default_workspace(&meta.session_id),
        }
    }

    fn default_workspace(&self, id: &SessionId) -> PathBuf {
        let parent = match &self.location {
            Location::Folder(root) => root.parent().unwrap_or(Path::new("")),
            Location::Url(_) => Path::new(""),
        };
        parent.join("workspace").join(id.as_str())
    }

    /// The meta fields a new session gets beside its workspace: for a
    /// database, where its checkpoints will be (this host, and
    /// `checkpoints/{id}.git` in the current folder).
    fn checkpoints_record(&self, id: &SessionId) -> Result<Option<Value>> {
        if self.files.is_some() {
            // Inside the session's folder: it goes with the session.
            return Ok(None);
        }
        let repository = std::path::absolute(Path::new("checkpoints").join(format!("{id}.git")))?;
        Ok(Some(serde_json::json!({
            "host": this_host(),
            "repository": repository.display().to_string(),
        })))
    }

    /// The repository the store keeps a session's checkpoints in: the
    /// one its meta records (on this host only), else inside the
    /// session's folder for a folder store; `None` for a database
    /// session that records none (one made through the library, or
    /// copied in).
    fn git_dir(&self, meta: &SessionMeta) -> Result<Option<PathBuf>> {
        let id = &meta.session_id;
        if let Some(record) = meta.extra.get(CHECKPOINTS_KEY) {
            let (Some(host), Some(repository)) = (
                record.get("host").and_then(Value::as_str),
                record.get("repository").and_then(Value::as_str),
            ) else {
                bail!("session `{id}`: its `{CHECKPOINTS_KEY}` field is not {{host, repository}}: {record}");
            };
            let here = this_host();
            if host != here {
                bail!(
                    "session `{id}`'s checkpoints are on host `{host}` in {repository}, and this \
                     is `{here}`: run this there"
                );
            }
            return Ok(Some(PathBuf::from(repository)));
        }
        Ok(self
            .files
            .as_ref()
            .map(|f| f.session_dir(id).join("checkpoints.git")))
    }

    /// The session's checkpoints; an error naming the workspace when it
    /// does not exist, or saying that no repository is recorded.
    fn checkpoints(&self, id: &SessionId) -> Result<Checkpoints> {
        let meta = self.meta(id)?;
        let workspace = self.workspace(&meta);
        if !workspace.is_dir() {
            bail!(
                "session `{id}` has no workspace: {} is not a folder",
                workspace.display()
            );
        }
        let Some(git_dir) = self.git_dir(&meta)? else {
            bail!(
                "session `{id}` records no checkpoint repository (it was not made by `retrace \
                 store create`)"
            );
        };
        Ok(Checkpoints::open(
            &workspace,
            &git_dir,
            id,
            CheckpointOptions::default(),
        )?)
    }

    /// The session's checkpoints, if its workspace exists and it has a
    /// repository.
    fn checkpoints_if_any(&self, id: &SessionId) -> Result<Option<Checkpoints>> {
        let meta = self.meta(id)?;
        if !self.workspace(&meta).is_dir() || self.git_dir(&meta)?.is_none() {
            return Ok(None);
        }
        self.checkpoints(id).map(Some)
    }

    /// A player of session `id`: from its folder, or its events in the
    /// database.
    fn player(&self, id: &SessionId, options: PlayerOptions) -> Result<SessionPlayer> {
        Ok(match &self.location {
            Location::Folder(root) => SessionPlayer::load(root, id, options)?,
            Location::Url(_) => SessionPlayer::from_store(&*self.sessions, id, options)?,
        })
    }
}
