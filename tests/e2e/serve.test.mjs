// `retrace serve` (RETRACE_BIN, built with the viewer: `cargo xtask test`
// builds it so) over a folder of corpus sessions, in headless Chromium:
// the index page lists them (filtered, sorted, grouped by project), a
// search across them opens the viewer at the hit, a session opens from its
// row with its bytes read by range, and a file appended to while open
// shows its new entries; a session of several 16 MiB pieces opens served
// as it opens dropped. Requests that try to leave the catalog (path
// traversal) or come under another site's name (DNS rebinding) are
// refused.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { corpus, launch, opened, page, retraceBin } from './harness.mjs';

const PROJECTS = 'claude-code/iansherr__claude-code-log/test/test_data/real_projects';
const ROLLOUT = 'rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl';
const GEMINI = 'session-2025-12-03T04-04-ff205d73.json';
const LIVE = 'live/2026-01-01T00-00-00-000Z_live.jsonl';

let dir;
let server;
let base;
let ctx;

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-serve-e2e-'));
  const sessions = path.join(dir, 'sessions');
  copy(path.join(corpus, PROJECTS, '-experiments-worktrees'), path.join(sessions, 'claude/-experiments-worktrees'));
  copy(path.join(corpus, PROJECTS, '-src-deep-manifest'), path.join(sessions, 'claude/-src-deep-manifest'));
  copy(path.join(corpus, 'codex/AcidicSoil__codex-session-view/.sample_session', ROLLOUT), path.join(sessions, 'codex/2025/11/17', ROLLOUT));
  copy(path.join(corpus, 'gemini-cli/mischa-thisness__M-Gemini/Archives', GEMINI), path.join(sessions, 'gemini/abc/chats', GEMINI));
  // A pi v3 session (ids and parents), appended to as pi appends.
  copy(path.join(corpus, 'pi/kenn-io__agentsview/internal/parser/testdata/pi/session.jsonl'), path.join(sessions, LIVE));
  server = spawn(retraceBin, ['serve', sessions, '--no-cache'], {
    env: { ...process.env, HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  server.stderr.on('data', (d) => { errors += d; });
  base = await new Promise((ok, fail) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const url = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (url) ok(url[0].slice(0, -1));
    });
    server.on('exit', (code) => fail(new Error(`retrace serve exited ${code}: ${errors}`)));
  });
  ctx = await launch();
});

