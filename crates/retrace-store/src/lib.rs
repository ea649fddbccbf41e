//! retrace-store: sessions that agents record, resume, replay and roll back.
//!
//! - [`SessionStore`]: the contract of a store, kept by [`FsStore`]
//!   (`sessions/{id}/…` on disk) and [`MemoryStore`].
//! - [`SessionManager`]: create, restore, save, resume, destroy, list.
//! - [`Recorder`]: records events from any thread without blocking it,
//!   on a writer thread with group commit and rotation.
//! - [`Checkpoints`]: git checkpoints of a workspace after each tool call,
//!   in a repository the store owns.
//! - [`SessionPlayer`]: a recorded session, step by step.
//! - [`copy_session`]: a session from one store to another, losslessly.

// In layer order: each module uses only those above it.
mod error;
mod id;
mod store;
mod event_log;
mod fs;
mod memory;
mod copy;
mod recorder;
mod checkpoint;
mod manager;
mod player;

pub use checkpoint::{
    CheckpointInfo, CheckpointOptions, Checkpoints, CommitInfo, RestoreInfo, SkipReason, Skipped,
};
pub use copy::{copy_session, CopyReport};
pub use error::{StoreError, StoreResult};
pub use event_log::Appender;
pub use fs::FsStore;
pub use id::{SessionId, MAX_ID_LEN};
pub use manager::{SessionManager, WarningSink};
pub use memory::MemoryStore;
pub use player::{PlayerOptions, PlayerStep, SessionPlayer};
pub use recorder::{Durability, Recorder, RecorderOptions, TryRecordError, WarningFn};
pub use store::{
    refuse_version_zero, Checkpointer, Cursor, EncodedEvent, EventSink, EventsRead, ListQuery,
    LogOptions, LogProblem, Page, SessionLock, SessionMeta, SessionStore, StateKey, StateKeys,
    StoredEvent, Versioned,
};
