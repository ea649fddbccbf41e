// Subagent runs linked both ways: a Claude Code project folder with a
// session and its `subagents/` runs opens as one session; the Agent call's
// block opens its run, and the run says which session and call spawned it,
// with a way back that lands on that call. A run opened on its own names
// the session its lines give.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { browserSuite, corpus, drop, files, opened } from './harness.mjs';

const suite = browserSuite();
const PROJECT = path.join(corpus, 'claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees');
const SESSION = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';

test('from an Agent call to its run and back to the call', async () => {
  const p = await suite.page('/');
  await p.setInputFiles('#folder', PROJECT);
  await opened(p);
  assert.equal(await p.locator('.subagent-origin').isVisible(), false, 'the session itself is no run');
  // The first Agent call's run.
  const call = p.locator('.tool-block.tool-agent', { has: p.locator('.subagent-block') }).first();
  await call.waitFor();
  const callId = (await call.locator('.call-id').textContent()).trim();
  const run = (await call.locator('.subagent-block summary').textContent()).match(/Subagent run (\w+)/)[1];
  const before = await p.evaluate(() => location.hash);
  await call.locator('.open-subagent').click();
  await p.waitForSelector('.subagent-origin');
  // Its rows are there (the address names the run).
  await p.waitForFunction((h) => location.hash !== h, before);
  const origin = await p.textContent('.subagent-origin');
  assert.ok(origin.includes(`Subagent run ${run}`), origin);
  assert.ok(origin.includes(`Spawned by the call ${callId} in ${SESSION}.jsonl`), origin);
  // Back: the call's row, focused and in view, on the session's branch.
  await p.click('.subagent-origin .back-to-call');
  await p.waitForFunction((id) => [...document.querySelectorAll('.row.focused .tool-block.tool-agent .call-id')]
    .some((c) => c.textContent.trim() === id), callId, { timeout: 10000 });
  assert.equal(await p.locator('.subagent-origin').isVisible(), false);
  const inView = await p.evaluate(() => {
    const head = document.querySelector('.row.focused').getBoundingClientRect();
    const pane = document.querySelector('.conversation').getBoundingClientRect();
    return head.top >= pane.top - 1 && head.top < pane.bottom;
  });
  assert.ok(inView, 'the call is in view');
  // Back in history returns to the run.
  await p.goBack();
  await p.waitForSelector('.subagent-origin');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a run opened without its session names that session', async () => {
  const p = await suite.page('/');
  await drop(p, files(path.join(PROJECT, SESSION, 'subagents/agent-a4ca7529859c158c2.jsonl'),
    path.join(PROJECT, SESSION, 'subagents/agent-a4ca7529859c158c2.meta.json')));
  await opened(p);
  const origin = await p.textContent('.subagent-origin');
  assert.ok(origin.includes('Subagent run a4ca7529859c158c2 — Research Claude Code plan mode'), origin);
  assert.ok(origin.includes(`Spawned in session ${SESSION}, not open here`), origin);
  assert.equal(await p.locator('.subagent-origin .back-to-call').count(), 0);
  assert.deepEqual(p.errors, []);
  await p.close();
});
