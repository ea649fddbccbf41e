// <retrace-player>: a session replayed inside any page (a dashboard, a
// report, docs). Importing this module defines the element; the class is
// exported too. What it takes and says (attributes, methods, events) is
// documented in PLAYER.md beside this file, its types in player.d.ts.
//
// How it works: the page instantiates the engine's module once, shared by
// every player on it, for the core's replay (the `Replay` class: pacing,
// idle cuts, speeds, seeking, marks). Each player runs its session in a
// Web Worker of its own (`WorkerClient`, started with that same compiled
// module), asks it for a branch's rows, and reads bodies in batches for
// the rows near the position only. Session text reaches the page through
// `textContent` only; images only as the `data:` URLs the engine makes.
// Styles live in the shadow root; nothing is added to the host page but
// the element's name.

import init, { Replay, isInvisible } from './retrace_wasm.js';
import { WorkerClient } from './client.js';

/** Marks of a row (the core's `Marks` bits), by the names `markers` takes. */
const MARKS = {
  prompts: 1, errors: 2, compactions: 4, forks: 8, subagents: 16, checkpoints: 32, bookmarks: 64,
};
/** A mark's bit to the name a `marker` event gives it. */
const KINDS = [
  [1, 'prompt'], [2, 'error'], [4, 'compaction'], [8, 'fork'], [16, 'subagent'], [32, 'checkpoint'],
  [64, 'bookmark'],
];
/** The speeds the core's replay has, as `speed` takes them, slowest first,
 * with the core's names. */
const SPEEDS = [['1', 'x1'], ['2', 'x2'], ['5', 'x5'], ['10', 'x10'], ['instant', 'instant']];
/** Rows rendered before the position at first (scrolling up adds more). */
const WINDOW = 40;
/** Bodies asked for in one request. */
const BATCH = 12;
/** Characters of one text shown; the rest is said as a count. */
const TEXT_MAX = 20000;
/** Markers drawn on the scrubber at most (one per bucket of its width). */
const MARKER_BUCKETS = 200;
/** Roles a row's class may name. */
const ROLES = ['user', 'assistant', 'tool', 'system'];
const ATTRIBUTES = ['src', 'autoplay', 'speed', 'idle-time-limit', 'start-at', 'leaf', 'markers',
  'pause-on-markers', 'theme', 'poster', 'controls', 'hide-sensitive'];

const STYLE = `
:host {
  color-scheme: light dark;
  --bg: light-dark(#ffffff, #16181d);
  --ink: light-dark(#1d1f23, #e6e8ec);
  --dim: light-dark(#5a5f68, #a6acb6);
  --line: light-dark(#d9dbe1, #363a45);
  --soft: light-dark(#f3f4f7, #22252d);
  --user: light-dark(#e7f0ff, #1c2638);
  --tool: light-dark(#f6f7f9, #1d2027);
  --accent: light-dark(#3451c7, #91a7ff);
  --error: light-dark(#b42323, #ff8a8a);
  --mark-prompt: light-dark(#3451c7, #91a7ff);
  --mark-error: light-dark(#b42323, #ff8a8a);
  --mark-other: light-dark(#8a6d00, #f2c46b);
  --mono: ui-monospace, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  display: block; position: relative; height: 100%; min-height: 240px; overflow: hidden;
  contain: content; box-sizing: border-box;
  /* Its width is its container's, never its content's (a narrow grid
     cell); the bar drops the clock when narrow. */
  container-type: inline-size;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); border: 1px solid var(--line); border-radius: 8px;
}
:host([theme=light]) { color-scheme: light; }
:host([theme=dark]) { color-scheme: dark; }
:host(:focus-visible) { outline: 2px solid var(--accent); outline-offset: 1px; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.frame { display: flex; flex-direction: column; height: 100%; }
.transcript { flex: 1 1 0; min-height: 0; overflow: auto; overflow-anchor: none; padding: 4px 10px; overflow-wrap: anywhere; }
.row { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px 6px; }
.row.user { background: var(--user); }
.row.tool { background: var(--tool); }
.row.event { border: 0; padding: 0 10px; margin: 2px 0; font-size: 12px; color: var(--dim); }
.row.marked { border-left: 3px solid var(--accent); }
.head { display: flex; flex-wrap: wrap; gap: 0 6px; align-items: baseline; font-size: 12px; color: var(--dim); overflow-wrap: normal; }
.head .who { font-weight: 600; color: var(--ink); text-transform: capitalize; white-space: nowrap; }
.head time { white-space: nowrap; }
.head .mark { border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; font-size: 11px; }
.head .mark.error { color: var(--error); }
.head time { margin-left: auto; }
.text { white-space: pre-wrap; margin: 2px 0; }
.more { color: var(--dim); font-size: 12px; }
details { margin: 3px 0; border-left: 3px solid var(--line); padding-left: 8px; }
details summary { cursor: pointer; font-size: 12px; color: var(--dim); }
details.error summary { color: var(--error); }
bdi, .text, pre { unicode-bidi: isolate; }
.invisible { display: inline-block; direction: ltr; font: 600 9px/1.3 var(--mono); padding: 0 2px; margin: 0 1px; border: 1px solid currentColor; border-radius: 3px; }
pre { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; margin: 2px 0; max-height: 24em; overflow: auto; }
img { max-width: 100%; max-height: 320px; display: block; margin: 4px 0; }
.pending { color: var(--dim); font-size: 12px; }
.status { padding: 8px 12px; color: var(--dim); }
.status.failed { color: var(--error); }
.status:empty { display: none; }
.poster { position: absolute; inset: 0 0 42px 0; display: flex; flex-direction: column; align-items: center;
  justify-content: center; gap: 8px; padding: 16px; text-align: center; background: var(--bg); }
:host([controls=false]) .poster { inset: 0; }
.poster[hidden] { display: none; }
.poster .title { font-size: 16px; font-weight: 600; max-width: 40em; margin: 0; }
.poster .meta { color: var(--dim); font-size: 12px; margin: 0; }
.poster button { width: 56px; height: 56px; border-radius: 50%; border: 0; font-size: 22px;
  background: var(--accent); color: var(--bg); cursor: pointer; }
.bar { display: flex; align-items: center; gap: 6px; padding: 6px 8px; border-top: 1px solid var(--line);
  background: var(--soft); height: 42px; flex: none; }
:host([controls=false]) .bar { display: none; }
.bar button, .bar select { font: inherit; font-size: 13px; color: var(--ink); background: var(--bg);
  border: 1px solid var(--line); border-radius: 5px; min-width: 28px; height: 28px; padding: 0 6px; cursor: pointer; }
.scrub { position: relative; flex: 1; min-width: 60px; height: 28px; }
.scrub input { position: absolute; inset: 0; width: 100%; margin: 0; accent-color: var(--accent); }
.ticks { position: absolute; left: 8px; right: 8px; bottom: 1px; height: 6px; pointer-events: none; }
.tick { position: absolute; width: 2px; height: 6px; background: var(--mark-other); }
.tick.prompt { background: var(--mark-prompt); }
.tick.error { background: var(--mark-error); }
.clock { font-variant-numeric: tabular-nums; font-size: 12px; color: var(--dim); white-space: nowrap; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
@container (max-width: 420px) { .clock { display: none; } .bar { gap: 4px; padding: 6px 4px; } }
@container (max-width: 300px) { .bar .step, .bar select { display: none; } }
`;

