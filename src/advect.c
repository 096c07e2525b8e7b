/* Advection of the velocity and every scalar:  dq/dt + (u . grad) q = 0,  then dissipation q *= 1/(1 + k dt).
 *
 * Semi-Lagrangian (Stam 1999, "Stable Fluids"): q^{n+1}(x) = q^n(X(x)), X the foot of the characteristic traced
 * back through the start-of-stage velocity with the RK2 midpoint rule, q^n sampled by (bi/tri)linear interpolation.
 * Each face component of the velocity is traced from its own face position (self-advection); dye and temperature
 * are traced from the scalar cell centres, which may sit on a grid finer than the velocity's (dye_scale), and see
 * the velocity interpolated there.
 *
 * Two second-order schemes (in space and time), both built from the semi-Lagrangian operator A (backward) and its
 * reverse A^R (traced forward):
 *   MacCormack (Selle, Fedkiw, Kim, Liu, Rossignac 2008, "An unconditionally stable MacCormack method"):
 *     q^ = A q,  q~ = A^R q^,  q^{n+1} = q^ + (q - q~)/2, reverted to q^ where it leaves the [min,max] of the
 *     2^d nodes of q around the foot X (the paper's limiter);
 *   BFECC (Kim, Liu, Llamas, Rossignac 2005, "FlowFixer: using BFECC for fluid simulation"):
 *     q^ = A q,  q~ = A^R q^,  q^{n+1} = A (q + (q - q~)/2), clamped to the same [min,max] of q around X.
 *
 * The feet X (and the forward points for A^R) are traced once per grid and kept, in the lattice coordinates of
 * that grid, in the workspace; every field on the grid reuses them. The first RK2 stage reads the velocity at the
 * element straight from the faces around it; the midpoints are sampled. The interpolation is written a + w (b - a),
 * which returns constants exactly (a uniform flow stays bit-exact). Work is split over rows (j,k) of each grid and
 * every output element depends only on inputs, so results do not depend on the number of threads. CPUs with AVX2
 * run the trace and the passes 8 elements at a time (gathered nodes; 2D and 3D, bounded and periodic axes), with
 * the same operations per element as the scalar code, hence the same bits (vector_isa.h). */
#include "sim_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct eddy_advect_ws {
    size_t cap;      /* elements per buffer: the largest face or scalar grid */
    float *back;     /* foot of the backward trace of each element, lattice coordinates of the grid being advected,
                        dim floats per element (interleaved: one stream to read rather than dim) */
    float *fwd;      /* end of the forward trace (the reverse operator A^R), the same layout */
    float *tmp[3];   /* intermediate fields of MacCormack / BFECC */
};

/* ---------------------------------------------------------------- interpolation on one lattice */

/* A lattice of samples in index coordinates: sample (i,j,k) sits at coordinate (i,j,k). Coordinates clamp to
 * [0, n-1] on bounded axes and wrap with `wrap` samples on periodic ones, as eddy__sample does (grid.c); this
 * inlined copy works in index coordinates so the hot loops skip the world-to-lattice transform. */
typedef struct lattice {
    const float *d;
    int n[3];
    int wrap[3];   /* period along a periodic axis, 0 on a bounded one */
    int last[3];   /* n - 2: the highest lower node of a bounded axis */
    float top[3];  /* n - 1: the highest coordinate of a bounded axis */
    size_t nx, nxy; /* strides of y and z */
} lattice;

static lattice make_lattice(const eddy_grid_desc *g) {
    lattice L;
    L.d = g->data;
    for (int b = 0; b < 3; b++) {
        L.n[b] = g->n[b];
        L.wrap[b] = (g->periodic[b] && g->n[b] > 1) ? g->period[b] : 0;
        L.last[b] = g->n[b] - 2;
        L.top[b] = (float)(g->n[b] - 1);
    }
    L.nx = (size_t)g->n[0];
    L.nxy = L.nx * (size_t)g->n[1];
    return L;
}

#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

HOT void locate_axis(const lattice *L, int b, bool may_wrap, float x, int *i0, int *i1, float *w) {
    const int wrap = may_wrap ? L->wrap[b] : 0;
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
    if (x > 0.0f && x < L->top[b]) { /* inside: the clamps below would change nothing */
        int i = (int)x;
        *i0 = i;
        *i1 = i + 1;
        *w = x - (float)i;
        return;
    }
    if (!(x > 0.0f)) x = 0.0f; /* also sends NaN to the edge instead of to an invalid index */
    if (x > L->top[b]) x = L->top[b];
    int i = (int)x;
    if (i > L->last[b]) i = L->last[b];
    *i0 = i;
    *i1 = i + 1;
    *w = x - (float)i;
}

HOT float lerp(float a, float b, float w) { return a + w * (b - a); }

/* The 2^d nodes around a point and its weights, for any array laid out like the lattice. `dim` is a constant at
 * every call site (the passes are instantiated for 2 and 3), so the 2D code carries no z work. */
typedef struct stencil {
    size_t x0, x1;          /* x indices */
    size_t r00, r10, r01, r11; /* offsets of the rows (y0,z0), (y1,z0), (y0,z1), (y1,z1) */
    float wx, wy, wz;
} stencil;

HOT void locate_w(const lattice *L, int dim, bool may_wrap, float x, float y, float z, stencil *st) {
    int x0, x1, y0, y1;
    locate_axis(L, 0, may_wrap, x, &x0, &x1, &st->wx);
    locate_axis(L, 1, may_wrap, y, &y0, &y1, &st->wy);
    const size_t nx = L->nx;
    st->x0 = (size_t)x0;
    st->x1 = (size_t)x1;
    st->r00 = (size_t)y0 * nx;
    st->r10 = (size_t)y1 * nx;
    if (dim == 3) {
        int z0, z1;
        locate_axis(L, 2, may_wrap, z, &z0, &z1, &st->wz);
        const size_t nxy = L->nxy;
        st->r01 = st->r00 + (size_t)z1 * nxy;
        st->r11 = st->r10 + (size_t)z1 * nxy;
        st->r00 += (size_t)z0 * nxy;
        st->r10 += (size_t)z0 * nxy;
    }
}

HOT void locate(const lattice *L, int dim, float x, float y, float z, stencil *st) {
    locate_w(L, dim, true, x, y, z, st);
}

/* Two node layouts: "pair" stencils (x1 == x0 + 1, every stencil of a lattice without a wrapping axis, and most of
 * the others) load each row's two nodes at once, and SSE computes the x-lerps of all rows (and the y-lerps of both
 * z-layers) lane by lane. Every lane does the scalar code's operations on the same operands in the same order,
 * and SSE single-precision arithmetic is the scalar arithmetic, so both paths give the same bits. */
#if defined(__SSE2__)
#define EDDY_ADVECT_SSE 1
#include <emmintrin.h>

/* [row r00: x0, x1, row r10: x0, x1] and [row r01: x0, x1, row r11: x0, x1] -> x0 nodes and x1 nodes, lanes in the
 * row order r00, r10, r01, r11 */
HOT void load_pairs(const stencil *st, int dim, const float *d, __m128 *x0, __m128 *x1) {
    const float *p = d + st->x0;
    __m128 lo = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(p + st->r00)), (const __m64 *)(p + st->r10));
    __m128 hi = dim == 3 ? _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(p + st->r01)), (const __m64 *)(p + st->r11))
                         : lo;
    *x0 = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    *x1 = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}

HOT __m128 lerp4(__m128 a, __m128 b, __m128 w) { return _mm_add_ps(a, _mm_mul_ps(w, _mm_sub_ps(b, a))); }

