// How long a single-file HTML export takes to open in headless Chromium
// (run by `cargo xtask bench-export`, not by the tests): for each page,
// from navigation (file://, the network cut) to the first rendered row
// and to the session being indexed (`.opened`). A page that does not open
// in ten minutes, or throws, is reported and fails the run.

import { pathToFileURL } from 'node:url';
import { launch } from './harness.mjs';

const pages = process.argv.slice(2);
const ctx = await launch();
let failed = false;
for (const file of pages) {
  const p = await ctx.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  await p.route(/^https?:/, (r) => r.abort());
  const start = Date.now();
  try {
    await p.goto(pathToFileURL(file).href, { timeout: 600000 });
    await p.waitForSelector('.row', { timeout: 600000 });
    const firstRow = (Date.now() - start) / 1000;
    await p.waitForSelector('.opened', { timeout: 600000 });
    const opened = (Date.now() - start) / 1000;
    const rows = await p.locator('.row').count();
    console.log(`${file}: first row ${firstRow.toFixed(1)} s, opened ${opened.toFixed(1)} s, ${rows} rows shown${errors.length ? `, errors: ${errors.join('; ')}` : ''}`);
    if (errors.length) failed = true;
  } catch (e) {
    console.log(`${file}: did not open after ${((Date.now() - start) / 1000).toFixed(1)} s: ${e.message.split('\n')[0]}`);
    failed = true;
  }
  await p.close();
}
await ctx.close();
process.exit(failed ? 1 : 0);
