// Browser test of the eddy web page (ctest: web_page_drag): Playwright drives Debian's chromium against the page
// served on localhost; a pointer drag across the canvas must leave dye along its path and none far from it; R must
// clear it; the scene selector must start the default scene, whose cylinder a right-drag moves; V must change the
// view.
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
  // fixed 1/60 s steps per frame and a fixed colour seed: the same picture every run. Post-processing is off: its
  // bloom spreads a glow of bright dye over the whole box by design, which would hide dye in the wrong place.
  // The grid (80x45 cells, 160x90 dye cells) holds for every scene of the page: frames stay quick on a loaded
  // 2-core machine.
  await page.goto(`http://127.0.0.1:${port}/index.html?fixed=1&seed=7&grid=80x45&scale=2&post=0`);
  await page.waitForFunction(() => window.eddyPage && (window.eddyPage.error || window.eddyPage.frames > 3),
                             null, { timeout: 30000 });
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
    return { w: c.width, h: c.height, lum, rgb: Array.from(d) };
  });
  // a few more frames drawn than now (the page draws one per animation frame)
  const framesLater = async (n) => {
    const f = await page.evaluate(() => window.eddyPage.frames);
    await page.waitForFunction(([f0, k]) => window.eddyPage.frames > f0 + k || window.eddyPage.error, [f, n], { timeout: 30000 });
  };
  const before = await readCanvas();
  check(Math.max(...before.lum) === 0, 'canvas is black before any drag');

  // Drag left to right across the middle: from 20% to 60% of the width at 50% height, in 12 moves. On a busy
  // machine the whole
  // drag may happen between two animation frames; the page hands every pointer event to the core as it comes
  // (eddy_web_pointer stirs along the segment since the last event), so the trail does not depend on the frames.
  // The test holds the frames during the drag (window.eddyPage.hold), the worst case of a busy machine: a page that
  // read the pointer once per frame would see the button already up and draw nothing. (That was why this test
  // failed once on a loaded machine: the first frame after the press came late, and the start of the trail was
  // missing.)
  await page.evaluate(() => { window.eddyPage.hold = true; });
  await page.mouse.move(...at(0.2, 0.5));
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(...at(0.2 + 0.4 * i / 12, 0.5));
  await page.mouse.up();
  await page.evaluate(() => { window.eddyPage.hold = false; });
  await framesLater(3);
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

  // R resets the scene: the stirring box starts empty, so the canvas is black again.
  const resets = await page.evaluate(() => window.eddyPage.resets);
  await page.keyboard.press('r');
  await page.waitForFunction((n) => window.eddyPage.resets > n || window.eddyPage.error, resets, { timeout: 30000 });
  await framesLater(2);
  const cleared = await readCanvas();
  check(Math.max(...cleared.lum) === 0, `R clears the dye (max after reset ${Math.max(...cleared.lum)} == 0)`);
  stamp('reset');

  // The scene selector starts the default scene (a cylinder at (0.42, 0.51) m in a 1.78 x 1 m box, drawn grey:
  // 128,128,128). A right-drag from its centre moves it: grey where it was dropped, none where it stood.
  await page.selectOption('#scene', 'default');
  await page.waitForFunction(() => window.eddyPage.scene === 'default' || window.eddyPage.error, null, { timeout: 30000 });
  await framesLater(3);
  const grey = (img, fx, fy) => {
    const x = Math.floor(fx * img.w), y = Math.floor(fy * img.h), i = 4 * (x + img.w * y);
    return img.rgb[i] === 128 && img.rgb[i + 1] === 128 && img.rgb[i + 2] === 128;
  };
  const cyl = [0.42 / 1.7777778, 1 - 0.51];
  const sceneStart = await readCanvas();
  check(grey(sceneStart, ...cyl), 'the default scene shows its cylinder');
  const target = [0.6, 0.3];
  await page.mouse.move(...at(...cyl));
  await page.mouse.down({ button: 'right' });
  for (let i = 1; i <= 10; i++)
    await page.mouse.move(...at(cyl[0] + (target[0] - cyl[0]) * i / 10, cyl[1] + (target[1] - cyl[1]) * i / 10));
  await page.mouse.up({ button: 'right' });
  await framesLater(3);
  const moved = await readCanvas();
  check(grey(moved, ...target) && !grey(moved, ...cyl), 'a right-drag moves the cylinder (grey at the drop point, not at the start)');
  stamp('obstacle dragged');

  // V cycles the view: dye -> speed, whose colour map paints every pixel of the box: black is left only in the colour
  // bar's frame and labels (under 5% of the canvas), where the dye view is mostly black this early.
  await page.keyboard.press('v');
  await page.waitForFunction(() => window.eddyPage.view === 'speed' || window.eddyPage.error, null, { timeout: 30000 });
  await framesLater(2);
  const speed = await readCanvas();
  const black = speed.lum.filter((v) => v === 0).length;
  const dyeBlack = moved.lum.filter((v) => v === 0).length;
  check(black < 0.05 * speed.lum.length && dyeBlack > 0.3 * moved.lum.length,
        `V shows the speed view (black pixels: ${black} < 5% of ${speed.lum.length}; the dye view had ${dyeBlack})`);
  const lateError = await page.evaluate(() => window.eddyPage.error);
  check(!lateError, `no page error ${lateError ? '(' + lateError + ')' : ''}`);
  if (failures) console.log('page console:\n' + logs.join('\n'));
} finally {
  await browser.close();
  server.close();
}
console.log(`${failures === 0 ? 1 : 0} passed, ${failures === 0 ? 0 : 1} failed`);
process.exit(failures ? 1 : 0);
