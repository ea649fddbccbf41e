// Assistive tech and keyboard: axe-core finds nothing on the welcome
// screen and on a session of each format (light and dark); a keyboard
// alone opens a file, plays, searches, switches branch, and reads the key
// list.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import fs from 'node:fs';

import { axe, browserSuite, drop, files, opened, root } from './harness.mjs';

const suite = browserSuite();

const formats = [
  ['pi', ['pi/badlogic__pi-mono/session.jsonl']],
  ['pi v3 tree', ['pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl']],
  ['Claude Code', ['claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl']],
  ['Codex', ['codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl']],
  ['Gemini CLI', ['gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-11-19T20-45-42f4bde7.json']],
  ['events', [`${root}/tests/fixtures/events/events.jsonl`]],
  ['OpenAI Responses items', [`${root}/tests/fixtures/provider/openai-responses.jsonl`]],
  ['Anthropic Messages list', [`${root}/tests/fixtures/provider/anthropic-messages.json`]],
];

/** Fails with every violation axe found, printed. */
async function clean(p, what, within) {
  const found = await axe(p, within);
  if (process.env.AXE_ALL) { console.log(what, JSON.stringify(found, null, 1)); return; }
  assert.equal(found.length, 0, `axe on ${what}:\n${JSON.stringify(found, null, 1)}`);
}

for (const scheme of ['light', 'dark']) {
  test(`axe: the welcome screen (${scheme})`, async () => {
    const p = await suite.page();
    await p.emulateMedia({ colorScheme: scheme });
    await p.goto(suite.base + '/');
    await p.waitForSelector('.welcome');
    await clean(p, `welcome (${scheme})`);
    assert.equal(await p.locator('h1').count(), 1);
    assert.deepEqual(p.errors, []);
    await p.close();
  });
}

for (const [name, paths] of formats) {
  test(`axe: a ${name} session (light and dark)`, async () => {
    const p = await suite.page('/');
    await drop(p, files(...paths));
    await opened(p);
    // The sensitive-data scan and the totals fill the details panel.
    await p.waitForTimeout(300);
    await clean(p, `${name} (light)`);
    await p.emulateMedia({ colorScheme: 'dark' });
    await clean(p, `${name} (dark)`);
    assert.equal(await p.locator('h1').count(), 1);
    assert.deepEqual(p.errors, []);
    await p.close();
  });
}

test('axe: the demo with search results, the key list and a drawer', async () => {
  const p = await suite.page('/?src=demo.jsonl');
  await opened(p);
  await p.fill('#search', 'like');
  await p.waitForSelector('.hit');
  await clean(p, 'search results');
  await p.keyboard.press('Escape');
  await p.evaluate(() => document.activeElement.blur());
  await p.keyboard.press('?');
  await p.waitForSelector('dialog#keys[open]');
  // A modal dialog hides the page (its h1 too): the dialog is what is checked.
  await clean(p, 'the key list', '#keys');
  await p.keyboard.press('Escape');
  await p.setViewportSize({ width: 390, height: 844 });
  await p.click('#open-tree');
  await p.waitForSelector('.panes.tree-open');
  // The rest of the page is inert behind the drawer (its h1 too).
  await clean(p, 'the tree drawer', '#tree');
  await p.close();
});

test('keyboard only: open a file, play, search, switch branch, the key list', async () => {
  const p = await suite.page('/');
  await p.waitForSelector('.welcome');
  // Tab reaches the file control.
  let tabs = 0;
  while (await p.evaluate(() => document.activeElement?.id) !== 'file') {
    await p.keyboard.press('Tab');
    assert.ok(++tabs < 10, 'the file control is in the Tab order');
  }
  const demo = fs.readFileSync(`${root}/web/assets/demo.jsonl`);
  await p.setInputFiles(':focus', { name: 'demo.jsonl', mimeType: 'application/x-ndjson', buffer: demo });
  await opened(p);

  assert.match(await p.textContent('#announce'), /Opened demo.jsonl/);

  // Skip links come first (on a fresh page), and one reaches the player.
  await p.goto(suite.base + '/?src=demo.jsonl');
  await opened(p);
  await p.keyboard.press('Tab');
  assert.equal(await p.evaluate(() => document.activeElement.textContent), 'Skip to the conversation');
  await p.keyboard.press('Tab');
  await p.keyboard.press('Enter');
  assert.equal(await p.evaluate(() => document.activeElement.id), 'play');
  const position = async () => (await p.textContent('#position')).trim();
  const total = Number((await position()).split('/')[1]);
  await p.keyboard.press('Home');
  assert.equal(await position(), `0 / ${total}`);
  await p.keyboard.press('ArrowRight');
  assert.equal(await position(), `1 / ${total}`);
  await p.selectOption('#speed', 'instant');
  await p.focus('#play');
  await p.keyboard.press('Enter');
  await p.waitForFunction((t) => document.querySelector('#position').textContent.trim() === `${t} / ${t}`, total);
  // The live region says where the replay is.
  await p.keyboard.press('ArrowLeft');
  await p.waitForFunction((t) => document.querySelector('#announce').textContent === `Replay at row ${t - 1} of ${t}`, total);

  // `/` searches, as you type.
  await p.evaluate(() => document.activeElement.blur());
  await p.keyboard.press('/');
  await p.waitForFunction(() => document.activeElement?.id === 'search');
  await p.keyboard.type('weak points');
  await p.waitForSelector('.hit');
  await p.waitForFunction(() => /match/.test(document.querySelector('#announce').textContent));
  await p.keyboard.press('Escape');
  assert.equal(await p.locator('.hit').count(), 0);

  // The tree: one Tab stop, arrows move, Enter opens.
  await p.focus('.segment.current .segment-button');
  const stops = await p.$$eval('.segment-button', (b) => b.filter((x) => x.tabIndex === 0).length);
  assert.equal(stops, 1, 'one Tab stop in the tree');
  const before = new URL(p.url()).hash;
  const from = await p.evaluate(() => document.activeElement.closest('.segment').dataset.leaf);
  const focusedLeaf = () => p.evaluate(() => document.activeElement.closest('.segment')?.dataset.leaf);
  // Down to the end, then up, until a branch other than the one shown.
  for (const key of ['ArrowDown', 'ArrowUp']) {
    for (let i = 0; i < 5 && await focusedLeaf() === from; i++) await p.keyboard.press(key);
  }
  assert.notEqual(await focusedLeaf(), from, 'the arrow keys moved in the tree');
  await p.keyboard.press('Enter');
  await p.waitForFunction((h) => location.hash !== h && !location.hash.includes('replay'), before);
  await p.waitForFunction(() => document.activeElement?.closest('.segment.current'));

  // `?` lists the keys; Escape closes the list.
  await p.evaluate(() => document.activeElement.blur());
  await p.keyboard.press('?');
  await p.waitForSelector('dialog#keys[open]');
  assert.match(await p.textContent('#keys'), /search this session/);
  await p.keyboard.press('Escape');
  await p.waitForSelector('dialog#keys:not([open])', { state: 'attached' });
  assert.deepEqual(p.errors, []);
  await p.close();
});
