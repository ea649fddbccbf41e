// The player embedded: <retrace-player> on a host page and the iframe
// embed (dist-player/embed.html) on another origin (the harness's server
// is http://127.0.0.1:PORT and, to the browser, a different origin at
// http://localhost:PORT). The embed's methods and events over
// postMessage, to and from the one origin it was given only; nothing sent
// anywhere; a hostile transcript runs nothing in either page.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, shot } from './harness.mjs';
import { builtPlayer, CLAUDE, drawn, hostile, PI, waitEvents } from './player-kit.mjs';

const suite = browserSuite({
  extra: { '/pages/hostile.jsonl': hostile() },
  setup: builtPlayer,
});

/** The server's other origin (same port, another host name). */
const other = () => suite.base.replace('127.0.0.1', 'localhost');

/** An embed URL on the other origin, for a parent at `parent`. */
function embed(query, parent = suite.base) {
  const q = new URLSearchParams({ ...query, origin: parent });
  return `${other()}/player/embed.html?${q}`;
}

/** The embed's messages the host received, of `kind` (and `event`). */
async function got(p, retrace, event = null) {
  return p.evaluate(({ retrace, event }) => window.got
    .filter((m) => m.data?.retrace === retrace && (event === null || m.data.event === event)), { retrace, event });
}

async function waitGot(p, retrace, event, n = 1) {
  await p.waitForFunction(({ retrace, event, n }) => window.got
    .filter((m) => m.data?.retrace === retrace && m.data.event === event).length >= n, { retrace, event, n }, { timeout: 30000 });
  return got(p, retrace, event);
}

