/* Sampling of cell-centred arrays at continuous cell coordinates (cell i spans [i, i+1), its value sits at i+0.5):
 * trilinear interpolation, clamped to the outermost cell centres (bilinear when the array is one cell thick). */
#include "render_internal.h"
#include <math.h>

static inline void axis_weights(float c, int n, int *i0, int *i1, float *f) {
    float x = c - 0.5f;
    if (!(x > 0.0f)) { /* NaN lands here too */
        *i0 = *i1 = 0;
        *f = 0.0f;
        return;
    }
    if (x >= (float)(n - 1)) {
        *i0 = *i1 = n - 1;
        *f = 0.0f;
        return;
    }
    int i = (int)x;
    *i0 = i;
    *i1 = i + 1;
    *f = x - (float)i;
}

/* The trilinear value of corners q (x fastest) as a sum in double over the corners that have a weight: for when
 * the float lerps were not finite. Finite values of opposite signs near FLT_MAX overflow b - a in float (a value
 * of finite data drawn as NaN or infinity), and an infinite corner times a zero weight is NaN; here the finite
 * case fits (the result lies between the corners) and an infinity stays one. */
static float sample_slow(const float q[8], float fx, float fy, float fz) {
    double v = 0.0;
    for (int k = 0; k < 8; k++) {
        const double w = (k & 1 ? (double)fx : 1.0 - fx) * (k & 2 ? (double)fy : 1.0 - fy) *
                         (k & 4 ? (double)fz : 1.0 - fz);
        if (w > 0.0) v += w * q[k];
    }
    return (float)v;
}

float eddy__sample_cells(const float *d, const int n[3], const float c[3]) {
    int i0, i1, j0, j1;
    float fx, fy;
    axis_weights(c[0], n[0], &i0, &i1, &fx);
    axis_weights(c[1], n[1], &j0, &j1, &fy);
    const size_t nx = (size_t)n[0];
    if (n[2] == 1) {
        const float *r0 = d + nx * (size_t)j0, *r1 = d + nx * (size_t)j1;
        float a = r0[i0] + (r0[i1] - r0[i0]) * fx;
        float b = r1[i0] + (r1[i1] - r1[i0]) * fx;
        const float v = a + (b - a) * fy;
        if (isfinite(v)) return v;
        const float q[8] = {r0[i0], r0[i1], r1[i0], r1[i1], 0, 0, 0, 0};
        return sample_slow(q, fx, fy, 0.0f);
    }
    int k0, k1;
    float fz;
    axis_weights(c[2], n[2], &k0, &k1, &fz);
    const size_t plane = nx * (size_t)n[1];
    const float *p0 = d + plane * (size_t)k0, *p1 = d + plane * (size_t)k1;
    const float *r00 = p0 + nx * (size_t)j0, *r01 = p0 + nx * (size_t)j1;
    const float *r10 = p1 + nx * (size_t)j0, *r11 = p1 + nx * (size_t)j1;
    float a0 = r00[i0] + (r00[i1] - r00[i0]) * fx, b0 = r01[i0] + (r01[i1] - r01[i0]) * fx;
    float a1 = r10[i0] + (r10[i1] - r10[i0]) * fx, b1 = r11[i0] + (r11[i1] - r11[i0]) * fx;
    float s0 = a0 + (b0 - a0) * fy, s1 = a1 + (b1 - a1) * fy;
    const float v = s0 + (s1 - s0) * fz;
    if (isfinite(v)) return v;
    const float q[8] = {r00[i0], r00[i1], r01[i0], r01[i1], r10[i0], r10[i1], r11[i0], r11[i1]};
    return sample_slow(q, fx, fy, fz);
}

uint8_t eddy__sample_cells_u8(const uint8_t *d, const int n[3], const float c[3]) {
    int idx[3];
    for (int a = 0; a < 3; a++) {
        float x = floorf(c[a]);
        int i = x > 0.0f ? (x < (float)(n[a] - 1) ? (int)x : n[a] - 1) : 0; /* NaN -> 0 */
        idx[a] = i;
    }
    return d[(size_t)idx[0] + (size_t)n[0] * ((size_t)idx[1] + (size_t)n[1] * (size_t)idx[2])];
}

float eddy__sample_cells_u8_frac(const uint8_t *d, const int n[3], const float c[3]) {
    int i[2], j[2], k[2];
    float f[3];
    axis_weights(c[0], n[0], &i[0], &i[1], &f[0]);
    axis_weights(c[1], n[1], &j[0], &j[1], &f[1]);
    if (n[2] == 1) k[0] = k[1] = 0, f[2] = 0.0f;
    else axis_weights(c[2], n[2], &k[0], &k[1], &f[2]);
    float v = 0.0f;
    for (int q = 0; q < 8; q++) {
        int a = q & 1, b = (q >> 1) & 1, e = q >> 2;
        float w = (a ? f[0] : 1.0f - f[0]) * (b ? f[1] : 1.0f - f[1]) * (e ? f[2] : 1.0f - f[2]);
        if (w > 0.0f && d[(size_t)i[a] + (size_t)n[0] * ((size_t)j[b] + (size_t)n[1] * (size_t)k[e])]) v += w;
    }
    return v;
}
