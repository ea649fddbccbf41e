// Opens a session with retrace-core compiled to wasm32 (+simd128), inside
// V8, the way the browser viewer will: fixed-size chunks pushed into the
// reader. Run by `cargo xtask bench-wasm`:
//   node bench.mjs MODULE.wasm FILE [FILE…]
// Prints speed (whole loop, and the time spent inside wasm alone) and the
// wasm memory at the end of the first run (memory never shrinks, so that
// is the peak) against the targets of issue 2.
import fs from "node:fs";
import { performance } from "node:perf_hooks";

const [wasmPath, ...files] = process.argv.slice(2);
const bytes = fs.readFileSync(wasmPath);
const CHUNKS = [1 << 20, 4 << 20];
const RUNS = 3;

async function fresh() {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  return instance.exports;
}

function open(x, file, chunk) {
  const fd = fs.openSync(file, "r");
  const size = fs.fstatSync(fd).size;
  const ptr = x.buffer(chunk);
  let inWasm = 0;
  const t0 = performance.now();
  let t = performance.now();
  x.begin();
  inWasm += performance.now() - t;
  for (let pos = 0; pos < size; ) {
    // The view is re-made each time: memory growth detaches old views.
    const view = new Uint8Array(x.memory.buffer, ptr, chunk);
    const n = fs.readSync(fd, view, 0, chunk, pos);
    if (n === 0) break;
    pos += n;
    t = performance.now();
    x.push(n);
    inWasm += performance.now() - t;
  }
  t = performance.now();
  const entries = x.finish();
  inWasm += performance.now() - t;
  const total = performance.now() - t0;
  fs.closeSync(fd);
  return { size, total: total / 1000, inWasm: inWasm / 1000, entries };
}

for (const file of files) {
  let best = null;
  let memory = 0;
  let summary = "";
  for (const chunk of CHUNKS) {
    for (let run = 0; run < RUNS; run++) {
      const x = await fresh();
      const r = open(x, file, chunk);
      if (memory === 0) memory = x.memory.buffer.byteLength;
      if (!best || r.inWasm < best.inWasm) {
        best = { ...r, chunk };
        summary = `${r.entries} entries, ${x.tips()} tips, ${x.real_branch_points()} real branch points`;
      }
    }
  }
  const mb = best.size / 1e6;
  const limit = best.size / 10 + 32 * 2 ** 20;
  const name = file.split("/").pop();
  console.log(
    `wasm open[${name}] ${mb.toFixed(0)} MB: ${(best.size / best.inWasm / 1e9).toFixed(2)} GB/s inside wasm ` +
      `(${best.inWasm.toFixed(3)} s; target >= 1), ${(best.size / best.total / 1e9).toFixed(2)} GB/s with readSync ` +
      `(${best.total.toFixed(3)} s); chunk ${best.chunk >> 20} MiB; wasm memory ${(memory / 2 ** 20).toFixed(0)} MiB ` +
      `(limit ${(limit / 2 ** 20).toFixed(0)} MiB); ${summary}`,
  );
}
