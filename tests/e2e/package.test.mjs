// The npm package (dist-package/, `cargo xtask package`) in Chromium, as a
// page without a bundler loads it: a plain <script type=module> imports
// its browser entry, which finds the wasm beside itself; the direct
// Engine and the WorkerClient answer the scripts' kinds (tree, context,
// migrate) alike. The same from a bundle: esbuild (its wasm build) takes
// `import … from 'retrace-wasm'` through the package's exports. Then the repository's example dashboard
// (examples/dashboard/), which imports the built package, on real files.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { browserSuite, corpus, files, out, packageDist, retraceBin } from './harness.mjs';

/** A pi session with a rewind (two leaves, e6 and e8). */
const BRANCHING = 'pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl';
/** A Claude Code session with sensitive data and two branches. */
const SENSITIVE = 'claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl';

const PAGE = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>package</title>
<script type="module">
  import init, { Engine, WorkerClient } from '/dist-package/index.js';
  window.retrace = { init, Engine, WorkerClient };
  document.title = 'ready';
</script>`;

const extra = { '/package-test.html': PAGE };

const suite = browserSuite({
  extra,
  async setup() {
    assert.ok(fs.existsSync(path.join(packageDist, 'package.json')),
      `${packageDist} holds no package: run \`cargo xtask package\` (or set RETRACE_PACKAGE)`);
    // The README's page, the package where an install puts it.
    const readme = fs.readFileSync(path.join(packageDist, 'README.md'), 'utf8');
    const html = readme.slice(readme.indexOf('\n## In a page\n')).split('\n```html\n')[1].split('\n```\n')[0];
    // (An icon, so the page asks the server for nothing else.)
    extra['/readme.html'] = `<link rel="icon" href="data:,">\n${html.replace('./node_modules/retrace-wasm/', '/dist-package/')}`;
  },
});

