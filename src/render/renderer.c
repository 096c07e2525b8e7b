/* The renderer object (scratch buffers kept between calls), definitions with their defaults and checks, names,
 * and the colour transfer functions: the sRGB curve (IEC 61966-2-1) and tonemaps (Reinhard 2002; Narkowicz's
 * 2015 fit of the ACES filmic curve). */
#include "render_internal.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

eddy_status eddy__rfail(eddy_renderer *r, eddy_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return st;
}

eddy_status eddy__fbuf_reserve(eddy_renderer *r, eddy__fbuf *b, size_t n) {
    if (n <= b->cap) return EDDY_OK;
    float *p = realloc(b->p, n * sizeof(float));
    if (!p) return eddy__rfail(r, EDDY_ERR_OUT_OF_MEMORY, "render scratch of %zu floats: out of memory", n);
    b->p = p;
    b->cap = n;
    return EDDY_OK;
}

eddy_status eddy__image_ensure(eddy_renderer *r, eddy_image *img, int w, int h) {
    if (!img) return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "output image is NULL");
    if (img->rgba && img->width == w && img->height == h) return EDDY_OK;
    eddy_image_free(img);
    char msg[256];
    eddy_status st = eddy_image_init(img, w, h, msg, sizeof msg);
    if (st != EDDY_OK) return eddy__rfail(r, st, "%s", msg);
    return EDDY_OK;
}

float eddy__srgb_to_linear(float s) {
    if (s <= 0.04045f) return s / 12.92f;
    return powf((s + 0.055f) / 1.055f, 2.4f);
}

float eddy__linear_to_srgb(float l) {
    if (l <= 0.0031308f) return 12.92f * l;
    return 1.055f * powf(l, 1.0f / 2.4f) - 0.055f;
}

