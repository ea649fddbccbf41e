//! The engine: one opened session (or a folder's list of them) answering
//! the protocol, as plain Rust over [`Files`] and a [`Host`]. Both
//! transports run it (the worker's message loop, the direct `Engine`
//! class), and the native tests run it over real files.
//!
//! One request kind is one method here: [`Engine::call`] dispatches a
//! [`Request`] to it, and the direct class calls it by the same name.

mod files;
mod describe;
mod host;
mod sensitive;
mod revealed;
mod folder;
mod open;
mod opening;
#[cfg(feature = "api")]
mod api;

#[cfg(feature = "api")]
use retrace_core::Api;
use retrace_core::{order_files, Listing, SearchFilter};

pub use describe::{images, shorten};
pub use files::{ready, Fetch, Files, MemoryFiles, SessionFiles};
pub use folder::Folder;
pub use host::Host;
pub use open::Open;
pub use opening::{summarize, Indexed, Opening};
pub use sensitive::{download_name, edited_name};

use crate::protocol::{
    Allow, Bodies, BranchRows, Comparison, EditPoints, EngineError, ErrorCode, Event, FolderOpened,
    Image, ListedBatch, Made, Previews, Request, Response, ReviewAllow, SearchResults, StatsReport,
    Summary,
};
#[cfg(feature = "api")]
use crate::protocol::{Context, Migration, SessionTree};

/// Milliseconds of titles read per slice of a folder's listing: requests
/// about an open session wait at most about this long.
const TITLES_MS: f64 = 50.0;

/// The refusal of a request kind this build was made without (its cargo
/// feature, `Request::feature` names it, was off). The methods check
/// with `cfg!` at their start, so the rest of them, and all they alone
/// call, is compiled out of such a build.
fn not_built(kind: &str, feature: &str) -> EngineError {
    EngineError::new(
        ErrorCode::Unsupported,
        format!("`{kind}` is not in this build of the engine (cargo feature `{feature}`)"),
    )
}

/// What a request came to.
pub enum Outcome<F: Files> {
    /// Its answer.
    Reply(Response),
    /// Files to read first ([`Opening::read`]); [`Engine::opened`] then
    /// gives the answer.
    Opening(Opening<F>),
    /// Background work answers it through [`Host::reply`] (a redacted copy).
    Later,
}

/// The engine's state.
pub struct Engine<F: Files> {
    open: Option<Open<F>>,
    /// The folder listed last, which `open_listed` picks from.
    folder: Option<Folder<F>>,
    /// Counts opens: a file still being read when another comes stops,
    /// and its answer says it was superseded.
    opens: u64,
}

impl<F: Files> Default for Engine<F> {
    fn default() -> Self {
        Engine::new()
    }
}

impl<F: Files> Engine<F> {
    pub fn new() -> Engine<F> {
        Engine {
            open: None,
            folder: None,
            opens: 0,
        }
    }

