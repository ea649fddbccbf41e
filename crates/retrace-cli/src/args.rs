//! Every command-line argument, in one place; the doc comments are the help.
//!
//! [`Cli`] is the parsed command line: a [`Command`] with its own `XxxArgs`,
//! and the [`GlobalArgs`] every command takes. `--json` and `--redact` are
//! fields of the commands that honour them (clap rejects them elsewhere);
//! each command's [`Run::output`] hands them to the [`crate::printer::Printer`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use retrace_core::redact::Mode;
use retrace_core::{Format, ReaderOptions, SEARCH_LIMIT};

use crate::commands::Run;

/// Read, replay and share the session files LLM agents write.
#[derive(Parser)]
#[command(name = "retrace", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Options every command takes, before or after its name.
#[derive(Args)]
pub(crate) struct GlobalArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    /// No notes on stderr (summaries, what a migration lost) and no
    /// progress bar; errors and warnings are still printed.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// No progress bar (drawn only on a terminal, for inputs over 50 MB).
    #[arg(long, global = true)]
    pub no_progress: bool,
}

/// How session files are read.
#[derive(Args)]
pub(crate) struct ReadArgs {
    /// Read every input as this format instead of detecting it: pi,
    /// claude-code, codex, events, gemini-cli, anthropic-messages,
    /// openai-chat-messages, openai-responses-items, google-contents,
    /// agentscope, generic.
    #[arg(long, global = true, value_name = "NAME", value_parser = parse_format)]
    pub format: Option<Format>,
    /// Most bytes a gzip input may inflate to: one that goes past it (a
    /// gzip bomb) is read up to it and reported. A number of bytes, or
    /// with K, M, G or T (powers of 1024).
    #[arg(
        long,
        global = true,
        value_name = "SIZE",
        env = "RETRACE_MAX_INFLATED",
        default_value = "4G",
        value_parser = parse_size
    )]
    pub max_inflated: u64,
}

impl ReadArgs {
    /// The core's reader options these arguments ask for.
    pub fn reader_options(&self) -> ReaderOptions {
        ReaderOptions {
            format: self.format,
            max_inflated: self.max_inflated,
            ..ReaderOptions::default()
        }
    }
}

/// `4G`, `512M`, `100K`, `1T` (powers of 1024) or a number of bytes.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => u32::MAX,
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|_| shift != u32::MAX)
        .and_then(|n| n.checked_mul(1u64 << shift.min(40)))
        .ok_or_else(|| format!("`{text}` is not a size (a number of bytes, or with K, M, G or T)"))
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::NAMES.iter().map(|(n, _)| *n).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Format, entries, time span, branches, models, tokens, tool calls.
    Info(InfoArgs),
    /// The sessions under folders, newest first: start, size, format,
    /// model, title and the path that opens each.
    List(ListArgs),
    /// A local, read-only server: every session under the folders (default:
    /// the agents' folders under `$HOME` and the store's root) on an index
    /// page, searched across, each opened in the viewer and followed while
    /// it grows. Prints the URL; Ctrl-C stops it.
    Serve(ServeArgs),
    /// The branch tree: linear runs collapsed, rewinds and compactions marked.
    Tree(TreeArgs),
    /// The conversation on one branch as readable text.
    Show(ShowArgs),
    /// The original lines of one branch, byte for byte, as a session file.
    Cat(CatArgs),
    /// One branch as the history of a request to a provider API.
    Migrate(MigrateArgs),
    /// The entries whose text holds QUERY, with a snippet each; exit 0
    /// with hits, 1 without (as grep), 2 unreadable.
    Search(SearchArgs),
    /// A branch written to share, redacted by default: `--md`, readable
    /// Markdown (tool calls and their results collapsed, thinking marked).
    ///
    /// Without `--leaf`, the default branch (the one `show` prints); with
    /// `--branches all`, every branch, each from where it forks. A
    /// folder's subagent runs are nested under the calls that spawned
    /// them. Secrets and personal data are replaced as `retrace redact`
    /// replaces them (`--no-redact` keeps them, with a warning); what was
    /// replaced is counted on stderr, or written to `--report`.
    Export(ExportArgs),
    /// Secrets and personal data replaced, streamed (`.gz` in and out);
    /// exit 1 when matches remain (or, with --check, were found).
    Redact(RedactArgs),
    /// Diagnostics and tool pairing; exit 0 clean, 1 problems, 2 unreadable.
    Validate(ValidateArgs),
    /// The safe fork points of a branch: each user message and each tool
    /// result after which no tool call waits for its result.
    Points(PointsArgs),
    /// A new session from a safe fork point or a leaf, in the session's
    /// own format, with its lineage and a new session id.
    Fork(ForkArgs),
    /// A named bookmark on an entry: a pi `label` entry appended, or a
    /// `{file}.snapshots.json` side-car for other formats; `--list` lists
    /// a session's bookmarks.
    Snapshot(SnapshotArgs),
    /// A branch as a new file with each tool call left without a result
    /// answered by an error result in the format's own shape.
    Seal(SealArgs),
    /// A damaged session as a consistent new file: torn and NUL-filled
    /// lines, glued objects, orphan results and repeated ids fixed, open
    /// calls sealed; every byte left out kept in `OUT.rejected`.
    Repair(RepairArgs),
    /// A branch compacted: a summary you supply stands in for what is cut,
    /// the cut never separating a tool call from its result; written in
    /// the session's own format (pi: a `compaction` entry appended; Codex:
    /// a `compacted` line; a provider message list: written anew).
    Compact(CompactArgs),
    /// Sessions that agents record: create, record events, replay, resume,
    /// checkpoint the workspace in git and restore it.
    Store(StoreArgs),
}

