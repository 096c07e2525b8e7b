/* 2D pictures: a plane of the box (the whole of a 2D simulation, or a slice of a 3D one) resampled to the output
 * pixels. Dye: linear colour times exposure -> post-processing (post.c) -> tonemap -> over the background or as
 * colour + coverage alpha -> sRGB. Scalar views: value -> range -> colour map (colormap.c) -> colour bar.
 * Solid cells are drawn last, flat. Pixel (x, y) looks at the plane point ((x+0.5)/W, 1 - (y+0.5)/H) of the box,
 * so the image top is the box's maximum along the vertical axis. */
#include "render_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static eddy_status check_array(eddy_renderer *r, const char *name, const int n[3], int dim) {
    for (int a = 0; a < dim; a++)
        if (n[a] < 1)
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: %s_n[%d] = %d: expected >= 1", name, a, n[a]);
    if (dim == 2 && n[2] != 1)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: %s_n[2] = %d: expected 1 in 2D", name, n[2]);
    if ((double)n[0] * n[1] * n[2] > 2147483648.0)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: %s has more than 2^31 cells", name);
    return EDDY_OK;
}

static eddy_status check_input(eddy_renderer *r, const eddy_render_input *in, bool need_dye, bool need_scalar) {
    if (!in) return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input is NULL");
    if (in->dim != 2 && in->dim != 3)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: dim = %d: expected 2 or 3", in->dim);
    for (int a = 0; a < in->dim; a++) {
        if (!(in->box_size[a] > 0.0f) || !isfinite(in->box_size[a]))
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: box_size[%d] = %g: expected finite > 0", a,
                               (double)in->box_size[a]);
        if (!isfinite(in->box_min[a]))
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: box_min[%d] = %g: expected finite", a,
                               (double)in->box_min[a]);
    }
    eddy_status st;
    if (need_dye && (in->dye[0] || in->dye[1] || in->dye[2]) && (st = check_array(r, "dye", in->dye_n, in->dim)))
        return st;
    if (need_scalar && in->scalar && (st = check_array(r, "scalar", in->scalar_n, in->dim))) return st;
    if (in->solid && (st = check_array(r, "solid", in->solid_n, in->dim))) return st;
    return EDDY_OK;
}

eddy_status eddy__picture_size(const eddy_render_def *def, const int n[3], const float box_size[3], int h, int v,
                               int *width, int *height, char *msg, size_t msg_size) {
    *width = *height = 0;
    /* in double, checked before it becomes an int: a long thin box gave a float beyond int (or long) whose
     * conversion wrapped, e.g. to a negative width silently raised to 1 */
    double w = def->width, ht = def->height;
    const double aspect = (double)box_size[h] / (double)box_size[v];
    char from[200];
    if (w == 0 && ht == 0) {
        w = n[h];
        ht = n[v];
        snprintf(from, sizeof from, "one pixel per cell of the %d x %d cells on the picture's axes", n[h], n[v]);
    } else if (w == 0) {
        w = round(ht * aspect);
        snprintf(from, sizeof from, "render.height = %d with the box's aspect %g (%g x %g m)", def->height, aspect,
                 (double)box_size[h], (double)box_size[v]);
    } else if (ht == 0) {
        ht = round(w / aspect);
        snprintf(from, sizeof from, "render.width = %d with the box's aspect %g (%g x %g m)", def->width, aspect,
                 (double)box_size[h], (double)box_size[v]);
    } else {
        snprintf(from, sizeof from, "render.width and render.height");
    }
    if (w < 1) w = 1; /* a side thinner than a pixel is one pixel */
    if (ht < 1) ht = 1;
    if (!(w <= EDDY_RENDER_MAX_SIDE && ht <= EDDY_RENDER_MAX_SIDE)) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s makes a %.0f x %.0f picture: expected at most %d pixels per side%s", from, w, ht,
                     EDDY_RENDER_MAX_SIDE,
                     def->width == 0 && def->height == 0 ? "; set render.width or render.height" : "");
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    *width = (int)w, *height = (int)ht;
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}

