// The eddy web page: the core (WebAssembly, eddy.js/eddy.wasm) steps a 2D simulation; pointer drags on the canvas
// splat dye and velocity; each animation frame the dye is drawn into the canvas. State for tests: window.eddyPage.
'use strict';
(async function () {
  const params = new URLSearchParams(location.search);
  const canvas = document.getElementById('fluid');
  const status = document.getElementById('status');
  const errorBox = document.getElementById('error');
  const page = { ready: false, frames: 0, error: '' };
  window.eddyPage = page;
  const fail = (msg) => { page.error = msg; errorBox.textContent = msg; };

  let Module;
  try { Module = await createEddyModule(); } catch (e) { fail('could not load the WebAssembly core: ' + e); return; }
  const api = {
    create: Module.cwrap('eddy_web_create', 'number', ['number', 'number', 'number', 'number', 'number']),
    width: Module.cwrap('eddy_web_width', 'number', ['number']),
    height: Module.cwrap('eddy_web_height', 'number', ['number']),
    time: Module.cwrap('eddy_web_time', 'number', ['number']),
    error: Module.cwrap('eddy_web_error', 'string', ['number']),
    pointer: Module.cwrap('eddy_web_pointer', null, ['number', 'number', 'number', 'number', 'number']),
    options: Module.cwrap('eddy_web_options', 'number', ['number', 'number', 'string', 'number', 'string']),
    step: Module.cwrap('eddy_web_step', 'number', ['number', 'number']),
    render: Module.cwrap('eddy_web_render', 'number', ['number']),
  };

  const grid = (params.get('grid') || '160x90').split('x').map(Number);
  const scale = Number(params.get('scale') || 2);
  const seed = Number(params.get('seed') || 1);
  const sim = api.create(grid[0], grid[1], scale, 0.9 * grid[0] / grid[1], seed); // 0.9 m high
  if (!sim) { fail('could not create the simulation (grid ' + grid.join('x') + ', scale ' + scale + ')'); return; }
  const palette = params.get('palette') || params.get('color') || '';
  const transparent = params.get('transparent') === '1' || params.has('image');
  if (api.options(sim, params.get('hover') === '1' ? 1 : 0, palette, transparent ? 1 : 0, params.get('bg') || '') !== 0) {
    fail('bad colour in palette/color/bg: ' + palette + ' ' + (params.get('bg') || ''));
    return;
  }
  const stage = document.getElementById('stage');
  if (params.has('image')) stage.style.backgroundImage = 'url("' + params.get('image').replace(/"/g, '') + '")';
  if (params.has('bg') && transparent) stage.style.background = params.get('bg');

  const width = api.width(sim), height = api.height(sim);
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(width, height);

  // Pointer: picture coordinates in [0,1], y down. The canvas keeps its aspect inside the element (object-fit).
  let down = false, inside = false, px = 0, py = 0;
  function toPicture(ev) {
    const r = canvas.getBoundingClientRect();
    const s = Math.min(r.width / width, r.height / height);
    const ox = r.left + (r.width - width * s) / 2, oy = r.top + (r.height - height * s) / 2;
    px = (ev.clientX - ox) / (width * s);
    py = (ev.clientY - oy) / (height * s);
    inside = px >= 0 && px <= 1 && py >= 0 && py <= 1;
  }
  canvas.addEventListener('pointerdown', (ev) => { toPicture(ev); down = ev.button === 0; canvas.setPointerCapture(ev.pointerId); });
  canvas.addEventListener('pointermove', toPicture);
  canvas.addEventListener('pointerup', (ev) => { toPicture(ev); down = false; });
  canvas.addEventListener('pointerleave', () => { inside = false; });
  canvas.addEventListener('pointercancel', () => { down = false; inside = false; });

  const fixed = params.get('fixed') === '1';
  let last = performance.now(), frameMs = 0;
  function frame(now) {
    const dt = fixed ? 1 / 60 : Math.min((now - last) / 1000, 1 / 15);
    const t0 = performance.now();
    last = now;
    api.pointer(sim, down ? 1 : 0, inside ? 1 : 0, px, py);
    if (api.step(sim, dt) !== 0) { fail(api.error(sim)); }
    const ptr = api.render(sim);
    if (!ptr) { fail(api.error(sim)); return; }
    image.data.set(Module.HEAPU8.subarray(ptr, ptr + width * height * 4));
    ctx.putImageData(image, 0, 0);
    frameMs = 0.9 * frameMs + 0.1 * (performance.now() - t0);
    page.frames++;
    if (page.frames % 10 === 0) {
      status.textContent = `${frameMs.toFixed(1)} ms/frame  t=${api.time(sim).toFixed(2)} s  ${grid[0]}x${grid[1]} (dye ${width}x${height})`;
    }
    requestAnimationFrame(frame);
  }
  page.ready = true;
  page.width = width;
  page.height = height;
  requestAnimationFrame(frame);
})();
