/* WebAssembly entry of the eddy web page: a 2D simulation made from a scene (the page reads the scene's JSON and
 * hands its values over: eddy_web_set, eddy_web_set_boundary, eddy_web_add_obstacle, ...), stirred by pointer
 * drags, a dragged obstacle, drawn by the render module (dye with the classic demo's shading and bloom, or the
 * speed, vorticity and pressure views) into RGBA. Built by emscripten (web/build.sh) with the core's sources, the
 * render module and apps/viewer/stir.c; the page (web/main.js) calls these functions through the module's exports.
 * Everything lives in one eddy_web object that the page holds. */
#include "eddy/render.h"
#include "eddy/sim.h"
#include "stir.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define EDDY_WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define EDDY_WEB_EXPORT
#endif

#define WEB_MAX_OBSTACLES 16

typedef struct eddy_web {
    eddy_sim_def def;        /* filled by eddy_web_set* before eddy_web_build */
    eddy_sim *sim;
    eddy_renderer *renderer;
    eddy_render_def render;
    eddy_image picture;
    stir stirrer;
    int pointer_down, pointer_inside;
    float pointer[3];        /* m */
    int stirred;             /* pointer events stirred since the last step */
    int obstacle_count;      /* obstacles the pointer may drag (right button) */
    eddy_id obstacle_ids[WEB_MAX_OBSTACLES];
    float obstacle_centers[WEB_MAX_OBSTACLES][3];
    int dragged;             /* index, -1 when none */
    char error[512];
} eddy_web;

static void web_set_error(eddy_web *w, const char *what, eddy_status st) {
    snprintf(w->error, sizeof w->error, "%s: %s: %s", what, eddy_status_string(st),
             w->sim ? eddy_sim_last_error(w->sim) : "");
}

/** A new, empty page object: the definition starts from eddy_sim_def_default(); fill it with eddy_web_set*, then
 *  eddy_web_build. `seed` chooses the stroke colours. Returns NULL when out of memory. */
EDDY_WEB_EXPORT eddy_web *eddy_web_new(unsigned seed) {
    eddy_web *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->def = eddy_sim_def_default();
    w->render = eddy_render_def_default();
    w->render.bloom_intensity = 0.35f; /* the viewer's gentler glow (apps/viewer/viewer.c) */
    w->render.bloom_levels = 4;
    w->dragged = -1;
    stir_init(&w->stirrer, NULL, seed);
    return w;
}

EDDY_WEB_EXPORT void eddy_web_destroy(eddy_web *w) {
    if (!w) return;
    eddy_image_free(&w->picture);
    eddy_renderer_destroy(w->renderer);
    eddy_sim_destroy(w->sim);
    free(w);
}

/** Sets a value of the definition by its scene-file name: "grid" (a x b cells), "size" (a m wide), "dye_scale"
 *  (a), "cfl", "dt", "max_dt", "viscosity", "vorticity", "dissipation.dye", "dissipation.velocity",
 *  "dissipation.temperature", "gravity" (a, b), "buoyancy.temperature", "buoyancy.density", "ambient",
 *  "pressure.tolerance", "advection" (0 MacCormack, 1 semi-Lagrangian, 2 BFECC). Returns 0, or -1 for an unknown
 *  key (eddy_web_build checks the values). */
EDDY_WEB_EXPORT int eddy_web_set(eddy_web *w, const char *key, float a, float b) {
    eddy_sim_def *d = &w->def;
    if (!strcmp(key, "grid")) { d->grid[0] = (int)a; d->grid[1] = (int)b; }
    else if (!strcmp(key, "size")) { d->size[0] = a; d->size[1] = 0; }
    else if (!strcmp(key, "dye_scale")) d->dye_scale[0] = d->dye_scale[1] = (int)a;
    else if (!strcmp(key, "cfl")) d->cfl = a;
    else if (!strcmp(key, "dt")) d->dt = a;
    else if (!strcmp(key, "max_dt")) d->max_dt = a;
    else if (!strcmp(key, "viscosity")) d->viscosity = a;
    else if (!strcmp(key, "vorticity")) d->vorticity = a;
    else if (!strcmp(key, "dissipation.dye")) d->dye_dissipation = a;
    else if (!strcmp(key, "dissipation.velocity")) d->velocity_dissipation = a;
    else if (!strcmp(key, "dissipation.temperature")) d->temperature_dissipation = a;
    else if (!strcmp(key, "gravity")) { d->gravity[0] = a; d->gravity[1] = b; }
    else if (!strcmp(key, "buoyancy.temperature")) d->buoyancy_temperature = a;
    else if (!strcmp(key, "buoyancy.density")) d->buoyancy_density = a;
    else if (!strcmp(key, "ambient")) d->ambient_temperature = a;
    else if (!strcmp(key, "pressure.tolerance")) d->pressure.tolerance = a;
    else if (!strcmp(key, "advection")) d->advection = (eddy_advection)(int)a;
    else {
        snprintf(w->error, sizeof w->error, "unknown setting '%s'", key);
        return -1;
    }
    return 0;
}

