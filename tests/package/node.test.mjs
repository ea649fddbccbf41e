// The built npm package (dist-package/, `cargo xtask package`) as a Node
// user installs and imports it: linked as node_modules/retrace-wasm, so
// the `node` export condition picks its entry. npm pack takes the folder;
// each method of the parsing API, given bytes, answers as the `retrace`
// CLI does on the same file (info, tree, show, search, redact, migrate);
// the declarations type-check a typed example with tsc.
//
// Environment (`cargo xtask test` sets each): RETRACE_PACKAGE, the built
// package; RETRACE_CORPUS, the shared corpus; RETRACE_BIN, the CLI.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const pkg = path.resolve(process.env.RETRACE_PACKAGE || path.join(root, 'dist-package'));
const corpus = path.resolve(process.env.RETRACE_CORPUS || path.resolve(root, '../shared/corpus'));
const retraceBin = process.env.RETRACE_BIN
  || path.join(path.resolve(root, process.env.CARGO_TARGET_DIR || 'target'), 'debug/retrace');

assert.ok(fs.existsSync(path.join(pkg, 'package.json')),
  `${pkg} holds no package: run \`cargo xtask package\` (or set RETRACE_PACKAGE)`);
assert.ok(fs.existsSync(retraceBin), `${retraceBin} is not built (or set RETRACE_BIN)`);

// Installed as a project would have it.
const link = path.join(here, 'node_modules/retrace-wasm');
fs.mkdirSync(path.dirname(link), { recursive: true });
fs.rmSync(link, { recursive: true, force: true });
fs.symlinkSync(pkg, link, 'dir');
const api = await import('retrace-wasm');
const { Engine } = api;

/** A pi session with a rewind: e2 has two children, e3 (on to a
 * compaction) and e7. */
const BRANCHING = 'pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl';
/** A pi session of 1478 entries: tool calls, images, thinking. */
const PI = 'pi/badlogic__pi-mono/compact.jsonl';
/** A Claude Code session with sensitive data. */
const SENSITIVE = 'claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl';
/** A Codex rollout. */
const CODEX = 'codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl';

