/* Advection of the velocity and every scalar:  dq/dt + (u . grad) q = 0,  then dissipation q *= 1/(1 + k dt).
 *
 * Semi-Lagrangian (Stam 1999, "Stable Fluids"): q^{n+1}(x) = q^n(X(x)), X the foot of the characteristic traced
 * back through the start-of-stage velocity with the RK2 midpoint rule, q^n sampled by (bi/tri)linear interpolation.
 * Each face component of the velocity is traced from its own face position (self-advection); dye and temperature
 * are traced from the scalar cell centres, which may sit on a grid finer than the velocity's (dye_scale), and see
 * the velocity interpolated there.
 *
 * Second order in space and time, both from the same semi-Lagrangian operator A (backward) and its reverse A^R
 * (traced forward):
 *   MacCormack (Selle, Fedkiw, Kim, Liu, Rossignac 2008, "An unconditionally stable MacCormack method"):
 *     q^ = A q,  q~ = A^R q^,  q^{n+1} = q^ + (q - q~)/2, reverted to q^ where it leaves the [min,max] of the
 *     2^d nodes of q around the foot X (the paper's limiter);
 *   BFECC (Kim, Liu, Llamas, Rossignac 2005, "FlowFixer: using BFECC for fluid simulation"):
 *     q^ = A q,  q~ = A^R q^,  q^{n+1} = A (q + (q - q~)/2), clamped to the same [min,max] of q around X.
 *
 * The feet X (and the forward points for A^R) are traced once per grid and kept, in the lattice coordinates of
 * that grid, in the workspace; every field on the grid reuses them. The interpolation is written a + w (b - a),
 * which returns constants exactly (a uniform flow stays bit-exact). Work is split over rows (j,k) of each grid and
 * every output element depends only on inputs, so results do not depend on the number of threads. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct eddy_advect_ws {
    size_t cap;      /* elements per buffer: the largest face or scalar grid */
    int buffers;     /* 1: feet only (semi-Lagrangian), 2: + forward points and one field, 3: + a second field */
    float *back[3];  /* foot of the backward trace of each element, lattice coordinates of the grid being advected */
    float *fwd[3];   /* end of the forward trace (the reverse operator A^R) */
    float *tmp[2];   /* intermediate fields of MacCormack / BFECC */
};

/* ---------------------------------------------------------------- interpolation on one lattice */

/* A lattice of samples in index coordinates: sample (i,j,k) sits at coordinate (i,j,k). Coordinates clamp to
 * [0, n-1] on bounded axes and wrap with `wrap` samples on periodic ones, as eddy__sample does (grid.c); this
 * inlined copy works in index coordinates so the hot loops skip the world-to-lattice transform. */
typedef struct lattice {
    const float *d;
    int n[3];
    int wrap[3]; /* period along a periodic axis, 0 on a bounded one */
} lattice;

static lattice make_lattice(const eddy_grid_desc *g) {
    lattice L;
    L.d = g->data;
    for (int b = 0; b < 3; b++) {
        L.n[b] = g->n[b];
        L.wrap[b] = (g->periodic[b] && g->n[b] > 1) ? g->period[b] : 0;
    }
    return L;
}

static inline void locate_axis(int n, int wrap, float x, int *i0, int *i1, float *w) {
    if (wrap) {
        /* NaN, or so far out that float has no fractional part left: any cell is as good as another */
        if (!(fabsf(x) < 8388608.0f)) x = 0.0f;
        float fl = floorf(x);
        int i = (int)fl;
        *w = x - fl;
        if (i < 0 || i >= wrap) i = eddy__wrap(i, wrap);
        *i0 = i;
        *i1 = i + 1 == wrap ? 0 : i + 1;
        return;
    }
    if (n == 1) {
        *i0 = *i1 = 0;
        *w = 0.0f;
        return;
    }
    float hi = (float)(n - 1);
    if (!(x > 0.0f)) x = 0.0f; /* also sends NaN to the edge instead of to an invalid index */
    if (x > hi) x = hi;
    int i = (int)x;
    if (i > n - 2) i = n - 2;
    *i0 = i;
    *i1 = i + 1;
    *w = x - (float)i;
}

