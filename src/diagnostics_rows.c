/* The diagnostics of one cell row (j,k), built once per vector width (vector_isa.h; src/avx2/ builds it again).
 *
 * A row reads its x-faces, the y- and z-face rows around it, its solid mask and (when the scalar grid is the
 * velocity grid) its dye once. Per block of cells the terms are computed in float with vector instructions: the
 * divergence (d = sum of face differences / h), d^2 and |d| over fluid cells, the squared cell-centred speed,
 * the squares of the cell's lower faces u^2 + v^2 + w^2 (each face is the lower face of one cell; the faces past
 * the last cell of an axis are added by the row that owns them) and the largest |face|, R + G + B. Each sum then
 * adds its float terms, widened to double, into LANES interleaved partial sums (cell i into lane i % LANES)
 * joined in one fixed tree at the end of the row: the same bits for either vector width and any thread count (a
 * row is never split), and LANES independent chains instead of one serial chain. The float terms carry ~1e-7
 * relative error each; the sums over a whole grid are in double. */
#include "diagnostics.h"
#include "keep_if.h"

#include <math.h>
#include <string.h>

enum { LANES = 8, CHUNK = 256 }; /* CHUNK: cells per vector block, a multiple of LANES */

static inline double join_lanes(const double v[LANES]) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* acc[i % LANES] += t[i] for a block whose first element is lane 0 */
static inline void add_lanes(double acc[LANES], const float *t, int count) {
    int i = 0;
    for (; i + LANES <= count; i += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += (double)t[i + l];
    for (int l = 0; i + l < count; l++) acc[l] += (double)t[i + l];
}

/* sum of squares and max |x| of a row of faces */
static void face_row(const float *v, int count, double *sum, double *mx) {
    double acc[LANES] = {0};
    float m = 0;
    for (int i = 0; i < count; i++) {
        acc[i % LANES] += (double)(v[i] * v[i]);
        m = fabsf(v[i]) > m ? fabsf(v[i]) : m;
    }
    *sum = join_lanes(acc);
    *mx = m;
}

/* sum of R + G + B along a row of scalars */
static double dye_row(const float *r, const float *g, const float *b, int count) {
    double acc[LANES] = {0};
    int i = 0;
    for (; i + LANES <= count; i += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += (double)(r[i + l] + g[i + l] + b[i + l]);
    for (int l = 0; i + l < count; l++) acc[l] += (double)(r[i + l] + g[i + l] + b[i + l]);
    return join_lanes(acc);
}

#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif
/* d / h, or d * (1 / h) when that reciprocal is exact (h a power of two: the same bits) */
KERNEL float over_h(float d, float h, float rh, bool mul) { return mul ? d * rh : d / h; }

/* no solid cell (any nonzero byte) in a row of the mask */
static inline bool all_fluid(const uint8_t *mask, int n) {
    uint8_t any = 0;
    for (int i = 0; i < n; i++) any |= mask[i];
    return any == 0;
}

/* dim, mul and open (no solid cell in the row: the mask is not read) are constants in each instance */
KERNEL int diag_row(const eddy_sim *s, const diag_layout *L, double *P, int j, int k, int dim, bool mul, bool open) {
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2];
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
    float mdf = 0, ms = 0, mf = 0; /* maxima: exact in any order */
    int fluid = 0;
    double sd_l[LANES] = {0}, e_l[LANES] = {0}, dye_l[LANES] = {0};
    float t_div[CHUNK], t_e[CHUNK], t_dye[CHUNK];
    for (int i0 = 0; i0 < n0; i0 += CHUNK) {
        const int m = n0 - i0 < CHUNK ? n0 - i0 : CHUNK;
        const float *uu = u + i0, *a0 = v0 + i0, *a1 = v1 + i0;
        const float *b0 = dim == 3 ? w0 + i0 : a0, *b1 = dim == 3 ? w1 + i0 : a0;
        const uint8_t *so = solid + i0;
#pragma omp simd reduction(max : mdf, ms, mf) reduction(+ : fluid)
        for (int i = 0; i < m; i++) {
            float d = uu[i + 1] - uu[i] + a1[i] - a0[i];
            if (dim == 3) d += b1[i] - b0[i];
            d = over_h(d, h, rh, mul);
            const bool f = open || so[i] == 0;
            fluid += f;
            float ad = eddy__keep_float(fabsf(d), f);
            mdf = ad > mdf ? ad : mdf;
            t_div[i] = eddy__keep_float(d * d, f);
            float cu = 0.5f * (uu[i] + uu[i + 1]), cv = 0.5f * (a0[i] + a1[i]);
            float sp2 = cu * cu + cv * cv;
            if (dim == 3) {
                float cw = 0.5f * (b0[i] + b1[i]);
                sp2 += cw * cw;
            }
            sp2 = eddy__keep_float(sp2, f);
            ms = sp2 > ms ? sp2 : ms;
            float x = uu[i], y = a0[i];
            float af = fabsf(x) > fabsf(y) ? fabsf(x) : fabsf(y), e = x * x + y * y;
            if (dim == 3) {
                float z = b0[i];
                af = fabsf(z) > af ? fabsf(z) : af;
                e += z * z;
            }
            mf = af > mf ? af : mf;
            t_e[i] = e;
        }
        /* a solid cell adds +0 to the divergence sum, which leaves it unchanged */
        add_lanes(sd_l, t_div, m);
        add_lanes(e_l, t_e, m);
        if (same_grid) {
            const float *r = dr + i0, *g = dg + i0, *b = db + i0;
#pragma omp simd
            for (int i = 0; i < m; i++) t_dye[i] = r[i] + g[i] + b[i];
            add_lanes(dye_l, t_dye, m);
        }
    }
    double energy = join_lanes(e_l), maxface = mf;
    /* the last x-face repeats the first on a periodic x axis and is left out of the face figures; so are the last
     * y- and z-face rows of a periodic axis */
    if (!s->periodic[0]) {
        energy += (double)(u[n0] * u[n0]);
        maxface = fabsf(u[n0]) > maxface ? fabsf(u[n0]) : maxface;
    }
    if (j == n1 - 1 && !s->periodic[1]) {
        double e = 0, mx = 0;
        face_row(v1, n0, &e, &mx);
        energy += e;
        maxface = mx > maxface ? mx : maxface;
    }
    if (dim == 3 && k == n2 - 1 && !s->periodic[2]) {
        double e = 0, mx = 0;
        face_row(w1, n0, &e, &mx);
        energy += e;
        maxface = mx > maxface ? mx : maxface;
    }
    P[L->maxdiv + row] = mdf;
    P[L->sumdiv2 + row] = join_lanes(sd_l);
    P[L->maxspeed + row] = ms;
    P[L->energy + row] = energy;
    P[L->maxface + row] = maxface;
    /* scalar rows of this cell row when the scalar grid is finer */
    if (same_grid) {
        P[L->dye + row] = join_lanes(dye_l);
    } else {
        const int r1 = s->sn[1] / n1, r2 = s->sn[2] / n2, sn0 = s->sn[0];
        for (int kk = k * r2; kk < (k + 1) * r2; kk++)
            for (int jj = j * r1; jj < (j + 1) * r1; jj++) {
                size_t q = eddy__idx(s->sn, 0, jj, kk), sr = (size_t)jj + (size_t)s->sn[1] * kk;
                P[L->dye + sr] = dye_row(s->dye[0] + q, s->dye[1] + q, s->dye[2] + q, sn0);
            }
    }
    return fluid;
}

/* one exported instance per (dimension, exact reciprocal); most rows of most scenes hold no solid cell, and those
 * skip the mask */
#define DIAG_ROW_INSTANCE(name, dim, mul)                                                                \
    int EDDY_ISA_NAME(name)(const eddy_sim *s, const diag_layout *L, double *P, int j, int k) {          \
        const bool open = all_fluid(s->solid + eddy__idx(s->n, 0, j, k), s->n[0]);                     \
        int fluid = open ? diag_row(s, L, P, j, k, dim, mul, true) : diag_row(s, L, P, j, k, dim, mul, false); \
        EDDY_ISA_LEAVE();                                                                              \
        return fluid;                                                                                  \
    }
DIAG_ROW_INSTANCE(eddy__diag_row_2d_div, 2, false)
DIAG_ROW_INSTANCE(eddy__diag_row_2d_mul, 2, true)
DIAG_ROW_INSTANCE(eddy__diag_row_3d_div, 3, false)
DIAG_ROW_INSTANCE(eddy__diag_row_3d_mul, 3, true)
