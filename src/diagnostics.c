/* Per-step diagnostics: discrete divergence (1/s) over fluid cells (max and RMS), kinetic energy
 * 0.5 * sum over faces of u_f^2 * h^d (the MAC grid's natural energy), total dye, maximum speed at cell centres,
 * and the CFL number max|u_face| dt / h (the quantity the CFL-limited step controls).
 *
 * One pass over the cell rows (j,k): a row reads its faces, solid mask and dye once. Per cell, the divergence,
 * the cell-centred speed and the maxima are computed with vector instructions into a short buffer; the sums then
 * run in their serial order along the row (several independent chains at once). Every sum keeps one partial per
 * row (of cells, of faces of each component, of scalars), and the partials are added serially in the order of
 * the rows, so the figures do not depend on the thread count, and are the same bits as a separate pass for each
 * figure. */
#include "keep_if.h"
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

float eddy__cell_divergence(const eddy_sim *s, int i, int j, int k) {
    int fu[3], fv[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    float d = s->vel[0][eddy__idx(fu, i + 1, j, k)] - s->vel[0][eddy__idx(fu, i, j, k)] +
              s->vel[1][eddy__idx(fv, i, j + 1, k)] - s->vel[1][eddy__idx(fv, i, j, k)];
    if (s->dim == 3) {
        int fw[3];
        eddy__face_dims(s, 2, fw);
        d += s->vel[2][eddy__idx(fw, i, j, k + 1)] - s->vel[2][eddy__idx(fw, i, j, k)];
    }
    return d / s->h;
}

/* per-row partials: one slot per row of cells, of faces of each component and of scalars */
typedef struct diag_layout {
    size_t cell_rows, face_rows[3], scalar_rows;
    size_t maxdiv, sumdiv2, maxspeed, energy[3], maxface[3], dye, total; /* offsets into the buffer */
} diag_layout;

static diag_layout layout_of(const eddy_sim *s) {
    diag_layout L = {0};
    L.cell_rows = (size_t)s->n[1] * s->n[2];
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        L.face_rows[a] = (size_t)fn[1] * fn[2];
    }
    L.scalar_rows = (size_t)s->sn[1] * s->sn[2];
    size_t at = 0;
    L.maxdiv = at; at += L.cell_rows;
    L.sumdiv2 = at; at += L.cell_rows;
    L.maxspeed = at; at += L.cell_rows;
    for (int a = 0; a < 3; a++) {
        L.energy[a] = at; at += L.face_rows[a];
        L.maxface[a] = at; at += L.face_rows[a];
    }
    L.dye = at; at += L.scalar_rows;
    L.total = at;
    return L;
}

/* sum of squares (serial order) and max |x| of a row of faces, in double as the energy is */
static void face_row(const float *v, int count, double *sum, double *mx) {
    double e = 0, m = 0;
    for (int i = 0; i < count; i++) {
        double u = v[i];
        e += u * u;
        m = fabs(u) > m ? fabs(u) : m;
    }
    *sum = e;
    *mx = m;
}

/* serial sum of R + G + B along a row of scalars */
static double dye_row(const float *r, const float *g, const float *b, int count) {
    double sum = 0;
    for (int i = 0; i < count; i++) sum += (double)r[i] + g[i] + b[i];
    return sum;
}

enum { CHUNK = 256 }; /* cells per vector block: the squared divergences wait here for the serial sum */

/* cell row (j,k): divergence, speed, the face rows it owns, and its scalar rows when the scalar grid is the
 * velocity grid */
#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif
/* d / h, or d * (1 / h) when that reciprocal is exact (h a power of two: the same bits); `mul` is a constant in
 * each instance of diag_row */
KERNEL float over_h(float d, float h, float rh, bool mul) { return mul ? d * rh : d / h; }

