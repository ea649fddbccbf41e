// <retrace-player>'s figures in headless Chromium (run by `cargo xtask
// bench-player`, not by the tests): for each session file given, the time
// from adding a player to its first frame (`ready`: the session fetched,
// indexed in the player's worker, its branch laid out and, for
// `poster="end"`, the bodies of the last rows drawn), cold (the engine's
// module fetched and compiled first) and warm; then the renderer's memory
// with 1, 2 and 4 players on the first file, and before and after one
// dispose(). Memory is the resident size of the page's renderer process
// (/proc/PID/status VmRSS: the page, its workers and their wasm memory),
// after a forced garbage collection.

import fs from 'node:fs';
import path from 'node:path';

import { launch, serve } from './harness.mjs';
import { renderers } from './player-kit.mjs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench-player.mjs SESSION.jsonl…');
  process.exit(2);
}
const extra = {};
for (const [i, file] of files.entries()) extra[`/bench/${i}/${path.basename(file)}`] = fs.readFileSync(file);
const urls = Object.keys(extra);
const site = await serve(extra);
const mb = (n) => (n / 1e6).toFixed(1);

/** A new browser with the test page open and the element defined. */
async function open() {
  const ctx = await launch();
  const p = await ctx.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(e.message));
  await p.goto(`${site.base}/pages/blank.html`);
  await p.waitForFunction(() => customElements.get('retrace-player'));
  const cdp = await ctx.newCDPSession(p);
  const settle = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    await p.waitForTimeout(500);
  };
  return { ctx, p, settle };
}

/** Adds player `id` playing `url` and resolves with the milliseconds
 * from adding it to its `ready`. */
async function add(p, id, url, attrs = {}) {
  return p.evaluate(({ id, url, attrs }) => new Promise((ok, fail) => {
    const player = document.createElement('retrace-player');
    player.id = id;
    player.setAttribute('src', url);
    for (const [k, v] of Object.entries(attrs)) player.setAttribute(k, v);
    const start = performance.now();
    player.addEventListener('ready', () => ok(performance.now() - start), { once: true });
    player.addEventListener('error', (e) => fail(new Error(e.detail.message)), { once: true });
    document.body.append(player);
  }), { id, url, attrs });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log('time to first frame (ms, median of 3; cold: the first player of a page, which fetches and compiles the engine):');
for (const [i, url] of urls.entries()) {
  const size = mb(fs.statSync(files[i]).size);
  for (const poster of ['title', 'end']) {
    const cold = [];
    const warm = [];
    for (let run = 0; run < 3; run++) {
      const { ctx, p } = await open();
      cold.push(await add(p, 'a', url, { poster }));
      warm.push(await add(p, 'b', url, { poster }));
      if (p.errors.length) throw new Error(p.errors.join('\n'));
      await ctx.close();
    }
    console.log(`  ${path.basename(files[i])} (${size} MB), poster=${poster}: cold ${median(cold).toFixed(0)}, warm ${median(warm).toFixed(0)}`);
  }
}

console.log(`memory (renderer RSS after GC; players on ${path.basename(files[0])}):`);
for (const n of [1, 2, 4]) {
  const { ctx, p, settle } = await open();
  await settle();
  const before = renderers(ctx.profileDir);
  for (let k = 0; k < n; k++) await add(p, `p${k}`, urls[0]);
  await settle();
  const after = renderers(ctx.profileDir);
  // The page's renderer (which runs its workers) is the one that grew.
  const [pid] = Object.keys(after).sort((x, y) => (after[y] - (before[y] ?? 0)) - (after[x] - (before[x] ?? 0)));
  const grew = after[pid] - (before[pid] ?? 0);
  let line = `  ${n} player${n > 1 ? 's' : ''}: +${mb(grew)} MB (${mb(grew / n)} MB a player; the page ${mb(before[pid])} MB before)`;
  if (n === 2) {
    await p.evaluate(() => document.getElementById('p1').dispose());
    for (let t = 0; t < 100 && p.workers().length > 1; t++) await p.waitForTimeout(50);
    await settle();
    const disposed = renderers(ctx.profileDir)[pid];
    line += `; one disposed: ${mb(after[pid])} -> ${mb(disposed)} MB (${mb(after[pid] - disposed)} MB back, ${p.workers().length} worker left)`;
  }
  console.log(line);
  await ctx.close();
}
site.server.close();
