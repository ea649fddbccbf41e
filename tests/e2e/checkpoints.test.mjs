// Git checkpoints on the viewer's timeline: the store's `checkpoint` events
// and Codex's `ghost_snapshot` show as a marker row with the commit, the
// tag and the files, and as a marker on the replay bar's scrubber.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, drop, files, opened, root, shot } from './harness.mjs';

const suite = browserSuite();

/** The checkpoint blocks of the conversation, as text. */
const checkpoints = (p) => p.$$eval('.row .checkpoint-block', (blocks) => blocks.map((b) => b.innerText));

test("the store's checkpoints: commit, tag, tool and files", async () => {
  const p = await suite.page('/');
  await drop(p, files(`${root}/tests/fixtures/events/checkpoints/events.jsonl`));
  await opened(p);
  assert.equal(await p.textContent('#format'), 'events');
  await p.waitForSelector('.row .checkpoint-block');
  const blocks = await checkpoints(p);
  assert.equal(blocks.length, 2);
  for (const want of ['checkpoint', '3f2a1c9', 'tool_write_file_20260210140001', 'write_file',
    'updated', 'src/main.rs', 'created', 'notes.md']) {
    assert.ok(blocks[0].includes(want), `${want} in ${blocks[0]}`);
  }
  for (const want of ['9c8b7a6', 'tool_delete_file_20260210140002', 'deleted', 'old_notes.txt']) {
    assert.ok(blocks[1].includes(want), `${want} in ${blocks[1]}`);
  }
  // Each file with its change, in the order the store wrote them.
  const changes = await p.$$eval('.row .checkpoint-block li', (li) => li.map((l) => [l.className, l.querySelector('.path').textContent]));
  assert.deepEqual(changes, [['change-updated', 'src/main.rs'], ['change-created', 'notes.md'], ['change-deleted', 'old_notes.txt']]);
  // The full commit id is on the head, for copying.
  assert.equal(await p.getAttribute('.row .checkpoint-block .checkpoint-head >> nth=0', 'title'),
    '3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39');
  // Each row wears the badge, on the lines the file has them.
  const lines = await p.$$eval('.row', (rows) => rows
    .filter((r) => r.querySelector('.badge.checkpoint'))
    .map((r) => r.querySelector('.where').textContent));
  assert.deepEqual(lines, ['line 4', 'line 6']);
  // No empty row: every row shows something.
  const empty = await p.$$eval('.row', (rows) => rows.filter((r) => r.querySelector('.parts, .checkpoint-block, .marker-line, .event-line') === null).length);
  assert.equal(empty, 0);
  // The scrubber marks them; a marker's click goes to its row.
  const markers = p.locator('.player .marker.checkpoint');
  assert.equal(await markers.count(), 2);
  assert.match(await markers.first().getAttribute('title'), /^checkpoint · row \d+$/);
  await markers.last().click();
  await p.waitForSelector('.row.focused .checkpoint-block');
  assert.ok((await p.textContent('.row.focused .checkpoint-block')).includes('old_notes.txt'));
  assert.deepEqual(p.errors, []);
  await shot(p, 'checkpoints-store');
  await p.close();
});

test("Codex's ghost snapshot: commit, parent and untracked paths, not an empty row", async () => {
  const p = await suite.page('/');
  await drop(p, files(`${root}/tests/fixtures/codex/ghost-snapshot/rollout.jsonl`));
  await opened(p);
  assert.equal(await p.textContent('#format'), 'codex');
  await p.waitForSelector('.row .checkpoint-block');
  const blocks = await checkpoints(p);
  assert.equal(blocks.length, 1);
  assert.ok(blocks[0].includes('a01966e'), blocks[0]);
  assert.ok(blocks[0].includes('on 0f022a0'), blocks[0]);
  assert.ok(blocks[0].includes('16 paths untracked before it'), blocks[0]);
  const paths = await p.$$eval('.checkpoint-block li.change-untracked .path', (li) => li.map((l) => l.textContent));
  assert.equal(paths.length, 16);
  assert.ok(paths.includes('LM Studio configuration.md'));
  assert.ok(paths.includes('node_modules/'));
  assert.equal(await p.locator('.player .marker.checkpoint').count(), 1);
  assert.deepEqual(p.errors, []);
  await shot(p, 'checkpoints-codex');
  await p.close();
});