    /// Serves one request (`files` are those sent with it). `ticket` names
    /// it in a later [`Host::reply`].
    pub fn call(
        &mut self,
        ticket: u32,
        request: Request,
        files: Option<F>,
        host: &mut dyn Host,
    ) -> Result<Outcome<F>, EngineError> {
        let files = || {
            files.ok_or_else(|| {
                EngineError::bad_request("an `open` or `open_folder` request without its files")
            })
        };
        let reply = |r: Response| Ok(Outcome::Reply(r));
        match request {
            Request::Open {
                leaf_label,
                entry,
                first_rows,
            } => {
                let mut opening = self.open(files()?, leaf_label, entry);
                opening.first_rows = first_rows;
                Ok(Outcome::Opening(opening))
            }
            Request::OpenFolder { paths } => self.open_folder(files()?, &paths),
            Request::OpenListed { session } => Ok(Outcome::Opening(self.open_listed(session)?)),
            Request::Branch { leaf } => reply(Response::Branch(Box::new(self.branch(leaf)?))),
            Request::Bodies { leaf, start, end } => {
                reply(Response::Bodies(self.bodies(leaf, start, end)?))
            }
            Request::Search { query, filter } => {
                reply(Response::SearchResults(self.search(&query, filter)?))
            }
            Request::Stats => reply(Response::Stats(Box::new(self.stats()?))),
            Request::Image { leaf, row, image } => {
                reply(Response::Image(self.image(leaf, row, image)?))
            }
            Request::Previews { segments } => reply(Response::Previews(self.previews(&segments)?)),
            Request::HideSensitive { hide } => {
                self.hide_sensitive(hide)?;
                reply(Response::Done)
            }
            Request::Review { disable, allow } => {
                self.review(&disable, &allow)?;
                reply(Response::Done)
            }
            Request::Scan => {
                self.scan()?;
                reply(Response::Done)
            }
            Request::Download {
                file,
                mode,
                disable,
                allow,
            } => {
                self.download(ticket, file, &mode, &disable, &allow)?;
                Ok(Outcome::Later)
            }
            Request::EditPoints { leaf } => reply(Response::EditPoints(self.edit_points(leaf)?)),
            Request::Fork { leaf, row } => reply(Response::File(self.fork(leaf, row, host)?)),
            Request::Seal { leaf } => reply(Response::File(self.seal(leaf, host)?)),
            Request::Compare { left, right } => {
                reply(Response::Comparison(Box::new(self.compare(left, right)?)))
            }
            #[cfg(feature = "api")]
            Request::Tree => reply(Response::Tree(Box::new(self.tree()?))),
            #[cfg(feature = "api")]
            Request::Context { leaf } => reply(Response::Context(self.context(leaf)?)),
            #[cfg(feature = "api")]
            Request::Migrate { leaf, to } => {
                reply(Response::Migration(Box::new(self.migrate(leaf, to)?)))
            }
        }
    }

    /// Serves a request whose files need no waiting (files in memory): an
    /// open is read at once.
    pub fn call_now(
        &mut self,
        ticket: u32,
        request: Request,
        files: Option<F>,
        host: &mut dyn Host,
    ) -> Result<Option<Response>, EngineError> {
        match self.call(ticket, request, files, host)? {
            Outcome::Reply(response) => Ok(Some(response)),
            Outcome::Later => Ok(None),
            Outcome::Opening(opening) => {
                let read = {
                    let clock = std::cell::RefCell::new(&mut *host);
                    ready(opening.read(|| clock.borrow_mut().clock_ms(), |_| true))
                }
                .ok_or_else(|| {
                    EngineError::internal("these files cannot be read without waiting")
                })?;
                self.opened(read, host).map(Some)
            }
        }
    }

    /// `open`: the files of one session (a main file and its side files,
    /// in any order), to read with [`Opening::read`].
    pub fn open(
        &mut self,
        files: F,
        leaf_label: Option<String>,
        entry: Option<String>,
    ) -> Opening<F> {
        // In the order and with the side-cars `order_files` gives chosen
        // files (the conversation first, then subagents, split sets in
        // numeric order; a `*.meta.json` attached to the file of the same
        // stem, a `*.snapshots.json` to the file it names).
        let names: Vec<String> = (0..files.count()).map(|i| files.name(i)).collect();
        let ordered = order_files(&names, Listing::Chosen);
        self.folder = None;
        self.opens += 1;
        Opening::new(files, ordered, leaf_label, entry, self.opens)
    }

    /// `open_folder`: the files of a folder (`paths[i]` the path of file
    /// `i` under it) split into sessions. A folder of one session opens
    /// as that session; a folder of several is answered with their names,
    /// and their titles follow as `listed` events.
    pub fn open_folder(&mut self, files: F, paths: &[String]) -> Result<Outcome<F>, EngineError> {
        if !cfg!(feature = "folders") {
            return Err(not_built("open_folder", "folders"));
        }
        let folder = Folder::split(files, paths)?;
        let names = folder.names();
        if folder.sessions.len() == 1 {
            let (files, ordered) = folder.session(0).expect("one session");
            self.folder = None;
            self.opens += 1;
            let mut opening = Opening::new(files, ordered, None, None, self.opens);
            opening.folder = Some(names);
            return Ok(Outcome::Opening(opening));
        }
        self.folder = Some(folder);
        Ok(Outcome::Reply(Response::Folder(FolderOpened {
            sessions: names,
            summary: None,
        })))
    }

