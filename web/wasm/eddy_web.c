/* WebAssembly entry of the eddy web page: a 2D simulation stirred by pointer drags, its dye drawn as RGBA.
 * Built by emscripten (web/build.sh) with the core's sources and apps/viewer/stir.c; the page (web/main.js) calls
 * these functions through the module's exports. Everything lives in one eddy_web object that the page holds. */
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

typedef struct eddy_web {
    eddy_sim *sim;
    stir stirrer;
    int pointer_down, pointer_inside;
    float pointer[3];    /* m */
    int width, height;   /* dye cells = picture pixels */
    float *dye[3];
    uint8_t *rgba;
    uint8_t srgb_lut[4096]; /* linear [0,1] in 4096 steps to sRGB bytes */
    float background[3];    /* linear */
    int transparent;
    char error[512];
} eddy_web;

static void web_set_error(eddy_web *w, const char *what, eddy_status st) {
    snprintf(w->error, sizeof w->error, "%s: %s: %s", what, eddy_status_string(st),
             w->sim ? eddy_sim_last_error(w->sim) : "");
}

/** Creates a width x height-cell 2D box (`box_width` m wide) with dye on a grid `dye_scale` times finer.
 *  Returns NULL on failure (bad sizes, out of memory). */
EDDY_WEB_EXPORT eddy_web *eddy_web_create(int nx, int ny, int dye_scale, float box_width, unsigned seed) {
    eddy_web *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = nx;
    def.grid[1] = ny;
    def.size[0] = box_width;
    def.dye_scale[0] = def.dye_scale[1] = dye_scale;
    def.velocity_dissipation = 0.2f; /* the demo's look: motion and dye fade in a few seconds */
    def.dye_dissipation = 0.5f;
    def.vorticity = 0.3f;
    def.pressure.tolerance = 1e-4f;  /* real time: a looser solve is visually the same */
    def.max_dt = 1.0f / 60.0f;
    char msg[256];
    eddy_status st = eddy_sim_create(&def, &w->sim, msg, sizeof msg);
    if (st != EDDY_OK) {
        free(w);
        return NULL;
    }
    w->width = nx * dye_scale;
    w->height = ny * dye_scale;
    size_t n = (size_t)w->width * (size_t)w->height;
    for (int c = 0; c < 3; c++) w->dye[c] = malloc(n * sizeof(float));
    w->rgba = malloc(n * 4);
    if (!w->dye[0] || !w->dye[1] || !w->dye[2] || !w->rgba) {
        for (int c = 0; c < 3; c++) free(w->dye[c]);
        free(w->rgba);
        eddy_sim_destroy(w->sim);
        free(w);
        return NULL;
    }
    for (int i = 0; i < 4096; i++) {
        float v = (float)i / 4095.0f;
        float s = v <= 0.0031308f ? 12.92f * v : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
        w->srgb_lut[i] = (uint8_t)lrintf(s * 255.0f);
    }
    stir_init(&w->stirrer, NULL, seed);
    return w;
}

EDDY_WEB_EXPORT void eddy_web_destroy(eddy_web *w) {
    if (!w) return;
    for (int c = 0; c < 3; c++) free(w->dye[c]);
    free(w->rgba);
    eddy_sim_destroy(w->sim);
    free(w);
}

EDDY_WEB_EXPORT int eddy_web_width(const eddy_web *w) { return w->width; }
EDDY_WEB_EXPORT int eddy_web_height(const eddy_web *w) { return w->height; }
EDDY_WEB_EXPORT double eddy_web_time(const eddy_web *w) { return eddy_sim_time(w->sim); }
EDDY_WEB_EXPORT const char *eddy_web_error(const eddy_web *w) { return w->error; }

/** Pointer state in picture coordinates: x in [0,1] left to right, y in [0,1] top to bottom. */
EDDY_WEB_EXPORT void eddy_web_pointer(eddy_web *w, int down, int inside, float x, float y) {
    const eddy_sim_def *d = eddy_sim_get_def(w->sim);
    float h = eddy_sim_cell_size(w->sim);
    w->pointer_down = down;
    w->pointer_inside = inside;
    w->pointer[0] = d->origin[0] + x * h * (float)d->grid[0];
    w->pointer[1] = d->origin[1] + (1.0f - y) * h * (float)d->grid[1];
    w->pointer[2] = 0;
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
    memcpy(w->background, bg, sizeof bg);
    w->transparent = transparent;
    w->stirrer.def = def;
    return 0;
}

