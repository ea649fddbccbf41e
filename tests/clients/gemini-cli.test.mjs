// Gemini CLI's own loader opens Gemini CLI sessions, and sends its model
// the history retrace reads from them.
//
// The loader is the real one: `@google/gemini-cli` 0.61.0 (a JavaScript
// bundle; it runs on Node 20), from this folder's lockfile, offline. Each
// session goes where Gemini CLI looks for a project's chats
// (`$HOME/.gemini/tmp/<project id>/chats/`, the id mapped from the cwd in
// `$HOME/.gemini/projects.json`, under a scratch HOME and cwd) and is
// resumed headless:
//   gemini --resume <sessionId> -p continue -m gemini-2.5-flash -o json --skip-trust
// against a stand-in for the Generative Language API on 127.0.0.1
// (`GOOGLE_GEMINI_BASE_URL`; a named model skips the routing calls). What
// is checked is the request Gemini CLI sends: its `contents` must be what
// `retrace migrate --to google` makes of the same file.
//
// retrace does not fork or seal Gemini CLI sessions yet: the tests of
// those go here (resume the output with `resume`, compare its contents).
//
// Inputs: the Gemini CLI files of the shared corpus (`../shared/corpus/gemini-cli`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { canon, corpus, fakeApi, filesUnder, here, offlineEnv, retrace, runNode, scratch } from './common.mjs';

const geminiCli = path.join(here, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const tmp = scratch('gemini');
const PROMPT = 'continue';
const MODEL = 'gemini-2.5-flash';

/** The Generative Language API, as far as a headless resume needs it: a
 * one-part text answer, streamed or not. */
function generativeApi(req, body, res) {
  const answer = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Continued.' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    modelVersion: MODEL,
  };
  if (req.url.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
  } else if (req.url.includes(':generateContent')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  } else if (req.url.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totalTokens: 10 }));
  } else {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 404, message: req.url, status: 'NOT_FOUND' } }));
  }
}

let runs = 0;
/**
 * Gemini CLI resumes session `sessionId` from `file` (a legacy `.json` or a
 * `.jsonl`, kept under its name). Gives the request it sent to the model
 * (`contents`, the whole `body`), its JSON output, and the folder of
 * chats it wrote to.
 */
async function resume(file, sessionId) {
  const dir = path.join(tmp, `run-${runs++}`);
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(dir, 'project'), { recursive: true });
  const cwd = fs.realpathSync(path.join(dir, 'project'));
  const gemini = path.join(home, '.gemini');
  const chats = path.join(gemini, 'tmp/project/chats');
  fs.mkdirSync(chats, { recursive: true });
  // The project's id, as Gemini CLI would have registered it.
  fs.writeFileSync(path.join(gemini, 'projects.json'), JSON.stringify({ projects: { [cwd]: 'project' } }));
  fs.writeFileSync(
    path.join(gemini, 'settings.json'),
    JSON.stringify({
      // An API key (the base URL alone selects a "gateway" the headless
      // mode refuses).
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    }),
  );
  fs.copyFileSync(file, path.join(chats, path.basename(file)));
  const api = await fakeApi(generativeApi);
  const run = await runNode(geminiCli, ['--resume', sessionId, '-p', PROMPT, '-m', MODEL, '-o', 'json', '--skip-trust'], {
    cwd,
    env: offlineEnv(home, api, { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: 'offline-test-key' }),
  }).finally(api.close);
  assert.equal(run.status, 0, `gemini --resume ${sessionId} failed (${run.status}):\n${run.stderr}\n${run.stdout}`);
  const output = JSON.parse(run.stdout);
  assert.equal(output.session_id, sessionId);
  const sent = api.requests.filter((r) => r.method === 'POST' && /:(stream)?[gG]enerateContent/.test(r.url));
  assert.equal(sent.length, 1, `one request to the model (got ${api.requests.map((r) => `${r.method} ${r.url}`).join(', ')})`);
  assert.ok(sent[0].url.includes(`/models/${MODEL}:`), sent[0].url);
  assert.deepEqual(api.outside, [], 'nothing is sent beyond the machine');
  return { output, body: sent[0].body, contents: sent[0].body.contents, chats };
}

