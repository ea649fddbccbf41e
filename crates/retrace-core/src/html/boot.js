// retrace: this file holds the viewer and a session. This script starts
// the viewer from the parts below the page and hands it the session; it
// loads nothing from anywhere (the page's policy forbids every request).
const TYPE = 'application/x-retrace';
// A part is an element naming it (data-viewer or data-file) and the
// elements without a name that follow it: base64 of its gzip bytes.
const parts = [];
for (const el of document.querySelectorAll(`script[type="${TYPE}"]`)) {
  const { viewer, file } = el.dataset;
  if (viewer !== undefined || file !== undefined) parts.push({ viewer, file, chunks: [] });
  parts.at(-1)?.chunks.push(el);
}
const bytes = Uint8Array.fromBase64
  ?? ((text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
// A part's bytes, unzipped as they are read, a chunk at a time; the
// session's chunks leave the page once read (the engine keeps its copy).
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
  const viewer = (name) => blob(parts.find((p) => p.viewer === name), 'text/javascript');
  const [glue, wasm, worker, frame] = await Promise.all(
    ['glue', 'wasm', 'worker', 'frame'].map(viewer));
  // The branch the export was asked for, unless a link names another.
  const { leaf } = document.documentElement.dataset;
  if (leaf && !location.hash) history.replaceState(null, '', `#leaf=${encodeURIComponent(leaf)}`);
  // What the viewer asks for (web/src/app/embedded.rs): its worker, the
  // session's files, and its own parts, to write this file again.
  globalThis.retraceEmbedded = {
    worker: URL.createObjectURL(worker),
    glue,
    files: Promise.all(parts.filter((p) => p.file !== undefined)
      .map(async (p) => new File([await blob(p, '', true)], p.file))),
    assets: { glue, wasm, worker, frame, style: document.getElementById('retrace-style').textContent },
  };
  const module = await WebAssembly.compile(await wasm.arrayBuffer());
  const js = await import(URL.createObjectURL(glue));
  await js.default({ module_or_path: module });
  note.remove();
} catch (e) {
  note.textContent = `This page cannot start the viewer here: ${e}`;
  throw e;
}
