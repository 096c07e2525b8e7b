// Browser test of the eddy web page (ctest: web_page): Playwright drives Debian's chromium against the page served
// on localhost; a pointer drag across the canvas must leave dye along its path and none far from it.
//   node tests/web/web_test.mjs WEB_DIR NODE_MODULES_DIR [OUT_DIR]
// Fails (exit 1) when the page does not load, reports an error, or its canvas shows nothing where it was dragged.
import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';

const [webDir, modulesDir, outDir] = process.argv.slice(2);
if (!webDir || !modulesDir) { console.error('usage: web_test.mjs WEB_DIR NODE_MODULES_DIR [OUT_DIR]'); process.exit(2); }
if (!fs.existsSync(path.join(webDir, 'eddy.wasm'))) {
  console.error(`FAIL: ${webDir}/eddy.wasm missing: the web page was not built (emscripten installed? see docs/viewer.md)`);
  process.exit(1);
}
const require = createRequire(path.join(path.resolve(modulesDir), 'noop.js'));
const { chromium } = require('playwright-core');
const { serve } = await import(path.resolve(webDir, 'serve.mjs'));

let failures = 0;
const t0 = Date.now();
const stamp = (what) => console.log(`  [${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}`);
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };

const server = await new Promise((resolve) => { const s = serve(path.resolve(webDir), 0, () => resolve(s)); });
const port = server.address().port;
const browser = await chromium.launch({
  executablePath: process.env.EDDY_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
});
stamp('chromium started');
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 450 } });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push('page error: ' + e.message));
  // fixed 1/60 s steps per frame and a fixed colour seed: the same picture every run
  await page.goto(`http://127.0.0.1:${port}/index.html?fixed=1&seed=7&grid=80x45`);
  await page.waitForFunction(() => window.eddyPage && (window.eddyPage.error || window.eddyPage.frames > 3),
                             null, { timeout: 15000 });
  stamp('page running');
  const pageError = await page.evaluate(() => window.eddyPage.error);
  check(!pageError, `page runs without error ${pageError ? '(' + pageError + ')' : ''}`);

  // The canvas's picture in client coordinates: it fills the 800x450 viewport (16:9 page, 16:9 canvas).
  const box = await page.locator('#fluid').boundingBox();
  const at = (fx, fy) => [box.x + fx * box.width, box.y + fy * box.height];
  const readCanvas = () => page.evaluate(() => {
    const c = document.getElementById('fluid');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const lum = new Array(c.width * c.height);
    for (let i = 0; i < lum.length; i++) lum[i] = Math.max(d[4 * i], d[4 * i + 1], d[4 * i + 2]);
    return { w: c.width, h: c.height, lum };
  });
  const before = await readCanvas();
  check(Math.max(...before.lum) === 0, 'canvas is black before any drag');

  // Drag left to right across the middle: from 20% to 60% of the width at 50% height, in 12 moves. (The test's
  // grid is small, 80x45 cells, so that frames stay quick on a loaded 2-core machine.)
  await page.mouse.move(...at(0.2, 0.5));
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(...at(0.2 + 0.4 * i / 12, 0.5));
  await page.mouse.up();
  const frames1 = await page.evaluate(() => window.eddyPage.frames);
  await page.waitForFunction((f) => window.eddyPage.frames > f + 3, frames1, { timeout: 15000 });
  stamp('dragged');
  const after = await readCanvas();
  if (outDir) { fs.mkdirSync(outDir, { recursive: true }); await page.screenshot({ path: path.join(outDir, 'web_drag.png') }); }

  // Dye along the path: the brightest pixel of each column within 5% of the height around the path, for columns
  // between 25% and 55% of the width (the drag's middle; its ends may be advected or fade). 40 of 255 is clearly
  // visible dye (the stroke's centre is at full brightness); a failure means the drag left no trail somewhere.
  const { w, h, lum } = after;
  let weakest = 255;
  for (let x = Math.round(0.25 * w); x <= Math.round(0.55 * w); x++) {
    let best = 0;
    for (let y = Math.round(0.45 * h); y <= Math.round(0.55 * h); y++) best = Math.max(best, lum[x + w * y]);
    weakest = Math.min(weakest, best);
  }
  check(weakest >= 40, `dye along the drag path (weakest column max ${weakest} >= 40)`);
  // No dye far from it: rows more than 25% of the height above or below the path stay dark (< 8 of 255: a
  // splat's Gaussian tail at that distance is below 1e-10, so anything visible there is a drawing error).
  let farMax = 0;
  for (let y = 0; y < h; y++) {
    if (Math.abs((y + 0.5) / h - 0.5) < 0.25) continue;
    for (let x = 0; x < w; x++) farMax = Math.max(farMax, lum[x + w * y]);
  }
  check(farMax < 8, `no dye far from the path (max ${farMax} < 8)`);
  if (failures) console.log('page console:\n' + logs.join('\n'));
} finally {
  await browser.close();
  server.close();
}
console.log(`${failures === 0 ? 1 : 0} passed, ${failures === 0 ? 0 : 1} failed`);
process.exit(failures ? 1 : 0);