eddy_status eddy_renderer_create(int threads, eddy_renderer **out, char *msg, size_t msg_size) {
    if (!out) return EDDY_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (threads < 0 || threads > 4096) {
        if (msg && msg_size) snprintf(msg, msg_size, "renderer threads = %d: expected 0 (OpenMP default) .. 4096", threads);
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    eddy_renderer *r = calloc(1, sizeof *r);
    if (!r) {
        if (msg && msg_size) snprintf(msg, msg_size, "renderer: out of memory");
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    r->threads = threads;
    for (int i = 0; i <= EDDY_SRGB_LUT_SIZE; i++) {
        float s = eddy__linear_to_srgb((float)i / (float)EDDY_SRGB_LUT_SIZE);
        r->srgb_lut[i] = (uint8_t)(s * 255.0f + 0.5f);
    }
    if (msg && msg_size) msg[0] = '\0';
    *out = r;
    return EDDY_OK;
}

void eddy_renderer_destroy(eddy_renderer *r) {
    if (!r) return;
    free(r->rgb.p);
    free(r->tmp.p);
    free(r->scalar.p);
    free(r->upsample_cols.p);
    for (int i = 0; i < EDDY_BLOOM_MAX_LEVELS; i++) {
        free(r->bloom[i].a.p);
        free(r->bloom[i].b.p);
    }
    free(r->field.p);
    for (int a = 0; a < 3; a++) free(r->field2[a].p);
    free(r->solid);
    free(r->vol.p);
    free(r->occ.p);
    free(r->plane.p);
    free(r->blocks.p);
    free(r->sdf.p);
    eddy_surface_destroy(r->surface);
    free(r);
}

const char *eddy_renderer_last_error(const eddy_renderer *r) { return r ? r->error : ""; }

void eddy_renderer_last_range(const eddy_renderer *r, float *min, float *max) {
    if (min) *min = r ? r->last_min : 0.0f;
    if (max) *max = r ? r->last_max : 0.0f;
}

void eddy_renderer_last_timing(const eddy_renderer *r, eddy_render_timing *out) {
    if (!out) return;
    if (r) *out = r->timing;
    else memset(out, 0, sizeof *out);
}

/* ---- names ---- */
static const char *const view_names[EDDY_VIEW_COUNT] = {"dye", "speed", "vorticity", "pressure", "divergence",
                                                        "temperature", "u", "v", "w", "liquid"};
static const char *const map_names[EDDY_COLORMAP_COUNT] = {"auto", "viridis", "inferno", "grey", "diverging"};
static const char *const tonemap_names[] = {"clamp", "reinhard", "aces"};

const char *eddy_view_name(eddy_view view) {
    return (view >= 0 && view < EDDY_VIEW_COUNT) ? view_names[view] : "unknown";
}

const char *eddy_colormap_name(eddy_colormap map) {
    return (map >= 0 && map < EDDY_COLORMAP_COUNT) ? map_names[map] : "unknown";
}

const char *eddy_tonemap_name(eddy_tonemap tm) {
    return (tm >= 0 && tm <= EDDY_TONEMAP_ACES) ? tonemap_names[tm] : "unknown";
}

static eddy_status find_name(const char *name, const char *const *names, int count, int *out) {
    if (!name || !out) return EDDY_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        if (!strcmp(name, names[i])) {
            *out = i;
            return EDDY_OK;
        }
    return EDDY_ERR_INVALID_ARGUMENT;
}

eddy_status eddy_view_from_name(const char *name, eddy_view *out) {
    if (!out) return EDDY_ERR_INVALID_ARGUMENT;
    int i;
    eddy_status st = find_name(name, view_names, EDDY_VIEW_COUNT, &i);
    if (st == EDDY_OK) *out = (eddy_view)i;
    return st;
}

eddy_status eddy_colormap_from_name(const char *name, eddy_colormap *out) {
    if (!out) return EDDY_ERR_INVALID_ARGUMENT;
    int i;
    eddy_status st = find_name(name, map_names, EDDY_COLORMAP_COUNT, &i);
    if (st != EDDY_OK && name && !strcmp(name, "gray")) i = EDDY_COLORMAP_GREY, st = EDDY_OK;
    if (st == EDDY_OK) *out = (eddy_colormap)i;
    return st;
}

eddy_status eddy_tonemap_from_name(const char *name, eddy_tonemap *out) {
    if (!out) return EDDY_ERR_INVALID_ARGUMENT;
    int i;
    eddy_status st = find_name(name, tonemap_names, 3, &i);
    if (st == EDDY_OK) *out = (eddy_tonemap)i;
    return st;
}

/* ---- definitions ---- */
eddy_render_def eddy_render_def_default(void) {
    eddy_render_def d;
    memset(&d, 0, sizeof d);
    d.view = EDDY_VIEW_DYE;
    d.slice_axis = 2;
    d.slice_index = -1;
    d.slice_position = NAN;
    d.exposure = 1.0f;
    d.tonemap = EDDY_TONEMAP_CLAMP;
    d.bump_scale = 8.0f;
    d.ambient = 0.7f;
    d.diffuse = 0.3f;
    d.specular = 0.0f;
    d.shininess = 32.0f;
    d.light_dir[2] = 1.0f;
    d.bloom_threshold = 0.6f;
    d.bloom_soft_knee = 0.7f;
    d.bloom_intensity = 0.8f;
    d.bloom_levels = 6;
    d.edge_strength = 1.0f;
    d.edge_color[0] = d.edge_color[1] = d.edge_color[2] = 1.0f;
    d.colormap = EDDY_COLORMAP_AUTO;
    d.draw_obstacles = 1;
    d.obstacle_color[0] = d.obstacle_color[1] = d.obstacle_color[2] = 128;
    d.obstacle_color[3] = 255;
    d.liquid_level = 0.5f;
    d.liquid_color[0] = 0.02f;
    d.liquid_color[1] = 0.22f;
    d.liquid_color[2] = 0.7f;
    return d;
}

static eddy_status def_error(char *msg, size_t msg_size, const char *fmt, ...) EDDY_R_PRINTF(3, 4);
static eddy_status def_error(char *msg, size_t msg_size, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return EDDY_ERR_INVALID_ARGUMENT;
}

#define CHECK_RANGE(name, v, lo, hi)                                                                     \
    do {                                                                                                  \
        if (!((v) >= (lo) && (v) <= (hi)))                                                                \
            return def_error(msg, msg_size, "render." name " = %g: expected %g .. %g", (double)(v),       \
                             (double)(lo), (double)(hi));                                                 \
    } while (0)

eddy_status eddy_render_def_validate(const eddy_render_def *d, char *msg, size_t msg_size) {
    if (!d) return def_error(msg, msg_size, "render definition is NULL");
    if (d->view < 0 || d->view >= EDDY_VIEW_COUNT)
        return def_error(msg, msg_size, "render.view = %d: expected 0 .. %d", (int)d->view, EDDY_VIEW_COUNT - 1);
    CHECK_RANGE("width", d->width, 0, EDDY_RENDER_MAX_SIDE);
    CHECK_RANGE("height", d->height, 0, EDDY_RENDER_MAX_SIDE);
    CHECK_RANGE("slice_axis", d->slice_axis, 0, 2);
    if (d->slice_index < -1) return def_error(msg, msg_size, "render.slice_index = %d: expected -1 or >= 0", d->slice_index);
    if (isinf(d->slice_position)) return def_error(msg, msg_size, "render.slice_position is infinite");
    CHECK_RANGE("exposure", d->exposure, 0, 1e6);
    if (d->tonemap < 0 || d->tonemap > EDDY_TONEMAP_ACES)
        return def_error(msg, msg_size, "render.tonemap = %d: expected 0 .. 2", (int)d->tonemap);
    for (int c = 0; c < 3; c++) {
        CHECK_RANGE("background", d->background[c], 0, 1e6);
        CHECK_RANGE("edge_color", d->edge_color[c], 0, 1e6);
        CHECK_RANGE("light_dir", d->light_dir[c], -1e6, 1e6);
        CHECK_RANGE("liquid_color", d->liquid_color[c], 0, 1e6);
    }
    CHECK_RANGE("liquid_level", d->liquid_level, -1e30f, 1e30f); /* float bounds: 1e30f itself is above 1e30 */
    if (d->shading && d->light_dir[0] == 0 && d->light_dir[1] == 0 && d->light_dir[2] == 0)
        return def_error(msg, msg_size, "render.light_dir is the zero vector: expected a direction");
    CHECK_RANGE("bump_scale", d->bump_scale, 0, 1e6);
    CHECK_RANGE("ambient", d->ambient, 0, 100);
    CHECK_RANGE("diffuse", d->diffuse, 0, 100);
    CHECK_RANGE("specular", d->specular, 0, 100);
    CHECK_RANGE("shininess", d->shininess, 1, 10000);
    CHECK_RANGE("bloom_threshold", d->bloom_threshold, 0, 1e6);
    CHECK_RANGE("bloom_soft_knee", d->bloom_soft_knee, 0, 1);
    CHECK_RANGE("bloom_intensity", d->bloom_intensity, 0, 1e6);
    CHECK_RANGE("bloom_levels", d->bloom_levels, 1, EDDY_BLOOM_MAX_LEVELS);
    CHECK_RANGE("edge_strength", d->edge_strength, 0, 1e6);
    if (d->colormap < 0 || d->colormap >= EDDY_COLORMAP_COUNT)
        return def_error(msg, msg_size, "render.colormap = %d: expected 0 .. %d", (int)d->colormap,
                         EDDY_COLORMAP_COUNT - 1);
    if (!isfinite(d->range_min) || !isfinite(d->range_max) || d->range_min > d->range_max)
        return def_error(msg, msg_size, "render.range = [%g, %g]: expected finite min <= max (equal = automatic)",
                         (double)d->range_min, (double)d->range_max);
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}

eddy_volume_def eddy_volume_def_default(void) {
    eddy_volume_def d;
    memset(&d, 0, sizeof d);
    d.width = 512;
    d.height = 512;
    d.camera.up[1] = 1.0f;
    d.camera.fov = 40.0f;
    d.density_scale = 20.0f;
    d.step = 0.5f;
    d.light_dir[0] = 0.4f;
    d.light_dir[1] = 1.0f;
    d.light_dir[2] = 0.3f;
    d.light_color[0] = d.light_color[1] = d.light_color[2] = 1.0f;
    d.light_intensity = 1.2f;
    d.ambient = 0.25f;
    d.shadows = 1;
    d.exposure = 1.0f;
    d.tonemap = EDDY_TONEMAP_ACES;
    d.background[0] = 0.02f;
    d.background[1] = 0.02f;
    d.background[2] = 0.03f;
    d.draw_obstacles = 1;
    return d;
}

#undef CHECK_RANGE
#define CHECK_RANGE(name, v, lo, hi)                                                                     \
    do {                                                                                                  \
        if (!((v) >= (lo) && (v) <= (hi)))                                                                \
            return def_error(msg, msg_size, "volume." name " = %g: expected %g .. %g", (double)(v),       \
                             (double)(lo), (double)(hi));                                                 \
    } while (0)

eddy_status eddy_volume_def_validate(const eddy_volume_def *d, char *msg, size_t msg_size) {
    if (!d) return def_error(msg, msg_size, "volume definition is NULL");
    CHECK_RANGE("width", d->width, 1, EDDY_RENDER_MAX_SIDE);
    CHECK_RANGE("height", d->height, 1, EDDY_RENDER_MAX_SIDE);
    CHECK_RANGE("camera.fov", d->camera.fov, 0.01f, 179); /* float bounds: 0.01f itself is below 0.01 */
    for (int c = 0; c < 3; c++) {
        CHECK_RANGE("camera.position", d->camera.position[c], -1e9, 1e9);
        CHECK_RANGE("camera.target", d->camera.target[c], -1e9, 1e9);
        CHECK_RANGE("camera.up", d->camera.up[c], -1e9, 1e9);
        CHECK_RANGE("light_dir", d->light_dir[c], -1e9, 1e9);
        CHECK_RANGE("light_color", d->light_color[c], 0, 1e6);
        CHECK_RANGE("background", d->background[c], 0, 1e6);
    }
    CHECK_RANGE("density_scale", d->density_scale, 0, 1e9);
    /* at least 0.01 cells: the march takes up to 1/step samples per cell, and a step far below the float precision of
     * the ray distance never advances it (the frame never ends) */
    if (!(d->step >= 0.01f && d->step <= 4.0f))
        return def_error(msg, msg_size, "volume.step = %g: expected 0.01 .. 4 cells", (double)d->step);
    CHECK_RANGE("light_intensity", d->light_intensity, 0, 1e6);
    CHECK_RANGE("ambient", d->ambient, 0, 1e6);
    CHECK_RANGE("exposure", d->exposure, 0, 1e6);
    if (d->tonemap < 0 || d->tonemap > EDDY_TONEMAP_ACES)
        return def_error(msg, msg_size, "volume.tonemap = %d: expected 0 .. 2", (int)d->tonemap);
    if (d->light_dir[0] == 0 && d->light_dir[1] == 0 && d->light_dir[2] == 0)
        return def_error(msg, msg_size, "volume.light_dir is the zero vector: expected a direction");
    const float *p = d->camera.position, *t = d->camera.target;
    int automatic = !p[0] && !p[1] && !p[2] && !t[0] && !t[1] && !t[2];
    if (!automatic && p[0] == t[0] && p[1] == t[1] && p[2] == t[2])
        return def_error(msg, msg_size, "volume.camera: position equals target: the camera has no direction");
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}
