// A worker that cannot start says so: the engine's worker.js
// (crates/retrace-wasm/js/worker.js, served as /worker.js) posts a `failed`
// event when the module will not start in the worker, and the page shows
// it, then answers each later request with it, instead of waiting for the
// worker forever. The page's own copy of the wasm-bindgen JS loads; the
// worker's (the request worker.js makes, its referrer) is refused, as a
// blocked or broken deploy would.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, drop, files } from './harness.mjs';

const suite = browserSuite({
  answer(req, res) {
    const fromWorker = (req.headers.referer || '').endsWith('/worker.js');
    if (fromWorker && /\/retrace-web-[^/]*\.js$/.test(new URL(req.url, 'http://x').pathname)) {
      res.writeHead(404);
      res.end('blocked for the test');
      return true;
    }
    return false;
  },
});

test('a worker that cannot start is said on the page, before and after a drop', async () => {
  const p = await suite.page('/');
  await p.waitForSelector('.welcome');
  await p.waitForSelector('.status .failure', { timeout: 15000 });
  assert.match(await p.textContent('.status .failure'), /^cannot start the worker: /);
  // A file dropped then cannot be read: the page says why rather than
  // showing a progress bar that never moves.
  await drop(p, files('pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl'));
  await p.waitForSelector('.status .failure', { timeout: 5000 });
  assert.match(await p.textContent('.status .failure'), /^cannot start the worker: /);
  assert.equal(await p.locator('.status .progress').count(), 0);
  await p.close();
});
