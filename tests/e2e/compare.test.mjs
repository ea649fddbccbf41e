// Branch compare: two leaves picked in the tree (its "compare" switch, or
// `c` on a branch) side by side from their fork point, the rows lined up
// by the core (changed turns marked, a gap where a side has none), the
// rows drawn as the conversation draws them; a compaction's "what this
// hid" beside its summary; each reopened by its link, closed by Escape;
// the same in a page `retrace export --html` wrote, opened offline.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { axe, browserSuite, corpus, opened, out, retraceBin } from './harness.mjs';

const suite = browserSuite();

// pi 0.85's branching fixture: after the model change (e2) one branch
// reads a file, is compacted (e5 keeps from e3) and answers (e6); the
// other runs bash (e7) and ends on an entry of a type pi has not written
// yet (e8, the default leaf).
const BRANCHING = 'pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl';
/** The tree: the root segment (e1, e2), then its branches in file order:
 * e3 to e6, then e7 and e8 (the one shown). */
const OTHER = '.segment:nth-child(2) .segment-button';

/** The compare view's lines: each one's kind and its cells' entries
 * (`-` for a gap). */
const lines = (p) => p.$$eval('.compare .cmp-line:not(.cmp-heads)', (all) => all.map((l) => {
  const kind = [...l.classList].find((c) => /^k\d$/.test(c));
  const cells = [...l.children].map((c) => (c.classList.contains('gap') ? '-' : c.dataset.entry));
  return `${kind} ${cells.join(' ')}`;
}));

/** The branches compared, as the tests expect them: the row both share
 * (the model change), the two tool calls beside each other (changed), the
 * shown branch's last entry alone, then the other branch's rows alone. */
const BRANCHES = ['k0 e2 -', 'k2 e7 e3', 'k3 e8 -', 'k4 - e4', 'k4 - e5', 'k4 - e6'];

/** What the compaction hid (the prompt and the model change) beside its
 * summary. */
const HID = ['k2 e1 e5', 'k3 e2 -'];

/** Waits for the compare view to show `title`. */
async function compared(p, title) {
  await p.waitForFunction((t) => document.querySelector('.compare h2')?.textContent === t, title);
  await p.waitForFunction(() => document.querySelectorAll('.compare .loading-body').length === 0);
}

/** Checks the branches' comparison on the page: lines, the fork point
 * marked, changed turns highlighted, gaps, rows as the conversation draws
 * them, the conversation hidden meanwhile. */
async function checkBranches(p) {
  await compared(p, 'Compare branches');
  assert.deepEqual(await lines(p), BRANCHES);
  // Where they part: after the fork row, across both sides.
  const part = await p.$eval('.compare .k0', (l) => getComputedStyle(l, '::after').content);
  assert.match(part, /branches part here/);
  // A changed line is marked (and says so), a same one would not be.
  const changed = await p.$eval('.compare .k2 > .row', (r) => ({
    border: getComputedStyle(r).borderLeftWidth,
    says: getComputedStyle(r.querySelector('.row-head'), '::before').content,
  }));
  assert.equal(changed.border, '4px');
  assert.match(changed.says, /changed/);
  assert.equal(await p.locator('.compare .gap:visible').count(), 4);
  // The rows as the conversation draws them: the tool calls as blocks.
  assert.match(await p.textContent('.compare .k2 > .row[data-entry="e7"]'), /bash/);
  assert.match(await p.textContent('.compare .k2 > .row[data-entry="e3"]'), /read/);
  assert.match(await p.textContent('.compare .k4 > .row[data-entry="e5"]'), /Compaction summary/);
  assert.equal(await p.isVisible('.conversation'), false, 'the conversation gives way');
}

