// A Node script's use of retrace-wasm, type-checked (never run) by
// node.test.mjs with Node's resolution (the `node` entry).

import { Engine, init, WorkerClient as Client } from 'retrace-wasm';
import type { Context, WorkerClient } from 'retrace-wasm';

export async function script(bytes: Uint8Array): Promise<number> {
  await init();
  const engine = new Engine();
  const summary = await engine.open([{ name: 'session.jsonl', bytes }]);
  const context: Context = engine.context(summary.default_leaf ?? 0);
  const body = engine.migrate(context.leaf, 'anthropic').body;
  const copy = await engine.download(0, 'typed');
  engine.close();
  // A type, not a value: the Node entry has no worker client.
  const none: WorkerClient | null = null;
  // @ts-expect-error: WorkerClient is no value of the node entry
  new Client();
  return context.messages.length + JSON.stringify(body).length + copy.file.size + (none ? 1 : 0);
}
