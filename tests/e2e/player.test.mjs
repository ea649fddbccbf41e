// <retrace-player> as a dashboard loads it: the built dist-player/ folder
// (`cargo xtask player`) served over HTTP, the element imported by a page
// of its own. Two players on one page, each method, event, attribute and
// key, errors, the slim build's refusals, and dispose() measured.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { browserSuite, corpus, out, retraceBin, shot } from './harness.mjs';
import {
  addPlayer, BRANCHING, big, builtPlayer, call, CLAUDE, drawn, events, firstPrompt, PI, renderers,
  rowsText, SECRET, waitEvents,
} from './player-kit.mjs';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

const suite = browserSuite({
  extra: {
    '/pages/x.png': PNG,
    '/pages/big.jsonl': big(),
    '/pages/bare.html': '<!DOCTYPE html><title>no player</title><link rel="icon" href="data:,">',
  },
  setup: builtPlayer,
});

/** A test page with the element defined. */
async function blank() {
  const p = await suite.page('/pages/blank.html');
  await p.waitForFunction(() => customElements.get('retrace-player'));
  return p;
}

const src = (rel) => `/corpus/${rel}`;

test('a dashboard of two players: each loads its session in a worker of its own and plays alone', async () => {
  const p = await suite.page('/pages/dashboard.html');
  const [pi] = await waitEvents(p, 'pi', 'ready');
  const [claude] = await waitEvents(p, 'claude', 'ready');
  assert.equal(pi.detail.format, 'pi');
  assert.equal(claude.detail.format, 'claude-code');
  assert.equal(pi.detail.rows, 1013);
  assert.equal(pi.detail.leaf, 'L1013');
  assert.equal(pi.detail.title, firstPrompt(PI));
  // A prompt of the file, shortened (the first typed one of the outline).
  const claudeText = fs.readFileSync(path.join(corpus, CLAUDE), 'utf8');
  assert.ok(claudeText.includes(claude.detail.title.replace(/ …$/, '')), claude.detail.title);
  assert.ok(pi.detail.duration > 60 && claude.detail.duration > 10);
  assert.equal(await call(p, 'pi', 'getDuration'), pi.detail.duration);
  // Each a region named after its session, in the Tab order.
  assert.equal(await p.getAttribute('#pi', 'aria-label'), `Session replay: ${pi.detail.title}`);
  assert.equal(await p.getAttribute('#claude', 'aria-label'), `Session replay: ${claude.detail.title}`);
  assert.equal(await p.getAttribute('#pi', 'tabindex'), '0');
  assert.equal(p.workers().length, 2, 'one worker per player');
  // Each plays while the other stays put.
  await call(p, 'claude', 'play');
  await waitEvents(p, 'claude', 'entry', 3);
  assert.equal((await events(p, 'pi', 'entry')).length, 0);
  await call(p, 'claude', 'pause');
  const claudeAt = await call(p, 'claude', 'getCurrentTime');
  await call(p, 'pi', 'play');
  await waitEvents(p, 'pi', 'entry', 2);
  await call(p, 'pi', 'pause');
  assert.equal(await call(p, 'claude', 'getCurrentTime'), claudeAt);
  assert.ok(await call(p, 'pi', 'getCurrentTime') >= 0);
  await drawn(p, 'pi');
  // Styles stay on their side: the host's `.row` and `.text` rules do not
  // reach into a player, and a player's do not reach the host's paragraph.
  const styles = await p.evaluate(() => {
    const row = document.getElementById('pi').shadowRoot.querySelector('.row .text');
    const host = document.querySelector('p.row');
    return {
      inside: getComputedStyle(row).color,
      hostWhiteSpace: getComputedStyle(host).whiteSpace,
      hostBorder: getComputedStyle(host).borderTopStyle,
      sheets: document.styleSheets.length,
      adopted: document.adoptedStyleSheets.length,
      headStyles: document.head.querySelectorAll('style').length,
    };
  });
  assert.notEqual(styles.inside, 'rgb(200, 0, 0)');
  assert.equal(styles.hostWhiteSpace, 'normal');
  assert.equal(styles.hostBorder, 'none');
  assert.deepEqual([styles.sheets, styles.adopted, styles.headStyles], [1, 0, 1]);
  // No globals but the element's name (record.js is the test's own).
  const fresh = await suite.page('/pages/bare.html');
  const builtIn = new Set(await fresh.evaluate(() => Object.getOwnPropertyNames(window)));
  await fresh.close();
  const added = (await p.evaluate(() => Object.getOwnPropertyNames(window))).filter((k) => !builtIn.has(k));
  assert.deepEqual(added.sort(), ['recorded', 'watch']);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await shot(p, 'player-dashboard');
  await p.close();
});