HOT float pair_sample(const stencil *st, int dim, const float *d) {
    __m128 a, b;
    load_pairs(st, dim, d, &a, &b);
    __m128 c = lerp4(a, b, _mm_set1_ps(st->wx)); /* c00, c10, c01, c11 */
    if (dim == 2) {
        float c00 = _mm_cvtss_f32(c), c10 = _mm_cvtss_f32(_mm_shuffle_ps(c, c, _MM_SHUFFLE(1, 1, 1, 1)));
        return lerp(c00, c10, st->wy);
    }
    __m128 y0 = _mm_shuffle_ps(c, c, _MM_SHUFFLE(2, 0, 2, 0)), y1 = _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 1, 3, 1));
    __m128 e = lerp4(y0, y1, _mm_set1_ps(st->wy)); /* c0, c1 */
    return lerp(_mm_cvtss_f32(e), _mm_cvtss_f32(_mm_shuffle_ps(e, e, _MM_SHUFFLE(1, 1, 1, 1))), st->wz);
}
#endif

HOT float stencil_sample(const stencil *st, int dim, const float *d) {
#if defined(EDDY_ADVECT_SSE)
    if (dim == 3 && st->x1 == st->x0 + 1) return pair_sample(st, dim, d); /* in 2D the scalar code is as short */
#endif
    float c0 = lerp(lerp(d[st->r00 + st->x0], d[st->r00 + st->x1], st->wx),
                    lerp(d[st->r10 + st->x0], d[st->r10 + st->x1], st->wx), st->wy);
    if (dim == 2) return c0;
    float c1 = lerp(lerp(d[st->r01 + st->x0], d[st->r01 + st->x1], st->wx),
                    lerp(d[st->r11 + st->x0], d[st->r11 + st->x1], st->wx), st->wy);
    return lerp(c0, c1, st->wz);
}

HOT float min2(float a, float b) { return a < b ? a : b; }
HOT float max2(float a, float b) { return a > b ? a : b; }

/* min and max of the 2^d nodes: the range the limiters allow. The SSE path keeps the scalar tree (pairs along x,
 * then rows, then layers; MINPS/MAXPS pick their operands as min2/max2 do), so even the sign of a zero agrees. */
