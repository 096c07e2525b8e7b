/* Stand-in for the eddy_render module, compiled only while that module is not in the build (CMake checks for the
 * eddy_render target): the few calls the viewer makes, with plain drawing: dye clamped and sRGB-encoded, scalar
 * views in grey (sequential) or blue-white-red (diverging), no post-processing, no volume rendering. The real
 * module replaces all of it. */
#include "eddy/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eddy_renderer {
    float *field[3];
    size_t capacity;
    char error[256];
};

static const char *const fallback_view_names[EDDY_VIEW_COUNT] = {"dye", "speed", "vorticity", "pressure", "divergence",
                                                                 "temperature", "u", "v", "w"};

const char *eddy_view_name(eddy_view view) {
    return (int)view >= 0 && view < EDDY_VIEW_COUNT ? fallback_view_names[view] : "unknown";
}

eddy_status eddy_view_from_name(const char *name, eddy_view *out) {
    for (int i = 0; i < EDDY_VIEW_COUNT; i++)
        if (name && !strcmp(name, fallback_view_names[i])) { *out = (eddy_view)i; return EDDY_OK; }
    return EDDY_ERR_INVALID_ARGUMENT;
}

eddy_render_def eddy_render_def_default(void) {
    eddy_render_def d;
    memset(&d, 0, sizeof d);
    d.slice_axis = 2;
    d.slice_index = -1;
    d.slice_position = NAN;
    d.exposure = 1;
    d.draw_obstacles = 1;
    d.obstacle_color[0] = d.obstacle_color[1] = d.obstacle_color[2] = 128;
    d.obstacle_color[3] = 255;
    return d;
}

eddy_volume_def eddy_volume_def_default(void) {
    eddy_volume_def d;
    memset(&d, 0, sizeof d);
    d.width = d.height = 512;
    d.camera.fov = 40;
    d.camera.up[1] = 1;
    return d;
}

