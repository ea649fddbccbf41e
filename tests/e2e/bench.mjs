// The viewer's open speed in headless Chromium (run by `cargo xtask
// bench-web`, not by the tests): for each file, the time from choosing it
// to the first rendered row with its body (first paint) and to the index
// being complete, the longest stall of the page's main thread meanwhile
// (measured by a 1 ms timer loop in the page), and the worker's memory.
// Then the main thread's long tasks (the Long Tasks API: tasks over 50 ms)
// in each phase: the open (until a second after the index is done),
// scrolling down the conversation, a search and a switch of branch; each
// phase's count and longest are the worst of the runs.

import fs from 'node:fs';
import { launch, serve } from './harness.mjs';

const files = process.argv.slice(2);
const site = await serve();
const ctx = await launch();
let failed = false;
for (const file of files) {
  const mb = fs.statSync(file).size / 1e6;
  let best = null;
  const worst = {};
  const errorsSeen = [];
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
      w.__bench = { chosen: 0, firstPaint: 0, indexed: 0, maxGap: 0, long: [] };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__bench.long.push([e.startTime, e.duration]);
      }).observe({ type: 'longtask' });
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
    const status = await p.textContent('#status');
    const memory = await p.textContent('#worker-memory').catch(() => '');
    // The engine's own figures: indexed in, and how much of it waited
    // for the browser's reads of the file.
    const index = await p.$eval('#worker-memory', (el) => el.parentElement.textContent).catch(() => '');
    const waited = /\((\d+) ms waiting for reads\)/.exec(index)?.[1];
    const phases = await interact(p);
    const b = await p.evaluate(() => window.__bench);
    const longTasks = {};
    const edges = [['open', b.chosen], ...phases];
    for (let i = 0; i < edges.length; i++) {
      const [name, from] = edges[i];
      const to = i + 1 < edges.length ? edges[i + 1][1] : Infinity;
      const tasks = b.long.filter(([start]) => start >= from && start < to).map(([, d]) => d);
      longTasks[name] = { count: tasks.length, longest: Math.max(0, ...tasks) };
    }
    delete longTasks.end;
    const result = {
      firstPaint: (b.firstPaint - b.chosen) / 1000,
      indexed: (b.indexed - b.chosen) / 1000,
      maxGap: b.maxGap,
      status: status.trim(),
      memory: memory.trim(),
      longTasks,
      waited,
      errors,
    };
    console.log(`  run ${run + 1}: first paint ${result.firstPaint.toFixed(3)} s, indexed ${result.indexed.toFixed(3)} s `
      + `(${result.status.match(/indexed in \d+ ms/)?.[0] ?? ''}, ${waited ?? '?'} ms waiting for reads), long tasks `
      + Object.entries(longTasks).map(([k, t]) => `${k} ${t.count} (longest ${t.longest.toFixed(0)} ms)`).join(', '));
    for (const [k, t] of Object.entries(longTasks)) {
      const w = worst[k] ?? { count: 0, longest: 0 };
      worst[k] = { count: Math.max(w.count, t.count), longest: Math.max(w.longest, t.longest) };
    }
    errorsSeen.push(...errors);
    if (!best || result.indexed < best.indexed) best = result;
    await p.close();
  }
  const gbs = mb / 1000 / best.indexed;
  console.log(`bench-web ${file} (${mb.toFixed(0)} MB): first paint ${best.firstPaint.toFixed(3)} s, `
    + `fully indexed ${best.indexed.toFixed(3)} s (${gbs.toFixed(2)} GB/s), `
    + `longest main-thread stall ${best.maxGap.toFixed(0)} ms; ${best.status}${best.memory ? `; worker memory ${best.memory}` : ''}`);
  console.log('  long tasks (> 50 ms, worst of the runs): '
    + Object.entries(worst).map(([k, t]) => `${k} ${t.count}, longest ${t.longest.toFixed(0)} ms`).join('; '));
  if (errorsSeen.length) {
    console.log(`  page errors: ${errorsSeen.join(' | ')}`);
    failed = true;
  }
}
await ctx.close();
site.server.close();

// What a reader does next, each phase marked by its start on the page's
// clock: a second of rest (the open's tail), scrolling the conversation
// down, searching, and opening another branch from the tree.
async function interact(p) {
  const mark = () => p.evaluate(() => performance.now());
  const phases = [];
  await p.waitForTimeout(1000);
  phases.push(['scroll', await mark()]);
  await p.hover('.conversation');
  for (let i = 0; i < 40; i++) {
    await p.mouse.wheel(0, 1200);
    await p.waitForTimeout(40);
  }
  await p.waitForTimeout(1000);
  phases.push(['search', await mark()]);
  await p.fill('#search', 'newline');
  await p.press('#search', 'Enter');
  await p.waitForSelector('.results .hit', { state: 'attached', timeout: 60000 }).catch(() => {});
  await p.waitForTimeout(1000);
  phases.push(['branch', await mark()]);
  await p.keyboard.press('Escape');
  const other = p.locator('.segment:not(.current) .segment-button').first();
  if (await other.count()) {
    await other.click();
    await p.waitForSelector('.segment.current .segment-button', { state: 'attached', timeout: 60000 });
    await p.waitForSelector('.row .parts, .row .event-line', { state: 'attached', timeout: 60000 });
  }
  await p.waitForTimeout(1000);
  phases.push(['end', await mark()]);
  return phases;
}
process.exit(failed ? 1 : 0);