HOT void stencil_minmax(const stencil *st, int dim, const float *d, float *lo, float *hi) {
#if defined(EDDY_ADVECT_SSE)
    if (dim == 3 && st->x1 == st->x0 + 1) {
        __m128 a, b;
        load_pairs(st, dim, d, &a, &b);
        __m128 mn = _mm_min_ps(a, b), mx = _mm_max_ps(a, b); /* per row */
        /* rows r00 r10 -> lane 0, rows r01 r11 -> lane 1 */
        mn = _mm_min_ps(_mm_shuffle_ps(mn, mn, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(mn, mn, _MM_SHUFFLE(3, 1, 3, 1)));
        mx = _mm_max_ps(_mm_shuffle_ps(mx, mx, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(mx, mx, _MM_SHUFFLE(3, 1, 3, 1)));
        if (dim == 3) {
            mn = _mm_min_ss(mn, _mm_shuffle_ps(mn, mn, _MM_SHUFFLE(1, 1, 1, 1)));
            mx = _mm_max_ss(mx, _mm_shuffle_ps(mx, mx, _MM_SHUFFLE(1, 1, 1, 1)));
        }
        *lo = _mm_cvtss_f32(mn);
        *hi = _mm_cvtss_f32(mx);
        return;
    }
#endif
    float a = d[st->r00 + st->x0], b = d[st->r00 + st->x1], c = d[st->r10 + st->x0], e = d[st->r10 + st->x1];
    float mn = min2(min2(a, b), min2(c, e)), mx = max2(max2(a, b), max2(c, e));
    if (dim == 3) {
        a = d[st->r01 + st->x0], b = d[st->r01 + st->x1], c = d[st->r11 + st->x0], e = d[st->r11 + st->x1];
        mn = min2(mn, min2(min2(a, b), min2(c, e)));
        mx = max2(mx, max2(max2(a, b), max2(c, e)));
    }
    *lo = mn;
    *hi = mx;
}

HOT float lattice_sample(const lattice *L, int dim, bool may_wrap, float x, float y, float z) {
    stencil st;
    locate_w(L, dim, may_wrap, x, y, z, &st);
    return stencil_sample(&st, dim, L->d);
}

/* ---------------------------------------------------------------- tracing */

/* The grid being advected: its element (i,j,k) sits at velocity-cell coordinate P = ((i,j,k) + off) / scale,
 * where P = (world - origin) / h (so velocity cell c spans [c, c+1)). Face grids have scale 1; the scalar grid
 * has scale dye_scale. Lattice coordinates of the grid are P * scale - off. */
typedef struct grid_map {
    int n[3];
    float off[3];
    float scale[3];
    int face;        /* velocity component whose faces these are, or -1 for the scalar grid */
    bool unit_scale; /* scalar grid with the velocity's cells (dye_scale 1 on every axis) */
} grid_map;

/* velocity at velocity-cell coordinate P, m/s, from the start-of-stage faces */
HOT void velocity_at(const lattice V[3], int dim, bool may_wrap, const float P[3], float u[3]) {
    u[0] = lattice_sample(&V[0], dim, may_wrap, P[0], P[1] - 0.5f, P[2] - 0.5f);
    u[1] = lattice_sample(&V[1], dim, may_wrap, P[0] - 0.5f, P[1], P[2] - 0.5f);
    u[2] = dim == 3 ? lattice_sample(&V[2], dim, may_wrap, P[0] - 0.5f, P[1] - 0.5f, P[2]) : 0.0f;
}

/* Velocity at the element (i,j,k) itself, read from the faces around it without locating: on face grid a the
 * component a is the face value and the others the mean of the 4 faces around; on a scalar grid of
 * scale 1 each component is the mean of the two faces of the cell. Same clamping and wrapping as the lattice
 * sampler (a clamped half-cell offset lands on the edge node). */
HOT size_t node(const lattice *L, int i, int j, int k) {
    return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

HOT void face_node_velocity(const lattice V[3], int dim, int a, const int c[3], float u[3]) {
    u[2] = 0.0f;
    for (int b = 0; b < dim; b++) {
        const lattice *L = &V[b];
        if (b == a) {
            /* on a periodic axis face n repeats face 0, and the sampler reads face 0 */
            int w[3] = {c[0], c[1], c[2]};
            if (L->wrap[a] && w[a] == L->wrap[a]) w[a] = 0;
            u[b] = L->d[node(L, w[0], w[1], w[2])];
            continue;
        }
        /* along a: the cells on both sides of the face (a clamped or wrapped neighbour); along b: the two faces */
        int lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
        int na = L->n[a];
        lo[a] = c[a] - 1;
        if (lo[a] < 0) lo[a] = L->wrap[a] ? na - 1 : 0;
        if (hi[a] > na - 1) hi[a] = L->wrap[a] ? 0 : na - 1;
        int lo_b[3] = {lo[0], lo[1], lo[2]}, hi_b[3] = {hi[0], hi[1], hi[2]};
        lo_b[b]++;
        hi_b[b]++;
        if (L->wrap[b] && lo_b[b] == L->wrap[b]) lo_b[b] = hi_b[b] = 0; /* face n repeats face 0 */
        float v0 = lerp(L->d[node(L, lo[0], lo[1], lo[2])], L->d[node(L, hi[0], hi[1], hi[2])], 0.5f);
        float v1 = lerp(L->d[node(L, lo_b[0], lo_b[1], lo_b[2])], L->d[node(L, hi_b[0], hi_b[1], hi_b[2])], 0.5f);
        u[b] = lerp(v0, v1, 0.5f);
    }
}

HOT void cell_node_velocity(const lattice V[3], int dim, const int c[3], float u[3]) {
    u[2] = 0.0f;
    for (int b = 0; b < dim; b++) {
        const lattice *L = &V[b];
        int w[3] = {c[0], c[1], c[2]};
        w[b]++;
        if (L->wrap[b] && w[b] == L->wrap[b]) w[b] = 0; /* face n repeats face 0 */
        u[b] = lerp(L->d[node(L, c[0], c[1], c[2])], L->d[node(L, w[0], w[1], w[2])], 0.5f);
    }
}

/* The same two readers without clamping or wrapping, for the elements where none applies (row_interior): p is
 * the element's node index on each lattice, st the strides of the lattices' axes. */
HOT size_t stride_of(const lattice *L, int b) { return b == 0 ? 1 : (b == 1 ? L->nx : L->nxy); }

HOT void face_node_velocity_inside(const lattice V[3], int dim, int a, const size_t p[3], float u[3]) {
    u[2] = 0.0f;
    for (int b = 0; b < dim; b++) {
        const float *d = V[b].d + p[b];
        if (b == a) {
            u[b] = d[0];
            continue;
        }
        const size_t sa = stride_of(&V[b], a), sb = stride_of(&V[b], b);
        float v0 = lerp(d[-(ptrdiff_t)sa], d[0], 0.5f);
        float v1 = lerp(d[sb - sa], d[sb], 0.5f);
        u[b] = lerp(v0, v1, 0.5f);
    }
}

HOT void cell_node_velocity_inside(const lattice V[3], int dim, const size_t p[3], float u[3]) {
    u[2] = 0.0f;
    for (int b = 0; b < dim; b++) u[b] = lerp(V[b].d[p[b]], V[b].d[p[b] + stride_of(&V[b], b)], 0.5f);
}

/* Range [lo, hi) of x indices on row (j,k) of grid m where the readers above apply, hi <= lo when none does:
 * no neighbour needs clamping (the cells beside a face along its axis exist) or wrapping (face n repeats face 0). */
static void row_interior(const lattice V[3], int dim, const grid_map *m, int j, int k, int *lo, int *hi) {
    int c[3] = {0, j, k};
    int first = 0, end = m->n[0];
    if (m->face < 0 && !m->unit_scale) {
        *lo = *hi = 0;
        return;
    }
    for (int b = 0; b < dim; b++) {
        /* along b: the face one up from the element must not be the repeated face (component b's lattice) */
        if (b == m->face) continue; /* the face's own component is read at the element itself */
        int wrap = V[b].wrap[b];
        int ok_hi = wrap ? wrap - 1 : m->n[b]; /* c[b] < ok_hi */
        if (b == 0) end = end < ok_hi ? end : ok_hi;
        else if (c[b] >= ok_hi) end = 0;
    }
    if (m->face >= 0) {
        const int a = m->face;
        const int cells = V[a == 0 ? 1 : 0].n[a]; /* cells along a */
        /* c[a] - 1 >= 0 and c[a] <= cells - 1 */
        if (a == 0) {
            first = first > 1 ? first : 1;
            end = end < cells ? end : cells;
        } else if (c[a] < 1 || c[a] > cells - 1) end = 0;
    }
    *lo = first;
    *hi = end;
}

HOT void trace_row(eddy_advect_ws *ws, const grid_map *m, const lattice V[3], float dtc, bool forward, int row,
                   int dim, bool may_wrap) {
    int j = row % m->n[1], k = row / m->n[1];
    size_t e = (size_t)row * (size_t)m->n[0];
    float P[3], Q[3], u1[3], u2[3];
    P[1] = ((float)j + m->off[1]) / m->scale[1];
    P[2] = ((float)k + m->off[2]) / m->scale[2];
    int in_lo, in_hi;
    row_interior(V, dim, m, j, k, &in_lo, &in_hi);
    size_t p[3] = {0, 0, 0}; /* node index of (0,j,k) on each velocity lattice */
    for (int b = 0; b < dim; b++) p[b] = node(&V[b], 0, j, k);
    for (int i = 0; i < m->n[0]; i++, e++) {
        P[0] = ((float)i + m->off[0]) / m->scale[0];
        int c[3] = {i, j, k};
        if (i >= in_lo && i < in_hi) {
            size_t pi[3] = {p[0] + (size_t)i, p[1] + (size_t)i, p[2] + (size_t)i};
            if (m->face >= 0) face_node_velocity_inside(V, dim, m->face, pi, u1);
            else cell_node_velocity_inside(V, dim, pi, u1);
        } else if (m->face >= 0) face_node_velocity(V, dim, m->face, c, u1);
        else if (m->unit_scale) cell_node_velocity(V, dim, c, u1);
        else velocity_at(V, dim, may_wrap, P, u1);
        Q[2] = P[2];
        for (int b = 0; b < dim; b++) Q[b] = P[b] - 0.5f * dtc * u1[b];
        velocity_at(V, dim, may_wrap, Q, u2);
        for (int b = 0; b < dim; b++) ws->back[(size_t)dim * e + (size_t)b] = (P[b] - dtc * u2[b]) * m->scale[b] - m->off[b];
        if (!forward) continue;
        for (int b = 0; b < dim; b++) Q[b] = P[b] + 0.5f * dtc * u1[b];
        velocity_at(V, dim, may_wrap, Q, u2);
        for (int b = 0; b < dim; b++) ws->fwd[(size_t)dim * e + (size_t)b] = (P[b] + dtc * u2[b]) * m->scale[b] - m->off[b];
    }
}

/* ---------------------------------------------------------------- one field */

/* The per-element work of each pass, instantiated for 2D and 3D. Positions are lattice coordinates. */
enum pass_kind {
    PASS_BACKWARD,       /* out = factor * A q                                             (semi-Lagrangian, step 1) */
    PASS_BACKWARD_RANGE, /* out = A q, and the min/max of q around the foot into lo, hi      (MacCormack step 1) */
    PASS_MACCORMACK,     /* out = factor * limit(q^ + (q - A^R q^)/2), reverting to q^      (MacCormack step 2) */
    PASS_BFECC_CORRECT,  /* out = q + (q - A^R q^)/2                                         (BFECC step 2) */
    PASS_BFECC_FINAL     /* out = factor * clamp(A corrected, min/max of q around the foot)  (BFECC step 3) */
};

typedef struct pass_args {
    const lattice *L;    /* geometry of the grid (all fields of a pass share it) */
    const float *q;      /* the field at the start of the stage */
    const float *aux;    /* q^ (MacCormack, BFECC correct) or the corrected field (BFECC final) */
    float *out;
    float factor;
    float *lo, *hi;      /* the limiter's range at each foot (MacCormack) */
} pass_args;

HOT void pass_row(const eddy_advect_ws *ws, const pass_args *pa, enum pass_kind kind, size_t e, size_t end, int dim) {
    stencil st;
    float lo, hi;
    for (; e < end; e++) {
        /* the forward buffer exists only for the two-way schemes */
        const float *bk = ws->back + (size_t)dim * e;
        const float *fw = kind == PASS_MACCORMACK || kind == PASS_BFECC_CORRECT ? ws->fwd + (size_t)dim * e : NULL;
        switch (kind) {
        case PASS_BACKWARD:
            locate(pa->L, dim, bk[0], bk[1], dim == 3 ? bk[2] : 0.0f, &st);
            pa->out[e] = pa->factor * stencil_sample(&st, dim, pa->q);
            break;
        case PASS_BACKWARD_RANGE:
            /* the range comes from the same 2^d nodes as the sample: kept for step 2 rather than located again */
            locate(pa->L, dim, bk[0], bk[1], dim == 3 ? bk[2] : 0.0f, &st);
            pa->out[e] = stencil_sample(&st, dim, pa->q);
            stencil_minmax(&st, dim, pa->q, &pa->lo[e], &pa->hi[e]);
            break;
        case PASS_MACCORMACK: {
            locate(pa->L, dim, fw[0], fw[1], dim == 3 ? fw[2] : 0.0f, &st);
            float qhat = pa->aux[e];
            float v = qhat + 0.5f * (pa->q[e] - stencil_sample(&st, dim, pa->aux));
            if (v < pa->lo[e] || v > pa->hi[e]) v = qhat; /* revert to the semi-Lagrangian value (Selle et al. 2008, sec. 4) */
            pa->out[e] = pa->factor * v;
            break;
        }
        case PASS_BFECC_CORRECT:
            locate(pa->L, dim, fw[0], fw[1], dim == 3 ? fw[2] : 0.0f, &st);
            pa->out[e] = pa->q[e] + 0.5f * (pa->q[e] - stencil_sample(&st, dim, pa->aux));
            break;
        case PASS_BFECC_FINAL: {
            locate(pa->L, dim, bk[0], bk[1], dim == 3 ? bk[2] : 0.0f, &st);
            float v = stencil_sample(&st, dim, pa->aux);
            stencil_minmax(&st, dim, pa->q, &lo, &hi);
            pa->out[e] = pa->factor * (v < lo ? lo : (v > hi ? hi : v));
            break;
        }
        }
    }
}

/* ---------------------------------------------------------------- AVX2: 8 elements of a row at once */

/* The trace and the passes, 8 consecutive elements per instruction (vector_isa.h): lane l does, operand for
 * operand and in the same order, what the scalar code above does for element l (the same locate, the lerps in the
 * order of stencil_sample, the min/max tree of stencil_minmax), so the bits agree. Like the scalar code the
 * functions take `dim` and `wrap` (periodic axes possible) as constants, instantiated for each pair, so the 2D code
 * gathers 4 nodes per point and carries no z work, and bounded lattices no wrapping. The node indices are computed
 * in 32-bit lanes: used only where every lattice has fewer than 2^31 nodes and at least 2 along each axis. A row
 * shorter than 8 takes the scalar code; the last group of a longer row overlaps the previous one (its elements are
 * computed twice, the same way). */
#if EDDY_HAVE_AVX2_PATH
#include <immintrin.h>

#define HOT8 static inline __attribute__((always_inline)) EDDY_AVX2

/* locate_axis without wrapping: clamp into [0, top] (NaN and -0 to +0), lower node at most last */
HOT8 void locate8(__m256 x, float top, int last, __m256i *i0, __m256 *w) {
    x = _mm256_and_ps(x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    x = _mm256_min_ps(x, _mm256_set1_ps(top)); /* x > top ? top : x, as the scalar clamp */
    __m256i i = _mm256_min_epi32(_mm256_cvttps_epi32(x), _mm256_set1_epi32(last));
    *i0 = i;
    *w = _mm256_sub_ps(x, _mm256_cvtepi32_ps(i));
}

/* locate_axis on a periodic axis of `wrap` samples: the lower node, the step from it to the upper one (1, or
 * 1 - wrap where the upper node wraps to 0) and the weight */
HOT8 void locate_wrapped8(__m256 x, int wrap, __m256i *i0, __m256i *step, __m256 *w) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    /* NaN, or so far out that float has no fractional part left: +0, as the scalar code */
    x = _mm256_and_ps(x, _mm256_cmp_ps(_mm256_and_ps(x, magnitude), _mm256_set1_ps(8388608.0f), _CMP_LT_OQ));
    __m256 fl = _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); /* floorf */
    __m256i i = _mm256_cvttps_epi32(fl);
    *w = _mm256_sub_ps(x, fl);
    /* eddy__wrap(i, wrap) = i - wrap floor(i / wrap), the remainder in [0, wrap). The float quotient floors
     * exactly: i and wrap are exact in float (|i| <= 2^23), and the division's rounding error, at most
     * |i / wrap| 2^-24 <= 1 / (2 wrap), is less than the distance 1 / wrap from a non-integral quotient to an
     * integer (an integral one is exact), so rounding never carries it across one. */
    const __m256i n = _mm256_set1_epi32(wrap);
    const __m256i outside = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), i),
                                            _mm256_cmpgt_epi32(i, _mm256_set1_epi32(wrap - 1)));
    if (!_mm256_testz_si256(outside, outside)) { /* only where a lane lies outside [0, wrap), as the scalar code */
        __m256 q = _mm256_div_ps(_mm256_cvtepi32_ps(i), _mm256_set1_ps((float)wrap));
        q = _mm256_round_ps(q, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        i = _mm256_sub_epi32(i, _mm256_mullo_epi32(_mm256_cvttps_epi32(q), n));
    }
    *i0 = i;
    *step = _mm256_blendv_epi8(_mm256_set1_epi32(1), _mm256_set1_epi32(1 - wrap),
                               _mm256_cmpeq_epi32(i, _mm256_set1_epi32(wrap - 1)));
}