static inline float lerp(float a, float b, float w) { return a + w * (b - a); }

static inline float lattice_sample(const lattice *L, float x, float y, float z) {
    int x0, x1, y0, y1;
    float wx, wy;
    locate_axis(L->n[0], L->wrap[0], x, &x0, &x1, &wx);
    locate_axis(L->n[1], L->wrap[1], y, &y0, &y1, &wy);
    size_t nx = (size_t)L->n[0];
    if (L->n[2] == 1) {
        const float *r0 = L->d + (size_t)y0 * nx, *r1 = L->d + (size_t)y1 * nx;
        return lerp(lerp(r0[x0], r0[x1], wx), lerp(r1[x0], r1[x1], wx), wy);
    }
    int z0, z1;
    float wz;
    locate_axis(L->n[2], L->wrap[2], z, &z0, &z1, &wz);
    size_t nxy = nx * (size_t)L->n[1];
    const float *r00 = L->d + (size_t)z0 * nxy + (size_t)y0 * nx, *r10 = L->d + (size_t)z0 * nxy + (size_t)y1 * nx;
    const float *r01 = L->d + (size_t)z1 * nxy + (size_t)y0 * nx, *r11 = L->d + (size_t)z1 * nxy + (size_t)y1 * nx;
    float c0 = lerp(lerp(r00[x0], r00[x1], wx), lerp(r10[x0], r10[x1], wx), wy);
    float c1 = lerp(lerp(r01[x0], r01[x1], wx), lerp(r11[x0], r11[x1], wx), wy);
    return lerp(c0, c1, wz);
}

/* min and max of the 2^d samples around (x,y,z): the range the limiter allows */
static inline void lattice_minmax(const lattice *L, float x, float y, float z, float *lo, float *hi) {
    int x0, x1, y0, y1, z0 = 0, z1 = 0;
    float wx, wy, wz;
    locate_axis(L->n[0], L->wrap[0], x, &x0, &x1, &wx);
    locate_axis(L->n[1], L->wrap[1], y, &y0, &y1, &wy);
    if (L->n[2] > 1) locate_axis(L->n[2], L->wrap[2], z, &z0, &z1, &wz);
    size_t nx = (size_t)L->n[0], nxy = nx * (size_t)L->n[1];
    int zs[2] = {z0, z1}, kn = L->n[2] > 1 ? 2 : 1;
    float mn = INFINITY, mx = -INFINITY;
    for (int kk = 0; kk < kn; kk++) {
        const float *r0 = L->d + (size_t)zs[kk] * nxy + (size_t)y0 * nx, *r1 = L->d + (size_t)zs[kk] * nxy + (size_t)y1 * nx;
        float v[4] = {r0[x0], r0[x1], r1[x0], r1[x1]};
        for (int q = 0; q < 4; q++) {
            mn = v[q] < mn ? v[q] : mn;
            mx = v[q] > mx ? v[q] : mx;
        }
    }
    *lo = mn;
    *hi = mx;
}

/* ---------------------------------------------------------------- tracing */

/* The grid being advected: its element (i,j,k) sits at velocity-cell coordinate P = ((i,j,k) + off) / scale,
 * where P = (world - origin) / h (so velocity cell c spans [c, c+1)). Face grids have scale 1; the scalar grid
 * has scale dye_scale. Lattice coordinates of the grid are P * scale - off. */
typedef struct grid_map {
    int n[3];
    float off[3];
    float scale[3];
} grid_map;

