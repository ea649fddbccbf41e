// Navigation that lands: deep links and search hits on another branch
// show their row in view; branch changes are history entries (Back and
// Forward); "copy link" copies with a confirmation (and a fallback); a
// reloaded link into a dropped file says where it pointed. Times in the
// reader's zone; the tree at depth; search as you type.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, drop, files, opened } from './harness.mjs';

// The demo (bundled): a real Claude Code session with a rewind.
const FIRST_TIP = '2f4668dd-c177-455f-81c1-caa947d43e73';
const DEFAULT_TIP = 'd107d4c0-ae71-4d3d-af3a-cf7a370bd21f';
const LATE_ON_FIRST = 'a17b2091-fd44-4c3e-aaeb-69196456ab73'; // line 32

// A zone that is not UTC, so local times differ from the file's.
const suite = browserSuite({
  extra: { '/fixtures/deep.jsonl': deepTree(12) },
  options: { timezoneId: 'America/New_York', locale: 'en-US', viewport: { width: 1200, height: 640 } },
  setup: (s) => s.ctx.grantPermissions(['clipboard-read', 'clipboard-write']),
});

/** Whether the focused row's head is inside the conversation pane. */
const focusedInView = (p) => p.evaluate(() => {
  const row = document.querySelector('.row.focused');
  const pane = document.querySelector('.conversation').getBoundingClientRect();
  if (!row) return false;
  const r = row.getBoundingClientRect();
  return r.top >= pane.top - 1 && r.top + 20 <= pane.bottom;
});

/** Waits for the focused row to be in view and to stay there. */
async function lands(p, entry) {
  await p.waitForFunction((e) => document.querySelector('.row.focused')?.dataset.entry === e, entry);
  await p.waitForFunction(() => document.querySelectorAll('.loading-body').length === 0);
  await p.waitForTimeout(400);
  assert.ok(await focusedInView(p), `row ${entry} is in view`);
}