/* one axis of 8 points located on a lattice: lower node, step to the upper node, weight */
typedef struct axis8 {
    __m256i i, step;
    __m256 w;
} axis8;

/* locate_axis; `wrap` (a constant, like the scalar may_wrap) instantiates the periodic branch */
HOT8 void locate_axis8(const lattice *L, int b, bool wrap, __m256 x, axis8 *a) {
    if (wrap && L->wrap[b]) {
        locate_wrapped8(x, L->wrap[b], &a->i, &a->step, &a->w);
        return;
    }
    locate8(x, L->top[b], L->last[b], &a->i, &a->w);
    a->step = _mm256_set1_epi32(1);
}

HOT8 __m256 lerp8(__m256 a, __m256 b, __m256 w) { return _mm256_add_ps(a, _mm256_mul_ps(w, _mm256_sub_ps(b, a))); }

typedef struct stencil8 {
    __m256i base;       /* node (x0, y0, z0) */
    __m256i dx, dy, dz; /* node index steps from x0 to x1, y0 to y1, z0 to z1 (read only where a lattice wraps) */
    __m256 wx, wy, wz;
} stencil8;

HOT8 void make_stencil8(const lattice *L, int dim, bool wrap, const axis8 *ax, const axis8 *ay, const axis8 *az, stencil8 *st) {
    const __m256i nx = _mm256_set1_epi32((int)L->nx), nxy = _mm256_set1_epi32((int)L->nxy);
    st->base = _mm256_add_epi32(ax->i, _mm256_mullo_epi32(ay->i, nx));
    if (dim == 3) st->base = _mm256_add_epi32(st->base, _mm256_mullo_epi32(az->i, nxy));
    st->wx = ax->w;
    st->wy = ay->w;
    st->wz = dim == 3 ? az->w : _mm256_setzero_ps();
    if (wrap) {
        st->dx = ax->step;
        st->dy = _mm256_mullo_epi32(ay->step, nx);
        st->dz = dim == 3 ? _mm256_mullo_epi32(az->step, nxy) : _mm256_setzero_si256();
    }
}

HOT8 void locate_w8(const lattice *L, int dim, bool wrap, __m256 x, __m256 y, __m256 z, stencil8 *st) {
    axis8 ax, ay, az;
    locate_axis8(L, 0, wrap, x, &ax);
    locate_axis8(L, 1, wrap, y, &ay);
    if (dim == 3) locate_axis8(L, 2, wrap, z, &az);
    else az = ay; /* unused */
    make_stencil8(L, dim, wrap, &ax, &ay, &az, st);
}

/* x0 and x1 nodes of 8 points whose x1 follows x0 (indices idx into q): one 64-bit load brings both. The lanes are
 * loaded as 0 1 4 5 | 2 3 6 7 so that the in-lane shuffles that split x0 from x1 leave them in order. */
HOT8 void load_pairs8(const float *q, const int idx[8], __m256 *x0, __m256 *x1) {
#define EDDY_PAIRS(l0, l1) \
    _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(q + idx[l0]))), (const __m64 *)(const void *)(q + idx[l1]))
    __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(EDDY_PAIRS(0, 1)), EDDY_PAIRS(4, 5), 1);
    __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(EDDY_PAIRS(2, 3)), EDDY_PAIRS(6, 7), 1);
