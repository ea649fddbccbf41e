// The package's `node` entry: the direct Engine and every value of
// index.d.ts; the engine is ready on import (`init()` does nothing). No
// WorkerClient: its transport is the browser's Web Worker.

export type * from './index.js';
export { Engine, init, init as default } from './index.js';
