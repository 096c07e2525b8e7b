/* Buoyancy (Fedkiw, Stam & Jensen 2001, "Visual simulation of smoke"): f = alpha * d * g - beta * (T - T_amb) * g,
 * with d the dye density (R + G + B) and g gravity. Applied to each velocity face with the scalars interpolated to
 * the face position (the scalar grid may be finer than the velocity grid).
 *
 * The interpolation is separable: along each axis a face row maps to the same two scalar samples and weights in
 * every row, so they are tabulated once per axis (with the float operations of eddy__sample, so the result is the
 * same bits) and a face row is a few multiply-adds per face. Where the x samples of consecutive faces are
 * consecutive scalars (the same-resolution grids, away from the ends), the row loop reads them directly and is
 * vectorised; elsewhere it reads them through the table. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>

float *eddy__forces_scratch(eddy_sim *s, size_t floats) {
    if (s->forces_scratch_floats >= floats) return s->forces_scratch;
    free(s->forces_scratch);
    s->forces_scratch = (float *)malloc(floats * sizeof(float));
    s->forces_scratch_floats = s->forces_scratch ? floats : 0;
    if (!s->forces_scratch)
        eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the forces scratch (%zu floats)", floats);
    return s->forces_scratch;
}

/* the two scalar samples and the weights of linear interpolation at each face along one axis */
typedef struct axis_table {
    int *i0, *i1;
    float *w, *omw; /* w and 1 - w */
    int n;
    int reg_lo, reg_hi, reg_off; /* faces [reg_lo, reg_hi) have i0 = i + reg_off, i1 = i0 + 1 */
} axis_table;

/* Fills the table of axis b for faces of component a, with the arithmetic of eddy__grid_pos + locate(). */
static void build_axis(const eddy_grid_desc *fg, const eddy_grid_desc *sg, int b, axis_table *t) {
    const int n = sg->n[b];
    for (int i = 0; i < t->n; i++) {
        float p = fg->origin[b] + ((float)i + fg->off[b]) * fg->spacing[b];
        float x = (p - sg->origin[b]) / sg->spacing[b] - sg->off[b];
        int i0, i1;
        float w;
        if (n == 1) {
            i0 = i1 = 0;
            w = 0.0f;
        } else if (sg->periodic[b]) {
            int per = sg->period[b];
            float fl = floorf(x);
            int k = (int)fl;
            w = x - fl;
            i0 = eddy__wrap(k, per);
            i1 = eddy__wrap(k + 1, per);
        } else {
            float hi = (float)(n - 1);
            if (!(x > 0.0f)) x = 0.0f;
            if (x > hi) x = hi;
            int k = (int)x;
            if (k > n - 2) k = n - 2;
            i0 = k;
            i1 = k + 1;
            w = x - (float)k;
        }
        t->i0[i] = i0;
        t->i1[i] = i1;
        t->w[i] = w;
        t->omw[i] = 1 - w;
    }
    /* the longest run around the middle where the samples follow the faces one to one */
    int mid = t->n / 2, off = t->i0[mid] - mid;
    int lo = mid, hi = mid;
    while (lo > 0 && t->i0[lo - 1] == lo - 1 + off && t->i1[lo - 1] == lo + off) lo--;
    while (hi < t->n && t->i0[hi] == hi + off && t->i1[hi] == hi + 1 + off) hi++;
    t->reg_lo = lo;
    t->reg_hi = hi;
    t->reg_off = off;
}

/* out[i] = the scalar field d interpolated at face i of a face row: rows r00 (j0,k0), r10 (j1,k0), r01 (j0,k1),
 * r11 (j1,k1) of the scalar grid, weights wy, wz; 2D (flat) returns the y interpolation as eddy__sample does. */
typedef struct row_weights {
    size_t r00, r10, r01, r11;
    float wy, omwy, wz, omwz;
    bool flat;
} row_weights;

static void sample_row(const float *d, const axis_table *X, const row_weights *R, float *out) {
    const float *d00 = d + R->r00, *d10 = d + R->r10, *d01 = d + R->r01, *d11 = d + R->r11;
    const float wy = R->wy, omwy = R->omwy, wz = R->wz, omwz = R->omwz;
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0: faces before the regular run, 1: the run, 2: after it */
        int lo = pass == 0 ? 0 : pass == 1 ? X->reg_lo : X->reg_hi;
        int hi = pass == 0 ? X->reg_lo : pass == 1 ? X->reg_hi : X->n;
        if (pass == 1) {
            const int o = X->reg_off;
            const float *w = X->w, *omw = X->omw;
            if (R->flat) {
#pragma omp simd
                for (int i = lo; i < hi; i++) {
                    float c00 = d00[i + o] * omw[i] + d00[i + o + 1] * w[i];
                    float c10 = d10[i + o] * omw[i] + d10[i + o + 1] * w[i];
                    out[i] = c00 * omwy + c10 * wy;
                }
            } else {
#pragma omp simd
                for (int i = lo; i < hi; i++) {
                    float c00 = d00[i + o] * omw[i] + d00[i + o + 1] * w[i];
                    float c10 = d10[i + o] * omw[i] + d10[i + o + 1] * w[i];
                    float c0 = c00 * omwy + c10 * wy;
                    float c01 = d01[i + o] * omw[i] + d01[i + o + 1] * w[i];
                    float c11 = d11[i + o] * omw[i] + d11[i + o + 1] * w[i];
                    float c1 = c01 * omwy + c11 * wy;
                    out[i] = c0 * omwz + c1 * wz;
                }
            }
            continue;
        }
        for (int i = lo; i < hi; i++) {
            int a = X->i0[i], b = X->i1[i];
            float w = X->w[i], omw = X->omw[i];
            float c00 = d00[a] * omw + d00[b] * w;
            float c10 = d10[a] * omw + d10[b] * w;
            float c0 = c00 * omwy + c10 * wy;
            if (R->flat) {
                out[i] = c0;
                continue;
            }
            float c01 = d01[a] * omw + d01[b] * w;
            float c11 = d11[a] * omw + d11[b] * w;
            float c1 = c01 * omwy + c11 * wy;
            out[i] = c0 * omwz + c1 * wz;
        }
    }
}

