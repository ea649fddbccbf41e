// A host page's side of the embed, written as a page that loads no
// modules would: frames added with `frame(id, url)`, every message that
// reaches this window recorded in `window.got` ({from, data}), calls made
// with raw postMessage (`call(id, method, args)` resolves with the answer,
// or null when none comes within `ms`).
window.got = [];
window.addEventListener('message', (e) => {
  window.got.push({ from: e.origin, data: e.data });
});
window.frame = (id, url) => {
  const f = document.createElement('iframe');
  f.id = id;
  f.src = url;
  f.title = id;
  document.body.append(f);
  return new Promise((ok) => f.addEventListener('load', () => ok(), { once: true }));
};
let calls = 0;
window.call = (id, method, args = [], ms = 5000) => {
  const f = document.getElementById(id);
  const callId = 1000 + ++calls;
  const target = new URL(f.src).origin;
  f.contentWindow.postMessage({ retrace: 'call', id: callId, method, args }, target);
  return new Promise((ok) => {
    const started = performance.now();
    const look = () => {
      const answer = window.got.find((m) => m.data?.retrace === 'answer' && m.data.id === callId);
      if (answer) ok(answer.data);
      else if (performance.now() - started > ms) ok(null);
      else setTimeout(look, 20);
    };
    look();
  });
};
