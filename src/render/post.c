/* The post-processing of the classic WebGL fluid demo (Dobryakov, "WebGL Fluid Simulation", 2017), on a linear RGB
 * plane, in this order:
 * Shading and edges measure gradients per dye cell (pixel differences times ppc, the pixels per cell), so they look
 * the same at any output size.
 *  - shading: the luminance L is read as a height field h = bump_scale * L (cells); its normal
 *    n = normalize(-dh/dx, -dh/dy, 1) (central differences) lights the colour with Phong's model:
 *    c *= ambient + diffuse * max(0, n.l);  c += specular * max(0, r.v)^shininess * min(1, L), v = (0,0,1);
 *  - bloom: a soft-knee bright pass (the demo's prefilter: knee k = threshold * soft_knee,
 *    w = max(clamp(b - t + k, 0, 2k)^2 / 4k, b - t) / b with b = max(r,g,b)), averaged down a pyramid of
 *    half-size levels, each blurred with a [1 2 1]^2 / 16 tent, added back up level by level, and the result times
 *    intensity added to the picture (Kawase/Jimenez-style "dual" pyramid bloom);
 *  - edges: the Sobel gradient magnitude of luminance (clamped to [0,1], /4 so a unit step across a cell gives 1) times
 *    strength adds edge_color.
 * Every pixel depends only on the previous pass, so the result does not depend on the thread count. */
#include "render_internal.h"
#include <math.h>
#include <string.h>

static inline float luminance(const float *c) { return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2]; }

static void compute_luminance(eddy_renderer *r, const float *rgb, float *lum, int W, int H, bool clamp01) {
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            size_t p = (size_t)y * (size_t)W + (size_t)x;
            float l = luminance(rgb + 3 * p);
            lum[p] = clamp01 ? fminf(fmaxf(l, 0.0f), 1.0f) : l;
        }
}

static void shade(eddy_renderer *r, float *rgb, const float *lum, int W, int H, const eddy_render_def *d, float ppc) {
    float l[3] = {d->light_dir[0], d->light_dir[1], d->light_dir[2]};
    eddy__dir_rescale(l);
    float ln = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    for (int k = 0; k < 3; k++) l[k] /= ln;
    const float half_bump = 0.5f * d->bump_scale * ppc; /* slopes per cell, whatever the output size */
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        const float *row = lum + (size_t)y * (size_t)W;
        const float *up = lum + (size_t)(y > 0 ? y - 1 : y) * (size_t)W;         /* image row above = +y */
        const float *down = lum + (size_t)(y < H - 1 ? y + 1 : y) * (size_t)W;
        for (int x = 0; x < W; x++) {
            int xl = x > 0 ? x - 1 : x, xr = x < W - 1 ? x + 1 : x;
            float dhdx = half_bump * (row[xr] - row[xl]);
            float dhdy = half_bump * (up[x] - down[x]);
            float n[3] = {-dhdx, -dhdy, 1.0f};
            float nn = 1.0f / sqrtf(n[0] * n[0] + n[1] * n[1] + 1.0f);
            n[0] *= nn, n[1] *= nn, n[2] *= nn;
            float ndl = n[0] * l[0] + n[1] * l[1] + n[2] * l[2];
            float lambert = ndl > 0.0f ? ndl : 0.0f;
            float *c = rgb + 3 * ((size_t)y * (size_t)W + (size_t)x);
            float s = d->ambient + d->diffuse * lambert;
            float spec = 0.0f;
            if (d->specular > 0.0f && ndl > 0.0f) {
                float rz = 2.0f * ndl * n[2] - l[2]; /* z of the reflected light = r.v with v = (0,0,1) */
                if (rz > 0.0f) spec = d->specular * powf(rz, d->shininess) * fminf(fmaxf(row[x], 0.0f), 1.0f);
            }
            for (int k = 0; k < 3; k++) c[k] = c[k] * s + spec;
        }
    }
}