/** Boundary of face 0..3 (x-, x+, y-, y+): type as eddy_boundary_type, velocity (vx, vy) m/s. */
EDDY_WEB_EXPORT int eddy_web_set_boundary(eddy_web *w, int face, int type, float vx, float vy) {
    if (face < 0 || face > 3 || type < EDDY_BOUNDARY_WALL || type > EDDY_BOUNDARY_OUTFLOW) {
        snprintf(w->error, sizeof w->error, "boundary face %d type %d: expected face 0..3, type 0..5", face, type);
        return -1;
    }
    w->def.boundary[face].type = (eddy_boundary_type)type;
    w->def.boundary[face].velocity[0] = vx;
    w->def.boundary[face].velocity[1] = vy;
    return 0;
}

/** Creates the simulation and the renderer from the definition. Returns 0, or -1 with eddy_web_error set. */
EDDY_WEB_EXPORT int eddy_web_build(eddy_web *w) {
    char msg[400];
    w->def.dim = 2;
    w->def.threads = 1;
    eddy_status st = eddy_sim_create(&w->def, &w->sim, msg, sizeof msg);
    if (st != EDDY_OK) {
        snprintf(w->error, sizeof w->error, "scene: %s", msg);
        return -1;
    }
    if ((st = eddy_renderer_create(1, &w->renderer, msg, sizeof msg)) != EDDY_OK) {
        snprintf(w->error, sizeof w->error, "renderer: %s", msg);
        return -1;
    }
    return 0;
}

/** An obstacle: shape 0 circle (centre, radius r) or 1 box (centre, half sizes hx, hy), m. `draggable`: the right
 *  button may move it. Returns 0, or -1 with eddy_web_error set. */
EDDY_WEB_EXPORT int eddy_web_add_obstacle(eddy_web *w, int shape, float cx, float cy, float r, float hx, float hy,
                                          int draggable) {
    eddy_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.shape = shape == 1 ? EDDY_SHAPE_BOX : EDDY_SHAPE_SPHERE;
    od.center[0] = cx;
    od.center[1] = cy;
    od.radius = r;
    od.half_size[0] = hx;
    od.half_size[1] = hy;
    od.half_size[2] = 1;
    eddy_id id;
    eddy_status st = eddy_sim_add_obstacle(w->sim, &od, &id);
    if (st != EDDY_OK) { web_set_error(w, "obstacle", st); return -1; }
    if (draggable && w->obstacle_count < WEB_MAX_OBSTACLES) {
        w->obstacle_ids[w->obstacle_count] = id;
        memcpy(w->obstacle_centers[w->obstacle_count], od.center, sizeof od.center);
        w->obstacle_count++;
    }
    return 0;
}

/** An emitter adding dye (r, g, b per second) and temperature (K/s) inside a circle or box, as obstacles. */
EDDY_WEB_EXPORT int eddy_web_add_emitter(eddy_web *w, int shape, float cx, float cy, float r, float hx, float hy,
                                         float dr, float dg, float db, float temperature) {
    eddy_emitter_def ed;
    memset(&ed, 0, sizeof ed);
    ed.shape = shape == 1 ? EDDY_SHAPE_BOX : EDDY_SHAPE_SPHERE;
    ed.center[0] = cx;
    ed.center[1] = cy;
    ed.radius = r;
    ed.half_size[0] = hx;
    ed.half_size[1] = hy;
    ed.half_size[2] = 1;
    ed.dye[0] = dr;
    ed.dye[1] = dg;
    ed.dye[2] = db;
    ed.temperature = temperature;
    eddy_id id;
    eddy_status st = eddy_sim_add_emitter(w->sim, &ed, &id);
    if (st != EDDY_OK) { web_set_error(w, "emitter", st); return -1; }
    return 0;
}

/** A Gaussian splat at world position (x, y) m: velocity m/s, dye, radius m, temperature K. */
EDDY_WEB_EXPORT int eddy_web_splat(eddy_web *w, float x, float y, float vx, float vy, float r, float g, float b,
                                   float radius, float temperature) {
    eddy_splat sp;
    memset(&sp, 0, sizeof sp);
    sp.position[0] = x;
    sp.position[1] = y;
    sp.velocity[0] = vx;
    sp.velocity[1] = vy;
    sp.dye[0] = r; sp.dye[1] = g; sp.dye[2] = b;
    sp.radius = radius;
    sp.temperature = temperature;
    eddy_status st = eddy_sim_splat(w->sim, &sp);
    if (st != EDDY_OK) { web_set_error(w, "splat", st); return -1; }
    return 0;
}

