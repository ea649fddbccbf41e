// The CLI and the viewer give the same answers for every corpus input:
// summary figures and stats, the preview of every tree segment, search
// hits. Both call the same core functions; this checks that neither side
// drifts (a rendering of its own, another limit, other files read).
//
// The CLI is the real binary (`retrace info/tree/search --json`), run in the
// corpus folder. The viewer is the real page in Chromium, given the files
// the CLI read (`tree --json` names them, side-cars included; a folder's
// are those the core's `order_files` picked) by a drop, as a person gives
// them. Its values are read through its worker protocol, not the DOM: an
// init script wraps `window.Worker` to keep the page's worker and record
// every message it posts, and requests are posted to it as the engine's
// client posts them. The DOM is checked too, for the first segments' previews.
// One page serves every input.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { browserSuite, corpus, drop, retraceBin } from './harness.mjs';

/** Real words, a quote, an accent (case folded beyond ASCII), no hit. */
const QUERIES = ['the', 'README', '"', 'FÉVR', 'zqxjv no such words'];
/** The viewer's default filter (`SearchFilter::default()`), and all roles. */
const SAID = { user: true, assistant: true, tool: true, events: false };
const ALL = { ...SAID, events: true };
/** Segments whose preview is also checked on screen. */
const ON_SCREEN = 3;

let p;

const suite = browserSuite({
  async setup() {
    p = await suite.page();
    await p.addInitScript(() => {
      const Real = window.Worker;
      const rec = { messages: [], worker: null };
      window.__parity = rec;
      window.Worker = class extends Real {
        constructor(...args) {
          super(...args);
          rec.worker = this;
          this.addEventListener('message', (e) => rec.messages.push(e.data));
        }
      };
    });
    await p.goto(suite.base + '/');
    await p.waitForFunction(() => window.__parity.worker !== null);
  },
});

/** Every session file of the corpus and every folder holding one (as the
 * golden files of tests/fixtures/golden list them), relative to it. */
function inputs() {
  const files = [];
  const dirs = new Set();
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(corpus, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(name);
      else if (/\.(jsonl|json|gz)$/.test(e.name)) {
        files.push(name);
        if (rel) dirs.add(rel);
      }
    }
  };
  walk('');
  return [...files.sort(), ...[...dirs].sort()];
}