/* dst (w x h) = 2x2 box average of src (sw x sh), clamped at the borders; with the bright pass when `t` >= 0 */
static void downsample(eddy_renderer *r, const float *src, int sw, int sh, float *dst, int w, int h, float t, float knee) {
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float acc[3] = {0, 0, 0};
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    int sx = 2 * x + dx, sy = 2 * y + dy;
                    if (sx >= sw) sx = sw - 1;
                    if (sy >= sh) sy = sh - 1;
                    const float *c = src + 3 * ((size_t)sy * (size_t)sw + (size_t)sx);
                    float wgt = 1.0f;
                    if (t >= 0.0f) {
                        /* the colour is finite here (render_dye maps NaN dye to 0): plain comparisons do */
                        float b = eddy__maxf(c[0], eddy__maxf(c[1], c[2]));
                        float q = eddy__minf(eddy__maxf(b - t + knee, 0.0f), 2.0f * knee);
                        q = q * q / (4.0f * knee + 1e-4f);
                        wgt = eddy__maxf(q, b - t) / eddy__maxf(b, 1e-4f);
                    }
                    for (int k = 0; k < 3; k++) acc[k] += c[k] * wgt;
                }
            float *o = dst + 3 * ((size_t)y * (size_t)w + (size_t)x);
            for (int k = 0; k < 3; k++) o[k] = 0.25f * acc[k];
        }
}

/* separable [1 2 1]/4 blur of a (w x h) RGB plane in place, through tmp */
static void tent_blur(eddy_renderer *r, float *img, float *tmp, int w, int h) {
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float *row = img + 3 * (size_t)y * (size_t)w;
            int xl = x > 0 ? x - 1 : x, xr = x < w - 1 ? x + 1 : x;
            for (int k = 0; k < 3; k++)
                tmp[3 * ((size_t)y * (size_t)w + (size_t)x) + k] =
                    0.25f * row[3 * xl + k] + 0.5f * row[3 * x + k] + 0.25f * row[3 * xr + k];
        }
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < h; y++) {
        int yu = y > 0 ? y - 1 : y, yd = y < h - 1 ? y + 1 : y;
        for (int x = 0; x < w; x++)
            for (int k = 0; k < 3; k++) {
                size_t i = 3 * (size_t)x + (size_t)k;
                img[3 * (size_t)y * (size_t)w + i] = 0.25f * tmp[3 * (size_t)yu * (size_t)w + i] +
                                                     0.5f * tmp[3 * (size_t)y * (size_t)w + i] +
                                                     0.25f * tmp[3 * (size_t)yd * (size_t)w + i];
            }
    }
}

/* dst (w x h) += weight * bilinear upsampling of src (sw x sh); `cols` holds 3 floats per output column: the two
 * source columns (as exact small integers) and the weight of the second, worked out once per call, not per pixel */
static void upsample_add(eddy_renderer *r, const float *src, int sw, int sh, float *dst, int w, int h, float weight,
                         float *cols) {
    const float fx = (float)sw / (float)w, fy = (float)sh / (float)h;
    for (int x = 0; x < w; x++) {
        float sx = ((float)x + 0.5f) * fx - 0.5f;
        if (sx < 0.0f) sx = 0.0f;
        int x0 = (int)sx;
        if (x0 > sw - 1) x0 = sw - 1;
        int x1 = x0 + 1 < sw ? x0 + 1 : x0;
        float tx = sx - (float)x0;
        if (tx > 1.0f) tx = 1.0f;
        cols[3 * x] = (float)x0;
        cols[3 * x + 1] = (float)x1;
        cols[3 * x + 2] = tx;
    }
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < h; y++) {
        float sy = ((float)y + 0.5f) * fy - 0.5f;
        if (sy < 0.0f) sy = 0.0f;
        int y0 = (int)sy;
        if (y0 > sh - 1) y0 = sh - 1;
        int y1 = y0 + 1 < sh ? y0 + 1 : y0;
        float ty = sy - (float)y0;
        if (ty > 1.0f) ty = 1.0f;
        const float *row0 = src + 3 * (size_t)y0 * (size_t)sw, *row1 = src + 3 * (size_t)y1 * (size_t)sw;
        float *o = dst + 3 * (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++, o += 3) {
            const size_t x0 = 3 * (size_t)cols[3 * x], x1 = 3 * (size_t)cols[3 * x + 1];
            const float tx = cols[3 * x + 2];
            const float *a = row0 + x0, *b = row0 + x1, *c = row1 + x0, *d = row1 + x1;
            for (int k = 0; k < 3; k++) {
                float top = a[k] + (b[k] - a[k]) * tx, bot = c[k] + (d[k] - c[k]) * tx;
                o[k] += weight * (top + (bot - top) * ty);
            }
        }
    }
}

