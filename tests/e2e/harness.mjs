// Shared pieces of the viewer's end-to-end tests: a static server for the
// built viewer, headless Chromium, and helpers to drop files on the page.

import { chromium } from 'playwright-core';
import { after, before } from 'node:test';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const corpus = path.resolve(root, '../shared/corpus');
export const dist = process.env.RETRACE_DIST || path.join(root, 'dist');
/** retrace-wasm alone, a plain wasm-bindgen build (`cargo xtask engine`,
 * or the npm package, which `cargo xtask test` gives), served under
 * /engine/. */
export const engineDist = process.env.RETRACE_ENGINE || path.join(root, 'dist-engine');
/** <retrace-player> and its embed (`cargo xtask player`, or the npm
 * package's `player/` folder, which `cargo xtask test` gives), served
 * under /player/. */
export const playerDist = process.env.RETRACE_PLAYER || path.join(root, 'dist-player');
/** The npm package (`cargo xtask package`), served under /dist-package/
 * beside the repository's examples/ under /examples/, as a checkout
 * served from its root has them. */
export const packageDist = process.env.RETRACE_PACKAGE || path.join(root, 'dist-package');
/** Folders served beside the viewer: the engine's, the player's and the
 * package's builds, the test pages that load them, the examples, and the
 * corpus (sessions to play by URL). */
const mounts = [
  ['/engine/', () => engineDist],
  ['/player/', () => playerDist],
  ['/dist-package/', () => packageDist],
  ['/examples/', () => path.join(root, 'examples')],
  ['/pages/', () => path.join(here, 'pages')],
  ['/corpus/', () => corpus],
  // What a test builds to serve (a bundler's output).
  ['/built/', () => path.join(here, 'out', 'built')],
];
export const out = path.join(here, 'out');
/** The CLI the viewer's downloads are compared with (`cargo xtask test` builds it and says where). */
export const retraceBin = process.env.RETRACE_BIN
  || path.join(path.resolve(root, process.env.CARGO_TARGET_DIR || 'target'), 'debug/retrace');
fs.mkdirSync(out, { recursive: true });

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.jsonl': 'application/x-ndjson', '.json': 'application/json',
};

/** Serves `dist` (and the `mounts` folders under their paths; extra files
 * by path) on 127.0.0.1, which is also `localhost` at the same port: a
 * second origin for tests that need two. `answer(req, res)`, when given,
 * answers a request first if it returns true (to serve what a test needs
 * broken). */
export async function serve(extra = {}, answer = null) {
  const server = http.createServer((req, res) => {
    if (answer?.(req, res)) return;
    const url = new URL(req.url, 'http://x');
    if (extra[url.pathname]) {
      res.writeHead(200, { 'Content-Type': url.pathname.endsWith('.html') ? 'text/html' : url.pathname.endsWith('.js') ? 'text/javascript' : 'application/x-ndjson' });
      return res.end(extra[url.pathname]);
    }
    const mount = mounts.find(([at]) => url.pathname.startsWith(at));
    const [base, rel] = mount
      ? [mount[1](), decodeURIComponent(url.pathname.slice(mount[0].length - 1))]
      : [dist, url.pathname === '/' ? '/index.html' : url.pathname];
    const file = path.join(base, path.normalize(rel));
    if (!file.startsWith(base) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      return res.end('not found');
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

/** Headless Chromium with the flags that keep it off the (closed) network;
 * `options` adds context options (a viewport, a time zone, a colour scheme). */
export async function launch(options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-e2e-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
  // Where its profile is (the browser's command line names it, so a
  // test can find its processes).
  ctx.profileDir = dir;
  // The profile goes once the browser has exited (not on its 'close'
  // event: Chromium may still be writing it then), so runs leave nothing
  // behind; a leftover temporary folder fails no test.
  const close = ctx.close.bind(ctx);
  ctx.close = async (options) => {
    await close(options);
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {}
  };
  return ctx;
}

/** A new page that records page errors (a test fails on any). */
export async function page(ctx) {
  const p = await ctx.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(e.message));
  p.on('console', (m) => { if (m.type() === 'error' && !/favicon/.test(m.text())) p.errors.push(m.text()); });
  return p;
}

/** The server and browser a test file shares, started before its tests
 * and closed after them: `dist` served (`engineDist` under /engine/, with
 * the `extra` paths and the `answer` hook of `serve`) and one Chromium context (`options` as
 * `launch` takes them).
 * `suite.page(at)` is a new page recording errors, at `suite.base + at`
 * when `at` is given; `suite.ctx` is the context once started. `setup`
 * runs once they are (a file's own root `before` hooks run concurrently
 * with this one under Node 20, so set-up that needs them goes here). */
export function browserSuite({ extra = {}, answer = null, options = {}, setup } = {}) {
  const suite = {
    ctx: null,
    base: '',
    async page(at) {
      const p = await page(suite.ctx);
      if (at !== undefined) await p.goto(suite.base + at);
      return p;
    },
  };
  let site;
  before(async () => {
    site = await serve(extra, answer);
    suite.base = site.base;
    suite.ctx = await launch(options);
    await setup?.(suite);
  });
  after(async () => {
    await suite.ctx?.close();
    site?.server.close();
  });
  return suite;
}

/** Reads corpus or fixture files for dropping: [{name, data (base64)}]. */
export function files(...paths) {
  return paths.map((p) => {
    const full = path.isAbsolute(p) ? p : path.join(corpus, p);
    return { name: path.basename(full), data: fs.readFileSync(full).toString('base64') };
  });
}

/** Drops files on the page as a person would. */
export async function drop(p, list) {
  const dt = await p.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: 'application/x-ndjson' }));
    }
    return dt;
  }, list);
  await p.dispatchEvent('#drop', 'dragover', { dataTransfer: dt });
  await p.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
}

/** Waits until a session is open and its first rows have bodies. */
export async function opened(p) {
  await p.waitForSelector('.opened', { timeout: 30000 });
  await p.waitForFunction(() => document.querySelectorAll('.row').length > 0
    && document.querySelectorAll('.loading-body').length === 0, null, { timeout: 30000 });
}

export async function shot(p, name) {
  await p.screenshot({ path: path.join(out, `${name}.png`) });
}

/** Runs axe-core on the page (all rules it runs by default, contrast
 * included) on the page or the element `within` selects, and returns its
 * violations, each with its nodes' selectors. */
export async function axe(p, within = null) {
  const source = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');
  // The page's CSP allows only its own scripts: the script goes in as the
  // page's own (evaluated, not a <script> tag).
  if (!(await p.evaluate(() => typeof window.axe !== 'undefined'))) await p.evaluate(source);
  const found = await p.evaluate(async (within) => {
    const r = await window.axe.run(within ? document.querySelector(within) : document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')} :: ${n.failureSummary.split('\n').slice(1, 2).join('')}`) }));
  }, within);
  return found;
}

/** WCAG contrast ratio of two computed colours (`rgb(...)`, opaque). */
export function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