eddy_status eddy__slice_fraction(const eddy_render_def *def, int cells, float lo, float size, float *frac, char *msg,
                                 size_t msg_size) {
    const int s = def->slice_axis;
    if (def->slice_index >= 0) {
        if (def->slice_index >= cells) {
            if (msg && msg_size)
                snprintf(msg, msg_size, "render.slice_index = %d: expected 0 .. %d (cells along axis %d)",
                         def->slice_index, cells - 1, s);
            return EDDY_ERR_INVALID_ARGUMENT;
        }
        *frac = ((float)def->slice_index + 0.5f) / (float)cells;
    } else if (isnan(def->slice_position)) {
        *frac = 0.5f;
    } else {
        if (!(def->slice_position >= lo && def->slice_position <= lo + size)) {
            if (msg && msg_size)
                snprintf(msg, msg_size, "render.slice_position = %g m: expected inside the box, %g .. %g along axis %d",
                         (double)def->slice_position, (double)lo, (double)(lo + size), s);
            return EDDY_ERR_INVALID_ARGUMENT;
        }
        *frac = (def->slice_position - lo) / size;
    }
    return EDDY_OK;
}

/* plane axes, slice position and output size */
static eddy_status setup_plane(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                               const int ref_n[3], plane_map *pm, int *W, int *H) {
    eddy__plane_axes(in->dim, def->slice_axis, &pm->h, &pm->v);
    pm->s = in->dim == 2 ? -1 : def->slice_axis;
    pm->s_frac = 0.5f;
    eddy_status st;
    if (pm->s >= 0 && (st = eddy__slice_fraction(def, ref_n[pm->s], in->box_min[pm->s], in->box_size[pm->s],
                                                 &pm->s_frac, r->error, sizeof r->error)) != EDDY_OK)
        return st;
    return eddy__picture_size(def, ref_n, in->box_size, pm->h, pm->v, W, H, r->error, sizeof r->error);
}

void eddy__draw_obstacles(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def, const plane_map *pm,
                          eddy_image *img) {
    if (!def->draw_obstacles || !in->solid) return;
    const double t0 = eddy__ms();
    const int W = img->width, H = img->height;
    const uint8_t *oc = def->obstacle_color;
    /* coverage from the interpolated solid fraction, ramped over about one pixel around the 0.5 contour: smooth
     * outlines when solid cells are larger than pixels, plain cells when they are not */
    const float ppc = fmaxf(1.0f, (float)W / (float)in->solid_n[pm->h]);
    /* Only pixels near solid cells can be covered: a pixel whose cell coordinate lies more than a cell outside the
     * solid cells' bounding box interpolates no solid node. Find that box on the plane's two axes (a scan of the
     * solid bytes, much cheaper than sampling every pixel) and visit the pixels inside it, a pixel of margin more. */
    const int *n = in->solid_n;
    int lo[3] = {n[0], n[1], n[2]}, hi[3] = {-1, -1, -1};
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++) {
            const uint8_t *row = in->solid + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
            for (int i = 0; i < n[0]; i++)
                if (row[i]) {
                    const int idx[3] = {i, j, k};
                    for (int a = 0; a < 3; a++) {
                        if (idx[a] < lo[a]) lo[a] = idx[a];
                        if (idx[a] > hi[a]) hi[a] = idx[a];
                    }
                }
        }
    if (hi[0] < 0) return;
    /* pixel x sees cell coordinate (x + 0.5) W^-1 n_h; y sees (1 - (y + 0.5) / H) n_v */
    const float sx = (float)W / (float)n[pm->h], sy = (float)H / (float)n[pm->v];
    int x0 = (int)floorf((float)(lo[pm->h] - 1) * sx) - 2, x1 = (int)ceilf((float)(hi[pm->h] + 2) * sx) + 2;
    int y0 = (int)floorf((float)H - (float)(hi[pm->v] + 2) * sy) - 2, y1 = (int)ceilf((float)H - (float)(lo[pm->v] - 1) * sy) + 2;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > W) x1 = W;
    if (y1 > H) y1 = H;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) {
            float c[3];
            pixel_cells(pm, in->solid_n, W, H, x, y, c);
            float frac = eddy__sample_cells_u8_frac(in->solid, in->solid_n, c);
            float cover = fminf(fmaxf((frac - 0.5f) * ppc + 0.5f, 0.0f), 1.0f);
            if (cover <= 0.0f) continue;
            uint8_t *p = img->rgba + 4 * ((size_t)y * (size_t)W + (size_t)x);
            if (cover >= 1.0f && oc[3] == 255) {
                memcpy(p, oc, 4);
            } else { /* "over" in sRGB bytes: a flat overlay, exact blending does not matter here */
                float a = cover * (float)oc[3] / 255.0f;
                for (int k = 0; k < 3; k++) p[k] = (uint8_t)((float)oc[k] * a + (float)p[k] * (1.0f - a) + 0.5f);
                p[3] = (uint8_t)(255.0f * a + (float)p[3] * (1.0f - a) + 0.5f);
            }
        }
    }
    r->timing.overlay_ms += eddy__ms() - t0;
}