/** Taylor-Green vortices of amplitude A m/s filling the box (the scene key initial.flow = "taylor_green"):
 *  u = A sin(kx x) cos(ky y), v = -A (kx/ky) cos(kx x) sin(ky y), k = 2 pi / box size (as apps/cli/run_setup.c). */
EDDY_WEB_EXPORT int eddy_web_taylor_green(eddy_web *w, float amplitude) {
    const eddy_sim_def *d = eddy_sim_get_def(w->sim);
    const double h = eddy_sim_cell_size(w->sim), two_pi = 6.283185307179586;
    const double kx = two_pi / (h * d->grid[0]), ky = two_pi / (h * d->grid[1]);
    for (int a = 0; a < 2; a++) {
        eddy_field f = a == 0 ? EDDY_FIELD_U : EDDY_FIELD_V;
        eddy_field_layout l;
        eddy_status st = eddy_sim_field_layout(w->sim, f, &l);
        float *u = st == EDDY_OK ? malloc(l.count * sizeof(float)) : NULL;
        if (!u) { web_set_error(w, "taylor_green", st != EDDY_OK ? st : EDDY_ERR_OUT_OF_MEMORY); return -1; }
        for (int j = 0; j < l.n[1]; j++)
            for (int i = 0; i < l.n[0]; i++) {
                double x = l.origin[0] + i * (double)l.spacing[0], y = l.origin[1] + j * (double)l.spacing[1];
                u[(size_t)j * (size_t)l.n[0] + (size_t)i] =
                    (float)(a == 0 ? amplitude * sin(kx * x) * cos(ky * y) : -amplitude * (kx / ky) * cos(kx * x) * sin(ky * y));
            }
        st = eddy_sim_write_field(w->sim, f, u, l.count);
        free(u);
        if (st != EDDY_OK) { web_set_error(w, "taylor_green", st); return -1; }
    }
    eddy_status st = eddy_sim_project(w->sim);
    if (st != EDDY_OK) { web_set_error(w, "taylor_green", st); return -1; }
    return 0;
}

/** The box, m: 0 width, 1 height, 2 origin x, 3 origin y. */
EDDY_WEB_EXPORT double eddy_web_box(const eddy_web *w, int what) {
    const eddy_sim_def *d = eddy_sim_get_def(w->sim);
    float h = eddy_sim_cell_size(w->sim);
    switch (what) {
    case 0: return h * (float)d->grid[0];
    case 1: return h * (float)d->grid[1];
    case 2: return d->origin[0];
    default: return d->origin[1];
    }
}

EDDY_WEB_EXPORT int eddy_web_width(const eddy_web *w) { return w->picture.width; }
EDDY_WEB_EXPORT int eddy_web_height(const eddy_web *w) { return w->picture.height; }
EDDY_WEB_EXPORT double eddy_web_time(const eddy_web *w) { return eddy_sim_time(w->sim); }
EDDY_WEB_EXPORT const char *eddy_web_error(const eddy_web *w) { return w->error; }

/* picture coordinates (x right, y down, in [0,1]) to world metres */
static void web_world(const eddy_web *w, float x, float y, float out[3]) {
    const eddy_sim_def *d = eddy_sim_get_def(w->sim);
    float h = eddy_sim_cell_size(w->sim);
    out[0] = d->origin[0] + x * h * (float)d->grid[0];
    out[1] = d->origin[1] + (1.0f - y) * h * (float)d->grid[1];
    out[2] = 0;
}

/** A pointer event in picture coordinates (x in [0,1] left to right, y top to bottom), `dt` s after the last one.
 *  Stirs at once along the segment from the last event's position, so every event of a fast drag counts however
 *  few animation frames run during it. Returns 0, or -1 with eddy_web_error set. */
EDDY_WEB_EXPORT int eddy_web_pointer(eddy_web *w, int down, int inside, float x, float y, float dt) {
    w->pointer_down = down;
    w->pointer_inside = inside;
    web_world(w, x, y, w->pointer);
    if (!(dt > 1e-3f)) dt = 1e-3f; /* two events in the same millisecond: a short, not an infinitely fast, move */
    if (dt > 0.1f) dt = 0.1f;
    eddy_status st = stir_frame(&w->stirrer, w->sim, down, inside ? w->pointer : NULL, dt);
    w->stirred = 1;
    if (st != EDDY_OK) { web_set_error(w, "stir", st); return -1; }
    return 0;
}

