// retrace: starts the viewer held below from its parts, with the session
// held after it (crates/retrace-core/src/html/). Nothing is fetched.
const TYPE = 'application/x-retrace';
const parts = [];
for (const el of document.querySelectorAll(`script[type="${TYPE}"]`)) {
  const { viewer, file, leaf } = el.dataset;
  if (viewer || file !== undefined) parts.push({ viewer, file, leaf, chunks: [] });
  parts.at(-1)?.chunks.push(el);
}
const files = parts.filter((p) => p.file !== undefined);
// This page without its session, to write another from.
const page = document.documentElement.cloneNode(true);
const held = new Set(files.flatMap((p) => p.chunks));
const all = document.querySelectorAll(`script[type="${TYPE}"]`);
page.querySelectorAll(`script[type="${TYPE}"]`).forEach((el, i) => held.has(all[i]) && el.remove());
const open = `<!DOCTYPE html>\n${page.outerHTML}`.replace(/<\/body><\/html>$/, '');
const bytes = Uint8Array.fromBase64
  ?? ((text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
// A part unzipped as it is read; a file's elements leave the page once read.
const blob = (part, type, drop) => {
  let i = 0;
  const gzip = new ReadableStream({
    pull(c) {
      const el = part.chunks[i++];
      if (!el) return c.close();
      c.enqueue(bytes(el.textContent));
      if (drop) el.remove();
    },
  });
  return new Response(gzip.pipeThrough(new DecompressionStream('gzip')))
    .blob().then((b) => new Blob([b], { type }));
};
const note = document.getElementById('retrace-boot');
try {
  const [glue, wasm, worker] = await Promise.all(['glue', 'wasm', 'worker']
    .map((name) => blob(parts.find((p) => p.viewer === name), 'text/javascript')));
  if (files.length) document.title = `${files[0].file} — retrace`;
  const leaf = files.find((p) => p.leaf)?.leaf;
  if (leaf && !location.hash) history.replaceState(null, '', `#leaf=${encodeURIComponent(leaf)}`);
  const read = Promise.all(files.map(async (p) => new File([await blob(p, '', true)], p.file)));
  // A worker cannot import the page's blob: URLs, and Chromium starts one
  // from a blob: URL only as a classic worker: it is given the glue itself.
  const engine = new Worker(URL.createObjectURL(worker));
  // Read by web/src/app/embedded.rs.
  globalThis.retraceEmbedded = { worker: engine, page: new Blob([open]) };
  document.documentElement.classList.add('embedded');
  const module = await WebAssembly.compile(await wasm.arrayBuffer());
  const js = await import(URL.createObjectURL(glue));
  await js.default({ module_or_path: module });
  // The viewer listens to its worker now.
  engine.postMessage({ glue, module });
  // The session opens as files dropped on the viewer do.
  const dropped = new DataTransfer();
  for (const file of await read) dropped.items.add(file);
  document.getElementById('drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true }));
  note.remove();
} catch (e) {
  note.textContent = `This page cannot start the viewer here: ${e}`;
  throw e;
}
