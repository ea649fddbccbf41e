// A page's use of retrace-wasm, type-checked (never run) against the
// package's declarations by node.test.mjs: what a caller writes must
// check, and what it must not (`@ts-expect-error`) must fail, so the
// declarations are neither missing nor `any`.

import init, { Engine, WorkerClient } from 'retrace-wasm';
import type { Api, Event, Migration, Part, RetraceError, SessionTree, Summary } from 'retrace-wasm';

export async function page(file: File): Promise<string[]> {
  await init();
  const engine = new Engine();
  engine.listen((event: Event) => {
    if (event.kind === 'scan') console.log(event.data.done, event.data.counts);
    // @ts-expect-error: a progress event carries no findings
    if (event.kind === 'progress') console.log(event.data.findings);
  });
  const summary: Summary = await engine.open([file]);
  const leaf = summary.default_leaf ?? summary.tips[0];
  const tree: SessionTree = engine.tree();
  const parents: (number | null)[] = tree.nodes.parent;
  const fork = tree.branch_points.filter((b) => b.kind === 'real').map((b) => b.entry);

  const calls: string[] = [];
  for (const message of engine.context(leaf).messages) {
    for (const part of message.content as Part[]) {
      if (part.type === 'tool_call') calls.push(`${part.name} ${JSON.stringify(part.arguments)}`);
      // @ts-expect-error: a text part has no name
      if (part.type === 'text') calls.push(part.name);
    }
    const model: string | undefined = message.model;
  }
  const to: Api = 'openai-responses';
  const migration: Migration = engine.migrate(leaf, to);
  const lost = migration.report.changes.filter((c) => c.loss).map((c) => `${c.code} ${c.count}`);
  // @ts-expect-error: no such API
  engine.migrate(leaf, 'claude');

  const hits = engine.search('error', { events: true }).hits.map((h) => h.snippet);
  const copy = await engine.download(0, 'pseudo', ['email']);
  const text: string = await copy.file.text();
  // @ts-expect-error: no such redaction mode
  await engine.download(0, 'shout');
  try {
    engine.branch(4_000_000_000);
  } catch (e) {
    const code = (e as RetraceError).code;
    if (code === 'not-found') console.log('no such leaf');
    // @ts-expect-error: not one of the engine's codes
    if (code === 'gone') console.log('never');
  }
  // @ts-expect-error: the tree has no rows
  console.log(tree.rows);
  engine.close();

  // The worker's client: the same methods, as promises.
  const client = new WorkerClient();
  await client.open([{ name: 'a.jsonl', bytes: new Uint8Array(await file.arrayBuffer()) }]);
  const later: SessionTree = await client.tree();
  // @ts-expect-error: the worker answers with promises
  const now: SessionTree = client.tree();
  client.close();
  return [...calls, ...lost, ...hits, text, String(parents.length + fork.length + later.nodes.entry.length), String(now)];
}
