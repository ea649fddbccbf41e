// "Not a secret" in the redaction review shows the value in the session
// too: with sensitive data hidden, a finding or a whole kind marked so is
// shown as written (highlighted as a revealed value) in the conversation,
// in search snippets and in the replay, while every other value stays a
// chip; taken back, it is hidden again.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { browserSuite, drop, files, opened, root } from './harness.mjs';

const suite = browserSuite();
const FIXTURE = `${root}/tests/fixtures/redact/corpus-s11.jsonl`;
const TRUTH = JSON.parse(fs.readFileSync(`${root}/tests/fixtures/redact/corpus-s11.truth.json`, 'utf8')).planted;

const bodiesIn = (p) => p.waitForFunction(() => document.querySelectorAll('.row').length > 0
  && !document.querySelector('.loading-body'));
const inFocus = (p, selector) => p.$$eval(`.row.focused ${selector}`, (ms) => ms.map((m) => m.textContent));

test('a finding marked not a secret shows as written in the conversation, snippets and replay', async () => {
  const p = await suite.page('/');
  await drop(p, files(FIXTURE));
  await opened(p);
  await p.waitForFunction(() => /found in the whole session/.test(document.querySelector('#scan-status')?.textContent || ''), null, { timeout: 30000 });

  // An email finding with its planted value: marked not a secret, then
  // visited.
  const findings = await p.$$eval('#findings li', (ls) => ls.map((l) => ({
    kind: l.querySelector('.code').textContent, line: Number(l.querySelector('.place').textContent.replace('line ', '')),
  })));
  const i = findings.findIndex((f) => f.kind === 'email' && TRUTH.some((t) => t.kind === 'email' && t.line === f.line));
  assert.ok(i >= 0, 'an email finding the truth file plants');
  const values = TRUTH.filter((t) => t.kind === 'email' && t.line === findings[i].line).map((t) => t.value);
  await p.locator('#findings li').nth(i).locator('.finding').click();
  await p.waitForSelector('.row.focused');
  await bodiesIn(p);
  assert.ok((await inFocus(p, 'mark.redacted')).includes('[REDACTED:email]'), 'hidden before');
  await p.locator('#findings li').nth(i).locator('.not-secret').click();
  await p.waitForFunction((vs) => [...document.querySelectorAll('.row.focused mark.revealed')]
    .some((m) => vs.includes(m.textContent)), values, { timeout: 10000 });
  // Only that value, once every row on screen has read again (the
  // focused row's bodies may come first): the rest stays hidden.
  await bodiesIn(p);
  const revealed = await p.$$eval('.row mark.revealed', (ms) => ms.map((m) => m.textContent));
  assert.ok(revealed.every((r) => values.includes(r)), revealed.join(' | '));
  // Other values still chips (waited for: on a loaded machine the rows
  // around the focused one can still be drawing).
  await p.waitForFunction(() => document.querySelectorAll('.row mark.redacted').length > 5, null, { timeout: 10000 })
    .catch(() => assert.fail('other values still chips'));
  assert.match(await p.textContent('.sensitive-toggle'), /hidden/);

  // A search for it: the snippet shows it, highlighted.
  const value = revealed[0];
  await p.fill('#search', value);
  await p.waitForSelector('.hit .snippet mark.revealed', { timeout: 10000 });
  assert.equal(await p.textContent('.hit .snippet mark.revealed'), value);

  // The replay shows the row with it as the conversation does.
  const row = Number(await p.getAttribute('.row.focused', 'data-row'));
  await p.evaluate(() => document.activeElement?.blur());
  await p.keyboard.press('Home');
  for (let n = 0; n <= row; n++) await p.keyboard.press('ArrowRight');
  await p.waitForFunction((r) => {
    const el = document.querySelector(`.row[data-row="${r}"]`);
    return el && !el.querySelector('.loading-body');
  }, row);
  const replayed = await p.$$eval(`.row[data-row="${row}"] mark.revealed`, (ms) => ms.map((m) => m.textContent));
  assert.ok(replayed.includes(value), `replayed row: ${replayed.join(' | ')}`);
  await p.keyboard.press('End');

  // Taken back: hidden again.
  await p.locator('#findings li').nth(i).locator('.not-secret').click();
  await p.waitForFunction(() => document.querySelectorAll('.row mark.revealed').length === 0
    && document.querySelectorAll('.row').length > 0 && !document.querySelector('.loading-body'), null, { timeout: 10000 });
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a kind marked not a secret shows every value of it, nothing else', async () => {
  const p = await suite.page('/');
  await drop(p, files(FIXTURE));
  await opened(p);
  await p.waitForFunction(() => /found in the whole session/.test(document.querySelector('#scan-status')?.textContent || ''), null, { timeout: 30000 });
  await bodiesIn(p);
  const chips = () => p.$$eval('.row mark.redacted', (ms) => ms.map((m) => m.textContent));
  const before = await chips();
  const kind = ['home-username', 'email', 'ipv4-public'].find((k) => before.includes(`[REDACTED:${k}]`));
  assert.ok(kind, before.join(' '));
  await p.click(`.not-secret-kind[data-kind="${kind}"]`);
  await p.waitForFunction((k) => ![...document.querySelectorAll('.row mark.redacted')].some((m) => m.textContent === `[REDACTED:${k}]`)
    && document.querySelectorAll('.row mark.revealed').length > 0 && !document.querySelector('.loading-body'), kind, { timeout: 10000 });
  const after = await chips();
  assert.ok(after.length > 0 && after.every((c) => c !== `[REDACTED:${kind}]`), after.join(' '));
  const planted = new Set(TRUTH.filter((t) => t.kind === kind).map((t) => t.value));
  const revealed = await p.$$eval('.row mark.revealed', (ms) => ms.map((m) => m.textContent));
  if (kind !== 'home-username') assert.ok(revealed.some((r) => planted.has(r)), revealed.join(' | '));
  assert.deepEqual(p.errors, []);
  await p.close();
});