let sheet = null;
/** The element's styles, one sheet shared by every player (adopted, so a
 * host page's Content-Security-Policy need not allow inline styles). */
function styles() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}

let shared = null;
/** The engine's module, fetched, compiled and instantiated once for the
 * page (the `Replay` class runs in it); each player's worker starts the
 * same compiled module. */
function engine() {
  if (!shared) {
    shared = (async () => {
      const url = new URL('./retrace_wasm_bg.wasm', import.meta.url);
      const response = await fetch(url);
      if (!response.ok) throw failure('internal', `cannot load the engine: GET ${url}: HTTP ${response.status}`);
      const module = response.headers.get('Content-Type') === 'application/wasm'
        ? await WebAssembly.compileStreaming(response)
        : await WebAssembly.compile(await response.arrayBuffer());
      await init({ module_or_path: module });
      return module;
    })();
    // A failed start may be tried again by the next load.
    shared.catch(() => { shared = null; });
  }
  return shared;
}

function failure(code, message) {
  return { code, message };
}

/** `{code, message}` of anything thrown: an engine's RetraceError keeps
 * its code. */
function asFailure(e) {
  if (e && typeof e.code === 'string' && typeof e.message === 'string') return failure(e.code, e.message);
  return failure('internal', String(e?.message ?? e));
}

/** An element with a class and, optionally, text (never HTML). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A name or an id from the file: in a <bdi> (the text around it keeps
 * its order), each character the core calls invisible (bidi controls,
 * zero-width characters) drawn as a mark, `U+202E`, never put in the
 * page as itself; as the viewer draws names. */
function named(tag, className, text) {
  const node = el(tag, className);
  const bdi = document.createElement('bdi');
  let plain = '';
  for (const ch of String(text)) {
    const code = ch.codePointAt(0);
    if (!isInvisible(code)) {
      plain += ch;
      continue;
    }
    if (plain) bdi.append(plain);
    plain = '';
    const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    const mark = el('span', 'invisible', hex);
    mark.title = `${hex}: an invisible character`;
    mark.dataset.c = String(code);
    bdi.append(mark);
  }
  if (plain) bdi.append(plain);
  node.append(bdi);
  return node;
}

/** `text` cut to TEXT_MAX characters, with a note of the rest. */
function shown(parent, tag, className, text) {
  const cut = text.length > TEXT_MAX;
  parent.append(el(tag, className, cut ? text.slice(0, TEXT_MAX) : text));
  if (cut) parent.append(el('div', 'more', `… ${text.length - TEXT_MAX} more characters`));
}

