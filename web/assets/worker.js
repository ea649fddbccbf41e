// The viewer's Web Worker (a module worker, started by web/src/client.rs).
// There is one wasm for the page and the worker: the page sends its compiled
// module and the URL of its wasm-bindgen JS (trunk hashes that name) in its
// first message; started here, the module's `main` finds no window and runs
// the worker's message loop (web/src/worker.rs), which replaces this handler
// and says `Ready`.
self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    const { glue, module } = event.data;
    const url = new URL(glue, self.location.href);
    // Only the page's own script may run here.
    if (url.origin !== self.location.origin) {
      throw new Error(`refusing to load ${url.href}`);
    }
    const { default: init } = await import(url.href);
    await init({ module_or_path: module });
  } catch (e) {
    // A failed start would otherwise leave the page waiting for `Ready`.
    const message = `cannot start the worker: ${e}`;
    self.postMessage(JSON.stringify({ kind: 'failed', data: { message } }));
  }
};
