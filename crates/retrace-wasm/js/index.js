// retrace-wasm for pages and bundlers (the package's browser entry).
// `init()` loads the engine's wasm, found beside this file through
// `new URL(…, import.meta.url)` (the form bundlers follow too); then
// `new Engine()` answers on the page's thread, and `new WorkerClient()`
// runs the same engine in a Web Worker with the same methods as promises.
// Types: index.d.ts.

import start, { Engine } from './retrace_wasm.js';

export { Engine };
export { WorkerClient } from './client.js';

/** Loads the engine's wasm once (later calls wait for the first): from
 * beside this file, or from `source` (a URL, a Response, bytes or a
 * compiled WebAssembly.Module). A WorkerClient needs none: its worker
 * loads its own. */
export async function init(source) {
  await start(source === undefined ? undefined : { module_or_path: source });
}

export default init;
