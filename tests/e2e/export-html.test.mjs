// The single-file HTML export: `retrace export --html` (RETRACE_BIN, built
// with the viewer: `cargo xtask test` builds it so) and the viewer's
// "Download as HTML" write one page that opens from file:// with the
// network cut and makes no request at all (every request the page makes
// is recorded; http(s) is aborted besides): the tree, the replay, search
// and a deep link work in it; the viewer's page holds the bytes `retrace
// redact` writes, no planted secret among them, and a page written from
// the file itself opens the same way.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

import { browserSuite, dist, drop, files, opened, out, retraceBin, root } from './harness.mjs';

const suite = browserSuite();

// The demo (bundled): a Claude Code session with a rewind.
const DEMO = path.join(root, 'web/assets/demo.jsonl');
const FIRST_TIP = '2f4668dd-c177-455f-81c1-caa947d43e73';
const DEFAULT_TIP = 'd107d4c0-ae71-4d3d-af3a-cf7a370bd21f';
const LATE_ON_FIRST = 'a17b2091-fd44-4c3e-aaeb-69196456ab73'; // line 32
// The planted-secret fixture of the shared redaction corpus.
const PLANTED = path.join(root, 'tests/fixtures/redact/corpus-s11.jsonl');

const retrace = (args) => execFileSync(retraceBin, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });

/** A page at `url` (a file) recording every request it makes, the
 * network cut (any http(s) request aborted). */
async function offline(url) {
  const p = await suite.page();
  p.requests = [];
  p.on('request', (r) => p.requests.push(r.url()));
  await p.route(/^https?:/, (r) => r.abort());
  await p.goto(url);
  return p;
}

/** No request but the page's own load (and the blob: URLs it makes of
 * its own parts: a worker's script, the JS it imports). */
function noRequest(p, file) {
  const own = pathToFileURL(file).href;
  assert.ok(p.requests.some((u) => u.split('#')[0] === own), 'the recorder saw the page load');
  const others = p.requests.filter((u) => !u.startsWith('blob:null/') && u.split('#')[0] !== own);
  assert.deepEqual(others, [], 'requests the page made');
}

/** A page's bytes as a string of one character per byte (its parts are
 * raw bytes; crates/retrace-core/src/html/mod.rs). */
const bytesOf = (file) => fs.readFileSync(file, 'latin1');

/** A part's bytes from its element's text: `=` and the byte plus 64
 * stand for an escaped byte. */
function unescape(text) {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[n++] = c === 61 ? text.charCodeAt(++i) - 64 : c;
  }
  return out.subarray(0, n);
}

/** The session's files a page holds, unzipped: [{name, leaf, bytes}]. */
function held(html) {
  const parts = [];
  const re = /<script type="application\/x-retrace"([^>]*)>([^<]*)<\/script>\n/g;
  for (const [, attrs, text] of html.matchAll(re)) {
    if (attrs) parts.push({ attrs, chunks: [] });
    parts.at(-1).chunks.push(unescape(text));
  }
  return parts.filter((p) => p.attrs.includes('data-file=')).map((p) => ({
    name: p.attrs.match(/data-file="([^"]*)"/)[1],
    leaf: p.attrs.match(/data-leaf="([^"]*)"/)?.[1],
    bytes: zlib.gunzipSync(Buffer.concat(p.chunks)),
  }));
}

const position = async (p) => (await p.textContent('#position')).trim();