/// What the printer is asked for: the output options of a command.
#[derive(Clone, Copy, Default)]
pub(crate) struct OutputOptions {
    /// JSON instead of text.
    pub json: bool,
    /// Secrets and personal data replaced in what is printed.
    pub redact: bool,
}

impl OutputOptions {
    /// `--json` and `--redact` as a command's arguments hold them.
    pub fn new(json: bool, redact: bool) -> OutputOptions {
        OutputOptions { json, redact }
    }
}

impl Command {
    /// The command's arguments, which know how to run it (each command's
    /// file implements [`Run`] for them).
    pub fn as_run(&self) -> &dyn Run {
        match self {
            Command::Info(a) => a,
            Command::List(a) => a,
            Command::Serve(a) => a,
            Command::Tree(a) => a,
            Command::Show(a) => a,
            Command::Cat(a) => a,
            Command::Migrate(a) => a,
            Command::Search(a) => a,
            Command::Export(a) => a,
            Command::Redact(a) => a,
            Command::Validate(a) => a,
            Command::Points(a) => a,
            Command::Fork(a) => a,
            Command::Snapshot(a) => a,
            Command::Seal(a) => a,
            Command::Repair(a) => a,
            Command::Compact(a) => a,
            Command::Store(a) => a,
        }
    }
}

/// One or more inputs, each handled in turn.
#[derive(Args)]
pub(crate) struct InputsArgs {
    /// Session files (`.jsonl`, `.json`, `.jsonl.gz`), directories (a
    /// Claude Code project folder, Codex rollouts, a split
    /// `events_N.jsonl` set, Gemini CLI chats) or `-`.
    #[arg(required = true)]
    pub paths: Vec<String>,
}

/// One input and a branch of it.
#[derive(Args)]
pub(crate) struct BranchArgs {
    /// A session file, a directory of sessions or `-` (as for `info`).
    pub path: String,
    /// The leaf of the branch (an entry id, or `L<line>`); default: the
    /// last entry in file order.
    #[arg(long)]
    pub leaf: Option<String>,
}

#[derive(Args)]
pub(crate) struct InfoArgs {
    #[command(flatten)]
    pub inputs: InputsArgs,
    /// One JSON object per input.
    #[arg(long)]
    pub json: bool,
    /// Replace secrets and personal data in what is printed
    /// (`[REDACTED:kind]`).
    #[arg(long)]
    pub redact: bool,
}

