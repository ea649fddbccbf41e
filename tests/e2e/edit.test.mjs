// Fork and seal in the viewer: the files it downloads are what the CLI's
// `retrace fork` and `retrace seal` write (the core's same functions), byte
// for byte once the CLI is given the tab's time and ids (a fork's id; a
// seal's new entry ids are drawn at random on both sides, so the CLI's are
// swapped for the tab's) and a pi fork's parent is named as a tab names it.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

import { browserSuite, corpus, drop, files, opened, out, retraceBin, shot } from './harness.mjs';

// pi v3 with a bash call (call-2) left without a result; one safe fork point, e1.
const PI = `${corpus}/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl`;
// Claude Code, a prompt and a call left pending.
const CLAUDE = `${corpus}/claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const suite = browserSuite();

const retrace = (...args) => execFileSync(retraceBin, args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
const lines = (text) => text.split('\n').filter((l) => l.length > 0);

/** Opens `fixture` and waits for its fork points. */
async function openWithPoints(fixture) {
  const p = await suite.page('/');
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

/** The ids of the sealing lines of `text`, in order (pi `id`, Claude Code `uuid`). */
const sealingIds = (text) => lines(text)
  .filter((l) => l.includes('sealed by retrace'))
  .map((l) => JSON.parse(l))
  .map((v) => v.id ?? v.uuid)
  .filter((id) => id !== undefined);

test('seal: the download is what retrace seal writes, byte for byte', async () => {
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
    // The CLI at the tab's time (the last sealing line's: the branch's end
    // is sealed at the time given, a call before it at its own time) ...
    const sealing = lines(got.text).filter((l) => l.includes('sealed by retrace'));
    assert.equal(sealing.length, 1);
    let want = retrace('seal', '--time', JSON.parse(sealing.at(-1)).timestamp, fixture);
    // ... with the ids it drew swapped for the tab's, which are new (pi: 8
    // hex digits, as pi makes them).
    const [tab, cli] = [sealingIds(got.text), sealingIds(want)];
    assert.equal(tab.length, cli.length);
    assert.equal(tab.length, fixture === PI ? 1 : 0);
    const source = fs.readFileSync(fixture, 'utf8');
    for (const [i, id] of tab.entries()) {
      assert.match(id, /^[0-9a-f]{8}$/);
      assert.ok(!source.includes(`"${id}"`), `${id} is not in the file`);
      want = want.split(`"${cli[i]}"`).join(`"${id}"`);
    }
    assert.equal(got.text, want);
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
  const header = JSON.parse(lines(got.text)[0]);
  assert.match(header.id, UUID);
  assert.equal(header.parentSession, 'branching.jsonl');
  // The CLI with the tab's id and time writes the same bytes, but for the
  // parent: its full path there, the file's name in a tab (which has no
  // path).
  const want = retrace('fork', '--at', 'sfp:0', '--id', header.id, '--time', header.timestamp, PI)
    .replace(JSON.stringify(fs.realpathSync(PI)), JSON.stringify('branching.jsonl'));
  assert.equal(got.text, want);
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
  assert.equal(got.text, retrace('fork', '--at', 'sfp:0', '--id', id, CLAUDE));
  assert.deepEqual(p.errors, []);
  await p.close();
});