// The turn Gemini CLI puts after a history that ends on tool results, so
// that the prompt is a turn of its own (its constant).
const INTERRUPTED = { role: 'model', parts: [{ text: '[The previous response was interrupted before it completed.]' }] };

/**
 * The history a request carries, without what Gemini CLI adds on its own:
 * the `<session_context>` part opening the first user turn, the prompt
 * that resumed it (the last turn) and the closing turn before it if the
 * history ended on results, and the placeholder thought signature it puts
 * on the first call of each model turn (the API wants one there; the file
 * has none).
 */
function history(contents) {
  const [first, ...rest] = contents;
  assert.match(first.parts[0].text, /^<session_context>/);
  const last = rest.at(-1);
  assert.deepEqual(last, { role: 'user', parts: [{ text: PROMPT }] }, 'the request ends with the prompt');
  let end = rest.length - 1;
  if (canon(rest[end - 1]) === canon(INTERRUPTED) && rest[end - 2]?.parts.some((p) => p.functionResponse)) end--;
  const turns = [{ ...first, parts: first.parts.slice(1) }, ...rest.slice(0, end)].filter((c) => c.parts.length);
  return turns.map((c) => ({
    ...c,
    parts: c.parts.map(({ thoughtSignature, ...part }) => {
      if (thoughtSignature !== undefined) assert.equal(thoughtSignature, 'skip_thought_signature_validator');
      return part;
    }),
  }));
}

/** What retrace's reader makes of a file, as a Google request. */
function retraceContents(file) {
  const out = path.join(tmp, `migrate-${runs++}.json`);
  retrace('-q', 'migrate', file, '--to', 'google', '-o', out);
  return JSON.parse(fs.readFileSync(out, 'utf8')).contents;
}

/** Roles and parts in words, to say which turns differ when a comparison fails. */
const turns = (contents) =>
  contents.map((c) => `${c.role}: ${c.parts.map((p) => (p.functionCall ? `call ${p.functionCall.id}` : p.functionResponse ? `result ${p.functionResponse.id}` : JSON.stringify((p.text ?? '').slice(0, 40)))).join(' | ')}`);

// The corpus's Gemini CLI sessions with tool calls, each a session of its
// own (one id split over two files would be resumed from either).
const sessions = [];
for (const file of filesUnder(path.join(corpus, 'gemini-cli'), '.json')) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const calls = doc.messages.some((m) => m.toolCalls?.length);
  if (calls && !sessions.some((s) => s.id === doc.sessionId)) sessions.push({ file, id: doc.sessionId });
}

test('the corpus has Gemini CLI sessions with tool calls', { skip: !fs.existsSync(path.join(corpus, 'gemini-cli')) && 'no shared corpus' }, () => {
  assert.ok(sessions.length >= 2, sessions.map((s) => s.file).join('\n'));
});

for (const { file, id } of sessions) {
  test(`Gemini CLI resumes the session as retrace reads it (${path.basename(file)})`, async () => {
    const { contents, chats } = await resume(file, id);
    const expected = retraceContents(file);
    const got = history(contents);
    assert.deepEqual(turns(got), turns(expected));
    assert.deepEqual(got, expected);
    // Every call answered in the next turn, as the API wants.
    got.forEach((c, i) => {
      for (const p of c.parts.filter((q) => q.functionCall)) {
        assert.ok(got[i + 1]?.parts.some((q) => q.functionResponse?.id === p.functionCall.id), `call ${p.functionCall.id} answered`);
      }
    });
    // Gemini CLI rewrote the legacy file as JSON lines, the new turn
    // appended: retrace reads that as the same history and the turn.
    if (file.endsWith('.json')) {
      const rewritten = path.join(chats, `${path.basename(file)}l`);
      assert.ok(fs.existsSync(rewritten), fs.readdirSync(chats).join(', '));
      // (A request joins the prompt to results that end the history.)
      const more = [
        { role: 'user', parts: [{ text: PROMPT }] },
        { role: 'model', parts: [{ text: 'Continued.' }] },
      ].reduce((all, turn) => (all.at(-1).role === turn.role ? [...all.slice(0, -1), { ...turn, parts: [...all.at(-1).parts, ...turn.parts] }] : [...all, turn]), expected);
      assert.deepEqual(retraceContents(rewritten), more);
    }
  });
}
