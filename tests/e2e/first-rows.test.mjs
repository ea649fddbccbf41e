// The first screen of a long file is painted before its index is done:
// a session served as `retrace serve` serves one, whose bytes after the
// first 16 MiB piece are held back until the test has seen its rows.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite } from './harness.mjs';

// 20 MB of linear pi session: the first of opening's 16 MiB pieces, then
// more that the server holds.
const TURNS = 2000;
const session = (() => {
  const lines = ['{"type":"session","version":3,"id":"f1r5t-r0w5","timestamp":"2025-06-01T09:00:00.000Z","cwd":"/w"}'];
  let parent = null;
  for (let i = 0; i < 2 * TURNS; i++) {
    const id = i.toString(16).padStart(8, '0');
    const role = i % 2 ? 'assistant' : 'user';
    const text = `${role} turn ${i}: ` + 'lorem ipsum dolor sit amet '.repeat(190);
    lines.push(JSON.stringify({
      type: 'message', id, parentId: parent,
      timestamp: new Date(Date.UTC(2025, 5, 1, 9) + i * 1000).toISOString(),
      message: { role, content: [{ type: 'text', text }] },
    }));
    parent = id;
  }
  return Buffer.from(lines.join('\n') + '\n');
})();
const HELD_FROM = 17 << 20;

let release;
const released = new Promise((ok) => { release = ok; });
const live = [];

/** The server's side: the session's description, its (silent) live
 * events, its bytes by range, the stream of the whole held after
 * HELD_FROM until `release()`. */
function answer(req, res) {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/api/sessions/first') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ files: [{ url: '/held/long.jsonl', name: 'long.jsonl', size: session.length }] }));
    return true;
  }
  if (url.pathname === '/api/sessions/first/live') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    live.push(res);
    return true;
  }
  if (url.pathname !== '/held/long.jsonl') return false;
  const [, a, b] = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '') ?? [];
  const start = Number(a ?? 0);
  const end = Math.min(b === undefined ? session.length - 1 : Number(b), session.length - 1);
  res.writeHead(206, {
    'Content-Type': 'application/x-ndjson',
    'Content-Length': end - start + 1,
    'Content-Range': `bytes ${start}-${end}/${session.length}`,
  });
  if (start < HELD_FROM && end >= HELD_FROM) {
    res.write(session.subarray(start, HELD_FROM));
    released.then(() => res.end(session.subarray(HELD_FROM, end + 1)));
  } else {
    res.end(session.subarray(start, end + 1));
  }
  return true;
}

const suite = browserSuite({ answer });

test('the first rows are painted while the rest of the file is read, then the whole session replaces them', async () => {
  const p = await suite.page('/?s=first');
  try {
    // The first rows, with their bodies, while the file is still read.
    await p.waitForSelector('.row .parts', { state: 'attached', timeout: 30000 });
    assert.equal(await p.locator('.opened').count(), 0, 'not indexed yet');
    assert.ok(await p.locator('.progress').count(), 'reading is under way');
    const first = await p.locator('.row').first().innerText();
    assert.match(first, /user turn 0:/);
    // The window of rows is drawn, its first screen with bodies.
    assert.ok(await p.locator('.row .parts').count() >= 12);
    // Scrolling and asking about the session now waits for it, and fails
    // nothing meanwhile.
    await p.$eval('.conversation', (el) => { el.scrollTop = el.scrollHeight; });
    await p.waitForTimeout(300);
    assert.equal(await p.locator('.opened').count(), 0, 'still not indexed');
    release();
    await p.waitForSelector('.opened', { timeout: 30000 });
    // The whole session: its entries, its default branch to the end, the
    // first rows as they were.
    assert.match(await p.textContent('#status'), /4\u2009001 entries/);
    await p.waitForFunction(() => document.querySelector('.row')?.innerText.includes('user turn 0:'));
    assert.equal(await p.locator('.failure, .error-banner').count(), 0);
    assert.deepEqual(p.errors, []);
  } finally {
    release();
    for (const res of live) res.end();
    await p.close();
  }
});