    /// `open_listed`: the `session`th session of the folder listed last
    /// (the list stays for another pick).
    pub fn open_listed(&mut self, session: u32) -> Result<Opening<F>, EngineError> {
        if !cfg!(feature = "folders") {
            return Err(not_built("open_listed", "folders"));
        }
        let (files, ordered) = self
            .folder
            .as_ref()
            .and_then(|f| f.session(session as usize))
            .ok_or_else(|| {
                EngineError::not_found(format!("no session {session} in the folder listed"))
            })?;
        self.opens += 1;
        Ok(Opening::new(files, ordered, None, None, self.opens))
    }

    /// Whether opening number `generation` is still the latest.
    pub fn is_current(&self, generation: u64) -> bool {
        self.opens == generation
    }

    /// Installs what an [`Opening`] read (unless a later open superseded
    /// it) and gives the answer to its request: the summary, or the
    /// folder's list with it.
    pub fn opened(
        &mut self,
        read: Result<Indexed<F>, EngineError>,
        host: &mut dyn Host,
    ) -> Result<Response, EngineError> {
        let indexed = read?;
        if !self.is_current(indexed.generation) {
            return Err(EngineError::new(
                ErrorCode::Superseded,
                "a later open replaced this one",
            ));
        }
        if let Some(old) = self.open.as_mut() {
            old.abandon(host);
        }
        self.open = Some(indexed.open);
        let summary: Box<Summary> = Box::new(indexed.summary);
        Ok(match indexed.folder {
            Some(sessions) => Response::Folder(FolderOpened {
                sessions,
                summary: Some(summary),
            }),
            None => Response::Opened(summary),
        })
    }

    fn session(&mut self) -> Result<&mut Open<F>, EngineError> {
        self.open
            .as_mut()
            .ok_or_else(|| EngineError::new(ErrorCode::NoSession, "no session is open"))
    }

    /// `branch`: the rows of the branch ending at entry `leaf`.
    pub fn branch(&mut self, leaf: u32) -> Result<BranchRows, EngineError> {
        self.session()?.branch_rows(leaf)
    }

    /// `bodies`: the bodies of rows `start..end` of that branch.
    pub fn bodies(&mut self, leaf: u32, start: u32, end: u32) -> Result<Bodies, EngineError> {
        self.session()?.bodies(leaf, start, end)
    }

    /// `search`: the session's text as shown.
    pub fn search(
        &mut self,
        query: &str,
        filter: SearchFilter,
    ) -> Result<SearchResults, EngineError> {
        if !cfg!(feature = "search") {
            return Err(not_built("search", "search"));
        }
        self.session()?.search(query, filter)
    }

    /// `stats`: token totals and tool counts (every body parsed).
    pub fn stats(&mut self) -> Result<StatsReport, EngineError> {
        if !cfg!(feature = "stats") {
            return Err(not_built("stats", "stats"));
        }
        self.session()?.stats()
    }

    /// `image`: the `image`th image of row `row`, as a `data:` URL.
    pub fn image(&mut self, leaf: u32, row: u32, image: u32) -> Result<Image, EngineError> {
        self.session()?.image(leaf, row, image)
    }

    /// `previews`: previews of these outline segments.
    pub fn previews(&mut self, segments: &[u32]) -> Result<Previews, EngineError> {
        Ok(self.session()?.previews(segments))
    }

    /// `hide_sensitive`: bodies, snippets and previews shown with sensitive
    /// data hidden, or as written (each value marked).
    pub fn hide_sensitive(&mut self, hide: bool) -> Result<(), EngineError> {
        self.session()?.hide = hide;
        Ok(())
    }

    /// `review`: what the review marked "not a secret" (kinds, findings in
    /// any file) shown as written, the values named beside, while the
    /// rest stays hidden; empty lists take the exceptions back.
    pub fn review(&mut self, disable: &[String], allow: &[ReviewAllow]) -> Result<(), EngineError> {
        if !cfg!(feature = "share") {
            return Err(not_built("review", "share"));
        }
        let open = self.session()?;
        let files = open.session.files().len();
        if let Some(a) = allow.iter().find(|a| a.file as usize >= files) {
            return Err(EngineError::not_found(format!(
                "no file {} (a finding of {} on line {})",
                a.file, a.kind, a.line
            )));
        }
        open.review = sensitive::review_rules(disable, allow)?;
        Ok(())
    }

