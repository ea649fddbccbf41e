// The viewer's Web Worker (a module worker, started by web/src/client.rs).
// There is one wasm for the page and the worker: the page sends its compiled
// module and the URL of its wasm-bindgen JS (trunk hashes that name) in its
// first message; started here, the module's `main` finds no window and runs
// the worker's message loop (web/src/worker.rs), which replaces this handler
// and says `Ready`.
self.onmessage = async (event) => {
  self.onmessage = null;
  const { glue, module } = event.data;
  const url = new URL(glue, self.location.href);
  // Only the page's own script may run here.
  if (url.origin !== self.location.origin) {
    throw new Error(`retrace: refusing to load ${url.href} in the worker`);
  }
  const { default: init } = await import(url.href);
  await init({ module_or_path: module });
};
