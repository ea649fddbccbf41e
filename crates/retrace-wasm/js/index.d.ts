// The classes of retrace-wasm, declared by hand over the values generated
// from the Rust types (protocol.d.ts). One request kind is one method:
// `EngineMethods` lists them (crates/retrace-wasm/tests/mapping.rs checks
// it against the protocol's kinds); the direct `Engine` has them as they
// are, the `WorkerClient` as promises of the same values. Their arguments
// and answers are the generated `Request` and `Response` (`Args`,
// `Answer`), so these declarations cannot drift from the engine.

import type { Allow, EngineError, ErrorCode, Event, Made, Request, Response, ReviewAllow, SearchFilter } from './protocol.js';

export type * from './protocol.js';

/** The fields of a request of `kind`. */
export type Args<K extends Request['kind']> = Extract<Request, { kind: K }>;

/** The value a request answered with `kind` resolves to. */
export type Answer<K extends Response['kind']> = Extract<Response, { kind: K }> extends { data: infer D } ? D : null;

/** A file to open: a `File`, a `Blob` with a `name`, or bytes with a name
 * (a `Uint8Array`, which a Node `Buffer` is, or an `ArrayBuffer`). */
export type FileInput = File | (Blob & { name: string }) | { name: string; bytes: Uint8Array | ArrayBuffer };

/** The files of a request: an array of them, or a `FileList` (an input's,
 * a drop's). */
export type Files = readonly FileInput[] | FileList;

/** A file the engine made (a redacted copy, a fork, a seal): its name, the
 * core's notes, and its bytes. */
export type MadeFile = Made & { file: Blob };

/** How a request is refused: an `Error` named `RetraceError` whose `code`
 * is one of the engine's stable codes. */
export interface RetraceError extends Error, EngineError {
  name: 'RetraceError';
  code: ErrorCode;
}

/** What background work reports (`progress`, `scan`, `download_progress`,
 * `listed`, `failed`). */
export type Listener = (event: Event) => void;

/** One method per request kind, as the direct class answers them; the
 * worker client answers each with a promise of the same value. */
export interface EngineMethods {
  /** Reads one session (a main file and its side files, in any order);
   * `leafLabel` and `entry` name a place to open at (a deep link's
   * labels, found in the summary's `requested_leaf`/`requested_entry`). */
  open(files: Files, leafLabel?: string | null, entry?: string | null): Promise<Answer<'opened'>>;
  /** A folder's files, `paths[i]` the path of the `i`th under it:
   * `{sessions, summary}`, the summary when it holds one session. */
  openFolder(files: Files, paths: readonly string[]): Promise<Answer<'folder'>>;
  /** The `session`th session of the folder listed last. */
  openListed(session: Args<'open_listed'>['session']): Answer<'opened'>;
  /** The rows of the branch ending at entry `leaf`, as columns. */
  branch(leaf: number): Answer<'branch'>;
  /** The bodies of rows `start..end` of that branch. */
  bodies(leaf: number, start: number, end: number): Answer<'bodies'>;
  /** Hits of `query` (`filter`: what was said by default: user,
   * assistant and tool, not events). */
  search(query: string, filter?: Partial<SearchFilter>): Answer<'search_results'>;
  /** Token totals per model, tool counts, the deep check's first
   * problems (every body parsed). */
  stats(): Answer<'stats'>;
  /** The `image`th image of a row, as a `data:` URL. */
  image(leaf: number, row: number, image: number): Answer<'image'>;
  /** What these outline segments are about. */
  previews(segments: readonly number[]): Answer<'previews'>;
  /** Bodies, previews, snippets, contexts and migrations with sensitive
   * data hidden (the default) or as written. */
  hideSensitive(hide: boolean): Answer<'done'>;
  /** What a review marked "not a secret", shown as written while the rest
   * stays hidden; empty lists take it back. */
  review(disable?: string[] | null, allow?: ReviewAllow[] | null): Answer<'done'>;
  /** Scans for sensitive data in the background (`scan` events). */
  scan(): Answer<'done'>;
  /** A redacted copy of file `file`, the bytes `retrace redact --mode`
   * writes (`disable`d kinds and `allow`ed findings left in place). */
  download(file: number, mode: Args<'download'>['mode'], disable?: string[] | null, allow?: Allow[] | null): Promise<MadeFile>;
  /** The rows the branch can be forked at and its calls without a result. */
  editPoints(leaf: number): Answer<'edit_points'>;
  /** A new session forked at row `row` of the branch ending at `leaf`. */
  fork(leaf: number, row: number): MadeFile;
  /** The branch with its calls without a result answered. */
  seal(leaf: number): MadeFile;
  /** The branches ending at `left` and `right` side by side from their
   * fork point, rows aligned (`pairs`: 0 the last shared row, 1 same, 2
   * changed, 3 left alone, 4 right alone), each row with its body; or,
   * when `right` is a compaction on `left`'s branch, what it hid (left)
   * beside what replaced it (right). */
  compare(left: number, right: number): Answer<'comparison'>;
  /** The branch tree, node by node. */
  tree(): Answer<'tree'>;
  /** The messages of the branch ending at `leaf`, as a model would be
   * sent them. */
  context(leaf: number): Answer<'context'>;
  /** The branch ending at `leaf` as the history of a request to `to`,
   * with what that loses (`nothing-to-send` when it holds no turn). */
  migrate(leaf: number, to: Args<'migrate'>['to']): Answer<'migration'>;
}

/** The engine, answering on the caller's thread (after `init()`). */
export interface Engine extends EngineMethods {}
export class Engine {
  /** An engine with no session open. */
  constructor();
  /** Hears each event of background work; `null` stops. */
  listen(callback: Listener | null): void;
  /** Lets the session go; what had not been answered, and anything asked
   * later, is refused with code `closed`. */
  close(): void;
  /** Frees the class's own memory (wasm-bindgen's). */
  free(): void;
}

/** The methods of `EngineMethods` answering with promises. */
export type Promised<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/** Where the worker's script, the engine's JS and its wasm are (by
 * default, beside client.js). */
export interface WorkerOptions {
  script?: string | URL;
  glue?: string | URL;
  module?: WebAssembly.Module | string | URL;
}

/** The same engine in a Web Worker: the direct class's methods, by the
 * same names, as promises. */
export interface WorkerClient extends Promised<EngineMethods> {}
export class WorkerClient {
  constructor(options?: WorkerOptions);
  listen(callback: Listener | null): void;
  /** Ends the worker and its memory. */
  close(): void;
}

/** Loads the engine's wasm (from beside this file, or `source`); needed
 * before `new Engine()`, not by a WorkerClient. */
export function init(source?: URL | RequestInfo | globalThis.Response | BufferSource | WebAssembly.Module): Promise<void>;
export default init;
