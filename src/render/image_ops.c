/* Image helpers: separable resampling (area average when shrinking, bilinear when growing; colours weighted by
 * alpha so transparent pixels do not bleed their colour) and dye initial conditions from a picture. */
#include "render_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct taps {
    int *first; /* first source index per destination index */
    float *w;   /* k weights per destination index */
    int k;
} taps;

static int make_taps(int src, int dst, taps *t) {
    double scale = (double)src / (double)dst;
    t->k = scale > 1.0 ? (int)ceil(scale) + 1 : 2;
    t->first = calloc((size_t)dst, sizeof(int));
    t->w = calloc((size_t)dst * (size_t)t->k, sizeof(float));
    if (!t->first || !t->w) return 0;
    for (int i = 0; i < dst; i++) {
        float *w = t->w + (size_t)i * (size_t)t->k;
        if (scale > 1.0) { /* box: overlap of source pixel j with the footprint [a, b) */
            double a = i * scale, b = (i + 1) * scale;
            int j0 = (int)floor(a);
            t->first[i] = j0;
            for (int q = 0; q < t->k; q++) {
                int j = j0 + q;
                if (j >= src) break;
                double lo = fmax(a, j), hi = fmin(b, j + 1.0);
                w[q] = hi > lo ? (float)((hi - lo) / scale) : 0.0f;
            }
        } else { /* tent: bilinear between the two nearest source centres */
            double s = (i + 0.5) * scale - 0.5;
            if (s < 0.0) s = 0.0;
            int j0 = (int)floor(s);
            if (j0 > src - 1) j0 = src - 1;
            double f = s - j0;
            t->first[i] = j0;
            if (j0 + 1 < src) {
                w[0] = (float)(1.0 - f);
                w[1] = (float)f;
            } else {
                w[0] = 1.0f;
            }
        }
    }
    return 1;
}

eddy_status eddy_image_resize(const eddy_image *src, int width, int height, eddy_image *dst, char *msg,
                              size_t msg_size) {
    /* a copy of the source struct shares its pixels: freeing the destination to reallocate it freed the source's
     * pixels, which were then read */
    if (!src || !src->rgba || !dst || src == dst || dst->rgba == src->rgba) {
        if (msg && msg_size) snprintf(msg, msg_size, "image resize: source and destination must be distinct images");
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    if (src->width < 1 || src->height < 1 || (double)src->width * (double)src->height > (double)(1 << 28)) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "image resize: source image is %d x %d: expected >= 1 pixel per side, at most 2^28",
                     src->width, src->height);
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    if (!dst->rgba || dst->width != width || dst->height != height) {
        eddy_image_free(dst);
        eddy_status st = eddy_image_init(dst, width, height, msg, msg_size);
        if (st != EDDY_OK) return st;
    }
    const int sw = src->width, sh = src->height;
    taps tx = {0}, ty = {0};
    float *mid = malloc((size_t)width * (size_t)sh * 4 * sizeof(float));
    eddy_status st = EDDY_OK;
    if (!mid || !make_taps(sw, width, &tx) || !make_taps(sh, height, &ty)) {
        if (msg && msg_size) snprintf(msg, msg_size, "image resize to %d x %d: out of memory", width, height);
        st = EDDY_ERR_OUT_OF_MEMORY;
        goto done;
    }
    /* horizontal pass into premultiplied floats */
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < width; x++) {
            float acc[4] = {0, 0, 0, 0};
            const float *w = tx.w + (size_t)x * (size_t)tx.k;
            for (int q = 0; q < tx.k; q++) {
                int j = tx.first[x] + q;
                if (j >= sw || w[q] == 0.0f) continue;
                const uint8_t *p = src->rgba + 4 * ((size_t)y * (size_t)sw + (size_t)j);
                float a = (float)p[3] * w[q];
                acc[0] += (float)p[0] * a, acc[1] += (float)p[1] * a, acc[2] += (float)p[2] * a, acc[3] += a;
            }
            memcpy(mid + 4 * ((size_t)y * (size_t)width + (size_t)x), acc, sizeof acc);
        }
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float acc[4] = {0, 0, 0, 0};
            const float *w = ty.w + (size_t)y * (size_t)ty.k;
            for (int q = 0; q < ty.k; q++) {
                int j = ty.first[y] + q;
                if (j >= sh || w[q] == 0.0f) continue;
                const float *p = mid + 4 * ((size_t)j * (size_t)width + (size_t)x);
                for (int c = 0; c < 4; c++) acc[c] += p[c] * w[q];
            }
            uint8_t *o = dst->rgba + 4 * ((size_t)y * (size_t)width + (size_t)x);
            float a = acc[3];
            for (int c = 0; c < 3; c++) {
                float v = a > 0.0f ? acc[c] / a : 0.0f;
                o[c] = (uint8_t)(v < 255.0f ? v + 0.5f : 255.0f);
            }
            o[3] = (uint8_t)(a < 255.0f ? a + 0.5f : 255.0f);
        }
    if (msg && msg_size) msg[0] = '\0';
done:
    free(mid);
    free(tx.first), free(tx.w), free(ty.first), free(ty.w);
    return st;
}

eddy_status eddy_dye_from_image(const eddy_image *img, int nx, int ny, float *const dye[3], char *msg, size_t msg_size) {
    if (!img || !img->rgba || !dye || !dye[0] || !dye[1] || !dye[2]) {
        if (msg && msg_size) snprintf(msg, msg_size, "dye from image: image and three dye arrays are required");
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    if (nx < 1 || ny < 1) {
        if (msg && msg_size) snprintf(msg, msg_size, "dye from image: grid %d x %d: expected >= 1 each", nx, ny);
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    eddy_image small = {0};
    const eddy_image *src = img;
    if (img->width != nx || img->height != ny) {
        eddy_status st = eddy_image_resize(img, nx, ny, &small, msg, msg_size);
        if (st != EDDY_OK) return st;
        src = &small;
    }
    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = eddy__srgb_to_linear((float)i / 255.0f);
    for (int j = 0; j < ny; j++) {
        const uint8_t *row = src->rgba + 4 * (size_t)(ny - 1 - j) * (size_t)nx; /* image top = max y */
        for (int i = 0; i < nx; i++) {
            const uint8_t *p = row + 4 * i;
            float a = (float)p[3] / 255.0f;
            for (int c = 0; c < 3; c++) dye[c][(size_t)j * (size_t)nx + (size_t)i] = lut[p[c]] * a;
        }
    }
    eddy_image_free(&small);
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}