#undef EDDY_PAIRS
    *x0 = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    *x1 = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
}

/* the 2^dim nodes around each lane's point, in stencil_sample's order: rows r00, r10 (, r01, r11), x0 then x1.
 * Plain loads rather than VGATHERDPD: on the AMD Zen 5 of the project's machine they make the 3D advection 1.4x
 * and the 2D one 1.15x faster, and Intel's gathers became slower still with the 2023 microcode (GDS mitigation).
 * On a wrapping lattice the rows sit at per-lane offsets, and where a lane's x1 wraps to 0 (the seam) each node
 * is loaded alone. */
HOT8 void gather8(const lattice *L, int dim, bool wrap, const float *d, const stencil8 *st, __m256 n[8]) {
    int idx[8];
    if (!wrap) {
        const size_t nx = L->nx, nxy = L->nxy;
        const float *row[4] = {d, d + nx, d + nxy, d + nxy + nx};
        _mm256_storeu_si256((__m256i *)(void *)idx, st->base);
        for (int r = 0; r < (dim == 3 ? 4 : 2); r++) load_pairs8(row[r], idx, &n[2 * r], &n[2 * r + 1]);
        return;
    }
    const __m256i rows[4] = {st->base, _mm256_add_epi32(st->base, st->dy), _mm256_add_epi32(st->base, st->dz),
                             _mm256_add_epi32(st->base, _mm256_add_epi32(st->dy, st->dz))};
    const bool pairs = _mm256_movemask_epi8(_mm256_cmpeq_epi32(st->dx, _mm256_set1_epi32(1))) == -1;
    for (int r = 0; r < (dim == 3 ? 4 : 2); r++) {
        _mm256_storeu_si256((__m256i *)(void *)idx, rows[r]);
        if (pairs) {
            load_pairs8(d, idx, &n[2 * r], &n[2 * r + 1]);
            continue;
        }
        int up[8];
        _mm256_storeu_si256((__m256i *)(void *)up, _mm256_add_epi32(rows[r], st->dx));
        n[2 * r] = _mm256_setr_ps(d[idx[0]], d[idx[1]], d[idx[2]], d[idx[3]], d[idx[4]], d[idx[5]], d[idx[6]], d[idx[7]]);
        n[2 * r + 1] = _mm256_setr_ps(d[up[0]], d[up[1]], d[up[2]], d[up[3]], d[up[4]], d[up[5]], d[up[6]], d[up[7]]);
    }
}

HOT8 __m256 sample_nodes8(const __m256 n[8], int dim, const stencil8 *st) {
    __m256 c00 = lerp8(n[0], n[1], st->wx), c10 = lerp8(n[2], n[3], st->wx);
    __m256 c0 = lerp8(c00, c10, st->wy);
    if (dim == 2) return c0;
    __m256 c01 = lerp8(n[4], n[5], st->wx), c11 = lerp8(n[6], n[7], st->wx);
    return lerp8(c0, lerp8(c01, c11, st->wy), st->wz);
}

HOT8 __m256 sample8(const lattice *L, int dim, bool wrap, const float *d, const stencil8 *st) {
    __m256 n[8];
    gather8(L, dim, wrap, d, st, n);
    return sample_nodes8(n, dim, st);
}

HOT8 void minmax_nodes8(const __m256 n[8], int dim, __m256 *lo, __m256 *hi) {
    __m256 mn0 = _mm256_min_ps(_mm256_min_ps(n[0], n[1]), _mm256_min_ps(n[2], n[3]));
    __m256 mx0 = _mm256_max_ps(_mm256_max_ps(n[0], n[1]), _mm256_max_ps(n[2], n[3]));
    if (dim == 2) {
        *lo = mn0;
        *hi = mx0;
        return;
    }
    __m256 mn1 = _mm256_min_ps(_mm256_min_ps(n[4], n[5]), _mm256_min_ps(n[6], n[7]));
    __m256 mx1 = _mm256_max_ps(_mm256_max_ps(n[4], n[5]), _mm256_max_ps(n[6], n[7]));
    *lo = _mm256_min_ps(mn0, mn1);
    *hi = _mm256_max_ps(mx0, mx1);
}

