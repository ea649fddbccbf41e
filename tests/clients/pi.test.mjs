// pi's own loader opens what `retrace fork`, `seal`, `compact`, `repair`
// and `snapshot` write, and shows the expected turns.
//
// The loader is the real one: `@mariozechner/pi-coding-agent` (pi before
// it became `@earendil-works/pi-coding-agent`, whose 1.x needs Node 22),
// from this folder's lockfile, run offline. Each file is read twice: with
// the library (`SessionManager.open(file).buildSessionContext()`, the
// messages pi would send its model, then `convertToLlm`) and with the CLI
// (`pi --export FILE OUT.html`, whose embedded session data is what pi
// parsed). Inputs: a v3 session written here, and pi files of the shared
// corpus (`../shared/corpus/pi`) when it is there.
//
// RETRACE_BIN names the retrace binary (as for tests/e2e).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { corpus as sharedCorpus, filesUnder, here, retrace, scratch, writeLines } from './common.mjs';

const corpus = path.join(sharedCorpus, 'pi');
const piCli = path.join(here, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js');
const tmp = scratch('pi');
const home = path.join(tmp, 'home');
fs.mkdirSync(home);
// pi keeps its settings under HOME: a scratch one, for the library too.
process.env.HOME = home;
process.env.PI_OFFLINE = '1';
const { SessionManager, buildSessionContext, convertToLlm } = await import('@mariozechner/pi-coding-agent');

let serial = 0;
/** A fresh copy (pi rewrites a file it migrates; never touch the input). */
function copy(file) {
  const out = path.join(tmp, `in-${serial++}-${path.basename(file)}`);
  fs.copyFileSync(file, out);
  return out;
}

/** What pi's library makes of a file: its entries and model context. */
function piLoad(file) {
  const sm = SessionManager.open(copy(file), path.join(tmp, 'sessions'));
  const ctx = sm.buildSessionContext();
  return { sm, entries: sm.getEntries(), messages: ctx.messages, llm: convertToLlm(ctx.messages) };
}

/** What pi's CLI parsed, from `--export`'s embedded session data. */
function piExport(file) {
  const html = path.join(tmp, `export-${serial++}.html`);
  execFileSync(process.execPath, [piCli, '--export', copy(file), html], {
    env: { ...process.env, HOME: home, PI_OFFLINE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const page = fs.readFileSync(html, 'utf8');
  const m = page.match(/<script id="session-data" type="application\/json">([^<]*)<\/script>/);
  assert.ok(m, 'the export has its session data');
  const raw = m[1].trim();
  return JSON.parse(raw.startsWith('{') ? raw : Buffer.from(raw, 'base64').toString('utf8'));
}

/** Every tool call answered right after its assistant message, and every
 * result answering a call: what a provider demands of the context. */
function assertNoOrphans(llm, what) {
  for (let i = 0; i < llm.length; i++) {
    const m = llm[i];
    if (m.role === 'assistant') {
      const calls = (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'toolCall');
      const results = [];
      for (let j = i + 1; j < llm.length && llm[j].role === 'toolResult'; j++) results.push(llm[j].toolCallId);
      for (const c of calls) assert.ok(results.includes(c.id), `${what}: tool call ${c.id} (message ${i}) has no result after it`);
    } else if (m.role === 'toolResult') {
      let j = i - 1;
      while (j >= 0 && llm[j].role === 'toolResult') j--;
      const calls = j >= 0 && llm[j].role === 'assistant' ? llm[j].content.filter((b) => b.type === 'toolCall').map((c) => c.id) : [];
      assert.ok(calls.includes(m.toolCallId), `${what}: result ${m.toolCallId} (message ${i}) answers no call before it`);
    }
  }
}

/** Roles and text, to say which turns differ when a comparison fails. */
const turns = (messages) =>
  messages.map((m) => {
    const c = Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? m.summary ?? '') }];
    const text = c.map((b) => (b.type === 'toolCall' ? `call ${b.id}` : b.text ?? b.type)).join(' | ');
    return `${m.role}: ${text.slice(0, 60)}`;
  });

// A v3 session as pi 0.7x writes it: two tool rounds and a plain turn.
const T0 = Date.parse('2026-03-01T10:00:00Z');
function synthetic() {
  const lines = [
    { type: 'session', version: 3, id: '0b9d2c52-4c39-4d4c-9a1d-5a5f0f5c9e01', timestamp: new Date(T0).toISOString(), cwd: '/work/demo' },
  ];
  let parent = null;
  let n = 0;
  const add = (entry) => {
    const id = (0x1a2b3c00 + n).toString(16);
    const t = T0 + ++n * 1000;
    lines.push({ ...entry, id, parentId: parent, timestamp: new Date(t).toISOString() });
    parent = id;
    return t;
  };
  const msg = (message) => add({ type: 'message', message: { ...message, timestamp: T0 + (n + 1) * 1000 } });
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const asst = (content, stopReason) =>
    msg({ role: 'assistant', content, api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason });
  add({ type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  add({ type: 'thinking_level_change', thinkingLevel: 'off' });
  msg({ role: 'user', content: [{ type: 'text', text: 'What is in README.md?' }] });
  asst([{ type: 'text', text: 'Reading it.' }, { type: 'toolCall', id: 'toolu_read1', name: 'read', arguments: { path: 'README.md' } }], 'toolUse');
  msg({ role: 'toolResult', toolCallId: 'toolu_read1', toolName: 'read', content: [{ type: 'text', text: '# demo\nA demo project.' }], isError: false });
  asst([{ type: 'text', text: 'It describes a demo project.' }], 'stop');
  msg({ role: 'user', content: [{ type: 'text', text: 'Run the tests.' }] });
  asst([{ type: 'toolCall', id: 'toolu_bash1', name: 'bash', arguments: { command: 'make test' } }], 'toolUse');
  msg({ role: 'toolResult', toolCallId: 'toolu_bash1', toolName: 'bash', content: [{ type: 'text', text: 'ok: 12 passed' }], isError: false });
  asst([{ type: 'text', text: 'All 12 tests pass.' }], 'stop');
  msg({ role: 'user', content: [{ type: 'text', text: 'List the files.' }] });
  asst([{ type: 'toolCall', id: 'toolu_ls1', name: 'ls', arguments: { path: '.' } }], 'toolUse');
  msg({ role: 'toolResult', toolCallId: 'toolu_ls1', toolName: 'ls', content: [{ type: 'text', text: 'Makefile\nREADME.md\nsrc/' }], isError: false });
  asst([{ type: 'text', text: 'A Makefile, the README and src/.' }], 'stop');
  msg({ role: 'user', content: [{ type: 'text', text: 'Thanks.' }] });
  asst([{ type: 'text', text: 'You are welcome.' }], 'stop');
  return lines;
}
const write = (name, lines) => writeLines(path.join(tmp, name), lines);

const demo = write('demo.jsonl', synthetic());
const corpusFiles = filesUnder(corpus, '.jsonl');
/** The inputs with tool calls: the demo and corpus files whose pi context has some. */
const withTools = [demo, ...corpusFiles].filter((f) => piLoad(f).llm.some((m) => m.role === 'toolResult'));

test('pi loads the inputs as they are', () => {
  const { messages, llm } = piLoad(demo);
  assert.equal(messages.length, 14);
  assertNoOrphans(llm, 'demo');
  assert.ok(withTools.length >= 1);
});

for (const input of withTools) {
  const name = input === demo ? 'the demo session' : path.relative(path.dirname(corpus), input);
  test(`fork at a middle safe point: pi shows the prefix (${name})`, () => {
    const orig = piLoad(input);
    const { points } = JSON.parse(retrace('points', '--json', input));
    // Past the first turn and before the last: a real middle.
    const safe = points.filter((p) => p.unanswered === 0);
    const mid = safe[Math.floor(safe.length / 2)];
    assert.ok(mid, 'a safe point');
    const out = path.join(tmp, `fork-${serial++}.jsonl`);
    retrace('fork', input, '--at', mid.label, '-o', out);
    const forked = piLoad(out);
    // What pi shows of the source with its leaf moved to the point: the
    // same entry by id, or (v1, whose ids pi makes up when it loads) by
    // place, the fork being the source's branch line for line.
    const end = forked.entries.at(-1);
    const leaf = orig.entries.find((e) => e.id === end.id) ?? orig.entries[forked.entries.length - 1];
    assert.equal(leaf.type, end.type);
    const expected = buildSessionContext(orig.entries, leaf.id).messages;
    assert.ok(forked.entries.length < orig.entries.length, 'the fork is shorter');
    assert.ok(forked.messages.length > 0);
    assert.deepEqual(turns(forked.messages), turns(expected));
    assert.deepEqual(forked.messages, expected);
    const last = forked.messages.at(-1);
    assert.equal(last.role, mid.kind === 'tool_result' ? 'toolResult' : mid.kind);
    // pi reads `parentSession`; retrace writes v1's `branchedFrom` to a v1
    // file, which pi (it migrates v1 on load) ignores.
    const header = forked.sm.getHeader();
    assert.ok(header.parentSession ?? header.branchedFrom, 'the fork names its parent');
    assertNoOrphans(forked.llm, 'fork');
  });

  test(`compact --keep 4: pi shows the summary and the kept tail (${name})`, () => {
    const orig = piLoad(input);
    const summaryFile = path.join(tmp, `summary-${serial++}.txt`);
    const summary = 'The user asked about the project; the earlier turns are summarized here.';
    fs.writeFileSync(summaryFile, summary);
    const out = path.join(tmp, `compact-${serial++}.jsonl`);
    const v1 = !(JSON.parse(fs.readFileSync(input, 'utf8').split('\n')[0]).version >= 2);
    if (v1) {
      // Entries without ids have nothing for `firstKeptEntryId` to name.
      assert.throws(() => retrace('compact', input, '--keep', '4', '--summary-file', summaryFile, '-o', out), /v1.*cannot be compacted/s);
      return;
    }
    retrace('compact', input, '--keep', '4', '--summary-file', summaryFile, '-o', out);
    const compacted = piLoad(out);
    const [head, ...tail] = compacted.messages;
    assert.equal(head.role, 'compactionSummary');
    assert.equal(head.summary, summary);
    assert.ok(tail.length >= 1 && tail.length <= 4, turns(tail).join('\n'));
    assert.deepEqual(tail, orig.messages.slice(orig.messages.length - tail.length));
    assert.notEqual(tail[0].role, 'toolResult', 'the kept tail starts at a turn, not a result');
    assertNoOrphans(compacted.llm, 'compact');
  });
}

test('seal a file cut right after a tool call: pi shows the error result after it', () => {
  const lines = synthetic();
  const cut = lines.findIndex((l) => l.message?.content?.some?.((b) => b.id === 'toolu_bash1'));
  const input = write('cut.jsonl', lines.slice(0, cut + 1));
  const before = piLoad(input);
  const out = path.join(tmp, 'sealed.jsonl');
  retrace('seal', input, '-o', out);
  const sealed = piLoad(out);
  assert.equal(sealed.messages.length, before.messages.length + 1);
  assert.deepEqual(sealed.messages.slice(0, -1), before.messages);
  const result = sealed.messages.at(-1);
  assert.equal(result.role, 'toolResult');
  assert.equal(result.toolCallId, 'toolu_bash1');
  assert.equal(result.toolName, 'bash');
  assert.equal(result.isError, true);
  assertNoOrphans(sealed.llm, 'sealed');
  // The shape pi's own entries have.
  const entry = sealed.entries.at(-1);
  assert.equal(entry.parentId, lines[cut].id);
  assert.match(entry.id, /^[0-9a-f]{8}$/, 'an id as pi makes them');
  const data = piExport(out);
  assert.equal(data.entries.at(-1).message.toolCallId, 'toolu_bash1');
});

const branching = path.join(corpus, 'twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl');
test('seal the corpus branch left on a tool call', { skip: !fs.existsSync(branching) && 'no shared corpus' }, () => {
  const before = piLoad(branching);
  assert.throws(() => assertNoOrphans(before.llm, 'branching'), /no result/);
  const out = path.join(tmp, 'branching-sealed.jsonl');
  retrace('seal', branching, '-o', out);
  const sealed = piLoad(out);
  assertNoOrphans(sealed.llm, 'sealed branching');
  const i = sealed.messages.findIndex((m) => m.role === 'toolResult' && m.toolCallId === 'call-2');
  assert.ok(i > 0 && sealed.messages[i - 1].content.some((b) => b.id === 'call-2'));
  assert.equal(sealed.messages[i].isError, true);
});

test('repair planted damage: pi shows the same turns as the undamaged file', () => {
  const lines = synthetic();
  const good = write('good.jsonl', lines);
  const text = lines.map((l) => JSON.stringify(l));
  // A line torn in the middle, a stray line, and the last line cut off
  // as by a crash mid-write.
  const damaged = [
    ...text.slice(0, 5),
    text[5].slice(0, 40),
    text[5],
    'garbage that is not JSON',
    ...text.slice(6, -1),
    text.at(-1),
    text.at(-1).slice(0, 30),
  ];
  const input = write('damaged.jsonl', damaged);
  const out = path.join(tmp, 'repaired.jsonl');
  retrace('repair', input, '-o', out);
  for (const l of fs.readFileSync(out, 'utf8').split('\n').filter(Boolean)) JSON.parse(l);
  assert.ok(fs.existsSync(`${out}.rejected`), 'what was left out is kept beside it');
  const repaired = piLoad(out);
  const orig = piLoad(good);
  assert.deepEqual(turns(repaired.messages), turns(orig.messages));
  assert.deepEqual(repaired.messages, orig.messages);
  assertNoOrphans(repaired.llm, 'repaired');
  assert.equal(piExport(out).entries.length, lines.length - 1);
});

test('repair a crash right after a tool call: sealed, and pi has no orphan', () => {
  const lines = synthetic();
  const cut = lines.findIndex((l) => l.message?.content?.some?.((b) => b.id === 'toolu_ls1'));
  const text = lines.slice(0, cut + 2).map((l) => JSON.stringify(l));
  text[text.length - 1] = text.at(-1).slice(0, 50);
  const input = write('crashed.jsonl', text);
  const out = path.join(tmp, 'crash-repaired.jsonl');
  retrace('repair', input, '-o', out);
  const repaired = piLoad(out);
  assertNoOrphans(repaired.llm, 'crash-repaired');
  const result = repaired.messages.at(-1);
  assert.equal(result.role, 'toolResult');
  assert.equal(result.toolCallId, 'toolu_ls1');
  assert.equal(result.isError, true);
  assert.match(repaired.entries.at(-1).id, /^[0-9a-f]{8}$/, 'an id as pi makes them');
});

test('snapshot: pi reads the label and the same turns', () => {
  const orig = piLoad(demo);
  const target = orig.entries.find((e) => e.type === 'message' && e.message.role === 'user' && JSON.stringify(e.message.content).includes('Run the tests'));
  const out = path.join(tmp, 'snapshot.jsonl');
  retrace('snapshot', demo, 'before-tests', '--at', target.id, '-o', out);
  const snap = piLoad(out);
  assert.equal(snap.sm.getLabel(target.id), 'before-tests');
  assert.deepEqual(snap.messages, orig.messages);
  const data = piExport(out);
  const label = data.entries.find((e) => e.type === 'label');
  assert.equal(label.targetId, target.id);
  assert.equal(label.label, 'before-tests');
});

test('labels: pi and `retrace snapshot --list` name the same entries', () => {
  // Labels as pi appends them, several to a target: the last one wins, an
  // empty or absent label clears it.
  const orig = piLoad(demo);
  const ids = orig.entries.filter((e) => e.type === 'message').map((e) => e.id);
  let parent = orig.entries.at(-1).id;
  const lines = [];
  const label = (n, target, name) => {
    const entry = { type: 'label', id: `1abe1${String(n).padStart(3, '0')}`, parentId: parent,
      timestamp: `2026-01-02T00:00:0${n}.000Z`, targetId: target };
    if (name !== undefined) entry.label = name;
    parent = entry.id;
    lines.push(JSON.stringify(entry));
  };
  label(1, ids[0], 'first');
  label(2, ids[1], 'second');
  label(3, ids[0], 'renamed');
  label(4, ids[1], '');
  label(5, ids[2], 'quoted "name" é');
  label(6, ids[3], 'gone soon');
  label(7, ids[3]);
  const out = path.join(tmp, 'labels.jsonl');
  fs.writeFileSync(out, fs.readFileSync(demo, 'utf8') + lines.join('\n') + '\n');
  const pi = piLoad(out);
  const byPi = ids.map((id) => [id, pi.sm.getLabel(id)]).filter(([, name]) => name !== undefined);
  const listed = JSON.parse(retrace('snapshot', out, '--list', '--json')).bookmarks;
  assert.deepEqual(listed.map((b) => [b.at, b.name]), byPi);
  assert.deepEqual(byPi, [[ids[0], 'renamed'], [ids[2], 'quoted "name" é']]);
});

test('fork of the demo through pi --export: the prefix, with its parent', () => {
  const out = path.join(tmp, 'demo-fork.jsonl');
  retrace('fork', demo, '--at', 'sfp:3', '-o', out);
  const data = piExport(out);
  assert.ok(data.header.parentSession);
  const roles = data.entries.filter((e) => e.type === 'message').map((e) => e.message.role);
  const full = piLoad(demo).messages.map((m) => m.role);
  assert.deepEqual(roles, full.slice(0, roles.length));
  assert.ok(roles.length < full.length);
});