eddy_status eddy_renderer_create(int threads, eddy_renderer **out, char *msg, size_t msg_size) {
    (void)threads;
    *out = calloc(1, sizeof **out);
    if (!*out) {
        if (msg && msg_size) snprintf(msg, msg_size, "renderer: out of memory");
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    return EDDY_OK;
}

void eddy_renderer_destroy(eddy_renderer *r) {
    if (!r) return;
    for (int c = 0; c < 3; c++) free(r->field[c]);
    free(r);
}

const char *eddy_renderer_last_error(const eddy_renderer *r) { return r->error; }

static uint8_t encode_srgb(float v) {
    v = fminf(fmaxf(v, 0.0f), 1.0f);
    float s = v <= 0.0031308f ? 12.92f * v : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
    return (uint8_t)lrintf(s * 255.0f);
}

eddy_status eddy_render_sim(eddy_renderer *r, eddy_sim *sim, const eddy_render_def *def, eddy_image *img) {
    static const eddy_field dye[3] = {EDDY_FIELD_DYE_R, EDDY_FIELD_DYE_G, EDDY_FIELD_DYE_B};
    static const eddy_field scalar_of_view[EDDY_VIEW_COUNT] = {
        EDDY_FIELD_DYE_R, EDDY_FIELD_SPEED, EDDY_FIELD_VORTICITY, EDDY_FIELD_PRESSURE, EDDY_FIELD_DIVERGENCE,
        EDDY_FIELD_TEMPERATURE, EDDY_FIELD_SPEED, EDDY_FIELD_SPEED, EDDY_FIELD_SPEED};
    const int is_dye = def->view == EDDY_VIEW_DYE;
    const int count = is_dye ? 3 : 1;
    eddy_field_layout lay;
    eddy_field first = is_dye ? dye[0] : scalar_of_view[def->view];
    if (eddy_sim_get_def(sim)->dim != 2) {
        snprintf(r->error, sizeof r->error, "the fallback renderer draws 2D simulations only");
        return EDDY_ERR_UNSUPPORTED;
    }
    if (eddy_sim_field_layout(sim, first, &lay) != EDDY_OK) {
        snprintf(r->error, sizeof r->error, "%s", eddy_sim_last_error(sim));
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    if (lay.count > r->capacity) {
        for (int c = 0; c < 3; c++) {
            free(r->field[c]);
            r->field[c] = malloc(lay.count * sizeof(float));
            if (!r->field[c]) { r->capacity = 0; snprintf(r->error, sizeof r->error, "out of memory"); return EDDY_ERR_OUT_OF_MEMORY; }
        }
        r->capacity = lay.count;
    }
    for (int c = 0; c < count; c++) {
        if (eddy_sim_read_field(sim, is_dye ? dye[c] : first, r->field[c], lay.count) != EDDY_OK) {
            snprintf(r->error, sizeof r->error, "%s", eddy_sim_last_error(sim));
            return EDDY_ERR_INVALID_ARGUMENT;
        }
    }
    const int w = lay.n[0], h = lay.n[1];
    if (img->width != w || img->height != h || !img->rgba) {
        eddy_image_free(img);
        if (eddy_image_init(img, w, h, r->error, sizeof r->error) != EDDY_OK) return EDDY_ERR_OUT_OF_MEMORY;
    }
    float lo = 0, hi = 0;
    int diverging = def->view == EDDY_VIEW_VORTICITY || def->view == EDDY_VIEW_PRESSURE || def->view == EDDY_VIEW_DIVERGENCE;
    if (!is_dye) {
        for (size_t i = 0; i < lay.count; i++) {
            lo = fminf(lo, r->field[0][i]);
            hi = fmaxf(hi, r->field[0][i]);
        }
        if (diverging) { hi = fmaxf(-lo, hi); lo = -hi; }
        if (hi <= lo) hi = lo + 1;
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t src = (size_t)x + (size_t)w * (size_t)(h - 1 - y);
            uint8_t *px = img->rgba + 4 * ((size_t)x + (size_t)w * (size_t)y);
            if (is_dye) {
                float d[3] = {r->field[0][src] * def->exposure, r->field[1][src] * def->exposure, r->field[2][src] * def->exposure};
                if (def->transparent) {
                    float a = fminf(fmaxf(d[0], fmaxf(d[1], d[2])), 1.0f);
                    for (int c = 0; c < 3; c++) px[c] = a > 0 ? encode_srgb(d[c] / a) : 0;
                    px[3] = (uint8_t)lrintf(fmaxf(a, 0.0f) * 255.0f);
                } else {
                    for (int c = 0; c < 3; c++) px[c] = encode_srgb(d[c] + def->background[c]);
                    px[3] = 255;
                }
            } else {
                float t = (r->field[0][src] - lo) / (hi - lo);
                if (diverging) {
                    float cold = fminf(2 * t, 1.0f), warm = fminf(2 * (1 - t), 1.0f);
                    px[0] = encode_srgb(cold); px[1] = encode_srgb(fminf(cold, warm)); px[2] = encode_srgb(warm);
                } else {
                    px[0] = px[1] = px[2] = encode_srgb(t);
                }
                px[3] = 255;
            }
        }
    }
    return EDDY_OK;
}

eddy_status eddy_render_volume_sim(eddy_renderer *r, eddy_sim *sim, const eddy_volume_def *def, eddy_image *img) {
    (void)sim; (void)def; (void)img;
    snprintf(r->error, sizeof r->error, "volume rendering needs the eddy_render module, which this build lacks");
    return EDDY_ERR_UNSUPPORTED;
}

eddy_status eddy_image_resize(const eddy_image *src, int width, int height, eddy_image *dst, char *msg, size_t msg_size) {
    if (dst->width != width || dst->height != height || !dst->rgba) {
        eddy_image_free(dst);
        eddy_status st = eddy_image_init(dst, width, height, msg, msg_size);
        if (st != EDDY_OK) return st;
    }
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) { /* nearest: enough for a background picture */
            int sx = (int)(((float)x + 0.5f) * (float)src->width / (float)width);
            int sy = (int)(((float)y + 0.5f) * (float)src->height / (float)height);
            memcpy(dst->rgba + 4 * ((size_t)y * (size_t)width + (size_t)x),
                   src->rgba + 4 * ((size_t)sy * (size_t)src->width + (size_t)sx), 4);
        }
    return EDDY_OK;
}