KERNEL void diag_row(const eddy_sim *s, const diag_layout *L, double *P, int j, int k, bool mul) {
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2], dim = s->dim;
    int fu[3], fv[3], fw[3] = {0, 0, 0};
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    if (dim == 3) eddy__face_dims(s, 2, fw);
    const size_t row = (size_t)j + (size_t)n1 * k;
    const float *u = s->vel[0] + eddy__idx(fu, 0, j, k);
    const float *v0 = s->vel[1] + eddy__idx(fv, 0, j, k), *v1 = s->vel[1] + eddy__idx(fv, 0, j + 1, k);
    const float *w0 = dim == 3 ? s->vel[2] + eddy__idx(fw, 0, j, k) : NULL;
    const float *w1 = dim == 3 ? s->vel[2] + eddy__idx(fw, 0, j, k + 1) : NULL;
    const uint8_t *solid = s->solid + eddy__idx(s->n, 0, j, k);
    const bool same_grid = s->sn[0] == n0 && s->sn[1] == n1 && s->sn[2] == n2;
    const float *dr = s->dye[0] + row * (size_t)n0, *dg = s->dye[1] + row * (size_t)n0, *db = s->dye[2] + row * (size_t)n0;
    const float h = s->h, rh = 1.0f / h;
    /* the last x-face repeats the first on a periodic x axis and is left out of the face figures */
    const bool u_last = !s->periodic[0];
    /* maxima of |div| and |u_face| in float (exact, and the same value once widened), of speed^2 in double */
    float mdf = 0, mu = 0, mv = 0, mw = 0;
    double ms = 0, sd = 0, eu = 0, ev = 0, ew = 0, dye = 0;
    /* per cell of a block: the terms of each sum, computed with vector instructions, added serially below */
    double t_div[CHUNK], t_u[CHUNK], t_v[CHUNK], t_w[CHUNK], t_dye[CHUNK];
    for (int i0 = 0; i0 < n0; i0 += CHUNK) {
        const int m = n0 - i0 < CHUNK ? n0 - i0 : CHUNK;
        const float *uu = u + i0, *a0 = v0 + i0, *a1 = v1 + i0;
        const uint8_t *so = solid + i0;
        if (dim == 2) {
#pragma omp simd reduction(max : mdf, mu, mv, ms)
            for (int i = 0; i < m; i++) {
                float d = uu[i + 1] - uu[i] + a1[i] - a0[i];
                d = over_h(d, h, rh, mul);
                const bool fluid = so[i] == 0;
                float ad = eddy__keep_float(fabsf(d), fluid);
                mdf = ad > mdf ? ad : mdf;
                double dd = d;
                t_div[i] = eddy__keep_double(dd * dd, fluid);
                double cu = 0.5 * ((double)uu[i] + uu[i + 1]), cv = 0.5 * ((double)a0[i] + a1[i]);
                double sp2 = eddy__keep_double(cu * cu + cv * cv, fluid);
                ms = sp2 > ms ? sp2 : ms;
                float fu_ = fabsf(uu[i]), fv_ = fabsf(a0[i]);
                mu = fu_ > mu ? fu_ : mu;
                mv = fv_ > mv ? fv_ : mv;
                double x = uu[i], y = a0[i];
                t_u[i] = x * x;
                t_v[i] = y * y;
            }
        } else {
            const float *b0 = w0 + i0, *b1 = w1 + i0;
#pragma omp simd reduction(max : mdf, mu, mv, mw, ms)
            for (int i = 0; i < m; i++) {
                float d = uu[i + 1] - uu[i] + a1[i] - a0[i];
                d += b1[i] - b0[i];
                d = over_h(d, h, rh, mul);
                const bool fluid = so[i] == 0;
                float ad = eddy__keep_float(fabsf(d), fluid);
                mdf = ad > mdf ? ad : mdf;
                double dd = d;
                t_div[i] = eddy__keep_double(dd * dd, fluid);
                double cu = 0.5 * ((double)uu[i] + uu[i + 1]), cv = 0.5 * ((double)a0[i] + a1[i]),
                       cw = 0.5 * ((double)b0[i] + b1[i]);
                double sp2 = eddy__keep_double(cu * cu + cv * cv + cw * cw, fluid);
                ms = sp2 > ms ? sp2 : ms;
                float fu_ = fabsf(uu[i]), fv_ = fabsf(a0[i]), fw_ = fabsf(b0[i]);
                mu = fu_ > mu ? fu_ : mu;
                mv = fv_ > mv ? fv_ : mv;
                mw = fw_ > mw ? fw_ : mw;
                double x = uu[i], y = a0[i], z = b0[i];
                t_u[i] = x * x;
                t_v[i] = y * y;
                t_w[i] = z * z;
            }
        }
        if (same_grid) {
            const float *r = dr + i0, *g = dg + i0, *b = db + i0;
#pragma omp simd
            for (int i = 0; i < m; i++) t_dye[i] = (double)r[i] + g[i] + b[i];
        }
        /* the sums, in row order (independent chains); adding 0 for a solid cell leaves the sum unchanged */
        if (dim == 2 && same_grid) {
            for (int i = 0; i < m; i++) {
                sd += t_div[i];
                eu += t_u[i];
                ev += t_v[i];
                dye += t_dye[i];
            }
        } else if (dim == 2) {
            for (int i = 0; i < m; i++) {
                sd += t_div[i];
                eu += t_u[i];
                ev += t_v[i];
            }
        } else if (same_grid) {
            for (int i = 0; i < m; i++) {
                sd += t_div[i];
                eu += t_u[i];
                ev += t_v[i];
                ew += t_w[i];
                dye += t_dye[i];
            }
        } else {
            for (int i = 0; i < m; i++) {
                sd += t_div[i];
                eu += t_u[i];
                ev += t_v[i];
                ew += t_w[i];
            }
        }
    }
    double md = mdf;
    if (u_last) {
        double x = u[n0];
        eu += x * x;
        mu = fabsf(u[n0]) > mu ? fabsf(u[n0]) : mu;
    }
    P[L->maxdiv + row] = md;
    P[L->sumdiv2 + row] = sd;
    P[L->maxspeed + row] = ms;
    P[L->energy[0] + row] = eu;
    P[L->maxface[0] + row] = (double)mu;
    /* y-face row j; a periodic axis' last face row repeats the first and counts as zero */
    size_t vr = (size_t)j + (size_t)(n1 + 1) * k;
    P[L->energy[1] + vr] = ev;
    P[L->maxface[1] + vr] = (double)mv;
    if (j == n1 - 1) {
        double e = 0, mx = 0;
        if (!s->periodic[1]) face_row(v1, n0, &e, &mx);
        P[L->energy[1] + vr + 1] = e;
        P[L->maxface[1] + vr + 1] = mx;
    }
    if (dim == 3) {
        P[L->energy[2] + row] = ew;
        P[L->maxface[2] + row] = (double)mw;
        if (k == n2 - 1) {
            double e = 0, mx = 0;
            if (!s->periodic[2]) face_row(w1, n0, &e, &mx);
            P[L->energy[2] + row + (size_t)n1] = e; /* z-face row (j, n2) */
            P[L->maxface[2] + row + (size_t)n1] = mx;
        }
    }
    /* scalar rows of this cell row when the scalar grid is finer */
    if (same_grid) {
        P[L->dye + row] = dye;
    } else {
        const int r1 = s->sn[1] / n1, r2 = s->sn[2] / n2, sn0 = s->sn[0];
        for (int kk = k * r2; kk < (k + 1) * r2; kk++)
            for (int jj = j * r1; jj < (j + 1) * r1; jj++) {
                size_t q = eddy__idx(s->sn, 0, jj, kk), sr = (size_t)jj + (size_t)s->sn[1] * kk;
                P[L->dye + sr] = dye_row(s->dye[0] + q, s->dye[1] + q, s->dye[2] + q, sn0);
            }
    }
}

