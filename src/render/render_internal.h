/* Internal shapes of the render module. Not installed.
 *
 * A renderer owns growable scratch buffers (float RGB planes, bloom pyramid, volume caches) that are kept between
 * calls, so a steady render of one size allocates nothing. Loops over image rows run under OpenMP with a fixed
 * static schedule; every pixel depends only on its inputs, so results do not depend on the thread count. */
#ifndef EDDY_RENDER_INTERNAL_H
#define EDDY_RENDER_INTERNAL_H

#include "eddy/render.h"
#include "eddy/surface.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define EDDY_R_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define EDDY_R_PRINTF(a, b)
#endif

#define EDDY_R_THREADS(r) ((r)->threads > 0 ? (r)->threads : omp_get_max_threads())
#define EDDY_SRGB_LUT_SIZE 4096
#define EDDY_BLOOM_MAX_LEVELS 12

/* a growable float buffer */
typedef struct eddy__fbuf {
    float *p;
    size_t cap; /* floats */
} eddy__fbuf;

typedef struct eddy__level {
    int w, h;
    eddy__fbuf a, b; /* RGB planes: level image and blur temporary */
} eddy__level;

struct eddy_renderer {
    int threads;
    char error[512];
    float last_min, last_max;
    eddy_render_timing timing; /* of the last 2D render */
    uint8_t srgb_lut[EDDY_SRGB_LUT_SIZE + 1]; /* linear [0,1] -> sRGB byte */

    eddy__fbuf rgb;        /* W*H*3 working colour, linear */
    eddy__fbuf tmp;        /* W*H*3 or W*H scratch (luminance, shading) */
    eddy__fbuf scalar;     /* W*H plane of the scalar view */
    eddy__level bloom[EDDY_BLOOM_MAX_LEVELS];
    eddy__fbuf upsample_cols; /* bloom: per output column, its source columns and weight */

    /* simulation fields gathered for a render (copies of computed fields, solid bytes) */
    eddy__fbuf field;      /* scalar field copied from the simulation */
    eddy__fbuf field2[3];  /* face velocities averaged to cell centres, or raw solid floats */
    uint8_t *solid;
    size_t solid_cap;

    /* volume caches */
    eddy__fbuf vol;        /* 4 floats per scalar voxel: r, g, b, optical depth towards the light */
    eddy__fbuf occ;        /* solid occupancy on the scalar grid (0/1), for surfaces */
    eddy__fbuf plane;      /* two planes of (tau, sigma) for the light sweep */
    eddy__fbuf blocks;     /* per 8^3 block: max density (dilated by a voxel), or 1 where solids are; for skipping */

    /* liquid view of a simulation: the signed distance of the total dye, on the dye grid */
    eddy_surface *surface; /* made for the dye grid on first use, remade when the grid changes */
    eddy__fbuf sdf;
};

/* ---- renderer.c ---- */
/* wall-clock milliseconds (OpenMP's clock), for eddy_renderer_last_timing */
static inline double eddy__ms(void) { return omp_get_wtime() * 1e3; }
eddy_status eddy__rfail(eddy_renderer *r, eddy_status st, const char *fmt, ...) EDDY_R_PRINTF(3, 4);
/* grows b to hold n floats; fails through r */
eddy_status eddy__fbuf_reserve(eddy_renderer *r, eddy__fbuf *b, size_t n);
/* (re)allocates img to w x h when its size differs */
eddy_status eddy__image_ensure(eddy_renderer *r, eddy_image *img, int w, int h);
static inline uint8_t eddy__encode(const eddy_renderer *r, float linear) {
    if (!(linear > 0.0f)) return 0;
    if (linear >= 1.0f) return 255;
    return r->srgb_lut[(int)(linear * (float)EDDY_SRGB_LUT_SIZE + 0.5f)];
}
float eddy__srgb_to_linear(float s);
float eddy__linear_to_srgb(float l);
/* The largest linear colour a 2D dye picture carries into post-processing. Past it every tonemap is white already;
 * below it shading (x <= 200), bloom (12 levels x intensity <= 1e6) and edges stay finite. Unbounded, dye near
 * FLT_MAX (or times exposure) overflowed to infinity, whose NaNs (inf - inf, inf / inf) blacked out a whole glow. */
#define EDDY_R_LINEAR_MAX 1e25f
/* inline: it runs per channel of every pixel */
static inline float eddy__tonemap(eddy_tonemap tm, float v) {
    if (!(v > 0.0f)) return 0.0f;
    if (v >= 1e19f) return 1.0f; /* every curve is 1 here; at infinity Reinhard's and ACES's ratios are NaN */
    switch (tm) {
    case EDDY_TONEMAP_REINHARD: return v / (1.0f + v);
    case EDDY_TONEMAP_ACES: {
        float t = (v * (2.51f * v + 0.03f)) / (v * (2.43f * v + 0.59f) + 0.14f);
        return t < 1.0f ? t : 1.0f;
    }
    case EDDY_TONEMAP_CLAMP:
    default: return v < 1.0f ? v : 1.0f;
    }
}
/* the larger of two values that are not NaN (fmaxf is a library call at -O2; these loops run per pixel) */
static inline float eddy__maxf(float a, float b) { return a > b ? a : b; }
static inline float eddy__minf(float a, float b) { return a < b ? a : b; }
/* Scales a direction given by the caller (a light_dir, camera.up) by a power of two, so exactly that its normalised
 * bits do not change, to a largest component in [0.5, 1): its squared length then neither underflows nor overflows.
 * A light_dir of 1e-30 normalised to 0/0 (no light at all) and a camera.up of 1e-7 read as no up (the picture
 * turned). The zero vector stays zero. */
