// Redacts a JSON-lines file with retrace-core compiled to wasm32
// (+simd128), inside V8, the way the browser viewer will: the file read in
// fixed-size chunks (like `File.slice`), each pushed into the redactor,
// the output written to OUT. Run by `cargo xtask bench-redact`.
//
//   node bench_redact.mjs MODULE.wasm IN OUT MODE(0 mask|1 typed|2 pseudo)
//
// Prints one JSON line: bytes, best total seconds (reads and writes
// included), seconds inside wasm, chunk size, findings, wasm memory.
import fs from "node:fs";
import { performance } from "node:perf_hooks";

const [wasmPath, input, output, modeArg] = process.argv.slice(2);
if (!wasmPath || !input || !output) {
  console.error("usage: node bench_redact.mjs MODULE.wasm IN OUT [MODE]");
  process.exit(2);
}
const mode = Number(modeArg ?? 1);
const module = await WebAssembly.compile(fs.readFileSync(wasmPath));
const MiB = 2 ** 20;
const CHUNK = 4 * MiB;
const RUNS = 3;

function run(x, write) {
  const fd = fs.openSync(input, "r");
  const out = fs.openSync(write ? output : "/dev/null", "w");
  const size = fs.fstatSync(fd).size;
  const ptr = x.buffer(CHUNK);
  let view = new Uint8Array(x.memory.buffer, ptr, CHUNK);
  let inWasm = 0;
  const t0 = performance.now();
  x.redact_begin(mode);
  const emit = (n) => {
    if (n > 0) fs.writeSync(out, new Uint8Array(x.memory.buffer, x.redact_out(), n));
  };
  for (let pos = 0; pos < size; ) {
    if (view.byteLength === 0) view = new Uint8Array(x.memory.buffer, ptr, CHUNK);
    const n = fs.readSync(fd, view, 0, CHUNK, pos);
    if (n === 0) break;
    pos += n;
    const t = performance.now();
    const m = x.redact_push(n);
    inWasm += performance.now() - t;
    emit(m);
  }
  const t = performance.now();
  emit(x.redact_finish());
  const t1 = performance.now();
  inWasm += t1 - t;
  fs.closeSync(fd);
  fs.closeSync(out);
  return { size, total: (t1 - t0) / 1000, inWasm: inWasm / 1000, findings: x.redact_findings() };
}

let best = null;
let memory = 0;
for (let i = 0; i < RUNS; i++) {
  const x = (await WebAssembly.instantiate(module, {})).exports;
  const r = run(x, i === 0);
  if (i === 0) memory = x.memory.buffer.byteLength;
  if (!best || r.total < best.total) best = r;
}
console.log(JSON.stringify({ ...best, chunk: CHUNK, memory }));
