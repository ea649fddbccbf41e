// A session file opened by `retrace serve`'s viewer two ways, side by side
// (run by `cargo xtask bench-serve --open FILE`, not by the tests):
// dropped on the served viewer (`/view/`, the file chosen in its
// <input type=file>) and served (`/view/?s=ID`, its bytes read from the
// server by HTTP). For each: the engine's "indexed in" (from its first
// read to the index done, as the status line says it) and the wall time
// to the first rows with bodies (from choosing the file, or from the
// navigation to `/view/?s=ID`, which includes loading the page).
//
// `node bench-serve-open.mjs [--runs N] --bin RETRACE[=LABEL]… FILE`:
// each binary (built with the viewer) serves the folder holding FILE;
// runs interleave the binaries and the two ways, and medians are printed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launch } from './harness.mjs';

const args = process.argv.slice(2);
const bins = [];
let runs = 3;
let file = null;
while (args.length) {
  const a = args.shift();
  if (a === '--runs') runs = Number(args.shift());
  else if (a === '--bin') {
    const [bin, label] = args.shift().split('=');
    bins.push({ bin, label: label || path.basename(path.dirname(path.dirname(bin))) });
  } else file = a;
}
if (!file || !bins.length) {
  console.error('usage: node bench-serve-open.mjs [--runs N] --bin RETRACE[=LABEL]… FILE');
  process.exit(2);
}
file = path.resolve(file);
const mb = fs.statSync(file).size / 1e6;

/** `retrace serve` of FILE's folder, listening: its base URL and the id of
 * FILE's session. */
async function start(bin) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-bench-serve-'));
  const child = spawn(bin, ['serve', path.dirname(file), '--no-cache'], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (d) => { errors += d; });
  const base = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const url = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (url) ok(url[0].slice(0, -1));
    });
    child.on('exit', (code) => fail(new Error(`${bin} serve exited ${code}: ${errors}`)));
  });
  const listing = await (await fetch(`${base}/api/sessions`)).json();
  const entry = listing.sessions.find((s) => path.resolve(s.path) === file);
  if (!entry) throw new Error(`${bin} serve does not list ${file}`);
  return { child, home, base, id: entry.id };
}

/** Watches the page from inside: when the rows with bodies came, and the
 * engine's "indexed in" once the status says it. */
function watch() {
  window.__bench = { firstRows: 0 };
  new MutationObserver(() => {
    const b = window.__bench;
    if (!b.firstRows && document.querySelector('.opened')
      && document.querySelector('.row') && !document.querySelector('.loading-body')) {
      b.firstRows = performance.now();
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

async function measure(p, from) {
  await p.waitForFunction(() => window.__bench?.firstRows, null, { timeout: 300000, polling: 100 });
  const status = await p.textContent('.opened');
  const indexed = Number(status.match(/indexed in ([\d,]+) ms/)[1].replace(/,/g, '')) / 1000;
  const firstRows = (await p.evaluate(() => window.__bench.firstRows) - from) / 1000;
  return { indexed, firstRows };
}

async function dropped(ctx, server) {
  const p = await ctx.newPage();
  await p.addInitScript(watch);
  await p.goto(`${server.base}/view/`);
  await p.waitForLoadState('networkidle');
  const chosen = await p.evaluate(() => performance.now());
  await p.setInputFiles('#file', file);
  const r = await measure(p, chosen);
  await p.close();
  return r;
}

async function served(ctx, server) {
  const p = await ctx.newPage();
  await p.addInitScript(watch);
  await p.goto(`${server.base}/view/?s=${server.id}`);
  // Time 0 of the page is its navigation's start.
  const r = await measure(p, 0);
  await p.close();
  return r;
}

const servers = [];
for (const b of bins) servers.push({ ...b, ...(await start(b.bin)) });
const ctx = await launch();
const figures = servers.map(() => ({ dropped: [], served: [] }));
try {
  for (let run = 0; run < runs; run++) {
    for (const [i, s] of servers.entries()) {
      // Which way goes first alternates, so neither always gets the page cache's leftovers.
      const ways = run % 2 ? ['served', 'dropped'] : ['dropped', 'served'];
      for (const way of ways) {
        const r = await (way === 'dropped' ? dropped : served)(ctx, s);
        figures[i][way].push(r);
        console.log(`  run ${run + 1} ${s.label} ${way}: indexed in ${r.indexed.toFixed(2)} s, first rows ${r.firstRows.toFixed(2)} s`);
      }
    }
  }
} finally {
  await ctx.close();
  for (const s of servers) {
    s.child.kill();
    fs.rmSync(s.home, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
console.log(`bench-serve --open ${file} (${mb.toFixed(0)} MB), ${runs} runs each, medians (range):`);
for (const [i, s] of servers.entries()) {
  for (const way of ['dropped', 'served']) {
    const rs = figures[i][way];
    const idx = rs.map((r) => r.indexed);
    const rows = rs.map((r) => r.firstRows);
    console.log(`  ${s.label.padEnd(8)} ${way.padEnd(8)} indexed ${median(idx).toFixed(2)} s (${range(idx)}), `
      + `${(mb / 1000 / median(idx)).toFixed(2)} GB/s; first rows ${median(rows).toFixed(2)} s (${range(rows)})`);
  }
}