const cli = (...args) => execFileSync(retraceBin, args, { maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');

test('a plain module page loads the package; both transports answer tree, context and migrate alike', async () => {
  const p = await suite.page();
  const fetched = [];
  p.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await p.goto(`${suite.base}/package-test.html`);
  await p.waitForFunction(() => document.title === 'ready');
  const got = await p.evaluate(async (list) => {
    const { init, Engine, WorkerClient } = window.retrace;
    await init();
    const asFiles = () => list.map((f) => new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name));
    const run = async (engine) => {
      const summary = await engine.open(asFiles());
      const out = { tree: await engine.tree() };
      for (const leaf of summary.tips) {
        out[`context ${leaf}`] = await engine.context(leaf);
        for (const to of ['anthropic', 'openai', 'openai-responses', 'google']) {
          out[`${to} ${leaf}`] = await engine.migrate(leaf, to);
        }
      }
      try {
        await engine.migrate(summary.tips[0], 'claude');
      } catch (e) {
        out.refused = { name: e.name, code: e.code };
      }
      engine.close();
      return out;
    };
    // A FileList (an input's, a drop's) is taken as an array is.
    const dropped = new DataTransfer();
    for (const f of asFiles()) dropped.items.add(f);
    const fromList = new Engine();
    const listed = (await fromList.open(dropped.files)).figures.entries;
    fromList.close();
    return { direct: await run(new Engine()), worker: await run(new WorkerClient()), listed };
  }, files(BRANCHING));
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  assert.equal(got.listed, 9);
  delete got.listed;
  assert.deepEqual(got.direct, got.worker);
  // The wasm came from beside the entry (import.meta.url), once per
  // transport's module.
  assert.ok(fetched.includes('/dist-package/retrace_wasm_bg.wasm'), fetched.join(' '));
  assert.ok(fetched.includes('/dist-package/worker.js'), fetched.join(' '));
  const { direct } = got;
  assert.deepEqual(direct.tree.branch_points, [{ entry: 2, kind: 'real', children: 2 }]);
  assert.deepEqual(direct.tree.leaves, [6, 8]);
  assert.deepEqual(direct['context 6'].messages.map((m) => m.entries[0]), ['e5', 'e3', 'e4', 'e6']);
  assert.deepEqual(direct.refused, { name: 'RetraceError', code: 'bad-request' });
  // As written, the CLI's bodies (nothing sensitive in this file).
  for (const to of ['anthropic', 'google']) {
    assert.deepEqual(direct[`${to} 8`].body, JSON.parse(cli('migrate', path.join(corpus, BRANCHING), '--to', to)), to);
  }
});

test('a bundler takes the package: an esbuild bundle of a page importing retrace-wasm answers as the package does', async () => {
  const esbuild = await import('esbuild-wasm');
  // A project with the package installed, as npm would put it.
  const dir = path.join(out, 'built');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.symlinkSync(packageDist, path.join(dir, 'node_modules', 'retrace-wasm'), 'dir');
  fs.writeFileSync(path.join(dir, 'app.js'), [
    "import init, { Engine, WorkerClient } from 'retrace-wasm';",
    'window.retrace = { init, Engine, WorkerClient };',
    "document.title = 'ready';",
  ].join('\n'));
  const built = path.join(dir, 'dist');
  await esbuild.build({
    absWorkingDir: dir,
    entryPoints: ['app.js'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: path.join(built, 'app.js'),
    logLevel: 'silent',
  });
  // The browser entry was taken (not the node one, which reads a file),
  // with its glue bundled in.
  const bundle = fs.readFileSync(path.join(built, 'app.js'), 'utf8');
  assert.ok(!bundle.includes('node:fs'), 'the node entry was bundled');
  assert.ok(bundle.includes('retrace_wasm_bg.wasm'), 'the glue is not in the bundle');
  // esbuild leaves `new URL(…, import.meta.url)` to the page: the files
  // the package README says to copy beside the bundle.
  for (const name of ['retrace_wasm_bg.wasm', 'retrace_wasm.js', 'worker.js']) {
    fs.copyFileSync(path.join(packageDist, name), path.join(built, name));
  }
  fs.writeFileSync(path.join(built, 'index.html'),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="app.js"></script>');
  const p = await suite.page();
  const fetched = [];
  p.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await p.goto(`${suite.base}/built/dist/index.html`);
  await p.waitForFunction(() => document.title === 'ready');
  const got = await p.evaluate(async (list) => {
    const { init, Engine, WorkerClient } = window.retrace;
    await init();
    const asFiles = () => list.map((f) => new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name));
    const run = async (engine) => {
      const summary = await engine.open(asFiles());
      // (How long it took differs.)
      delete summary.open_ms;
      delete summary.read_ms;
      const answer = { summary, tree: await engine.tree(), context: await engine.context(summary.default_leaf) };
      engine.close();
      return answer;
    };
    return { direct: await run(new Engine()), worker: await run(new WorkerClient()) };
  }, files(BRANCHING));
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  assert.deepEqual(got.direct, got.worker);
  assert.deepEqual(got.direct.tree.leaves, [6, 8]);
  assert.equal(got.direct.summary.figures.entries, 9);
  // Everything came from the bundle's folder.
  assert.ok(fetched.every((f) => f.startsWith('/built/dist/')), fetched.join(' '));
  assert.ok(fetched.includes('/built/dist/retrace_wasm_bg.wasm'), fetched.join(' '));
});

test("the README's page runs", async () => {
  const p = await suite.page('/readme.html');
  // Its module has loaded the engine and listens.
  await p.waitForFunction(() => document.querySelector('#pick').onchange !== null);
  await p.setInputFiles('#pick', [path.join(corpus, BRANCHING)]);
  await p.waitForFunction(() => document.querySelector('#out').textContent !== '');
  const text = await p.$eval('#out', (pre) => pre.textContent);
  // The default branch ends at e8: e1's prompt and e7's call (e8 is an
  // entry of a type pi does not know); Anthropic's history answers the
  // call in a third turn.
  assert.equal(text, 'pi: 9 entries, 2 branches\n2 messages on the default branch\nto Anthropic: 3 turns; lost: nothing');
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
});

test('the example dashboard shows the files it is given, migrates and redacts', async () => {
  const p = await suite.page('/examples/dashboard/index.html');
  await p.setInputFiles('#files', [path.join(corpus, BRANCHING), path.join(corpus, SENSITIVE)]);
  await p.waitForFunction(() => document.querySelectorAll('#sessions tbody tr').length === 2);
  const rows = await p.$$eval('#sessions tbody tr', (trs) => trs.map((tr) => [...tr.cells].slice(0, 9).map((c) => c.textContent)));
  for (const file of [BRANCHING, SENSITIVE]) {
    const name = path.basename(file);
    const row = rows.find((r) => r[0] === name);
    const info = JSON.parse(cli('info', '--json', path.join(corpus, file)));
    assert.deepEqual(row.slice(1, 5), [info.format, String(info.entries), String(info.leaves), String(info.branch_points)], name);
    assert.equal(row[6], String(info.tool_calls), name);
  }
  // The scan finishes with what `retrace redact` finds.
  const sensitive = path.basename(SENSITIVE);
  const reportFile = path.join(out, 'package-redact-report.json');
  const redacted = cli('redact', '--report', reportFile, path.join(corpus, SENSITIVE));
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  await p.waitForFunction((name) => {
    const row = [...document.querySelectorAll('#sessions tbody tr')].find((r) => r.cells[0].textContent === name);
    return row && !row.cells[8].textContent.includes('…');
  }, sensitive);
  const found = await p.$eval(`#sessions tbody tr[data-file="${sensitive}"]`, (tr) => tr.cells[8].textContent);
  assert.equal(Number(found), report.total, 'findings');

  await p.click(`#sessions tbody tr[data-file="${sensitive}"] button`);
  await p.selectOption('#migrate select', 'openai');
  await p.click('#migrate button');
  await p.waitForSelector('#report tbody tr');
  const changes = await p.$$eval('#report tbody tr', (trs) => trs.map((tr) => tr.cells[3]?.textContent));
  assert.ok(changes.length > 0 && changes.every(Boolean), JSON.stringify(changes));
  await p.fill('#search input', 'claude');
  await p.click('#search button');
  await p.waitForSelector('#hits li');
  const hits = await p.$$eval('#hits li', (lis) => lis.map((li) => li.textContent));
  assert.ok(hits.length > 5 && hits.every((h) => /claude/i.test(h)), hits.join('\n'));
  // A redacted copy: `retrace redact`'s bytes.
  await p.click('#downloads button');
  await p.waitForSelector('#downloads a[download$=".redacted.jsonl"]');
  const [download] = await Promise.all([
    p.waitForEvent('download'),
    p.click('#downloads a[download$=".redacted.jsonl"]'),
  ]);
  assert.equal(download.suggestedFilename(), sensitive.replace(/\.jsonl$/, '.redacted.jsonl'));
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), redacted);
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
});