test('the iframe embed: methods and events over postMessage, with its parent only', async () => {
  const p = await suite.page('/pages/embed-host.html');
  await p.evaluate((url) => window.frame('player', url), embed({ src: `/corpus/${PI}`, speed: 'instant', markers: 'errors' }));
  const [ready] = await waitGot(p, 'event', 'ready');
  assert.equal(ready.from, other(), 'from the embed, another origin');
  assert.equal(ready.data.detail.format, 'pi');
  assert.equal(ready.data.detail.rows, 1013);
  // Methods: answers by id, results as the element returns them.
  const duration = await p.evaluate(() => window.call('player', 'getDuration'));
  assert.deepEqual(duration, { retrace: 'answer', id: duration.id, result: ready.data.detail.duration });
  assert.equal((await p.evaluate(() => window.call('player', 'getCurrentTime'))).result, 0);
  assert.equal((await p.evaluate(() => window.call('player', 'seek', [60]))).result, true);
  const at = (await p.evaluate(() => window.call('player', 'getCurrentTime'))).result;
  assert.ok(at > 0 && at <= 60, String(at));
  assert.equal((await p.evaluate(() => window.call('player', 'seek', ['no-such']))).result, false);
  const [missing] = await waitGot(p, 'event', 'error');
  assert.equal(missing.data.detail.code, 'not-found');
  // Events: play, markers, entries, the end.
  assert.equal((await p.evaluate(() => window.call('player', 'play'))).result, null);
  await waitGot(p, 'event', 'ended');
  for (const event of ['play', 'entry', 'marker', 'pause']) {
    assert.ok((await got(p, 'event', event)).length > 0, event);
  }
  assert.deepEqual((await got(p, 'event', 'marker'))[0].data.detail.kinds, ['error']);
  // Attributes by name only; no other method.
  assert.equal((await p.evaluate(() => window.call('player', 'setAttribute', ['speed', '2']))).result, null);
  assert.equal(await p.frames()[1].evaluate(() => document.querySelector('retrace-player').getAttribute('speed')), '2');
  const refused = await p.evaluate(() => window.call('player', 'setAttribute', ['onclick', 'alert(1)']));
  assert.deepEqual(refused.error, { code: 'bad-request', message: 'no attribute onclick' });
  const unknown = await p.evaluate(() => window.call('player', 'shadowRoot'));
  assert.equal(unknown.error.code, 'bad-request');
  await p.evaluate(() => window.call('player', 'pause'));
  await shot(p, 'player-embed');

  // Another origin's frame on the same page posts a call: ignored, and it
  // hears nothing.
  await p.evaluate((url) => window.frame('foreign', url), `${other()}/pages/foreign.html`);
  const foreign = p.frames().find((f) => f.url().endsWith('/pages/foreign.html'));
  const answersBefore = (await got(p, 'answer')).length;
  const timeBefore = (await p.evaluate(() => window.call('player', 'getCurrentTime'))).result;
  await foreign.evaluate(() => {
    parent.frames[0].postMessage({ retrace: 'call', id: 77, method: 'seek', args: [0] }, '*');
    parent.frames[0].postMessage({ retrace: 'call', id: 78, method: 'dispose' }, '*');
  });
  await p.waitForTimeout(300);
  assert.equal((await p.evaluate(() => window.call('player', 'getCurrentTime'))).result, timeBefore, 'the foreign seek was ignored');
  assert.equal((await got(p, 'answer')).filter((m) => m.data.id === 77 || m.data.id === 78).length, 0);
  assert.equal((await got(p, 'answer')).length, answersBefore + 2);
  assert.deepEqual(await foreign.evaluate(() => window.got), [], 'nothing reached the foreign frame');

  // An embed told another parent origin answers this page nothing and
  // sends it no event.
  await p.evaluate((url) => window.frame('misled', url), embed({ src: `/corpus/${CLAUDE}` }, other()));
  const misled = p.frames().find((f) => f.url().includes('origin=http%3A%2F%2Flocalhost'));
  await misled.waitForFunction(() => document.querySelector('retrace-player')?.getDuration() > 0, null, { timeout: 30000 });
  const readies = (await got(p, 'event', 'ready')).length;
  assert.equal(readies, 1, 'no ready from the misled embed');
  assert.equal(await p.evaluate(() => window.call('misled', 'getDuration', [], 500)), null);
  // dispose() over postMessage ends the player's worker in the frame.
  assert.equal((await p.evaluate(() => window.call('player', 'dispose'))).result, null);
  assert.equal((await p.evaluate(() => window.call('player', 'getDuration'))).result, 0);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('embedded, a player sends nothing anywhere: only GETs of its own files and its src', async () => {
  const p = await suite.page();
  const requests = [];
  suite.ctx.on('request', (r) => requests.push({ method: r.method(), url: r.url(), body: r.postData() }));
  await p.goto(`${suite.base}/pages/dashboard.html`);
  await waitEvents(p, 'pi', 'ready');
  await waitEvents(p, 'claude', 'ready');
  // Play through both (the pi session's rows hold images, read as data:
  // URLs by the engine), with every block opened, and an embed beside.
  await p.evaluate(() => {
    for (const player of document.querySelectorAll('retrace-player')) {
      player.setAttribute('speed', 'instant');
      player.play();
    }
  });
  await waitEvents(p, 'pi', 'ended');
  await waitEvents(p, 'claude', 'ended');
  await p.evaluate(() => {
    for (const player of document.querySelectorAll('retrace-player')) player.seek('L812');
  });
  await drawn(p, 'pi');
  await p.waitForFunction(() => document.getElementById('pi').shadowRoot.querySelector('img[src^="data:image/png"]'));
  await p.evaluate(() => {
    for (const d of document.getElementById('pi').shadowRoot.querySelectorAll('details')) d.open = true;
  });
  await p.evaluate(async (url) => {
    const f = document.createElement('iframe');
    f.src = url;
    document.body.append(f);
    await new Promise((ok) => f.addEventListener('load', ok, { once: true }));
  }, embed({ src: `/corpus/${CLAUDE}`, autoplay: '', speed: 'instant' }));
  const frame = p.frames().find((f) => f.url().includes('/player/embed.html'));
  await frame.waitForFunction(() => {
    const player = document.querySelector('retrace-player');
    return player && player.getDuration() > 0 && player.getCurrentTime() === player.getDuration();
  }, null, { timeout: 30000 });
  await p.waitForTimeout(300);
  suite.ctx.removeAllListeners('request');
  const allowed = new RegExp(`^(${suite.base}|${other()})/(player/|pages/(dashboard\\.html|record\\.js)$|corpus/)`);
  const stray = requests.filter((r) => r.method !== 'GET' || r.body || !allowed.test(r.url));
  assert.deepEqual(stray, []);
  // The sessions were fetched once each, by the players that play them.
  const sessions = requests.filter((r) => r.url.includes('/corpus/')).map((r) => r.url.replace(/^http:\/\/[^/]+/, ''));
  assert.deepEqual(sessions.sort(), [`/corpus/${CLAUDE}`, `/corpus/${CLAUDE}`, `/corpus/${PI}`].sort());
  assert.ok(requests.some((r) => r.url.endsWith('/player/worker.js')), 'the workers’ own script is seen');
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await p.close();
});

test('a hostile transcript runs nothing, in a host page or in the embed', async () => {
  const p = await suite.page();
  const dialogs = [];
  p.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await p.goto(`${suite.base}/pages/blank.html`);
  await p.evaluate((url) => {
    const player = document.createElement('retrace-player');
    player.id = 'h';
    player.setAttribute('src', '/pages/hostile.jsonl');
    player.setAttribute('poster', 'end');
    window.watch(player);
    document.body.append(player);
    const f = document.createElement('iframe');
    f.src = url;
    document.body.append(f);
  }, embed({ src: '/pages/hostile.jsonl', poster: 'end' }));
  await waitEvents(p, 'h', 'ready');
  await drawn(p, 'h');
  const frame = () => p.frames().find((f) => f.url().includes('/player/embed.html'));
  for (let i = 0; i < 100 && !frame(); i++) await p.waitForTimeout(50);
  await frame().waitForFunction(() => {
    const root = document.querySelector('retrace-player')?.shadowRoot;
    return root && root.querySelectorAll('.row').length > 0 && root.querySelectorAll('.row > .pending').length === 0;
  }, null, { timeout: 30000 });
  // Open every block, click everything, hover the tool names; then look.
  const poke = () => {
    const root = document.querySelector('retrace-player').shadowRoot;
    for (const d of root.querySelectorAll('details')) d.open = true;
    for (const el of root.querySelectorAll('.row *')) {
      el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      el.click();
    }
  };
  const inspect = () => {
    const root = document.querySelector('retrace-player').shadowRoot;
    return {
      pwned: window.__pwned,
      bad: [...root.querySelectorAll('script, iframe, svg, a, object, embed, [onerror], [onload], [onclick], [onmouseover], [ontoggle]')]
        .map((e) => e.outerHTML.slice(0, 80)),
      images: [...root.querySelectorAll('img')].map((i) => i.getAttribute('src').slice(0, 22)),
      classes: [...new Set([...root.querySelectorAll('.row')].map((r) => r.className))].sort(),
      text: root.textContent,
    };
  };
  await p.evaluate(poke);
  await frame().evaluate(poke);
  await p.waitForTimeout(500);
  for (const [where, seen] of [['host', await p.evaluate(inspect)], ['embed', await frame().evaluate(inspect)]]) {
    assert.equal(seen.pwned, undefined, `${where}: a payload ran`);
    assert.deepEqual(seen.bad, [], where);
    assert.ok(seen.images.every((src) => src.startsWith('data:image/')), `${where}: ${seen.images}`);
    // A role that is markup names no class.
    assert.ok(seen.classes.every((c) => /^row (user|assistant|tool|system|other|event)( marked)?$/.test(c)), `${where}: ${seen.classes}`);
    // The payloads read as text; the two-megabyte line is cut.
    assert.ok(seen.text.includes('<script>window.__pwned=1</script>'), where);
    assert.ok(seen.text.includes('<img src="x" onerror="window.__pwned=2">'), where);
    assert.match(seen.text, /… \d+ more characters/, where);
    assert.ok(seen.text.length < 400_000, `${where}: ${seen.text.length} characters shown`);
  }
  assert.equal(await p.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(dialogs, []);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  await shot(p, 'player-hostile');
  await p.close();
});
