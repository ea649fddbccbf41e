// The values that cross between retrace-wasm's engine and JS, generated from
// the Rust types (ts-rs, crates/retrace-wasm/tests/types.rs): do not edit.
// `UPDATE_TYPES=1 cargo test -p retrace-wasm --features ts --test types`
// writes it again. Integers are numbers: values cross as JSON would carry
// them (serde-wasm-bindgen's JSON-compatible serializer).

/**
 * One finding the review marked "not a secret": its kind, its 1-based
 * line and the hash of its value (16 hex digits), as a rules file's
 * `[allow] findings` names it.
 */
export type Allow = { kind: string, line: number, hash: string, };

/**
 * A provider's request API, by the shape of its message list.
 */
export type Api = "anthropic" | "openai" | "openai-responses" | "google";

/**
 * The bodies of rows `start..` of the branch ending at `leaf` (answers
 * `bodies`).
 */
export type Bodies = { leaf: number, start: number, items: Array<RowBody>, 
/**
 * The values in these bodies shown as written that a redacted copy
 * would take out (each once), for a reader to highlight: all of them
 * with sensitive data shown; with it hidden, those the review marked
 * "not a secret" (`review`). The bodies carry no marks.
 */
revealed?: Array<string>, };

/**
 * Why a node has more than one child.
 */
export type BranchKind = "real" | "structural";

/**
 * A node with two or more children.
 */
export type BranchPoint = { 
/**
 * The node.
 */
entry: EntryId, 
/**
 * Why it has several children.
 */
kind: BranchKind, 
/**
 * How many.
 */
children: number, };

/**
 * The rows of the branch ending at `leaf` (answers `branch`).
 */
export type BranchRows = { leaf: number, 
/**
 * The leaf's id as links write it.
 */
leaf_label: string, rows: Rows, };

/**
 * One kind of thing a migration loses or changes.
 */
export type Change = "thinking-dropped" | "redacted-thinking-dropped" | "signature-dropped" | "image-dropped" | "image-without-payload" | "error-flag-dropped" | "metadata-dropped" | "empty-dropped" | "result-without-call" | "call-without-result" | "result-moved" | "role-renamed" | "system-moved" | "turns-merged" | "id-regenerated" | "id-generated" | "arguments-wrapped" | "kind-flattened" | "marker-left-out" | "server-tool-flattened" | "call-outside-assistant-flattened" | "user-turn-added" | "media-dropped" | "item-id-missing" | "thought-signature-missing" | "loop-thinking-missing";

/**
 * How often one change happens, and the first few messages it touches.
 */
export type ChangeCount = { 
/**
 * The change.
 */
change: Change, 
/**
 * Its stable code (`thinking-dropped`), as `--report --json` names it.
 */
code: string, 
/**
 * The field of the target it concerns.
 */
field: string, 
/**
 * How many times it happened.
 */
count: number, 
/**
 * Whether something was lost rather than written differently.
 */
loss: boolean, 
/**
 * Whether it is a note for the caller: nothing changed, but sending
 * the history needs what the description says.
 */
note: boolean, 
/**
 * What happened, in a sentence.
 */
description: string, 
/**
 * Where, as the messages' entry ids (or `#<index>` of the message in
 * the context when it has none), first few only.
 */
at: Array<string>, };

/**
 * How a file changed between two checkpoints.
 */
export type ChangeKind = "created" | "updated" | "deleted";

/**
 * Two branches side by side from their fork point, or what a compaction
 * hid beside what replaced it (answers `compare`): the lines of the
 * comparison (`pairs`), and the rows they hold in line order (a line's
 * left row before its right one) with their bodies.
 */