static eddy_status render_dye(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                              const plane_map *pm, eddy_image *img) {
    const int W = img->width, H = img->height;
    eddy_status st = eddy__fbuf_reserve(r, &r->rgb, (size_t)W * (size_t)H * 3);
    if (st != EDDY_OK) return st;
    float *rgb = r->rgb.p;
    const float ex = def->exposure;
    if (pm->s < 0 && W == in->dye_n[0] && H == in->dye_n[1] && in->dye[0] && in->dye[1] && in->dye[2]) {
        /* one pixel per dye cell (the default size): pixel (x, y) is the centre of cell (x, H-1-y), where the
         * interpolation weights vanish; read the cells straight */
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
        for (int y = 0; y < H; y++) {
            const size_t src = (size_t)(H - 1 - y) * (size_t)W;
            float *o = rgb + 3 * (size_t)y * (size_t)W;
            for (int x = 0; x < W; x++)
                for (int k = 0; k < 3; k++) {
                    float v = in->dye[k][src + (size_t)x] * ex;
                    /* negative dye (overshoot) is no colour, NaN neither; infinity is the brightest */
                    o[3 * x + k] = v > 0.0f ? eddy__minf(v, EDDY_R_LINEAR_MAX) : 0.0f;
                }
        }
    } else {
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                float c[3];
                pixel_cells(pm, in->dye_n, W, H, x, y, c);
                float *o = rgb + 3 * ((size_t)y * (size_t)W + (size_t)x);
                for (int k = 0; k < 3; k++) {
                    float v = in->dye[k] ? eddy__sample_cells(in->dye[k], in->dye_n, c) * ex : 0.0f;
                    o[k] = v > 0.0f ? eddy__minf(v, EDDY_R_LINEAR_MAX) : 0.0f; /* as above */
                }
            }
        }
    }
    const float ppc = in->dye_n[pm->h] > 0 ? (float)W / (float)in->dye_n[pm->h] : 1.0f;
    const double post_start = eddy__ms();
    st = eddy__post_process(r, rgb, W, H, def, ppc);
    r->timing.post_ms += eddy__ms() - post_start;
    if (st != EDDY_OK) return st;
    const float *bg = def->background;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            size_t p = (size_t)y * (size_t)W + (size_t)x;
            float c[3];
            for (int k = 0; k < 3; k++) c[k] = eddy__tonemap(def->tonemap, rgb[3 * p + k]); /* never NaN */
            float cov = eddy__maxf(c[0], eddy__maxf(c[1], c[2]));
            uint8_t *o = img->rgba + 4 * p;
            if (def->transparent) {
                /* colour = dye / coverage, alpha = coverage: composited over any background it gives c back */
                float inv = cov > 0.0f ? 1.0f / cov : 0.0f;
                for (int k = 0; k < 3; k++) o[k] = eddy__encode(r, c[k] * inv);
                o[3] = (uint8_t)(cov * 255.0f + 0.5f);
            } else {
                for (int k = 0; k < 3; k++) o[k] = eddy__encode(r, c[k] + bg[k] * (1.0f - cov));
                o[3] = 255;
            }
        }
    }
    return EDDY_OK;
}