test('methods and events: ready, seek by time and by entry, play to the end, pause, markers, dispose', async () => {
  const p = await blank();
  await addPlayer(p, 'm', { src: src(PI), markers: 'prompts errors' });
  const [ready] = await waitEvents(p, 'm', 'ready');
  const duration = ready.detail.duration;
  assert.equal(await call(p, 'm', 'getDuration'), duration);
  assert.equal(await call(p, 'm', 'getCurrentTime'), 0, 'the title card, nothing shown');
  // By time: every row at or before the time.
  assert.equal(await call(p, 'm', 'seek', 600), true);
  const [at600] = (await events(p, 'm', 'entry')).slice(-1);
  assert.ok(at600.detail.time <= 600, JSON.stringify(at600.detail));
  assert.equal(await call(p, 'm', 'getCurrentTime'), at600.detail.time);
  await call(p, 'm', 'seek', 0);
  // By entry id: that row is the last shown.
  assert.equal(await call(p, 'm', 'seek', at600.detail.entry), true);
  const [back] = (await events(p, 'm', 'entry')).slice(-1);
  assert.deepEqual(back.detail, at600.detail);
  assert.equal(await call(p, 'm', 'seek', 'no-such-entry'), false);
  const [missing] = await waitEvents(p, 'm', 'error');
  assert.equal(missing.detail.code, 'not-found');
  // The markers to come, counted by the engine itself (the build's own
  // Engine class, on the same file).
  const expected = await p.evaluate(async ({ url, from }) => {
    const glue = await import('/player/retrace_wasm.js');
    await glue.default();
    const engine = new glue.Engine();
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const summary = await engine.open([{ name: 'compact.jsonl', bytes }]);
    const { rows } = engine.branch(summary.default_leaf);
    engine.close();
    return rows.marks.slice(from + 1).filter((m) => m & 3).length;
  }, { url: src(PI), from: at600.detail.row });
  // Instant: plays to the end at once.
  await p.evaluate(() => document.getElementById('m').setAttribute('speed', 'instant'));
  const before = (await events(p, 'm')).length;
  await call(p, 'm', 'play');
  await waitEvents(p, 'm', 'ended');
  const run = (await events(p, 'm')).slice(before);
  const types = run.map((e) => e.type);
  assert.equal(types[0], 'play');
  assert.deepEqual(types.slice(-2), ['pause', 'ended']);
  assert.equal(run.at(-2).detail.reason, 'end');
  assert.equal(await call(p, 'm', 'getCurrentTime'), duration);
  const markers = run.filter((e) => e.type === 'marker');
  assert.equal(markers.length, expected);
  assert.ok(markers.some((m) => m.detail.kinds.includes('error')) && markers.some((m) => m.detail.kinds.includes('prompt')));
  assert.ok(markers.every((m) => m.detail.kinds.every((k) => k === 'prompt' || k === 'error')));
  // Each row shown once, in order.
  const rows = run.filter((e) => e.type === 'entry').map((e) => e.detail.row);
  assert.deepEqual(rows, Array.from({ length: rows.length }, (_, i) => at600.detail.row + 1 + i));
  assert.equal(rows.at(-1), ready.detail.rows - 1);
  // At real time, pause() stops it.
  await p.evaluate(() => document.getElementById('m').setAttribute('speed', '1'));
  await call(p, 'm', 'seek', 0);
  await call(p, 'm', 'play');
  await call(p, 'm', 'pause');
  const [paused] = (await events(p, 'm', 'pause')).slice(-1);
  assert.equal(paused.detail.reason, 'asked');
  // dispose(): the worker ends, the element empties, methods go quiet.
  assert.equal(p.workers().length, 1);
  await call(p, 'm', 'dispose');
  for (let i = 0; i < 50 && p.workers().length > 0; i++) await p.waitForTimeout(50);
  assert.equal(p.workers().length, 0);
  assert.equal(await call(p, 'm', 'getDuration'), 0);
  assert.equal(await call(p, 'm', 'seek', 1), false);
  assert.equal((await rowsText(p, 'm')).length, 0);
  // A new src makes it a player again, with a new worker.
  await p.evaluate((url) => document.getElementById('m').setAttribute('src', url), src(CLAUDE));
  const [, again] = await waitEvents(p, 'm', 'ready', 2);
  assert.equal(again.detail.format, 'claude-code');
  assert.equal(p.workers().length, 1);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('autoplay, speed and idle-time-limit', async () => {
  const p = await blank();
  await addPlayer(p, 'auto', { src: src(CLAUDE), autoplay: '', speed: 'instant' });
  await addPlayer(p, 'slow', { src: src(CLAUDE), speed: '1x', 'idle-time-limit': '2' });
  await addPlayer(p, 'bad', { src: src(CLAUDE), speed: '1.5' });
  await addPlayer(p, 'idle0', { src: src(CLAUDE), 'idle-time-limit': '0' });
  // autoplay at instant speed: played to the end with no call.
  await waitEvents(p, 'auto', 'ended');
  const [slow] = await waitEvents(p, 'slow', 'ready');
  assert.equal((await events(p, 'slow', 'play')).length, 0, 'no autoplay without the attribute');
  // At 1x it is still playing after a moment.
  await call(p, 'slow', 'play');
  await p.waitForTimeout(300);
  assert.equal((await events(p, 'slow', 'ended')).length, 0);
  await call(p, 'slow', 'pause');
  // A speed the core's replay does not have is refused; 1x stays.
  const [bad] = await waitEvents(p, 'bad', 'error');
  assert.equal(bad.detail.code, 'bad-request');
  assert.match(bad.detail.message, /speed 1\.5: one of 1, 2, 5, 10 or instant/);
  await waitEvents(p, 'bad', 'ready');
  assert.equal(await p.evaluate(() => document.getElementById('bad').shadowRoot.querySelector('select').value), '1');
  // idle-time-limit: gaps cut to it, so a longer limit, a longer replay;
  // none left with 0; changed live.
  await waitEvents(p, 'idle0', 'ready');
  assert.equal(await call(p, 'idle0', 'getDuration'), 0);
  const rows = slow.detail.rows;
  assert.ok(slow.detail.duration <= (rows - 1) * 2 && slow.detail.duration > 0, String(slow.detail.duration));
  await p.evaluate(() => document.getElementById('slow').setAttribute('idle-time-limit', '1'));
  const one = await call(p, 'slow', 'getDuration');
  assert.ok(one < slow.detail.duration && one <= rows - 1, `${one} vs ${slow.detail.duration}`);
  await p.evaluate(() => document.getElementById('slow').setAttribute('idle-time-limit', 'soon'));
  const errors = await waitEvents(p, 'slow', 'error');
  assert.match(errors.at(-1).detail.message, /idle-time-limit soon/);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('start-at (seconds or an entry), leaf, and poster (title, end, npt:)', async () => {
  const p = await blank();
  await addPlayer(p, 'sec', { src: src(PI), 'start-at': '300' });
  await addPlayer(p, 'entry', { src: src(PI), 'start-at': 'L500' });
  await addPlayer(p, 'leaf', { src: src(BRANCHING), leaf: 'e6', poster: 'end' });
  await addPlayer(p, 'default', { src: src(BRANCHING), poster: 'end' });
  await addPlayer(p, 'npt', { src: src(PI), poster: 'npt:120' });
  await addPlayer(p, 'odd', { src: src(CLAUDE), poster: 'frame 3' });
  for (const id of ['sec', 'entry', 'leaf', 'default', 'npt']) await waitEvents(p, id, 'ready');
  // start-at seconds: shown up to there under the title card; play goes on
  // from there.
  const at = await call(p, 'sec', 'getCurrentTime');
  assert.ok(at > 0 && at <= 300, String(at));
  const card = (id) => p.evaluate((id) => {
    const poster = document.getElementById(id).shadowRoot.querySelector('.poster');
    return poster.hidden ? null : poster.textContent;
  }, id);
  assert.ok((await card('sec')).includes(firstPrompt(PI)));
  await p.evaluate(() => document.getElementById('sec').setAttribute('speed', '10'));
  await call(p, 'sec', 'play');
  const [first] = await waitEvents(p, 'sec', 'entry');
  assert.ok(first.detail.time >= at, `${first.detail.time} after ${at}`);
  assert.equal(await card('sec'), null, 'the card goes once playing');
  await call(p, 'sec', 'pause');
  // start-at an entry id: that row is the last shown.
  const entryAt = await call(p, 'entry', 'getCurrentTime');
  await call(p, 'sec', 'seek', 'L500');
  assert.equal(await call(p, 'sec', 'getCurrentTime'), entryAt);
  // leaf: the branch ending there, not the default one.
  const [leaf] = await events(p, 'leaf', 'ready');
  const [dflt] = await events(p, 'default', 'ready');
  assert.equal(leaf.detail.leaf, 'e6');
  assert.equal(dflt.detail.leaf, 'e8');
  assert.notEqual(leaf.detail.rows, dflt.detail.rows);
  // poster=end: every row shown, no card.
  assert.equal(await call(p, 'leaf', 'getCurrentTime'), leaf.detail.duration);
  assert.equal(await card('leaf'), null);
  await drawn(p, 'leaf');
  assert.equal((await rowsText(p, 'leaf')).length, leaf.detail.rows);
  // poster=npt:120: the frame at two minutes, no card.
  const npt = await call(p, 'npt', 'getCurrentTime');
  assert.ok(npt > 0 && npt <= 120, String(npt));
  assert.equal(await card('npt'), null);
  // Something else: refused, the title card shown.
  const [odd] = await waitEvents(p, 'odd', 'error');
  assert.equal(odd.detail.code, 'bad-request');
  assert.match(odd.detail.message, /poster frame 3/);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('markers and pause-on-markers', async () => {
  const p = await blank();
  await addPlayer(p, 'errors', { src: src(PI), markers: 'errors', 'pause-on-markers': '', speed: 'instant' });
  await addPlayer(p, 'none', { src: src(PI), markers: 'none', 'pause-on-markers': '', speed: 'instant' });
  await addPlayer(p, 'bad', { src: src(CLAUDE), markers: 'prompts typos' });
  await waitEvents(p, 'errors', 'ready');
  await waitEvents(p, 'none', 'ready');
  const ticks = (id) => p.evaluate((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('.tick')]
    .map((t) => t.className), id);
  const errorTicks = await ticks('errors');
  assert.ok(errorTicks.length > 0 && errorTicks.every((c) => c === 'tick error'), errorTicks.join());
  assert.deepEqual(await ticks('none'), []);
  // Paused right after the first error row, which says it is one.
  await call(p, 'errors', 'play');
  const [paused] = await waitEvents(p, 'errors', 'pause');
  assert.equal(paused.detail.reason, 'marker');
  const [marker] = await events(p, 'errors', 'marker');
  assert.deepEqual(marker.detail.kinds, ['error']);
  assert.equal((await events(p, 'errors', 'entry')).at(-1).detail.row, marker.detail.row);
  await drawn(p, 'errors');
  const last = await p.evaluate(() => [...document.getElementById('errors').shadowRoot.querySelectorAll('.row')].at(-1).outerHTML);
  assert.match(last, /class="mark error"/);
  // And on to the next one.
  await call(p, 'errors', 'play');
  await waitEvents(p, 'errors', 'marker', 2);
  // No markers: it plays through, saying none.
  await call(p, 'none', 'play');
  await waitEvents(p, 'none', 'ended');
  assert.equal((await events(p, 'none', 'marker')).length, 0);
  const [bad] = await waitEvents(p, 'bad', 'error');
  assert.match(bad.detail.message, /markers: no kind typos/);
  // Changed live: the ticks and the rows marked follow.
  await p.evaluate(() => document.getElementById('none').setAttribute('markers', 'prompts'));
  const prompts = await ticks('none');
  assert.ok(prompts.length > 0 && prompts.every((c) => c === 'tick prompt'), prompts.join());
  assert.ok(await p.evaluate(() => document.getElementById('none').shadowRoot.querySelectorAll('.row.marked').length > 0));
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('theme and controls', async () => {
  const p = await blank();
  await addPlayer(p, 'dark', { src: src(CLAUDE), theme: 'dark' });
  await addPlayer(p, 'light', { src: src(CLAUDE), theme: 'light', controls: 'false' });
  await addPlayer(p, 'auto', { src: src(CLAUDE) });
  for (const id of ['dark', 'light', 'auto']) await waitEvents(p, id, 'ready');
  const look = (id) => p.evaluate((id) => {
    const el = document.getElementById(id);
    const bar = el.shadowRoot.querySelector('.bar');
    const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number);
    return { light: (r + g + b) / 3 > 128, bar: getComputedStyle(bar).display };
  }, id);
  assert.deepEqual(await look('dark'), { light: false, bar: 'flex' });
  assert.deepEqual(await look('light'), { light: true, bar: 'none' });
  await p.emulateMedia({ colorScheme: 'light' });
  assert.equal((await look('auto')).light, true);
  await p.emulateMedia({ colorScheme: 'dark' });
  assert.equal((await look('auto')).light, false, 'auto follows the system');
  assert.equal((await look('light')).light, true, 'light stays light');
  // Sized by its container, however narrow: nothing sticks out, the bar
  // keeps play and the scrubber.
  const narrow = await p.evaluate(() => {
    const el = document.getElementById('dark');
    el.style.width = '220px';
    const root = el.shadowRoot;
    const shown = (sel) => getComputedStyle(root.querySelector(sel)).display !== 'none';
    return {
      width: el.getBoundingClientRect().width,
      overflow: root.querySelector('.bar').scrollWidth - root.querySelector('.bar').clientWidth,
      play: shown('.bar button'), scrub: shown('.scrub'), speed: shown('.bar select'), clock: shown('.clock'),
    };
  });
  assert.deepEqual(narrow, { width: 220, overflow: 0, play: true, scrub: true, speed: false, clock: false });
  await shot(p, 'player-themes');
  await p.close();
});

test('sensitive data: hidden by default, as the CLI redacts it; shown with hide-sensitive="false"', async () => {
  const p = await blank();
  await addPlayer(p, 'hidden', { poster: 'end' }, SECRET);
  await addPlayer(p, 'shown', { poster: 'end', 'hide-sensitive': 'false' }, SECRET);
  for (const id of ['hidden', 'shown']) {
    await waitEvents(p, id, 'ready');
    await drawn(p, id);
  }
  const secret = 'Hq9fV2mZr8Lt0XwKc4Pn7Bs3Jd6Gy1Ea5Uo8Ti2R';
  const email = 'ana.lopez@fastmail.com';
  const hidden = (await rowsText(p, 'hidden')).join('\n');
  const shown = (await rowsText(p, 'shown')).join('\n');
  // The CLI's redacted text of the prompt.
  const file = path.join(out, 'secret.jsonl');
  fs.writeFileSync(file, SECRET);
  const cli = JSON.parse(execFileSync(retraceBin, ['redact', file], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString().split('\n')[1]).message.content;
  assert.ok(hidden.includes(cli), `${hidden} lacks ${cli}`);
  assert.ok(!hidden.includes(secret) && !hidden.includes(email));
  assert.match(hidden, /\[REDACTED:aws-secret-access-key\]/);
  assert.ok(shown.includes(secret) && shown.includes(email));
  // Changed live: the rows are read again.
  await p.evaluate(() => document.getElementById('shown').removeAttribute('hide-sensitive'));
  await p.waitForFunction(() => !document.getElementById('shown').shadowRoot.textContent.includes('ana.lopez@'));
  await drawn(p, 'shown');
  assert.match((await rowsText(p, 'shown')).join('\n'), /\[REDACTED:email\]/);
  await p.close();
});

test('keys when focused: space, arrows, Home/End, j/k between markers, < > for speed', async () => {
  const p = await blank();
  await addPlayer(p, 'k', { src: src(PI) });
  await waitEvents(p, 'k', 'ready');
  await p.focus('#k');
  const lastRow = async () => (await events(p, 'k', 'entry')).at(-1)?.detail.row;
  for (let i = 0; i < 3; i++) await p.keyboard.press('ArrowRight');
  assert.equal(await lastRow(), 2);
  await p.keyboard.press('ArrowLeft');
  assert.equal(await lastRow(), 1);
  await p.keyboard.press('End');
  assert.equal(await call(p, 'k', 'getCurrentTime'), await call(p, 'k', 'getDuration'));
  await p.keyboard.press('Home');
  assert.equal(await call(p, 'k', 'getCurrentTime'), 0);
  // j: the next prompt (the default markers), k: the one before.
  await p.keyboard.press('j');
  await p.keyboard.press('j');
  const prompts = (await events(p, 'k', 'entry')).slice(-2).map((e) => e.detail.row);
  assert.equal(prompts[0], 0, 'the first row is a prompt');
  assert.ok(prompts[1] > 0);
  await p.keyboard.press('k');
  assert.equal(await lastRow(), prompts[0]);
  // Space plays and pauses.
  await p.keyboard.press(' ');
  await waitEvents(p, 'k', 'play');
  await p.keyboard.press(' ');
  const [pause] = (await waitEvents(p, 'k', 'pause')).slice(-1);
  assert.equal(pause.detail.reason, 'asked');
  // > and < step through the speeds.
  await p.keyboard.press('>');
  await p.keyboard.press('>');
  assert.equal(await p.getAttribute('#k', 'speed'), '5');
  await p.keyboard.press('<');
  assert.equal(await p.getAttribute('#k', 'speed'), '2');
  // Keys not meant for it pass through to the page.
  const passed = await p.evaluate(() => {
    const e = new KeyboardEvent('keydown', { key: 'x', bubbles: true, cancelable: true });
    document.getElementById('k').dispatchEvent(e);
    return !e.defaultPrevented;
  });
  assert.ok(passed);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('errors: a src that fails, a file that is no session, a source that is no bytes', async () => {
  const p = await blank();
  await addPlayer(p, 'gone', { src: '/corpus/no/such.jsonl' });
  await addPlayer(p, 'png', { src: '/pages/x.png' });
  const [gone] = await waitEvents(p, 'gone', 'error');
  assert.equal(gone.detail.code, 'unreadable');
  assert.match(gone.detail.message, /GET http:\/\/127\.0\.0\.1:\d+\/corpus\/no\/such\.jsonl: HTTP 404/);
  const [png] = await waitEvents(p, 'png', 'error');
  assert.deepEqual(png.detail, { code: 'not-a-session', message: 'x.png is a PNG image, not a session file' });
  // Shown in the frame too.
  assert.match(await p.evaluate(() => document.getElementById('png').shadowRoot.querySelector('.status').textContent), /PNG image/);
  // From script: bytes play, an object that is none is refused.
  await p.evaluate(async () => {
    const player = document.getElementById('gone');
    player.source = new Uint8Array(await (await fetch('/corpus/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl')).arrayBuffer());
  });
  await waitEvents(p, 'gone', 'ready');
  await p.evaluate(() => { document.getElementById('png').source = { not: 'bytes' }; });
  const refused = await waitEvents(p, 'png', 'error', 2);
  assert.equal(refused.at(-1).detail.code, 'bad-request');
  assert.equal((await events(p, 'png', 'ready')).length, 0);
  await p.close();
});

test("the player's slim build answers what a player never asks with 'unsupported'", async () => {
  const p = await blank();
  const got = await p.evaluate(async (url) => {
    const glue = await import('/player/retrace_wasm.js');
    await glue.default();
    const { WorkerClient } = await import('/player/client.js');
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const out = {};
    for (const kind of ['direct', 'worker']) {
      const engine = kind === 'direct' ? new glue.Engine() : new WorkerClient();
      const summary = await engine.open([new File([bytes], 'compact.jsonl')]);
      const leaf = summary.default_leaf;
      const code = async (f) => {
        try {
          await f();
          return 'answered';
        } catch (e) {
          return e.code;
        }
      };
      out[kind] = {
        fork: await code(() => engine.fork(leaf, 0)),
        seal: await code(() => engine.seal(leaf)),
        editPoints: await code(() => engine.editPoints(leaf)),
        search: await code(() => engine.search('image', {})),
        stats: await code(() => engine.stats()),
        scan: await code(() => engine.scan()),
        download: await code(() => engine.download(0, 'mask')),
        review: await code(() => engine.review([], [])),
        openFolder: await code(() => engine.openFolder([new File([bytes], 'a.jsonl')], ['f/a.jsonl'])),
        openListed: await code(() => engine.openListed(0)),
        branch: await code(() => engine.branch(leaf)),
        bodies: await code(() => engine.bodies(leaf, 0, 3)),
        previews: await code(() => engine.previews([0])),
        hideSensitive: await code(() => engine.hideSensitive(false)),
      };
      engine.close();
    }
    return out;
  }, src(PI));
  assert.deepEqual(got.direct, got.worker);
  for (const kind of ['fork', 'seal', 'editPoints', 'search', 'stats', 'scan', 'download', 'review', 'openFolder', 'openListed']) {
    assert.equal(got.direct[kind], 'unsupported', kind);
  }
  for (const kind of ['branch', 'bodies', 'previews', 'hideSensitive']) assert.equal(got.direct[kind], 'answered', kind);
  await p.close();
});

test('dispose() ends the worker and gives its memory back (measured)', async () => {
  const p = await blank();
  const cdp = await suite.ctx.newCDPSession(p);
  const settle = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    await p.waitForTimeout(300);
  };
  const workers = async (n) => {
    for (let i = 0; i < 100 && p.workers().length !== n; i++) await p.waitForTimeout(50);
    return p.workers().length;
  };
  await addPlayer(p, 'a', { src: src(CLAUDE) });
  await waitEvents(p, 'a', 'ready');
  await settle();
  const one = renderers(suite.ctx.profileDir);
  await addPlayer(p, 'b', { src: '/pages/big.jsonl', poster: 'end' });
  await waitEvents(p, 'b', 'ready', 1, 60000);
  await settle();
  const two = renderers(suite.ctx.profileDir);
  assert.equal(p.workers().length, 2);
  // The page's renderer (which runs its workers) is the one that grew.
  const [pid] = Object.keys(two).sort((x, y) => (two[y] - (one[y] ?? 0)) - (two[x] - (one[x] ?? 0)));
  await call(p, 'b', 'dispose');
  assert.equal(await workers(1), 1, 'its worker ended');
  await p.waitForTimeout(500);
  await settle();
  const after = renderers(suite.ctx.profileDir)[pid];
  const grew = two[pid] - one[pid];
  const freed = two[pid] - after;
  const mb = (n) => (n / 1e6).toFixed(1);
  console.log(`    renderer ${pid}: ${mb(one[pid])} MB with one player, ${mb(two[pid])} MB with an `
    + `8 MB session in a second (+${mb(grew)}), ${mb(after)} MB after its dispose() (${mb(freed)} MB back)`);
  // Its worker held at least the session's bytes (the engine reads a file
  // into its wasm memory in 16 MiB pieces); all of that comes back.
  assert.ok(grew > 8e6, `the second player took ${grew} B`);
  assert.ok(freed > 8e6, `dispose() gave back ${freed} of ${grew} B`);
  // The other player plays on.
  await call(p, 'a', 'play');
  await waitEvents(p, 'a', 'play');
  await call(p, 'a', 'pause');
  // Taken off the page, a player frees its worker too; put back, it is a
  // player again.
  await p.evaluate(() => {
    window.kept = document.getElementById('a');
    window.kept.remove();
  });
  assert.equal(await workers(0), 0);
  await p.evaluate(() => document.body.append(window.kept));
  await waitEvents(p, 'a', 'ready', 2);
  assert.equal(await workers(1), 1);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});