/* 8 points stored interleaved (x y z x y z ..., or x y x y ... in 2D) <-> dim vectors */
HOT8 void load_points8(const float *p, int dim, __m256 *x, __m256 *y, __m256 *z) {
    if (dim == 2) {
        __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
        /* per 128-bit lane: x of a's two points then b's two, the lanes holding points 0 1 4 5 | 2 3 6 7 */
        __m256 tx = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)), ty = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        *x = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(tx), _MM_SHUFFLE(3, 1, 2, 0)));
        *y = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ty), _MM_SHUFFLE(3, 1, 2, 0)));
        *z = _mm256_setzero_ps();
        return;
    }
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
    /* x: a lanes 0 3 6, b lanes 1 4 7, c lanes 2 5; y: a 1 4 7, b 2 5, c 0 3 6; z: a 2 5, b 0 3 6, c 1 4 7 */
    __m256 tx = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24);
    __m256 ty = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49);
    __m256 tz = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92);
    *x = _mm256_permutevar8x32_ps(tx, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    *y = _mm256_permutevar8x32_ps(ty, _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
    *z = _mm256_permutevar8x32_ps(tz, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
}

HOT8 void store_points8(float *p, int dim, __m256 x, __m256 y, __m256 z) {
    if (dim == 2) {
        /* points 0 1 4 5 | 2 3 6 7 in the 128-bit lanes, then interleaved lane by lane */
        __m256 xp = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(x), _MM_SHUFFLE(3, 1, 2, 0)));
        __m256 yp = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(y), _MM_SHUFFLE(3, 1, 2, 0)));
        _mm256_storeu_ps(p, _mm256_unpacklo_ps(xp, yp));
        _mm256_storeu_ps(p + 8, _mm256_unpackhi_ps(xp, yp));
        return;
    }
    __m256 xp = _mm256_permutevar8x32_ps(x, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    __m256 yp = _mm256_permutevar8x32_ps(y, _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
    __m256 zp = _mm256_permutevar8x32_ps(z, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
    _mm256_storeu_ps(p, _mm256_blend_ps(_mm256_blend_ps(xp, yp, 0x92), zp, 0x24));
    _mm256_storeu_ps(p + 8, _mm256_blend_ps(_mm256_blend_ps(xp, yp, 0x24), zp, 0x49));
    _mm256_storeu_ps(p + 16, _mm256_blend_ps(_mm256_blend_ps(xp, yp, 0x49), zp, 0x92));
}

/* velocity_at for 8 points. Component a is sampled at P along a and at P - 1/2 along the other axes; the two
 * lattices sampled at P - 1/2 along an axis (3D) have as many nodes along it, so that axis is located once for
 * both. */
HOT8 void velocity_at8(const lattice V[3], int dim, bool wrap, const __m256 P[3], __m256 u[3]) {
    const __m256 half = _mm256_set1_ps(0.5f);
    axis8 own[3], low[3];
    for (int b = 0; b < dim; b++) {
        /* V[(b + 1) % dim]: a lattice that is not component b's (the same nodes and period along b as the others) */
        locate_axis8(&V[b], b, wrap, P[b], &own[b]);
        locate_axis8(&V[(b + 1) % dim], b, wrap, _mm256_sub_ps(P[b], half), &low[b]);
    }
    for (int a = 0; a < dim; a++) {
        stencil8 st;
        make_stencil8(&V[a], dim, wrap, a == 0 ? &own[0] : &low[0], a == 1 ? &own[1] : &low[1],
                      dim == 3 ? (a == 2 ? &own[2] : &low[2]) : &own[0], &st);
        u[a] = sample8(&V[a], dim, wrap, V[a].d, &st);
    }
}

/* the inside readers (face_node_velocity_inside, cell_node_velocity_inside) for elements i .. i+7 */
HOT8 void node_velocity_inside8(const lattice V[3], int dim, int face, const size_t p[3], __m256 u[3]) {
    const __m256 half = _mm256_set1_ps(0.5f);
    for (int b = 0; b < dim; b++) {
        const float *d = V[b].d + p[b];
        const size_t sb = stride_of(&V[b], b);
        if (face < 0) {
            u[b] = lerp8(_mm256_loadu_ps(d), _mm256_loadu_ps(d + sb), half);
            continue;
        }
        if (b == face) {
            u[b] = _mm256_loadu_ps(d);
            continue;
        }
        const size_t sa = stride_of(&V[b], face);
        __m256 v0 = lerp8(_mm256_loadu_ps(d - sa), _mm256_loadu_ps(d), half);
        __m256 v1 = lerp8(_mm256_loadu_ps(d + sb - sa), _mm256_loadu_ps(d + sb), half);
        u[b] = lerp8(v0, v1, half);
    }
}

/* pass_row's work for elements e .. e+7, whose feet (or forward points) are x, y, z */
HOT8 void pass_at8(const pass_args *pa, enum pass_kind kind, int dim, bool wrap, size_t e, __m256 x, __m256 y, __m256 z) {
    const lattice *L = pa->L;
    __m256 n[8], v, c, lo, hi;
    stencil8 st;
    locate_w8(L, dim, wrap, x, y, z, &st);
    const __m256 factor = _mm256_set1_ps(pa->factor), half = _mm256_set1_ps(0.5f);
    switch (kind) {
    case PASS_BACKWARD:
        _mm256_storeu_ps(pa->out + e, _mm256_mul_ps(factor, sample8(L, dim, wrap, pa->q, &st)));
        break;
    case PASS_BACKWARD_RANGE:
        gather8(L, dim, wrap, pa->q, &st, n);
        _mm256_storeu_ps(pa->out + e, sample_nodes8(n, dim, &st));
        minmax_nodes8(n, dim, &lo, &hi);
        _mm256_storeu_ps(pa->lo + e, lo);
        _mm256_storeu_ps(pa->hi + e, hi);
        break;
    case PASS_MACCORMACK: {
        __m256 qhat = _mm256_loadu_ps(pa->aux + e);
        v = _mm256_add_ps(qhat, _mm256_mul_ps(half, _mm256_sub_ps(_mm256_loadu_ps(pa->q + e), sample8(L, dim, wrap, pa->aux, &st))));
        __m256 out = _mm256_or_ps(_mm256_cmp_ps(v, _mm256_loadu_ps(pa->lo + e), _CMP_LT_OQ),
                                  _mm256_cmp_ps(v, _mm256_loadu_ps(pa->hi + e), _CMP_GT_OQ));
        _mm256_storeu_ps(pa->out + e, _mm256_mul_ps(factor, _mm256_blendv_ps(v, qhat, out)));
        break;
    }
    case PASS_BFECC_CORRECT: {
        __m256 q = _mm256_loadu_ps(pa->q + e);
        _mm256_storeu_ps(pa->out + e, _mm256_add_ps(q, _mm256_mul_ps(half, _mm256_sub_ps(q, sample8(L, dim, wrap, pa->aux, &st)))));
        break;
    }
    case PASS_BFECC_FINAL:
        v = sample8(L, dim, wrap, pa->aux, &st);
        gather8(L, dim, wrap, pa->q, &st, n);
        minmax_nodes8(n, dim, &lo, &hi);
        /* v < lo ? lo : (v > hi ? hi : v) */
        c = _mm256_blendv_ps(v, hi, _mm256_cmp_ps(v, hi, _CMP_GT_OQ));
        c = _mm256_blendv_ps(c, lo, _mm256_cmp_ps(v, lo, _CMP_LT_OQ));
        _mm256_storeu_ps(pa->out + e, _mm256_mul_ps(factor, c));
        break;
    }
}

HOT8 void pass_group8(const eddy_advect_ws *ws, const pass_args *pa, enum pass_kind kind, int dim, bool wrap, size_t e) {
    const bool two_way = kind == PASS_MACCORMACK || kind == PASS_BFECC_CORRECT;
    __m256 x, y, z;
    load_points8((two_way ? ws->fwd : ws->back) + (size_t)dim * e, dim, &x, &y, &z);
    pass_at8(pa, kind, dim, wrap, e, x, y, z);
}

/* elements [e, end) of a pass, 8 at a time (end - e >= 8: the last group overlaps the one before) */
HOT8 void pass_range8(const eddy_advect_ws *ws, const pass_args *pa, enum pass_kind kind, int dim, bool wrap, size_t e,
                       size_t end) {
    for (;; e += 8) {
        if (e + 8 > end) e = end - 8;
        pass_group8(ws, pa, kind, dim, wrap, e);
        if (e + 8 >= end) break;
    }
}

/* one instantiation per kind (and dimension), as run_pass does for pass_row */
HOT8 void pass_row_avx2_dim(const eddy_advect_ws *ws, const pass_args *pa, enum pass_kind kind, size_t e, size_t end, int dim,
                            bool wrap) {
    if (end - e < 8) {
        switch (kind) {
        case PASS_BACKWARD: pass_row(ws, pa, PASS_BACKWARD, e, end, dim); break;
        case PASS_BACKWARD_RANGE: pass_row(ws, pa, PASS_BACKWARD_RANGE, e, end, dim); break;
        case PASS_MACCORMACK: pass_row(ws, pa, PASS_MACCORMACK, e, end, dim); break;
        case PASS_BFECC_CORRECT: pass_row(ws, pa, PASS_BFECC_CORRECT, e, end, dim); break;
        case PASS_BFECC_FINAL: pass_row(ws, pa, PASS_BFECC_FINAL, e, end, dim); break;
        }
        return;
    }
    switch (kind) {
    case PASS_BACKWARD: pass_range8(ws, pa, PASS_BACKWARD, dim, wrap, e, end); break;
    case PASS_BACKWARD_RANGE: pass_range8(ws, pa, PASS_BACKWARD_RANGE, dim, wrap, e, end); break;
    case PASS_MACCORMACK: pass_range8(ws, pa, PASS_MACCORMACK, dim, wrap, e, end); break;
    case PASS_BFECC_CORRECT: pass_range8(ws, pa, PASS_BFECC_CORRECT, dim, wrap, e, end); break;
    case PASS_BFECC_FINAL: pass_range8(ws, pa, PASS_BFECC_FINAL, dim, wrap, e, end); break;
    }
}

static EDDY_AVX2 void pass_row_avx2(const eddy_advect_ws *ws, const pass_args *pa, enum pass_kind kind, size_t e, size_t end,
                                    int dim, bool wrap) {
    if (dim == 2 && wrap) pass_row_avx2_dim(ws, pa, kind, e, end, 2, true);
    else if (dim == 2) pass_row_avx2_dim(ws, pa, kind, e, end, 2, false);
    else if (wrap) pass_row_avx2_dim(ws, pa, kind, e, end, 3, true);
    else pass_row_avx2_dim(ws, pa, kind, e, end, 3, false);
    _mm256_zeroupper(); /* leave no dirty upper ymm state to the SSE code that follows (vector_isa.h) */
}

/* trace_row, and when `first` is given the first pass of the field (PASS_BACKWARD or PASS_BACKWARD_RANGE) on the
 * row straight from the feet in registers; the feet are stored only when keep_back asks (or without `first`) */
HOT8 void trace_row_avx2_dim(eddy_advect_ws *ws, const grid_map *m, const lattice V[3], float dtc, bool forward, int row,
                             const pass_args *first, enum pass_kind first_kind, bool keep_back, int dim, bool wrap) {
    const int n0 = m->n[0];
    if (n0 < 8) {
        trace_row(ws, m, V, dtc, forward, row, dim, wrap);
        const size_t e = (size_t)row * (size_t)n0;
        if (first && first_kind == PASS_BACKWARD) pass_row(ws, first, PASS_BACKWARD, e, e + (size_t)n0, dim);
        else if (first) pass_row(ws, first, PASS_BACKWARD_RANGE, e, e + (size_t)n0, dim);
        return;
    }
    keep_back = keep_back || !first;
    int j = row % m->n[1], k = row / m->n[1];
    const size_t e_row = (size_t)row * (size_t)n0;
    __m256 P[3], Q[3], u1[3], u2[3], out[3];
    P[1] = _mm256_set1_ps(((float)j + m->off[1]) / m->scale[1]);
    P[2] = _mm256_set1_ps(((float)k + m->off[2]) / m->scale[2]);
    out[2] = _mm256_setzero_ps();
    int in_lo, in_hi;
    row_interior(V, dim, m, j, k, &in_lo, &in_hi);
    size_t p[3] = {0, 0, 0};
    for (int b = 0; b < dim; b++) p[b] = node(&V[b], 0, j, k);
    const bool sampled = m->face < 0 && !m->unit_scale; /* first stage sampled, as in trace_row */
    const __m256 hd = _mm256_set1_ps(0.5f * dtc), vd = _mm256_set1_ps(dtc);
    const __m256 lane = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    for (int i = 0;; i += 8) {
        if (i + 8 > n0) i = n0 - 8;
        P[0] = _mm256_div_ps(_mm256_add_ps(_mm256_add_ps(_mm256_set1_ps((float)i), lane), _mm256_set1_ps(m->off[0])),
                             _mm256_set1_ps(m->scale[0]));
        if (sampled) velocity_at8(V, dim, wrap, P, u1);
        else if (i >= in_lo && i + 8 <= in_hi) {
            size_t pi[3] = {p[0] + (size_t)i, p[1] + (size_t)i, p[2] + (size_t)i};
            node_velocity_inside8(V, dim, m->face, pi, u1);
        } else {
            float u[3][8];
            for (int l = 0; l < 8; l++) {
                int il = i + l, c[3] = {il, j, k};
                float ul[3];
                if (il >= in_lo && il < in_hi) {
                    size_t pi[3] = {p[0] + (size_t)il, p[1] + (size_t)il, p[2] + (size_t)il};
                    if (m->face >= 0) face_node_velocity_inside(V, dim, m->face, pi, ul);
                    else cell_node_velocity_inside(V, dim, pi, ul);
                } else if (m->face >= 0) face_node_velocity(V, dim, m->face, c, ul);
                else cell_node_velocity(V, dim, c, ul);
                for (int b = 0; b < dim; b++) u[b][l] = ul[b];
            }
            for (int b = 0; b < dim; b++) u1[b] = _mm256_loadu_ps(u[b]);
        }
        for (int b = 0; b < dim; b++) Q[b] = _mm256_sub_ps(P[b], _mm256_mul_ps(hd, u1[b]));
        velocity_at8(V, dim, wrap, Q, u2);
        for (int b = 0; b < dim; b++)
            out[b] = _mm256_sub_ps(_mm256_mul_ps(_mm256_sub_ps(P[b], _mm256_mul_ps(vd, u2[b])), _mm256_set1_ps(m->scale[b])),
                                   _mm256_set1_ps(m->off[b]));
        if (keep_back) store_points8(ws->back + (size_t)dim * (e_row + (size_t)i), dim, out[0], out[1], out[2]);
        if (first && first_kind == PASS_BACKWARD) pass_at8(first, PASS_BACKWARD, dim, wrap, e_row + (size_t)i, out[0], out[1], out[2]);
        else if (first) pass_at8(first, PASS_BACKWARD_RANGE, dim, wrap, e_row + (size_t)i, out[0], out[1], out[2]);
        if (forward) {
            for (int b = 0; b < dim; b++) Q[b] = _mm256_add_ps(P[b], _mm256_mul_ps(hd, u1[b]));
            velocity_at8(V, dim, wrap, Q, u2);
            for (int b = 0; b < dim; b++)
                out[b] = _mm256_sub_ps(_mm256_mul_ps(_mm256_add_ps(P[b], _mm256_mul_ps(vd, u2[b])), _mm256_set1_ps(m->scale[b])),
                                       _mm256_set1_ps(m->off[b]));
            store_points8(ws->fwd + (size_t)dim * (e_row + (size_t)i), dim, out[0], out[1], out[2]);
        }
        if (i + 8 >= n0) break;
    }
}

static EDDY_AVX2 void trace_row_avx2(eddy_advect_ws *ws, const grid_map *m, const lattice V[3], float dtc, bool forward,
                                     int row, const pass_args *first, enum pass_kind first_kind, bool keep_back, int dim,
                                     bool wrap) {
    if (dim == 2 && wrap) trace_row_avx2_dim(ws, m, V, dtc, forward, row, first, first_kind, keep_back, 2, true);
    else if (dim == 2) trace_row_avx2_dim(ws, m, V, dtc, forward, row, first, first_kind, keep_back, 2, false);
    else if (wrap) trace_row_avx2_dim(ws, m, V, dtc, forward, row, first, first_kind, keep_back, 3, true);
    else trace_row_avx2_dim(ws, m, V, dtc, forward, row, first, first_kind, keep_back, 3, false);
    _mm256_zeroupper(); /* as in pass_row_avx2 */
}

/* true when L wraps along one of its first dim axes */
static bool wraps(const lattice *L, int dim) {
    for (int b = 0; b < dim; b++)
        if (L->wrap[b]) return true;
    return false;
}

/* true when the AVX2 code applies to lattice L: 2 nodes or more along each of the dim axes (as the stencils
 * assume), node indices within int32 (the index lanes) */
static bool gathers_fit(const lattice *L, int dim) {
    size_t nodes = 1;
    for (int b = 0; b < dim; b++) {
        if (L->n[b] < 2) return false;
        nodes *= (size_t)L->n[b];
    }
    return nodes <= (size_t)INT32_MAX;
}

#endif

/* Traces every element of grid m back (and forward, for the reverse operator) through the velocity by RK2
 * midpoint steps of dt; dtc = dt / h converts m/s into cells. The AVX2 code also runs the first pass of one field
 * (`first`, of kind first_kind) as it goes, which saves storing and reading the feet again (not stored at all
 * unless keep_back asks); returns true when it did. */
static bool trace_grid(eddy_sim *s, const grid_map *m, const lattice V[3], float dtc, bool forward, const pass_args *first,
                       enum pass_kind first_kind, bool keep_back) {
    eddy_advect_ws *ws = s->advect;
    const int dim = s->dim;
    const int rows = m->n[1] * m->n[2];
    /* without periodic axes (the common case) the samplers are instantiated without the wrapping branches */
    bool may_wrap = false;
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) may_wrap = may_wrap || V[a].wrap[b] != 0;
#if EDDY_HAVE_AVX2_PATH
    bool wide = s->avx2;
    for (int a = 0; a < dim; a++) wide = wide && gathers_fit(&V[a], dim);
    /* the fused pass runs with the trace's instantiation: the wrapping one if its lattice wraps */
    const pass_args *fused = wide && gathers_fit(first->L, dim) && (may_wrap || !wraps(first->L, dim)) ? first : NULL;
#else
    (void)first;
    (void)first_kind;
    (void)keep_back;
#endif
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
#if EDDY_HAVE_AVX2_PATH
        if (wide) {
            trace_row_avx2(ws, m, V, dtc, forward, row, fused, first_kind, keep_back, dim, may_wrap);
            continue;
        }
#endif
        if (dim == 2) {
            if (may_wrap) trace_row(ws, m, V, dtc, forward, row, 2, true);
            else trace_row(ws, m, V, dtc, forward, row, 2, false);
        } else {
            if (may_wrap) trace_row(ws, m, V, dtc, forward, row, 3, true);
            else trace_row(ws, m, V, dtc, forward, row, 3, false);
        }
    }
#if EDDY_HAVE_AVX2_PATH
    return fused != NULL;
#else
    return false;
#endif
}

