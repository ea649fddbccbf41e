// retrace-wasm alone, as a JS user loads it: the plain wasm-bindgen build
// of the crate (`cargo xtask engine`: no leptos, no viewer) imported by a
// bare page. Its two transports answer each method alike: the direct
// `Engine` class and the worker client (whose worker starts that same
// build through `startWorker`) give the same values, refuse with the same
// codes and report the same events; a redacted copy is the CLI's bytes.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { browserSuite, corpus, engineDist, files, retraceBin } from './harness.mjs';

/** A pi session with images, fork points, calls without a result and
 * sensitive data. */
const PI = 'pi/badlogic__pi-mono/compact.jsonl';
/** A folder of several Claude Code sessions. */
const FOLDER = 'claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project';

let p;

const suite = browserSuite({
  extra: { '/engine-test.html': '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>engine</title>' },
  async setup() {
    assert.ok(fs.existsSync(path.join(engineDist, 'retrace_wasm.js')),
      `${engineDist} holds no engine build: run \`cargo xtask engine\` (or set RETRACE_ENGINE)`);
    p = await suite.page('/engine-test.html');
    // The page's helpers: start either transport, give it files, and
    // turn what comes back into plain JSON (a made file as its text).
    await p.evaluate(async () => {
      const glue = await import('/engine/retrace_wasm.js');
      await glue.default();
      const { WorkerClient } = await import('/engine/client.js');
      const make = (kind) => {
        const engine = kind === 'direct' ? new glue.Engine() : new WorkerClient();
        const events = [];
        engine.listen((e) => events.push(e));
        return { engine, events };
      };
      const asFiles = (list) => list.map((f) => new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name));
      const plain = async (value) => {
        if (value && value.file instanceof Blob) return { ...value, file: await value.file.text() };
        return value;
      };
      const refusal = (e) => ({ refused: e.code, name: e.name, message: e.message });
      window.engines = { make, asFiles, plain, refusal };
    });
  },
});

/** Runs `script` in the page against a new engine of `kind` ('direct' or
 * 'worker'); `script` gets `{ engine, events, asFiles, plain, refusal }`. */
async function withEngine(kind, script, arg) {
  return p.evaluate(async ({ kind, script, arg }) => {
    const h = window.engines;
    const { engine, events } = h.make(kind);
    // eslint-disable-next-line no-new-func
    const run = new Function('h', 'arg', `return (${script})(h, arg);`);
    try {
      return await run({ engine, events, ...h }, arg);
    } finally {
      engine.close();
    }
  }, { kind, script: script.toString(), arg });
}

/** Waits in the page until `events` has one `test` accepts. */
const waitFor = `async (events, test) => {
  for (let i = 0; i < 600 && !events.some(test); i++) await new Promise((r) => setTimeout(r, 50));
  return events.find(test);
}`;

/** Every method on a pi session, in one order. */
async function session(kind) {
  return withEngine(kind, async (h, { list, waitFor }) => {
    const { engine, plain, refusal } = h;
    const wait = new Function(`return (${waitFor})`)();
    const out = {};
    const settle = async (name, call) => {
      try {
        out[name] = await plain(await call());
      } catch (e) {
        out[name] = refusal(e);
      }
    };
    await settle('before', () => engine.stats());
    await settle('open', () => engine.open(h.asFiles(list)));
    const summary = out.open;
    // Timings and memory are the host's, not the session's.
    delete summary.open_ms;
    delete summary.read_ms;
    delete summary.memory;
    const leaf = summary.default_leaf;
    await settle('branch', () => engine.branch(leaf));
    const rows = out.branch.rows;
    const withImage = rows.line.indexOf(812);
    await settle('bodies', () => engine.bodies(leaf, 0, 30));
    await settle('search', () => engine.search('image', { events: true }));
    await settle('stats', () => engine.stats());
    await settle('image', () => engine.image(leaf, withImage, 0));
    await settle('previews', () => engine.previews([0, 1, 99999]));
    await settle('shown', () => engine.hideSensitive(false));
    await settle('bodiesShown', () => engine.bodies(leaf, 0, rows.entry.length));
    await settle('hidden', () => engine.hideSensitive(true));
    await settle('editPoints', () => engine.editPoints(leaf));
    await settle('fork', () => engine.fork(leaf, out.editPoints.rows[0]));
    await settle('seal', () => engine.seal(leaf));
    // What the branch's first compaction hid (by its row's first entry).
    await settle('compare', () => engine.compare(leaf, rows.entry[rows.marks.findIndex((m) => m & 4)]));
    await settle('download', () => engine.download(0, 'mask', [], []));
    await settle('noLeaf', () => engine.branch(4000000000));
    await settle('noRow', () => engine.fork(leaf, 4000000));
    await settle('badMode', () => engine.download(0, 'shout'));
    await settle('scan', () => engine.scan());
    const last = await wait(h.events, (e) => e.kind === 'scan' && e.data.finished);
    out.scanned = last && last.data.counts;
    // What a review marked "not a secret", with data hidden: a kind, then
    // one finding on this branch, shown as written and named beside; a
    // kind the rules lack refused; taken back.
    const findings = h.events.filter((e) => e.kind === 'scan').flatMap((e) => e.data.findings);
    const all = rows.entry.length;
    const one = findings.find((f) => f.leaf === leaf);
    out.reviewed = one && { kind: one.kind, line: one.line };
    if (!one) return out;
    await settle('reviewKind', () => engine.review([one.kind], []));
    await settle('bodiesKind', () => engine.bodies(leaf, 0, all));
    const { file, kind, line, hash } = one;
    await settle('reviewOne', () => engine.review(null, [{ file, kind, line, hash }]));
    await settle('bodiesOne', () => engine.bodies(leaf, 0, all));
    const value = out.bodiesOne.revealed?.[0] ?? '';
    await settle('searchOne', () => engine.search(value, { events: true }));
    await settle('reviewBad', () => engine.review(['no-such-kind'], []));
    await settle('reviewBack', () => engine.review([], []));
    await settle('bodiesBack', () => engine.bodies(leaf, 0, all));
    out.downloadProgress = h.events.some((e) => e.kind === 'download_progress' && e.data.file === 0);
    return out;
  }, { list: files(PI), waitFor });
}