/** Seconds as m:ss (or h:mm:ss). */
function clock(ms) {
  const s = Math.floor(ms / 1000);
  const two = (n) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  return h ? `${h}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

/** The bytes a `source` may be, as a File to send to the worker. */
function asFile(source, name) {
  if (source instanceof File) return source;
  if (source instanceof Blob) return new File([source], source.name || name);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return new File([source], name);
  return null;
}

export class RetracePlayer extends HTMLElement {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  #ui;
  /** The session's worker (one per player, kept across loads). */
  #client = null;
  #replay = null;
  #summary = null;
  /** The branch's rows as columns (`branch`'s answer), and its leaf. */
  #rows = null;
  #leaf = 0;
  #timeline = [];
  /** Bodies by row, and the rows asked for. */
  #bodies = new Map();
  #asked = new Set();
  /** Rendered row elements by row, and how far back from the position
   * rows are rendered. */
  #rendered = new Map();
  #window = WINDOW;
  #timer = 0;
  /** Counts loads: a later one supersedes what an earlier one awaits. */
  #loads = 0;
  #source = null;
  #ready = false;
  #disposed = false;
  /** play() asked before the session was ready. */
  #wantPlay = false;
  /** Played or moved since the load (the poster card goes). */
  #started = false;
  /** The position before playing starts the first time (`start-at`),
   * when the poster shows another. */
  #startAt = null;
  #mask = MARKS.prompts;
  /** The position the last events left (for `marker`: one row on). */
  #lastPosition = 0;
  /** Images read, as data: URLs, by `row:index`. */
  #images = new Map();
  #loadQueued = false;
  /** The error said is one the session plays on after. */
  #passing = false;
  /** The element's aria-label is the player's own (named after the
   * session once ready), not the page's. */
  #labelled = false;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styles()];
    const frame = el('div', 'frame');
    const status = el('div', 'status');
    status.setAttribute('role', 'status');
    const transcript = el('div', 'transcript');
    transcript.setAttribute('role', 'list');
    transcript.setAttribute('aria-label', 'Conversation');
    const poster = el('div', 'poster');
    poster.hidden = true;
    const posterTitle = el('p', 'title');
    const posterMeta = el('p', 'meta');
    const bigPlay = el('button', '', '▶');
    bigPlay.setAttribute('aria-label', 'Play');
    poster.append(bigPlay, posterTitle, posterMeta);
    const bar = el('div', 'bar');
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Replay');
    const button = (text, label, act) => {
      const b = el('button', '', text);
      b.type = 'button';
      b.title = label;
      b.setAttribute('aria-label', label);
      b.addEventListener('click', act);
      return b;
    };
    const play = button('▶', 'Play (space)', () => this.#toggle());
    const back = button('◀', 'Step back (←)', () => this.#act((r) => r.stepBack()));
    const forward = button('▶|', 'Step forward (→)', () => this.#act((r) => r.stepForward()));
    back.classList.add('step');
    forward.classList.add('step');
    const scrub = el('div', 'scrub');
    const range = el('input');
    range.type = 'range';
    range.min = '0';
    range.max = '0';
    range.value = '0';
    range.setAttribute('aria-label', 'Replay position (seconds)');
    range.addEventListener('input', () => this.seek(Number(range.value) / 1000));
    const ticks = el('div', 'ticks');
    scrub.append(range, ticks);
    const time = el('span', 'clock', '0:00 / 0:00');
    const speed = el('select');
    speed.setAttribute('aria-label', 'Speed');
    speed.title = 'Speed (< >)';
    for (const [label] of SPEEDS) {
      const option = el('option', '', label === 'instant' ? 'instant' : `${label}x`);
      option.value = label;
      speed.append(option);
    }
    speed.addEventListener('change', () => this.setAttribute('speed', speed.value));
    bar.append(play, back, forward, scrub, time, speed);
    frame.append(status, transcript, bar);
    root.append(frame, poster);
    bigPlay.addEventListener('click', () => this.play());
    transcript.addEventListener('scroll', () => this.#scrolled());
    this.addEventListener('keydown', (e) => this.#key(e));
    this.#ui = { status, transcript, poster, posterTitle, posterMeta, play, range, ticks, time, speed };
  }

  connectedCallback() {
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    if (!this.hasAttribute('role')) this.setAttribute('role', 'region');
    if (!this.hasAttribute('aria-label')) {
      this.#labelled = true;
      this.setAttribute('aria-label', 'Session replay');
    }
    if (this.#disposed) {
      // Put back on a page after its disposal: a player again.
      this.#revive();
    } else if (this.#loads === 0) {
      this.#queueLoad();
    }
  }

  /** Loads once the attributes set together are all set (a parsed
   * element gets them one by one). */
  #queueLoad() {
    if (this.#loadQueued) return;
    this.#loadQueued = true;
    queueMicrotask(() => {
      this.#loadQueued = false;
      if (this.isConnected && !this.#disposed) this.#load();
    });
  }

  disconnectedCallback() {
    this.pause();
    // Moved (taken out and put back in one task) it stays; removed, it
    // frees its worker.
    queueMicrotask(() => {
      if (!this.isConnected) this.dispose();
    });
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (this.#disposed) {
      // A new session for a disposed player: a player again.
      if (name === 'src' && this.isConnected) this.#revive();
      return;
    }
    switch (name) {
      case 'src':
        if (!this.#source) this.#queueLoad();
        break;
      case 'leaf':
        if (this.#loads > 0 || this.#loadQueued) this.#queueLoad();
        break;
      case 'speed':
      case 'idle-time-limit':
      case 'pause-on-markers':
        this.#applyOptions();
        break;
      case 'markers':
        this.#mask = this.#markers();
        this.#applyOptions();
        this.#drawTicks();
        for (const [i, node] of this.#rendered) node.classList.toggle('marked', !!(this.#rows.marks[i] & this.#mask));
        break;
      case 'hide-sensitive':
        this.#applyHiding();
        break;
      default:
        // theme, controls: styles; autoplay, start-at, poster: read on load.
        break;
    }
  }

  /** The session to play given from script: a File, a Blob, an
   * ArrayBuffer or a typed array (it wins over `src`). */
  get source() {
    return this.#source;
  }

  set source(value) {
    this.#source = value ?? null;
    if (this.#disposed && this.isConnected) this.#revive();
    else if (!this.#disposed) this.#queueLoad();
  }

  #revive() {
    this.#disposed = false;
    this.#queueLoad();
  }

  /** Starts playing (from the end: over from the start). Before the
   * session is ready, it plays once it is. */
  play() {
    if (this.#disposed) return;
    if (!this.#replay) {
      this.#wantPlay = true;
      return;
    }
    const r = this.#replay;
    if (!this.#started && this.#startAt !== null && r.position() !== this.#startAt) {
      r.seek(this.#startAt, performance.now());
    }
    this.#started = true;
    r.play(performance.now());
    this.#drain();
  }

  pause() {
    this.#wantPlay = false;
    if (!this.#replay) return;
    this.#replay.pause();
    this.#drain();
  }

  /** Seeks to `to` seconds of the timeline, or to the row of entry id
   * `to` (a string). Returns whether it found the place. */
  seek(to) {
    if (!this.#replay) return false;
    const now = performance.now();
    if (typeof to === 'number') {
      if (!Number.isFinite(to) || to < 0) {
        this.#fail(failure('bad-request', `cannot seek to ${to} seconds`));
        return false;
      }
      this.#replay.seekOffset(to * 1000, now);
    } else {
      const row = this.#rowOfLabel(String(to));
      if (row < 0) {
        this.#fail(failure('not-found', `no entry ${String(to)} on this branch`));
        return false;
      }
      this.#replay.seek(row + 1, now);
    }
    this.#started = true;
    this.#drain();
    return true;
  }

  /** Seconds of the timeline at the last row shown (idle gaps cut). */
  getCurrentTime() {
    const p = this.#replay?.position() ?? 0;
    return p === 0 ? 0 : this.#timeline[p - 1] / 1000;
  }

  /** Seconds of the whole timeline (idle gaps cut); 0 before `ready`. */
  getDuration() {
    const n = this.#timeline.length;
    return n === 0 ? 0 : this.#timeline[n - 1] / 1000;
  }

  /** Ends the player's worker (and the session's memory with it) and
   * empties the element; a later `src` or `source`, or putting it back
   * on a page, loads again. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#loads += 1;
    this.#reset();
    this.#client?.close();
    this.#client = null;
    this.#ui.status.textContent = '';
  }

  // Loading.

  async #load() {
    const load = ++this.#loads;
    const current = () => load === this.#loads;
    this.#reset();
    this.#say('Loading…');
    try {
      const file = await this.#file();
      if (!current()) return;
      if (!file) {
        this.#say('');
        return;
      }
      const module = await engine();
      if (!current()) return;
      this.#client ??= new WorkerClient({ module });
      const client = this.#client;
      const start = this.getAttribute('start-at');
      const startEntry = start !== null && !/^\s*\d+(\.\d+)?\s*$/.test(start) ? start.replace(/^#/, '') : null;
      const leafLabel = this.getAttribute('leaf');
      const summary = await client.open([file], leafLabel ?? undefined, startEntry ?? undefined);
      if (!current()) return;
      if (!this.#flag('hide-sensitive', true)) await client.hideSensitive(false);
      if (leafLabel !== null && summary.requested_leaf == null) {
        this.#fail(failure('not-found', `no entry ${leafLabel} in the session; playing its default branch`));
      }
      const leaf = summary.requested_leaf ?? summary.default_leaf;
      if (leaf == null) throw failure('not-a-session', `${file.name} has no conversation to play`);
      const branch = await client.branch(leaf);
      if (!current()) return;
      this.#summary = summary;
      this.#leaf = leaf;
      this.#rows = branch.rows;
      this.#mask = this.#markers();
      this.#replay = new Replay(branch.rows.time, Uint8Array.from(branch.rows.marks), this.#options());
      this.#timeline = Array.from(this.#replay.timeline());
      this.#place(summary.requested_entry, startEntry);
      this.#drawTicks();
      this.#updateBar();
      await this.#render(true);
      if (!current()) return;
      this.#ready = true;
      // "Loading…" goes; an attribute's refusal stays until the next move.
      if (this.#ui.status.classList.contains('failed')) this.#passing = true;
      else this.#say('');
      const first = summary.outline.find((s) => s.preview?.prompt) ?? summary.outline[0];
      // Players side by side are told apart by their sessions.
      if (this.#labelled && first?.preview) this.setAttribute('aria-label', `Session replay: ${first.preview.text}`);
      this.#emit('ready', {
        duration: this.getDuration(),
        rows: this.#rows.entry.length,
        format: summary.figures.format,
        leaf: branch.leaf_label,
        title: first?.preview?.text ?? null,
      });
      if (this.#wantPlay || this.#flag('autoplay', false)) this.play();
    } catch (e) {
      if (current()) {
        this.#say('');
        this.#fail(asFailure(e));
      }
    }
  }

  /** The session's bytes as a File: `source`, else `src` fetched. */
  async #file() {
    if (this.#source) {
      const file = asFile(this.#source, 'session.jsonl');
      if (!file) throw failure('bad-request', '`source` is neither a File, a Blob, an ArrayBuffer nor a typed array');
      return file;
    }
    const src = this.getAttribute('src');
    if (!src) return null;
    const url = new URL(src, document.baseURI);
    let response;
    try {
      response = await fetch(url);
    } catch (e) {
      throw failure('unreadable', `GET ${url.href}: ${e.message}`);
    }
    if (!response.ok) throw failure('unreadable', `GET ${url.href}: HTTP ${response.status}`);
    const name = decodeURIComponent(url.pathname.split('/').pop() || '') || 'session.jsonl';
    return new File([await response.blob()], name);
  }

  /** The position before playing: `poster`'s, else `start-at`'s (which
   * playing starts from either way). */
  #place(requestedEntry, startEntry) {
    const r = this.#replay;
    const now = performance.now();
    const start = this.getAttribute('start-at');
    this.#startAt = null;
    if (startEntry !== null) {
      const row = requestedEntry == null ? -1 : this.#rowOfEntry(requestedEntry);
      if (row < 0) this.#fail(failure('not-found', `no entry ${startEntry} on this branch; starting from the start`));
      else this.#startAt = row + 1;
    } else if (start !== null) {
      r.seekOffset(Number(start) * 1000, now);
      this.#startAt = r.position();
    }
    const poster = (this.getAttribute('poster') ?? '').trim();
    let shown = this.#startAt ?? 0;
    let card = true;
    if (poster === 'end') {
      shown = r.len();
      card = false;
    } else if (/^npt:/.test(poster)) {
      const s = Number(poster.slice(4));
      if (Number.isFinite(s) && s >= 0) {
        r.seekOffset(s * 1000, now);
        shown = r.position();
        card = false;
      } else {
        this.#fail(failure('bad-request', `poster ${poster}: npt: takes seconds`));
      }
    } else if (poster !== '' && poster !== 'title') {
      this.#fail(failure('bad-request', `poster ${poster}: not title, end or npt:SECONDS`));
    }
    r.seek(shown, now);
    while (r.pollEvent() !== undefined);
    this.#lastPosition = r.position();
    this.#started = false;
    if (card) this.#showPoster();
  }

  #showPoster() {
    const s = this.#summary;
    const first = s.outline.find((o) => o.preview?.prompt) ?? s.outline[0];
    this.#ui.posterTitle.replaceChildren(named('span', '', first?.preview?.text ?? s.files[0]?.name ?? ''));
    const rows = this.#rows.entry.length;
    this.#ui.posterMeta.textContent = `${s.figures.format} · ${rows} rows · ${clock(this.getDuration() * 1000)}`;
    this.#ui.poster.hidden = false;
  }

  /** Forgets the session shown (not the worker). */
  #reset() {
    clearTimeout(this.#timer);
    this.#timer = 0;
    this.#replay?.free();
    this.#replay = null;
    this.#rows = null;
    this.#summary = null;
    this.#timeline = [];
    this.#bodies.clear();
    this.#asked.clear();
    this.#rendered.clear();
    this.#images.clear();
    this.#lastPosition = 0;
    this.#window = WINDOW;
    this.#ready = false;
    this.#started = false;
    this.#startAt = null;
    this.#ui.transcript.replaceChildren();
    this.#ui.ticks.replaceChildren();
    this.#ui.poster.hidden = true;
    this.#updateBar();
  }

  // Attributes.

  /** A boolean attribute: absent is `dflt`; present is on unless "false". */
  #flag(name, dflt) {
    const v = this.getAttribute(name);
    return v === null ? dflt : v.trim().toLowerCase() !== 'false';
  }

  /** The marks `markers` names (prompts by default). */
  #markers() {
    const value = this.getAttribute('markers');
    if (value === null) return MARKS.prompts;
    let mask = 0;
    for (const word of value.toLowerCase().split(/[\s,]+/).filter(Boolean)) {
      if (word === 'none') continue;
      if (word === 'all') mask |= 127;
      else if (MARKS[word]) mask |= MARKS[word];
      else this.#fail(failure('bad-request', `markers: no kind ${word} (prompts, errors, compactions, forks, subagents, checkpoints, bookmarks, all, none)`));
    }
    return mask;
  }

  /** The core's replay options from the attributes; a bad value is an
   * `error` event, and its default stays. */
  #options() {
    const options = { speed: 'x1', max_gap_ms: 3000, untimed_gap_ms: 700, pause_on_error: false, pause_on: 0 };
    const speed = this.getAttribute('speed');
    if (speed !== null) {
      const want = speed.trim().toLowerCase().replace(/x$/, '');
      const found = SPEEDS.find(([label]) => label === want);
      if (found) options.speed = found[1];
      else this.#fail(failure('bad-request', `speed ${speed}: one of 1, 2, 5, 10 or instant`));
    }
    const idle = this.getAttribute('idle-time-limit');
    if (idle !== null) {
      const s = Number(idle);
      if (idle.trim() !== '' && Number.isFinite(s) && s >= 0) options.max_gap_ms = Math.round(s * 1000);
      else this.#fail(failure('bad-request', `idle-time-limit ${idle}: seconds, 0 or more`));
    }
    if (this.#flag('pause-on-markers', false)) options.pause_on = this.#mask;
    const label = SPEEDS.find(([, core]) => core === options.speed)[0];
    this.#ui.speed.value = label;
    return options;
  }

  #applyOptions() {
    if (!this.#replay) return;
    this.#replay.setOptions(this.#options(), performance.now());
    this.#timeline = Array.from(this.#replay.timeline());
    this.#drawTicks();
    this.#drain();
  }

  async #applyHiding() {
    const client = this.#client;
    if (!client || !this.#rows) return;
    const load = this.#loads;
    try {
      await client.hideSensitive(this.#flag('hide-sensitive', true));
    } catch (e) {
      this.#fail(asFailure(e));
      return;
    }
    if (load !== this.#loads) return;
    this.#bodies.clear();
    this.#asked.clear();
    for (const node of this.#rendered.values()) node.remove();
    this.#rendered.clear();
    this.#render(false);
  }

  // The replay.

  /** Runs `f` on the replay, then shows what happened. */
  #act(f) {
    if (!this.#replay) return;
    f(this.#replay);
    this.#started = true;
    this.#drain();
  }

  #toggle() {
    if (this.#replay?.isPlaying()) this.pause();
    else this.play();
  }

  /** Turns the replay's events into the element's, redraws, and sets the
   * timer for the next row. */
  #drain() {
    const r = this.#replay;
    if (!r) return;
    let before = null;
    for (let e = r.pollEvent(); e !== undefined; e = r.pollEvent()) {
      if (e.event === 'moved') {
        before ??= this.#lastPosition ?? 0;
        this.#moved(before, e.position);
        before = e.position;
      } else if (e.event === 'played') {
        this.#emit('play', { time: this.getCurrentTime() });
      } else if (e.event === 'paused') {
        this.#emit('pause', { reason: e.reason, time: this.getCurrentTime() });
        if (e.reason === 'end') this.#emit('ended', { time: this.getCurrentTime() });
      }
    }
    if (!this.#started && (r.isPlaying() || before !== null)) this.#started = true;
    if (this.#passing && (r.isPlaying() || before !== null)) {
      this.#passing = false;
      this.#say('');
    }
    if (this.#started) this.#ui.poster.hidden = true;
    this.#render(false);
    this.#updateBar();
    clearTimeout(this.#timer);
    const due = r.pollTimeout();
    if (due !== undefined) {
      this.#timer = setTimeout(() => {
        if (this.#replay !== r) return;
        r.handleTimeout(performance.now());
        this.#drain();
      }, Math.max(0, due - performance.now()));
    }
  }

  /** The position went from `from` to `to`: an `entry` event for the last
   * row shown, and a `marker` event for a marker row shown by moving one
   * row on. */
  #moved(from, to) {
    this.#lastPosition = to;
    if (to === 0) return;
    const i = to - 1;
    const rows = this.#rows;
    const detail = {
      row: i, entry: rows.label[i], role: rows.roles[rows.role_of[i]], time: this.#timeline[i] / 1000,
    };
    this.#emit('entry', detail);
    const marks = rows.marks[i] & this.#mask;
    if (to === from + 1 && marks) {
      this.#emit('marker', { ...detail, kinds: KINDS.filter(([bit]) => marks & bit).map(([, n]) => n) });
    }
  }

  #key(e) {
    // A control's own keys are its own (the scrubber's arrows, a button's
    // space, a summary's Enter).
    const target = e.composedPath()[0];
    if (e.ctrlKey || e.metaKey || e.altKey || !this.#replay) return;
    if (target instanceof HTMLElement && /^(INPUT|SELECT|TEXTAREA|BUTTON|SUMMARY)$/.test(target.tagName)) return;
    const r = this.#replay;
    const mask = this.#mask || MARKS.prompts;
    const last = r.position() - 1;
    switch (e.key) {
      case ' ': this.#toggle(); break;
      case 'ArrowRight': this.#act((x) => x.stepForward()); break;
      case 'ArrowLeft': this.#act((x) => x.stepBack()); break;
      case 'Home': this.#act((x) => x.seek(0, performance.now())); break;
      case 'End': this.#act((x) => x.seek(x.len(), performance.now())); break;
      case 'j': {
        // The next marker after the last row shown (the first row too,
        // when none is).
        const row = last < 0 && (this.#rows.marks[0] & mask) ? 0 : r.nextMarked(Math.max(last, 0), mask);
        if (row !== undefined) this.#act((x) => x.seek(row + 1, performance.now()));
        break;
      }
      case 'k': {
        const row = last > 0 ? r.previousMarked(last, mask) : undefined;
        if (row !== undefined) this.#act((x) => x.seek(row + 1, performance.now()));
        break;
      }
      case '<':
      case '>': {
        const at = SPEEDS.findIndex(([label]) => label === this.#ui.speed.value);
        const next = SPEEDS[Math.min(SPEEDS.length - 1, Math.max(0, at + (e.key === '>' ? 1 : -1)))];
        this.setAttribute('speed', next[0]);
        break;
      }
      default: return;
    }
    e.preventDefault();
  }

  // Rows.

  #rowOfEntry(entry) {
    const rows = this.#rows;
    for (let i = 0; i < rows.entry.length; i++) {
      if (rows.entry[i] <= entry && entry < rows.entry[i] + rows.count[i]) return i;
    }
    return -1;
  }

  #rowOfLabel(label) {
    return this.#rows ? this.#rows.label.indexOf(label.replace(/^#/, '')) : -1;
  }

  /** Renders the rows shown near the position (bodies asked for in
   * batches, nearest first); `first`: resolves once the nearest batch is
   * drawn. */
  async #render(first) {
    const r = this.#replay;
    if (!r) return;
    const t = this.#ui.transcript;
    const atBottom = t.scrollTop + t.clientHeight >= t.scrollHeight - 8;
    const hi = r.position();
    const lo = Math.max(0, hi - this.#window);
    for (const [i, node] of this.#rendered) {
      if (i < lo || i >= hi) {
        node.remove();
        this.#rendered.delete(i);
      }
    }
    let next = null;
    for (let i = hi - 1; i >= lo; i--) {
      let node = this.#rendered.get(i);
      if (!node) {
        node = this.#row(i);
        this.#rendered.set(i, node);
        t.insertBefore(node, next);
      }
      next = node;
    }
    if (atBottom || r.isPlaying() || first) t.scrollTop = t.scrollHeight;
    // Bodies: the batch ending at the position first, then back, and the
    // batch after it while playing.
    const wanted = [];
    for (let end = hi; end > lo; end -= BATCH) wanted.push([Math.max(lo, end - BATCH), end]);
    if (r.isPlaying() && hi < r.len()) wanted.unshift([hi, Math.min(r.len(), hi + BATCH)]);
    const asked = wanted.map(([a, b]) => this.#fetch(a, b));
    if (first && asked.length) await asked[0];
    this.#forget(lo, hi);
  }

  /** Asks for the bodies of rows `a..b` not asked for yet. */
  async #fetch(a, b) {
    while (a < b && this.#asked.has(a)) a++;
    while (b > a && this.#asked.has(b - 1)) b--;
    if (a >= b) return;
    for (let i = a; i < b; i++) this.#asked.add(i);
    const load = this.#loads;
    const leaf = this.#leaf;
    let got;
    try {
      got = await this.#client.bodies(leaf, a, b);
    } catch (e) {
      if (load === this.#loads) this.#fail(asFailure(e));
      return;
    }
    if (load !== this.#loads || !this.#rows) return;
    const t = this.#ui.transcript;
    const stick = t.scrollTop + t.clientHeight >= t.scrollHeight - 8 || this.#replay?.isPlaying();
    got.items.forEach((body, k) => {
      const i = got.start + k;
      this.#bodies.set(i, body);
      const old = this.#rendered.get(i);
      if (old) {
        const node = this.#row(i);
        old.replaceWith(node);
        this.#rendered.set(i, node);
      }
    });
    if (stick) t.scrollTop = t.scrollHeight;
  }

  /** Keeps memory flat on a long branch: bodies far from the rows shown
   * are let go (asked for again if needed). */
  #forget(lo, hi) {
    if (this.#bodies.size <= 4 * this.#window) return;
    for (const i of this.#bodies.keys()) {
      if (i < lo - 2 * BATCH || i >= hi + 2 * BATCH) {
        this.#bodies.delete(i);
        this.#asked.delete(i);
      }
    }
  }

  /** Scrolled to the top: render rows further back. */
  #scrolled() {
    const r = this.#replay;
    if (!r || this.#ui.transcript.scrollTop > 40) return;
    if (r.position() - this.#window <= 0) return;
    const t = this.#ui.transcript;
    const from = t.scrollHeight;
    this.#window += WINDOW;
    // The rows go in at once (the bodies follow): the rows on screen stay
    // where they were.
    this.#render(false);
    t.scrollTop += t.scrollHeight - from;
  }

  /** Row `i`: its head from the index, its body when read. */
  #row(i) {
    const rows = this.#rows;
    const role = rows.roles[rows.role_of[i]] || rows.types[rows.type_of[i]] || 'entry';
    const body = this.#bodies.get(i);
    const event = rows.kind[i] === 1 || (body && !body.message && body.event !== null);
    // The role names a class only when it is one of these (it is the
    // file's text).
    const kind = event ? 'event' : ROLES.includes(role) ? role : 'other';
    const node = el('div', `row ${kind}`);
    node.setAttribute('role', 'listitem');
    node.dataset.row = String(i);
    const marks = rows.marks[i];
    if (marks & this.#mask) node.classList.add('marked');
    if (!event) {
      const head = el('div', 'head');
      head.append(named('span', 'who', body?.message?.role ?? role));
      for (const [bit, name] of KINDS) {
        if (marks & bit && (bit & (MARKS.prompts | MARKS.errors | MARKS.compactions | MARKS.bookmarks))) {
          head.append(el('span', `mark ${name}`, name));
        }
      }
      const ms = rows.time[i];
      if (ms !== null) {
        const when = new Date(ms);
        const time = el('time', '', when.toLocaleTimeString());
        time.dateTime = when.toISOString();
        time.title = when.toISOString();
        head.append(time);
      }
      node.append(head);
    }
    if (!body) {
      node.append(el('div', 'pending', '…'));
    } else if (body.message) {
      this.#message(node, body.message, i);
    } else if (body.event !== null && body.event !== undefined) {
      shown(node, 'div', 'text', body.event);
    } else {
      node.append(el('div', 'pending', 'this line could not be read'));
    }
    return node;
  }

  /** A message's parts: text as text; thinking, calls and results
   * collapsed; images as the engine's data: URLs. */
  #message(node, message, row) {
    let image = 0;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          shown(node, 'div', 'text', part.text);
          break;
        case 'thinking': {
          const d = el('details', 'thinking');
          d.append(el('summary', '', part.redacted ? 'thinking (withheld)' : 'thinking'));
          shown(d, 'div', 'text', part.text);
          node.append(d);
          break;
        }
        case 'tool_call': {
          const d = el('details', 'call');
          d.append(named('summary', '', `${part.name}`));
          const args = typeof part.arguments === 'string'
            ? part.arguments : JSON.stringify(part.arguments, null, 2) ?? '';
          shown(d, 'pre', '', args);
          node.append(d);
          break;
        }
        case 'tool_result': {
          const d = el('details', part.is_error ? 'result error' : 'result');
          d.append(el('summary', '', part.is_error ? 'result (error)' : 'result'));
          shown(d, 'pre', '', part.output);
          node.append(d);
          break;
        }
        case 'image':
          node.append(this.#image(row, image++, part));
          break;
        case 'checkpoint':
          node.append(named('div', 'more', `checkpoint ${String(part.commit).slice(0, 7)}${part.tool ? ` — ${part.tool}` : ''}`));
          break;
        default:
          break;
      }
    }
  }

  /** An image, loaded from the engine as a `data:` URL (never fetched
   * from anywhere). */
  #image(row, index, part) {
    const key = `${row}:${index}`;
    const image = (url) => {
      const img = el('img');
      img.alt = `image ${index + 1} of row ${row + 1}`;
      img.src = url;
      return img;
    };
    if (this.#images.has(key)) return image(this.#images.get(key));
    const holder = el('div', 'pending', `image (${part.media_type}, ${part.byte_size} B)`);
    const load = this.#loads;
    this.#client.image(this.#leaf, row, index).then((got) => {
      if (load !== this.#loads || !/^data:image\//.test(got.url)) return;
      this.#images.set(key, got.url);
      holder.replaceWith(image(got.url));
    }, (e) => {
      holder.textContent = `image not shown: ${asFailure(e).message}`;
    });
    return holder;
  }

  // The frame.

  /** Says `text` above the rows (nothing: the line goes), keeping rows
   * that were at the bottom there. */
  #say(text, failed = false) {
    const t = this.#ui.transcript;
    const atBottom = t.scrollTop + t.clientHeight >= t.scrollHeight - 8;
    this.#ui.status.textContent = text;
    this.#ui.status.classList.toggle('failed', failed);
    if (atBottom) t.scrollTop = t.scrollHeight;
  }

  /** An `error` event, said in the frame too: until the next load when the
   * session could not be shown, until the next move when it plays on. */
  #fail(error) {
    this.#say(error.message, true);
    this.#passing = this.#ready;
    this.#emit('error', error);
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  #updateBar() {
    const ui = this.#ui;
    const r = this.#replay;
    const playing = !!r?.isPlaying();
    ui.play.textContent = playing ? '❚❚' : '▶';
    ui.play.setAttribute('aria-label', playing ? 'Pause (space)' : 'Play (space)');
    const total = this.getDuration() * 1000;
    const at = this.getCurrentTime() * 1000;
    ui.range.max = String(Math.round(total));
    ui.range.value = String(Math.round(at));
    ui.range.setAttribute('aria-valuetext', `${clock(at)} of ${clock(total)}`);
    ui.time.textContent = `${clock(at)} / ${clock(total)}`;
  }

  /** Marker ticks on the scrubber, one per bucket of its width. */
  #drawTicks() {
    const ticks = this.#ui.ticks;
    ticks.replaceChildren();
    const rows = this.#rows;
    const total = this.getDuration() * 1000;
    if (!rows || !this.#mask) return;
    const taken = new Set();
    for (let i = 0; i < rows.marks.length; i++) {
      const marks = rows.marks[i] & this.#mask;
      if (!marks) continue;
      const left = total > 0 ? this.#timeline[i] / total : i / rows.marks.length;
      const bucket = Math.min(MARKER_BUCKETS - 1, Math.floor(left * MARKER_BUCKETS));
      if (taken.has(bucket)) continue;
      taken.add(bucket);
      const kind = KINDS.find(([bit]) => marks & bit)[1];
      const tick = el('span', `tick ${kind}`);
      tick.style.left = `${(left * 100).toFixed(3)}%`;
      ticks.append(tick);
    }
  }
}

if (!customElements.get('retrace-player')) customElements.define('retrace-player', RetracePlayer);