export type Comparison = { left: number, right: number, 
/**
 * `right` is a compaction on `left`'s branch: the left side is what
 * it hid, the right side what replaced it (the compaction, and the
 * summary line after it), both rows of `left`'s branch.
 */
compaction: boolean, 
/**
 * The last entry both branches hold (where they fork), or the
 * compaction.
 */
fork: number | null, 
/**
 * The lines, one number each: 0 the last row both branches share (one
 * row, across both sides), 1 a row on each side saying the same, 2 a
 * row on each side saying something else (for a compaction: hidden,
 * beside a row that replaced it), 3 a left row alone, 4 a right row
 * alone.
 */
pairs: Array<number>, rows: Rows, bodies: Array<RowBody>, 
/**
 * Rows of each side after those shown (`retrace_core::COMPARED` a
 * side at most).
 */
more_left: number, more_right: number, 
/**
 * The values in these bodies shown as written that a redacted copy
 * would take out (as for [`Bodies::revealed`]), each once.
 */
revealed?: Array<string>, };

/**
 * The messages of a branch (answers `context`): what a model would be
 * sent, in the one message model (compactions honoured, a response split
 * over lines merged), read as bodies are shown.
 */
export type Context = { leaf: number, messages: Array<Message>, 
/**
 * The values shown as written that a redacted copy would take out
 * (as for [`Bodies::revealed`]), each once.
 */
revealed?: Array<string>, };

/**
 * One problem, with where it is: the file, the 1-based line and the byte
 * offset from the start of the file.
 */
export type Diagnostic = { 
/**
 * How bad it is.
 */
severity: Severity, 
/**
 * What it is, as a stable code.
 */
kind: DiagnosticKind, 
/**
 * The file it is in.
 */
file: FileId, 
/**
 * 1-based line number; 0 for a problem in a side-car beside the
 * file (the message names the side-car).
 */
line: number, 
/**
 * Byte offset from the start of the file.
 */
offset: number, 
/**
 * A plain sentence saying what is wrong.
 */
message: string, };

/**
 * What kind of problem a diagnostic reports. The `code` is stable and is what
 * tools should match on.
 */
export type DiagnosticKind = "malformed-json" | "concatenated-objects" | "invalid-utf8" | "byte-order-mark" | "crlf-line-endings" | "truncated-line" | "line-too-long" | "duplicate-id" | "parent-cycle" | "missing-parent" | "unknown-type" | "result-without-call" | "call-without-result" | "timestamp-out-of-order" | "bad-field" | "copied-history" | "split-gap" | "gzip-corrupt" | "gzip-truncated" | "gzip-trailing-data" | "gzip-too-large" | "unknown-format" | "bad-bookmark" | "format-mismatch";

/**
 * A redacted copy being written: bytes done of file `file` (the
 * `download_progress` event).
 */
export type DownloadProgress = { file: number, done: number, total: number, };

/**
 * The rows of a branch that are safe fork points (its last row, a leaf,
 * too) and its tool calls without a result, `name (id)` (answers
 * `edit_points`).
 */
export type EditPoints = { leaf: number, rows: Array<number>, open: Array<string>, };

/**
 * A request that could not be served: `{ code, message }`.
 */
export type EngineError = { code: ErrorCode, message: string, };

/**
 * An entry's position in `Session::entries` (file order, files in the order
 * they were read).
 */
export type EntryId = number;

/**
 * What kind of failure an [`EngineError`] is. The codes are written
 * kebab-case (`no-session`) and never change meaning: a JS caller matches
 * on them.
 */
export type ErrorCode = "bad-request" | "no-session" | "not-found" | "not-a-session" | "unreadable" | "superseded" | "edit-refused" | "nothing-to-send" | "unsupported" | "closed" | "internal";

/**
 * What background work reports, unasked.
 */
export type Event = { "kind": "ready" } | { "kind": "progress", "data": Progress } | { "kind": "first_rows", "data": FirstRows } | { "kind": "scan", "data": ScanReport } | { "kind": "download_progress", "data": DownloadProgress } | { "kind": "listed", "data": ListedBatch } | { "kind": "failed", "data": EngineError };

/**
 * The figures of a session's index (no body read).
 */
