// What the tests of <retrace-player> share (player.test.mjs, embed.test.mjs):
// players made on a test page, their recorded events, sessions written for
// them, and the renderer's memory.

import fs from 'node:fs';
import path from 'node:path';

import { corpus, playerDist } from './harness.mjs';

/** A pi session with images, errors, prompts and compactions (1,013 rows). */
export const PI = 'pi/badlogic__pi-mono/compact.jsonl';
/** A Claude Code session (25 rows). */
export const CLAUDE = 'claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';
/** A pi session with two leaves: e8 (the default) and e6. */
export const BRANCHING = 'pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl';

/** Fails clearly when the player was not built. */
export function builtPlayer() {
  if (!fs.existsSync(path.join(playerDist, 'player.js'))) {
    throw new Error(`${playerDist} holds no player: run \`cargo xtask player\` (or set RETRACE_PLAYER)`);
  }
}

/** The first typed prompt of a corpus pi file, as written. */
export function firstPrompt(rel) {
  for (const line of fs.readFileSync(path.join(corpus, rel), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    const m = entry.message;
    if (m?.role === 'user' || entry.type === 'user') {
      const content = m.content;
      return typeof content === 'string' ? content : content.find((c) => c.type === 'text').text;
    }
  }
  return null;
}

/** Adds a player to the page (blank.html), with `attrs`, its events
 * recorded under its `id`; `source` (text) is given as a File instead of
 * a `src`. */
export async function addPlayer(p, id, attrs, source = null) {
  await p.evaluate(({ id, attrs, source }) => {
    const player = document.createElement('retrace-player');
    player.id = id;
    for (const [k, v] of Object.entries(attrs)) player.setAttribute(k, v);
    window.watch(player);
    if (source !== null) player.source = new File([source], `${id}.jsonl`);
    document.body.append(player);
  }, { id, attrs, source });
}

/** The events player `id` sent, oldest first (of `type` when given). */
export async function events(p, id, type = null) {
  return p.evaluate(({ id, type }) => window.recorded
    .filter((e) => e.id === id && (type === null || e.type === type)), { id, type });
}

/** Waits until player `id` has sent `n` events of `type`; returns them. */
export async function waitEvents(p, id, type, n = 1, timeout = 30000) {
  await p.waitForFunction(({ id, type, n }) => window.recorded
    .filter((e) => e.id === id && e.type === type).length >= n, { id, type, n }, { timeout });
  return events(p, id, type);
}

/** Calls `method(...args)` on player `id` in the page. */
export async function call(p, id, method, ...args) {
  return p.evaluate(({ id, method, args }) => document.getElementById(id)[method](...args), { id, method, args });
}

/** The text of the rows player `id` shows, one per row. */
export async function rowsText(p, id) {
  return p.evaluate((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('.row')]
    .map((r) => r.textContent), id);
}

/** Waits until player `id` shows rows and none waits for its body. */
export async function drawn(p, id) {
  await p.waitForFunction((id) => {
    const root = document.getElementById(id).shadowRoot;
    return root.querySelectorAll('.row').length > 0 && root.querySelectorAll('.row > .pending').length === 0;
  }, id, { timeout: 30000 });
}

/** A pi session written to attack a page that shows it: markup, script,
 * `javascript:` links, event handlers, an image by URL, a role and a tool
 * name with markup, and a line of two megabytes. */
export function hostile() {
  const payloads = [
    'hi <script>window.__pwned=1</script> there',
    '<img src="x" onerror="window.__pwned=2">',
    '[click me](javascript:window.__pwned=3) <a href="javascript:window.__pwned=4">raw link</a>',
    '<iframe src="javascript:window.__pwned=5"></iframe> <svg onload="window.__pwned=6"></svg>',
    '<details open ontoggle="window.__pwned=7">x</details> ![img](http://example.invalid/track.png)',
    `huge ${'A'.repeat(2_000_000)} end`,
  ];
  const lines = [{ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }];
  let parent = null;
  payloads.forEach((text, i) => {
    const id = `m${i}`;
    const role = i % 2 ? 'assistant' : 'user';
    const content = role === 'user' ? text : [
      { type: 'thinking', thinking: text },
      { type: 'text', text },
      { type: 'toolCall', id: `c${i}`, name: '<b onmouseover="window.__pwned=8">tool</b>', arguments: { html: text } },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/svg+xml" onerror="window.__pwned=9' },
    ];
    lines.push({ type: 'message', id, parentId: parent, timestamp: `2026-01-01T00:00:0${i + 1}.000Z`, message: { role, content, timestamp: 1767225601000 + i * 1000 } });
    parent = id;
    if (role === 'assistant') {
      lines.push({ type: 'message', id: `r${i}`, parentId: id, timestamp: `2026-01-01T00:00:0${i + 1}.500Z`, message: { role: 'toolResult', toolCallId: `c${i}`, toolName: 'x', content: [{ type: 'text', text }], isError: i === 3, timestamp: 1767225601500 + i * 1000 } });
      parent = `r${i}`;
    }
  });
  lines.push({ type: 'message', id: 'x', parentId: parent, timestamp: '2026-01-01T00:00:09.000Z', message: { role: '<img src=x onerror="window.__pwned=10">', content: 'odd role', timestamp: 1767225609000 } });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A pi session with a secret and an e-mail address the redaction rules
 * find (`retrace redact` replaces both). */
export const SECRET = [
  { type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' },
  { type: 'message', id: 'm0', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'deploy with AWS_SECRET_ACCESS_KEY=Hq9fV2mZr8Lt0XwKc4Pn7Bs3Jd6Gy1Ea5Uo8Ti2R and mail ana.lopez@fastmail.com', timestamp: 1767225601000 } },
  { type: 'message', id: 'm1', parentId: 'm0', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], timestamp: 1767225602000 } },
].map((l) => JSON.stringify(l)).join('\n') + '\n';

/** A pi session of about `mb` megabytes (deterministic text, a few
 * kilobytes a message), to make a worker's memory show. */
export function big(mb = 8) {
  let seed = 1;
  const word = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega'.split(' ')[seed % 11] + (seed % 97);
  };
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'big', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' })];
  let parent = null;
  let bytes = 0;
  for (let i = 0; bytes < mb * 1e6; i++) {
    const role = i % 2 ? 'assistant' : 'user';
    const text = Array.from({ length: 400 + (i % 7) * 100 }, word).join(' ');
    const id = `b${i}`;
    const line = JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(Date.UTC(2026, 0, 1) + i * 2000).toISOString(), message: { role, content: role === 'user' ? text : [{ type: 'text', text }], timestamp: Date.UTC(2026, 0, 1) + i * 2000 } });
    lines.push(line);
    bytes += line.length + 1;
    parent = id;
  }
  return lines.join('\n') + '\n';
}

/** Resident memory (bytes) of each renderer process of the browser whose
 * profile is `profileDir` (the page's renderer runs its dedicated workers,
 * and their wasm memory), by pid, read from /proc. */
export function renderers(profileDir) {
  const out = {};
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // Chromium writes its children's command line as one string.
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(`--user-data-dir=${profileDir}`) || !cmd.includes('--type=renderer')) continue;
      const rss = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
      out[pid] = Number(rss[1]) * 1024;
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}
