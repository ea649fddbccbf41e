// Opens a session with retrace-core compiled to wasm32 (+simd128), inside
// V8, the way the browser viewer will: fixed-size chunks pushed into the
// reader. Run by `cargo xtask bench-wasm [FILE…]`, which does:
//   rustup target add wasm32-unknown-unknown   (if missing)
//   cd xtask/wasm-bench && RUSTFLAGS='-C target-feature=+simd128' \
//     cargo build --release --target wasm32-unknown-unknown --target-dir ../../target/wasm-bench
//   node bench.mjs ../../target/wasm-bench/wasm32-unknown-unknown/release/retrace_wasm_bench.wasm FILE [FILE…]
//
// For each file and chunk size (1, 4, 8 MiB) it runs RUNS times, each in a
// fresh instance (wasm memory never shrinks). Open time is the whole loop,
// readSync included, from before the first read to `finish()` returning
// (the session's tree is built by then); "in wasm" is the part spent in
// begin/push/finish. The fastest chunk size (by best whole-loop time) is
// reported; its memory is `memory.buffer.byteLength` at the end of its
// first run, which is the peak since linear memory only grows. Targets:
// >= 1 GB/s, memory <= size/10 + 32 MiB.
import fs from "node:fs";
import { performance } from "node:perf_hooks";

const [wasmPath, ...files] = process.argv.slice(2);
if (!wasmPath || files.length === 0) {
  console.error("usage: node bench.mjs MODULE.wasm FILE [FILE…]");
  process.exit(2);
}
const module = await WebAssembly.compile(fs.readFileSync(wasmPath));
const MiB = 2 ** 20;
const CHUNKS = [1 * MiB, 4 * MiB, 8 * MiB];
const RUNS = 3;

async function fresh() {
  return (await WebAssembly.instantiate(module, {})).exports;
}

function open(x, file, chunk) {
  const fd = fs.openSync(file, "r");
  const size = fs.fstatSync(fd).size;
  const ptr = x.buffer(chunk);
  let view = new Uint8Array(x.memory.buffer, ptr, chunk);
  let inWasm = 0;
  const t0 = performance.now();
  let t = t0;
  x.begin();
  inWasm += performance.now() - t;
  for (let pos = 0; pos < size; ) {
    // Memory growth detaches old views: re-make it only then.
    if (view.byteLength === 0) view = new Uint8Array(x.memory.buffer, ptr, chunk);
    const n = fs.readSync(fd, view, 0, chunk, pos);
    if (n === 0) break;
    pos += n;
    t = performance.now();
    x.push(n);
    inWasm += performance.now() - t;
  }
  t = performance.now();
  const entries = x.finish();
  const t1 = performance.now();
  inWasm += t1 - t;
  fs.closeSync(fd);
  return { size, total: (t1 - t0) / 1000, inWasm: inWasm / 1000, entries };
}

const gbps = (bytes, s) => (bytes / s / 1e9).toFixed(2);

for (const file of files) {
  const name = file.split("/").pop().replace(/\.jsonl$/, "");
  const perChunk = [];
  for (const chunk of CHUNKS) {
    let best = null;
    let memory = 0;
    let summary = "";
    for (let run = 0; run < RUNS; run++) {
      const x = await fresh();
      const r = open(x, file, chunk);
      if (run === 0) {
        memory = x.memory.buffer.byteLength;
        summary =
          `${r.entries} entries, ${x.tips()} tips, ` +
          `${x.real_branch_points()} real branch points`;
      }
      if (!best || r.total < best.total) best = r;
    }
    perChunk.push({ ...best, chunk, memory, summary });
  }
  const best = perChunk.reduce((a, b) => (b.total < a.total ? b : a));
  const limit = best.size / 10 + 32 * MiB;
  const sweep = perChunk
    .map((c) => `${c.chunk / MiB} MiB ${c.total.toFixed(3)} s (wasm ${c.inWasm.toFixed(3)} s)`)
    .join(", ");
  console.log(
    `wasm open[${name}] ${(best.size / 1e6).toFixed(0)} MB: ${best.total.toFixed(3)} s = ` +
      `${gbps(best.size, best.total)} GB/s (target >= 1); in wasm ${best.inWasm.toFixed(3)} s = ` +
      `${gbps(best.size, best.inWasm)} GB/s, readSync ${(best.total - best.inWasm).toFixed(3)} s; ` +
      `chunk ${best.chunk / MiB} MiB; wasm memory ${(best.memory / MiB).toFixed(0)} MiB ` +
      `(limit ${(limit / MiB).toFixed(0)} MiB); ${best.summary}`,
  );
  console.log(`  best of ${RUNS} per chunk: ${sweep}`);
}
