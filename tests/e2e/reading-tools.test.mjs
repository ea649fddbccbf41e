// Tool calls read as their tools, on a real file of each format: one block
// per call titled by its tool, with its result inside (no result card of its
// own), `$ command` for a shell, arguments without escaped line breaks,
// terminal colours drawn as coloured spans (no raw `[38;2;`, no U+FFFD).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSuite, corpus, drop, files, opened, root } from './harness.mjs';

const suite = browserSuite();

/** Opens `paths` and waits for the first tool block. */
async function open(paths) {
  const p = await suite.page('/');
  await drop(p, files(...paths));
  await opened(p);
  await p.waitForSelector('.row .tool-block');
  // Bodies arrive in batches: wait until none is loading.
  await p.waitForFunction(() => document.querySelectorAll('.loading-body').length === 0);
  return p;
}

/** Every tool block on screen: tool, title, badges, and what it holds. */
const blocks = (p) => p.$$eval('.row:not(.folded) .tool-block', (bs) => bs.map((b) => ({
  kind: b.className,
  tool: b.querySelector('.tool-name').textContent,
  title: b.querySelector('.tool-title').textContent,
  badges: [...b.querySelectorAll('.tool-badge')].map((x) => x.textContent),
  command: b.querySelector('.shell-cmd')?.textContent ?? null,
  output: [...b.querySelectorAll('pre.output')].map((o) => o.textContent).join('\n'),
  inputs: [...b.querySelectorAll('.tool-fields, .shell-cmd, .agent-prompt, .tool-title')].map((x) => x.textContent).join('\n'),
  noResult: b.querySelector('.no-result') !== null,
})));

/** What every format's page must hold: no result cards beside the blocks,
 *  no escaped `\n` in tool inputs, no raw escapes anywhere. */
async function common(p, list) {
  assert.equal(await p.locator('.row:not(.folded) .tool-result').count(), 0, 'results are inside their calls');
  for (const b of list) {
    assert.ok(!b.inputs.includes('\\n'), `escaped line break in ${b.tool}: ${b.inputs.slice(0, 200)}`);
  }
  const text = await p.textContent('.conversation');
  assert.ok(!text.includes('\uFFFD') && !text.includes('[38;2;') && !text.includes('\u001b'), 'no raw escapes');
}

test('Codex: `bash -lc ls` reads as `$ ls` with its output inside', async () => {
  const p = await open([`${corpus}/codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl`]);
  const list = await blocks(p);
  const first = list[0];
  assert.equal(first.tool, 'shell');
  assert.equal(first.title, '$ ls');
  assert.equal(first.command, '$ ls');
  assert.ok(first.output.includes('LM Studio configuration.md\nREADME.md'), first.output);
  // A word with spaces is quoted as a shell would need it.
  assert.ok(list.some((b) => b.title === "$ cat 'LM Studio configuration.md'"), list.map((b) => b.title).join('\n'));
  await common(p, list);
  // The rows that held the results are folded into the calls' rows.
  assert.ok(await p.locator('.row.folded').count() >= 2);
  // 0.58's output metadata: the exit code on each shell block.
  assert.deepEqual(first.badges, ['exit 0']);
  for (const b of list.filter((x) => x.tool === 'shell')) {
    assert.match(b.badges[0] ?? '', /^exit \d+$/, JSON.stringify(b).slice(0, 300));
  }
  await p.close();
});

test('Codex: a command\'s end event inside its call\'s block', async () => {
  const p = await open([`${root}/tests/fixtures/codex/exec-events/rollout.jsonl`]);
  const list = await blocks(p);
  assert.deepEqual(list.map((b) => b.title), ['$ cargo test', '', '$ cargo test', '$ git status --short']);
  // Exit code, duration and stderr apart, from `exec_command_end`.
  const [failed, patch, passed, status] = list;
  assert.deepEqual(failed.badges, ['exit 101', '2.3500 seconds']);
  assert.ok(failed.output.includes('test four ... FAILED'), failed.output);
  assert.ok(failed.output.includes('error: test failed, to rerun pass `--lib`'), failed.output);
  const stderr = await p.locator('.tool-block').first().locator('pre.stderr').textContent();
  assert.equal(stderr, 'error: test failed, to rerun pass `--lib`\n');
  // An output with no framing gets them from the report.
  assert.deepEqual(passed.badges, ['exit 0', '1.8 s']);
  assert.deepEqual(status.badges, ['exit 0', '41 ms']);
  assert.equal(patch.tool, 'apply_patch');
  // No card of its own for the report, the output or the bookkeeping:
  // every row shown is a prompt, the environment, the start or a step.
  const text = await p.textContent('.conversation');
  for (const word of ['exec_command_end', 'command ended', 'exec command', 'token count', 'patch apply']) {
    assert.ok(!text.includes(word), `${word} on screen`);
  }
  assert.equal(await p.locator('.row:not(.folded)').count(), 10);
  assert.equal(await p.locator('.row.folded').count(), 4);
  await common(p, list);
  await p.close();
});

