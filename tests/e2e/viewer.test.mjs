// The viewer in headless Chromium: open every format by drop, picker,
// paste and ?src=, switch branches, step and play, deep links, an XSS
// transcript that must run nothing, and no network after a drop.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

import { browserSuite, drop, files, opened, out, retraceBin, root, shot } from './harness.mjs';

// The demo (bundled): a real Claude Code session with a rewind.
const FIRST_TIP = '2f4668dd-c177-455f-81c1-caa947d43e73';
const DEFAULT_TIP = 'd107d4c0-ae71-4d3d-af3a-cf7a370bd21f';
const PROMPT_ON_FIRST = '12f81cce-ffa9-40d4-929e-0c2c6ad7c6c9'; // line 25

const suite = browserSuite({ extra: { '/fixtures/crafted.jsonl': crafted() } });

/** Text of the conversation's rows. */
const rowsText = (p) => p.$$eval('.row', (rows) => rows.map((r) => r.innerText).join('\n'));

const cases = [
  {
    name: 'pi v1 (real, pi author)',
    files: ['pi/badlogic__pi-mono/session.jsonl'],
    format: 'pi v1',
    expect: 'bashExecution',
  },
  {
    name: 'pi v3 tree',
    files: ['pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl'],
    format: 'pi v3',
  },
  {
    name: 'Claude Code with subagent files',
    files: [
      'claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl',
      'claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl',
    ],
    format: 'claude-code',
    subagent: true,
  },
  {
    name: 'Codex CLI rollout',
    files: ['codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'],
    format: 'codex',
  },
  {
    name: 'Codex rollback (an abandoned branch)',
    files: [`${root}/tests/fixtures/codex/rollback.jsonl`],
    format: 'codex',
    branches: 2,
  },
  {
    name: 'event stream split over 11 files, dropped out of order',
    files: fs.readdirSync(`${root}/tests/fixtures/events/split`).sort().reverse().map((f) => `${root}/tests/fixtures/events/split/${f}`),
    format: 'events',
  },
  {
    name: 'gzip-compressed event stream',
    files: [`${root}/tests/fixtures/gzip/events.jsonl.gz`],
    format: 'events',
  },
  {
    name: 'Gemini CLI legacy session (one JSON document)',
    files: ['gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-11-19T20-45-42f4bde7.json'],
    format: 'gemini-cli',
  },
  {
    name: 'Gemini CLI JSONL with a rewind',
    files: [`${root}/tests/fixtures/gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl`],
    format: 'gemini-cli',
    branches: 2,
  },
  {
    name: 'Anthropic Messages list (a JSON array)',
    files: [`${root}/tests/fixtures/provider/anthropic-messages.json`],
    format: 'anthropic-messages',
  },
  {
    name: 'OpenAI Responses items (JSON lines)',
    files: [`${root}/tests/fixtures/provider/openai-responses.jsonl`],
    format: 'openai-responses-items',
  },
  {
    name: 'Google contents',
    files: [`${root}/tests/fixtures/provider/google-contents.json`],
    format: 'google-contents',
  },
  {
    name: 'Claude Code 1.0 with inline sidechains',
    files: ['claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'],
    format: 'claude-code',
  },
];

for (const c of cases) {
  test(`drop: ${c.name}`, async () => {
    const p = await suite.page('/');
    await drop(p, files(...c.files));
    await opened(p);
    assert.equal(await p.textContent('#format'), c.format);
    const text = await rowsText(p);
    assert.ok(text.length > 100, 'rows show message text');
    // Every rendered row got its body from the worker.
    assert.equal(await p.locator('.broken').count(), 0);
    if (c.branches) {
      assert.equal(await p.locator('.segment .glyph', { hasText: '●' }).count(), c.branches, 'leaves in the tree');
    }
    if (c.subagent) {
      assert.ok(await p.locator('.file-header', { hasText: 'subagent' }).count() > 0, 'subagent file listed in the tree');
      // The Task result that spawned it opens the subagent's conversation.
      await p.locator('.subagent-block .open-subagent').first().click();
      await p.waitForFunction(() => document.body.innerText.includes('comprehensive overview of the code organization'));
    }
    assert.deepEqual(p.errors, []);
    await shot(p, `drop-${c.files[0].split('/').pop()}`);
    await p.close();
  });
}