test('the direct class and the worker client answer every method alike', async () => {
  const direct = await session('direct');
  const worker = await session('worker');
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
  assert.deepEqual(direct.before, worker.before);
  assert.equal(direct.before.refused, 'no-session');
  assert.equal(direct.before.name, 'RetraceError');
  for (const key of ['open', 'branch', 'bodies', 'search', 'stats', 'image', 'previews', 'shown',
    'bodiesShown', 'hidden', 'editPoints', 'compare', 'download', 'noLeaf', 'noRow', 'badMode', 'scan', 'scanned',
    'reviewed', 'reviewKind', 'bodiesKind', 'reviewOne', 'bodiesOne', 'searchOne', 'reviewBad',
    'reviewBack', 'bodiesBack']) {
    assert.deepEqual(direct[key], worker[key], key);
  }
  // What each is.
  assert.equal(direct.open.figures.format, 'pi');
  assert.ok(direct.branch.rows.entry.length > 100);
  assert.equal(direct.bodies.items.length, 30);
  assert.ok(direct.search.hits.length > 0);
  assert.ok(direct.stats.stats.tool_calls > 400);
  assert.match(direct.image.url, /^data:image\/png;base64,iVBOR/);
  assert.deepEqual(direct.previews.previews.map(([i]) => i), [0]);
  assert.equal(direct.shown, null);
  assert.equal(direct.scan, null);
  assert.equal(direct.compare.compaction, true);
  assert.ok(direct.compare.pairs.length > 0 && direct.compare.bodies.length === direct.compare.rows.entry.length);
  assert.equal(direct.noLeaf.refused, 'not-found');
  assert.equal(direct.noRow.refused, 'not-found');
  assert.equal(direct.badMode.refused, 'bad-request');
  assert.ok(Object.keys(direct.scanned).length > 0, 'the scan found nothing');
  assert.ok(direct.downloadProgress || direct.download.file.length < 2 << 20);
  // Shown as written: no marks in the text, the values beside it.
  const shown = JSON.stringify(direct.bodiesShown.items);
  assert.doesNotMatch(shown, /[\uE000\uE001]/);
  assert.ok(direct.bodiesShown.revealed.length > 0, 'nothing revealed');
  assert.equal(direct.bodies.revealed, undefined);
  // Not a secret: with data hidden, those values as written, no marks,
  // named beside (one finding: its value alone); the rest still hidden.
  assert.ok(direct.reviewed, 'a finding on the default branch');
  assert.equal(direct.reviewKind, null);
  for (const key of ['bodiesKind', 'bodiesOne', 'searchOne']) {
    assert.doesNotMatch(JSON.stringify(direct[key]), /[\uE000\uE001]/, key);
  }
  assert.ok(direct.bodiesKind.revealed.length >= direct.bodiesOne.revealed.length, 'a kind reveals its findings');
  assert.equal(direct.bodiesOne.revealed.length, 1, JSON.stringify(direct.bodiesOne.revealed));
  const reviewed = JSON.stringify(direct.bodiesOne.items);
  assert.ok(reviewed.includes(JSON.stringify(direct.bodiesOne.revealed[0]).slice(1, -1)), 'the value as written');
  assert.match(reviewed, /\[REDACTED:/);
  assert.ok(direct.searchOne.hits.length > 0, 'the value found');
  assert.deepEqual(direct.searchOne.revealed, direct.bodiesOne.revealed);
  assert.equal(direct.reviewBad.refused, 'bad-request');
  assert.equal(direct.bodiesBack.revealed, undefined);
  // A redacted copy: `retrace redact --mode mask`'s bytes.
  const cli = execFileSync(retraceBin, ['redact', '--mode', 'mask', path.join(corpus, PI)], { maxBuffer: 1 << 26 });
  assert.equal(direct.download.file, cli.toString('utf8'));
  assert.equal(direct.download.name, 'compact.redacted.jsonl');
  // A fork and a seal: the same but for the new ids and times they draw
  // (each engine draws its own).
  const drawn = (text) => text
    .replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, 'UUID')
    .replace(/\b[0-9a-f]{8}\b/g, 'ID')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
  for (const made of ['fork', 'seal']) {
    assert.equal(direct[made].name, worker[made].name, made);
    assert.deepEqual(direct[made].notes.map(drawn), worker[made].notes.map(drawn), made);
    assert.equal(drawn(direct[made].file), drawn(worker[made].file), made);
  }
  assert.equal(direct.fork.name, 'compact.fork.jsonl');
  assert.deepEqual(direct.fork.file.split('\n').slice(1), worker.fork.file.split('\n').slice(1));
  // The three calls left open are answered: three lines more.
  const lines = fs.readFileSync(path.join(corpus, PI), 'utf8').split('\n').length;
  assert.equal(direct.seal.file.split('\n').length, lines + 3, direct.seal.notes.join('\n'));
});

