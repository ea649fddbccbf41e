// Every kind of message read as what it is, on a real file of each format:
// the branch is titled by the first prompt a person typed (not a caveat,
// a slash command or the environment context), no harness tag is shown
// raw, no row says only a type name, Gemini CLI errors keep their text and
// an event stream's transitions show where they went.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, drop, files, opened, root } from './harness.mjs';

const suite = browserSuite();

/** Opens `path` with event lines shown too, every body loaded. */
async function open(path) {
  const p = await suite.page('/');
  await drop(p, files(path));
  await opened(p);
  await p.check('.conversation .panel-head .toggle input');
  await p.waitForFunction(() => document.querySelectorAll('.loading-body').length === 0);
  return p;
}

/** Renders the rows after the first window too (a branch of fewer than
 *  twice the window's rows is then on the page whole). */
async function showAll(p) {
  const later = p.locator('.conversation > button.more', { hasText: 'later rows' });
  for (let i = 0; i < 10 && await later.count() > 0; i++) {
    // Scrolled to its end, the conversation renders the rows after.
    await p.evaluate(() => { const c = document.querySelector('.conversation'); c.scrollTop = c.scrollHeight; });
    await p.waitForTimeout(200);
    await p.waitForFunction(() => document.querySelectorAll('.loading-body').length === 0);
  }
}

/** The label of the branch shown, in the tree; no label of any branch is
 *  harness text. */
async function title(p) {
  const labels = await p.$$eval('.segments .segment .preview', (ls) => ls.map((l) => l.textContent));
  for (const l of labels) {
    assert.ok(!/^(Caveat:|<)/.test(l) && !RAW_TAGS.some((t) => l.includes(t)), `a branch labelled by harness text: ${l}`);
  }
  return p.textContent('.segments .segment.current .preview');
}

const RAW_TAGS = ['<command-name>', '<bash-input>', '<bash-stdout>', '<environment_context>', '<local-command-stdout>'];
const TYPE_NAMES = ['event_msg', 'response_item', 'turn_context', 'session_meta', 'token_count', 'exec_command_end', 'error', 'info'];

/** No raw harness tag on screen, and no row whose body (or whose whole
 *  text) is only a type name. */
async function readable(p) {
  const text = await p.textContent('.conversation');
  for (const tag of RAW_TAGS) assert.ok(!text.includes(tag), `raw ${tag} on screen`);
  const rows = await p.$$eval('.row:not(.folded)', (rs) => rs.map((r) => {
    const head = r.querySelector('.row-head')?.textContent ?? '';
    return { whole: r.textContent.trim(), body: r.textContent.slice(head.length).trim() };
  }));
  assert.ok(rows.length > 3, `${rows.length} rows`);
  const bare = (t) => TYPE_NAMES.includes(t.replace(/^[·\s]+/, ''));
  for (const r of rows) {
    assert.ok(!bare(r.body) && !bare(r.whole), `a row says only a type name: ${r.whole.slice(0, 120)}`);
  }
  return text;
}

test('Claude Code: caveat, /clear and ! shell lines are not titles nor raw tags', async () => {
  const p = await open('claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl');
  assert.match(await title(p), /^Please fix these lint errors/);
  const text = await readable(p);
  // The pieces are there, read as what they are.
  // The other branch starts with `/clear`: labelled by the command.
  const labels = await p.$$eval('.segments .segment .preview', (ls) => ls.map((l) => l.textContent));
  assert.ok(labels.some((l) => l.endsWith('/clear')), labels.join(' | '));
  assert.ok(text.includes('uv run ty check'), 'the ! command');
  assert.ok(await p.locator('.row .harness-context').count() > 0, 'the caveat is a context row');
  await p.close();
});