test('Claude Code: Bash, Glob, Write and TodoWrite blocks with results across hook lines', async () => {
  const p = await open([`${corpus}/claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl`]);
  const list = await blocks(p);
  const tools = new Set(list.map((b) => b.tool));
  for (const t of ['Bash', 'Glob', 'Write', 'TodoWrite']) assert.ok(tools.has(t), `${t} in ${[...tools]}`);
  const bash = list.find((b) => b.tool === 'Bash' && b.output.includes('total 0'));
  assert.ok(bash, JSON.stringify(list.filter((b) => b.tool === 'Bash')));
  assert.ok(bash.command.startsWith('$ '));
  const write = list.find((b) => b.tool === 'Write');
  assert.ok(write.title.endsWith('CLAUDE.md'), write.title);
  // The written file is shown, its result under it.
  assert.ok(write.output.includes('CLAUDE.md'), write.output);
  await common(p, list);
  await p.close();
});

test('Claude Code: an Agent prompt as markdown with a link to its run', async () => {
  const dir = `${corpus}/claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees`;
  const sub = `${dir}/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents`;
  const p = await open([`${dir}/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl`,
    `${sub}/agent-a4ca7529859c158c2.jsonl`, `${sub}/agent-a4ca7529859c158c2.meta.json`]);
  await p.waitForSelector('.tool-agent .agent-prompt strong');
  const agent = p.locator('.tool-block.tool-agent').first();
  assert.equal(await agent.locator('.agent-prompt strong').first().textContent(), 'alice');
  assert.ok(!(await agent.locator('.agent-prompt').textContent()).includes('\\n'));
  // Its run, linked from the block.
  await agent.locator('.subagent-block .open-subagent').click();
  await p.waitForFunction(() => document.querySelector('.row .md')?.textContent.includes('alice'));
  await p.close();
});

test('pi: bash, read and edit blocks', async () => {
  const p = await open([`${corpus}/pi/badlogic__pi-mono/session.jsonl`]);
  const list = await blocks(p);
  const tools = new Set(list.map((b) => b.tool));
  for (const t of ['bash', 'read', 'edit']) assert.ok(tools.has(t), `${t} in ${[...tools]}`);
  assert.ok(list.filter((b) => b.tool === 'bash').every((b) => b.command.startsWith('$ ')));
  // pi's grep with escaped quotes reads as typed.
  assert.ok(list.some((b) => b.tool === 'bash' && /grep -n "/.test(b.command)), list.map((b) => b.command).join('\n'));
  // A read of a TypeScript file is highlighted.
  assert.ok(await p.locator('.tool-read pre.output .hl-k').count() > 0);
  await common(p, list);
  await p.close();
});

test('Gemini CLI: a shell call with its exit code, paired inside its record', async () => {
  const p = await open([`${corpus}/gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-06T07-22-e0f194ce.json`]);
  const list = await blocks(p);
  const shell = list.filter((b) => b.tool === 'run_shell_command');
  assert.ok(shell.length > 0);
  assert.ok(shell.some((b) => b.badges.includes('exit 0')), JSON.stringify(shell));
  assert.ok(shell.every((b) => !b.output.startsWith('Command: ')));
  await common(p, list);
  await p.close();
});

test('event stream and provider list: calls with their results', async () => {
  let p = await open([`${root}/tests/fixtures/events/events.jsonl`]);
  let list = await blocks(p);
  assert.equal(list.length, 2);
  assert.ok(list.every((b) => !b.noResult && b.output.length > 0), JSON.stringify(list));
  assert.ok(list.some((b) => b.badges.includes('error')));
  await common(p, list);
  await p.close();
  p = await open([`${root}/tests/fixtures/provider/openai-chat.jsonl`]);
  list = await blocks(p);
  assert.equal(list.length, 2);
  assert.ok(list.every((b) => b.output.length > 0), JSON.stringify(list));
  await common(p, list);
  await p.close();
});

test('terminal colours are coloured spans', async () => {
  const p = await suite.page('/');
  await drop(p, files(`${corpus}/claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl`));
  await opened(p);
  await p.waitForSelector('pre.output span[style*="color"]');
  const grey = await p.$$eval('pre.output span[style]', (s) => s.map((x) => x.getAttribute('style')));
  assert.ok(grey.includes('color:#999999;'), grey.join(' '));
  const text = await p.textContent('.conversation');
  assert.ok(text.includes('66k/200k tokens (33%)'));
  assert.ok(!text.includes('\uFFFD') && !text.includes('[38;2;') && !text.includes('[39m'));
  await p.close();
});

test('a call left without a result says so', async () => {
  const p = await open([`${corpus}/claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl`]);
  const list = await blocks(p);
  const open_ = list.filter((b) => b.noResult);
  assert.equal(open_.length, 1, JSON.stringify(list));
  assert.ok(open_[0].badges.includes('no result'));
  await p.close();
});
