// The engine's Web Worker (shipped in every viewer: kept short; the
// README's `worker.js` says what its first message holds and why).
self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    const { glue, module } = event.data;
    const given = glue instanceof Blob;
    const url = new URL(given ? URL.createObjectURL(glue) : glue, self.location.href);
    // Only a script of its own origin, or the one it is handed.
    if (!given && (url.origin === 'null' || url.origin !== self.location.origin)) {
      throw new Error(`refusing to load ${url.href}`);
    }
    const js = await import(url.href);
    await js.default({ module_or_path: module });
    if (typeof js.startWorker === 'function') js.startWorker();
  } catch (e) {
    // Or the page waits for `ready` for ever.
    const message = `cannot start the worker: ${e}`;
    self.postMessage({ kind: 'failed', data: { code: 'internal', message } });
  }
};