static eddy_status bloom(eddy_renderer *r, float *rgb, int W, int H, const eddy_render_def *d) {
    int levels = 0, w = W, h = H;
    eddy__level *L = r->bloom;
    while (levels < d->bloom_levels && (w > 1 || h > 1)) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        size_t n = (size_t)w * (size_t)h * 3;
        eddy_status st = eddy__fbuf_reserve(r, &L[levels].a, n);
        if (st == EDDY_OK) st = eddy__fbuf_reserve(r, &L[levels].b, n);
        if (st != EDDY_OK) return st;
        L[levels].w = w;
        L[levels].h = h;
        levels++;
    }
    if (levels == 0) return EDDY_OK;
    eddy_status st = eddy__fbuf_reserve(r, &r->upsample_cols, 3 * (size_t)W);
    if (st != EDDY_OK) return st;
    float *cols = r->upsample_cols.p;
    const float knee = d->bloom_threshold * d->bloom_soft_knee;
    downsample(r, rgb, W, H, L[0].a.p, L[0].w, L[0].h, d->bloom_threshold, knee);
    tent_blur(r, L[0].a.p, L[0].b.p, L[0].w, L[0].h);
    for (int i = 1; i < levels; i++) {
        downsample(r, L[i - 1].a.p, L[i - 1].w, L[i - 1].h, L[i].a.p, L[i].w, L[i].h, -1.0f, 0.0f);
        tent_blur(r, L[i].a.p, L[i].b.p, L[i].w, L[i].h);
    }
    for (int i = levels - 1; i > 0; i--)
        upsample_add(r, L[i].a.p, L[i].w, L[i].h, L[i - 1].a.p, L[i - 1].w, L[i - 1].h, 1.0f, cols);
    upsample_add(r, L[0].a.p, L[0].w, L[0].h, rgb, W, H, d->bloom_intensity, cols);
    return EDDY_OK;
}

static void edges(eddy_renderer *r, float *rgb, const float *lum, int W, int H, const eddy_render_def *d, float ppc) {
    const float s = d->edge_strength * 0.25f * ppc;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        const float *up = lum + (size_t)(y > 0 ? y - 1 : y) * (size_t)W;
        const float *mid = lum + (size_t)y * (size_t)W;
        const float *dn = lum + (size_t)(y < H - 1 ? y + 1 : y) * (size_t)W;
        for (int x = 0; x < W; x++) {
            int xl = x > 0 ? x - 1 : x, xr = x < W - 1 ? x + 1 : x;
            float gx = (up[xr] + 2.0f * mid[xr] + dn[xr]) - (up[xl] + 2.0f * mid[xl] + dn[xl]);
            float gy = (up[xl] + 2.0f * up[x] + up[xr]) - (dn[xl] + 2.0f * dn[x] + dn[xr]);
            float g = s * sqrtf(gx * gx + gy * gy);
            float *c = rgb + 3 * ((size_t)y * (size_t)W + (size_t)x);
            for (int k = 0; k < 3; k++) c[k] += g * d->edge_color[k];
        }
    }
}

eddy_status eddy__post_process(eddy_renderer *r, float *rgb, int W, int H, const eddy_render_def *d, float ppc) {
    if (!d->shading && !d->bloom && !d->edges) return EDDY_OK;
    eddy_status st = eddy__fbuf_reserve(r, &r->tmp, (size_t)W * (size_t)H);
    if (st != EDDY_OK) return st;
    float *lum = r->tmp.p;
    if (d->edges) compute_luminance(r, rgb, lum, W, H, true); /* edges of the dye itself, before light and glow */
    if (d->edges && !d->shading && !d->bloom) {
        edges(r, rgb, lum, W, H, d, ppc);
        return EDDY_OK;
    }
    if (d->shading) {
        if (d->edges) { /* keep the edge luminance: shade from a second plane in the scalar scratch */
            if ((st = eddy__fbuf_reserve(r, &r->scalar, (size_t)W * (size_t)H)) != EDDY_OK) return st;
            compute_luminance(r, rgb, r->scalar.p, W, H, false);
            shade(r, rgb, r->scalar.p, W, H, d, ppc);
        } else {
            compute_luminance(r, rgb, lum, W, H, false);
            shade(r, rgb, lum, W, H, d, ppc);
        }
    }
    if (d->bloom && (st = bloom(r, rgb, W, H, d)) != EDDY_OK) return st;
    if (d->edges) edges(r, rgb, lum, W, H, d, ppc);
    return EDDY_OK;
}