/* velocity at velocity-cell coordinate P, m/s, from the start-of-stage faces */
static inline void velocity_at(const lattice V[3], int dim, const float P[3], float u[3]) {
    u[0] = lattice_sample(&V[0], P[0], P[1] - 0.5f, P[2] - 0.5f);
    u[1] = lattice_sample(&V[1], P[0] - 0.5f, P[1], P[2] - 0.5f);
    u[2] = dim == 3 ? lattice_sample(&V[2], P[0] - 0.5f, P[1] - 0.5f, P[2]) : 0.0f;
}

/* Traces every element of grid m back (and forward, when ws->fwd is wanted) through the velocity by RK2
 * midpoint steps of dt; dtc = dt / h converts m/s into cells. */
static void trace_grid(eddy_sim *s, const grid_map *m, const lattice V[3], float dtc, bool forward) {
    eddy_advect_ws *ws = s->advect;
    const int dim = s->dim;
    const int rows = m->n[1] * m->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % m->n[1], k = row / m->n[1];
        size_t e = (size_t)row * (size_t)m->n[0];
        float P[3], Q[3], u1[3], u2[3];
        P[1] = ((float)j + m->off[1]) / m->scale[1];
        P[2] = ((float)k + m->off[2]) / m->scale[2];
        for (int i = 0; i < m->n[0]; i++, e++) {
            P[0] = ((float)i + m->off[0]) / m->scale[0];
            velocity_at(V, dim, P, u1);
            for (int b = 0; b < 3; b++) Q[b] = P[b] - 0.5f * dtc * u1[b];
            velocity_at(V, dim, Q, u2);
            for (int b = 0; b < dim; b++) ws->back[b][e] = (P[b] - dtc * u2[b]) * m->scale[b] - m->off[b];
            if (!forward) continue;
            for (int b = 0; b < 3; b++) Q[b] = P[b] + 0.5f * dtc * u1[b];
            velocity_at(V, dim, Q, u2);
            for (int b = 0; b < dim; b++) ws->fwd[b][e] = (P[b] + dtc * u2[b]) * m->scale[b] - m->off[b];
        }
    }
}

/* ---------------------------------------------------------------- one field */

static inline float at(float *const pos[3], size_t e, int b) { return pos[b] ? pos[b][e] : 0.0f; }

/* out = A(src) (sampled at the feet), scaled by `factor` */
static void pass_backward(eddy_sim *s, const grid_map *m, const lattice *src, float *out, float factor) {
    eddy_advect_ws *ws = s->advect;
    const int rows = m->n[1] * m->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)m->n[0], end = e + (size_t)m->n[0];
        for (; e < end; e++)
            out[e] = factor * lattice_sample(src, ws->back[0][e], ws->back[1][e], at(ws->back, e, 2));
    }
}

/* MacCormack second pass: out = factor * limit(q^ + (q - A^R q^)/2) */
static void pass_maccormack(eddy_sim *s, const grid_map *m, const lattice *src, const lattice *fwd_field, float *out,
                            float factor) {
    eddy_advect_ws *ws = s->advect;
    const float *q = src->d, *qhat = fwd_field->d;
    const int rows = m->n[1] * m->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)m->n[0], end = e + (size_t)m->n[0];
        for (; e < end; e++) {
            float back = lattice_sample(fwd_field, ws->fwd[0][e], ws->fwd[1][e], at(ws->fwd, e, 2));
            float v = qhat[e] + 0.5f * (q[e] - back);
            float lo, hi;
            lattice_minmax(src, ws->back[0][e], ws->back[1][e], at(ws->back, e, 2), &lo, &hi);
            if (v < lo || v > hi) v = qhat[e]; /* revert to the semi-Lagrangian value (Selle et al. 2008, sec. 4) */
            out[e] = factor * v;
        }
    }
}

