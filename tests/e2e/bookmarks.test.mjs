// Bookmarks in the viewer: a snapshot side-car dropped together with its
// session (a tab cannot read a file's siblings) names the rows it marks,
// the replay bar has a marker for them, and a bookmark that names no entry
// is listed with the diagnostics.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, drop, files, opened, shot } from './harness.mjs';

const suite = browserSuite();

test('a side-car dropped with its session names its rows', async () => {
  const p = await suite.page('/');
  const sideCar = {
    name: 'dag_fork.jsonl.snapshots.json',
    data: Buffer.from(JSON.stringify({
      snapshots: [{ name: 'asked', target: 'c', line: 3 }, { name: 'lost', target: 'L99' }],
    })).toString('base64'),
  };
  // The side-car first: it still goes with its session, not read as one.
  await drop(p, [sideCar, ...files('claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl')]);
  await opened(p);
  assert.equal(await p.textContent('#format'), 'claude-code');
  await p.waitForSelector('.row .badge.bookmark');
  const marked = await p.$$eval('.row', (rows) => rows
    .filter((r) => r.querySelector('.badge.bookmark'))
    .map((r) => [r.dataset.entry, r.querySelector('.badge.bookmark').textContent]));
  assert.deepEqual(marked, [['c', '⚑ asked']]);
  assert.equal(await p.locator('.player .marker.bookmark').count(), 1);
  // The bookmark that names no entry is a diagnostic, not dropped in silence.
  assert.ok((await p.textContent('body')).includes('bookmark "lost": dag_fork.jsonl has no entry on line 99'));
  assert.deepEqual(p.errors, []);
  await shot(p, 'bookmarks-side-car');
  await p.close();
});