static eddy_status render_scalar(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                                 const plane_map *pm, eddy_image *img) {
    const int W = img->width, H = img->height;
    eddy_status st = eddy__fbuf_reserve(r, &r->scalar, (size_t)W * (size_t)H);
    if (st == EDDY_OK) st = eddy__fbuf_reserve(r, &r->tmp, (size_t)H * 2);
    if (st != EDDY_OK) return st;
    float *val = r->scalar.p, *row_lo = r->tmp.p, *row_hi = r->tmp.p + H;
    const bool skip_solid = def->draw_obstacles && in->solid;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        float lo = INFINITY, hi = -INFINITY;
        for (int x = 0; x < W; x++) {
            float c[3];
            pixel_cells(pm, in->scalar_n, W, H, x, y, c);
            float v = in->scalar ? eddy__sample_cells(in->scalar, in->scalar_n, c) : 0.0f;
            val[(size_t)y * (size_t)W + (size_t)x] = v;
            if (skip_solid) { /* solid cells hold no flow value: keep them out of the automatic range */
                float cs[3];
                pixel_cells(pm, in->solid_n, W, H, x, y, cs);
                if (eddy__sample_cells_u8(in->solid, in->solid_n, cs)) continue;
            }
            if (isfinite(v)) {
                lo = fminf(lo, v);
                hi = fmaxf(hi, v);
            }
        }
        row_lo[y] = lo;
        row_hi[y] = hi;
    }
    float vmin = def->range_min, vmax = def->range_max;
    const int dim = in->dim;
    eddy_colormap map = def->colormap == EDDY_COLORMAP_AUTO ? eddy__view_colormap(def->view, dim) : def->colormap;
    if (vmin == vmax) {
        float lo = INFINITY, hi = -INFINITY;
        for (int y = 0; y < H; y++) {
            lo = fminf(lo, row_lo[y]);
            hi = fmaxf(hi, row_hi[y]);
        }
        if (!(lo <= hi)) lo = hi = 0.0f; /* nothing finite */
        if (map == EDDY_COLORMAP_DIVERGING) {
            float m = fmaxf(fabsf(lo), fabsf(hi));
            lo = -m, hi = m;
        }
        if (lo == hi) { /* a constant plane: centre it in a unit range */
            lo -= 0.5f;
            hi += 0.5f;
        }
        vmin = lo, vmax = hi;
    }
    r->last_min = vmin;
    r->last_max = vmax;
    enum { LUT = 256 };
    uint8_t lut[3 * LUT];
    eddy__colormap_lut(map, lut, LUT);
    /* in double: the width of a range near the float limits (e.g. +-3e38) overflows float, and the unit range of
     * a constant plane past 2^24 is lost in float (vmin = vmax: a zero width, every value the map's low end);
     * widened here by a part of the value it is held apart in double too */
    double dmin = vmin, dmax = vmax;
    if (!(dmax > dmin)) {
        const double half = fmax(0.5, fabs(dmin) * 0x1p-20);
        dmin -= half, dmax += half;
    }
    const double scale = (double)(LUT - 1) / (dmax - dmin);
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            size_t p = (size_t)y * (size_t)W + (size_t)x;
            double t = ((double)val[p] - dmin) * scale + 0.5;
            int i = t > 0.0 ? (t < (double)(LUT - 1) ? (int)t : LUT - 1) : 0;
            memcpy(img->rgba + 4 * p, lut + 3 * i, 3);
            img->rgba[4 * p + 3] = 255;
        }
    }
    eddy__draw_obstacles(r, in, def, pm, img);
    if (def->colorbar) {
        const double t0 = eddy__ms();
        eddy__draw_colorbar(img, lut, LUT, vmin, vmax);
        r->timing.overlay_ms += eddy__ms() - t0;
    }
    return EDDY_OK;
}

static eddy_status render_2d(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                             eddy_image *img) {
    eddy_status st = eddy_render_def_validate(def, r->error, sizeof r->error);
    if (st != EDDY_OK) return st;
    const bool dye_view = def->view == EDDY_VIEW_DYE;
    if ((st = check_input(r, in, dye_view, !dye_view)) != EDDY_OK) return st;
    if (def->view == EDDY_VIEW_W && in->dim == 2)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render.view = w: a 2D simulation has no z velocity");
    const int *ref_n = dye_view ? in->dye_n : in->scalar_n;
    int fallback[3] = {0, 0, 1};
    if (ref_n[0] < 1 || ref_n[1] < 1 || (in->dim == 3 && ref_n[2] < 1)) {
        /* no array to take the size from: the solid grid, else 256 pixels along the longer side */
        if (in->solid) {
            ref_n = in->solid_n;
        } else {
            for (int a = 0; a < in->dim; a++) fallback[a] = 256;
            ref_n = fallback;
        }
        if (ref_n == fallback && !dye_view && in->scalar)
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render input: scalar_n is not set");
    }
    plane_map pm;
    int W = 0, H = 0;
    if ((st = setup_plane(r, in, def, ref_n, &pm, &W, &H)) != EDDY_OK) return st;
    if ((st = eddy__image_ensure(r, img, W, H)) != EDDY_OK) return st;
    if (dye_view) {
        if ((st = render_dye(r, in, def, &pm, img)) != EDDY_OK) return st;
        eddy__draw_obstacles(r, in, def, &pm, img);
        return EDDY_OK;
    }
    if (def->view == EDDY_VIEW_LIQUID) return eddy__render_liquid(r, in, def, &pm, img);
    return render_scalar(r, in, def, &pm, img);
}

eddy_status eddy_render_input_2d(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                                 eddy_image *img) {
    if (!r) return EDDY_ERR_INVALID_ARGUMENT;
    r->error[0] = '\0';
    memset(&r->timing, 0, sizeof r->timing);
    const double t0 = eddy__ms();
    eddy_status st = render_2d(r, in, def, img);
    r->timing.draw_ms = eddy__ms() - t0 - r->timing.post_ms - r->timing.overlay_ms;
    return st;
}
