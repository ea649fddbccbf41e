// Hostile names (issue 21): a session whose tool names, call ids, paths,
// model, branch and prompt hold bidi controls and zero-width characters
// (tests/fixtures/hostile/visible.jsonl). The viewer draws each as a
// visible mark, keeps the text after a right-to-left override in its
// logical order (in the DOM and on screen), isolates message blocks, and
// copies and downloads the session's own bytes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { browserSuite, drop, files, opened, out, retraceBin, root, shot } from './harness.mjs';
import { builtPlayer, drawn, waitEvents } from './player-kit.mjs';

const fixture = `${root}/tests/fixtures/hostile/visible.jsonl`;
// Every character the fixture's model name holds, each before a letter
// (a, b, c, … in order).
const ALL = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e,
  0x200f, 0x061c, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e];
const HOSTILE = new RegExp(`[${ALL.map((c) => `\\u{${c.toString(16)}}`).join('')}]`, 'u');

const suite = browserSuite({
  extra: { '/pages/visible.jsonl': fs.readFileSync(fixture) },
  setup: builtPlayer,
});

/** Opens the fixture in a new page. */
async function openFixture() {
  const p = await suite.page('/');
  await drop(p, files(fixture));
  await opened(p);
  await p.waitForSelector('.tool-block .call-id');
  return p;
}

/** The screen boxes of each character of `text` where it first occurs in
 * the text nodes under `selector` (one box per character, in logical
 * order), and the box of the mark before it. */
function boxes(p, selector, text) {
  return p.$eval(selector, (root, text) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const at = n.data.indexOf(text);
      if (at < 0) continue;
      const chars = [...text].map((_, i) => {
        const r = document.createRange();
        r.setStart(n, at + i);
        r.setEnd(n, at + i + 1);
        const b = r.getBoundingClientRect();
        return { x: b.left, y: b.top, w: b.width };
      });
      return chars;
    }
    return null;
  }, text);
}

/** Whether boxes read in order: left to right on a line, lines top down. */
function inReadingOrder(list) {
  for (let i = 1; i < list.length; i++) {
    const [a, b] = [list[i - 1], list[i]];
    const sameLine = Math.abs(a.y - b.y) < 4;
    if (sameLine ? !(b.x >= a.x + a.w - 0.5) : !(b.y > a.y)) return false;
  }
  return true;
}