/* BFECC middle pass: corrected = q + (q - A^R q^)/2 */
static void pass_bfecc_correct(eddy_sim *s, const grid_map *m, const float *q, const lattice *fwd_field, float *corrected) {
    eddy_advect_ws *ws = s->advect;
    const int rows = m->n[1] * m->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)m->n[0], end = e + (size_t)m->n[0];
        for (; e < end; e++) {
            float back = lattice_sample(fwd_field, ws->fwd[0][e], ws->fwd[1][e], at(ws->fwd, e, 2));
            corrected[e] = q[e] + 0.5f * (q[e] - back);
        }
    }
}

/* BFECC last pass: out = factor * clamp(A(corrected), min/max of q around the foot) */
static void pass_bfecc_final(eddy_sim *s, const grid_map *m, const lattice *src, const lattice *corrected, float *out,
                             float factor) {
    eddy_advect_ws *ws = s->advect;
    const int rows = m->n[1] * m->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)m->n[0], end = e + (size_t)m->n[0];
        for (; e < end; e++) {
            float x = ws->back[0][e], y = ws->back[1][e], z = at(ws->back, e, 2);
            float v = lattice_sample(corrected, x, y, z);
            float lo, hi;
            lattice_minmax(src, x, y, z, &lo, &hi);
            v = v < lo ? lo : (v > hi ? hi : v);
            out[e] = factor * v;
        }
    }
}

/* Advects one field `src` (described by g) into `out` with the scheme of the simulation; the grid has been
 * traced already. */
static void advect_field(eddy_sim *s, const grid_map *m, const eddy_grid_desc *g, float *out, float factor) {
    eddy_advect_ws *ws = s->advect;
    lattice src = make_lattice(g);
    switch (s->def.advection) {
    case EDDY_ADVECT_SEMI_LAGRANGIAN: pass_backward(s, m, &src, out, factor); return;
    case EDDY_ADVECT_MACCORMACK: {
        lattice qhat = src;
        qhat.d = ws->tmp[0];
        pass_backward(s, m, &src, ws->tmp[0], 1.0f);
        pass_maccormack(s, m, &src, &qhat, out, factor);
        return;
    }
    case EDDY_ADVECT_BFECC: {
        lattice qhat = src, corrected = src;
        qhat.d = ws->tmp[0];
        corrected.d = ws->tmp[1];
        pass_backward(s, m, &src, ws->tmp[0], 1.0f);
        pass_bfecc_correct(s, m, src.d, &qhat, ws->tmp[1]);
        pass_bfecc_final(s, m, &src, &corrected, out, factor);
        return;
    }
    }
}

/* true when every value is exactly zero: such a field stays zero under advection and dissipation */
static bool field_is_zero(eddy_sim *s, const float *q, size_t count) {
    int nonzero = 0;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(| : nonzero)
    for (size_t i = 0; i < count; i++) nonzero |= q[i] != 0.0f;
    return !nonzero;
}

/* ---------------------------------------------------------------- workspace */

static int buffers_for(eddy_advection scheme) {
    return scheme == EDDY_ADVECT_SEMI_LAGRANGIAN ? 1 : (scheme == EDDY_ADVECT_MACCORMACK ? 2 : 3);
}

/* Allocates what the scheme needs; called at creation (and again only if the scheme needs more buffers). */
static eddy_status ensure_workspace(eddy_sim *s) {
    eddy_advect_ws *ws = s->advect;
    int want = buffers_for(s->def.advection);
    if (ws->buffers >= want) return EDDY_OK;
    size_t cap = ws->cap;
    bool ok = true;
    for (int b = 0; b < s->dim; b++) {
        if (!ws->back[b]) ok = ok && (ws->back[b] = (float *)malloc(cap * sizeof(float)));
        if (want >= 2 && !ws->fwd[b]) ok = ok && (ws->fwd[b] = (float *)malloc(cap * sizeof(float)));
    }
    if (want >= 2 && !ws->tmp[0]) ok = ok && (ws->tmp[0] = (float *)malloc(cap * sizeof(float)));
    if (want >= 3 && !ws->tmp[1]) ok = ok && (ws->tmp[1] = (float *)malloc(cap * sizeof(float)));
    if (!ok)
        return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "advection: out of memory for %d work buffers of %zu floats",
                          want == 1 ? s->dim : (want == 2 ? 2 * s->dim + 1 : 2 * s->dim + 2), cap);
    ws->buffers = want;
    return EDDY_OK;
}