    /// `scan`: scan the session for sensitive data in the background.
    pub fn scan(&mut self) -> Result<(), EngineError> {
        if !cfg!(feature = "share") {
            return Err(not_built("scan", "share"));
        }
        self.session()?.scan();
        Ok(())
    }

    /// `download`: a redacted copy of file `file`, written in the
    /// background and answered through [`Host::reply`] for `ticket`.
    pub fn download(
        &mut self,
        ticket: u32,
        file: u32,
        mode: &str,
        disable: &[String],
        allow: &[Allow],
    ) -> Result<(), EngineError> {
        if !cfg!(feature = "share") {
            return Err(not_built("download", "share"));
        }
        self.session()?.download(ticket, file, mode, disable, allow)
    }

    /// `edit_points`: where the branch can be forked and which calls have
    /// no result.
    pub fn edit_points(&mut self, leaf: u32) -> Result<EditPoints, EngineError> {
        if !cfg!(feature = "edit") {
            return Err(not_built("edit_points", "edit"));
        }
        self.session()?.edit_points(leaf)
    }

    /// `fork`: a new session forked at row `row` (its id from the host's
    /// random bytes, its time the host's clock).
    pub fn fork(&mut self, leaf: u32, row: u32, host: &mut dyn Host) -> Result<Made, EngineError> {
        if !cfg!(feature = "edit") {
            return Err(not_built("fork", "edit"));
        }
        let id = retrace_core::uuid_v4(host.random());
        let now = host.unix_ms();
        self.session()?.fork(leaf, row, &id, now)
    }

    /// `compare`: two branches side by side from their fork point, or
    /// what a compaction on the first hid beside what replaced it.
    pub fn compare(&mut self, left: u32, right: u32) -> Result<Comparison, EngineError> {
        if !cfg!(feature = "compare") {
            return Err(not_built("compare", "compare"));
        }
        self.session()?.compare(left, right)
    }

    /// `seal`: the branch with its calls without a result answered.
    pub fn seal(&mut self, leaf: u32, host: &mut dyn Host) -> Result<Made, EngineError> {
        if !cfg!(feature = "edit") {
            return Err(not_built("seal", "edit"));
        }
        let now = host.unix_ms();
        self.session()?.seal(leaf, || host.random(), now)
    }

    /// `tree`: the branch tree, node by node (feature `api`).
    #[cfg(feature = "api")]
    pub fn tree(&mut self) -> Result<SessionTree, EngineError> {
        Ok(self.session()?.tree())
    }

    /// `context`: the messages of the branch ending at `leaf`, as a model
    /// would be sent them (feature `api`).
    #[cfg(feature = "api")]
    pub fn context(&mut self, leaf: u32) -> Result<Context, EngineError> {
        self.session()?.context(leaf)
    }

    /// `migrate`: the branch ending at `leaf` written for `to`, with what
    /// that loses (feature `api`).
    #[cfg(feature = "api")]
    pub fn migrate(&mut self, leaf: u32, to: Api) -> Result<Migration, EngineError> {
        self.session()?.migrate(leaf, to)
    }

    /// Whether background work is waiting ([`Engine::tick`] runs it).
    pub fn busy(&self) -> bool {
        self.open.as_ref().is_some_and(Open::busy)
            || (cfg!(feature = "folders") && self.folder.as_ref().is_some_and(|f| !f.titled()))
    }

    /// One slice of background work: a redacted copy first (someone waits
    /// for it), then a folder's titles, then the scan. `true` while there
    /// is more; a transport runs it between requests.
    pub fn tick(&mut self, host: &mut dyn Host) -> bool {
        let open = self.open.as_mut();
        let folder = self
            .folder
            .as_mut()
            .filter(|f| cfg!(feature = "folders") && !f.titled());
        match (open, folder) {
            (Some(open), _) if open.writing() => open.tick(host),
            (_, Some(folder)) => {
                let until = host.clock_ms() + TITLES_MS;
                let listed = folder.titles(|| host.clock_ms() < until);
                if !listed.is_empty() {
                    host.event(Event::Listed(ListedBatch { listed }));
                }
            }
            (Some(open), None) => open.tick(host),
            (None, None) => {}
        }
        self.busy()
    }
}