test('bidi controls and zero-width characters in names and ids are drawn as marks, in logical order', async () => {
  const p = await openFixture();
  // The call id `toolu_<RLO>abc123`: a mark, then abc123 left to right.
  const id = p.locator('.tool-block .call-id').first();
  assert.equal(await id.textContent(), 'toolu_RLOabc123');
  const mark = id.locator('.invisible');
  assert.equal(await mark.count(), 1);
  assert.equal(await mark.getAttribute('title'), 'U+202E RIGHT-TO-LEFT OVERRIDE');
  assert.ok(await mark.isVisible(), 'the mark is drawn');
  const after = await boxes(p, '.tool-block .call-id', 'abc123');
  assert.ok(after && after.every((b) => b.w > 0), 'the characters after the override are drawn');
  assert.ok(inReadingOrder(after), `abc123 drawn left to right: ${JSON.stringify(after.map((b) => b.x))}`);
  const before = await boxes(p, '.tool-block .call-id', 'toolu_');
  const markBox = await mark.boundingBox();
  assert.ok(before.at(-1).x < markBox.x && markBox.x + markBox.width <= after[0].x + 0.5,
    'toolu_, the mark and abc123 in that order on screen');
  // `Re<ZWSP>ad` is not `Read`: a tool of its own, its name marked, its
  // arguments as fields; the path after its override reads left to right.
  assert.equal(await p.locator('.tool-block .tool-name').first().textContent(), 'ReZWSPad');
  assert.equal(await p.locator('.tool-block .tool-fields dd').first().textContent(), '/work/demo/invoiceRLOtxt.exe');
  const path = await boxes(p, '.tool-block .tool-fields dd', 'txt.exe');
  assert.ok(inReadingOrder(path), 'the path after its override reads left to right');
  const stem = await boxes(p, '.tool-block .tool-fields dd', 'invoice');
  assert.ok(stem.at(-1).x < path[0].x, 'invoice before txt.exe on screen');

  // The model name holds every character: one mark each, by its code
  // point, and the letters between them in order on screen.
  const meta = p.locator('.row .meta').first();
  const codes = await meta.locator('.invisible').evaluateAll((ms) => ms.map((m) => Number(m.dataset.c)));
  assert.deepEqual(codes, ALL);
  const titles = await meta.locator('.invisible').evaluateAll((ms) => ms.map((m) => m.title));
  assert.ok(titles.every((t, i) => t.startsWith(`U+${ALL[i].toString(16).toUpperCase().padStart(4, '0')} `)), titles.join(' | '));
  // The letter after each mark (the text node that follows it).
  const letters = await meta.evaluate((m) => [...m.querySelectorAll('.invisible')].map((mark) => {
    const n = mark.nextSibling;
    const r = document.createRange();
    r.setStart(n, 0);
    r.setEnd(n, 1);
    const b = r.getBoundingClientRect();
    return { c: n.data[0], x: b.left, y: b.top, w: b.width };
  }));
  assert.equal(letters.map((l) => l.c).join(''), 'abcdefghijklmnopqr');
  assert.ok(inReadingOrder(letters), `letters in reading order: ${JSON.stringify(letters)}`);

  // The tree's preview of the prompt and the details panel (files, models,
  // the branch and folder the session names) show marks too.
  assert.ok(await p.locator('.segment .preview .invisible').count() >= 1, 'a mark in the tree');
  assert.ok(await p.locator('#details .models .invisible').count() >= ALL.length, 'marks in the models table');
  // Nowhere outside message prose (kept as written, below) is a hostile
  // character in the page's text, nor in a title.
  const leaks = await p.evaluate((source) => {
    const re = new RegExp(source, 'u');
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest('.md, script, style, template, dialog')) continue;
      if (re.test(n.data)) found.push(`${n.parentElement.className}: ${JSON.stringify(n.data)}`);
    }
    for (const el of document.querySelectorAll('[title]')) {
      if (re.test(el.title)) found.push(`title of ${el.className}`);
    }
    return found;
  }, HOSTILE.source);
  assert.deepEqual(leaks, []);

  // Tool output (a <pre>) shows its hidden characters as a code viewer does.
  const output = p.locator('.tool-block pre.output').first();
  assert.deepEqual(await output.locator('.invisible').evaluateAll((ms) => ms.map((m) => m.textContent)),
    ['ZWSP', 'RLO', 'LRI', 'PDI', 'LRI', 'PDI', 'PDF']);
  const order = await boxes(p, '.tool-block pre.output', 'admin');
  assert.ok(inReadingOrder(order), 'output after an override reads in order');
  const userBox = (await boxes(p, '.tool-block pre.output', 'user'))[0];
  assert.ok(userBox.x < order[0].x, '"user" before "admin" on screen, as in the file');

  // Prose keeps its text, isolated, and says it holds hidden characters;
  // "show them" draws them.
  const last = p.locator('.row').last();
  const note = last.locator('.hidden-note');
  assert.equal(await note.count(), 1);
  const prose = last.locator('.md');
  assert.equal(await prose.evaluate((m) => getComputedStyle(m.firstElementChild).unicodeBidi), 'isolate');
  assert.match(await prose.textContent(), /\u202eyenom dnes\u202c/);
  // The override ends with its block: the meta line under it reads in order.
  const under = await last.locator('.meta').evaluate((m) => [...m.querySelectorAll('.invisible')].map((mark) => {
    const r = document.createRange();
    r.setStart(mark.nextSibling, 0);
    r.setEnd(mark.nextSibling, 1);
    const b = r.getBoundingClientRect();
    return { x: b.left, y: b.top, w: b.width };
  }));
  assert.equal(under.length, ALL.length);
  assert.ok(inReadingOrder(under), 'the line after an overridden message reads in order');
  await note.locator('button').click();
  assert.deepEqual(await prose.locator('.invisible').evaluateAll((ms) => ms.map((m) => m.textContent)), ['RLO', 'PDF']);
  const words = await boxes(p, '.row .md >> nth=-1', 'yenom');
  assert.ok(inReadingOrder(words), 'shown, the overridden words read in their logical order');
  await shot(p, 'invisible');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('search results mark hidden characters in snippets', async () => {
  const p = await openFixture();
  await p.fill('#search', 'invoice');
  await p.waitForSelector('.results .snippet');
  const snippet = p.locator('.results .snippet').first();
  assert.ok(await snippet.locator('.invisible').count() >= 1, 'a mark in the snippet');
  assert.ok(!HOSTILE.test(await snippet.textContent()));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('copying a name copies its characters; cat and the download keep the bytes', async () => {
  const p = await openFixture();
  // A copy of the call id puts the override back, not the mark's label.
  const copied = await p.$eval('.tool-block .call-id', (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    const data = new DataTransfer();
    const ev = new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true });
    el.dispatchEvent(ev);
    return { text: data.getData('text/plain'), handled: ev.defaultPrevented };
  });
  assert.deepEqual(copied, { text: 'toolu_\u202eabc123', handled: true });
  // The downloaded copy (nothing to redact in it) is the file, byte for byte.
  const bytes = fs.readFileSync(fixture);
  const [download] = await Promise.all([p.waitForEvent('download'), p.click('.download')]);
  const got = fs.readFileSync(await download.path());
  assert.ok(got.equals(bytes), 'the download is the session as written');
  // `retrace cat` writes the file as it is.
  const cat = execFileSync(retraceBin, ['cat', fixture], { stdio: ['ignore', 'pipe', 'ignore'] });
  assert.ok(cat.equals(bytes), 'retrace cat keeps the bytes');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('<retrace-player> draws names with marks too', async () => {
  const p = await suite.page('/pages/blank.html');
  await p.waitForFunction(() => customElements.get('retrace-player'));
  // One at its end (the rows drawn), one on its title card.
  await p.evaluate(() => {
    for (const [id, poster] of [['h', 'end'], ['t', 'title']]) {
      const player = document.createElement('retrace-player');
      player.id = id;
      player.setAttribute('src', '/pages/visible.jsonl');
      player.setAttribute('poster', poster);
      window.watch(player);
      document.body.append(player);
    }
  });
  await waitEvents(p, 'h', 'ready');
  await waitEvents(p, 't', 'ready');
  await drawn(p, 'h');
  const got = await p.evaluate(() => {
    const root = document.getElementById('h').shadowRoot;
    const call = root.querySelector('details.call > summary');
    const poster = document.getElementById('t').shadowRoot.querySelector('.poster .title');
    return {
      call: call.textContent,
      marks: [...call.querySelectorAll('.invisible')].map((m) => Number(m.dataset.c)),
      isolated: getComputedStyle(call.querySelector('bdi')).unicodeBidi,
      poster: poster.textContent,
      posterMark: poster.querySelector('.invisible')?.title,
    };
  });
  assert.deepEqual(got, {
    call: 'ReU+200Bad',
    marks: [0x200b],
    isolated: 'isolate',
    poster: 'Read invoiceU+202Etxt.exe and say what it holds',
    posterMark: 'U+202E: an invisible character',
  });
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the page retrace export --html writes draws the marks too', async () => {
  const file = path.join(out, 'visible.export.html');
  execFileSync(retraceBin, ['export', '--html', '-q', fixture, '-o', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = await suite.page();
  await p.goto(pathToFileURL(file).href);
  await opened(p);
  await p.waitForSelector('.tool-block .call-id');
  assert.equal(await p.locator('.tool-block .call-id').first().textContent(), 'toolu_RLOabc123');
  assert.deepEqual(await p.locator('.row .meta').first().locator('.invisible').evaluateAll((ms) => ms.map((m) => Number(m.dataset.c))), ALL);
  assert.deepEqual(p.errors, []);
  await p.close();
});
