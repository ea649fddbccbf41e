//! What scripts ask of the open session (the `api` feature): the branch
//! tree node by node, a leaf's messages, a leaf written for another
//! provider's API. Each is the core's (`Tree`, `Session::context`,
//! `migrate::try_migrate`, as `retrace tree`, `show` and `migrate` call
//! them), bodies read as they are shown: with sensitive data hidden unless
//! `hide_sensitive(false)` said otherwise.

use retrace_core::migrate::{try_migrate, MigrateError};
use retrace_core::{Api, ContextOptions, EntryId};

use super::files::Files;
use super::open::Open;
use crate::protocol::{Context, EngineError, ErrorCode, Migration, SessionTree, TreeNodes};

impl<F: Files> Open<F> {
    /// The branch tree: each node with its parent, the roots, leaves,
    /// tips and branch points.
    pub fn tree(&self) -> SessionTree {
        let s = &self.session;
        let tree = s.tree();
        let mut nodes = TreeNodes::default();
        for e in (0..s.entries().len() as u32).map(EntryId) {
            if !tree.contains(e) {
                continue;
            }
            let entry = s.entry(e);
            nodes.push(
                e.0,
                tree.parent(e).map(|p| p.0),
                s.label(e),
                s.kind(e).to_owned(),
                s.role(e).to_owned(),
                u32::from(entry.file.0),
                entry.line,
            );
        }
        let ids = |list: &[EntryId]| list.iter().map(|e| e.0).collect();
        SessionTree {
            nodes,
            roots: ids(tree.roots()),
            leaves: tree.leaves().map(|e| e.0).collect(),
            tips: ids(tree.tips()),
            default_leaf: tree.default_leaf().map(|e| e.0),
            branch_points: tree.branch_points().to_vec(),
        }
    }

    fn node(&self, leaf: u32) -> Result<EntryId, EngineError> {
        let at = EntryId(leaf);
        if !self.session.tree().contains(at) {
            return Err(EngineError::not_found(format!(
                "entry {leaf} is not in the tree"
            )));
        }
        Ok(at)
    }

    /// The messages of the branch ending at `leaf`.
    pub fn context(&mut self, leaf: u32) -> Result<Context, EngineError> {
        let at = self.node(leaf)?;
        let (messages, revealed) = self.shown_revealing(|s, source| s.context(at, source));
        Ok(Context {
            leaf,
            messages: messages?,
            revealed,
        })
    }

    /// The branch ending at `leaf` as the history of a request to `to`,
    /// and what that loses; a branch with nothing to send is refused
    /// (`nothing-to-send`), as `retrace migrate` refuses it.
    pub fn migrate(&mut self, leaf: u32, to: Api) -> Result<Migration, EngineError> {
        let at = self.node(leaf)?;
        // Payloads too, as the CLI reads them: images and signatures are
        // what a provider needs back.
        let options = ContextOptions { payloads: true };
        let (messages, revealed) =
            self.shown_revealing(|s, source| s.context_with(at, source, options));
        let migration = try_migrate(&messages?, to).map_err(|e| {
            let MigrateError::NothingToSend { .. } = e;
            let s = &self.session;
            EngineError::new(
                ErrorCode::NothingToSend,
                format!("leaf {} (line {}): {e}", s.label(at), s.entry(at).line),
            )
        })?;
        Ok(Migration {
            leaf,
            body: migration.body,
            report: migration.report,
            revealed,
        })
    }
}