#[derive(Args)]
pub(crate) struct ListArgs {
    /// Folders to list (walked 6 levels down: a `~/.claude/projects` root,
    /// a project folder, `~/.codex/sessions`, `~/.gemini/tmp`, any folder
    /// of session files) or session files. Default: the agents' folders
    /// under `$HOME` that exist: `~/.claude/projects`, `~/.codex/sessions`,
    /// `~/.codex/archived_sessions`, `~/.gemini/tmp`, `~/.pi/agent/sessions`.
    pub dirs: Vec<String>,
    /// One JSON document: `roots` (the folders listed) and `sessions`
    /// (path, paths, size, title, format, start, end, model, entries,
    /// files, subagents; times also as RFC 3339), newest first.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Folders (or session files) to serve. Default: those of `~/.claude/projects`,
    /// `~/.codex/sessions`, `~/.codex/archived_sessions`, `~/.gemini/tmp`,
    /// `~/.pi/agent/sessions` and the store's root (`RETRACE_STORE`, else
    /// `./sessions`) that exist.
    pub dirs: Vec<std::path::PathBuf>,
    /// The port; default: a free one (printed).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Listen on ADDR instead of 127.0.0.1. Anyone who can reach ADDR can
    /// then read every session served (a warning says so).
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<std::net::IpAddr>,
    /// Open the index page in the browser.
    #[arg(long)]
    pub open: bool,
    /// The folder of the catalog's cache. Default: `$XDG_CACHE_HOME/retrace`,
    /// else `~/.cache/retrace`.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<std::path::PathBuf>,
    /// Keep no cache: every session is read at each start.
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
}

#[derive(Args)]
pub(crate) struct TreeArgs {
    /// A session file, a directory of sessions or `-` (as for `info`).
    pub path: String,
    /// The tree as one JSON object: the files read, its segments with
    /// their previews, and every entry on it with its parent and children.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// Normalized messages as JSON lines.
    #[arg(long)]
    pub json: bool,
    /// Secrets and personal data replaced (`[REDACTED:kind]`): the
    /// default, as in the viewer; kept for scripts that ask for it.
    #[arg(long, conflicts_with = "show_sensitive")]
    pub redact: bool,
    /// Cut each block (text, thinking, tool input and output) to N lines;
    /// the user's own messages are never cut. Default: nothing cut when
    /// piped, tool output cut to 40 lines on a terminal.
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
    /// Cut lines to N characters (the user's own messages aside).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,
    /// Colour: on a terminal unless `NO_COLOR` is set (auto), always, or
    /// never. Terminal colours in tool output are kept only with colour.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Print secrets and personal data as written (by default they are
    /// replaced, `[REDACTED:kind]`, as the viewer hides them).
    #[arg(long)]
    pub show_sensitive: bool,
}

/// When `show` writes colour.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always, even piped.
    Always,
    /// Never.
    Never,
}

#[derive(Args)]
pub(crate) struct CatArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
}

#[derive(Args)]
pub(crate) struct PointsArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// One JSON object: the path, the leaf and the points.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct ForkArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// Where to fork: an entry id, `L<line>`, or `sfp:N` (a safe fork
    /// point of the branch, as `retrace points` numbers them). A point
    /// that leaves a tool call waiting for its result is refused.
    #[arg(long, value_name = "ID|sfp:N")]
    pub at: String,
    /// Write the new session here (atomically) instead of to stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// The new session's id [default: a new UUID v4].
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The fork's time, RFC 3339 [default: now] (for reproducible output).
    #[arg(long, hide = true)]
    pub time: Option<String>,
    /// What was done as one JSON object (needs `-o`: stdout is the report).
    #[arg(long, requires = "output")]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct SnapshotArgs {
    /// A session file (with `--list`, also a directory of sessions or `-`).
    pub path: String,
    /// The bookmark's name.
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// The entry to bookmark: an entry id or `L<line>`.
    #[arg(long, value_name = "ID", required_unless_present = "list")]
    pub at: Option<String>,
    /// List the session's bookmarks (pi label entries and side-cars)
    /// instead of taking one.
    #[arg(long, conflicts_with_all = ["name", "at", "output", "id", "time"])]
    pub list: bool,
    /// Write the session with its label entry (pi) or the side-car here
    /// (atomically) instead of appending to PATH or writing
    /// `PATH.snapshots.json`.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// The label entry's id (pi) [default: 8 hex digits of a new UUID v4].
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The snapshot's time, RFC 3339 [default: now].
    #[arg(long, hide = true)]
    pub time: Option<String>,
    /// What was done (or the list) as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct MigrateArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// The API to write for.
    #[arg(long, value_parser = ["anthropic", "openai", "openai-responses", "google"])]
    pub to: String,
    /// Write the request body here (atomically) instead of to stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// Print what the migration loses or changes, per field with
    /// counts; the body is written only with `-o`.
    #[arg(long)]
    pub report: bool,
    /// The report as JSON.
    #[arg(long, requires = "report")]
    pub json: bool,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("budget").required(true).args(["keep", "tokens"])))]