test('retrace export --html opens offline: branches, replay, search, a deep link', async () => {
  const file = path.join(out, 'demo.export.html');
  retrace(['export', '--html', '--branches', 'all', '-q', DEMO, '-o', file]);
  const p = await offline(pathToFileURL(file).href);
  await opened(p);
  assert.equal(await p.title(), 'demo.jsonl — retrace');
  // No welcome (nor its demo link, which needs a server): the session.
  assert.equal(await p.locator('.welcome').isVisible(), false);
  assert.ok(p.url().includes(`leaf=${DEFAULT_TIP}`));
  // Both branches of the rewind.
  await p.click('.segment:not(.current) >> text=I very much like this idea');
  await p.waitForFunction(() => document.body.innerText.includes('list 5 weak points'));
  assert.ok(p.url().includes(`leaf=${FIRST_TIP}`));
  // Search, and a hit on the other branch.
  await p.fill('#search', 'strengths of this proposal');
  await p.press('#search', 'Enter');
  await p.waitForSelector('.hit');
  assert.equal(await p.locator('.hit').count(), 2);
  await p.click('.hit >> text=line 45');
  await p.waitForFunction(() => document.querySelector('.row.focused')?.innerText.includes('maybe also list 5 strengths'));
  assert.ok(p.url().includes(`leaf=${DEFAULT_TIP}`));
  // The replay: back to the start, step, play to the end.
  const total = Number((await position(p)).split('/')[1]);
  await p.click('.player button[title^="Start"]');
  assert.equal(await position(p), `0 / ${total}`);
  await p.keyboard.press('ArrowRight');
  assert.equal(await position(p), `1 / ${total}`);
  await p.selectOption('#speed', 'instant');
  await p.keyboard.press(' ');
  await p.waitForFunction((t) => document.querySelector('#position').textContent.trim() === `${t} / ${t}`, total);
  noRequest(p, file);
  assert.deepEqual(p.errors, []);
  await p.close();

  // A deep link into the file lands on its row, on its branch.
  const q = await offline(`${pathToFileURL(file).href}#leaf=${FIRST_TIP}&entry=${LATE_ON_FIRST}`);
  await opened(q);
  await q.waitForFunction((e) => document.querySelector('.row.focused')?.dataset.entry === e, LATE_ON_FIRST);
  assert.ok(q.url().includes(`leaf=${FIRST_TIP}`));
  // Another file dropped on it opens as in the viewer.
  await drop(q, files('pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl'));
  await q.waitForFunction(() => document.querySelector('.opened')?.innerText.includes('branching.jsonl'));
  noRequest(q, file);
  assert.deepEqual(q.errors, []);
  await q.close();

  // --leaf: the page opens on that branch.
  retrace(['export', '--html', '--branches', 'all', '--leaf', FIRST_TIP, '-q', DEMO, '-o', file]);
  const r = await offline(pathToFileURL(file).href);
  await opened(r);
  assert.ok(r.url().includes(`leaf=${FIRST_TIP}`));
  assert.match(await r.textContent('.conversation'), /list 5 weak points/);
  noRequest(r, file);
  await r.close();
});

test("the viewer's Download as HTML: retrace redact's bytes in a page that opens offline, and writes itself again", async () => {
  const p = await suite.page('/');
  await drop(p, files(PLANTED));
  await opened(p);
  await p.waitForSelector('#download-html');
  const [download] = await Promise.all([p.waitForEvent('download'), p.click('#download-html')]);
  assert.equal(download.suggestedFilename(), 'corpus-s11.jsonl.html');
  const file = path.join(out, 'corpus-s11.viewer.html');
  await download.saveAs(file);
  assert.deepEqual(p.errors, []);
  await p.close();
  // The layout of the CLI's page: the same open page, the file as
  // `retrace redact` writes it, no planted value anywhere.
  const html = bytesOf(file);
  const open = bytesOf(path.join(dist, 'export.html'));
  assert.ok(html.startsWith(open), 'the page begins with export.html');
  const [only, ...rest] = held(html);
  assert.equal(rest.length, 0);
  assert.equal(only.name, 'corpus-s11.jsonl');
  assert.ok(only.bytes.equals(retrace(['redact', PLANTED])), "the file is retrace redact's bytes");
  const truth = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/redact/corpus-s11.truth.json'), 'utf8'));
  const planted = truth.planted.map((t) => t.value);
  const plain = fs.readFileSync(PLANTED, 'utf8');
  assert.ok(planted.filter((v) => plain.includes(v)).length > 250, 'the fixture holds the planted values');
  const text = only.bytes.toString('utf8');
  const inPage = (v) => html.includes(Buffer.from(v).toString('latin1'));
  assert.deepEqual(planted.filter((v) => inPage(v) || text.includes(v)), [], 'planted values in the page');

  // It opens from file:// with the network cut.
  const q = await offline(pathToFileURL(file).href);
  await opened(q);
  assert.equal(await q.title(), 'corpus-s11.jsonl — retrace');
  noRequest(q, file);
  // Written again from itself (its own open page, no server to ask).
  await q.waitForSelector('#download-html');
  const [again] = await Promise.all([q.waitForEvent('download'), q.click('#download-html')]);
  const second = path.join(out, 'corpus-s11.again.html');
  await again.saveAs(second);
  noRequest(q, file);
  assert.deepEqual(q.errors, []);
  await q.close();
  const again2 = bytesOf(second);
  assert.ok(held(again2)[0].bytes.equals(only.bytes), 'the same file inside');
  // Its open page was written back in the encoding it declares (it opens
  // below; its frame's arrows are references again, not UTF-8).
  const head = again2.slice(0, again2.indexOf('<script type="application/x-retrace"'));
  assert.match(head, /<meta charset="windows-1252">/);
  assert.ok(head.includes('&#8592;') && !head.includes(Buffer.from('\u2190').toString('latin1')));
  const r = await offline(pathToFileURL(second).href);
  await opened(r);
  noRequest(r, second);
  assert.deepEqual(r.errors, []);
  await r.close();
});
