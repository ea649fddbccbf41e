// Folders in the viewer: a folder given to "Open folder…" is split into
// its sessions (the core's split_sessions, as `retrace list` splits it);
// several are listed with their titles and the one picked opens, with a
// way back to the list; a folder of one session opens at once. A dropped
// image is refused with what it is, and no session opens.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { browserSuite, corpus, drop, opened, shot } from './harness.mjs';

const PROJECTS = path.join(corpus, 'claude-code/iansherr__claude-code-log/test/test_data/real_projects');
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);

let scratch;

const suite = browserSuite();

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'retrace-folders-'));
});

after(async () => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A copy of corpus project folders under a new root, with what is no session beside them. */
function projectsRoot(...projects) {
  const root = path.join(scratch, 'projects');
  for (const project of projects) {
    fs.cpSync(path.join(PROJECTS, project), path.join(root, project), { recursive: true });
  }
  fs.writeFileSync(path.join(root, 'screenshot.png'), PNG);
  // A git repository's files are passed over, as `retrace list` passes them.
  fs.mkdirSync(path.join(root, '.git'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git', 'x.jsonl'), '{}\n');
  return root;
}

const listRows = (p) => p.$$eval('.folder-list tbody tr', (rows) => rows.map((r) => ({
  title: r.querySelector('.title button').textContent,
  path: r.querySelector('.path').textContent,
  cells: [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent),
})));

test('a folder of several sessions lists them; the one picked opens, and the list comes back', async () => {
  const root = projectsRoot('-src-experiments-claude_p', '-Users-dain-workspace-JSSoundRecorder');
  const p = await suite.page('/');
  await p.setInputFiles('#folder', root);
  await p.waitForSelector('.folder-list');
  // Titles fill in as the worker reads them.
  await p.waitForFunction(() => {
    const titles = [...document.querySelectorAll('.folder-list .title button')];
    return titles.length > 0 && titles.every((b) => b.textContent !== '…');
  }, null, { timeout: 30000 });
  const rows = await listRows(p);
  // Two projects of two sessions each; the subagent runs go with theirs.
  assert.equal(rows.length, 4, JSON.stringify(rows));
  assert.match(await p.textContent('#folder-heading'), /^4 sessions in this folder/);
  const byFile = (id) => rows.find((r) => r.path.endsWith(`${id}.jsonl`));
  const explore = byFile('29ccd257-68b1-427f-ae5f-6524b7cb6f20');
  assert.match(explore.title, /^Use the Explore task in sub-agents/);
  // Started, format, size, files (the conversation and its subagent run).
  assert.match(explore.cells[0], /^2\d{3}-\d\d-\d\d \d\d:\d\d UTC$/);
  assert.equal(explore.cells[1], 'claude-code');
  assert.equal(explore.cells[3], '2');
  const tools = byFile('94604a7b-062f-4369-bdf0-da948381c3e5');
  assert.match(tools.title, /^What are the tools that are available to you/);
  assert.equal(tools.cells[3], '1');
  // The 2.0 agent file beside its session, named by its first line.
  assert.equal(byFile('7acd37a8-2745-4b58-a8a9-46164b22ad9e').cells[3], '2');
  assert.ok(!rows.some((r) => r.path.includes('.git') || r.path.includes('agent-')), JSON.stringify(rows));
  await shot(p, 'folders-list');

  // Picked by keyboard: Tab to its button, Enter.
  const index = rows.indexOf(tools);
  await p.focus(`.folder-list tbody tr:nth-child(${index + 1}) .title button`);
  await p.keyboard.press('Enter');
  await opened(p);
  assert.equal(await p.$('.folder-list'), null);
  assert.match(await p.textContent('.opened'), /94604a7b-062f-4369-bdf0-da948381c3e5\.jsonl/);
  assert.match(await p.textContent('.conversation'), /What are the tools that are available to you/);

  // Back to the list, then another by click: it opens with its subagent run.
  await p.click('.back-to-list');
  await p.waitForSelector('.folder-list');
  assert.equal((await listRows(p)).length, 4);
  await p.click(`.folder-list tbody tr:nth-child(${rows.indexOf(explore) + 1}) .title button`);
  await opened(p);
  assert.match(await p.textContent('.opened'), /29ccd257-68b1-427f-ae5f-6524b7cb6f20\.jsonl\s*\+ 1 files/);
  assert.match(await p.textContent('.conversation'), /Use the Explore task/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a folder that holds one session opens it', async () => {
  const p = await suite.page('/');
  // A session and the 2.0 agent file its first line names.
  await p.setInputFiles('#folder', path.join(PROJECTS, '-src-deep-manifest'));
  await opened(p);
  assert.equal(await p.$('.folder-list'), null);
  assert.equal(await p.$('.back-to-list'), null);
  assert.match(await p.textContent('.opened'), /a7da6a22-facc-4fcd-8bab-f83c87862004\.jsonl\s*\+ 1 files/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a folder without sessions says so', async () => {
  const dir = path.join(scratch, 'pictures');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.png'), PNG);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a session');
  const p = await suite.page('/');
  await p.setInputFiles('#folder', dir);
  await p.waitForSelector('.status .failure');
  assert.match(await p.textContent('.status .failure'), /the folder pictures holds no session files/);
  assert.equal(await p.$('.row'), null);
  await p.close();
});

test('a dropped PNG is refused with what it is: no session, no download', async () => {
  const p = await suite.page('/');
  await drop(p, [{ name: 'x.png', data: PNG.toString('base64') }]);
  await p.waitForSelector('.status .failure');
  assert.equal(await p.textContent('.status .failure'), 'x.png is a PNG image, not a session file');
  assert.equal(await p.$('.opened'), null);
  assert.equal(await p.$('.row'), null);
  assert.equal(await p.$('.download'), null);
  assert.ok(await p.$('.welcome'));
  await shot(p, 'folders-png');
  // The same through the file picker.
  await p.setInputFiles('#file', { name: 'y.png', mimeType: 'image/png', buffer: PNG });
  await p.waitForFunction(() => document.querySelector('.status .failure')?.textContent.startsWith('y.png'));
  assert.equal(await p.textContent('.status .failure'), 'y.png is a PNG image, not a session file');
  assert.equal(await p.$('.row'), null);
  assert.deepEqual(p.errors, []);
  await p.close();
});