static void run_pass(eddy_sim *s, const grid_map *m, const pass_args *pa, enum pass_kind kind) {
    const eddy_advect_ws *ws = s->advect;
    const int dim = s->dim, rows = m->n[1] * m->n[2];
    const size_t n0 = (size_t)m->n[0];
#if EDDY_HAVE_AVX2_PATH
    const bool wide = s->avx2 && gathers_fit(pa->L, dim), wrap = wraps(pa->L, dim);
#endif
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * n0;
#if EDDY_HAVE_AVX2_PATH
        if (wide) {
            pass_row_avx2(ws, pa, kind, e, e + n0, dim, wrap);
            continue;
        }
#endif
        /* one instantiation per kind and dimension, so the switch and the z work fold away */
        if (dim == 2) {
            switch (kind) {
            case PASS_BACKWARD: pass_row(ws, pa, PASS_BACKWARD, e, e + n0, 2); break;
            case PASS_BACKWARD_RANGE: pass_row(ws, pa, PASS_BACKWARD_RANGE, e, e + n0, 2); break;
            case PASS_MACCORMACK: pass_row(ws, pa, PASS_MACCORMACK, e, e + n0, 2); break;
            case PASS_BFECC_CORRECT: pass_row(ws, pa, PASS_BFECC_CORRECT, e, e + n0, 2); break;
            case PASS_BFECC_FINAL: pass_row(ws, pa, PASS_BFECC_FINAL, e, e + n0, 2); break;
            }
        } else {
            switch (kind) {
            case PASS_BACKWARD: pass_row(ws, pa, PASS_BACKWARD, e, e + n0, 3); break;
            case PASS_BACKWARD_RANGE: pass_row(ws, pa, PASS_BACKWARD_RANGE, e, e + n0, 3); break;
            case PASS_MACCORMACK: pass_row(ws, pa, PASS_MACCORMACK, e, e + n0, 3); break;
            case PASS_BFECC_CORRECT: pass_row(ws, pa, PASS_BFECC_CORRECT, e, e + n0, 3); break;
            case PASS_BFECC_FINAL: pass_row(ws, pa, PASS_BFECC_FINAL, e, e + n0, 3); break;
            }
        }
    }
}

