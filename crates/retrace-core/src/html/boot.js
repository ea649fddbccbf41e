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
// The page is windows-1252: a byte is the character its decoder gives,
// which is the byte but for 0x80-0x9F (these 32); `=` and the byte plus
// 64 stand for a byte the parser would change (html/mod.rs).
const C1 = '\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f'
  + '\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178';
const byteOf = new Uint8Array(0x2123);
const codeOf = (b) => (b >= 0x80 && b < 0xa0 ? C1.charCodeAt(b - 0x80) : b);
for (let b = 0; b < 256; b++) byteOf[codeOf(b)] = b;
const bytes = (text) => {
  const out = new Uint8Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[n++] = c === 61 ? text.charCodeAt(++i) - 64 : byteOf[c];
  }
  return out.subarray(0, n);
};
// This page as windows-1252 bytes again: the parts' characters are bytes;
// any other character (the frame's, from its references) a reference.
const encode = (html) => {
  // A reference is at most 8 bytes for each UTF-16 unit it stands for.
  const out = new Uint8Array(html.length * 8);
  let n = 0;
  for (let i = 0; i < html.length; i++) {
    let c = html.charCodeAt(i);
    if (c < 0x2123 && codeOf(byteOf[c]) === c) {
      out[n++] = byteOf[c];
      continue;
    }
    c = html.codePointAt(i);
    if (c > 0xffff) i++;
    for (const d of `&#${c};`) out[n++] = d.charCodeAt(0);
  }
  return out.slice(0, n);
};
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
  if (files.length) document.title = `${files[0].file} \u2014 retrace`;
  const leaf = files.find((p) => p.leaf)?.leaf;
  if (leaf && !location.hash) history.replaceState(null, '', `#leaf=${encodeURIComponent(leaf)}`);
  const read = Promise.all(files.map(async (p) => new File([await blob(p, '', true)], p.file)));
  // A worker cannot import the page's blob: URLs, and Chromium starts one
  // from a blob: URL only as a classic worker: it is given the glue itself.
  const engine = new Worker(URL.createObjectURL(worker));
  // Read by web/src/app/embedded.rs.
  globalThis.retraceEmbedded = { worker: engine, page: new Blob([encode(open)]) };
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