export type Figures = { 
/**
 * The format's name, as `--format` takes it (`pi`, `claude-code`, …).
 */
format: string, 
/**
 * The format's version, where it has one (pi).
 */
version: number | null, 
/**
 * Input files.
 */
files: number, 
/**
 * Entries (JSON objects) read.
 */
entries: number, 
/**
 * Entries in the branch tree.
 */
nodes: number, 
/**
 * Branch ends a person could pick (structural dead ends folded in).
 */
leaves: number, 
/**
 * Real branch points (rewinds, forks).
 */
branch_points: number, 
/**
 * Structural fan-outs (parallel tool calls, hook lines).
 */
structural_branch_points: number, 
/**
 * Subagent files linked to the conversation.
 */
subagents: number, 
/**
 * The earliest and latest entry timestamps, in milliseconds since the
 * Unix epoch.
 */
start: number | null, 
/**
 * See `start`.
 */
end: number | null, 
/**
 * Problems found while reading, and how many of them are errors and
 * warnings.
 */
diagnostics: number, 
/**
 * Diagnostics that are errors.
 */
errors: number, 
/**
 * Diagnostics that are warnings.
 */
warnings: number, };

/**
 * One file of a checkpoint.
 */
export type FileChange = { 
/**
 * The path in the workspace, `/`-separated.
 */
path: string, 
/**
 * How it changed.
 */
change: ChangeKind, };

/**
 * Which input file an entry came from (index into `Session::files`).
 *
 * Sixteen bits, so that an [`Entry`] fills one 64-byte cache line: the
 * index of a large session is tens of megabytes of entries, and every
 * byte of an entry is a byte to write, copy and fault in.
 */
export type FileId = number;

export type FileSummary = { name: string, size: number, lines: number, format: string, };

/**
 * The first screen of a file still being read (the `first_rows` event,
 * sent to an `open` that asked with `first_rows`): the figures of the
 * session its first piece holds (the rest of the summary is left empty),
 * the rows of that session's default branch and the bodies of the first
 * of them, so a page paints them while the rest is indexed. Ids are
 * those the whole session gives the same entries.
 */
export type FirstRows = { summary: Summary, branch: BranchRows, bodies: Bodies, };

/**
 * A dropped or picked folder split into sessions (answers
 * `open_folder`): each by name, and when there is only one, it is opened
 * and `summary` is its summary; otherwise their titles follow as
 * `listed` events.
 */
export type FolderOpened = { sessions: Array<FolderSession>, summary: Summary | null, };

/**
 * One session of a dropped folder, as listed before its title is read.
 */
export type FolderSession = { 
/**
 * The path of its conversation file under the folder.
 */
name: string, 
/**
 * Its files (the conversation and its subagent runs), side-cars apart.
 */
files: number, 
/**
 * Bytes of those files.
 */
size: number, };

/**
 * One entry that matches.
 */
export type Hit = { 
/**
 * The entry.
 */
entry: EntryId, 
/**
 * The entry's label ([`Session::label`]).
 */
label: string, 
/**
 * Its 1-based line in its file.
 */
line: number, 
/**
 * `user`, `assistant`, `tool` (a tool result), `event` (no role), or
 * the role as written (`system`, `developer`, …).
 */
role: string, 
/**
 * Up to [`SNIPPET_CONTEXT`] characters either side of the first match
 * in the entry's text, whitespace runs as one space, `…` where cut.
 */
snippet: string, 
/**
 * A leaf whose branch holds the entry (followed from it along the
 * tree's continuations).
 */
leaf: EntryId, };

/**
 * An image of a row as a `data:` URL: no request leaves the tab (answers
 * `image`).
 */