test('images show only on request, from the file itself', async () => {
  const p = await suite.page('/');
  await drop(p, files('pi/badlogic__pi-mono/compact.jsonl'));
  await opened(p);
  // Find a row with an image: search for it, then ask for it.
  await p.fill('#search', 'image/png');
  await p.press('#search', 'Enter');
  await p.waitForSelector('.hit');
  await p.locator('.hit').first().click();
  // The result's row folds into its call's: the image is in the call's block.
  await p.waitForSelector('.row.focused .tool-block .image-placeholder');
  assert.equal(await p.locator('img.image').count(), 0, 'not loaded until asked');
  await p.click('.row.focused .show-image');
  await p.waitForSelector('.row.focused img.image');
  assert.match(await p.getAttribute('.row.focused img.image', 'src'), /^data:image\/(png|jpeg|gif|webp);base64,/);
  assert.deepEqual(p.errors, []);
  await shot(p, 'image-on-request');
  await p.close();
});

test('sensitive data: hidden by default, reviewed, downloaded as the CLI writes it', async () => {
  const fixture = `${root}/tests/fixtures/redact/corpus-s11.jsonl`;
  const p = await suite.page('/');
  await drop(p, files(fixture));
  await opened(p);
  // The background scan finds what `retrace redact` finds: 360 matches.
  await p.waitForFunction(() => /360 found in the whole session/.test(document.querySelector('#scan-status')?.textContent || ''), null, { timeout: 30000 });
  assert.match(await p.textContent('.sensitive-toggle'), /hidden \(360 found\)/);
  // Bodies on screen are redacted; no planted value shows.
  const truth = JSON.parse(fs.readFileSync(`${root}/tests/fixtures/redact/corpus-s11.truth.json`, 'utf8'));
  const planted = (truth.planted || truth.secrets || truth.findings || []).map((t) => t.value).filter((x) => typeof x === 'string' && x.length > 8);
  assert.ok(planted.length > 50, 'the truth file lists planted values');
  const shown = async () => (await p.$$eval('.row', (rs) => rs.map((r) => r.innerText).join('\n')));
  let text = await shown();
  assert.ok(planted.every((v) => !text.includes(v)), 'no planted value on screen while hidden');
  assert.match(text, /\[REDACTED:[a-z0-9-]+\]/);
  // Hidden values are chips, in message text and in tool output alike.
  const chips = await p.$$eval('.row mark.redacted', (ms) => ms.map((m) => m.textContent));
  assert.ok(chips.length > 5, `chips on screen: ${chips.length}`);
  assert.ok(chips.every((c) => /^\[REDACTED:[a-z0-9-]+\]$/.test(c)), chips.join(' '));
  assert.ok(await p.$('.row .output mark.redacted'), 'a chip in tool output');
  const chipColour = await p.$eval('.row mark.redacted', (m) => getComputedStyle(m).backgroundColor);
  assert.notEqual(chipColour, 'rgba(0, 0, 0, 0)');
  // A finding jumps to its row.
  await p.locator('.finding').first().click();
  await p.waitForSelector('.row.focused');
  // Shown on request, the values are back.
  await p.click('#hide-sensitive');
  await p.waitForFunction(() => !document.querySelector('.loading-body') && document.querySelectorAll('.row').length > 0);
  await p.waitForTimeout(300);
  text = await shown();
  assert.ok(planted.some((v) => text.includes(v)), 'values shown when asked');
  // Each shown value is highlighted: what a redacted download takes out.
  const marked = await p.$$eval('.row mark.revealed', (ms) => ms.map((m) => m.textContent));
  assert.ok(marked.length > 5, `revealed values highlighted: ${marked.length}`);
  assert.ok(planted.some((v) => marked.includes(v)), `a planted value inside a mark.revealed: ${marked.slice(0, 5).join(' | ')}`);
  assert.ok(await p.$('.row .output mark.revealed'), 'a revealed value in tool output');
  // Rows whose bodies come back later (a loaded machine) lose their chips
  // then; a chip still there after 10 s stays.
  await p.waitForFunction(() => !document.querySelector('.row mark.redacted'), null, { timeout: 10000 }).catch(() => {});
  assert.equal(await p.locator('.row mark.redacted').count(), 0, 'no chip left once shown');
  assert.match(await p.textContent('.sensitive-toggle'), /shown/);
  // Downloads equal the CLI's output, byte for byte, in every mode.
  for (const mode of ['typed', 'mask', 'pseudo']) {
    await p.selectOption('#redact-mode', mode);
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('.download')]);
    assert.equal(download.suggestedFilename(), 'corpus-s11.redacted.jsonl');
    const got = fs.readFileSync(await download.path());
    const want = execFileSync(retraceBin, ['redact', '--mode', mode, fixture], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
    assert.ok(got.equals(want), `download in ${mode} mode equals retrace redact --mode ${mode}`);
  }
  // "Not a secret": a whole kind, and two single findings of other kinds.
  await p.selectOption('#redact-mode', 'typed');
  const before = fs.readFileSync(await (await Promise.all([p.waitForEvent('download'), p.click('.download')]))[0].path());
  await p.click('.not-secret-kind[data-kind="home-username"]');
  const singles = await p.$$eval('#findings li', (ls) => ls.map((l, i) => [i, l.querySelector('.code').textContent]));
  const pick = ['email', 'ipv4-public'].map((k) => singles.find((x) => x[1] === k)[0]);
  for (const i of pick) await p.locator('#findings li').nth(i).locator('.not-secret').click();
  assert.equal(await p.locator('#findings li.allowed').count() >= 2, true);
  const [download] = await Promise.all([p.waitForEvent('download'), p.click('.download')]);
  const got = fs.readFileSync(await download.path());
  assert.ok(!got.equals(before), 'the exceptions change the download');
  assert.ok(!got.includes('[REDACTED:home-username]') && before.includes('[REDACTED:home-username]'));
  // The exceptions saved as a rules file: the CLI with it writes the same bytes.
  const [rulesFile] = await Promise.all([p.waitForEvent('download'), p.click('.rules-file')]);
  assert.equal(rulesFile.suggestedFilename(), 'corpus-s11.rules.toml');
  const rules = fs.readFileSync(await rulesFile.path(), 'utf8');
  assert.match(rules, /disable = \["home-username"\]/);
  assert.equal((rules.match(/\{ kind = /g) || []).length, 2, rules);
  const rulesPath = `${out}/corpus-s11.rules.toml`;
  fs.writeFileSync(rulesPath, rules);
  const want = execFileSync(retraceBin, ['redact', '--rules', rulesPath, fixture], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  assert.ok(got.equals(want), 'download with exceptions equals retrace redact --rules FILE');
  // Fewer placeholders of the single exceptions' kinds (one value may
  // stand twice on its line), none of the kind.
  const count = (b, k) => (b.toString().match(new RegExp(`\\[REDACTED:${k}\\]`, 'g')) || []).length;
  for (const k of ['email', 'ipv4-public']) {
    assert.ok(count(got, k) < count(before, k) && count(got, k) >= count(before, k) - 2, k);
  }
  assert.deepEqual(p.errors, []);
  await shot(p, 'sensitive');
  await p.close();
});

test('file picker, paste and a broken line', async () => {
  const p = await suite.page('/');
  const text = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
    + '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"picked file says hello","timestamp":1767225601000}}\n'
    + '{"type":"message","id":"b","parentId":"a" BROKEN\n';
  await p.setInputFiles('#file', { name: 'picked.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await opened(p);
  assert.match(await rowsText(p), /picked file says hello/);
  // The broken line is reported with its line number, not dropped.
  const diags = await p.textContent('#diagnostics');
  assert.match(diags, /line 3/);
  assert.match(diags, /malformed-json/);
  // Paste replaces the session.
  await p.evaluate(() => {
    const dt = new DataTransfer();
    dt.setData('text', '{"type":"session","version":3,"id":"s2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
      + '{"type":"message","id":"x","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"pasted text arrives","timestamp":1767225601000}}\n');
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true }));
  });
  await p.waitForFunction(() => document.body.innerText.includes('pasted text arrives'));
  assert.deepEqual(p.errors, []);
  await shot(p, 'picker-paste');
  await p.close();
});