/** Adds one splat at picture coordinates (x right, y down, in [0,1]) with velocity in pictures per second. */
EDDY_WEB_EXPORT int eddy_web_splat(eddy_web *w, float x, float y, float vx, float vy, float r, float g, float b, float radius) {
    const eddy_sim_def *d = eddy_sim_get_def(w->sim);
    float h = eddy_sim_cell_size(w->sim);
    float bw = h * (float)d->grid[0], bh = h * (float)d->grid[1];
    eddy_splat sp;
    memset(&sp, 0, sizeof sp);
    sp.position[0] = d->origin[0] + x * bw;
    sp.position[1] = d->origin[1] + (1.0f - y) * bh;
    sp.velocity[0] = vx * bw;
    sp.velocity[1] = -vy * bh;
    sp.dye[0] = r; sp.dye[1] = g; sp.dye[2] = b;
    sp.radius = radius * bh;
    eddy_status st = eddy_sim_splat(w->sim, &sp);
    if (st != EDDY_OK) { web_set_error(w, "splat", st); return -1; }
    return 0;
}

/** Applies the pointer's stirring and advances the simulation by `dt` seconds (clamped to [0, 1/15]).
 *  Returns 0, or -1 with eddy_web_error set. */
EDDY_WEB_EXPORT int eddy_web_step(eddy_web *w, float dt) {
    if (!(dt > 0)) return 0;
    if (dt > 1.0f / 15.0f) dt = 1.0f / 15.0f; /* a background tab resumes without a huge step */
    eddy_status st = stir_frame(&w->stirrer, w->sim, w->pointer_down, w->pointer_inside ? w->pointer : NULL, dt);
    if (st != EDDY_OK) { web_set_error(w, "stir", st); return -1; }
    st = eddy_sim_advance(w->sim, dt);
    if (st != EDDY_OK) { web_set_error(w, "step", st); return -1; }
    return 0;
}

static uint8_t web_encode(const eddy_web *w, float linear) {
    if (!(linear > 0)) return 0;
    if (linear >= 1) return 255;
    return w->srgb_lut[(int)(linear * 4095.0f + 0.5f)];
}

/** Draws the dye (clamped, sRGB-encoded) into the RGBA buffer, top row first; returns its address
 *  (width*height*4 bytes, valid until the next call or destroy), or NULL on failure. */
EDDY_WEB_EXPORT uint8_t *eddy_web_render(eddy_web *w) {
    static const eddy_field fields[3] = {EDDY_FIELD_DYE_R, EDDY_FIELD_DYE_G, EDDY_FIELD_DYE_B};
    size_t n = (size_t)w->width * (size_t)w->height;
    for (int c = 0; c < 3; c++) {
        eddy_status st = eddy_sim_read_field(w->sim, fields[c], w->dye[c], n);
        if (st != EDDY_OK) { web_set_error(w, "read dye", st); return NULL; }
    }
    for (int y = 0; y < w->height; y++) {
        const size_t row = (size_t)(w->height - 1 - y) * (size_t)w->width; /* the sim's y points up */
        uint8_t *out = w->rgba + (size_t)y * (size_t)w->width * 4;
        for (int x = 0; x < w->width; x++) {
            float d[3] = {w->dye[0][row + x], w->dye[1][row + x], w->dye[2][row + x]};
            if (w->transparent) {
                float a = fmaxf(d[0], fmaxf(d[1], d[2]));
                if (a > 1) a = 1;
                for (int c = 0; c < 3; c++) out[4 * x + c] = a > 0 ? web_encode(w, d[c] / a) : 0;
                out[4 * x + 3] = (uint8_t)lrintf((a > 0 ? a : 0) * 255.0f);
            } else {
                for (int c = 0; c < 3; c++) out[4 * x + c] = web_encode(w, d[c] + w->background[c]);
                out[4 * x + 3] = 255;
            }
        }
    }
    return w->rgba;
}
