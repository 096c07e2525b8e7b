/* Pointer strokes to Gaussian splats (the classic WebGL fluid demo's interaction, after Stam's "stirring" input).
 * Each frame the segment the pointer moved is covered by splats at most `spacing` radii apart, so a fast drag
 * leaves a continuous trail; each splat adds the pointer velocity (times a gain) and the stroke's dye. */
#include "stir.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

stir_def stir_def_default(void) {
    stir_def d;
    memset(&d, 0, sizeof d);
    d.radius = 0.04f;
    d.velocity_gain = 1.0f;
    d.max_speed = 3.0f;
    d.dye_amount = 0.3f;
    d.spacing = 0.5f;
    d.hover = 0;
    d.hover_color_period = 1.0f;
    d.color_count = 0;
    return d;
}

static uint32_t stir_random_u32(stir *st) {
    uint32_t x = st->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    st->rng = x;
    return x;
}

static float stir_random01(stir *st) { return (float)(stir_random_u32(st) >> 8) / 16777216.0f; }

void stir_hsv_to_rgb(float h, float s, float v, float rgb[3]) {
    float hh = (h - floorf(h)) * 6.0f;
    int sector = (int)hh;
    float f = hh - (float)sector;
    float p = v * (1 - s), q = v * (1 - f * s), t = v * (1 - (1 - f) * s);
    switch (sector) {
    case 0: rgb[0] = v; rgb[1] = t; rgb[2] = p; break;
    case 1: rgb[0] = q; rgb[1] = v; rgb[2] = p; break;
    case 2: rgb[0] = p; rgb[1] = v; rgb[2] = t; break;
    case 3: rgb[0] = p; rgb[1] = q; rgb[2] = v; break;
    case 4: rgb[0] = t; rgb[1] = p; rgb[2] = v; break;
    default: rgb[0] = v; rgb[1] = p; rgb[2] = q; break;
    }
}

static void stir_pick_color(stir *st) {
    float rgb[3];
    if (st->def.color_count > 0) {
        memcpy(rgb, st->def.colors[st->next_color % st->def.color_count], sizeof rgb);
        st->next_color = (st->next_color + 1) % st->def.color_count;
    } else {
        stir_hsv_to_rgb(stir_random01(st), 1.0f, 1.0f, rgb);
    }
    for (int c = 0; c < 3; c++) st->color[c] = rgb[c] * st->def.dye_amount;
    st->color_age = 0;
}

void stir_init(stir *st, const stir_def *def, uint32_t seed) {
    memset(st, 0, sizeof *st);
    st->def = def ? *def : stir_def_default();
    if (st->def.color_count > STIR_MAX_COLORS) st->def.color_count = STIR_MAX_COLORS;
    if (st->def.color_count < 0) st->def.color_count = 0;
    st->rng = seed ? seed : 0x9e3779b9u; /* xorshift must not start at 0 */
}

static float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

int stir_parse_color(const char *text, float rgb[3]) {
    unsigned r, g, b;
    int used = 0;
    if (!text) return -1;
    if (text[0] == '#') text++;
    if (strlen(text) != 6 || sscanf(text, "%2x%2x%2x%n", &r, &g, &b, &used) != 3 || used != 6) return -1;
    rgb[0] = srgb_to_linear((float)r / 255.0f);
    rgb[1] = srgb_to_linear((float)g / 255.0f);
    rgb[2] = srgb_to_linear((float)b / 255.0f);
    return 0;
}

int stir_parse_palette(const char *text, stir_def *def) {
    char item[16];
    int count = 0;
    const char *p = text;
    if (!text || !*text) return -1;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof item || count >= STIR_MAX_COLORS) return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (stir_parse_color(item, def->colors[count]) != 0) return -1;
        count++;
        p += len;
        if (*p == ',' && *++p == '\0') return -1; /* a trailing comma: a colour is missing */
    }
    def->color_count = count;
    return 0;
}

eddy_status stir_frame(stir *st, eddy_sim *sim, int down, const float *pos, float dt) {
    int want = pos != NULL && (down || st->def.hover);
    if (!want) {
        st->active = 0;
        st->have_last = 0;
        return EDDY_OK;
    }
    if (!st->active) { /* a new stroke: a new colour (hover strokes start when the pointer enters) */
        st->active = 1;
        stir_pick_color(st);
    }
    if (st->def.hover) {
        st->color_age += dt;
        if (st->color_age >= st->def.hover_color_period) stir_pick_color(st);
    }
    const eddy_sim_def *sd = eddy_sim_get_def(sim);
    float h = eddy_sim_cell_size(sim);
    float radius = st->def.radius * h * (float)sd->grid[1];
    float from[2] = {pos[0], pos[1]};
    if (st->have_last) { from[0] = st->last[0]; from[1] = st->last[1]; }
    float dx = pos[0] - from[0], dy = pos[1] - from[1];
    float len = sqrtf(dx * dx + dy * dy);
    float step = st->def.spacing * radius;
    int count = step > 0 ? (int)ceilf(len / step) : 1;
    if (count < 1) count = 1;
    if (count > 256) count = 256; /* a jump across the window: enough splats to cover it */
    float inv_dt = dt > 0 ? 1.0f / dt : 0.0f;
    float max_len = st->def.max_speed * h * (float)sd->grid[1] * dt; /* the longest move per frame at max speed */
    float speed_scale = len > max_len && len > 0 ? max_len / len : 1.0f;
    /* Overlapping splats along a line sum to about sqrt(pi) r / spacing times one splat's value; scaling each
     * splat's velocity by spacing / (sqrt(pi) r) makes the fluid on the path move at gain * pointer velocity
     * whatever the drag speed. Dye is not scaled: like the demo, a slow stroke leaves more. */
    float overlap_weight = (len / (float)count) / (1.7724539f * radius);
    if (overlap_weight > 1.0f) overlap_weight = 1.0f;
    eddy_status first_error = EDDY_OK;
    /* the first frame of a stroke splats dye at the press point with no velocity; later frames cover (from, pos] */
    int start = st->have_last ? 1 : count;
    for (int i = start; i <= count; i++) {
        float t = (float)i / (float)count;
        eddy_splat sp;
        memset(&sp, 0, sizeof sp);
        sp.position[0] = from[0] + dx * t;
        sp.position[1] = from[1] + dy * t;
        sp.position[2] = pos[2];
        sp.radius = radius;
        sp.velocity[0] = dx * speed_scale * inv_dt * st->def.velocity_gain * overlap_weight;
        sp.velocity[1] = dy * speed_scale * inv_dt * st->def.velocity_gain * overlap_weight;
        for (int c = 0; c < 3; c++) sp.dye[c] = st->color[c];
        eddy_status s = eddy_sim_splat(sim, &sp);
        if (s != EDDY_OK && first_error == EDDY_OK) first_error = s;
    }
    st->last[0] = pos[0];
    st->last[1] = pos[1];
    st->have_last = 1;
    return first_error;
}
