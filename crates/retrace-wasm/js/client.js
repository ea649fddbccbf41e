// The JS client of retrace-wasm's worker transport. Its methods have the
// names and arguments of the direct `Engine` class's and return promises
// of the same values (the worker posts them as the class returns them); a
// refusal rejects with an Error named RetraceError whose `code` is one of
// the engine's stable codes. Messages: crates/retrace-wasm/src/js/wire.rs.

const SAID = { user: true, assistant: true, tool: true, events: false };
const CLOSED = { code: 'closed', message: 'the engine was closed before it answered' };

function retraceError({ code, message }) {
  return Object.assign(new Error(message), { name: 'RetraceError', code });
}

/** A `File` for each of `files` (`File`s, `Blob`s with a `name`, or
 * `{name, bytes}` as the direct class takes them): only files cross to the
 * worker. */
function asFiles(files) {
  return [...files].map((f) => {
    if (f instanceof File) return f;
    return new File([f instanceof Blob ? f : f.bytes], f.name);
  });
}

export class WorkerClient {
  #worker;
  #last = 0;
  #pending = new Map();
  /** Messages held until the worker says it is ready; null once it has. */
  #queue = [];
  #listener = null;
  #closed = false;
  /** The failure of a worker that could not start: every request is
   * refused with it, since no worker will answer. */
  #failed = null;

  /** Starts a worker. `script`: the URL of js/worker.js; `glue`: the URL
   * of the wasm-bindgen JS of a plain retrace-wasm build (it exports
   * `startWorker`); `module`: its wasm (a WebAssembly.Module or a URL).
   * By default all three sit beside this file. The wasm's URL is given
   * rather than left to the glue, so a bundler that copies each of these
   * files to a name of its own still hands the worker the right one. */
  constructor({
    script = new URL('./worker.js', import.meta.url),
    glue = new URL('./retrace_wasm.js', import.meta.url),
    module = new URL('./retrace_wasm_bg.wasm', import.meta.url),
  } = {}) {
    this.#worker = new Worker(script, { type: 'module' });
    this.#worker.onmessage = (e) => this.#receive(e.data);
    this.#worker.onerror = (e) => {
      this.#fail({ code: 'internal', message: `the worker failed: ${e.message ?? e}` });
    };
    this.#worker.postMessage({ glue: String(glue), module: module instanceof URL ? String(module) : module });
  }

  /** Calls `callback({kind, data})` for each event (`progress`, `scan`,
   * `download_progress`, `listed`, `failed`); null stops. */
  listen(callback) {
    this.#listener = callback ?? null;
  }

  /** Ends the worker and its memory; what it had not answered, and
   * anything asked later, is refused with code `closed`. */
  close() {
    this.#closed = true;
    this.#worker.terminate();
    this.#refuse(CLOSED);
  }

  open(files, leafLabel, entry) {
    const request = { kind: 'open', leaf_label: leafLabel ?? null, entry: entry ?? null };
    return this.#call(request, asFiles(files));
  }

  openFolder(files, paths) {
    return this.#call({ kind: 'open_folder', paths: [...paths] }, asFiles(files));
  }

  openListed(session) {
    return this.#call({ kind: 'open_listed', session });
  }

  branch(leaf) {
    return this.#call({ kind: 'branch', leaf });
  }

  bodies(leaf, start, end) {
    return this.#call({ kind: 'bodies', leaf, start, end });
  }

  search(query, filter) {
    return this.#call({ kind: 'search', query, filter: { ...SAID, ...filter } });
  }

  stats() {
    return this.#call({ kind: 'stats' });
  }

  image(leaf, row, image) {
    return this.#call({ kind: 'image', leaf, row, image });
  }

  previews(segments) {
    return this.#call({ kind: 'previews', segments: [...segments] });
  }

  hideSensitive(hide) {
    return this.#call({ kind: 'hide_sensitive', hide });
  }

  review(disable, allow) {
    return this.#call({ kind: 'review', disable: disable ?? [], allow: allow ?? [] });
  }

  scan() {
    return this.#call({ kind: 'scan' });
  }

  download(file, mode, disable, allow) {
    return this.#call({ kind: 'download', file, mode, disable: disable ?? [], allow: allow ?? [] });
  }

  editPoints(leaf) {
    return this.#call({ kind: 'edit_points', leaf });
  }

  fork(leaf, row) {
    return this.#call({ kind: 'fork', leaf, row });
  }

  seal(leaf) {
    return this.#call({ kind: 'seal', leaf });
  }

  compare(left, right) {
    return this.#call({ kind: 'compare', left, right });
  }

  tree() {
    return this.#call({ kind: 'tree' });
  }

  context(leaf) {
    return this.#call({ kind: 'context', leaf });
  }

  migrate(leaf, to) {
    return this.#call({ kind: 'migrate', leaf, to });
  }

  #call(request, files) {
    if (this.#closed) return Promise.reject(retraceError(CLOSED));
    if (this.#failed) return Promise.reject(retraceError(this.#failed));
    const id = ++this.#last;
    const message = { id, request: JSON.stringify(request) };
    if (files) message.files = files;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#queue) this.#queue.push(message);
      else this.#worker.postMessage(message);
    });
  }

  #receive(message) {
    if (message.id === undefined) {
      if (message.kind === 'ready') {
        const queued = this.#queue ?? [];
        this.#queue = null;
        for (const m of queued) this.#worker.postMessage(m);
      } else if (message.kind === 'failed' && this.#queue) {
        // The worker could not start (only its script fails before
        // `ready`): nothing asked, now or later, will be answered.
        this.#failed = message.data;
        this.#queue = null;
        this.#fail(message.data);
      } else {
        this.#listener?.({ kind: message.kind, data: message.data ?? null });
      }
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(retraceError(message.error));
    else if (message.file) pending.resolve({ ...message.data, file: message.file });
    else pending.resolve(message.data ?? null);
  }

  #refuse(error) {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(retraceError(error));
  }

  #fail(error) {
    this.#refuse(error);
    this.#listener?.({ kind: 'failed', data: error });
  }
}