eddy_status eddy__diagnostics(eddy_sim *s, float dt) {
    const diag_layout L = layout_of(s);
    if (!s->diag_partial) {
        s->diag_partial = (double *)malloc(L.total * sizeof(double));
        if (!s->diag_partial)
            return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the diagnostics partials (%zu rows)", L.cell_rows);
    }
    double *P = s->diag_partial;
    const int rows = s->n[1] * s->n[2];
    int e;
    const bool mul = frexpf(s->h, &e) == 0.5f && isnormal(s->h) && isnormal(1.0f / s->h);
    size_t fluid = 0; /* an integer count: exact in any order */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(+ : fluid)
    for (int row = 0; row < rows; row++) {
        if (mul) diag_row(s, &L, P, row % s->n[1], row / s->n[1], true);
        else diag_row(s, &L, P, row % s->n[1], row / s->n[1], false);
        const uint8_t *so = s->solid + (size_t)row * s->n[0];
        size_t f = 0;
        for (int i = 0; i < s->n[0]; i++) f += so[i] == 0;
        fluid += f;
    }
    /* the partials, serially in row order */
    double md = 0, sd = 0, ms = 0;
    for (size_t r = 0; r < L.cell_rows; r++) {
        md = P[L.maxdiv + r] > md ? P[L.maxdiv + r] : md;
        sd += P[L.sumdiv2 + r];
        ms = P[L.maxspeed + r] > ms ? P[L.maxspeed + r] : ms;
    }
    double energy = 0, maxface = 0;
    for (int a = 0; a < s->dim; a++)
        for (size_t r = 0; r < L.face_rows[a]; r++) {
            energy += P[L.energy[a] + r];
            maxface = P[L.maxface[a] + r] > maxface ? P[L.maxface[a] + r] : maxface;
        }
    double dye = 0;
    for (size_t r = 0; r < L.scalar_rows; r++) dye += P[L.dye + r];
    double cell_volume = (double)s->h * s->h * (s->dim == 3 ? s->h : 1.0);
    double scalar_volume = (double)s->sh[0] * s->sh[1] * (s->dim == 3 ? s->sh[2] : 1.0);

    eddy_step_stats *st = &s->stats;
    st->max_div = (float)md;
    st->rms_div = fluid ? (float)sqrt(sd / (double)fluid) : 0.0f;
    st->kinetic_energy = 0.5 * energy * cell_volume;
    st->dye_total = dye * scalar_volume;
    st->max_speed = (float)sqrt(ms);
    st->cfl = (float)(maxface * dt / s->h);
    if (!isfinite(st->kinetic_energy) || !isfinite(st->dye_total))
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite diagnostics in step %ld", s->step);
    return EDDY_OK;
}