test('a deep link to an entry on a branch that is not the default lands in view', async () => {
  const p = await suite.page(`/?src=demo.jsonl#leaf=${FIRST_TIP}&entry=${LATE_ON_FIRST}`);
  await opened(p);
  await lands(p, LATE_ON_FIRST);
  assert.ok(p.url().includes(`leaf=${FIRST_TIP}`));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a search hit on another branch lands in view; Back and Forward', async () => {
  const p = await suite.page('/');
  await p.goto(`${suite.base}/?src=demo.jsonl`);
  await opened(p);
  assert.ok(p.url().includes(`leaf=${DEFAULT_TIP}`));
  // Search as you type (no Enter); hits name their branch and mark the match.
  await p.fill('#search', 'balanced opinion');
  await p.waitForSelector('.hit');
  assert.ok(await p.locator('.hit').count() >= 2);
  assert.equal(await p.locator('.hit mark').first().textContent(), 'balanced opinion');
  const branches = await p.$$eval('.hit .branch', (b) => b.map((x) => x.textContent));
  assert.ok(branches.includes('on this branch'), branches.join());
  assert.ok(branches.some((b) => b !== 'on this branch' && b.startsWith('on ')), branches.join());
  // Matches are highlighted in the rows too.
  await p.waitForFunction(() => CSS.highlights.get('search')?.size > 0);
  await p.click('.hit:has(.branch:not(:text("on this branch")))');
  await lands(p, LATE_ON_FIRST);
  assert.ok(p.url().includes(`leaf=${FIRST_TIP}`));

  // Back returns to the branch before, Forward to the hit; Back never
  // leaves the app while there is in-app history.
  await p.goBack();
  await p.waitForFunction((t) => location.hash.includes(`leaf=${t}`), DEFAULT_TIP);
  await p.waitForFunction(() => document.body.innerText.includes("I actually don't like much this idea"));
  await p.goForward();
  await p.waitForFunction((t) => location.hash.includes(`leaf=${t}`), FIRST_TIP);
  await lands(p, LATE_ON_FIRST);
  // A branch picked in the tree is an entry too.
  await p.click('.segment:not(.current) .segment-button');
  await p.waitForFunction((t) => location.hash.includes(`leaf=${t}`), DEFAULT_TIP);
  await p.goBack();
  await p.waitForFunction((t) => location.hash.includes(`leaf=${t}`), FIRST_TIP);
  assert.ok(p.url().startsWith(suite.base));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the search follows the conversation\'s events filter', async () => {
  const p = await suite.page(`/?src=demo.jsonl`);
  await opened(p);
  // Hook lines are on screen (events shown), so a search finds them.
  assert.ok(await p.locator('.row.event').count() > 0);
  await p.fill('#search', 'hook');
  await p.waitForSelector('.hit');
  assert.ok(await p.locator('.hit').count() > 0);
  await p.uncheck('.conversation .panel-head input[type=checkbox]');
  await p.waitForFunction(() => document.querySelectorAll('.hit').length === 0);
  assert.equal(await p.locator('.row.event:not(.type-compaction)').count(), 0);
  await p.close();
});

test('copy link: copies with a confirmation, or offers the link to copy by hand', async () => {
  const p = await suite.page(`/?src=demo.jsonl`);
  await opened(p);
  await p.locator('.row.role-user button.where').first().click();
  await p.waitForSelector('#toast');
  assert.match(await p.textContent('#toast'), /copied/);
  assert.equal(await p.evaluate(() => navigator.clipboard.readText()), p.url());
  assert.match(p.url(), /entry=.*line=\d+/);

  // A refused clipboard: the link is offered, selected.
  await p.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('no')); });
  await p.locator('.row.role-assistant button.where').first().click();
  await p.waitForSelector('#copy-by-hand');
  assert.equal(await p.inputValue('#copy-by-hand'), p.url());
  assert.equal(await p.evaluate(() => document.activeElement.id), 'copy-by-hand');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a reloaded link into a dropped file says where it pointed', async () => {
  const p = await suite.page('/');
  await drop(p, files('pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl'));
  await opened(p);
  const row = p.locator('.row.message button.where').last();
  const line = (await row.textContent()).match(/line (\d+)/)[1];
  await row.click();
  await p.reload();
  await p.waitForSelector('#return-hint');
  assert.match(await p.textContent('#return-hint'), new RegExp(`drop the file again to return to line ${line}`));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('times in the reader\'s zone with the zone named, UTC on request, ISO on hover', async () => {
  const p = await suite.page(`/?src=demo.jsonl`);
  await opened(p);
  const time = p.locator('.row-head time').first();
  const iso = await time.getAttribute('title');
  assert.match(iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  const local = await time.textContent();
  assert.match(local, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (EST|EDT)$/);
  await p.click('#utc');
  const utc = await time.textContent();
  assert.match(utc, / UTC$/);
  assert.equal(utc.slice(11, 19), iso.slice(11, 19), 'UTC shows the file\'s own clock');
  await p.click('#utc');
  assert.equal(await time.textContent(), local);
  await p.close();
});

test('a deep tree keeps its labels: indent capped, depth shown, a breadcrumb', async () => {
  const p = await suite.page(`/?src=fixtures/deep.jsonl`);
  await opened(p);
  const pads = await p.$$eval('.segment', (s) => s.map((x) => parseFloat(getComputedStyle(x).paddingLeft)));
  assert.ok(pads.length >= 12, `${pads.length} segments`);
  assert.ok(Math.max(...pads) <= 90, `indent capped (${Math.max(...pads)} px)`);
  const deep = await p.$$eval('.segment .preview[data-deep]', (s) => s.map((x) => x.dataset.deep));
  assert.ok(deep.includes('↳12'), `deep segments show their depth: ${deep}`);
  // Labels stay readable at depth: the deepest preview is as wide as a shallow one.
  const widths = await p.$$eval('.segment .preview', (s) => s.map((x) => x.getBoundingClientRect().width));
  assert.ok(Math.min(...widths) >= 150, `narrowest label ${Math.min(...widths)} px`);
  // The breadcrumb shows the path, shortened in the middle.
  const crumbs = await p.$$eval('#crumbs li', (l) => l.map((x) => x.textContent));
  assert.ok(crumbs.some((c) => /more/.test(c)), crumbs.join(' | '));
  await p.locator('#crumbs button').first().click();
  await p.waitForSelector('.row.focused');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the fork marker shows on an event row', async () => {
  const p = await suite.page('/');
  await drop(p, files('pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl'));
  await opened(p);
  const forks = p.locator('.row .badge.fork');
  assert.ok(await forks.count() > 0);
  assert.ok(await forks.first().isVisible(), 'the fork badge is visible');
  await p.close();
});

/** A pi v3 session with a rewind at every level, `depth` deep. */
function deepTree(depth) {
  const lines = ['{"type":"session","version":3,"id":"deep","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'];
  let t = 0;
  const msg = (id, parent, role, text) => {
    t += 1;
    const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, t)).toISOString();
    const content = role === 'user' ? JSON.stringify(text) : JSON.stringify([{ type: 'text', text }]);
    lines.push(`{"type":"message","id":"${id}","parentId":${parent ? `"${parent}"` : 'null'},"timestamp":"${ts}","message":{"role":"${role}","content":${content},"timestamp":${Date.parse(ts)}}}`);
  };
  msg('u0', null, 'user', 'The root question of this deep session');
  msg('a0', 'u0', 'assistant', 'A first answer');
  let parent = 'a0';
  for (let d = 1; d <= depth; d++) {
    msg(`x${d}`, parent, 'user', `Abandoned question number ${d} with a long label`);
    msg(`xa${d}`, `x${d}`, 'assistant', `Answer to abandoned ${d}`);
    msg(`y${d}`, parent, 'user', `Kept question number ${d} with a long label`);
    msg(`ya${d}`, `y${d}`, 'assistant', `Answer to kept ${d}`);
    parent = `ya${d}`;
  }
  return lines.join('\n') + '\n';
}