static inline void eddy__dir_rescale(float v[3]) {
    const float m = eddy__maxf(fabsf(v[0]), eddy__maxf(fabsf(v[1]), fabsf(v[2])));
    if (!(m > 0.0f && m <= FLT_MAX)) return;
    int e;
    (void)frexpf(m, &e);
    for (int k = 0; k < 3; k++) v[k] = ldexpf(v[k], -e);
}

/* ---- sample.c: cell-centred arrays over the box ---- */
/* value of a cell-centred array of n cells at continuous cell coordinate c (cell i spans [i, i+1), centre i+0.5);
 * trilinear with clamping at the borders (bilinear when n[2] == 1) */
float eddy__sample_cells(const float *data, const int n[3], const float c[3]);
/* the nearest cell's byte */
uint8_t eddy__sample_cells_u8(const uint8_t *data, const int n[3], const float c[3]);
/* the solid fraction around c: bytes read as 0/1 and interpolated like eddy__sample_cells */
float eddy__sample_cells_u8_frac(const uint8_t *data, const int n[3], const float c[3]);

/* ---- colormap.c ---- */
/* fills lut[3*i..] with sRGB bytes of the map at t = i/(size-1) */
void eddy__colormap_lut(eddy_colormap map, uint8_t *lut, int size);
/* the view's automatic map */
eddy_colormap eddy__view_colormap(eddy_view view, int dim);
/* true when the view's values are signed and shown on the diverging map around 0 */
bool eddy__view_signed(eddy_view view, int dim);

/* ---- view2d.c: the plane of the box a 2D picture shows ---- */
typedef struct plane_map {
    int h, v, s;      /* box axes shown horizontally, vertically, and sliced (s = -1 in 2D) */
    float s_frac;     /* slice position as a fraction of the box along s, in [0,1] */
} plane_map;

/* the box axes a 2D picture shows horizontally and vertically: x, y in 2D; 3D slices across z: x, y; across y: x, z;
 * across x: z, y */
static inline void eddy__plane_axes(int dim, int slice_axis, int *h, int *v) {
    *h = dim == 3 && slice_axis == 0 ? 2 : 0;
    *v = dim == 3 && slice_axis == 1 ? 2 : 1;
}

/* The picture size rule of eddy_render_def.width/height, for a plane of box_size[h] x box_size[v] m with n[h] x
 * n[v] cells: both 0 = one pixel per cell, one 0 = derived from the other with the box's aspect (at least 1 pixel).
 * Worked out in double; a side over EDDY_RENDER_MAX_SIDE is refused with msg naming the size and where it came
 * from. `def` must be valid. The one rule for eddy_render_size and every 2D render. */
eddy_status eddy__picture_size(const eddy_render_def *def, const int n[3], const float box_size[3], int h, int v,
                               int *width, int *height, char *msg, size_t msg_size);

/* The slice rule of eddy_render_def for a 3D picture: where the plane cuts the box along slice_axis, as a fraction
 * of the box in [0,1], from slice_index (>= 0: that layer of `cells` cells) or slice_position (m, inside lo .. lo +
 * size; NaN: the middle). An index past the last cell or a position outside the box is refused with msg naming it.
 * `def` must be valid. The one rule for eddy_render_size and every 3D render. */
eddy_status eddy__slice_fraction(const eddy_render_def *def, int cells, float lo, float size, float *frac, char *msg,
                                 size_t msg_size);

/* the cell coordinate of pixel centre (x, y) in an array of n cells */
static inline void pixel_cells(const plane_map *pm, const int n[3], int W, int H, int x, int y, float c[3]) {
    c[0] = c[1] = c[2] = 0.5f;
    c[pm->h] = ((float)x + 0.5f) / (float)W * (float)n[pm->h];
    c[pm->v] = (1.0f - ((float)y + 0.5f) / (float)H) * (float)n[pm->v];
    if (pm->s >= 0) c[pm->s] = pm->s_frac * (float)n[pm->s];
}

/* solid cells drawn flat over a finished picture, with anti-aliased outlines */
void eddy__draw_obstacles(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def, const plane_map *pm,
                          eddy_image *img);

/* ---- liquid.c: the liquid view (in->scalar is a signed distance, m) ---- */
eddy_status eddy__render_liquid(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                                const plane_map *pm, eddy_image *img);

/* ---- post.c: the classic demo's post-processing on a linear RGB plane ---- */
/* ppc: output pixels per dye cell along the horizontal axis (gradients are taken per cell) */
eddy_status eddy__post_process(eddy_renderer *r, float *rgb, int w, int h, const eddy_render_def *def, float ppc);

/* ---- overlay.c: colour bar and its labels ---- */
void eddy__draw_colorbar(eddy_image *img, const uint8_t *lut, int lut_size, float vmin, float vmax);
/* draws text with the built-in 5x7 font (digits, sign, point, e, letters used by labels), scale s, RGBA colour */
void eddy__draw_text(eddy_image *img, int x, int y, int s, const char *text, const uint8_t color[4]);
int eddy__text_width(const char *text, int s);

/* ---- flipbook.c ---- */
/* link(2) as the flipbook writer calls it to keep the old JSON while the new pair goes into place */
typedef int (*eddy__link_fn)(const char *existing, const char *new_path);
/* eddy_flipbook_write with `link_fn` in place of link(2): a test passes one that fails as on a file system without
 * hard links (FAT: EPERM), which takes the byte-copy path for real. Not public API. */
eddy_status eddy__flipbook_write_linking(const eddy_flipbook *fb, const char *png_path, eddy__link_fn link_fn,
                                         char *msg, size_t msg_size);

#endif
