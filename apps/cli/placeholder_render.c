/* PLACEHOLDER, built only while the render module (src/render, target eddy_render) is not in the tree:
 * the smallest stand-ins for the render.h calls the command makes (dye drawn as clamped sRGB-ish bytes, one pixel
 * per cell, nearest-neighbour scaling; no post-processing, no volume rendering, no sprite sheets). */
#include "eddy/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const view_names[EDDY_VIEW_COUNT] = {"dye", "speed", "vorticity", "pressure", "divergence",
                                                        "temperature", "u", "v", "w", "liquid"};
static const char *const map_names[EDDY_COLORMAP_COUNT] = {"auto", "viridis", "inferno", "grey", "diverging"};
static const char *const tone_names[3] = {"clamp", "reinhard", "aces"};

const char *eddy_view_name(eddy_view v) { return (v >= 0 && v < EDDY_VIEW_COUNT) ? view_names[v] : "unknown"; }
const char *eddy_colormap_name(eddy_colormap m) { return (m >= 0 && m < EDDY_COLORMAP_COUNT) ? map_names[m] : "unknown"; }
const char *eddy_tonemap_name(eddy_tonemap t) { return (t >= 0 && t < 3) ? tone_names[t] : "unknown"; }
static eddy_status find(const char *name, const char *const *names, int n, int *out) {
    for (int i = 0; name && i < n; i++)
        if (!strcmp(name, names[i])) return *out = i, EDDY_OK;
    return EDDY_ERR_INVALID_ARGUMENT;
}
eddy_status eddy_view_from_name(const char *name, eddy_view *out) {
    int i = 0; eddy_status s = find(name, view_names, EDDY_VIEW_COUNT, &i); *out = (eddy_view)i; return s;
}
eddy_status eddy_colormap_from_name(const char *name, eddy_colormap *out) {
    int i = 0; eddy_status s = find(name, map_names, EDDY_COLORMAP_COUNT, &i); *out = (eddy_colormap)i; return s;
}
eddy_status eddy_tonemap_from_name(const char *name, eddy_tonemap *out) {
    int i = 0; eddy_status s = find(name, tone_names, 3, &i); *out = (eddy_tonemap)i; return s;
}

eddy_render_def eddy_render_def_default(void) {
    eddy_render_def d;
    memset(&d, 0, sizeof d);
    d.slice_axis = 2; d.slice_index = -1; d.slice_position = NAN; d.exposure = 1;
    d.bump_scale = 1; d.ambient = 0.7f; d.diffuse = 0.3f; d.shininess = 32; d.light_dir[2] = 1;
    d.bloom_threshold = 0.6f; d.bloom_soft_knee = 0.7f; d.bloom_intensity = 0.8f; d.bloom_levels = 6;
    d.edge_strength = 1; d.edge_color[0] = d.edge_color[1] = d.edge_color[2] = 1;
    d.draw_obstacles = 1; d.obstacle_color[0] = d.obstacle_color[1] = d.obstacle_color[2] = 128; d.obstacle_color[3] = 255;
    d.liquid_level = 0.5f;
    return d;
}
eddy_status eddy_render_def_validate(const eddy_render_def *d, char *m, size_t n) { (void)d; (void)m; (void)n; return EDDY_OK; }
eddy_volume_def eddy_volume_def_default(void) {
    eddy_volume_def d;
    memset(&d, 0, sizeof d);
    d.width = d.height = 512; d.density_scale = 20; d.step = 0.5f; d.exposure = 1; d.shadows = 1; d.draw_obstacles = 1;
    d.camera.fov = 40; d.camera.up[1] = 1; d.light_dir[1] = 1; d.light_color[0] = d.light_color[1] = d.light_color[2] = 1;
    d.light_intensity = 1.5f; d.ambient = 0.25f; d.tonemap = EDDY_TONEMAP_REINHARD;
    return d;
}
eddy_status eddy_volume_def_validate(const eddy_volume_def *d, char *m, size_t n) { (void)d; (void)m; (void)n; return EDDY_OK; }

struct eddy_renderer { int unused; };
eddy_status eddy_renderer_create(int threads, eddy_renderer **out, char *msg, size_t n) {
    (void)threads; (void)msg; (void)n;
    *out = (eddy_renderer *)calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}
void eddy_renderer_destroy(eddy_renderer *r) { free(r); }
const char *eddy_renderer_last_error(const eddy_renderer *r) { (void)r; return "placeholder renderer"; }