/* The first pass of the scheme on field q of lattice L: semi-Lagrangian's only one, or A q (and for MacCormack the
 * limiter's range) into the workspace */
static enum pass_kind first_pass(const eddy_sim *s, const lattice *L, const float *q, float *out, float factor, pass_args *pa) {
    eddy_advect_ws *ws = s->advect;
    switch (s->def.advection) {
    case EDDY_ADVECT_SEMI_LAGRANGIAN: *pa = (pass_args){L, q, NULL, out, factor, NULL, NULL}; return PASS_BACKWARD;
    case EDDY_ADVECT_MACCORMACK: *pa = (pass_args){L, q, NULL, ws->tmp[0], 1.0f, ws->tmp[1], ws->tmp[2]}; return PASS_BACKWARD_RANGE;
    case EDDY_ADVECT_BFECC: break;
    }
    *pa = (pass_args){L, q, NULL, ws->tmp[0], 1.0f, NULL, NULL};
    return PASS_BACKWARD;
}

/* Advects field q (on lattice L) into `out` with the scheme of the simulation; the grid has been traced already,
 * and the first pass run too when first_done. */
static void advect_field(eddy_sim *s, const grid_map *m, const lattice *L, const float *q, float *out, float factor,
                         bool first_done) {
    eddy_advect_ws *ws = s->advect;
    pass_args first;
    enum pass_kind kind = first_pass(s, L, q, out, factor, &first);
    if (!first_done) run_pass(s, m, &first, kind);
    pass_args pa = {L, q, NULL, out, factor, NULL, NULL};
    switch (s->def.advection) {
    case EDDY_ADVECT_SEMI_LAGRANGIAN: return;
    case EDDY_ADVECT_MACCORMACK:
        pa.aux = ws->tmp[0];
        pa.lo = ws->tmp[1];
        pa.hi = ws->tmp[2];
        run_pass(s, m, &pa, PASS_MACCORMACK);
        return;
    case EDDY_ADVECT_BFECC: {
        pass_args correct = {L, q, ws->tmp[0], ws->tmp[1], 1.0f, NULL, NULL};
        run_pass(s, m, &correct, PASS_BFECC_CORRECT);
        pa.aux = ws->tmp[1];
        run_pass(s, m, &pa, PASS_BFECC_FINAL);
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

/* intermediate fields each scheme needs: MacCormack q^ and the limiter's range, BFECC q^ and the corrected q */
static int fields_for(eddy_advection scheme) {
    return scheme == EDDY_ADVECT_SEMI_LAGRANGIAN ? 0 : (scheme == EDDY_ADVECT_MACCORMACK ? 3 : 2);
}

/* Allocates what the scheme needs; called at creation (and again only if the scheme needs more buffers). */
static eddy_status ensure_workspace(eddy_sim *s) {
    eddy_advect_ws *ws = s->advect;
    bool forward = s->def.advection != EDDY_ADVECT_SEMI_LAGRANGIAN;
    int fields = fields_for(s->def.advection);
    size_t cap = ws->cap;
    bool ok = true;
    int count = 0;
    const size_t dim = (size_t)s->dim;
    if (!ws->back) ok = ok && (ws->back = (float *)malloc(dim * cap * sizeof(float)));
    if (forward && !ws->fwd) ok = ok && (ws->fwd = (float *)malloc(dim * cap * sizeof(float)));
    count += forward ? 2 * s->dim : s->dim;
    for (int f = 0; f < fields; f++, count++)
        if (!ws->tmp[f]) ok = ok && (ws->tmp[f] = (float *)malloc(cap * sizeof(float)));
    if (!ok) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "advection: out of memory for %d work buffers of %zu floats", count, cap);
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
    free(ws->back);
    free(ws->fwd);
    for (int f = 0; f < 3; f++) free(ws->tmp[f]);
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
        m.face = a;
        m.unit_scale = false;
        pass_args first;
        enum pass_kind kind = first_pass(s, &V[a], g.data, s->vel_tmp[a], fv, &first);
        /* the feet are read again only by BFECC's last pass */
        bool done = trace_grid(s, &m, V, dtc, forward, &first, kind, s->def.advection == EDDY_ADVECT_BFECC);
        advect_field(s, &m, &V[a], g.data, s->vel_tmp[a], fv, done);
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
    m.face = -1;
    m.unit_scale = s->def.dye_scale[0] == 1 && s->def.dye_scale[1] == 1 && s->def.dye_scale[2] == 1;
    for (int f = 0; f < 4; f++) {
        if (field_is_zero(s, scalars[f], s->nscalar)) continue;
        eddy_grid_desc g = eddy__scalar_desc(s, scalars[f]);
        lattice L = make_lattice(&g);
        const float factor = f < 3 ? fd : ft;
        bool done = false;
        if (!traced) { /* the first field's first pass rides along; the feet serve the other fields */
            pass_args first;
            enum pass_kind kind = first_pass(s, &L, g.data, s->scalar_tmp, factor, &first);
            done = trace_grid(s, &m, V, dtc, forward, &first, kind, true);
            traced = true;
        }
        advect_field(s, &m, &L, g.data, s->scalar_tmp, factor, done);
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