/** Right-drag: `active` nonzero moves the draggable obstacle nearest the pointer (picked when the drag starts) to
 *  (x, y) with the velocity of the move over `dt` s; zero lets it go (it stops). Returns 1 when an obstacle is
 *  dragged, 0 when the scene has none, -1 on failure. */
EDDY_WEB_EXPORT int eddy_web_drag(eddy_web *w, int active, float x, float y, float dt) {
    float zero[3] = {0, 0, 0};
    if (!active) {
        if (w->dragged >= 0) {
            int i = w->dragged;
            eddy_sim_move_obstacle(w->sim, w->obstacle_ids[i], w->obstacle_centers[i], zero);
        }
        w->dragged = -1;
        return 0;
    }
    float p[3];
    web_world(w, x, y, p);
    if (w->dragged < 0) {
        float best = INFINITY;
        for (int i = 0; i < w->obstacle_count; i++) {
            const float *c = w->obstacle_centers[i];
            float d2 = (c[0] - p[0]) * (c[0] - p[0]) + (c[1] - p[1]) * (c[1] - p[1]);
            if (d2 < best) { best = d2; w->dragged = i; }
        }
        if (w->dragged < 0) return 0;
    }
    int i = w->dragged;
    float *c = w->obstacle_centers[i];
    float vel[3] = {0, 0, 0};
    if (dt > 1e-3f)
        for (int a = 0; a < 2; a++) vel[a] = (p[a] - c[a]) / dt;
    c[0] = p[0];
    c[1] = p[1];
    eddy_status st = eddy_sim_move_obstacle(w->sim, w->obstacle_ids[i], c, vel);
    if (st != EDDY_OK) { web_set_error(w, "drag", st); return -1; }
    return 1;
}

/** Options: hover (splat without a click), one colour or a palette ("#rrggbb,#rrggbb"; "" = random hues),
 *  transparent background (alpha = dye coverage), background colour "#rrggbb". Returns 0, or -1 on a bad colour. */
EDDY_WEB_EXPORT int eddy_web_options(eddy_web *w, int hover, const char *palette, int transparent, const char *background) {
    stir_def def = w->stirrer.def;
    def.hover = hover;
    def.color_count = 0;
    if (palette && *palette && stir_parse_palette(palette, &def) != 0) return -1;
    float bg[3] = {0, 0, 0};
    if (background && *background && stir_parse_color(background, bg) != 0) return -1;
    memcpy(w->render.background, bg, sizeof bg);
    w->render.transparent = transparent;
    w->stirrer.def = def;
    return 0;
}

/** The view (0 dye, 1 speed, 2 vorticity, 3 pressure: eddy_view) and post-processing (shading and bloom) on/off. */
EDDY_WEB_EXPORT int eddy_web_view(eddy_web *w, int view, int post) {
    if (view < EDDY_VIEW_DYE || view > EDDY_VIEW_PRESSURE) return -1;
    w->render.view = (eddy_view)view;
    w->render.shading = w->render.bloom = post != 0;
    w->render.colorbar = view != EDDY_VIEW_DYE;
    return 0;
}

/** A frame: stirs with the pointer held still when no pointer event came since the last frame (a held button keeps
 *  adding dye), then advances the simulation by `dt` seconds (clamped to 1/15 s) unless `paused`.
 *  Returns 0, or -1 with eddy_web_error set. */
EDDY_WEB_EXPORT int eddy_web_step(eddy_web *w, float dt, int paused) {
    if (!(dt > 0)) return 0;
    if (dt > 1.0f / 15.0f) dt = 1.0f / 15.0f; /* a background tab resumes without a huge step */
    eddy_status st = EDDY_OK;
    if (!w->stirred) st = stir_frame(&w->stirrer, w->sim, w->pointer_down, w->pointer_inside ? w->pointer : NULL, dt);
    w->stirred = 0;
    if (st != EDDY_OK) { web_set_error(w, "stir", st); return -1; }
    if (paused) return 0;
    st = eddy_sim_advance(w->sim, dt);
    if (st != EDDY_OK) { web_set_error(w, "step", st); return -1; }
    return 0;
}

/** Draws the view into the RGBA picture (one pixel per dye cell, top row first); returns its address
 *  (eddy_web_width x eddy_web_height x 4 bytes, valid until the next call or destroy), or NULL on failure. */
EDDY_WEB_EXPORT uint8_t *eddy_web_render(eddy_web *w) {
    eddy_status st = eddy_render_sim(w->renderer, w->sim, &w->render, &w->picture);
    if (st != EDDY_OK) {
        snprintf(w->error, sizeof w->error, "render: %s", eddy_renderer_last_error(w->renderer));
        return NULL;
    }
    return w->picture.rgba;
}