pub(crate) struct CompactArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// Keep at most N messages after the summary.
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Keep at most N tokens after the summary, estimated from the bodies
    /// (a quarter of their characters, 1,200 per image).
    #[arg(long, value_name = "N")]
    pub tokens: Option<u64>,
    /// The summary that stands in for what is cut (UTF-8 text; retrace
    /// calls no model).
    #[arg(long, value_name = "F", required_unless_present = "dry_run")]
    pub summary_file: Option<String>,
    /// Where to write the compacted session (atomically): the input file
    /// unchanged, then the compaction. Never the input itself.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        required_unless_present = "dry_run"
    )]
    pub output: Option<String>,
    /// Print the plan only; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The new pi entry's id, or Claude Code's `compact_boundary` uuid
    /// (default: 8 random hex digits, as pi makes them; UUID v4s for Claude
    /// Code, whose summary line always gets a new one; Codex lines and
    /// events have none).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The new entry's time, RFC 3339 (default: now).
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// The plan and what was written as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct SearchArgs {
    /// A session file, a directory of sessions or `-` (as for `info`).
    pub path: String,
    /// What to look for, case-insensitively, in the text as a person reads
    /// it (messages, thinking, tool calls and outputs, event lines), not
    /// in keys or ids.
    pub query: String,
    /// Whose entries to search, comma-separated [default: user,assistant,tool]
    #[arg(long = "in", value_name = "WHO", value_enum, value_delimiter = ',')]
    pub within: Vec<SearchIn>,
    /// At most this many hits, in file order (a note says when there were
    /// more).
    #[arg(long, default_value_t = SEARCH_LIMIT, value_parser = parse_limit)]
    pub limit: usize,
    /// One JSON object per hit: label, file, line, role, snippet, leaf.
    #[arg(long)]
    pub json: bool,
    /// Search the text as shown with secrets and personal data replaced
    /// (`[REDACTED:kind]`), as the viewer does by default: a match inside
    /// a hidden value is no match.
    #[arg(long)]
    pub redact: bool,
}

fn parse_limit(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a number of hits (1 or more)")),
    }
}

/// Who wrote the entries `search --in` looks at.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SearchIn {
    /// Messages a person wrote.
    User,
    /// Messages the model wrote.
    Assistant,
    /// Tool results.
    Tool,
    /// Everything else: events, system lines, lines without a role.
    Events,
}

#[derive(Args)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    #[command(flatten)]
    pub to: ExportTo,
    /// Which branches: the one to the leaf, or all of them (each from
    /// where it forks off the ones before it).
    #[arg(long, value_enum, default_value = "main")]
    pub branches: BranchesChoice,
    /// Write here (atomically; `.gz` compresses) instead of to stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// Keep secrets and personal data as written (by default they are
    /// replaced, `[REDACTED:kind]`, with the rules `retrace redact` and
    /// the viewer use); a warning says so on stderr.
    #[arg(long)]
    pub no_redact: bool,
    /// Write what was redacted (counts per kind, each finding's file,
    /// line, JSON path and span; never the value) as JSON here, as
    /// `retrace redact --report` does; without it, counts on stderr.
    #[arg(long, value_name = "FILE", conflicts_with = "no_redact")]
    pub report: Option<String>,
}

