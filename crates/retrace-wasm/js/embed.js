// The iframe embed (embed.html): one <retrace-player> filling the frame,
// set up from the page's query (`src` and the element's attributes by
// name), and driven over postMessage by the page that embeds it, for
// pages that cannot load modules. PLAYER.md documents the messages.
//
// It talks to one origin only: the `origin` of the query, else the
// parent's origin as the browser reports it (`location.ancestorOrigins`).
// Messages from any other origin, or from any window but the parent, are
// ignored; answers and events go to that origin only (never `*`), so a
// page of another origin that frames the embed hears nothing.

import './player.js';

const ATTRIBUTES = ['src', 'autoplay', 'speed', 'idle-time-limit', 'start-at', 'leaf', 'markers',
  'pause-on-markers', 'theme', 'poster', 'controls', 'hide-sensitive'];
const EVENTS = ['ready', 'play', 'pause', 'ended', 'marker', 'entry', 'error'];
const METHODS = ['play', 'pause', 'seek', 'getCurrentTime', 'getDuration', 'dispose',
  'setAttribute', 'removeAttribute'];

const query = new URLSearchParams(location.search);
const player = document.createElement('retrace-player');
for (const name of ATTRIBUTES) {
  if (!query.has(name)) continue;
  const value = query.get(name);
  // `autoplay=0` and `autoplay=false` are off, as a flag left out.
  if (['autoplay', 'pause-on-markers'].includes(name) && /^(0|false)$/i.test(value)) continue;
  player.setAttribute(name, value);
}

/** The one origin this embed talks to, or null (then it only plays). */
function parentOrigin() {
  if (window.parent === window) return null;
  const given = query.get('origin');
  if (given !== null) {
    try {
      const { origin } = new URL(given);
      // `null` (a file: or sandboxed page) names no one page.
      return origin === 'null' ? null : origin;
    } catch {
      return null;
    }
  }
  return location.ancestorOrigins?.[0] ?? null;
}

const origin = parentOrigin();

function post(message) {
  if (origin) window.parent.postMessage(message, origin);
}

for (const type of EVENTS) {
  player.addEventListener(type, (e) => post({ retrace: 'event', event: type, detail: e.detail }));
}

window.addEventListener('message', (e) => {
  if (!origin || e.origin !== origin || e.source !== window.parent) return;
  const { retrace, id, method, args } = e.data ?? {};
  if (retrace !== 'call') return;
  const answer = (reply) => post({ retrace: 'answer', id, ...reply });
  if (!METHODS.includes(method)) {
    answer({ error: { code: 'bad-request', message: `no method ${String(method)}` } });
    return;
  }
  const list = Array.isArray(args) ? args : [];
  if ((method === 'setAttribute' || method === 'removeAttribute') && !ATTRIBUTES.includes(list[0])) {
    answer({ error: { code: 'bad-request', message: `no attribute ${String(list[0])}` } });
    return;
  }
  try {
    const result = player[method](...list);
    answer({ result: result === undefined ? null : result });
  } catch (error) {
    answer({ error: { code: 'internal', message: String(error?.message ?? error) } });
  }
});

document.body.append(player);
