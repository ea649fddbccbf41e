// The index page of `retrace serve`: the catalog (/api/sessions) sorted,
// filtered and grouped by project in memory, a few hundred rows drawn at a
// time so 10,000 sessions stay smooth; search across every session
// (/api/search). Text goes in through textContent only.

const PAGE = 300;
const $ = (id) => document.getElementById(id);

let sessions = [];
let shown = PAGE;

const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text != null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
};

const viewUrl = (id, hash) => `/view/?s=${encodeURIComponent(id)}${hash || ''}`;

const bytes = (n) =>
  n < 1e3 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} KB` : n < 1e9 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e9).toFixed(1)} GB`;

const time = (ms) => (ms == null ? '—' : new Date(ms).toLocaleString());

const sorts = {
  new: (a, b) => (b.end ?? b.start ?? 0) - (a.end ?? a.start ?? 0),
  old: (a, b) => (a.start ?? Infinity) - (b.start ?? Infinity),
  size: (a, b) => b.size - a.size,
  entries: (a, b) => (b.entries ?? 0) - (a.entries ?? 0),
  title: (a, b) => a.key.localeCompare(b.key),
};

function prepare(list) {
  for (const s of list) {
    s.key = (s.title || '').toLowerCase();
    s.hay = [s.title, s.project, s.path, s.format, s.model].filter(Boolean).join('\n').toLowerCase();
  }
  return list;
}

function visible() {
  const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  const list = words.length ? sessions.filter((s) => words.every((w) => s.hay.includes(w))) : sessions.slice();
  list.sort(sorts[$('sort').value] || sorts.new);
  if (!$('grouped').checked) return list;
  // Projects in the order of their first session under this sort.
  const groups = new Map();
  for (const s of list) {
    if (!groups.has(s.project)) groups.set(s.project, []);
    groups.get(s.project).push(s);
  }
  return [...groups.values()].flat();
}

function row(s) {
  const tr = el('tr');
  tr.dataset.id = s.id;
  const title = el('td');
  if (s.error) {
    title.append(el('span', s.path, 'path'), el('div', `cannot be read: ${s.error}`, 'error'));
  } else {
    const a = el('a', s.title || '(no text)');
    a.href = viewUrl(s.id);
    title.append(a, el('div', s.path + (s.model ? ` · ${s.model}` : ''), 'path'));
  }
  tr.append(
    title,
    el('td', time(s.start), 'time'),
    el('td', bytes(s.size), 'num'),
    el('td', s.format || '—'),
    el('td', s.entries == null ? '—' : s.entries.toLocaleString(), 'num'),
    el('td', s.branches == null ? '—' : String(s.branches), 'num'),
  );
  return tr;
}

function draw() {
  const list = visible();
  const grouped = $('grouped').checked;
  const counts = new Map();
  if (grouped) for (const s of list) counts.set(s.project, (counts.get(s.project) || 0) + 1);
  const frag = document.createDocumentFragment();
  let project = null;
  for (const s of list.slice(0, shown)) {
    if (grouped && s.project !== project) {
      project = s.project;
      const tr = el('tr', null, 'group');
      const td = el('td', project);
      td.colSpan = 6;
      td.append(' ', el('span', `(${counts.get(project)})`, 'n'));
      tr.append(td);
      frag.append(tr);
    }
    frag.append(row(s));
  }
  $('rows').replaceChildren(frag);
  $('count').textContent = `${list.length.toLocaleString()} of ${sessions.length.toLocaleString()} sessions`;
  const more = $('more');
  more.hidden = list.length <= shown;
  more.textContent = `Show ${Math.min(PAGE, list.length - shown).toLocaleString()} more`;
}

async function load() {
  const answer = await (await fetch('/api/sessions')).json();
  sessions = prepare(answer.sessions);
  const problems = $('problems');
  problems.hidden = !answer.problems.length;
  problems.textContent = answer.problems.join('\n');
  draw();
}

async function search(q) {
  const section = $('results');
  section.hidden = !q;
  if (!q) return;
  $('results-title').textContent = `Searching for “${q}”…`;
  const answer = await (await fetch(`/api/search?q=${encodeURIComponent(q)}`)).json();
  const titles = new Map(sessions.map((s) => [s.id, s]));
  const frag = document.createDocumentFragment();
  for (const h of answer.hits) {
    const s = titles.get(h.session);
    const li = el('li');
    const a = el('a', null, 'hit');
    a.href = viewUrl(h.session, `#leaf=${encodeURIComponent(h.leaf)}&entry=${encodeURIComponent(h.entry)}`);
    a.append(el('span', h.snippet, 'snippet'));
    li.append(a, el('span', `${s ? s.title || '(no text)' : h.session} · ${h.role} · line ${h.line}`, 'role'));
    frag.append(li);
  }
  $('hits').replaceChildren(frag);
  const more = answer.truncated ? ' (more not shown)' : '';
  $('results-title').textContent =
    `${answer.hits.length} hits for “${q}” in ${answer.searched} of ${answer.scanned} sessions scanned, ${Math.round(answer.ms)} ms${more}`;
}

let typing;
$('filter').addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    shown = PAGE;
    draw();
  }, 80);
});
$('sort').addEventListener('change', () => draw());
$('grouped').addEventListener('change', () => draw());
$('more').addEventListener('click', () => {
  shown += PAGE;
  draw();
});
$('search').addEventListener('submit', (e) => {
  e.preventDefault();
  search($('q').value.trim());
});

load();