enum { CHUNK = 256 }; /* faces per block: the sampled values wait in stack buffers */

eddy_status eddy__apply_buoyancy(eddy_sim *s, float dt) {
    const float alpha = s->def.buoyancy_density, beta = s->def.buoyancy_temperature, t_amb = s->def.ambient_temperature;
    if (alpha == 0.0f && beta == 0.0f) return EDDY_OK;
    for (int a = 0; a < s->dim; a++) {
        float g = s->def.gravity[a];
        if (g == 0.0f) continue;
        eddy_grid_desc vg = eddy__velocity_desc(s, a, s->vel[a]), sg = eddy__scalar_desc(s, NULL);
        size_t need = 0;
        for (int b = 0; b < 3; b++) need += 4 * (size_t)vg.n[b];
        float *mem = eddy__forces_scratch(s, need);
        if (!mem) return EDDY_ERR_OUT_OF_MEMORY;
        axis_table T[3];
        for (int b = 0; b < 3; b++) {
            T[b].n = vg.n[b];
            T[b].i0 = (int *)(void *)mem;
            T[b].i1 = (int *)(void *)(mem + vg.n[b]);
            T[b].w = mem + 2 * (size_t)vg.n[b];
            T[b].omw = mem + 3 * (size_t)vg.n[b];
            mem += 4 * (size_t)vg.n[b];
            build_axis(&vg, &sg, b, &T[b]);
        }
        const float dtg = dt * g;
        const bool flat = sg.n[2] == 1;
        float *v = s->vel[a];
        const float *dye[3] = {s->dye[0], s->dye[1], s->dye[2]}, *temperature = s->temperature;
        const int n0 = vg.n[0], rows = vg.n[1] * vg.n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < rows; row++) {
            const int j = row % vg.n[1], k = row / vg.n[1];
            row_weights R;
            R.r00 = eddy__idx(sg.n, 0, T[1].i0[j], T[2].i0[k]);
            R.r10 = eddy__idx(sg.n, 0, T[1].i1[j], T[2].i0[k]);
            R.r01 = eddy__idx(sg.n, 0, T[1].i0[j], T[2].i1[k]);
            R.r11 = eddy__idx(sg.n, 0, T[1].i1[j], T[2].i1[k]);
            R.wy = T[1].w[j];
            R.omwy = T[1].omw[j];
            R.wz = T[2].w[k];
            R.omwz = T[2].omw[k];
            R.flat = flat;
            float *vr = v + (size_t)row * n0;
            float sr[CHUNK], sgr[CHUNK], sb[CHUNK], st[CHUNK];
            for (int i0 = 0; i0 < n0; i0 += CHUNK) {
                const int m = n0 - i0 < CHUNK ? n0 - i0 : CHUNK;
                /* a table restricted to this block of faces */
                axis_table X = T[0];
                X.i0 += i0; X.i1 += i0; X.w += i0; X.omw += i0;
                X.n = m;
                X.reg_lo = eddy__clampi(T[0].reg_lo - i0, 0, m);
                X.reg_hi = eddy__clampi(T[0].reg_hi - i0, X.reg_lo, m);
                X.reg_off = T[0].reg_off + i0;
                if (alpha != 0.0f) {
                    sample_row(dye[0], &X, &R, sr);
                    sample_row(dye[1], &X, &R, sgr);
                    sample_row(dye[2], &X, &R, sb);
                }
                if (beta != 0.0f) sample_row(temperature, &X, &R, st);
                float *vb = vr + i0;
                if (alpha != 0.0f && beta != 0.0f) {
#pragma omp simd
                    for (int i = 0; i < m; i++) {
                        float d = sr[i] + sgr[i] + sb[i], temp = st[i] - t_amb;
                        vb[i] += dtg * (alpha * d - beta * temp);
                    }
                } else if (alpha != 0.0f) {
#pragma omp simd
                    for (int i = 0; i < m; i++) {
                        float d = sr[i] + sgr[i] + sb[i], temp = 0.0f;
                        vb[i] += dtg * (alpha * d - beta * temp);
                    }
                } else {
#pragma omp simd
                    for (int i = 0; i < m; i++) {
                        float d = 0.0f, temp = st[i] - t_amb;
                        vb[i] += dtg * (alpha * d - beta * temp);
                    }
                }
            }
        }
    }
    return EDDY_OK;
}
