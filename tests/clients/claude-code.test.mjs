// Claude Code's own loader opens what `retrace fork`, `seal` and `repair`
// write, and sends its model the expected history.
//
// The loader is the real one: `@anthropic-ai/claude-code` 2.1.112, the last
// release that is a JavaScript `cli.js` (later ones are a native
// executable), from this folder's lockfile. Each file is put where Claude
// Code looks for a session (`$HOME/.claude/projects/<cwd, every character
// but a letter or digit a dash>/<sessionId>.jsonl`, under a scratch HOME
// and cwd) and resumed headless:
//   claude --resume <sessionId> -p continue --output-format json --no-session-persistence
// against a stand-in for the Messages API on 127.0.0.1 (`ANTHROPIC_BASE_URL`).
// What is checked is the request Claude Code sends: the messages it rebuilt
// from the file. Claude Code's own `--resume-session-at <uuid>` (its
// history up to a message) is the reference for a fork.
//
// Inputs: Claude Code files of the shared corpus (`../shared/corpus/claude-code`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { canon, corpus, fakeApi, here, offlineEnv, readLines, retrace, runNode, scratch, writeLines } from './common.mjs';

const claudeCli = path.join(here, 'node_modules/@anthropic-ai/claude-code/cli.js');
const tmp = scratch('claude');
const claudeCorpus = path.join(corpus, 'claude-code');
/** What the test says to the resumed session. */
const PROMPT = 'continue';
// What Claude Code adds on resume to a history that ends mid-turn: a
// prompt, and after a user message an answer, both its own constants.
const CONTINUE = 'Continue from where you left off.';
const NO_RESPONSE = 'No response requested.';

/** The Messages API, as far as a headless resume needs it: a streamed
 * (or plain) one-line text answer. */
