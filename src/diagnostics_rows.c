/* The diagnostics of one cell row (j,k), built once per vector width (vector_isa.h; src/avx2/ and src/avx512/ build
 * it again).
 *
 * A row reads its x-faces, the y- and z-face rows around it, its solid mask and (when the scalar grid is the
 * velocity grid) its dye once. Per vector of cells (float_vector.h) the terms are computed in float: the
 * divergence (d = sum of face differences / h), d^2 and |d| over fluid cells, the squared cell-centred speed,
 * the squares of the cell's lower faces u^2 + v^2 + w^2 (each face is the lower face of one cell; the faces past
 * the last cell of an axis are added by the row that owns them) and the largest |face|, R + G + B. Each sum adds
 * its float terms, widened to double, into LANES interleaved partial sums (cell i into lane i % LANES, vd_sums)
 * joined in one fixed tree at the end of the row: the same bits for every vector width and any thread count (a
 * row is never split), and LANES independent chains instead of one serial chain. The three sums are added in the
 * loop that forms their terms (not in loops of their own over a block of terms, which waited on one chain of
 * double adds each: ~1 ns per cell in cache, twice this loop's cost). The float terms carry ~1e-7 relative error
 * each; the sums over a whole grid are in double. */
#include "diagnostics.h"
#include "float_vector.h"

#include <math.h>
#include <string.h>

enum { LANES = 8 };
/* cells per step of the vector loop: a whole number of vectors that starts each step at lane 0 */
enum { SPAN = VF_W >= LANES ? VF_W : LANES };

static inline double join_lanes(const double v[LANES]) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
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
    vd_sums vs = vd_zero();
    for (int i = 0; i < count; i += SPAN) /* a last partial step: its missing lanes add +0 */
        for (int q = 0; q < SPAN && i + q < count; q += VF_W) {
            const int n = count - i - q < VF_W ? count - i - q : VF_W;
            vd_add(&vs, vf_add(vf_add(vf_load_upto(r + i + q, n), vf_load_upto(g + i + q, n)), vf_load_upto(b + i + q, n)),
                   q % LANES);
        }
    double acc[LANES];
    vd_get(&vs, acc);
    return join_lanes(acc);
}

#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif

/* no solid cell (any nonzero byte) in a row of the mask */
static inline bool all_fluid(const uint8_t *mask, int n) {
    uint64_t any = 0;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, mask + i, sizeof word);
        any |= word;
    }
    for (; i < n; i++) any |= mask[i];
    return any == 0;
}

/* a row's inputs and running results */
typedef struct diag_acc {
    vd_sums div2, energy, dye;
    vfloat maxdiv, maxspeed, maxface;
    int fluid;
} diag_acc;
typedef struct diag_in {
    const float *a0, *a1, *b0, *b1, *dr, *dg, *db;
    const uint8_t *solid;
    vfloat h, rh;
} diag_in;

/* the cells [i, i + n) of the row (n <= VF_W; the other lanes are +0 and add +0 to the sums and maxima, which
 * leaves them unchanged), their x-faces u0 (lower) and u1 (upper); dim, mul, open (no solid cell in the row: the
 * mask is not read) and dye (the scalar grid is the velocity grid) constants in each instance */
