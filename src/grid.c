/* Staggered-grid geometry and sampling: where each array's samples sit in the world, and trilinear
 * interpolation on them (bilinear in 2D). Clamped at the domain edge, wrapped on periodic axes. */
#include "sim_internal.h"

#include <math.h>

eddy_grid_desc eddy__velocity_desc(const eddy_sim *s, int a, const float *data) {
    eddy_grid_desc g;
    g.data = data;
    eddy__face_dims(s, a, g.n);
    for (int b = 0; b < 3; b++) {
        g.off[b] = (b == a) ? 0.0f : 0.5f;
        g.spacing[b] = s->h;
        g.origin[b] = s->origin[b];
        g.periodic[b] = s->periodic[b];
        g.period[b] = s->n[b]; /* along a, face n[a] repeats face 0 */
    }
    return g;
}

eddy_grid_desc eddy__cell_desc(const eddy_sim *s, const float *data) {
    eddy_grid_desc g;
    g.data = data;
    for (int b = 0; b < 3; b++) {
        g.n[b] = s->n[b];
        g.off[b] = 0.5f;
        g.spacing[b] = s->h;
        g.origin[b] = s->origin[b];
        g.periodic[b] = s->periodic[b];
        g.period[b] = s->n[b];
    }
    return g;
}

eddy_grid_desc eddy__scalar_desc(const eddy_sim *s, const float *data) {
    eddy_grid_desc g;
    g.data = data;
    for (int b = 0; b < 3; b++) {
        g.n[b] = s->sn[b];
        g.off[b] = 0.5f;
        g.spacing[b] = s->sh[b];
        g.origin[b] = s->origin[b];
        g.periodic[b] = s->periodic[b];
        g.period[b] = s->sn[b];
    }
    return g;
}

/* Lower node index and weight along one axis for coordinate x (in samples). */
static inline void axis_weights(const eddy_grid_desc *g, int b, float x, int *i0, int *i1, float *w) {
    int n = g->n[b];
    if (n == 1) {
        *i0 = *i1 = 0;
        *w = 0.0f;
        return;
    }
    if (g->periodic[b]) {
        int per = g->period[b];
        /* past 2^23 a float is a whole number, which fmodf wraps exactly (1e30 fits no int: converting it is undefined
         * behaviour); a coordinate that overflowed to infinity is in no cell, and takes cell 0 */
        if (!(fabsf(x) < 8388608.0f)) x = isfinite(x) ? fmodf(x, (float)per) : 0.0f;
        float fl = floorf(x);
        int i = (int)fl;
        *w = x - fl;
        *i0 = eddy__wrap(i, per);
        *i1 = eddy__wrap(i + 1, per);
        return;
    }
    float hi = (float)(n - 1);
    if (!(x > 0.0f)) x = 0.0f; /* also maps NaN to the edge rather than to an out-of-range index */
    if (x > hi) x = hi;
    int i = (int)x;
    if (i > n - 2) i = n - 2;
    *i0 = i;
    *i1 = i + 1;
    *w = x - (float)i;
}

static inline void locate(const eddy_grid_desc *g, const float p[3], int i0[3], int i1[3], float w[3]) {
    for (int b = 0; b < 3; b++) {
        float x = (p[b] - g->origin[b]) / g->spacing[b] - g->off[b];
        axis_weights(g, b, x, &i0[b], &i1[b], &w[b]);
    }
}

float eddy__sample(const eddy_grid_desc *g, const float p[3]) {
    int i0[3], i1[3];
    float w[3];
    locate(g, p, i0, i1, w);
    const float *d = g->data;
    const int *n = g->n;
    float c00 = d[eddy__idx(n, i0[0], i0[1], i0[2])] * (1 - w[0]) + d[eddy__idx(n, i1[0], i0[1], i0[2])] * w[0];
    float c10 = d[eddy__idx(n, i0[0], i1[1], i0[2])] * (1 - w[0]) + d[eddy__idx(n, i1[0], i1[1], i0[2])] * w[0];
    float c0 = c00 * (1 - w[1]) + c10 * w[1];
    if (n[2] == 1) return c0;
    float c01 = d[eddy__idx(n, i0[0], i0[1], i1[2])] * (1 - w[0]) + d[eddy__idx(n, i1[0], i0[1], i1[2])] * w[0];
    float c11 = d[eddy__idx(n, i0[0], i1[1], i1[2])] * (1 - w[0]) + d[eddy__idx(n, i1[0], i1[1], i1[2])] * w[0];
    float c1 = c01 * (1 - w[1]) + c11 * w[1];
    return c0 * (1 - w[2]) + c1 * w[2];
}

float eddy__sample_minmax(const eddy_grid_desc *g, const float p[3], float *lo, float *hi) {
    int i0[3], i1[3];
    float w[3];
    locate(g, p, i0, i1, w);
    const float *d = g->data;
    const int *n = g->n;
    int kn = n[2] == 1 ? 1 : 2;
    float mn = INFINITY, mx = -INFINITY;
    for (int kk = 0; kk < kn; kk++)
        for (int jj = 0; jj < 2; jj++)
            for (int ii = 0; ii < 2; ii++) {
                float v = d[eddy__idx(n, ii ? i1[0] : i0[0], jj ? i1[1] : i0[1], kk ? i1[2] : i0[2])];
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
    *lo = mn;
    *hi = mx;
    return eddy__sample(g, p);
}

void eddy__sample_vel(const eddy_sim *s, float *const vel[3], const float p[3], float out[3]) {
    for (int a = 0; a < 3; a++) {
        if (a >= s->dim) {
            out[a] = 0.0f;
            continue;
        }
        eddy_grid_desc g = eddy__velocity_desc(s, a, vel[a]);
        out[a] = eddy__sample(&g, p);
    }
}