const full = (p) => (path.isAbsolute(p) ? p : path.join(corpus, p));
/** A file as the API takes bytes: its name and a Buffer. */
const bytesOf = (p) => ({ name: path.basename(p), bytes: fs.readFileSync(full(p)) });
/** The CLI's standard output. */
const cli = (...args) => execFileSync(retraceBin, args, { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
const jsonLines = (text) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** A new engine with `p` open: `[engine, summary]`. */
async function opened(p) {
  const engine = new Engine();
  const summary = await engine.open([bytesOf(p)]);
  return [engine, summary];
}

/** The label of each entry the tree has. */
const labels = (tree) => new Map(tree.nodes.entry.map((e, i) => [e, tree.nodes.label[i]]));

test('npm pack takes the folder, and package.json says what it holds', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline'],
    { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8'));
  const version = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8').match(/\nversion = "([^"]+)"/)[1];
  assert.equal(packed.name, 'retrace-wasm');
  assert.equal(packed.version, version);
  // Everything the folder holds is packed (a folder added to it, too).
  const files = packed.files.map((f) => f.path).sort();
  const held = fs.readdirSync(pkg, { recursive: true }).filter((f) => fs.statSync(path.join(pkg, f)).isFile());
  assert.deepEqual(files, held.map((f) => f.split(path.sep).join('/')).sort());
  for (const file of ['README.md', 'client.js', 'index.d.ts', 'index.js', 'node.d.ts', 'node.js',
    'package.json', 'protocol.d.ts', 'retrace_wasm.js', 'retrace_wasm_bg.wasm', 'worker.js']) {
    assert.ok(files.includes(file), file);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  assert.equal(manifest.type, 'module');
  // Node's condition first: a bundler for the browser never sets it.
  const main = manifest.exports['.'];
  assert.deepEqual(Object.keys(main), ['node', 'default']);
  assert.deepEqual(main.node, { types: './node.d.ts', default: './node.js' });
  assert.deepEqual(main.default, { types: './index.d.ts', default: './index.js' });
  // The player, its own folder over its own build.
  assert.deepEqual(manifest.exports['./player'], { types: './player/player.d.ts', default: './player/player.js' });
  for (const target of JSON.stringify(manifest.exports).match(/"\.\/[^"]+"/g)) {
    const file = JSON.parse(target);
    if (file === './package.json' || file.endsWith('/')) continue;
    // A pattern (`./player/*`) names a folder the package holds.
    const at = file.includes('*') ? path.dirname(file) : file;
    assert.ok(fs.existsSync(path.join(pkg, at)), file);
  }
});

test('the node entry answers on import, with no browser global', async () => {
  assert.equal(typeof globalThis.Worker, 'undefined');
  assert.equal(typeof globalThis.FileReaderSync, 'undefined');
  assert.deepEqual(Object.keys(api).sort(), ['Engine', 'default', 'init']);
  await api.init();
  const engine = new Engine();
  assert.throws(() => engine.stats(), { name: 'RetraceError', code: 'no-session' });
  engine.close();
});

test('open: the summary has the figures of `retrace info --json`', async () => {
  for (const p of [BRANCHING, PI, SENSITIVE, CODEX]) {
    const [engine, { figures }] = await opened(p);
    const info = JSON.parse(cli('info', '--json', full(p)));
    for (const key of ['format', 'files', 'entries', 'leaves', 'branch_points', 'structural_branch_points', 'subagents']) {
      assert.equal(figures[key], info[key], `${p}: ${key}`);
    }
    assert.equal(new Date(figures.start).toISOString(), info.first_timestamp, p);
    assert.equal(new Date(figures.end).toISOString(), info.last_timestamp, p);
    // And the deep check's.
    const { stats } = engine.stats();
    for (const key of ['messages', 'markers', 'tool_calls', 'tool_results', 'tool_errors', 'results_without_call', 'calls_without_result']) {
      assert.equal(stats[key], info[key], `${p}: ${key}`);
    }
    assert.deepEqual(Object.fromEntries(stats.models), info.models ?? {}, p);
    engine.close();
  }
});

test('tree: the nodes, parents, leaves and branch points of `retrace tree --json`', async () => {
  for (const p of [BRANCHING, SENSITIVE, CODEX]) {
    const [engine] = await opened(p);
    const tree = engine.tree();
    const label = labels(tree);
    const want = JSON.parse(cli('tree', '--json', full(p)));
    const nodes = tree.nodes.entry.map((e, i) => {
      const role = tree.nodes.roles[tree.nodes.role_of[i]];
      return {
        id: tree.nodes.label[i],
        line: tree.nodes.line[i],
        type: tree.nodes.types[tree.nodes.type_of[i]],
        ...(role ? { role } : {}),
        parent: tree.nodes.parent[i] === null ? null : label.get(tree.nodes.parent[i]),
      };
    });
    assert.deepEqual(nodes, want.nodes.map(({ id, line, type, role, parent }) => ({ id, line, type, ...(role ? { role } : {}), parent })), p);
    assert.deepEqual(tree.roots.map((e) => label.get(e)), want.roots, p);
    assert.deepEqual(tree.tips.map((e) => label.get(e)), want.leaves, p);
    assert.equal(label.get(tree.default_leaf), want.default_leaf, p);
    const points = want.nodes.filter((n) => n.branch).map((n) => [n.id, n.branch, n.children]);
    assert.deepEqual(tree.branch_points.map((b) => [label.get(b.entry), b.kind, b.children]), points, p);
    engine.close();
  }
  // The rewind, as the file has it.
  const [engine] = await opened(BRANCHING);
  const tree = engine.tree();
  assert.deepEqual(tree.branch_points, [{ entry: 2, kind: 'real', children: 2 }]);
  assert.deepEqual(tree.leaves, [6, 8]);
  assert.equal(tree.nodes.parent[tree.nodes.label.indexOf('e7')], 2);
  engine.close();
});

test('context: the messages of `retrace show --json`, hidden and shown', async () => {
  for (const p of [BRANCHING, SENSITIVE, CODEX]) {
    const [engine, summary] = await opened(p);
    const label = labels(engine.tree());
    for (const leaf of summary.tips) {
      const at = label.get(leaf);
      const hidden = engine.context(leaf);
      assert.equal(hidden.leaf, leaf);
      assert.deepEqual(hidden.messages, jsonLines(cli('show', '--json', '--leaf', at, full(p))), `${p} ${at}`);
      engine.hideSensitive(false);
      const shown = engine.context(leaf);
      assert.deepEqual(shown.messages, jsonLines(cli('show', '--json', '--show-sensitive', '--leaf', at, full(p))), `${p} ${at}`);
      engine.hideSensitive(true);
    }
    engine.close();
  }
  // The branch through the compaction: its summary, then what it kept.
  const [engine] = await opened(BRANCHING);
  const { messages } = engine.context(6);
  assert.deepEqual(messages.map((m) => [m.entries, m.kind ?? 'normal']),
    [[['e5'], 'compaction_summary'], [['e3'], 'normal'], [['e4'], 'normal'], [['e6'], 'normal']]);
  assert.throws(() => engine.context(0), { code: 'not-found' });
  engine.close();
});

test('search: the hits of `retrace search --json`, hidden and shown', async () => {
  const [engine] = await opened(SENSITIVE);
  const label = labels(engine.tree());
  const hits = (found) => found.hits.map((h) => ({ label: h.label, line: h.line, role: h.role, snippet: h.snippet, leaf: label.get(h.leaf) }));
  const want = (...args) => jsonLines(cli('search', '--json', ...args, full(SENSITIVE), 'claude'))
    .map(({ label, line, role, snippet, leaf }) => ({ label, line, role, snippet, leaf }));
  const hidden = engine.search('claude');
  assert.ok(hidden.hits.length > 5, `${hidden.hits.length} hits`);
  assert.deepEqual(hits(hidden), want('--redact'));
  engine.hideSensitive(false);
  assert.deepEqual(hits(engine.search('claude')), want());
  assert.equal(engine.search('no such text anywhere').hits.length, 0);
  engine.close();
});

test('redact: a planted secret and address are out, the bytes `retrace redact` writes', async () => {
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYz3Kq8vT1sP';
  const address = 'ops.lead@acme-robotics.io';
  const line = JSON.stringify({
    type: 'message', id: 'e9', parentId: 'e8', timestamp: '2026-01-01T00:00:09.000Z',
    message: { role: 'user', content: `deploy with AWS_SECRET_ACCESS_KEY=${secret} and mail ${address}`, timestamp: 9 },
  });
  const bytes = Buffer.concat([fs.readFileSync(full(BRANCHING)), Buffer.from(`${line}\n`)]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-package-')), 'planted.jsonl');
  fs.writeFileSync(file, bytes);
  const engine = new Engine();
  await engine.open([{ name: 'planted.jsonl', bytes: new Uint8Array(bytes) }]);
  for (const mode of ['typed', 'mask', 'pseudo']) {
    const made = await engine.download(0, mode);
    assert.equal(made.name, 'planted.redacted.jsonl');
    const text = await made.file.text();
    assert.ok(!text.includes(secret) && !text.includes(address), mode);
    assert.equal(text, cli('redact', '--mode', mode, file), mode);
  }
  const typed = await (await engine.download(0, 'typed')).file.text();
  assert.match(typed, /AWS_SECRET_ACCESS_KEY=\[REDACTED:aws-secret-access-key\] and mail \[REDACTED:email\]/);
  // What the review let through stays.
  const kept = await (await engine.download(0, 'typed', ['email'])).file.text();
  assert.ok(kept.includes(address) && !kept.includes(secret));
  // Read as shown, by default hidden too.
  assert.doesNotMatch(JSON.stringify(engine.context(9)), /wJalrXUtnFEMI|acme-robotics/);
  engine.close();
  fs.rmSync(path.dirname(file), { recursive: true });
});

test('migrate: each target the body and report of `retrace migrate`', async () => {
  const shape = {
    anthropic: (b) => b.messages.every((m) => ['user', 'assistant'].includes(m.role)),
    openai: (b) => b.messages.every((m) => ['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role)),
    'openai-responses': (b) => Array.isArray(b.input) && b.input.every((i) => typeof i.type === 'string' || i.role),
    google: (b) => b.contents.every((c) => ['user', 'model'].includes(c.role) && Array.isArray(c.parts)),
  };
  for (const p of [PI, CODEX]) {
    const [engine, summary] = await opened(p);
    engine.hideSensitive(false);
    const leaf = summary.default_leaf;
    for (const to of ['anthropic', 'openai', 'openai-responses', 'google']) {
      const got = engine.migrate(leaf, to);
      assert.equal(got.leaf, leaf);
      assert.equal(got.report.to, to);
      assert.deepEqual(got.body, JSON.parse(cli('migrate', full(p), '--to', to)), `${p} to ${to}`);
      assert.deepEqual(got.report, JSON.parse(cli('migrate', full(p), '--to', to, '--report', '--json')), `${p} to ${to}`);
      assert.ok(shape[to](got.body), `${p} to ${to}: ${JSON.stringify(got.body).slice(0, 200)}`);
    }
    engine.close();
  }
  // A call left without a result is answered for Anthropic, and said.
  const [engine] = await opened(BRANCHING);
  const { body, report } = engine.migrate(8, 'anthropic');
  assert.equal(body.messages.at(-1).content[0].type, 'tool_result');
  assert.ok(report.changes.some((c) => c.code === 'call-without-result'));
  assert.throws(() => engine.migrate(8, 'claude'), { code: 'bad-request', message: /no API `claude`/ });
  const system = new Engine();
  await system.open([{ name: 'system.json', bytes: Buffer.from('[{"role": "system", "content": "Be brief."}]') }]);
  assert.throws(() => system.migrate(system.tree().tips[0], 'openai'), { code: 'nothing-to-send' });
  system.close();
  engine.close();
});

test('what is no session is refused with its code', async () => {
  const engine = new Engine();
  const png = { name: 'x.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0, 0, 13]) };
  await assert.rejects(engine.open([png]), { name: 'RetraceError', code: 'not-a-session', message: 'x.png is a PNG image, not a session file' });
  await assert.rejects(engine.open([{ name: 'x.jsonl' }]), { code: 'bad-request' });
  engine.close();
});

/** The code of the README's first block in `lang` after `heading`. */
function readmeExample(heading, lang) {
  const readme = fs.readFileSync(path.join(pkg, 'README.md'), 'utf8');
  const from = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(from >= 0, `the README has no "${heading}"`);
  return readme.slice(from).split(`\n\`\`\`${lang}\n`)[1].split('\n```\n')[0];
}

test("the README's Node example runs", () => {
  const script = path.join(here, 'readme-example.tmp.mjs');
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-readme-'));
  fs.writeFileSync(script, readmeExample('In Node', 'js'));
  try {
    const printed = execFileSync(process.execPath, [script, full(SENSITIVE)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
    const info = JSON.parse(cli('info', '--json', full(SENSITIVE)));
    const lines = printed.split('\n');
    assert.equal(lines[0], `claude-code, ${info.entries} entries`);
    assert.equal(lines[1], `${info.leaves} leaves, ${info.branch_points} rewinds`);
    assert.match(printed, /\n\d+ items; \d+ /);
    // The copy it wrote is `retrace redact`'s.
    const copy = path.join(cwd, path.basename(SENSITIVE).replace(/\.jsonl$/, '.redacted.jsonl'));
    assert.equal(fs.readFileSync(copy, 'utf8'), cli('redact', full(SENSITIVE)));
  } finally {
    fs.rmSync(script, { force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

test('the declarations type-check a typed example (tsc, bundler and node resolution)', () => {
  const tsc = path.join(here, 'node_modules/typescript/bin/tsc');
  assert.ok(fs.existsSync(tsc), 'TypeScript is not installed: `npm ci` in tests/package');
  for (const config of ['tsconfig.json', 'tsconfig.node.json']) {
    try {
      execFileSync(process.execPath, [tsc, '-p', config], { cwd: here, stdio: 'pipe' });
    } catch (e) {
      assert.fail(`tsc -p ${config}:\n${e.stdout}${e.stderr}`);
    }
  }
});
