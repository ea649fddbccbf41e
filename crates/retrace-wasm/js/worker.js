// The engine's Web Worker (a module worker; retrace-wasm's worker
// transport). Its first message names the wasm-bindgen JS to start
// (`glue`: a URL of the same origin, or the JS as a Blob: see client.rs)
// and the wasm module (`module`: a compiled WebAssembly.Module, as the
// viewer sends its own, a URL, or nothing for the glue's default). A
// plain build of retrace-wasm exports `startWorker`, which this calls;
// the viewer's module runs the same loop from its `main` when it finds
// itself in a worker. The loop says `ready`.
self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    const { glue, module } = event.data;
    const given = glue instanceof Blob;
    const url = new URL(given ? URL.createObjectURL(glue) : glue, self.location.href);
    // Only a script of this worker's own origin may run here, or the one
    // it is handed ('null', an opaque origin, is no one's).
    if (!given && (url.origin === 'null' || url.origin !== self.location.origin)) {
      throw new Error(`refusing to load ${url.href}`);
    }
    const js = await import(url.href);
    await js.default({ module_or_path: module });
    if (typeof js.startWorker === 'function') js.startWorker();
  } catch (e) {
    // A failed start would otherwise leave the page waiting for `ready`.
    const message = `cannot start the worker: ${e}`;
    self.postMessage({ kind: 'failed', data: { code: 'internal', message } });
  }
};