function messagesApi(req, body, res) {
  if (req.method === 'POST' && req.url.startsWith('/v1/messages/count_tokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ input_tokens: 100 }));
    return;
  }
  if (req.method === 'POST' && req.url.startsWith('/v1/messages')) {
    const message = { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 0 } };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content: [{ type: 'text', text: 'Continued.' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 2 } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', { message });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Continued.' } });
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } });
    event('message_stop', {});
    res.end();
    return;
  }
  // Its reachability probe (`HEAD /`) and anything else.
  res.writeHead(req.method === 'HEAD' ? 200 : 404, { 'content-type': 'application/json' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
}

/** The project folder Claude Code keeps a cwd's sessions in. */
function projectFolder(cwd) {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  // Longer names get a hash suffix; scratch paths stay short.
  assert.ok(name.length <= 200, `cwd too long for the plain rule: ${cwd}`);
  return name;
}

let runs = 0;
/**
 * Claude Code resumes `file` as session `sessionId` (its file name by
 * default); `at` is its `--resume-session-at` (the history up to that
 * message). Gives the request it sent (`messages`, the whole `body`) and
 * its `result` line; with `persist`, also the lines Claude Code appended
 * to the file (`appended`), else the file must be left as it was.
 */
async function resume(file, { sessionId = path.basename(file, '.jsonl'), at, persist = false } = {}) {
  const dir = path.join(tmp, `run-${runs++}`);
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'project');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  const project = path.join(home, '.claude/projects', projectFolder(fs.realpathSync(cwd)));
  fs.mkdirSync(project, { recursive: true });
  const placed = path.join(project, `${sessionId}.jsonl`);
  fs.copyFileSync(file, placed);
  fs.chmodSync(placed, 0o644);
  const api = await fakeApi(messagesApi);
  const args = ['--resume', sessionId, '-p', PROMPT, '--output-format', 'json'];
  if (!persist) args.push('--no-session-persistence');
  if (at) args.push('--resume-session-at', at);
  const run = await runNode(claudeCli, args, {
    cwd,
    env: offlineEnv(home, api, {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-offline-test',
      // No telemetry, update checks, error reports or other calls home.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
  }).finally(api.close);
  assert.equal(run.status, 0, `claude --resume ${sessionId} failed (${run.status}):\n${run.stderr}\n${run.stdout}`);
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, false, run.stdout);
  const sent = api.requests.filter((r) => r.method === 'POST' && /^\/v1\/messages(\?|$)/.test(r.url));
  assert.equal(sent.length, 1, `one request to the model (got ${api.requests.map((r) => `${r.method} ${r.url}`).join(', ')})`);
  // The one call home no setting turns off for an API key (its metrics
  // opt-out check, made at exit), refused by the proxy.
  assert.deepEqual(api.outside.filter((host) => host !== 'api.anthropic.com:443'), [], 'nothing else is sent beyond the machine');
  const before = fs.readFileSync(file);
  const after = fs.readFileSync(placed);
  if (!persist) assert.deepEqual(after, before, 'Claude Code leaves the file as it is');
  assert.deepEqual(after.subarray(0, before.length), before, 'Claude Code only appends');
  const appended = after.subarray(before.length).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { result, body: sent[0].body, messages: sent[0].body.messages, appended };
}

const blocks = (m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);

const resultText = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');

/** Roles and blocks in words, to say which turns differ when a comparison fails. */
const turns = (messages) =>
  messages.map((m) => {
    const text = blocks(m)
      .map((b) => (b.type === 'tool_use' ? `call ${b.id}` : b.type === 'tool_result' ? `result ${b.tool_use_id}${b.is_error ? ' (error)' : ''}` : b.type === 'text' ? JSON.stringify(b.text.slice(0, 40)) : b.type))
      .join(' | ');
    return `${m.role}: ${text}`;
  });

/** The Messages API's rule: each assistant message's tool calls are all
 * answered in the next message, results first, and every result answers
 * a call of the message right before it. */
function assertPaired(messages, what) {
  messages.forEach((m, i) => {
    const bs = blocks(m);
    const calls = bs.filter((b) => b.type === 'tool_use').map((b) => b.id);
    const results = bs.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    if (m.role === 'assistant' && calls.length) {
      const next = messages[i + 1];
      const answered = next?.role === 'user' ? blocks(next).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : [];
      for (const id of calls) assert.ok(answered.includes(id), `${what}: call ${id} (message ${i}) is not answered in the next message\n${turns(messages).join('\n')}`);
    }
    if (results.length) {
      const prev = messages[i - 1];
      const asked = prev?.role === 'assistant' ? blocks(prev).filter((b) => b.type === 'tool_use').map((b) => b.id) : [];
      for (const id of results) assert.ok(asked.includes(id), `${what}: result ${id} (message ${i}) answers no call of the message before`);
      const firstOther = bs.findIndex((b) => b.type !== 'tool_result');
      assert.ok(firstOther === -1 || firstOther >= results.length, `${what}: message ${i} has a block before its results`);
    }
  });
}

/**
 * The history as a model sees it, in a form two writers agree on: what
 * Claude Code adds (`<system-reminder>` blocks, the prompt that resumed
 * it) and how it spells things (a string or a text block, `is_error:
 * false`, key order, trailing newlines) left out; consecutive messages of
 * one role joined, as the API reads them.
 */
function history(messages, { prompt = false } = {}) {
  const out = [];
  messages.forEach((m, i) => {
    let bs = blocks(m).flatMap((b) => {
      switch (b.type) {
        case 'text': {
          const t = b.text.trim();
          return t === '' || t.startsWith('<system-reminder>') || t === CONTINUE ? [] : [`text ${t}`];
        }
        // Not the tool's name: Claude Code renames retired tools as it
        // loads them (`KillShell` is sent as `TaskStop`).
        case 'tool_use':
          return [`call ${b.id} ${canon(b.input)}`];
        // Not the content: Claude Code rewrites some (a `tool_reference`
        // block becomes a line of text when tool search is off).
        case 'tool_result':
          return [`result ${b.tool_use_id}${b.is_error ? ' error' : ''}`];
        case 'thinking':
          return [`thinking ${b.thinking.trim()}`];
        default:
          return [b.type];
      }
    });
    if (prompt && i === messages.length - 1) {
      assert.equal(bs.at(-1), `text ${PROMPT}`, 'the request ends with the prompt');
      bs = bs.slice(0, -1);
    }
    if (!bs.length) return;
    // The answer Claude Code puts after a history that ends on a user
    // message (never sent by a model: its text is Claude Code's constant).
    if (m.role === 'assistant' && bs.length === 1 && bs[0] === `text ${NO_RESPONSE}` && i >= messages.length - 2) return;
    const last = out.at(-1);
    if (last?.role === m.role) last.blocks.push(...bs);
    else out.push({ role: m.role, blocks: bs });
  });
  return out;
}

/** What retrace's reader makes of a file, as an Anthropic request. */
function retraceMessages(file) {
  const out = path.join(tmp, `migrate-${runs++}.json`);
  retrace('-q', 'migrate', file, '--to', 'anthropic', '-o', out);
  return JSON.parse(fs.readFileSync(out, 'utf8')).messages;
}

// The corpus's Claude Code sessions with tool calls, one per major
// version of the writer (1.0, 2.0, 2.1): each resume costs a second or
// two of CPU (Claude Code parses its 14 MB cli.js).
const names = [
  'd-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
  'iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl',
  'iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl',
];
const sessions = names.map((f) => path.join(claudeCorpus, f)).filter((f) => fs.existsSync(f));
const noCorpus = !fs.existsSync(claudeCorpus) && 'no shared corpus';

test('the corpus has the Claude Code sessions', { skip: noCorpus }, () => {
  assert.deepEqual(sessions.map((f) => path.relative(claudeCorpus, f)), names);
});

test('Claude Code continues a fork: its new turn goes into the fork, after the fork\'s last line', { skip: noCorpus }, async () => {
  const input = sessions[0];
  const id = '2c0d4b8e-91f3-4e6a-8d7c-3b5a6f1e2d90';
  const out = path.join(tmp, `fork-${runs++}`, `${id}.jsonl`);
  fs.mkdirSync(path.dirname(out));
  retrace('-q', 'fork', input, '--at', 'sfp:3', '--id', id, '-o', out);
  const lines = readLines(out);
  const { appended, result, messages } = await resume(out, { sessionId: id, persist: true });
  assert.equal(result.session_id, id);
  assertPaired(messages, 'continued fork');
  // The prompt and the answer, in the fork's session, chained onto its
  // last line (whatever bookkeeping lines Claude Code writes between).
  const turnsAdded = appended.filter((l) => l.type === 'user' || l.type === 'assistant');
  assert.ok(turnsAdded.length >= 2, JSON.stringify(appended.map((l) => l.type)));
  for (const l of appended) if ('sessionId' in l) assert.equal(l.sessionId, id);
  const byUuid = new Map([...lines, ...appended].filter((l) => l.uuid).map((l) => [l.uuid, l]));
  let line = turnsAdded.at(-1);
  const chain = [];
  while (line) {
    chain.push(line.uuid);
    line = byUuid.get(line.parentUuid);
  }
  assert.ok(chain.includes(lines.at(-1).uuid), 'the new turn descends from the fork\'s last line');
  assert.equal(chain.at(-1), lines[0].uuid, 'and from there to the fork\'s first line');
});

// One resume of each whole input, shared by the tests that compare with it.
const whole = new Map();
function resumeWhole(file) {
  if (!whole.has(file)) whole.set(file, resume(file));
  return whole.get(file);
}

for (const input of sessions) {
  const name = path.relative(claudeCorpus, input).split('/').slice(0, 1).concat(path.basename(input)).join('/…/');

  test(`Claude Code resumes the file as retrace reads it (${name})`, async () => {
    const { messages, result } = await resumeWhole(input);
    assert.equal(result.session_id, path.basename(input, '.jsonl'));
    assertPaired(messages, name);
    assert.ok(messages.some((m) => blocks(m).some((b) => b.type === 'tool_result')), 'the history has tool results');
    assert.deepEqual(history(messages, { prompt: true }), history(retraceMessages(input)));
  });

  test(`fork at a middle safe point: Claude Code resumes its own history up to the point (${name})`, async () => {
    const { points } = JSON.parse(retrace('points', '--json', input));
    const safe = points.filter((p) => p.unanswered === 0);
    const mid = safe[Math.floor(safe.length / 2)];
    assert.ok(mid, 'a safe point');
    const id = '7e1f0c52-4c39-4d4c-9a1d-5a5f0f5c9e01';
    const out = path.join(tmp, `fork-${runs++}`, `${id}.jsonl`);
    fs.mkdirSync(path.dirname(out));
    retrace('-q', 'fork', input, '--at', mid.label, '--id', id, '-o', out);
    const lines = readLines(out);
    assert.ok(lines.every((l) => l.sessionId === undefined || l.sessionId === id), 'every line names the new session');
    assert.equal(lines.at(-1).uuid, mid.id, 'the fork ends at the point');
    // Claude Code's own history up to the point, and the fork up to its
    // last line (the same flag both times: it also leaves out the
    // "Continue from where you left off." Claude Code adds to a history
    // that ends on a user message).
    const [source, forked] = await Promise.all([
      resume(input, { at: mid.id }),
      resume(out, { sessionId: id, at: lines.at(-1).uuid }),
    ]);
    assert.equal(forked.result.session_id, id);
    assert.deepEqual(turns(forked.messages), turns(source.messages));
    assert.deepEqual(forked.messages, source.messages);
    assertPaired(forked.messages, `fork of ${name}`);
    const full = await resumeWhole(input);
    assert.ok(forked.messages.length < full.messages.length, 'the fork is shorter');
  });
}

/** The index of the first line that ends a message with calls answered
 * later (one call, or several with `parallel`); -1 when there is none. */
function lineAfterCalls(lines, { parallel = false } = {}) {
  return lines.findIndex((l, k) => {
    if (l.type !== 'assistant' || !l.message?.content?.some?.((b) => b.type === 'tool_use')) return false;
    // A response may span lines, one per block: the message ends at its last.
    if (lines[k + 1]?.message?.id === l.message.id) return false;
    const calls = callsOf(lines, l.message.id);
    return parallel ? calls.length > 1 : calls.length === 1;
  });
}

/** The tool calls of the response `id` (over all its lines). */
const callsOf = (lines, id) =>
  lines.filter((l) => l.message?.id === id).flatMap((l) => l.message.content.filter((b) => b.type === 'tool_use').map((b) => b.id));

/** The lines up to the one that answers the last of `calls`. */
function throughResults(lines, from, calls) {
  const open = new Set(calls);
  let end = from;
  while (end < lines.length && open.size) {
    for (const b of lines[end].message?.content ?? []) if (b.type === 'tool_result') open.delete(b.tool_use_id);
    end++;
  }
  assert.equal(open.size, 0, 'the file answers every call');
  return lines.slice(0, end);
}

const sentCalls = (messages) => messages.flatMap((m) => blocks(m).filter((b) => b.type === 'tool_use').map((b) => b.id));

/** `messages` with the results of `calls` reduced to their ids and sorted
 * (the rest compared as sent). */
const resultsAsIds = (messages, calls) =>
  messages.map((m) => {
    const bs = blocks(m).map((b) => (b.type === 'tool_result' && calls.includes(b.tool_use_id) ? { type: 'tool_result', tool_use_id: b.tool_use_id } : b));
    const n = bs.filter((b) => b.type === 'tool_result').length;
    return { ...m, content: [...bs.slice(0, n).sort((a, b) => (a.tool_use_id < b.tool_use_id ? -1 : 1)), ...bs.slice(n)] };
  });

/** Each of `calls` in `messages`, answered right after by retrace's
 * sealing error. */
function assertSealed(messages, calls, what) {
  assertPaired(messages, what);
  const at = messages.findIndex((m) => m.role === 'assistant' && blocks(m).some((b) => b.type === 'tool_use' && calls.includes(b.id)));
  assert.ok(at >= 0, `${what}: the calls are sent\n${turns(messages).join('\n')}`);
  const results = blocks(messages[at + 1]).filter((b) => b.type === 'tool_result' && calls.includes(b.tool_use_id));
  assert.deepEqual(results.map((b) => b.tool_use_id).sort(), [...calls].sort());
  for (const b of results) {
    assert.equal(b.is_error, true, `${what}: ${b.tool_use_id} is an error`);
    assert.match(resultText(b.content), /sealed by retrace/);
  }
}

test('seal a file cut right after parallel tool calls: Claude Code sends each call with retrace\'s error result', { skip: noCorpus }, async () => {
  const input = sessions[0];
  const sid = path.basename(input, '.jsonl');
  const lines = readLines(input);
  const cut = lineAfterCalls(lines, { parallel: true });
  assert.ok(cut > 0, 'a response with parallel calls');
  const calls = callsOf(lines, lines[cut].message.id);
  const open = writeLines(path.join(tmp, `cut-${runs++}`, `${sid}.jsonl`), lines.slice(0, cut + 1));
  const sealed = path.join(tmp, `sealed-${runs++}`, `${sid}.jsonl`);
  fs.mkdirSync(path.dirname(sealed));
  const report = JSON.parse(retrace('seal', open, '--json', '-o', sealed));
  assert.equal(report.sealed, calls.length);
  // Each sealing line names the line of its own call, as every result
  // Claude Code writes does (it makes that the parent when it writes the
  // message again, as its own --fork-session does).
  const lineOfCall = new Map(lines.flatMap((l) => (l.message?.content ?? []).filter?.((b) => b.type === 'tool_use').map((b) => [b.id, l.uuid]) ?? []));
  for (const l of readLines(sealed).slice(cut + 1)) {
    const [result] = l.message.content;
    assert.equal(l.sourceToolAssistantUUID, lineOfCall.get(result.tool_use_id), `the sealing line of ${result.tool_use_id}`);
  }
  // The same file with the calls' real results: what the sealed one must
  // be to Claude Code but for the results' content.
  const answered = writeLines(path.join(tmp, `answered-${runs++}`, `${sid}.jsonl`), throughResults(lines, cut + 1, calls));

  const [asCut, asSealed, asAnswered] = await Promise.all([resume(open), resume(sealed), resume(answered)]);
  // Claude Code itself drops a response whose calls have no result: the
  // calls vanish from what its model sees.
  for (const id of calls) assert.ok(!sentCalls(asCut.messages).includes(id), `unsealed, Claude Code drops call ${id}`);
  assertSealed(asSealed.messages, calls, 'sealed');
  assert.deepEqual(turns(resultsAsIds(asSealed.messages, calls)), turns(resultsAsIds(asAnswered.messages, calls)));
  assert.deepEqual(resultsAsIds(asSealed.messages, calls), resultsAsIds(asAnswered.messages, calls));
});

test('seal each corpus file cut right after a single tool call', { skip: noCorpus }, async () => {
  await Promise.all(
    sessions.map(async (input) => {
      const sid = path.basename(input, '.jsonl');
      const lines = readLines(input);
      const cut = lineAfterCalls(lines);
      assert.ok(cut > 0, `${sid}: a response with one call`);
      const calls = callsOf(lines, lines[cut].message.id);
      const open = writeLines(path.join(tmp, `cut-${runs++}`, `${sid}.jsonl`), lines.slice(0, cut + 1));
      const sealed = path.join(tmp, `sealed-${runs++}`, `${sid}.jsonl`);
      fs.mkdirSync(path.dirname(sealed));
      retrace('-q', 'seal', open, '-o', sealed);
      // The sealing line takes the call's line as its parent, and carries
      // the fields Claude Code's own lines do.
      const last = readLines(sealed).at(-1);
      assert.equal(last.parentUuid, lines[cut].uuid);
      assert.equal(last.sourceToolAssistantUUID, lines[cut].uuid);
      assert.equal(last.sessionId, sid);
      assert.equal(last.type, 'user');
      assertSealed((await resume(sealed)).messages, calls, `sealed ${sid}`);
    }),
  );
});

test('repair planted damage: Claude Code sends what it sends for the undamaged file', { skip: noCorpus }, async () => {
  const input = sessions[0];
  const sid = path.basename(input, '.jsonl');
  const text = fs.readFileSync(input, 'utf8').split('\n').filter(Boolean);
  // A line torn in the middle, a stray line, and the last line cut off as
  // by a crash mid-write.
  const damaged = [...text.slice(0, 5), text[5].slice(0, 40), text[5], 'garbage that is not JSON', ...text.slice(6), text.at(-1).slice(0, 30)];
  const broken = writeLines(path.join(tmp, `damaged-${runs++}.jsonl`), damaged);
  const repaired = path.join(tmp, `repaired-${runs++}`, `${sid}.jsonl`);
  fs.mkdirSync(path.dirname(repaired));
  retrace('-q', 'repair', broken, '-o', repaired);
  assert.ok(fs.existsSync(`${repaired}.rejected`), 'what was left out is kept beside it');
  const [asRepaired, asOriginal] = await Promise.all([resume(repaired), resumeWhole(input)]);
  assert.deepEqual(turns(asRepaired.messages), turns(asOriginal.messages));
  assert.deepEqual(asRepaired.messages, asOriginal.messages);
});

test('repair a crash right after a tool call: sealed, and Claude Code sends the call with its result', { skip: noCorpus }, async () => {
  const input = sessions[0];
  const sid = path.basename(input, '.jsonl');
  const lines = readLines(input);
  const cut = lineAfterCalls(lines);
  const calls = callsOf(lines, lines[cut].message.id);
  // The call's line, then half of the next (the crash).
  const text = lines.slice(0, cut + 2).map((l) => JSON.stringify(l));
  text[text.length - 1] = text.at(-1).slice(0, 50);
  const crashed = writeLines(path.join(tmp, `crashed-${runs++}.jsonl`), text);
  const repaired = path.join(tmp, `crash-repaired-${runs++}`, `${sid}.jsonl`);
  fs.mkdirSync(path.dirname(repaired));
  retrace('-q', 'repair', crashed, '-o', repaired);
  assertSealed((await resume(repaired)).messages, calls, 'crash-repaired');
});

test('compact: Claude Code resumes from the summary', { skip: noCorpus }, async () => {
  const input = sessions[0];
  const sid = path.basename(input, '.jsonl');
  const summaryFile = path.join(tmp, 'summary.txt');
  const summary = 'The user asked for a CLAUDE.md; the earlier turns are summarized here.';
  fs.writeFileSync(summaryFile, summary);
  const out = path.join(tmp, `compact-${runs++}`, `${sid}.jsonl`);
  fs.mkdirSync(path.dirname(out));
  retrace('-q', 'compact', input, '--keep', '4', '--summary-file', summaryFile, '-o', out);
  const [compacted, full] = await Promise.all([resume(out), resumeWhole(input)]);
  assertPaired(compacted.messages, 'compacted');
  assert.ok(JSON.stringify(compacted.messages[0]).includes(summary), 'the history opens with the summary');
  assert.ok(compacted.messages.length < full.messages.length, 'the history is shorter');
  // What is kept is the end of the whole history.
  const kept = history(compacted.messages, { prompt: true }).slice(1);
  assert.deepEqual(kept, history(full.messages, { prompt: true }).slice(-kept.length));
});
