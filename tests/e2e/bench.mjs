// The viewer's open speed in headless Chromium (run by `cargo xtask
// bench-web`, not by the tests): for each file, the time from choosing it
// to the first rendered row with its body (first paint) and to the index
// being complete, the longest stall of the page's main thread meanwhile
// (measured by a 1 ms timer loop in the page), and the worker's memory.

import fs from 'node:fs';
import { launch, serve } from './harness.mjs';

const files = process.argv.slice(2);
const site = await serve();
const ctx = await launch();
let failed = false;
for (const file of files) {
  const mb = fs.statSync(file).size / 1e6;
  let best = null;
  for (let run = 0; run < 3; run++) {
    const p = await ctx.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(site.base + '/');
    await p.waitForLoadState('networkidle');
    // Watch the page from inside: when the file was chosen, the first row
    // with a body, the status saying the index is done, and the longest
    // gap between timer ticks (a frozen tab shows as a long gap).
    await p.evaluate(() => {
      const w = window;
      w.__bench = { chosen: 0, firstPaint: 0, indexed: 0, maxGap: 0 };
      document.querySelector('#file').addEventListener('change', () => {
        w.__bench.chosen = performance.now();
        let last = performance.now();
        const tick = () => {
          const now = performance.now();
          w.__bench.maxGap = Math.max(w.__bench.maxGap, now - last);
          last = now;
          if (!w.__bench.firstPaint || !w.__bench.indexed) setTimeout(tick, 1);
        };
        setTimeout(tick, 1);
      }, { capture: true });
      new MutationObserver(() => {
        const b = w.__bench;
        if (!b.chosen) return;
        if (!b.indexed && document.querySelector('.opened')) b.indexed = performance.now();
        if (!b.firstPaint && document.querySelector('.row .parts, .row .event-line')) b.firstPaint = performance.now();
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await p.setInputFiles('#file', file);
    await p.waitForFunction(() => window.__bench.firstPaint && window.__bench.indexed, null, { timeout: 120000 });
    const b = await p.evaluate(() => window.__bench);
    const status = await p.textContent('#status');
    const memory = await p.textContent('#worker-memory').catch(() => '');
    const result = {
      firstPaint: (b.firstPaint - b.chosen) / 1000,
      indexed: (b.indexed - b.chosen) / 1000,
      maxGap: b.maxGap,
      status: status.trim(),
      memory: memory.trim(),
      errors,
    };
    if (!best || result.indexed < best.indexed) best = result;
    await p.close();
  }
  const gbs = mb / 1000 / best.indexed;
  console.log(`bench-web ${file} (${mb.toFixed(0)} MB): first paint ${best.firstPaint.toFixed(3)} s, `
    + `fully indexed ${best.indexed.toFixed(3)} s (${gbs.toFixed(2)} GB/s), `
    + `longest main-thread stall ${best.maxGap.toFixed(0)} ms; ${best.status}${best.memory ? `; worker memory ${best.memory}` : ''}`);
  if (best.errors.length) {
    console.log(`  page errors: ${best.errors.join(' | ')}`);
    failed = true;
  }
}
await ctx.close();
site.server.close();
process.exit(failed ? 1 : 0);
