// The eddy web page: the core (WebAssembly, eddy.js/eddy.wasm) steps a 2D simulation made from a scene (the
// built-in "stir" box, or a 2D preset of scenes/, read here and handed to the core value by value); pointer drags
// on the canvas splat dye and velocity, right-drags move the scene's obstacle; each animation frame the view is
// drawn into the canvas. Keys as in the desktop viewer: space pause, R reset, V view, P post-processing.
// State for tests: window.eddyPage.
'use strict';
(async function () {
  const params = new URLSearchParams(location.search);
  const canvas = document.getElementById('fluid');
  const status = document.getElementById('status');
  const errorBox = document.getElementById('error');
  const selector = document.getElementById('scene');
  const page = { ready: false, frames: 0, error: '', scene: '', view: 'dye', post: true, paused: false, resets: 0 };
  window.eddyPage = page;
  const fail = (msg) => { page.error = msg; errorBox.textContent = msg; };

  let Module;
  try { Module = await createEddyModule(); } catch (e) { fail('could not load the WebAssembly core: ' + e); return; }
  const api = {
    new: Module.cwrap('eddy_web_new', 'number', ['number']),
    destroy: Module.cwrap('eddy_web_destroy', null, ['number']),
    set: Module.cwrap('eddy_web_set', 'number', ['number', 'string', 'number', 'number']),
    boundary: Module.cwrap('eddy_web_set_boundary', 'number', ['number', 'number', 'number', 'number', 'number']),
    build: Module.cwrap('eddy_web_build', 'number', ['number']),
    obstacle: Module.cwrap('eddy_web_add_obstacle', 'number',
      ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number']),
    emitter: Module.cwrap('eddy_web_add_emitter', 'number', ['number', 'number', 'number', 'number', 'number', 'number',
      'number', 'number', 'number', 'number', 'number']),
    splat: Module.cwrap('eddy_web_splat', 'number', ['number', 'number', 'number', 'number', 'number', 'number',
      'number', 'number', 'number', 'number']),
    taylorGreen: Module.cwrap('eddy_web_taylor_green', 'number', ['number', 'number']),
    box: Module.cwrap('eddy_web_box', 'number', ['number', 'number']),
    width: Module.cwrap('eddy_web_width', 'number', ['number']),
    height: Module.cwrap('eddy_web_height', 'number', ['number']),
    time: Module.cwrap('eddy_web_time', 'number', ['number']),
    error: Module.cwrap('eddy_web_error', 'string', ['number']),
    pointer: Module.cwrap('eddy_web_pointer', 'number', ['number', 'number', 'number', 'number', 'number', 'number']),
    drag: Module.cwrap('eddy_web_drag', 'number', ['number', 'number', 'number', 'number', 'number']),
    options: Module.cwrap('eddy_web_options', 'number', ['number', 'number', 'string', 'number', 'string']),
    view: Module.cwrap('eddy_web_view', 'number', ['number', 'number', 'number']),
    step: Module.cwrap('eddy_web_step', 'number', ['number', 'number', 'number']),
    render: Module.cwrap('eddy_web_render', 'number', ['number']),
  };

  // ---- scenes: the built-in stirring box and the 2D presets (scenes/index.json lists them) ----
  const grid = (params.get('grid') || '160x90').split('x').map(Number);
  const stirScene = {
    name: 'stir', description: 'an empty box to stir with the mouse (the classic demo)',
    grid, size: 0.9 * grid[0] / grid[1], dye_scale: Number(params.get('scale') || 2), max_dt: 1 / 60,
    vorticity: 0.3, dissipation: { dye: 0.5, velocity: 0.2 }, pressure: { tolerance: 1e-4 },
  };
  const scenes = { stir: stirScene };
  try {
    const names = await (await fetch('scenes/index.json')).json();
    const loaded = await Promise.all(names.map((n) => fetch(`scenes/${n}.json`).then((r) => r.json()).catch(() => null)));
    loaded.forEach((sc, i) => { if (sc && (sc.dim || 2) === 2 && !sc.wind) scenes[names[i]] = sc; });
  } catch (e) { console.log('no preset scenes: ' + e); }
  for (const name of Object.keys(scenes)) {
    const o = document.createElement('option');
    o.value = name;
    o.textContent = name;
    o.title = scenes[name].description || '';
    selector.appendChild(o);
  }

  const views = ['dye', 'speed', 'vorticity', 'pressure'];
  const faces = ['x-', 'x+', 'y-', 'y+'];
  const boundaryTypes = ['wall', 'noslip', 'moving', 'periodic', 'inflow', 'outflow'];
  const advections = { maccormack: 0, semi_lagrangian: 1, bfecc: 2 };
  const seed = Number(params.get('seed') || 1);
  const palette = params.get('palette') || params.get('color') || '';
  const transparent = params.get('transparent') === '1' || params.has('image');
  let sim = 0, run = null;

  // The viewer's real-time profile (apps/viewer/viewer_scene.c): grids over 128 cells along an axis are coarsened by
  // a whole factor (the dye grid kept as fine), the pressure solved to 1e-4, steps up to CFL 3.
  function profile(sc) {
    let g = (sc.grid || [128, 128]).slice(0, 2), ds = sc.dye_scale || 1;
    const largest = Math.max(g[0], g[1]);
    if (sc !== stirScene && params.has('grid')) { // the address's grid (and scale) for every scene, as eddy view --grid
      g = grid;
      if (params.has('scale')) ds = Number(params.get('scale'));
    } else if (largest > 128) {
      const f = Math.ceil(largest / 128);
      g = g.map((n) => Math.max(3, Math.floor(n / f)));
      if (f <= 4) ds = Math.min(16, ds * f);
    }
    const tol = sc.pressure && sc.pressure.tolerance;
    return { grid: g, dye_scale: ds, tolerance: tol && tol >= 1e-4 ? tol : 1e-4,
             cfl: sc.dt ? sc.cfl : Math.max(sc.cfl || 1, 3) };
  }

  function build(name) {
    const sc = scenes[name];
    const w = api.new(seed);
    const set = (k, a, b) => { if (api.set(w, k, a, b || 0) !== 0) throw new Error(api.error(w)); };
    const p = profile(sc);
    try {
      set('grid', p.grid[0], p.grid[1]);
      set('size', sc.size || 1);
      set('dye_scale', p.dye_scale);
      if (p.cfl) set('cfl', p.cfl);
      if (sc.dt) set('dt', sc.dt);
      if (sc.max_dt) set('max_dt', sc.max_dt);
      if (sc.viscosity) set('viscosity', sc.viscosity);
      if (sc.vorticity) set('vorticity', sc.vorticity);
      const dis = sc.dissipation || {};
      for (const k of ['dye', 'velocity', 'temperature']) if (dis[k]) set('dissipation.' + k, dis[k]);
      const b = sc.buoyancy || {};
      if (b.gravity) set('gravity', b.gravity[0], b.gravity[1]);
      if (b.temperature) set('buoyancy.temperature', b.temperature);
      if (b.density) set('buoyancy.density', b.density);
      if (b.ambient) set('ambient', b.ambient);
      set('pressure.tolerance', p.tolerance);
      if (sc.advection in advections) set('advection', advections[sc.advection]);
      for (let f = 0; f < 4; f++) {
        const bd = (sc.boundary || {})[faces[f]];
        if (!bd) continue;
        const type = boundaryTypes.indexOf(typeof bd === 'string' ? bd : bd.type);
        const v = (typeof bd === 'object' && bd.velocity) || [0, 0];
        if (type < 0 || api.boundary(w, f, type, v[0], v[1]) !== 0) throw new Error(`boundary ${faces[f]}: ${JSON.stringify(bd)}`);
      }
      if (api.build(w) !== 0) throw new Error(api.error(w));
      const shape = (o) => (o.shape === 'box' ? 1 : 0);
      for (const o of sc.obstacles || []) {
        if (!o.center) continue; // obstacles on paths are left out
        const h = o.half_size || [0, 0], moving = o.velocity && (o.velocity[0] || o.velocity[1]);
        if (api.obstacle(w, shape(o), o.center[0], o.center[1], o.radius || 0, h[0], h[1], moving ? 0 : 1) !== 0)
          throw new Error(api.error(w));
      }
      for (const e of sc.emitters || []) {
        if (!e.center) continue;
        const h = e.half_size || [0, 0], d = e.dye || [0, 0, 0];
        if (api.emitter(w, shape(e), e.center[0], e.center[1], e.radius || 0, h[0], h[1], d[0], d[1], d[2],
                        e.temperature || 0) !== 0) throw new Error(api.error(w));
      }
      if (sc.initial && sc.initial.flow === 'taylor_green' && api.taylorGreen(w, sc.initial.amplitude || 1) !== 0)
        throw new Error(api.error(w));
      if (api.options(w, params.get('hover') === '1' ? 1 : 0, palette, transparent ? 1 : 0, params.get('bg') || '') !== 0)
        throw new Error('bad colour in palette/color/bg: ' + palette + ' ' + (params.get('bg') || ''));
    } catch (e) {
      api.destroy(w);
      throw new Error(`scene ${name}: ${e.message}`);
    }
    return w;
  }

  // What the scene does over time (as apps/viewer/viewer_scene.c): timed splats, random splats, splats along paths.
  function sceneRuntime(sc, w) {
    const boxW = api.box(w, 0), boxH = api.box(w, 1), ox = api.box(w, 2), oy = api.box(w, 3);
    const splats = (sc.splats || []).slice().sort((a, b) => (a.time || 0) - (b.time || 0));
    const rs = sc.random_splats || null;
    let rng = ((rs && rs.seed) || 1) >>> 0 || 1;
    const random = () => { rng ^= rng << 13; rng >>>= 0; rng ^= rng >>> 17; rng ^= rng << 5; rng >>>= 0; return rng / 4294967296; };
    let nextSplat = 0, randomDone = 0;
    const defaultRadius = 0.03 * (sc.size || 1);
    return function beforeStep(t, dt) {
      const eps = 1e-9;
      while (nextSplat < splats.length && (splats[nextSplat].time || 0) <= t + eps) {
        const s = splats[nextSplat++], v = s.velocity || [0, 0], d = s.dye || [0, 0, 0];
        api.splat(w, s.position[0], s.position[1], v[0], v[1], d[0], d[1], d[2], s.radius || defaultRadius, s.temperature || 0);
      }
      while (rs && randomDone < (rs.count || 0) && (rs.rate > 0 ? (rs.start || 0) + randomDone / rs.rate : (rs.start || 0)) <= t + eps) {
        const r = rs.radius || defaultRadius, sp = rs.speed || 0, k = rs.intensity || 1;
        const x = ox + r + (boxW - 2 * r) * random(), y = oy + r + (boxH - 2 * r) * random();
        const vx = sp * (2 * random() - 1), vy = sp * (2 * random() - 1);
        const hue = 6 * random(), f = hue - Math.floor(hue), q = 1 - f;
        const rgb = [[1, f, 0], [q, 1, 0], [0, 1, f], [0, q, 1], [f, 0, 1], [1, 0, q]][Math.floor(hue) % 6];
        api.splat(w, x, y, vx, vy, k * rgb[0], k * rgb[1], k * rgb[2], r, 0);
        randomDone++;
      }
      for (const p of sc.splat_paths || []) { // a push along the path's motion
        const path = p.path || {};
        if (t + eps < (p.start || 0) || (p.end > 0 && t >= p.end)) continue;
        const period = path.period || 1, th = 2 * Math.PI * (t / period + (path.phase || 0)), om = 2 * Math.PI / period;
        const c = path.center || [0, 0];
        let pos, vel;
        if (path.type === 'figure8') {
          const e = path.size || [0, 0];
          pos = [c[0] + e[0] * Math.sin(th), c[1] + e[1] * Math.sin(2 * th)];
          vel = [e[0] * om * Math.cos(th), e[1] * 2 * om * Math.cos(2 * th)];
        } else if (path.type === 'circle') {
          const r = path.radius || 0;
          pos = [c[0] + r * Math.cos(th), c[1] + r * Math.sin(th)];
          vel = [-r * om * Math.sin(th), r * om * Math.cos(th)];
        } else continue;
        const speed = Math.hypot(vel[0], vel[1]), force = (p.force || 0) * dt, d = p.dye || [0, 0, 0];
        api.splat(w, pos[0], pos[1], speed > 0 ? force * vel[0] / speed : 0, speed > 0 ? force * vel[1] / speed : 0,
                  d[0] * dt, d[1] * dt, d[2] * dt, p.radius || defaultRadius, (p.temperature || 0) * dt);
      }
    };
  }

  const ctx = canvas.getContext('2d');
  let image = null, width = 0, height = 0;
  function applyView() { api.view(sim, views.indexOf(page.view), page.post ? 1 : 0); }

  // (Re)starts a scene: the old simulation goes, the new one is built, its first picture drawn.
  function start(name) {
    const w = build(name);
    if (sim) api.destroy(sim);
    sim = w;
    const sc = scenes[name];
    run = { beforeStep: sceneRuntime(sc, sim) };
    page.scene = name;
    selector.value = name;
    applyView();
    if (!api.render(sim)) throw new Error(api.error(sim));
    width = api.width(sim);
    height = api.height(sim);
    canvas.width = width;
    canvas.height = height;
    image = ctx.createImageData(width, height);
    page.width = width;
    page.height = height;
  }

  const sceneName = params.get('scene') || 'stir';
  page.post = params.has('post') ? params.get('post') !== '0' : true;
  try {
    if (!scenes[sceneName]) throw new Error(`no 2D scene '${sceneName}' (have: ${Object.keys(scenes).join(', ')})`);
    const sc = scenes[sceneName];
    const rv = sc.render && sc.render.view;
    if (params.has('view')) page.view = params.get('view');
    else if (views.includes(rv)) page.view = rv;
    if (!views.includes(page.view)) throw new Error(`view '${page.view}': expected one of ${views.join(', ')}`);
    start(sceneName);
  } catch (e) { fail(e.message); return; }

  const stage = document.getElementById('stage');
  if (params.has('image')) stage.style.backgroundImage = 'url("' + params.get('image').replace(/"/g, '') + '")';
  if (params.has('bg') && transparent) stage.style.background = params.get('bg');

  // ---- input ----
  // Pointer: picture coordinates in [0,1], y down. The canvas keeps its aspect inside the element (object-fit).
  // Every event goes to the core when it happens (eddy_web_pointer stirs along the segment since the last one), so a
  // drag is drawn in full however few animation frames run during it (a busy machine, a slow frame).
  let leftDown = false, rightDown = false, lastEventTime = 0;
  function toPicture(ev) {
    const r = canvas.getBoundingClientRect();
    const s = Math.min(r.width / width, r.height / height);
    const ox = r.left + (r.width - width * s) / 2, oy = r.top + (r.height - height * s) / 2;
    const x = (ev.clientX - ox) / (width * s), y = (ev.clientY - oy) / (height * s);
    return { x, y, inside: x >= 0 && x <= 1 && y >= 0 && y <= 1 };
  }
  function pointer(ev, inside) {
    const p = toPicture(ev);
    const dt = lastEventTime ? (ev.timeStamp - lastEventTime) / 1000 : 1 / 60;
    lastEventTime = ev.timeStamp;
    if (rightDown) {
      if (api.drag(sim, 1, p.x, p.y, dt) < 0) fail(api.error(sim));
    }
    if (api.pointer(sim, leftDown ? 1 : 0, inside && p.inside ? 1 : 0, p.x, p.y, dt) !== 0) fail(api.error(sim));
  }
  canvas.addEventListener('contextmenu', (ev) => ev.preventDefault());
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button === 0) leftDown = true;
    if (ev.button === 2) rightDown = true;
    canvas.setPointerCapture(ev.pointerId);
    pointer(ev, true);
  });
  canvas.addEventListener('pointermove', (ev) => {
    // the browser may merge moves into one event: replay the merged positions in order
    const all = ev.getCoalescedEvents ? ev.getCoalescedEvents() : [];
    for (const e of all.length ? all : [ev]) pointer(e, true);
  });
  canvas.addEventListener('pointerup', (ev) => {
    if (ev.button === 0) leftDown = false;
    if (ev.button === 2) { rightDown = false; api.drag(sim, 0, 0, 0, 0); }
    pointer(ev, true);
  });
  canvas.addEventListener('pointerleave', (ev) => { if (!leftDown && !rightDown) pointer(ev, false); });
  canvas.addEventListener('pointercancel', (ev) => {
    leftDown = false;
    if (rightDown) { rightDown = false; api.drag(sim, 0, 0, 0, 0); }
    pointer(ev, false);
  });

  let note = '', noteUntil = 0;
  const say = (text) => { note = text; noteUntil = performance.now() + 2000; };
  window.addEventListener('keydown', (ev) => {
    if (ev.target === selector || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const key = ev.key.toLowerCase();
    try {
      if (key === ' ') { page.paused = !page.paused; say(page.paused ? 'paused' : 'running'); }
      else if (key === 'r') { start(page.scene); page.resets++; say('reset'); }
      else if (key === 'v') { page.view = views[(views.indexOf(page.view) + 1) % views.length]; applyView(); say('view: ' + page.view); }
      else if (key === 'p') { page.post = !page.post; applyView(); say('post-processing ' + (page.post ? 'on' : 'off')); }
      else return;
    } catch (e) { fail(e.message); }
    ev.preventDefault();
  });
  selector.addEventListener('change', () => {
    try {
      const sc = scenes[selector.value], rv = sc.render && sc.render.view;
      page.view = views.includes(rv) ? rv : 'dye';
      start(selector.value);
      say('scene: ' + selector.value);
    } catch (e) { fail(e.message); }
    selector.blur(); // the keys go back to the page
  });

  // ---- frames ----
  const fixed = params.get('fixed') === '1';
  let last = performance.now(), frameMs = 0;
  function frame(now) {
    if (page.hold) { // tests: no frames while set, as on a machine too busy to draw (input still goes to the core)
      requestAnimationFrame(frame);
      return;
    }
    const dt = fixed ? 1 / 60 : Math.min((now - last) / 1000, 1 / 15);
    const t0 = performance.now();
    last = now;
    if (!page.paused) run.beforeStep(api.time(sim), dt);
    if (api.step(sim, dt, page.paused ? 1 : 0) !== 0) { fail(api.error(sim)); return; }
    const ptr = api.render(sim);
    if (!ptr) { fail(api.error(sim)); return; }
    image.data.set(Module.HEAPU8.subarray(ptr, ptr + width * height * 4));
    ctx.putImageData(image, 0, 0);
    frameMs = 0.9 * frameMs + 0.1 * (performance.now() - t0);
    page.frames++;
    if (page.frames % 10 === 0 || performance.now() < noteUntil) {
      status.textContent = `${frameMs.toFixed(1)} ms/frame  t=${api.time(sim).toFixed(2)} s  ${page.scene}  ` +
        `${width}x${height} px  view ${page.view}${page.post && page.view === 'dye' ? ' +post' : ''}${page.paused ? '  PAUSED' : ''}` +
        `${performance.now() < noteUntil ? '  ' + note : ''}  (space R V P)`;
    }
    requestAnimationFrame(frame);
  }
  page.ready = true;
  requestAnimationFrame(frame);
})();