KERNEL void diag_lanes(const diag_in *p, diag_acc *a, int i, int n, int lane0, vfloat u0, vfloat u1, int dim, bool mul,
                       bool open, bool dye) {
    static const float ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}; /* VF_W <= 16 */
    const vfloat a0 = vf_load_upto(p->a0 + i, n), a1 = vf_load_upto(p->a1 + i, n);
    vfloat b0 = a0, b1 = a0;
    vfloat d = vf_sub(vf_add(vf_sub(u1, u0), a1), a0);
    if (dim == 3) {
        b0 = vf_load_upto(p->b0 + i, n), b1 = vf_load_upto(p->b1 + i, n);
        d = vf_add(d, vf_sub(b1, b0));
    }
    d = mul ? vf_mul(d, p->rh) : vf_div(d, p->h);
    vfloat ad = vf_abs(d), d2 = vf_mul(d, d);
    const vfloat half = vf_set1(0.5f), cu = vf_mul(half, vf_add(u0, u1)), cv = vf_mul(half, vf_add(a0, a1));
    vfloat sp2 = vf_add(vf_mul(cu, cu), vf_mul(cv, cv));
    if (dim == 3) {
        const vfloat cw = vf_mul(half, vf_add(b0, b1));
        sp2 = vf_add(sp2, vf_mul(cw, cw));
    }
    if (!open) {
        const vmask f = vf_keep_mask(vf_load_upto(ones, n), vf_set1(0.0f), p->solid + i, n); /* the n lanes' fluid cells */
        a->fluid += vf_count(f);
        ad = vf_keep(ad, f), d2 = vf_keep(d2, f), sp2 = vf_keep(sp2, f);
    }
    a->maxdiv = vf_max(ad, a->maxdiv);
    vd_add(&a->div2, d2, lane0); /* a solid cell adds +0, which leaves its lane's sum unchanged */
    a->maxspeed = vf_max(sp2, a->maxspeed);
    vfloat af = vf_max(vf_abs(u0), vf_abs(a0)), e = vf_add(vf_mul(u0, u0), vf_mul(a0, a0));
    if (dim == 3) {
        af = vf_max(vf_abs(b0), af);
        e = vf_add(e, vf_mul(b0, b0));
    }
    a->maxface = vf_max(af, a->maxface);
    vd_add(&a->energy, e, lane0);
    if (dye)
        vd_add(&a->dye, vf_add(vf_add(vf_load_upto(p->dr + i, n), vf_load_upto(p->dg + i, n)), vf_load_upto(p->db + i, n)),
               lane0);
}

KERNEL int diag_row(const eddy_sim *s, const diag_layout *L, double *P, int j, int k, int dim, bool mul, bool open) {
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2];
    int fu[3], fv[3], fw[3] = {0, 0, 0};
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    if (dim == 3) eddy__face_dims(s, 2, fw);
    const size_t row = (size_t)j + (size_t)n1 * k;
    const float *u = s->vel[0] + eddy__idx(fu, 0, j, k);
    const float *v0 = s->vel[1] + eddy__idx(fv, 0, j, k), *v1 = s->vel[1] + eddy__idx(fv, 0, j + 1, k);
    const float *w0 = dim == 3 ? s->vel[2] + eddy__idx(fw, 0, j, k) : v0;
    const float *w1 = dim == 3 ? s->vel[2] + eddy__idx(fw, 0, j, k + 1) : v0;
    const uint8_t *solid = s->solid + eddy__idx(s->n, 0, j, k);
    const bool same_grid = s->sn[0] == n0 && s->sn[1] == n1 && s->sn[2] == n2;
    const float *dr = s->dye[0] + row * (size_t)n0, *dg = s->dye[1] + row * (size_t)n0, *db = s->dye[2] + row * (size_t)n0;
    const float h = s->h, rh = 1.0f / h;
    const diag_in in = {v0, v1, w0, w1, dr, dg, db, solid, vf_set1(h), vf_set1(rh)};
    diag_acc a = {vd_zero(), vd_zero(), vd_zero(), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), 0};
    const int full = n0 - n0 % SPAN;
    vf_pairs ur = vf_pairs_of(u); /* u[i], u[i + 1] */
    for (int i = 0; i < full; i += SPAN)
        for (int q = 0; q < SPAN; q += VF_W) {
            vfloat u0, u1;
            vf_pairs_next(&ur, i + q, &u0, &u1);
            if (same_grid) diag_lanes(&in, &a, i + q, VF_W, q % LANES, u0, u1, dim, mul, open, true);
            else diag_lanes(&in, &a, i + q, VF_W, q % LANES, u0, u1, dim, mul, open, false);
        }
    for (int q = 0; full + q < n0; q += VF_W) { /* the cells past the last whole step */
        const int i = full + q, n = n0 - i < VF_W ? n0 - i : VF_W;
        const vfloat u0 = vf_load_upto(u + i, n), u1 = vf_load_upto(u + i + 1, n);
        if (same_grid) diag_lanes(&in, &a, i, n, q % LANES, u0, u1, dim, mul, open, true);
        else diag_lanes(&in, &a, i, n, q % LANES, u0, u1, dim, mul, open, false);
    }
    double sd_l[LANES], e_l[LANES], dye_l[LANES];
    vd_get(&a.div2, sd_l);
    vd_get(&a.energy, e_l);
    vd_get(&a.dye, dye_l);
    const float mdf = vf_hmax(a.maxdiv), ms = vf_hmax(a.maxspeed), mf = vf_hmax(a.maxface); /* no lane is NaN */
    const int fluid = open ? n0 : a.fluid;
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
