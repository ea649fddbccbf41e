// Every screen size and both themes: at 390, 768 and 1400 px the page
// never scrolls sideways, the conversation gets the width, the redaction
// review and the download are reachable (in a drawer when narrow), and
// every visible control is a tap target of 24 px or more; dark mode by
// the system's setting and by the switch, with readable contrast.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, contrast, opened } from './harness.mjs';

const suite = browserSuite();

/** Visible controls smaller than 24×24 px (a control inside a label
 * counts the label, which takes its clicks). */
const smallTargets = (p) => p.evaluate(() => {
  const small = [];
  for (const el of document.querySelectorAll('button, a[href], input, select, summary, [tabindex="0"]')) {
    const target = el.closest('label') || el;
    const r = target.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || style.visibility === 'hidden') continue;
    // A visually hidden input (the file picker) is clicked through its label.
    if (el.matches('.picker input')) continue;
    if (el.closest('[inert]')) continue;
    if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
    if (r.width < 24 || r.height < 24) {
      small.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
  }
  return small;
});

const noSideways = (p) => p.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

for (const width of [390, 768, 1400]) {
  test(`layout at ${width} px`, async () => {
    const p = await suite.page();
    await p.setViewportSize({ width, height: 900 });
    await p.goto(suite.base + '/');
    await p.waitForSelector('.welcome');
    assert.ok(await noSideways(p), 'welcome: no sideways scroll');
    assert.deepEqual(await smallTargets(p), [], 'welcome: tap targets');

    await p.goto(suite.base + '/?src=demo.jsonl');
    await opened(p);
    assert.ok(await noSideways(p), 'session: no sideways scroll');
    assert.deepEqual(await smallTargets(p), [], 'session: tap targets');
    const conversation = await p.$eval('.conversation', (c) => c.getBoundingClientRect().width);
    assert.ok(conversation >= Math.min(width - 20, 600), `the conversation gets the width (${conversation} px)`);

    const narrow = width < 1000;
    if (narrow) {
      // The panels are drawers: closed, they take no room and no focus.
      assert.equal(await p.isVisible('.details .download'), false);
      await p.click('#open-details');
      await p.waitForSelector('.panes.details-open');
      assert.equal(await p.evaluate(() => document.activeElement.id), 'close-details');
      assert.ok(await p.evaluate(() => document.querySelector('header').inert && document.querySelector('.center').inert),
        'the rest of the page is inert while the drawer is open');
    }
    // The redaction review and the download.
    await p.locator('.details h3', { hasText: 'Sensitive data' }).scrollIntoViewIfNeeded();
    assert.ok(await p.isVisible('.details h3:has-text("Sensitive data")'));
    const download = p.locator('.details .download').first();
    await download.scrollIntoViewIfNeeded();
    assert.ok(await download.isVisible(), 'the redacted download is reachable');
    const box = await download.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= width, 'the download button is on screen');
    assert.ok(await noSideways(p), 'details: no sideways scroll');
    if (narrow) {
      assert.deepEqual(await smallTargets(p), [], 'drawer: tap targets');
      await p.keyboard.press('Escape');
      await p.waitForSelector('.panes:not(.details-open)');
      assert.equal(await p.evaluate(() => document.activeElement.id), 'open-details', 'focus returns to the toggle');
      await p.click('#open-tree');
      await p.waitForSelector('.panes.tree-open');
      // Picking a branch closes the drawer.
      await p.click('.segment:not(.current) .segment-button');
      await p.waitForSelector('.panes:not(.tree-open)');
      assert.ok(await noSideways(p));
    }
    assert.deepEqual(p.errors, []);
    await p.close();
  });
}

test('widening the window with a drawer open closes it and frees the page', async () => {
  const p = await suite.page();
  await p.setViewportSize({ width: 768, height: 900 });
  await p.goto(suite.base + '/?src=demo.jsonl');
  await opened(p);
  await p.click('#open-details');
  await p.waitForSelector('.panes.details-open');
  await p.setViewportSize({ width: 1400, height: 900 });
  await p.waitForSelector('.panes:not(.details-open)');
  assert.equal(await p.evaluate(() => document.querySelector('header').inert || document.querySelector('.center').inert), false,
    'nothing is left inert once the panel is a column again');
  await p.click('.segment:not(.current) .segment-button');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('long lines wrap or scroll inside their block at 360 px', async () => {
  const p = await suite.page();
  await p.setViewportSize({ width: 360, height: 740 });
  await p.goto(suite.base + '/');
  const long = 'x'.repeat(3000);
  const text = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
    + `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"${long}","timestamp":1767225601000}}\n`
    + `{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"\`\`\`\\n${long}\\n\`\`\`\\n\\n| a | b |\\n|---|---|\\n| ${long} | y |"}],"timestamp":1767225602000}}\n`;
  await p.setInputFiles('#file', { name: 'long.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await opened(p);
  assert.ok(await noSideways(p));
  const widest = await p.$$eval('.row', (rows) => Math.max(...rows.map((r) => r.getBoundingClientRect().right)));
  assert.ok(widest <= 360, `rows stay on screen (${widest})`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

/** The page's background and text colours, and their contrast. */
const colours = (p) => p.evaluate(() => {
  const body = getComputedStyle(document.querySelector('.drop'));
  const root = getComputedStyle(document.documentElement);
  return { bg: root.backgroundColor, ink: body.color };
});
const dark = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number).every((v) => v < 60);

test('dark mode: by the system, and by the switch (remembered)', async () => {
  const p = await suite.page();
  await p.emulateMedia({ colorScheme: 'dark' });
  await p.goto(suite.base + '/?src=demo.jsonl');
  await opened(p);
  let c = await colours(p);
  assert.ok(dark(c.bg), `dark background (${c.bg})`);
  assert.ok(contrast(c.bg, c.ink) >= 7, `text contrast ${contrast(c.bg, c.ink)}`);
  // Rows and panels follow.
  const panel = await p.$eval('.details', (d) => getComputedStyle(d).backgroundColor);
  assert.ok(dark(panel), `dark details panel (${panel})`);
  const user = await p.$eval('.row.role-user', (r) => [getComputedStyle(r).backgroundColor, getComputedStyle(r).color]);
  assert.ok(dark(user[0]) && contrast(...user) >= 4.5, `user row ${user}`);
  const dim = await p.$eval('.row-head .time', (t) => getComputedStyle(t).color);
  assert.ok(contrast(dim, user[0]) >= 4.5, `dim text on a user row: ${contrast(dim, user[0])}`);

  // The switch: auto → light → dark, remembered across a reload.
  assert.equal(await p.textContent('#theme'), 'Theme: auto');
  await p.click('#theme');
  assert.equal(await p.textContent('#theme'), 'Theme: light');
  c = await colours(p);
  assert.ok(!dark(c.bg), `light background under a dark system (${c.bg})`);
  await p.reload();
  await opened(p);
  assert.equal(await p.textContent('#theme'), 'Theme: light');
  assert.ok(!dark((await colours(p)).bg));
  await p.click('#theme');
  await p.emulateMedia({ colorScheme: 'light' });
  assert.ok(dark((await colours(p)).bg), 'dark by the switch under a light system');
  await p.click('#theme');
  assert.equal(await p.textContent('#theme'), 'Theme: auto');
  assert.ok(!dark((await colours(p)).bg));
  assert.deepEqual(p.errors, []);
  await p.close();
});