export type Image = { leaf: number, row: number, image: number, url: string, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * What a list of sessions shows of one.
 */
export type Listed = { 
/**
 * The first prompt someone typed (see [`session_title`]), if any.
 */
title: string | null, 
/**
 * The format's name, as `--format` takes it.
 */
format: string, 
/**
 * The earliest and latest entry timestamps, in milliseconds since
 * the Unix epoch.
 */
start: number | null, 
/**
 * See `start`.
 */
end: number | null, 
/**
 * The first model named on the default branch.
 */
model: string | null, 
/**
 * Entries read.
 */
entries: number, 
/**
 * Files read (the conversation and its subagent runs).
 */
files: number, 
/**
 * Subagent runs linked to the conversation.
 */
subagents: number, };

/**
 * Titles, times and formats of some of the listed folder's sessions, by
 * index (the `listed` event).
 */
export type ListedBatch = { listed: Array<[number, Listed]>, };

/**
 * A file the engine made (a redacted copy, a fork, a seal): its name and
 * what a fork or a seal did (the core's notes, one a line). Its bytes do
 * not cross as JSON: the transports hand them over as a `Blob` beside
 * this (the `file` field of what a JS caller gets).
 */
export type Made = { name: string, notes: Array<string>, };

/**
 * A normalized message.
 */
export type Message = { 
/**
 * Who said it.
 */
role: Role, 
/**
 * What kind of message it is beyond its role (a compaction summary, injected context, a marker).
 */
kind?: MessageKind, 
/**
 * Its parts, in order.
 */
content: Array<Part>, 
/**
 * The model that wrote it, where known.
 */
model?: string, 
/**
 * The provider that served it, where known.
 */
provider?: string, 
/**
 * Token usage of the response, counted once.
 */
usage?: Usage, 
/**
 * Milliseconds since the Unix epoch.
 */
timestamp?: number, 
/**
 * Why the model stopped (`stop`, `tool_use`, `aborted`, …), as written.
 */
stop_reason?: string, 
/**
 * The ids of the entries this message was built from (several for a
 * Claude Code response split over lines; empty for entries without ids).
 */
entries: Array<string>, 
/**
 * The 1-based line numbers of those entries, in the same order.
 */
lines: Array<number>, 
/**
 * A user-side message's text as its pieces, where the harness wrote
 * some of it (a slash command, shell input or output, context, an
 * interruption); empty when all of it was typed. The content keeps
 * the text as written. On a model's message, the context it was
 * given beside the history (an events `llm_call`'s prompt, a Codex
 * turn's settings).
 */
harness?: Array<Piece>, };

/**
 * What kind of message this is beyond its role, for views that mark them.
 */
export type MessageKind = "normal" | "compaction_summary" | "branch_summary" | "bash_execution" | "custom" | "meta" | "marker";

/**
 * A branch written as the history of a request to another provider's
 * API (answers `migrate`): the body `retrace migrate --to` writes and the
 * report `--report --json` prints.
 */
export type Migration = { leaf: number, 
/**
 * The request body's fields that hold the history (`messages`,
 * `system`, `input`, `contents`, `systemInstruction`…: the target's
 * own shape).
 */
body: JsonValue, 
/**
 * What the target (`report.to`) could not take or took differently,
 * and what sending it needs.
 */
report: Report, 
/**
 * The values shown as written that a redacted copy would take out
 * (as for [`Bodies::revealed`]), each once.
 */
revealed?: Array<string>, };

/**
 * Messages and tokens of one model.
 */
export type ModelStat = { 
/**
 * Messages the model wrote.
 */
messages: number, 
/**
 * Input tokens not read from the cache.
 */
input_tokens: number, 
/**
 * Output tokens.
 */
output_tokens: number, 
/**
 * Input tokens read from the prompt cache.
 */
cache_read_tokens: number, 
/**
 * Input tokens written to the prompt cache.
 */
cache_write_tokens: number, 
/**
 * In US dollars, where the file records it.
 */
cost_usd?: number | null, };

/**
 * One piece of a message's content.
 *
 * Read back through [`PartWire`], one flat struct: serde's derive for an
 * internally tagged enum buffers every object first and came to 19 KB of
 * the viewer's page.
 */
export type Part = { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "thinking", 
/**
 * The reasoning as written (empty when redacted).
 */
text: string, 
/**
 * The provider withheld the text (Anthropic `redacted_thinking`).
 */
redacted?: boolean, 
/**
 * An opaque signature came with it.
 */
signature?: boolean, } | { "type": "tool_call", 
/**
 * The call id its result answers.
 */
id: string, 
/**
 * The tool's name.
 */
name: string, 
/**
 * The arguments as JSON (an object for most tools).
 */
arguments: JsonValue, } | { "type": "tool_result", 
/**
 * The id of the call answered.
 */
call_id: string, 
/**
 * What the tool returned, as text.
 */
output: string, 
/**
 * The tool reported a failure.
 */
is_error?: boolean, } | { "type": "image", 
/**
 * `image/png`, or `image/*` where the source did not say.
 */
media_type: string, 
/**
 * Bytes of the decoded image.
 */
byte_size: number, } | { "type": "checkpoint", 
/**
 * The commit's id (hex, as written).
 */
commit: string, 
/**
 * The commit it was taken on top of, where the file says (Codex).
 */
parent?: string | null, 
/**
 * The tag that names it (the store's `tool_{tool}_{time}`).
 */
tag?: string | null, 
/**
 * The tool whose changes it holds.
 */
tool?: string | null, 
/**
 * The files it changed, with how (the store's checkpoints).
 */
files?: Array<FileChange>, 
/**
 * Paths that were untracked before it and that restoring it
 * leaves alone (Codex `preexisting_untracked_files`, then
 * `preexisting_untracked_dirs` with a trailing `/`). A Codex
 * snapshot holds the whole working tree and records no changes.
 */
untracked?: Array<string>, };

/**
 * One recognised piece of a user-side message, in the order written.
 */
export type Piece = { "kind": "prompt", 
/**
 * The text, trimmed.
 */
text: string, } | { "kind": "command", 
/**
 * `/init`.
 */
name: string, 
/**
 * What followed the name, empty when nothing did.
 */
args: string, } | { "kind": "shell_input", 
/**
 * The command line.
 */
command: string, } | { "kind": "shell_output", 
/**
 * Standard output.
 */
stdout: string, 
/**
 * Standard error, apart.
 */
stderr: string, } | { "kind": "context", 
/**
 * What it is, in words (`environment`, `caveat`).
 */
label: string, 
/**
 * Its text, tags taken out.
 */
text: string, } | { "kind": "interrupted", 
/**
 * What the harness wrote, tags taken out.
 */
text: string, };

/**
 * A segment's preview: who said it and the line to show.
 */
export type Preview = { 
/**
 * Who said it: [`Role::User`] for a prompt.
 */
role: Role, 
/**
 * Whether it is a prompt someone typed; otherwise it is the first
 * message said on the segment (the model's answer, most often).
 */
prompt: boolean, 
/**
 * The first non-blank line of the message's text, whitespace runs as
 * one space, at most [`PREVIEW_CHARS`] characters (then `…`).
 */
text: string, };

/**
 * Segment previews, (segment, preview); segments where nothing is said
 * have none (answers `previews`).
 */
export type Previews = { previews: Array<[number, Preview]>, 
/**
 * The values in them shown as written that a redacted copy would
 * take out (as for `Bodies::revealed`), each once.
 */
revealed?: Array<string>, };

/**
 * Bytes read so far while opening (the `progress` event).
 */
export type Progress = { done: number, total: number, };

/**
 * What a migration of a message list to one API loses or changes.
 */
export type Report = { 
/**
 * The API migrated to.
 */
to: Api, 
/**
 * Messages read.
 */
messages: number, 
/**
 * Turns written (after merging and splitting).
 */
turns: number, 
/**
 * Each change that happens, most serious first.
 */
changes: Array<ChangeCount>, };

/**
 * A request, written as `{"kind": …, fields…}` (the worker transport's
 * JSON) and read with [`Request::from_json`].
 */
export type Request = { "kind": "open", leaf_label: string | null, entry: string | null, first_rows?: boolean, } | { "kind": "open_folder", paths: Array<string>, } | { "kind": "open_listed", session: number, } | { "kind": "branch", leaf: number, } | { "kind": "bodies", leaf: number, start: number, end: number, } | { "kind": "search", query: string, filter: SearchFilter, } | { "kind": "stats" } | { "kind": "image", leaf: number, row: number, image: number, } | { "kind": "previews", segments: Array<number>, } | { "kind": "hide_sensitive", hide: boolean, } | { "kind": "review", disable: Array<string>, allow: Array<ReviewAllow>, } | { "kind": "scan" } | { "kind": "download", file: number, mode: "typed" | "mask" | "pseudo", disable: Array<string>, allow: Array<Allow>, } | { "kind": "edit_points", leaf: number, } | { "kind": "fork", leaf: number, row: number, } | { "kind": "seal", leaf: number, } | { "kind": "compare", left: number, right: number, } | { "kind": "tree" } | { "kind": "context", leaf: number, } | { "kind": "migrate", leaf: number, to: Api, };

/**
 * The answer to a request. Its `data` is the value a JS caller's promise
 * resolves with (`null` for [`Response::Done`]). The `api` kinds' answers
 * exist only in a build with that feature: their serializers would
 * otherwise weigh on the viewer, which never receives them.
 */
export type Response = { "kind": "opened", "data": Summary } | { "kind": "folder", "data": FolderOpened } | { "kind": "branch", "data": BranchRows } | { "kind": "bodies", "data": Bodies } | { "kind": "search_results", "data": SearchResults } | { "kind": "stats", "data": StatsReport } | { "kind": "image", "data": Image } | { "kind": "previews", "data": Previews } | { "kind": "edit_points", "data": EditPoints } | { "kind": "file", "data": Made } | { "kind": "comparison", "data": Comparison } | { "kind": "done" } | { "kind": "tree", "data": SessionTree } | { "kind": "context", "data": Context } | { "kind": "migration", "data": Migration };

/**
 * An image that came with a result, by its place among its row's images
 * (what a view asks the file's bytes for).
 */
export type ResultImage = { 
/**
 * Its ordinal among the images of the row that holds it.
 */
index: number, 
/**
 * `image/png`, or `image/*` where the source did not say.
 */
media_type: string, 
/**
 * Bytes of the decoded image.
 */
byte_size: number, };

/**
 * One finding the review marked "not a secret", in any file of the
 * session (`review`): its file, and the finding as [`Allow`] names it
 * (the line is the file's own).
 */
export type ReviewAllow = { file: number, kind: string, line: number, hash: string, };

/**
 * Who produced a message.
 */
export type Role = "system" | "user" | "assistant" | "tool";

/**
 * A row's body, read when the row is on screen.
 */
export type RowBody = { 
/**
 * The message, for message rows whose body parses.
 */
message: Message | null, 
/**
 * A one-line description, for event rows.
 */
event: string | null, 
/**
 * The body did not parse (the diagnostic says why).
 */
broken: boolean, 
/**
 * How its tool calls and results pair with other rows (`None` when
 * it has none that do).
 */
pairing?: RowPairing | null, };

/**
 * How one row's calls and results pair with other rows.
 */
export type RowPairing = { 
/**
 * The results, on later rows, of this row's calls.
 */
results?: Array<RowResult>, 
/**
 * The ids of this row's results that answer calls of earlier rows
 * (shown in those calls' blocks).
 */
answered?: Array<string>, 
/**
 * Every part of this row is shown in earlier rows' blocks: the row
 * folds into the one named.
 */
folded_into?: number | null, 
/**
 * Ids of this row's calls with no result up to the end of the branch.
 */
unanswered?: Array<string>, };

/**
 * A result found on another row for a call of this one.
 */
export type RowResult = { 
/**
 * The row that holds it.
 */
row: number, 
/**
 * The call it answers.
 */
call_id: string, 
/**
 * What the tool returned (its stdout where the streams are apart).
 */
output: string, 
/**
 * The tool reported a failure.
 */
is_error?: boolean, 
/**
 * What it wrote on stderr, where the file keeps that apart (Claude
 * Code's `toolUseResult`).
 */
stderr?: string | null, 
/**
 * The run was interrupted (Claude Code's `toolUseResult`).
 */
interrupted?: boolean, 
/**
 * The images the tool returned with it (a screenshot a read gave
 * back), which a view shows in the call's block.
 */
images?: Array<ResultImage>, 
/**
 * The exit code, where the run's report gives it and the output does
 * not (Codex: `output` is then taken apart already, see
 * [`ToolOutput::with_run`]).
 */
exit_code?: number | null, 
/**
 * How long it ran, where the report or the output's framing says.
 */
wall_time?: string | null, };

/**
 * The rows of a branch, column by column: a long branch is a hundred
 * thousand rows, and arrays of numbers cross `postMessage` and parse far
 * faster than as many objects (the page must not stall on them).
 */
export type Rows = { entry: Array<number>, count: Array<number>, label: Array<string>, 
/**
 * 0 for a message row, 1 for an event row.
 */
kind: Array<number>, 
/**
 * Index into `types`.
 */
type_of: Array<number>, types: Array<string>, 
/**
 * Index into `roles`.
 */
role_of: Array<number>, roles: Array<string>, time: Array<number | null>, marks: Array<number>, file: Array<number>, line: Array<number>, };

/**
 * The background scan for sensitive data.
 */
export type ScanReport = { 
/**
 * Bytes scanned of all files, and their total.
 */
done: number, total: number, finished: boolean, 
/**
 * Findings so far per kind (all of them, not only the listed ones).
 */
counts: Array<[string, number]>, 
/**
 * Findings since the last report (the first ones of a session only;
 * see `listed_max`): where, never the value.
 */
findings: Array<SensitiveFinding>, };

/**
 * Which entries a search looks at, by who wrote them.
 */
export type SearchFilter = { 
/**
 * Messages the user wrote.
 */
user: boolean, 
/**
 * Messages the model wrote.
 */
assistant: boolean, 
/**
 * Tool results.
 */
tool: boolean, 
/**
 * Everything else: events, system lines, lines without a role.
 */
events: boolean, };

/**
 * The hits of a search (answers `search`).
 */
export type SearchResults = { query: string, hits: Array<Hit>, 
/**
 * More matched than were returned.
 */
truncated: boolean, 
/**
 * With sensitive data hidden, the values in the snippets the review
 * marked "not a secret" (`review`), each once. With it shown, the
 * snippets are the CLI's, as written, and name none (the values the
 * bodies named are in them as written).
 */
revealed?: Array<string>, };

/**
 * One segment of the branch tree (see `retrace_core::Segment`).
 */
export type SegmentInfo = { first: number, last: number, first_label: string, parent: number | null, depth: number, children: Array<number>, len: number, side: number, compactions: number, is_tip: boolean, has_default: boolean, 
/**
 * The leaf picking this segment opens.
 */
tip: number, start: number | null, end: number | null, 
/**
 * What the segment is about (its first prompt, shortened), when the
 * summary carries it.
 */
preview: Preview | null, sidechain: boolean, file: number, };

/**
 * One piece of sensitive data, by place and kind.
 */
export type SensitiveFinding = { kind: string, file: number, line: number, 
/**
 * JSON path of the string that holds it.
 */
path: string, 
/**
 * The entry of that line, and a leaf whose branch shows it.
 */
entry: number | null, leaf: number | null, 
/**
 * The value's hash (16 hex digits): what names it in a rules file's
 * exceptions.
 */
hash: string, };

/**
 * The branch tree (answers `tree`): what the summary's outline folds
 * into segments, node by node. A leaf is a node without children; a tip
 * is a leaf that ends a branch someone could pick (the summary's `tips`:
 * structural dead ends, such as a hook line, are folded in).
 */
export type SessionTree = { nodes: TreeNodes, roots: Array<number>, leaves: Array<number>, tips: Array<number>, default_leaf: number | null, 
/**
 * Nodes with several children, in file order: `real` where someone
 * went back and went on differently (a rewind, a fork), `structural`
 * where the recording fanned out (parallel tool calls, hook lines).
 */
branch_points: Array<BranchPoint>, };

/**
 * How much a diagnostic matters.
 */
export type Severity = "info" | "warning" | "error";

/**
 * The figures that need every body parsed, from a [`Check`].
 */
export type Stats = { 
/**
 * Normalized messages (a response split over lines counts once),
 * markers not included.
 */
messages: number, 
/**
 * Events on the timeline (rollbacks, aborted turns, state transitions).
 */
markers: number, 
/**
 * Distinct tool calls.
 */
tool_calls: number, 
/**
 * Tool results.
 */
tool_results: number, 
/**
 * Tool results marked as errors.
 */
tool_errors: number, 
/**
 * Tool results with no call before them on their branch.
 */
results_without_call: number, 
/**
 * Tool calls with no result after them on a branch that ends.
 */
calls_without_result: number, 
/**
 * Problems only the check finds, and how many are errors and warnings
 * (the reading diagnostics are in [`Summary`]).
 */
diagnostics: number, 
/**
 * Check diagnostics that are errors.
 */
errors: number, 
/**
 * Check diagnostics that are warnings.
 */
warnings: number, 
/**
 * Messages and tokens per model, by model name (in name order).
 */
models: Array<[string, ModelStat]>, };

/**
 * The totals of the deep check, and the first problems it found (all of
 * them are counted in `stats`) (answers `stats`).
 */
export type StatsReport = { stats: Stats, diagnostics: Array<Diagnostic>, };

export type SubagentInfo = { file: number, agent_id: string, 
/**
 * The result entry in the parent conversation that reports the run.
 */
spawned_by: number | null, 
/**
 * `description` from the subagent's `.meta.json`, if given.
 */
description: string | null, 
/**
 * The way back from the run to the call that spawned it: a leaf whose
 * branch holds `spawned_by`, the file it is in, and the id of the
 * call it answers (when `spawned_by` is in the tree).
 */
spawned_leaf: number | null, spawned_file: number | null, spawned_call: string | null, };

/**
 * What a session is, for the header, the details panel and the tree.
 */
export type Summary = { 
/**
 * The figures `retrace info` prints: format, entries, branches, time
 * span, how many diagnostics.
 */
figures: Figures, files: Array<FileSummary>, default_leaf: number | null, tips: Array<number>, outline: Array<SegmentInfo>, 
/**
 * The first diagnostics (all of them when fewer than the cap; how many
 * there are is in `figures`).
 */
diagnostics: Array<Diagnostic>, subagents: Array<SubagentInfo>, 
/**
 * The bookmarks (pi labels, and a side-car dropped with its session)
 * as two columns: the entries, by entry, and their names.
 */
bookmarked: Array<number>, bookmark_names: Array<string>, 
/**
 * What the session says about itself: id, working directory, agent
 * version, git branch, model… (first value of each, from the first
 * entries).
 */
metadata: Array<[string, string]>, 
/**
 * The leaf and entry a deep link asked for, when found.
 */
requested_leaf: number | null, requested_entry: number | null, 
/**
 * How long opening took, in milliseconds, and how much of it was
 * spent waiting for the host to read the files.
 */
open_ms: number, read_ms: number, 
/**
 * The engine's wasm memory after indexing, in bytes (0 natively).
 */
memory: number, };

/**
 * The nodes of the branch tree, column by column (as [`Rows`]: a session
 * can hold a million), in file order.
 */
export type TreeNodes = { entry: Array<number>, 
/**
 * Each node's parent (`null` for a root).
 */
parent: Array<number | null>, 
/**
 * Its id as links write it (`Session::label`).
 */
label: Array<string>, 
/**
 * Index into `types`: the entry's type as written (`user`,
 * `assistant`, `message`, `response_item`, …).
 */
type_of: Array<number>, types: Array<string>, 
/**
 * Index into `roles` (`""` where the entry has none).
 */
role_of: Array<number>, roles: Array<string>, 
/**
 * The file (index into the summary's `files`) and 1-based line.
 */
file: Array<number>, line: Array<number>, };

/**
 * Token usage of one model response, counted once even when the response was
 * written over several lines.
 */
export type Usage = { 
/**
 * Input tokens not read from the cache.
 */
input: number, 
/**
 * Output tokens.
 */
output: number, 
/**
 * Input tokens read from the prompt cache.
 */
cache_read: number, 
/**
 * Input tokens written to the prompt cache.
 */
cache_write: number, 
/**
 * Cost in US dollars, where the file records it.
 */
cost?: number, };