/// What `export` writes: one output format, named by its flag.
#[derive(Args)]
#[group(required = true, multiple = false)]
pub(crate) struct ExportTo {
    /// Markdown: a header, then each turn (prompts, answers, thinking
    /// collapsed, each tool call collapsed with its result inside).
    #[arg(long)]
    pub md: bool,
    /// One HTML page to open in a browser, offline: the viewer (tree,
    /// replay, search, links) with the session's files inside, compressed.
    #[arg(long)]
    pub html: bool,
}

/// The output format `export` was asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExportFormat {
    Markdown,
    Html,
}

impl ExportTo {
    /// The format the flags name (clap requires exactly one).
    pub fn format(&self) -> ExportFormat {
        if self.html {
            ExportFormat::Html
        } else {
            debug_assert!(self.md);
            ExportFormat::Markdown
        }
    }
}

/// `export --branches`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BranchesChoice {
    /// The branch to the leaf (`--leaf`, else the default leaf).
    Main,
    /// Every branch: the one to the leaf first, then each other from its
    /// fork point.
    All,
}

#[derive(Args)]
pub(crate) struct RedactArgs {
    /// A JSON-lines file, `.gz`, `-` for standard input, or a folder: each
    /// of its session files is redacted into `-o OUTDIR` under the same
    /// relative path (other files are skipped and listed).
    pub input: String,
    /// Where to write (atomically; `.gz` compresses); default stdout. For
    /// a folder: the output folder (required, not inside the input).
    #[arg(short, long)]
    pub output: Option<String>,
    /// typed (`[REDACTED:kind]`, the default, as the viewer's), mask
    /// (`***`) or pseudo (`<email-1>`).
    #[arg(long, default_value = Mode::default().as_str(), value_parser = parse_mode)]
    pub mode: Mode,
    /// Custom rules, allowlist, disabled kinds and single findings left
    /// in place (TOML or JSON; the viewer's review exports one).
    #[arg(long)]
    pub rules: Option<String>,
    /// Write findings (kind, line, JSON path; never values) as JSON here.
    #[arg(long)]
    pub report: Option<String>,
    /// Only report; exit 1 when anything is found.
    #[arg(long)]
    pub check: bool,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| format!("`{s}` is not mask, typed or pseudo"))
}

#[derive(Args)]
pub(crate) struct ValidateArgs {
    #[command(flatten)]
    pub inputs: InputsArgs,
    /// One JSON report per input: counts and every diagnostic.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct SealArgs {
    #[command(flatten)]
    pub branch: BranchArgs,
    /// Only list the calls that would be sealed; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The time of sealing lines at the branch's end, RFC 3339 [default:
    /// now] (for reproducible output).
    #[arg(long, hide = true)]
    pub time: Option<String>,
    /// Write the sealed session here (atomically; `.gz` compresses)
    /// instead of to stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// What was sealed as one JSON object on stdout (the session then
    /// needs `-o`, or `--dry-run`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub(crate) struct RepairArgs {
    /// A session file (JSON lines, plain or gzip).
    pub path: String,
    /// Write the repaired session here (atomically; `.gz` compresses), and
    /// what was left out beside it in `OUT.rejected`; default: stdout, and
    /// no side-car.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
    /// What was done as one JSON object on stdout (needs `-o`).
    #[arg(long, requires = "output")]
    pub json: bool,
    /// The time of lines it writes, RFC 3339 [default: now] (for
    /// reproducible output).
    #[arg(long, hide = true)]
    pub time: Option<String>,
}

#[derive(Args)]
pub(crate) struct StoreArgs {
    /// The store's folder: one folder per session inside [env:
    /// RETRACE_STORE] [default: sessions].
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "url")]
    pub root: Option<PathBuf>,
    /// A Postgres store instead of a folder: postgres://USER@HOST/DB, with
    /// `?schema=NAME` for a schema other than `retrace` [env:
    /// RETRACE_STORE_URL]. `retrace store migrate` makes its tables.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Option<String>,
    #[command(subcommand)]
    pub command: StoreCommand,
}

