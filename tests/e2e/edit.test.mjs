// Fork and seal in the viewer: the files it downloads are what the CLI's
// `retrace fork` and `retrace seal` write (the core's same functions),
// apart from the new ids and time the tab draws.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

import { corpus, drop, files, launch, opened, out, page, retraceBin, serve, shot } from './harness.mjs';

// pi v3 with a bash call (call-2) left without a result; one safe fork point, e1.
const PI = `${corpus}/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl`;
// Claude Code, a prompt and a call left pending.
const CLAUDE = `${corpus}/claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let ctx;
let site;

before(async () => {
  site = await serve();
  ctx = await launch();
});

after(async () => {
  await ctx?.close();
  site?.server.close();
});

const retrace = (...args) => execFileSync(retraceBin, args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
const lines = (text) => text.split('\n').filter((l) => l.length > 0);

/** Opens `fixture` and waits for its fork points. */
async function openWithPoints(fixture) {
  const p = await page(ctx);
  await p.goto(site.base + '/');
  await drop(p, files(fixture));
  await opened(p);
  await p.waitForSelector('#edit-status', { timeout: 30000 });
  return p;
}

/** Clicks `selector` and reads the file the page saves. */
async function download(p, selector) {
  const [d] = await Promise.all([p.waitForEvent('download'), p.click(selector)]);
  return { name: d.suggestedFilename(), text: fs.readFileSync(await d.path(), 'utf8') };
}

test('seal: the download answers every call, as retrace seal writes it', async () => {
  for (const fixture of [PI, CLAUDE]) {
    const p = await openWithPoints(fixture);
    assert.match(await p.textContent('#edit-status'), /1 tool call without a result/);
    const got = await download(p, '#seal');
    const stem = fixture.split('/').pop().replace(/\.jsonl$/, '');
    assert.equal(got.name, `${stem}.sealed.jsonl`);
    // The notes the CLI prints, shown on the page.
    await p.waitForSelector('#edit-notes');
    assert.match(await p.textContent('#edit-notes'), /had no result: sealed as an error/);
    const saved = `${out}/${got.name}`;
    fs.writeFileSync(saved, got.text);
    const report = JSON.parse(retrace('validate', '--json', saved));
    assert.equal(report.calls_without_result, 0, `${got.name}: ${JSON.stringify(report)}`);
    assert.equal(report.errors, 0);
    // The same lines as the CLI's, but for the sealing lines' new ids and time.
    const want = lines(retrace('seal', fixture));
    const have = lines(got.text);
    assert.equal(have.length, want.length);
    const strip = (l) => JSON.stringify(JSON.parse(l), (k, v) => (['id', 'uuid', 'timestamp', 'parentId', 'parentUuid'].includes(k) ? undefined : v));
    for (let i = 0; i < want.length; i++) {
      if (want[i] !== have[i]) assert.equal(strip(have[i]), strip(want[i]), `line ${i + 1}`);
    }
    assert.deepEqual(p.errors, []);
    await shot(p, `seal-${stem}`);
    await p.close();
  }
});

test('fork here: the download is the branch up to the row, with a new session id', async () => {
  const p = await openWithPoints(PI);
  // Only safe fork points and the branch's end offer it.
  // (The last row here is an event line, whose head is drawn compact.)
  const offered = await p.$$eval('.fork-here:not([hidden])', (bs) => bs.map((b) => b.closest('.row').dataset.entry));
  assert.deepEqual(offered, ['e1', 'e8']);
  const got = await download(p, '[data-entry="e1"] .fork-here');
  assert.equal(got.name, 'branching.fork.jsonl');
  await p.waitForSelector('#edit-notes');
  assert.match(await p.textContent('#edit-notes'), /copied line for line/);
  const have = lines(got.text);
  const header = JSON.parse(have[0]);
  assert.match(header.id, UUID);
  assert.equal(header.parentSession, 'branching.jsonl');
  // The CLI with the same id: the same bytes but for the header's time and
  // parent (a full path there).
  const want = lines(retrace('fork', '--at', 'sfp:0', '--id', header.id, PI));
  assert.equal(have.length, want.length);
  assert.deepEqual(have.slice(1), want.slice(1));
  const drop_ = ({ timestamp, parentSession, ...rest }) => rest;
  assert.deepEqual(drop_(header), drop_(JSON.parse(want[0])));
  // Its branch is the source's prefix up to e1.
  const saved = `${out}/${got.name}`;
  fs.writeFileSync(saved, got.text);
  assert.deepEqual(lines(retrace('cat', saved)).slice(1), lines(retrace('cat', '--leaf', 'e1', PI)).slice(1));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('fork here on Claude Code: the file is named after the new session', async () => {
  const p = await openWithPoints(CLAUDE);
  const got = await download(p, '[data-entry="L1"] .fork-here');
  const id = got.name.replace(/\.jsonl$/, '');
  assert.match(id, UUID);
  // (This fixture's lines carry no sessionId: the core writes none; the
  // notes say so.)
  await p.waitForSelector('#edit-notes');
  assert.match(await p.textContent('#edit-notes'), /sessionId/);
  assert.deepEqual(lines(got.text), lines(retrace('fork', '--at', 'sfp:0', '--id', id, CLAUDE)));
  assert.deepEqual(p.errors, []);
  await p.close();
});