test('j and k stop on typed prompts only: not on the caveat, ! lines or /clear', async () => {
  const p = await open('claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl');
  // What the harness wrote alone is no prompt: no "prompt" badge on it.
  const badged = await p.$$eval('.row', (rows) => rows
    .filter((r) => r.querySelector('.row-head .badge.prompt'))
    .map((r) => ({ harness: !!r.querySelector('.harness:not(.harness-prompt)'), text: r.innerText.slice(0, 80) })));
  assert.ok(badged.length > 0);
  assert.deepEqual(badged.filter((b) => b.harness), [], 'harness rows badged as prompts');
  // j from the top visits each typed prompt in turn, then stays; k goes back.
  const focused = () => p.evaluate(() => {
    const r = document.querySelector('.row.focused');
    return r && { row: Number(r.dataset.row), harness: !!r.querySelector('.harness:not(.harness-prompt)'), user: r.classList.contains('role-user'), text: r.innerText };
  });
  // Keys go to the page, not the events switch open() ticked.
  await p.evaluate(() => document.activeElement?.blur());
  const visited = [];
  for (let i = 0; i < 40; i++) {
    await p.keyboard.press('j');
    await p.waitForTimeout(100);
    const f = await focused();
    if (!f || visited.at(-1)?.row === f.row) break;
    visited.push(f);
  }
  assert.ok(visited.length >= 2, JSON.stringify(visited.map((v) => v.row)));
  assert.ok(visited[0].text.includes('Please fix these lint errors'), visited[0].text.slice(0, 200));
  for (const v of visited) assert.ok(v.user && !v.harness, `j stopped on ${v.text.slice(0, 120)}`);
  await p.keyboard.press('k');
  await p.waitForFunction((row) => document.querySelector('.row.focused')?.dataset.row === String(row), visited.at(-2).row);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('Codex: the environment context is no title, no bare item types', async () => {
  const p = await open('codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
  const t = await title(p);
  assert.match(t, /^finish up the users work/, t);
  await readable(p);
  await p.close();
});

test('Codex: one step is one row, its usage on it, the turn\'s settings once', async () => {
  const p = await open('codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
  await showAll(p);
  assert.equal(await p.locator('.row').count(), 84);
  await readable(p);
  // Token counts, settings and the UI's copies are folded into the rows
  // beside them: the event lines left are the session's start and the two
  // lines written after the last output.
  const events = await p.$$eval('.row.event', (rs) => rs.map((r) => r.textContent));
  assert.equal(events.length, 3, events.join('\n'));
  assert.ok(events[0].includes('session started in /home/user/projects/temp/chatbot-ui (Codex 0.58.0)'));
  const steps = await p.$$eval('.row.role-assistant', (rs) => rs.map((r) => ({
    thinking: r.querySelectorAll(':scope .parts > .thinking').length,
    blocks: r.querySelectorAll('.tool-block').length,
    meta: r.querySelector(':scope > .meta')?.textContent ?? '',
    settings: [...r.querySelectorAll('.context-row summary')].map((x) => x.textContent),
  })));
  assert.equal(steps.length, 39);
  // Reasoning with the step it precedes, one call each, named by its
  // summary's subject.
  assert.ok(steps.every((s) => s.blocks === 1), JSON.stringify(steps.slice(0, 3)));
  assert.equal(steps.filter((s) => s.thinking === 1).length, 38);
  assert.equal(await p.locator('.row.role-assistant .thinking summary').first().textContent(),
    'Thinking · Planning repository inspection');
  // Each step's model and usage on it; the first step's own count.
  assert.equal(steps[0].meta, 'gpt-5.1-codex · in 10128 · out 37 · cache 0/0');
  assert.ok(steps.every((s) => s.meta.startsWith('gpt-5.1-codex · in ')), JSON.stringify(steps.map((s) => s.meta)));
  // The settings once, collapsed, on the first step.
  assert.deepEqual(steps.map((s) => s.settings.length), [1, ...Array(38).fill(0)]);
  const settings = await p.locator('.row.role-assistant .context-row').first();
  await settings.locator('summary').click();
  assert.equal(await settings.locator('.context-text').textContent(),
    'model gpt-5.1-codex · effort high · approval never · cwd /home/user/projects/temp/chatbot-ui · sandbox danger-full-access');
  // The undo snapshot is a checkpoint.
  assert.equal(await p.locator('.row .checkpoint-block').count(), 1);
  await p.close();
});

test('Gemini CLI: error messages keep their text', async () => {
  const p = await open('gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-06T07-22-e0f194ce.json');
  assert.match(await title(p), /^run claude code/);
  const text = await readable(p);
  assert.ok(text.includes("[API Error: Cannot read properties of undefined (reading 'error')]"), 'the error text');
  assert.ok(text.includes('Request cancelled.'), 'the info text');
  await p.close();
});

test('Events: transitions read from → to, an LLM call names its model', async () => {
  const p = await open(`${root}/tests/fixtures/events/events.jsonl`);
  assert.match(await title(p), /^What is the weather in Paris\?/);
  const text = await readable(p);
  for (const hop of ['start → planner', 'planner → tools', 'tools → responder']) {
    assert.ok(text.includes(hop), `${hop} in ${text.slice(0, 600)}`);
  }
  assert.ok(text.includes('gpt-4o-mini'), 'the model of the llm_call');
  await p.close();
});