test('two branches side by side from their fork point; its link; Escape', async () => {
  const p = await suite.page(`/?src=/corpus/${BRANCHING}`);
  await opened(p);
  assert.ok(p.url().includes('leaf=e8'), p.url());
  // The tree's "compare" switch: the branch picked is compared, not shown.
  await p.check('#cmp-mode');
  await p.click(OTHER);
  await checkBranches(p);
  await p.waitForFunction(() => location.hash.includes('compare=e3'));
  assert.ok(p.url().includes('leaf=e8'), p.url());
  assert.deepEqual(await axe(p, '.compare'), [], 'axe on the compare view');
  // Focus is in the view; Escape goes back to the conversation.
  assert.equal(await p.evaluate(() => document.activeElement.id), 'compare');
  await p.keyboard.press('Escape');
  await p.waitForSelector('.compare', { state: 'detached' });
  assert.ok(await p.isVisible('.conversation'));
  assert.ok(!p.url().includes('compare='), p.url());
  await p.uncheck('#cmp-mode');

  // By the keyboard: `c` on a branch in the tree.
  await p.focus('.segment.current .segment-button');
  await p.keyboard.press('ArrowUp');
  await p.keyboard.press('c');
  await checkBranches(p);
  // A row's place opens it in its branch.
  await p.click('.compare .k4 > .row[data-entry="e6"] .where');
  await p.waitForSelector('.compare', { state: 'detached' });
  await p.waitForFunction(() => document.querySelector('.row.focused')?.dataset.entry === 'e6');
  assert.ok(p.url().includes('leaf=e6'), p.url());
  assert.deepEqual(p.errors, []);
  await p.close();

  // The link reopens the comparison.
  const q = await suite.page(`/?src=/corpus/${BRANCHING}#leaf=e8&compare=e3`);
  await opened(q);
  await checkBranches(q);
  assert.deepEqual(q.errors, []);
  await q.close();
});

test("a compaction's \"what this hid\" beside its summary; its link", async () => {
  const p = await suite.page(`/?src=/corpus/${BRANCHING}#leaf=e6`);
  await opened(p);
  await p.click('.row[data-entry="e5"] .hid');
  await compared(p, 'What this compaction hid');
  assert.deepEqual(await lines(p), HID);
  assert.deepEqual(await p.$$eval('.compare .cmp-heads h3', (h) => h.map((x) => x.textContent)),
    ['Hidden from the context', 'What replaced it']);
  assert.match(await p.textContent('.compare .row[data-entry="e5"]'), /Compaction summary/);
  // Each side says what it is; the summary reads open beside what it hid.
  const says = await p.$$eval('.compare .cmp-line:not(.cmp-heads) > .row > .row-head',
    (h) => h.map((x) => getComputedStyle(x, '::before').content));
  assert.deepEqual(says, ['"hidden"', '"replaced it"', '"hidden"']);
  assert.ok(await p.isVisible('.compare .row[data-entry="e5"] .summary-block .parts'), 'the summary is open');
  assert.deepEqual(await axe(p, '.compare'), [], 'axe on the compare view');
  await p.waitForFunction(() => location.hash.includes('entry=e5') && location.hash.includes('hid'));
  // Back closes it.
  await p.goBack();
  await p.waitForSelector('.compare', { state: 'detached' });
  assert.deepEqual(p.errors, []);
  await p.close();

  const q = await suite.page(`/?src=/corpus/${BRANCHING}#leaf=e6&entry=e5&hid`);
  await opened(q);
  await compared(q, 'What this compaction hid');
  assert.deepEqual(await lines(q), HID);
  assert.deepEqual(q.errors, []);
  await q.close();
});

test('compare in a page retrace export --html wrote, offline', async () => {
  const file = path.join(out, 'branching.export.html');
  execFileSync(retraceBin, ['export', '--html', '--branches', 'all', '-q', path.join(corpus, BRANCHING), '-o', file]);
  const open = async (hash) => {
    const p = await suite.page();
    p.requests = [];
    p.on('request', (r) => p.requests.push(r.url()));
    await p.route(/^https?:/, (r) => r.abort());
    await p.goto(pathToFileURL(file).href + hash);
    await opened(p);
    return p;
  };
  const noRequest = (p) => {
    const others = p.requests.filter((u) => !u.startsWith('blob:null/') && !u.startsWith('file:'));
    assert.deepEqual(others, [], 'requests the page made');
  };
  const p = await open('');
  await p.check('#cmp-mode');
  await p.click(OTHER);
  await checkBranches(p);
  await p.keyboard.press('Escape');
  await p.waitForSelector('.compare', { state: 'detached' });
  noRequest(p);
  assert.deepEqual(p.errors, []);
  await p.close();
  // Its links: the branches, and the compaction.
  const q = await open('#leaf=e8&compare=e3');
  await checkBranches(q);
  noRequest(q);
  await q.close();
  const r = await open('#leaf=e6&entry=e5&hid');
  await compared(r, 'What this compaction hid');
  assert.deepEqual(await lines(r), HID);
  noRequest(r);
  assert.deepEqual(r.errors, []);
  await r.close();
});