after(async () => {
  await ctx?.close();
  server?.kill();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The index page with its rows drawn. */
async function index() {
  const p = await page(ctx);
  await p.goto(`${base}/`);
  await p.waitForSelector('#rows tr[data-id]');
  return p;
}

const rowCount = (p) => p.locator('#rows tr[data-id]').count();

test('the index lists every session, by project, filtered and sorted', async () => {
  const p = await index();
  // The Claude Code sessions (one with its six subagent runs), the Codex
  // rollout, the Gemini CLI chat and the pi session.
  assert.equal(await rowCount(p), 5);
  const groups = await p.locator('#rows tr.group td').allTextContents();
  assert.ok(groups.some((g) => g.includes('claude/-experiments-worktrees')), groups.join('|'));
  assert.ok(groups.some((g) => g.includes('/codex')), groups.join('|'));
  await p.fill('#filter', 'gemini');
  await p.waitForFunction(() => document.querySelectorAll('#rows tr[data-id]').length === 1);
  assert.match(await p.textContent('#count'), /1 of 5 sessions/);
  await p.fill('#filter', '');
  await p.uncheck('#grouped');
  await p.selectOption('#sort', 'size');
  await p.waitForFunction(() => document.querySelectorAll('#rows tr[data-id]').length === 5);
  const sizes = await p.$$eval('#rows tr[data-id] td.num:nth-of-type(3)', (tds) => tds.map((t) => t.textContent));
  const bytes = (s) => parseFloat(s) * ({ B: 1, KB: 1e3, MB: 1e6, GB: 1e9 })[s.split(' ')[1]];
  assert.deepEqual(sizes.map(bytes), [...sizes.map(bytes)].sort((a, b) => b - a));
  assert.deepEqual(p.errors, []);
});

test('a search across sessions opens the viewer at the hit', async () => {
  const p = await index();
  await p.fill('#q', 'experiment');
  await p.press('#q', 'Enter');
  await p.waitForSelector('#hits li a');
  assert.match(await p.textContent('#results-title'), /hits for “experiment”/);
  const href = await p.getAttribute('#hits li a', 'href');
  assert.match(href, /^\/view\/\?s=[0-9a-f]{16}#leaf=.+&entry=.+/);
  await Promise.all([p.waitForURL(/\/view\//), p.click('#hits li a')]);
  await opened(p);
  // The entry the hit names is the one in focus.
  const entry = decodeURIComponent(href.match(/entry=([^&]+)/)[1]);
  await p.waitForFunction((e) => document.querySelector('.row.focused')?.dataset.entry === e, entry, { timeout: 20000 });
  assert.deepEqual(p.errors, []);
});

test('a session opens from its row, read by range', async () => {
  const p = await index();
  const ranges = [];
  p.on('request', (r) => {
    if (r.url().includes('/files/')) ranges.push(r.headers().range);
  });
  await p.fill('#filter', 'experiments-worktrees');
  await p.waitForFunction(() => document.querySelectorAll('#rows tr[data-id]').length === 1);
  await Promise.all([p.waitForURL(/\/view\/\?s=/), p.click('#rows tr[data-id] a')]);
  await opened(p);
  const status = await p.textContent('#status');
  assert.match(status, /ef958aa1-0e93-49f0-bb71-150f63befcd1\.jsonl/);
  assert.match(status, /\+ 6 files/, 'its subagent runs');
  assert.ok(ranges.length > 0 && ranges.every((r) => /^bytes=\d+-\d+$/.test(r)), ranges.join(','));
  assert.deepEqual(p.errors, []);
});

test('a session being written shows its new entries while open', async () => {
  const p = await index();
  await p.fill('#filter', 'live');
  await p.waitForFunction(() => document.querySelectorAll('#rows tr[data-id]').length === 1);
  await Promise.all([p.waitForURL(/\/view\/\?s=/), p.click('#rows tr[data-id] a')]);
  await opened(p);
  const file = path.join(dir, 'sessions', LIVE);
  const last = fs.readFileSync(file, 'utf8').trimEnd().split('\n').reverse()
    .map((l) => { try { return JSON.parse(l); } catch { return null; } })
    .find((e) => e?.id);
  const said = 'A prompt typed while the page was open';
  const line = {
    type: 'message', id: 'live0001', parentId: last.id, timestamp: '2030-01-01T00:00:00.000Z',
    message: { role: 'user', content: [{ type: 'text', text: said }] },
  };
  assert.equal(await p.locator(`text=${said}`).count(), 0);
  // The reader is on the second row (a link to it): it stays in focus as
  // the session grows.
  const before = await p.getAttribute('.row >> nth=1', 'data-entry');
  await p.goto(`${p.url().split('#')[0]}#entry=${encodeURIComponent(before)}`);
  await p.reload();
  await opened(p);
  const focused = () => p.evaluate(() => document.querySelector('.row.focused')?.dataset.entry);
  assert.equal(await focused(), before);
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  await p.waitForSelector(`text=${said}`, { timeout: 20000 });
  assert.equal(await focused(), before);
  // A second append: followed again.
  const again = { ...line, id: 'live0002', parentId: 'live0001', timestamp: '2030-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'And one more' }] } };
  fs.appendFileSync(file, `${JSON.stringify(again)}\n`);
  await p.waitForSelector('text=And one more', { timeout: 20000 });
  assert.deepEqual(p.errors, []);
});

/** A request as written, with the Host and path given verbatim. */
function raw(pathname, host) {
  const url = new URL(base);
  return new Promise((ok, fail) => {
    const req = http.request({ host: url.hostname, port: url.port, path: pathname, headers: { Host: host ?? url.host } }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode));
    });
    req.on('error', fail);
    req.end();
  });
}

test('traversal and another site’s Host are refused', async () => {
  for (const p of ['/../../etc/passwd', '/view/%2e%2e/%2e%2e/etc/passwd', '/files/%2E%2E%2F/0', '/view/..%2f..%2fetc%2fpasswd']) {
    assert.equal(await raw(p), 400, p);
  }
  assert.equal(await raw('/files/0000000000000000/0'), 404);
  assert.equal(await raw('/api/sessions'), 200);
  const port = new URL(base).port;
  assert.equal(await raw('/api/sessions', `rebound.example:${port}`), 403);
  assert.equal(await raw('/', `attacker.test:${port}`), 403);
  // And from a page: fetch under a foreign name never gets an answer the
  // page can read (the server refuses it before any route).
  const p = await page(ctx);
  await p.goto(`${base}/`);
  const status = await p.evaluate(async () => (await fetch('/files/0000000000000000/0')).status);
  assert.equal(status, 404);
});

test('a session larger than a piece opens served as it opens dropped', async () => {
  // 40 MB of pi session (gen_session.py, seeded): three of opening's 16
  // MiB pieces cut from one streamed answer, lines crossing the cuts.
  const file = path.join(dir, 'sessions', 'big', 'big.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('python3', [path.join(corpus, '../tools/gen_session.py'), '--mb', '40', '--seed', '3', '--out', file]);
  // The catalog is walked again when asked, at most every 2 s.
  let id;
  for (let i = 0; !id && i < 50; i++) {
    const listing = await (await fetch(`${base}/api/sessions`)).json();
    id = listing.sessions.find((s) => s.path === file && s.entries)?.id;
    if (!id) await new Promise((ok) => setTimeout(ok, 300));
  }
  assert.ok(id, 'the catalog lists the new session');
  const p = await page(ctx);
  const ranges = [];
  p.on('request', (r) => {
    if (r.url().includes('/files/')) ranges.push(r.headers().range);
  });
  await p.goto(`${base}/view/?s=${id}`);
  await opened(p);
  const size = fs.statSync(file).size;
  // One request for the opening's pieces, the whole file (then bodies,
  // each by its range).
  assert.equal(ranges[0], `bytes=0-${size - 1}`);
  // The background scan for sensitive data reads the whole file too, a
  // 2 MiB slice at a time from its start (`SLICE`, engine/sensitive.rs),
  // and may have begun by now: those reads are neither opening's nor the
  // bodies'.
  const slice = 2 << 20;
  const read = ranges.filter((r, i) => {
    const [from, to] = r.slice('bytes='.length).split('-').map(Number);
    return i === 0 || from % slice !== 0 || (to + 1 - from !== slice && to !== size - 1);
  });
  const long = read.filter((r) => {
    const [from, to] = r.slice('bytes='.length).split('-').map(Number);
    return to - from >= 1 << 20;
  });
  assert.deepEqual(long, [read[0]]);
  // The bodies of the summary's previews and of the first rows: each
  // byte asked once (the worker keeps recent blocks), so no range is
  // asked twice and none overlaps another.
  const bodies = read.slice(1).map((r) => r.slice('bytes='.length).split('-').map(Number))
    .sort((a, b) => a[0] - b[0]);
  assert.ok(bodies.length > 0, 'bodies read by range');
  for (let i = 1; i < bodies.length; i++) {
    assert.ok(bodies[i][0] > bodies[i - 1][1], `bytes ${bodies[i - 1].join('-')} and ${bodies[i].join('-')} both asked`);
  }
  const shown = (s) => s.replace(/indexed in [\d,]+ ms/, '').trim();
  const served = shown(await p.textContent('.opened'));
  const rows = await p.locator('.row').count();
  const texts = await p.$$eval('.row', (rs) => rs.map((r) => r.textContent));
  assert.deepEqual(p.errors, []);
  const q = await page(ctx);
  await q.goto(`${base}/view/`);
  await q.setInputFiles('#file', file);
  await opened(q);
  assert.equal(served, shown(await q.textContent('.opened')));
  assert.match(served, /big\.jsonl · pi .*[\d,]+ entries/);
  assert.equal(rows, await q.locator('.row').count());
  assert.deepEqual(texts, await q.$$eval('.row', (rs) => rs.map((r) => r.textContent)));
  assert.deepEqual(q.errors, []);
});
