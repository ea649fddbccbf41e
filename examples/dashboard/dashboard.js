// A dashboard over the npm package retrace-wasm, as a page that installed
// it would write it (here it imports the built folder, dist-package/).
// Each file gets its own WorkerClient: the engine reads it in a Web Worker,
// so the page stays responsive, and closing the client frees its memory.
// Session text reaches the page only through textContent.

import { WorkerClient } from '../../dist-package/index.js';

const $ = (selector) => document.querySelector(selector);
/** Sessions by row: `{name, client, summary, stats, findings}`. */
const sessions = [];
let current = null;

function cell(row, text, numeric = false) {
  const td = row.insertCell();
  td.textContent = text;
  if (numeric) td.className = 'n';
  return td;
}

function tokens(stats) {
  return stats.models.reduce((sum, [, m]) => sum + m.input_tokens + m.output_tokens + m.cache_read_tokens + m.cache_write_tokens, 0);
}

/** Opens one file in its own worker and adds its row. */
async function add(file) {
  const client = new WorkerClient();
  const entry = { name: file.name, client, findings: 0 };
  client.listen((event) => {
    // The background scan: what a redacted copy would take out.
    if (event.kind === 'scan') {
      entry.findings = event.data.counts.reduce((n, [, c]) => n + c, 0);
      if (entry.row) entry.row.cells[8].textContent = event.data.finished ? entry.findings : `${entry.findings}…`;
    }
  });
  try {
    entry.summary = await client.open([file]);
  } catch (e) {
    $('#status').textContent = `${file.name}: ${e.message} (${e.code})`;
    client.close();
    return;
  }
  const { figures, default_leaf: leaf } = entry.summary;
  const [stats, context, tree] = await Promise.all([
    client.stats(),
    leaf === null ? null : client.context(leaf),
    client.tree(),
  ]);
  entry.stats = stats.stats;
  entry.tree = tree;
  sessions.push(entry);
  const row = $('#sessions tbody').insertRow();
  entry.row = row;
  row.dataset.file = file.name;
  cell(row, file.name);
  cell(row, figures.format);
  cell(row, figures.entries, true);
  cell(row, entry.summary.tips.length, true);
  cell(row, tree.branch_points.filter((b) => b.kind === 'real').length, true);
  cell(row, context ? context.messages.length : 0, true);
  cell(row, entry.stats.tool_calls, true);
  cell(row, tokens(entry.stats).toLocaleString('en'), true);
  cell(row, '…', true);
  const open = document.createElement('button');
  open.textContent = 'details';
  open.addEventListener('click', () => show(entry));
  row.insertCell().append(open);
  client.scan();
}

/** The details of one session: search, migrate, a redacted copy. */
function show(entry) {
  current = entry;
  $('#details').hidden = false;
  $('#details-title').textContent = entry.name;
  const leaf = entry.summary.default_leaf;
  const label = leaf === null ? 'none' : entry.tree.nodes.label[entry.tree.nodes.entry.indexOf(leaf)];
  $('#leaf').textContent = `Default branch ends at ${label}; ${entry.summary.figures.nodes} nodes in the tree.`;
  $('#hits').replaceChildren();
  $('#report tbody').replaceChildren();
  $('#downloads').replaceChildren();
  const copy = document.createElement('button');
  copy.textContent = 'redacted copy';
  copy.addEventListener('click', async () => {
    const made = await entry.client.download(0, 'typed');
    link(made.name, made.file);
  });
  $('#downloads').append(copy, ' ');
}

function link(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.textContent = `${name} (${blob.size} B)`;
  $('#downloads').append(a, ' ');
}

$('#search').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!current) return;
  const found = await current.client.search(e.target.q.value);
  $('#hits').replaceChildren(...found.hits.map((hit) => {
    const li = document.createElement('li');
    li.textContent = `${hit.label} (line ${hit.line}, ${hit.role}): ${hit.snippet}`;
    return li;
  }));
});

$('#migrate').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!current || current.summary.default_leaf === null) return;
  const to = e.target.to.value;
  const body = $('#report tbody');
  try {
    const migration = await current.client.migrate(current.summary.default_leaf, to);
    body.replaceChildren();
    for (const change of migration.report.changes) {
      const row = body.insertRow();
      cell(row, change.count, true);
      cell(row, change.loss ? 'lost' : change.note ? 'note' : 'changed');
      cell(row, change.field);
      cell(row, change.description);
    }
    if (!migration.report.changes.length) cell(body.insertRow(), 'nothing lost or changed').colSpan = 4;
    const json = new Blob([JSON.stringify(migration.body, null, 2)], { type: 'application/json' });
    link(`${current.name}.${to}.json`, json);
  } catch (err) {
    body.replaceChildren();
    cell(body.insertRow(), `${err.message} (${err.code})`).colSpan = 4;
  }
});

async function addAll(files) {
  $('#status').textContent = `reading ${files.length} file(s)…`;
  await Promise.all([...files].map(add));
  $('#status').textContent = `${sessions.length} session(s)`;
}

$('#files').addEventListener('change', (e) => addAll(e.target.files));
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => {
  e.preventDefault();
  addAll(e.dataTransfer.files);
});