static eddy_status draw_dye(eddy_sim *sim, int width, int height, eddy_image *img) {
    eddy_field_layout lay;
    const float *c[3];
    for (int k = 0; k < 3; k++)
        if (!(c[k] = eddy_sim_field_view(sim, (eddy_field)(EDDY_FIELD_DYE_R + k), &lay))) return EDDY_ERR_INVALID_ARGUMENT;
    int w = width ? width : lay.n[0], h = height ? height : lay.n[1];
    if (!img->rgba || img->width != w || img->height != h) {
        eddy_image_free(img);
        if (eddy_image_init(img, w, h, NULL, 0) != EDDY_OK) return EDDY_ERR_OUT_OF_MEMORY;
    }
    int k0 = lay.n[2] / 2;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int i = x * lay.n[0] / w, j = (h - 1 - y) * lay.n[1] / h;
            size_t q = (size_t)i + (size_t)lay.n[0] * ((size_t)j + (size_t)lay.n[1] * (size_t)k0);
            uint8_t *p = img->rgba + 4 * ((size_t)x + (size_t)w * (size_t)y);
            for (int k = 0; k < 3; k++) {
                float v = c[k][q];
                p[k] = (uint8_t)(v <= 0 ? 0 : v >= 1 ? 255 : (int)(255.0f * sqrtf(v) + 0.5f));
            }
            p[3] = 255;
        }
    return EDDY_OK;
}
eddy_status eddy_render_sim(eddy_renderer *r, eddy_sim *sim, const eddy_render_def *def, eddy_image *img) {
    (void)r;
    return draw_dye(sim, def->width, def->height, img);
}
eddy_status eddy_render_volume_sim(eddy_renderer *r, eddy_sim *sim, const eddy_volume_def *def, eddy_image *img) {
    (void)r;
    return draw_dye(sim, def->width, def->height, img);
}

eddy_flipbook_def eddy_flipbook_def_default(void) {
    eddy_flipbook_def d = {8, 8, 128, 128, 30};
    return d;
}
struct eddy_flipbook { int unused; };
eddy_status eddy_flipbook_create(const eddy_flipbook_def *def, eddy_flipbook **out, char *msg, size_t n) {
    (void)def; *out = NULL;
    if (msg && n) strncpy(msg, "sprite sheets need the render module (placeholder build)", n - 1), msg[n - 1] = '\0';
    return EDDY_ERR_UNSUPPORTED;
}
void eddy_flipbook_destroy(eddy_flipbook *fb) { (void)fb; }
eddy_status eddy_flipbook_add(eddy_flipbook *fb, const eddy_image *f, char *m, size_t n) { (void)fb; (void)f; (void)m; (void)n; return EDDY_ERR_UNSUPPORTED; }
int eddy_flipbook_count(const eddy_flipbook *fb) { (void)fb; return 0; }
eddy_status eddy_flipbook_write(const eddy_flipbook *fb, const char *p, char *m, size_t n) { (void)fb; (void)p; (void)m; (void)n; return EDDY_ERR_UNSUPPORTED; }
eddy_status eddy_dye_from_image(const eddy_image *img, int nx, int ny, float *const dye[3], char *msg, size_t n) {
    (void)img; (void)nx; (void)ny; (void)dye;
    if (msg && n) strncpy(msg, "dye from a picture needs the render module (placeholder build)", n - 1), msg[n - 1] = '\0';
    return EDDY_ERR_UNSUPPORTED;
}
/* wind scenes draw with these; without the render module their pictures are refused */
eddy_status eddy_render_input_2d(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def, eddy_image *img) {
    (void)r; (void)in; (void)def; (void)img; return EDDY_ERR_UNSUPPORTED;
}
void eddy_colormap_eval(eddy_colormap map, float t, float srgb[3]) {
    (void)map; t = t > 0 ? (t < 1 ? t : 1) : 0; srgb[0] = srgb[1] = srgb[2] = t;
}
eddy_status eddy_image_draw_point(eddy_image *img, float x, float y, float radius, const uint8_t rgba[4]) {
    (void)img; (void)x; (void)y; (void)radius; (void)rgba; return EDDY_ERR_UNSUPPORTED;
}
eddy_status eddy_image_draw_arrow(eddy_image *img, float x0, float y0, float x1, float y1, float width, float head,
                                  const uint8_t rgba[4]) {
    (void)img; (void)x0; (void)y0; (void)x1; (void)y1; (void)width; (void)head; (void)rgba; return EDDY_ERR_UNSUPPORTED;
}