#[derive(Subcommand)]
pub(crate) enum StoreCommand {
    /// A new session of agent configuration NAME; prints its id.
    Create {
        /// The agent configuration's name.
        name: String,
        /// The effective configuration (a JSON file), kept as the
        /// session's configuration snapshot.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// The folder the agent works in, checkpointed in git after tool
        /// calls; created if missing [default: workspace/ID beside the
        /// store's folder].
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
    },
    /// The sessions, most recently active first.
    List {
        /// Only sessions of this agent configuration.
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: usize,
        /// One JSON object per session.
        #[arg(long)]
        json: bool,
    },
    /// A session's meta, state, configuration and events in numbers.
    Show {
        /// The session's id.
        id: String,
        /// As one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Deletes a session: its events, state and checkpoints.
    Destroy {
        /// The session's id.
        id: String,
    },
    /// Records events: one JSON event (`{"event_type","data"}`, the
    /// timestamp optional), or `-` for one per line from standard input.
    Record {
        /// The session's id.
        id: String,
        /// The event, or `-`.
        event: String,
        /// Sync to disk before exiting (always done for user_input and
        /// final_output).
        #[arg(long)]
        durable: bool,
    },
    /// The session's events, in order.
    Events {
        /// The session's id.
        id: String,
        /// Only the last N.
        #[arg(long, value_name = "N")]
        last: Option<usize>,
        /// The events as recorded, one JSON line each.
        #[arg(long)]
        json: bool,
    },
    /// Removes the session's last event and prints it.
    Pop {
        /// The session's id.
        id: String,
    },
    /// Steps through a session with each event's details.
    Replay {
        /// The session's id.
        id: String,
        /// Only the key events: model calls, tool calls, final output,
        /// checkpoints.
        #[arg(long)]
        fast: bool,
        /// Show secrets and personal data (hidden by default).
        #[arg(long)]
        show_sensitive: bool,
    },
    /// Continues a session: records MESSAGE as user input, prints the state.
    Resume {
        /// The session's id.
        id: String,
        /// What the user says.
        message: String,
    },
    /// Checkpoints the session's workspace now, for tool NAME.
    Checkpoint {
        /// The session's id.
        id: String,
        /// The tool whose changes these are.
        #[arg(long, value_name = "NAME")]
        tool: String,
    },
    /// The session's checkpoints, or those that changed PATH.
    Checkpoints {
        /// The session's id.
        id: String,
        /// A file in the workspace.
        path: Option<String>,
        /// One JSON object per checkpoint.
        #[arg(long)]
        json: bool,
    },
    /// Puts the workspace (or PATH) back as it was at CHECKPOINT; the state
    /// before is checkpointed first, so a restore can be undone.
    Restore {
        /// The session's id.
        id: String,
        /// A tag or a commit id (a unique prefix).
        checkpoint: String,
        /// Only this file or folder.
        path: Option<String>,
    },
    /// What changed in the workspace between checkpoints A and B.
    Diff {
        /// The session's id.
        id: String,
        /// The older checkpoint.
        a: String,
        /// The newer checkpoint.
        b: String,
    },
    /// Copies sessions between stores, losslessly: their events byte for
    /// byte, state at its versions, meta and configuration. Checkpoint
    /// repositories stay where they are.
    Copy {
        /// The store to copy from: a folder or a postgres:// URL.
        #[arg(long, value_name = "DIR|URL")]
        from: String,
        /// The store to copy to: a folder or a postgres:// URL.
        #[arg(long, value_name = "DIR|URL")]
        to: String,
        /// The sessions to copy [default: all of them].
        ids: Vec<String>,
    },
    /// Makes or updates a Postgres store's tables (each migration in one
    /// transaction); a folder store needs none.
    Migrate,
    /// The session's events as one stream (to share: `--redact`).
    Export {
        /// The session's id.
        id: String,
        /// Replace secrets and personal data (`[REDACTED:kind]`).
        #[arg(long)]
        redact: bool,
        /// Write here (atomically; `.gz` compresses) instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_arguments_are_consistent() {
        super::Cli::command().debug_assert();
    }
}