test('demo: switch branch, search, step and play', async () => {
  const p = await suite.page('/?src=demo.jsonl');
  await opened(p);
  // Opens on the latest branch (the default leaf).
  assert.match(await rowsText(p), /I actually don't like much this idea/);
  assert.ok(p.url().includes(`leaf=${DEFAULT_TIP}`));
  // The other branch of the rewind.
  await p.click('.segment:not(.current) >> text=I very much like this idea');
  await p.waitForFunction(() => document.body.innerText.includes('list 5 weak points'));
  const text = await rowsText(p);
  assert.ok(!text.includes("I actually don't like much this idea"), 'the other branch is gone');
  assert.ok(p.url().includes(`leaf=${FIRST_TIP}`));
  await shot(p, 'demo-branch');

  // Search jumps across branches.
  await p.fill('#search', 'strengths of this proposal');
  await p.press('#search', 'Enter');
  await p.waitForSelector('.hit');
  // Line 18 (this branch) asks for strengths too; line 45 is on the other.
  assert.equal(await p.locator('.hit').count(), 2);
  await p.click('.hit >> text=line 45');
  await p.waitForFunction(() => document.querySelector('.row.focused')?.innerText.includes('maybe also list 5 strengths'));
  assert.ok(p.url().includes(`leaf=${DEFAULT_TIP}`));

  // Step back and forward.
  const position = async () => (await p.textContent('#position')).trim();
  const total = Number((await position()).split('/')[1]);
  await p.click('#step-back');
  await p.click('#step-back');
  assert.equal(await position(), `${total - 2} / ${total}`);
  await p.keyboard.press('ArrowRight');
  assert.equal(await position(), `${total - 1} / ${total}`);
  // Play to the end at 10x and instant.
  await p.selectOption('#speed', '10x');
  await p.click('#play');
  await p.waitForFunction((t) => document.querySelector('#position').textContent.trim() === `${t} / ${t}`, total, { timeout: 20000 });
  await p.click('.player button[title^="Start"]');
  assert.equal(await position(), `0 / ${total}`);
  await p.selectOption('#speed', 'instant');
  await p.keyboard.press(' ');
  await p.waitForFunction((t) => document.querySelector('#position').textContent.trim() === `${t} / ${t}`, total);
  // The scrubber has markers for prompts and the fork.
  assert.ok(await p.locator('.marker.prompt').count() >= 4);
  assert.equal(await p.locator('.marker.fork').count(), 1);
  assert.deepEqual(p.errors, []);
  await shot(p, 'demo-replay');
  await p.close();
});

test('deep link reopens the same spot after reload', async () => {
  const p = await suite.page(`/?src=demo.jsonl#leaf=${FIRST_TIP}&entry=${PROMPT_ON_FIRST}`);
  await opened(p);
  const focused = () => p.$eval('.row.focused', (r) => r.dataset.entry);
  await p.waitForSelector('.row.focused');
  assert.equal(await focused(), PROMPT_ON_FIRST);
  assert.match(await rowsText(p), /list 5 weak points/);
  // A replay position is kept too.
  await p.click('#step-back');
  const hash = new URL(p.url()).hash;
  assert.match(hash, /replay/);
  const shown = (await p.textContent('#position')).trim();
  await p.reload();
  await opened(p);
  assert.equal(new URL(p.url()).hash, hash);
  assert.equal((await p.textContent('#position')).trim(), shown);
  assert.deepEqual(p.errors, []);
  await shot(p, 'deep-link');
  await p.close();
});

test('a crafted transcript runs nothing', async () => {
  const p = await suite.page();
  const requests = [];
  await p.goto(suite.base + '/');
  await p.waitForLoadState('networkidle');
  p.on('request', (r) => requests.push(r.url()));
  p.on('dialog', (d) => { requests.push(`dialog: ${d.message()}`); d.dismiss(); });
  await drop(p, [{ name: 'crafted.jsonl', data: Buffer.from(crafted()).toString('base64') }]);
  await opened(p);
  // Open everything that could hide a payload.
  for (const d of await p.$$('details')) await d.evaluate((el) => { el.open = true; });
  for (const b of await p.$$('.expand')) await b.click();
  // Click every link in the transcript.
  for (const a of await p.$$('.md a')) await a.click({ force: true }).catch(() => {});
  await p.waitForTimeout(500);
  assert.equal(await p.evaluate(() => window.__pwned), undefined, 'no payload ran');
  assert.equal(await p.locator('.conversation script, .conversation img, .conversation iframe, .conversation svg').count(), 0);
  assert.equal(await p.locator('.conversation [onerror], .conversation [onclick], .conversation [onload]').count(), 0);
  const hrefs = await p.$$eval('.conversation a[href]', (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.every((h) => /^(https?:|mailto:)/i.test(h)), hrefs.join(' '));
  // The payloads show as text.
  assert.match(await rowsText(p), /<script>window.__pwned=1<\/script>/);
  assert.deepEqual(requests, [], 'no request and no dialog after the drop');
  await shot(p, 'crafted');
  await p.close();
});

test('no network request after a drop', async () => {
  const p = await suite.page('/');
  await p.waitForLoadState('networkidle');
  const requests = [];
  p.on('request', (r) => requests.push(r.url()));
  await drop(p, files('pi/badlogic__pi-mono/compact.jsonl'));
  await opened(p);
  // Scroll through, search, replay: still nothing leaves the tab.
  await p.$eval('.conversation', (el) => { el.scrollTop = el.scrollHeight; });
  await p.waitForTimeout(300);
  await p.fill('#search', 'compaction');
  await p.press('#search', 'Enter');
  await p.waitForSelector('.results');
  await p.click('#step-back');
  await p.waitForTimeout(300);
  assert.deepEqual(requests, []);
  await shot(p, 'no-network');
  await p.close();
});

/** A transcript written to attack the viewer. */
function crafted() {
  const payloads = [
    'hi <script>window.__pwned=1</script> there',
    '<img src="x" onerror="window.__pwned=2">',
    '[click me](javascript:window.__pwned=3) and [also](  JaVaScRiPt:window.__pwned=4)',
    '<a href="javascript:window.__pwned=5">raw link</a> <iframe src="javascript:window.__pwned=6"></iframe>',
    '<svg onload="window.__pwned=7"></svg> ![img](http://example.invalid/track.png)',
    '<details open ontoggle="window.__pwned=8">x</details>',
  ];
  const lines = [{ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }];
  let parent = null;
  payloads.forEach((text, i) => {
    const id = `m${i}`;
    const role = i % 2 ? 'assistant' : 'user';
    const content = role === 'user' ? text : [
      { type: 'thinking', thinking: text },
      { type: 'text', text },
      { type: 'toolCall', id: `c${i}`, name: '<b onmouseover=x>tool</b>', arguments: { html: text } },
    ];
    lines.push({ type: 'message', id, parentId: parent, timestamp: `2026-01-01T00:00:0${i + 1}.000Z`, message: { role, content, timestamp: 1767225601000 + i * 1000 } });
    parent = id;
    if (role === 'assistant') {
      lines.push({ type: 'message', id: `r${i}`, parentId: id, timestamp: `2026-01-01T00:00:0${i + 1}.500Z`, message: { role: 'toolResult', toolCallId: `c${i}`, toolName: 'x', content: [{ type: 'text', text }], isError: i === 3, timestamp: 1767225601500 + i * 1000 } });
      parent = `r${i}`;
    }
  });
  lines.push({ type: 'label', id: 'l', parentId: parent, timestamp: '2026-01-01T00:00:09.000Z', targetId: 'm0', label: '<img src=x onerror="window.__pwned=9">' });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
