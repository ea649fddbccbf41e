// retrace-wasm for Node >= 20 (the package's `node` entry): the engine's
// wasm read from the file beside this one and instantiated on import, so
// `new Engine()` answers at once. Files are given as bytes, `{name, bytes}`
// with bytes a Uint8Array (a Buffer is one) or an ArrayBuffer, or as Blobs
// with a name. What the engine uses of its host exists in Node 20 as in a
// browser: `crypto.getRandomValues` and `performance.now` (new ids and
// times of a fork or a seal), `setTimeout` (background work: redacted
// copies, the scan), `Blob` (made files, as the browser gets them). The
// Web Worker transport is the browser's: no WorkerClient here.

import { readFile } from 'node:fs/promises';

import { Engine, initSync } from './retrace_wasm.js';

initSync({ module: await readFile(new URL('./retrace_wasm_bg.wasm', import.meta.url)) });

export { Engine };

/** The engine is ready on import; `init()` is here so that code written
 * for the browser entry runs unchanged. */
export async function init() {}

export default init;