/** A folder listed, its titles as events, a session picked. */
async function folder(kind) {
  const names = fs.readdirSync(path.join(corpus, FOLDER)).filter((n) => n.endsWith('.jsonl')).sort();
  const list = files(...names.map((n) => `${FOLDER}/${n}`));
  const paths = names.map((n) => `sample-project/${n}`);
  return withEngine(kind, async (h, { list, paths, waitFor }) => {
    const wait = new Function(`return (${waitFor})`)();
    const listed = await h.engine.openFolder(h.asFiles(list), paths);
    const want = listed.sessions.length;
    const titles = new Map();
    await wait(h.events, () => {
      for (const e of h.events) if (e.kind === 'listed') for (const [i, l] of e.data.listed) titles.set(i, l);
      return titles.size >= want;
    });
    const opened = await h.engine.openListed(want - 1);
    let after = null;
    try {
      await h.engine.openListed(want);
    } catch (e) {
      after = h.refusal(e);
    }
    return {
      listed, titles: [...titles.entries()].sort((a, b) => a[0] - b[0]), files: opened.files, after,
    };
  }, { list, paths, waitFor });
}

test('a folder is listed, titled by events and picked from, alike', async () => {
  const direct = await folder('direct');
  const worker = await folder('worker');
  assert.deepEqual(direct, worker);
  assert.equal(direct.listed.summary, null);
  assert.ok(direct.listed.sessions.length > 1);
  assert.equal(direct.titles.length, direct.listed.sessions.length);
  assert.equal(direct.after.refused, 'not-found');
  assert.equal(p.errors.length, 0, p.errors.join('\n'));
});

test('a closed engine refuses what it had not answered and what comes later', async () => {
  for (const kind of ['direct', 'worker']) {
    const got = await withEngine(kind, async (h, { list }) => {
      const opened = h.engine.open(h.asFiles(list));
      await opened;
      const copy = h.engine.download(0, 'typed');
      h.engine.close();
      const outcome = async (promise) => {
        try {
          await promise;
          return 'answered';
        } catch (e) {
          return e.code;
        }
      };
      return { copy: await outcome(copy), later: await outcome(Promise.resolve().then(() => h.engine.stats())) };
    }, { list: files(PI) });
    assert.deepEqual(got, { copy: 'closed', later: 'closed' }, kind);
  }
});

test('a file that is no session is refused by both, with its code', async () => {
  for (const kind of ['direct', 'worker']) {
    const got = await withEngine(kind, async (h) => {
      const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0, 0, 13])], 'x.png');
      try {
        await h.engine.open([png]);
        return null;
      } catch (e) {
        return h.refusal(e);
      }
    });
    assert.equal(got.refused, 'not-a-session', kind);
    assert.equal(got.message, 'x.png is a PNG image, not a session file', kind);
  }
});