eddy_status eddy__advect_init(eddy_sim *s) {
    s->advect = (eddy_advect_ws *)calloc(1, sizeof *s->advect);
    if (!s->advect) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "advection: out of memory");
    size_t cap = s->nscalar;
    for (int a = 0; a < s->dim; a++) cap = s->nface[a] > cap ? s->nface[a] : cap;
    s->advect->cap = cap;
    return ensure_workspace(s);
}

void eddy__advect_free(eddy_sim *s) {
    eddy_advect_ws *ws = s->advect;
    if (!ws) return;
    for (int b = 0; b < 3; b++) {
        free(ws->back[b]);
        free(ws->fwd[b]);
    }
    free(ws->tmp[0]);
    free(ws->tmp[1]);
    free(ws);
    s->advect = NULL;
}

static float decay_factor(float k, float dt) { return 1.0f / (1.0f + k * dt); }

eddy_status eddy__advect(eddy_sim *s, float dt) {
    if (!s->advect) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "advection: workspace missing (simulation not created?)");
    eddy_status st = ensure_workspace(s);
    if (st != EDDY_OK) return st;
    const int dim = s->dim;
    const bool forward = s->def.advection != EDDY_ADVECT_SEMI_LAGRANGIAN;
    const float dtc = dt / s->h;

    lattice V[3];
    memset(V, 0, sizeof V);
    for (int a = 0; a < dim; a++) {
        eddy_grid_desc g = eddy__velocity_desc(s, a, s->vel[a]);
        V[a] = make_lattice(&g);
    }

    /* velocity: every component traced through the start-of-stage velocity, written to vel_tmp, swapped at the end */
    const float fv = decay_factor(s->def.velocity_dissipation, dt);
    for (int a = 0; a < dim; a++) {
        eddy_grid_desc g = eddy__velocity_desc(s, a, s->vel[a]);
        grid_map m;
        for (int b = 0; b < 3; b++) {
            m.n[b] = g.n[b];
            m.off[b] = g.off[b];
            m.scale[b] = 1.0f;
        }
        trace_grid(s, &m, V, dtc, forward);
        advect_field(s, &m, &g, s->vel_tmp[a], fv);
    }

    /* scalars: one trace of the scalar grid serves dye and temperature */
    float *scalars[4] = {s->dye[0], s->dye[1], s->dye[2], s->temperature};
    float fd = decay_factor(s->def.dye_dissipation, dt), ft = decay_factor(s->def.temperature_dissipation, dt);
    bool traced = false;
    grid_map m;
    for (int b = 0; b < 3; b++) {
        m.n[b] = s->sn[b];
        m.off[b] = 0.5f;
        m.scale[b] = (float)s->def.dye_scale[b];
    }
    for (int f = 0; f < 4; f++) {
        if (field_is_zero(s, scalars[f], s->nscalar)) continue;
        if (!traced) {
            trace_grid(s, &m, V, dtc, forward);
            traced = true;
        }
        eddy_grid_desc g = eddy__scalar_desc(s, scalars[f]);
        advect_field(s, &m, &g, s->scalar_tmp, f < 3 ? fd : ft);
        /* the old field becomes the scratch for the next one */
        float *old = scalars[f];
        if (f < 3) s->dye[f] = s->scalar_tmp;
        else s->temperature = s->scalar_tmp;
        s->scalar_tmp = old;
    }

    for (int a = 0; a < dim; a++) {
        float *t = s->vel[a];
        s->vel[a] = s->vel_tmp[a];
        s->vel_tmp[a] = t;
    }
    return EDDY_OK;
}