/** `retrace ARGS` in the corpus folder. */
function retrace(...args) {
  return new Promise((resolve, reject) => {
    execFile(retraceBin, args, { cwd: corpus, maxBuffer: 1 << 28 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

/** What the CLI says about an input (null when it does not read it). */
async function fromCli(input) {
  const searching = searchesOf().map(([query, filter]) => {
    const args = ['search', '--json', '--redact', input, query];
    if (filter.events) args.push('--in', 'user,assistant,tool,events');
    return retrace(...args).then((r) => ({ query, filter, r }));
  });
  const [info, tree, ...searches] = await Promise.all([
    retrace('info', '--json', input),
    retrace('tree', '--json', input),
    ...searching,
  ]);
  // A folder of several sessions is no session: the CLI names them (the
  // viewer lists them); each of its files is an input of its own.
  if (info.code !== 0) return /this folder holds \d+ sessions/.test(info.stderr) ? { several: true } : null;
  assert.equal(tree.code, 0, `${input}: tree: ${tree.stderr}`);
  return {
    info: JSON.parse(info.stdout),
    tree: JSON.parse(tree.stdout),
    searches: searches.map(({ query, filter, r }) => {
      const hits = jsonLines(r.stdout);
      assert.equal(r.code, hits.length ? 0 : 1, `${input}: search ${query}: ${r.stderr}`);
      return { query, filter, hits, truncated: /more than \d+ hits/.test(r.stderr) };
    }),
  };
}

function searchesOf() {
  return [...QUERIES.map((q) => [q, SAID]), ['the', ALL]];
}

/** A preview as one line: a prompt's text, else `role: text` (the core's `Preview::label`). */
const label = (preview) => (preview.prompt ? preview.text : `${preview.role}: ${preview.text}`);

/** The files to drop, as the CLI read them. */
function filesOf(tree) {
  const names = tree.files.flatMap((f) => (f.side_car ? [f.name, f.side_car] : [f.name]));
  return names.map((n) => ({ name: path.basename(n), data: fs.readFileSync(path.join(corpus, n)).toString('base64') }));
}

let seq = 0;

/** Posts `requests` to the page's worker as the engine's client
 * (`retrace_wasm::js::client`) posts them, with ids of their own, and
 * returns the answer to each, in order (the worker answers each id once;
 * events and the page's own answers are left out). */
async function ask(...requests) {
  if (requests.length === 0) return [];
  seq += 1;
  const answers = await p.evaluate(({ requests, base }) => new Promise((resolve) => {
    const rec = window.__parity;
    const got = new Array(requests.length);
    let left = requests.length;
    const listen = (e) => {
      const m = e.data;
      const i = m.id - base;
      if (!(i >= 0 && i < requests.length) || got[i]) return;
      got[i] = m;
      left -= 1;
      if (left === 0) {
        rec.worker.removeEventListener('message', listen);
        resolve(got);
      }
    };
    rec.worker.addEventListener('message', listen);
    setTimeout(() => resolve(null), 60000);
    requests.forEach((r, i) => rec.worker.postMessage({ id: base + i, request: JSON.stringify(r) }));
  }), { requests, base: 1_000_000 + 1000 * seq });
  assert.ok(answers, `no answer to ${requests.map((r) => r.kind).join(', ')} within a minute`);
  for (const a of answers) assert.equal(a.error, undefined, JSON.stringify(a));
  return answers.map((a) => a.data);
}

/** Drops the files and waits for the worker's summary. */
async function open(files, input) {
  await p.evaluate(() => { window.__parity.messages = []; });
  await drop(p, files);
  const done = await p.waitForFunction(() => window.__parity.messages
    .find((m) => m.kind === 'opened' || (m.kind === 'folder' && m.data.summary) || m.error), null, { timeout: 60000, polling: 20 });
  const answer = await done.jsonValue();
  assert.ok(!answer.error, `${input}: ${JSON.stringify(answer.error)}`);
  return answer.kind === 'opened' ? answer.data : answer.data.summary;
}

/** The session's title from its segments' previews (`[segment, preview]`),
 * by the core's `session_title` rule: the first typed prompt among the
 * first eight segments, else the first thing said there. */
function titleOf(previews) {
  const first = previews.filter(([i]) => i < 8).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  const prompt = first.find((p) => p.prompt);
  return prompt ? prompt.text : first[0] && label(first[0]);
}

/** `retrace info --json` as written from the viewer's `Summary` figures,
 * `Stats` and previews (the core's `Info` does this for the CLI). */
function infoOf(input, f, s, previews) {
  const info = {
    path: input,
    format: f.format,
    files: f.files,
    entries: f.entries,
    messages: s.messages,
    markers: s.markers,
    leaves: f.leaves,
    branch_points: f.branch_points,
    structural_branch_points: f.structural_branch_points,
    tool_calls: s.tool_calls,
    tool_results: s.tool_results,
    tool_errors: s.tool_errors,
    results_without_call: s.results_without_call,
    calls_without_result: s.calls_without_result,
    diagnostics: f.diagnostics + s.diagnostics,
    errors: f.errors + s.errors,
    warnings: f.warnings + s.warnings,
    subagents: f.subagents,
    models: Object.fromEntries(s.models),
  };
  const title = titleOf(previews);
  if (title !== undefined) info.title = title;
  if (f.version !== null) info.version = f.version;
  if (f.start !== null) {
    info.first_timestamp = new Date(f.start).toISOString();
    info.last_timestamp = new Date(f.end).toISOString();
    info.duration_ms = f.end - f.start;
  }
  return info;
}

test('the CLI and the viewer agree on every corpus input', { timeout: 600000 }, async () => {
  const started = Date.now();
  let compared = 0;
  const skipped = [];
  const several = [];
  let previews = 0;
  let hits = 0;
  const all = inputs();
  // The CLI's answers for the next input are made while the viewer works.
  let next = fromCli(all[0]);
  for (const [n, input] of all.entries()) {
    const cli = await next;
    next = n + 1 < all.length ? fromCli(all[n + 1]) : null;
    if (!cli) {
      skipped.push(input);
      continue;
    }
    if (cli.several) {
      several.push(input);
      continue;
    }
    const summary = await open(filesOf(cli.tree), input);
    const segments = cli.tree.segments;

    // The tree: the same segments, and on screen the same previews as the
    // protocol's (those of the summary, with sensitive data hidden: the
    // same as the CLI's, or with placeholders where data was hidden).
    assert.deepEqual(
      summary.outline.map((s) => [s.first_label, s.parent, s.depth, s.children, s.len]),
      segments.map((s) => [s.first, s.parent, s.depth, s.children, s.len]),
      `${input}: outline`,
    );
    if (summary.outline.length && (summary.default_leaf !== null || summary.tips.length)) {
      const want = summary.outline.slice(0, ON_SCREEN).map((s) => (s.preview ? label(s.preview) : `${s.len} entries`));
      const shown = await p.waitForFunction((n) => {
        const items = [...document.querySelectorAll('li.segment .preview')];
        return items.length >= n && items.slice(0, n).map((e) => e.textContent);
      }, want.length, { timeout: 30000 });
      assert.deepEqual(await shown.jsonValue(), want, `${input}: previews on screen`);
      summary.outline.slice(0, ON_SCREEN).forEach((s, i) => {
        const cliPreview = segments[i].preview;
        assert.equal(s.preview === null, cliPreview === null, `${input} #${i}: a preview on one side only`);
        if (s.preview && label(s.preview) !== label(cliPreview)) {
          assert.match(s.preview.text, /\[REDACTED:/, `${input} #${i}: ${s.preview.text} vs ${cliPreview.text}`);
        }
      });
    }

    // Everything at once: stats; every segment's preview with sensitive
    // data shown (as the CLI's tree shows it); search hits with it hidden
    // (the viewer's default; the CLI's `--redact`).
    const [{ stats }, , { previews: got }, , ...found] = await ask(
      { kind: 'stats' },
      { kind: 'hide_sensitive', hide: false },
      { kind: 'previews', segments: segments.map((_, i) => i) },
      { kind: 'hide_sensitive', hide: true },
      ...cli.searches.map(({ query, filter }) => ({ kind: 'search', query, filter })),
    );

    // Summary figures and stats: `info --json`.
    assert.deepEqual(infoOf(input, summary.figures, stats, got), cli.info, `${input}: info`);

    // Every segment's preview: `tree --json`.
    const byIndex = segments.map(() => null);
    for (const [i, preview] of got) byIndex[i] = preview;
    assert.deepEqual(byIndex, segments.map((s) => s.preview), `${input}: previews`);
    previews += got.length;

    // Search hits: `search --json --redact`. A hit's leaf is an entry
    // number in the protocol; its label is what the worker calls the branch.
    const leaves = [...new Set(found.flatMap((f) => f.hits.map((h) => h.leaf)))];
    const branches = await ask(...leaves.map((leaf) => ({ kind: 'branch', leaf })));
    const leafLabel = new Map(leaves.map((leaf, i) => [leaf, branches[i].leaf_label]));
    cli.searches.forEach((want, k) => {
      const viewer = found[k].hits.map((h) => ({
        label: h.label, line: h.line, role: h.role, snippet: h.snippet, leaf: leafLabel.get(h.leaf),
      }));
      const theCli = want.hits.map(({ label, line, role, snippet, leaf }) => ({ label, line, role, snippet, leaf }));
      const what = `${input}: search ${JSON.stringify(want.query)}${want.filter.events ? ' with events' : ''}`;
      assert.deepEqual(viewer, theCli, what);
      assert.equal(found[k].truncated, want.truncated, `${what}: truncated`);
      hits += viewer.length;
    });
    compared += 1;
  }
  assert.deepEqual(p.errors, []);
  assert.ok(compared + several.length > 60, `${compared} inputs compared, ${several.length} folders of several sessions`);
  assert.ok(compared > 55, `${compared} inputs compared`);
  console.log(`parity: ${compared} inputs (${skipped.length} the CLI does not read: ${skipped.join(', ') || 'none'}; `
    + `${several.length} folders of several sessions: ${several.join(', ') || 'none'}), `
    + `${previews} previews, ${hits} search hits, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
