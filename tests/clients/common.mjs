// What the client tests share: the retrace binary, a scratch folder, the
// shared corpus, and a stand-in for a model's API that records what an
// agent sends it (the agents run for real, offline).

import { after } from 'node:test';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
/** The shared corpus of real session files (absent on a bare checkout). */
export const corpus = path.resolve(root, '../shared/corpus');
// RETRACE_BIN names the retrace binary (as for tests/e2e).
export const bin = process.env.RETRACE_BIN ?? path.join(root, 'target/debug/retrace');

/** A scratch folder for this test file, removed after the run (kept with
 * RETRACE_KEEP_TMP=1, to look at what an agent was given). */
export function scratch(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `retrace-${prefix}-`));
  after(() => process.env.RETRACE_KEEP_TMP || fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs retrace; its stdout. Throws (with stderr) when it fails. */
export function retrace(...args) {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The files under `dir` (recursively) whose name ends with `ext`, sorted;
 * none when `dir` is missing. */
export function filesUnder(dir, ext) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(ext))
    .map((f) => path.join(dir, f))
    .sort();
}

/** The JSON lines of a file, parsed. */
export const readLines = (file) =>
  fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** JSON with sorted keys: the same value compares equal whoever wrote it. */
export const canon = (v) =>
  JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

/** Lines (objects or raw strings) written as a JSON-lines file. */
export function writeLines(file, lines) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

/**
 * A stand-in for a model API on 127.0.0.1: `answer(req, body, res)` replies
 * to each request; every request is recorded (`requests`: method, url,
 * parsed JSON body). It is also the agent's HTTP(S) proxy: a request for
 * any other host is refused at once and its host recorded (`outside`), so
 * nothing leaves the machine and nothing waits on a network timeout.
 */
export async function fakeApi(answer) {
  const requests = [];
  const outside = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      let body = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      requests.push({ method: req.method, url: req.url, body });
      if (!(req.headers.host ?? '').startsWith('127.0.0.1:')) {
        outside.push(req.headers.host);
        res.writeHead(403).end();
        return;
      }
      answer(req, body, res);
    });
  });
  server.on('connect', (req, socket) => {
    outside.push(req.url);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    outside,
    // Agents keep connections alive; close them with the server.
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

/** The environment an agent runs in: nothing of the caller's but `PATH`,
 * a scratch `HOME`, and every HTTP(S) request through `api`'s proxy. */
export function offlineEnv(home, api, extra) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    HTTP_PROXY: api.url,
    HTTPS_PROXY: api.url,
    http_proxy: api.url,
    https_proxy: api.url,
    NO_PROXY: '127.0.0.1',
    no_proxy: '127.0.0.1',
    ...extra,
  };
}

/** Runs a Node CLI without blocking the event loop (the fake API answers
 * from this process), stdin empty (a headless agent would wait for more
 * input on a pipe); its stdout, stderr and exit status. */
export function runNode(script, args, { cwd, env, timeout = 120_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ status: code ?? signal, stdout, stderr }));
  });
}
