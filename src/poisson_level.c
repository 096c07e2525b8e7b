/* Storage and stencil kernels of one level of the pressure Poisson system A x = b (see poisson.h):
 * (A x)_c = diag_c x_c - sum_a w_a (x_{c-e_a} + x_{c+e_a}), with x = 0 in cells that are not solved and in the
 * ghosts of non-periodic sides, so that closed faces need no test in the inner loops (their neighbour holds 0 and
 * diag counts only open faces). Red-black Gauss-Seidel half sweeps compute every cell of a row and keep the new
 * value on one colour (a branch-free select that vectorises); the cells of the other colour only read neighbours
 * of the colour being updated, so the result equals the textbook sweep and does not depend on threads. */
#include "poisson.h"

#include <stdlib.h>
#include <string.h>

/* below this many cells a level runs on one thread: a pass over a 128^2 level takes ~10 us, about what the
 * fork, barriers and join of splitting it cost (measured on 2 cores of a VM, ~5-10 us per synchronisation) */
#define PLEVEL_PARALLEL_CELLS 32768

eddy_status eddy__plevel_alloc(eddy_plevel *L, int dim, const int n[3], const bool periodic[3],
                               const bool outflow[6], const float w[3], bool own_vectors) {
    memset(L, 0, sizeof *L);
    L->dim = dim;
    for (int a = 0; a < 3; a++) {
        L->n[a] = a < dim ? n[a] : 1;
        L->pad[a] = a < dim ? n[a] + 2 : 1;
        L->periodic[a] = a < dim && periodic[a];
        L->w[a] = a < dim ? w[a] : 0.0f;
    }
    for (int f = 0; f < 6; f++) L->outflow[f] = f < 2 * dim && outflow[f] && !L->periodic[f / 2];
    for (int a = 0; a < 3; a++) L->dirichlet_factor[a] = 1.0f;
    L->sy = L->pad[0];
    L->sz = dim == 3 ? (ptrdiff_t)L->pad[0] * L->pad[1] : 0;
    L->origin = 1 + (size_t)L->sy + (size_t)L->sz;
    L->count = (size_t)L->pad[0] * L->pad[1] * L->pad[2];
    L->rows = L->n[1] * L->n[2];
    L->parallel = (size_t)L->n[0] * L->n[1] * L->n[2] >= PLEVEL_PARALLEL_CELLS;
    size_t c = L->count;
    L->diag = calloc(c, sizeof(float));
    L->inv_diag = calloc(c, sizeof(float));
    L->inv_weight = calloc(c, sizeof(float));
    L->r = calloc(c, sizeof(float));
    L->scratch = calloc(c, sizeof(float));
    bool ok = L->diag && L->inv_diag && L->inv_weight && L->r && L->scratch;
    if (own_vectors) {
        L->x = calloc(c, sizeof(float));
        L->b = calloc(c, sizeof(float));
        ok = ok && L->x && L->b;
    }
    return ok ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static void paxis_free(eddy_paxis *ax) {
    free(ax->pc);
    free(ax->pw);
    free(ax->nw);
    free(ax->rf);
    free(ax->rw);
    memset(ax, 0, sizeof *ax);
}

void eddy__plevel_free(eddy_plevel *L) {
    free(L->diag);
    free(L->inv_diag);
    free(L->inv_weight);
    free(L->r);
    free(L->scratch);
    for (int a = 0; a < 3; a++) paxis_free(&L->axis[a]);
    eddy_pcomponents *C = &L->comps;
    free(C->label);
    free(C->sum);
    free(C->cells);
    free(C->row_runs);
    free(C->run_start);
    free(C->run_end);
    free(C->run_parent);
    free(C->run_id);
    free(C->run_dirichlet);
    memset(L, 0, sizeof *L);
}

/* The caller owns x and b of level 0; coarse levels own theirs (freed by poisson_mg.c). */

double eddy__sum_rows(const double *partial, int rows) {
    double s = 0.0;
    for (int r = 0; r < rows; r++) s += partial[r];
    return s;
}

/* Sums over a row in eight fixed lanes (lane = i % 8), added in a fixed tree: the same bytes whatever the SIMD
 * width. Products of two floats are exact in double. */
double eddy__row_dot(const float *restrict a, const float *restrict b, int n) {
    eddy_v2d acc0 = {0, 0}, acc1 = {0, 0}, acc2 = {0, 0}, acc3 = {0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        acc0 += eddy_v2_load_wide(a + i) * eddy_v2_load_wide(b + i);
        acc1 += eddy_v2_load_wide(a + i + 2) * eddy_v2_load_wide(b + i + 2);
        acc2 += eddy_v2_load_wide(a + i + 4) * eddy_v2_load_wide(b + i + 4);
        acc3 += eddy_v2_load_wide(a + i + 6) * eddy_v2_load_wide(b + i + 6);
    }
    double acc[8] = {acc0[0], acc0[1], acc1[0], acc1[1], acc2[0], acc2[1], acc3[0], acc3[1]};
    for (int l = 0; i < n; i++, l++) acc[l] += (double)a[i] * (double)b[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

double eddy__row_masked_sum(const float *restrict a, const float *restrict d, int n) {
    eddy_v2d acc0 = {0, 0}, acc1 = {0, 0}, acc2 = {0, 0}, acc3 = {0, 0};
    const eddy_v4f zero = eddy_v4_all(0.0f);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        float m[8];
        eddy_v4_store(m, eddy_v4_select(eddy_v4_positive(eddy_v4_load(d + i)), eddy_v4_load(a + i), zero));
        eddy_v4_store(m + 4, eddy_v4_select(eddy_v4_positive(eddy_v4_load(d + i + 4)), eddy_v4_load(a + i + 4), zero));
        acc0 += eddy_v2_load_wide(m);
        acc1 += eddy_v2_load_wide(m + 2);
        acc2 += eddy_v2_load_wide(m + 4);
        acc3 += eddy_v2_load_wide(m + 6);
    }
    double acc[8] = {acc0[0], acc0[1], acc1[0], acc1[1], acc2[0], acc2[1], acc3[0], acc3[1]};
    for (int l = 0; i < n; i++, l++) acc[l] += (double)(d[i] > 0.0f ? a[i] : 0.0f);
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

void eddy__row_masked_add(float *restrict x, const float *restrict d, float a, int n) {
    const eddy_v4f av = eddy_v4_all(a);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        eddy_v4f xv = eddy_v4_load(x + i);
        eddy_v4_store(x + i, eddy_v4_select(eddy_v4_positive(eddy_v4_load(d + i)), xv + av, xv));
    }
    for (; i < n; i++) x[i] = d[i] > 0.0f ? x[i] + a : x[i];
}

static void ghost_x_row(const eddy_plevel *L, float *v, int row) {
    float *r = v + eddy__plevel_row(L, row);
    r[-1] = r[L->n[0] - 1];
    r[L->n[0]] = r[0];
}

void eddy__plevel_fill_ghosts(const eddy_plevel *L, float *v, int threads) {
    const int n1 = L->n[1], n2 = L->n[2];
    if (L->periodic[0]) EDDY_FOR_ROWS(L->parallel, threads, L->rows, ghost_x_row(L, v, row));
    /* whole padded rows and planes, so the ghosts of the x sides travel along */
    if (L->periodic[1]) {
        size_t len = (size_t)L->pad[0];
        for (int k = 0; k < n2; k++) {
            float *base = v + L->origin - 1 + (size_t)((ptrdiff_t)k * L->sz);
            memcpy(base - L->sy, base + (ptrdiff_t)(n1 - 1) * L->sy, len * sizeof(float));
            memcpy(base + (ptrdiff_t)n1 * L->sy, base, len * sizeof(float));
        }
    }
    if (L->dim == 3 && L->periodic[2]) {
        size_t len = (size_t)L->sz;
        float *base = v + (size_t)L->sz; /* plane k = 0 */
        memcpy(base - L->sz, base + (ptrdiff_t)(n2 - 1) * L->sz, len * sizeof(float));
        memcpy(base + (ptrdiff_t)n2 * L->sz, base, len * sizeof(float));
    }
}

void eddy__plevel_build_diag(eddy_plevel *L, int threads) {
    float *m = L->scratch;
    eddy__plevel_fill_ghosts(L, m, threads);
    const int n0 = L->n[0], n1 = L->n[1], n2 = L->n[2];
    const ptrdiff_t sy = L->sy, sz = L->sz;
    const float w0 = L->w[0], w1 = L->w[1], w2 = L->w[2];
    /* outflow sides: Dirichlet couplings */
    const float d0 = w0 * L->dirichlet_factor[0], d1 = w1 * L->dirichlet_factor[1], d2 = w2 * L->dirichlet_factor[2];
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        int j = row % n1, k = row / n1;
        size_t o = eddy__plevel_row(L, row);
        const float *mr = m + o;
        float *d = L->diag + o, *id = L->inv_diag + o;
        /* Dirichlet (outflow) sides count as open faces; other non-periodic sides read a ghost 0 */
        float side_y = (j == 0 && L->outflow[2] ? d1 : 0.0f) + (j == n1 - 1 && L->outflow[3] ? d1 : 0.0f);
        float side_z = L->dim == 3 ? (k == 0 && L->outflow[4] ? d2 : 0.0f) + (k == n2 - 1 && L->outflow[5] ? d2 : 0.0f)
                                   : 0.0f;
        for (int i = 0; i < n0; i++) {
            float dv = w0 * (mr[i - 1] + mr[i + 1]) + w1 * (mr[i - sy] + mr[i + sy]) + side_y + side_z;
            if (L->dim == 3) dv += w2 * (mr[i - sz] + mr[i + sz]);
            if (i == 0 && L->outflow[0]) dv += d0;
            if (i == n0 - 1 && L->outflow[1]) dv += d0;
            if (!(mr[i] > 0.0f)) dv = 0.0f;
            d[i] = dv;
            id[i] = dv > 0.0f ? 1.0f / dv : 0.0f;
        }
    }
    eddy__plevel_fill_ghosts(L, L->diag, threads);
}

/* Neighbour sums at cell i of a row (x points at cell 0 of the row); scalar and four-lane forms associate
 * identically. */
#define NB2(x, i) (w0 * ((x)[(i) - 1] + (x)[(i) + 1]) + w1 * ((x)[(i) - sy] + (x)[(i) + sy]))
#define NB3(x, i) (NB2(x, i) + w2 * ((x)[(i) - sz] + (x)[(i) + sz]))
#define LD(p) eddy_v4_load(p)
#define VNB2(x, i) (w0v * (LD((x) + (i) - 1) + LD((x) + (i) + 1)) + w1v * (LD((x) + (i) - sy) + LD((x) + (i) + sy)))
#define VNB3(x, i) (VNB2(x, i) + w2v * (LD((x) + (i) - sz) + LD((x) + (i) + sz)))

#define LEVEL_LOCALS                                                                                     \
    const int n0 = L->n[0];                                                                              \
    const ptrdiff_t sy = L->sy, sz = L->sz;                                                              \
    const float w0 = L->w[0], w1 = L->w[1], w2 = L->w[2];                                                \
    const eddy_v4f w0v = eddy_v4_all(w0), w1v = eddy_v4_all(w1), w2v = eddy_v4_all(w2);                 \
    const eddy_v4f zero = eddy_v4_all(0.0f);                                                             \
    (void)sz, (void)w2, (void)w0v, (void)w1v, (void)w2v, (void)zero

/* The row kernels below come in 2D and 3D forms through these: body(V, S) is instantiated with the vector or
 * scalar neighbour sum; the main loop covers whole four-cell groups, the scalar loop the tail. */
#define ROW_LOOP(dim3, VBODY, SBODY)                                                                     \
    do {                                                                                                 \
        int i = 0;                                                                                       \
        if (dim3) {                                                                                      \
            for (; i + 4 <= n0; i += 4) VBODY(VNB3);                                                     \
            for (; i < n0; i++) SBODY(NB3);                                                              \
        } else {                                                                                         \
            for (; i + 4 <= n0; i += 4) VBODY(VNB2);                                                     \
            for (; i < n0; i++) SBODY(NB2);                                                              \
        }                                                                                                \
    } while (0)

static void apply_row(const eddy_plevel *L, const float *in, float *out, bool dot, double *partial, int row) {
    LEVEL_LOCALS;
    size_t o = eddy__plevel_row(L, row);
    const float *x = in + o, *d = L->diag + o;
    float *y = out + o;
#define APPLY_V(NB)                                                                                      \
    {                                                                                                    \
        eddy_v4f dv = LD(d + i);                                                                         \
        eddy_v4_store(y + i, eddy_v4_select(eddy_v4_positive(dv), dv * LD(x + i) - NB(x, i), zero));     \
    }
#define APPLY_S(NB) y[i] = d[i] > 0.0f ? d[i] * x[i] - NB(x, i) : 0.0f
    ROW_LOOP(L->dim == 3, APPLY_V, APPLY_S);
    if (dot) partial[row] = eddy__row_dot(x, y, n0);
}

double eddy__plevel_apply(const eddy_plevel *L, float *in, float *out, bool dot, double *partial, int threads) {
    eddy__plevel_fill_ghosts(L, in, threads);
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, apply_row(L, in, out, dot, partial, row));
    return dot ? eddy__sum_rows(partial, L->rows) : 0.0;
}

void eddy__plevel_residual_row(const eddy_plevel *L, const float *xv, const float *bv, float *rv, bool weighted,
                               int row) {
    LEVEL_LOCALS;
    size_t o = eddy__plevel_row(L, row);
    const float *x = xv + o, *b = bv + o, *d = L->diag + o, *s = L->inv_weight + o;
    float *r = rv + o;
    if (weighted) {
#define RESW_V(NB) eddy_v4_store(r + i, (LD(b + i) - (LD(d + i) * LD(x + i) - NB(x, i))) * LD(s + i))
#define RESW_S(NB) r[i] = (b[i] - (d[i] * x[i] - NB(x, i))) * s[i]
        ROW_LOOP(L->dim == 3, RESW_V, RESW_S);
    } else {
#define RES_V(NB)                                                                                        \
    {                                                                                                    \
        eddy_v4f dv = LD(d + i);                                                                         \
        eddy_v4_store(r + i, eddy_v4_select(eddy_v4_positive(dv), LD(b + i) - (dv * LD(x + i) - NB(x, i)), zero)); \
    }
#define RES_S(NB) r[i] = d[i] > 0.0f ? b[i] - (d[i] * x[i] - NB(x, i)) : 0.0f
        ROW_LOOP(L->dim == 3, RES_V, RES_S);
    }
}

void eddy__plevel_residual(const eddy_plevel *L, float *xv, const float *bv, float *rv, bool weighted, int threads) {
    eddy__plevel_fill_ghosts(L, xv, threads);
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, eddy__plevel_residual_row(L, xv, bv, rv, weighted, row));
}

double eddy__plevel_residual_norm2(const eddy_plevel *L, float *xv, const float *bv, double *partial, int threads) {
    /* the residual goes through L->r (scratch) so that the sum uses the shared fixed-lane row sum */
    eddy__plevel_residual(L, xv, bv, L->r, false, threads);
    return eddy__plevel_dot(L, L->r, L->r, partial, threads);
}

/* One row of a red-black half sweep over the cells of colour (i+j+k) % 2 == colour, over-relaxed by omega;
 * `zero_start`: x is taken as 0 and both colours are written (the other one as 0). */
static void half_sweep_row(const eddy_plevel *L, float *xv, const float *bv, int row, int colour, float omega,
                           bool zero_start) {
    LEVEL_LOCALS;
    const int n1 = L->n[1];
    const eddy_v4f omv = eddy_v4_all(omega);
    int j = row % n1, k = row / n1;
    const int par = (colour + j + k) & 1; /* cells of this colour have i % 2 == par */
    const eddy_v4i sel = par ? (eddy_v4i){0, -1, 0, -1} : (eddy_v4i){-1, 0, -1, 0};
    size_t o = eddy__plevel_row(L, row);
    float *x = xv + o;
    const float *b = bv + o, *id = L->inv_diag + o;
    /* four-cell groups start at even i, so `sel` marks the cells of this colour in every group; the cells of
     * the other colour are rewritten with their own value */
    if (zero_start) {
        int i = 0;
        for (; i + 4 <= n0; i += 4) eddy_v4_store(x + i, eddy_v4_select(sel, omv * (LD(b + i) * LD(id + i)), zero));
        for (; i < n0; i++) x[i] = (i & 1) == par ? omega * (b[i] * id[i]) : 0.0f;
        return;
    }
    /* Four-cell groups in two passes, even groups then odd ones: a group's loads of x[i-1] and x[i+4] then never
     * overlap a store made just before (which would defeat store-to-load forwarding). The values read are right
     * either way: the neighbours of a cell being updated are of the other colour and do not change here. */
    const int groups = n0 / 4;
#define GS_V(NB)                                                                                         \
    {                                                                                                    \
        eddy_v4f c = LD(x + i);                                                                          \
        eddy_v4_store(x + i, eddy_v4_select(sel, (LD(b + i) + NB(x, i)) * LD(id + i), c));               \
    }
#define SOR_V(NB)                                                                                        \
    {                                                                                                    \
        eddy_v4f c = LD(x + i), g = (LD(b + i) + NB(x, i)) * LD(id + i);                                 \
        eddy_v4_store(x + i, eddy_v4_select(sel, c + omv * (g - c), c));                                 \
    }
#define GROUPS(BODY, NB)                                                                                 \
    for (int pass = 0; pass < 2; pass++)                                                                 \
        for (int g = pass; g < groups; g += 2) {                                                         \
            int i = 4 * g;                                                                               \
            BODY(NB);                                                                                    \
        }
    if (omega == 1.0f) {
        if (L->dim == 3) {
            GROUPS(GS_V, VNB3)
        } else {
            GROUPS(GS_V, VNB2)
        }
    } else {
        if (L->dim == 3) {
            GROUPS(SOR_V, VNB3)
        } else {
            GROUPS(SOR_V, VNB2)
        }
    }
    for (int i = 4 * groups; i < n0; i++) {
        if ((i & 1) != par) continue;
        float g = (b[i] + (L->dim == 3 ? NB3(x, i) : NB2(x, i))) * id[i];
        x[i] = omega == 1.0f ? g : x[i] + omega * (g - x[i]);
    }
}

/* Ghosts inside one unit (a row in 2D, a plane in 3D): x sides of its rows, and in 3D the y-side rows. */
static void fill_unit_ghosts(const eddy_plevel *L, float *v, int unit) {
    const int n0 = L->n[0], n1 = L->n[1];
    if (L->dim == 2) {
        if (L->periodic[0]) {
            float *r = v + eddy__plevel_row(L, unit);
            r[-1] = r[n0 - 1];
            r[n0] = r[0];
        }
        return;
    }
    if (L->periodic[0])
        for (int j = 0; j < n1; j++) {
            float *r = v + eddy__plevel_row(L, j + n1 * unit);
            r[-1] = r[n0 - 1];
            r[n0] = r[0];
        }
    if (L->periodic[1]) {
        float *base = v + L->origin - 1 + (size_t)((ptrdiff_t)unit * L->sz);
        size_t len = (size_t)L->pad[0] * sizeof(float);
        memcpy(base - L->sy, base + (ptrdiff_t)(n1 - 1) * L->sy, len);
        memcpy(base + (ptrdiff_t)n1 * L->sy, base, len);
    }
}

/* Lagged two-phase passes. Phase `first` of unit u (a row in 2D, a plane in 3D) must be complete in units u-1, u
 * and u+1 before phase `second` of unit u reads them. Each thread walks its block of units doing first(u), then
 * second(u-1); the first and last unit of each block wait for the neighbouring blocks (a barrier), after which the
 * ghost units of a periodic unit axis are refreshed from `ghost_vec`. Every unit sees the same values as with two
 * separate passes, so the result does not depend on threads, while memory is streamed once instead of twice. */
typedef struct lagged_ops {
    void (*first)(const eddy_plevel *L, const struct lagged_ops *op, int row);
    void (*second)(const eddy_plevel *L, const struct lagged_ops *op, int row);
    float *x;             /* the vector that phase `first` writes and phase `second` reads around a cell */
    const float *b;       /* right-hand side (sweeps) */
    float *out;           /* output of phase `second` (operator application) */
    const float *z;       /* direction update: p = z + beta p */
    float omega, beta;
    int colour;           /* colour of phase `first` (sweeps) */
    bool zero_start;
    double *partial;      /* when set: per-row dot product after phase `second` */
} lagged_ops;

static void run_unit(const eddy_plevel *L, const lagged_ops *op, int unit, bool first) {
    int per = L->dim == 3 ? L->n[1] : 1;
    for (int r = 0; r < per; r++) (first ? op->first : op->second)(L, op, unit * per + r);
}

static void lagged_block(const eddy_plevel *L, const lagged_ops *op, int u0, int u1) {
    for (int u = u0; u < u1; u++) {
        run_unit(L, op, u, true);
        fill_unit_ghosts(L, op->x, u);
        if (u - 1 > u0) run_unit(L, op, u - 1, false);
    }
}

/* the ghost units of a periodic unit axis take the values of phase `first` */
static void lagged_ghost_units(const eddy_plevel *L, float *x) {
    const int unit_axis = L->dim == 3 ? 2 : 1;
    if (!L->periodic[unit_axis]) return;
    const int units = L->n[unit_axis];
    size_t len = (size_t)(unit_axis == 2 ? L->sz : L->sy);
    ptrdiff_t st = unit_axis == 2 ? L->sz : L->sy;
    float *base = x + L->origin - 1 - (unit_axis == 2 ? (size_t)L->sy : 0);
    memcpy(base - st, base + (ptrdiff_t)(units - 1) * st, len * sizeof(float));
    memcpy(base + (ptrdiff_t)units * st, base, len * sizeof(float));
}

static void lagged_deferred(const eddy_plevel *L, const lagged_ops *op, int u0, int u1) {
    if (u1 > u0) run_unit(L, op, u0, false);
    if (u1 - 1 > u0) run_unit(L, op, u1 - 1, false);
}

static void lagged_pass(const eddy_plevel *L, const lagged_ops *op, int threads) {
    const int units = L->dim == 3 ? L->n[2] : L->n[1];
    int team = L->parallel ? threads : 1;
    if (team > units) team = units;
    if (team <= 1) {
        lagged_block(L, op, 0, units);
        lagged_ghost_units(L, op->x);
        lagged_deferred(L, op, 0, units);
        return;
    }
#pragma omp parallel num_threads(team)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int u0 = (int)((long)units * t / nt), u1 = (int)((long)units * (t + 1) / nt);
        lagged_block(L, op, u0, u1);
#pragma omp barrier
        if (L->periodic[L->dim == 3 ? 2 : 1]) {
#pragma omp single
            lagged_ghost_units(L, op->x);
        }
        lagged_deferred(L, op, u0, u1);
    }
}

static void sweep_first(const eddy_plevel *L, const lagged_ops *op, int row) {
    half_sweep_row(L, op->x, op->b, row, op->colour, op->omega, op->zero_start);
}

static void sweep_second(const eddy_plevel *L, const lagged_ops *op, int row) {
    half_sweep_row(L, op->x, op->b, row, 1 - op->colour, op->omega, false);
    if (op->partial) {
        size_t o = eddy__plevel_row(L, row);
        op->partial[row] = eddy__row_dot(op->b + o, op->x + o, L->n[0]);
    }
}

double eddy__plevel_sweep_pair(const eddy_plevel *L, float *x, const float *b, int first, float omega, bool zero_start,
                               double *partial, int threads) {
    if (!zero_start) eddy__plevel_fill_ghosts(L, x, threads);
    lagged_ops op = {sweep_first, sweep_second, x, b, NULL, NULL, omega, 0.0f, first, zero_start, partial};
    lagged_pass(L, &op, threads);
    return partial ? eddy__sum_rows(partial, L->rows) : 0.0;
}

static void direction_row(const eddy_plevel *L, const lagged_ops *op, int row) {
    size_t o = eddy__plevel_row(L, row);
    float *p = op->x + o;
    const float *z = op->z + o;
    const int n0 = L->n[0];
    const float beta = op->beta;
    const eddy_v4f bv = eddy_v4_all(beta);
    int i = 0;
    for (; i + 4 <= n0; i += 4) eddy_v4_store(p + i, eddy_v4_load(z + i) + bv * eddy_v4_load(p + i));
    for (; i < n0; i++) p[i] = z[i] + beta * p[i];
}

static void apply_second(const eddy_plevel *L, const lagged_ops *op, int row) {
    apply_row(L, op->x, op->out, op->partial != NULL, op->partial, row);
}

double eddy__plevel_direction_apply(const eddy_plevel *L, float *p, const float *z, float beta, float *q,
                                    double *partial, int threads) {
    lagged_ops op = {direction_row, apply_second, p, NULL, q, z, 1.0f, beta, 0, false, partial};
    lagged_pass(L, &op, threads);
    return eddy__sum_rows(partial, L->rows);
}

static void jacobi_row(const eddy_plevel *L, const float *in, float *out, const float *bv, int row) {
    LEVEL_LOCALS;
    size_t o = eddy__plevel_row(L, row);
    const float *x = in + o, *b = bv + o, *id = L->inv_diag + o;
    float *y = out + o;
#define JAC_V(NB) eddy_v4_store(y + i, (LD(b + i) + NB(x, i)) * LD(id + i))
#define JAC_S(NB) y[i] = (b[i] + NB(x, i)) * id[i]
    ROW_LOOP(L->dim == 3, JAC_V, JAC_S);
}

void eddy__plevel_jacobi(const eddy_plevel *L, float *in, float *out, const float *bv, int threads) {
    eddy__plevel_fill_ghosts(L, in, threads);
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, jacobi_row(L, in, out, bv, row));
}

double eddy__plevel_dot(const eddy_plevel *L, const float *a, const float *b, double *partial, int threads) {
    EDDY_FOR_ROWS(L->parallel, threads, L->rows,
                  partial[row] = eddy__row_dot(a + eddy__plevel_row(L, row), b + eddy__plevel_row(L, row), L->n[0]));
    return eddy__sum_rows(partial, L->rows);
}

/* ---------------------------------------------------------------- null space */

static bool comps_reserve(eddy_pcomponents *C, int need) {
    if (need <= C->cap) return true;
    int cap = C->cap ? C->cap : 8;
    while (cap < need) cap *= 2;
    double *s = realloc(C->sum, (size_t)cap * sizeof(double));
    if (!s) return false;
    C->sum = s;
    double *c = realloc(C->cells, (size_t)cap * sizeof(double));
    if (!c) return false;
    C->cells = c;
    C->cap = cap;
    return true;
}

eddy_status eddy__plevel_alloc_components(eddy_plevel *L) {
    eddy_pcomponents *C = &L->comps;
    C->run_slots = (L->n[0] + 1) / 2;
    size_t runs = (size_t)C->run_slots * (size_t)L->rows;
    C->label = malloc(L->count * sizeof(int32_t));
    C->row_runs = malloc((size_t)L->rows * sizeof(int32_t));
    C->run_start = malloc(runs * sizeof(int32_t));
    C->run_end = malloc(runs * sizeof(int32_t));
    C->run_parent = malloc(runs * sizeof(int32_t));
    C->run_id = malloc(runs * sizeof(int32_t));
    C->run_dirichlet = malloc(runs);
    if (!C->label || !C->row_runs || !C->run_start || !C->run_end || !C->run_parent || !C->run_id ||
        !C->run_dirichlet || !comps_reserve(C, 8))
        return EDDY_ERR_OUT_OF_MEMORY;
    for (size_t e = 0; e < L->count; e++) C->label[e] = -1; /* ghosts are never cells */
    return EDDY_OK;
}

/* runs of solved cells of one row, into the row's slots */
static void find_runs(const eddy_plevel *L, int row) {
    const eddy_pcomponents *C = &L->comps;
    const float *d = L->diag + eddy__plevel_row(L, row);
    const int32_t base = (int32_t)row * C->run_slots;
    int32_t n = 0;
    for (int i = 0; i < L->n[0];) {
        if (!(d[i] > 0.0f)) {
            i++;
            continue;
        }
        int first = i;
        while (i < L->n[0] && d[i] > 0.0f) i++;
        C->run_start[base + n] = first;
        C->run_end[base + n] = i;
        C->run_parent[base + n] = base + n;
        C->run_dirichlet[base + n] = 0;
        n++;
    }
    C->row_runs[row] = n;
}

static int32_t run_root(int32_t *parent, int32_t r) {
    while (parent[r] != r) {
        parent[r] = parent[parent[r]];
        r = parent[r];
    }
    return r;
}

/* the smaller run index becomes the root, so every component's root is its first run in scan order */
static void run_union(int32_t *parent, int32_t a, int32_t b) {
    a = run_root(parent, a);
    b = run_root(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

/* joins the overlapping runs of two rows that are face neighbours (along y or z) */
static void join_rows(eddy_pcomponents *C, int ra, int rb) {
    int32_t a = ra * C->run_slots, ae = a + C->row_runs[ra], b = rb * C->run_slots, be = b + C->row_runs[rb];
    while (a < ae && b < be) {
        if (C->run_start[a] < C->run_end[b] && C->run_start[b] < C->run_end[a]) run_union(C->run_parent, a, b);
        if (C->run_end[a] < C->run_end[b]) a++;
        else b++;
    }
}

static void fill_labels(const eddy_plevel *L, int row) {
    const eddy_pcomponents *C = &L->comps;
    int32_t *lab = C->label + eddy__plevel_row(L, row);
    for (int i = 0; i < L->n[0]; i++) lab[i] = -1;
    const int32_t base = (int32_t)row * C->run_slots;
    for (int32_t r = base; r < base + C->row_runs[row]; r++)
        for (int i = C->run_start[r]; i < C->run_end[r]; i++) lab[i] = C->run_id[r];
}

/* Connected components by runs: the runs of solved cells of each row are joined with the overlapping runs of the
 * previous row and plane (and across periodic sides) in a union-find, whose roots are numbered in scan order. */
void eddy__plevel_label(eddy_plevel *L, int threads) {
    eddy_pcomponents *C = &L->comps;
    const int n0 = L->n[0], n1 = L->n[1], n2 = L->n[2];
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, find_runs(L, row));
    for (int row = 0; row < L->rows; row++) {
        int j = row % n1, k = row / n1, nr = C->row_runs[row];
        int32_t base = row * C->run_slots;
        if (L->periodic[0] && nr > 1 && C->run_start[base] == 0 && C->run_end[base + nr - 1] == n0)
            run_union(C->run_parent, base, base + nr - 1);
        if (j > 0) join_rows(C, row, row - 1);
        else if (L->periodic[1] && n1 > 1) join_rows(C, row, row + n1 - 1);
        if (k > 0) join_rows(C, row, row - n1);
        else if (L->periodic[2] && n2 > 1) join_rows(C, row, row + n1 * (n2 - 1));
    }
    /* roots, and whether a component touches a Dirichlet (outflow) side */
    for (int row = 0; row < L->rows; row++) {
        int j = row % n1, k = row / n1;
        bool side = (j == 0 && L->outflow[2]) || (j == n1 - 1 && L->outflow[3]) || (k == 0 && L->outflow[4]) ||
                    (k == n2 - 1 && L->outflow[5]);
        int32_t base = row * C->run_slots;
        for (int32_t r = base; r < base + C->row_runs[row]; r++) {
            int32_t root = run_root(C->run_parent, r);
            C->run_parent[r] = root;
            if (side || (C->run_start[r] == 0 && L->outflow[0]) || (C->run_end[r] == n0 && L->outflow[1]))
                C->run_dirichlet[root] = 1;
        }
    }
    /* ids in scan order of the roots (a root precedes the other runs of its component) */
    C->count = 0;
    double solved = 0;
    for (int row = 0; row < L->rows; row++) {
        int32_t base = row * C->run_slots;
        for (int32_t r = base; r < base + C->row_runs[row]; r++) {
            int32_t root = C->run_parent[r];
            if (root == r) {
                C->run_id[r] = -1;
                if (!C->run_dirichlet[r] && comps_reserve(C, C->count + 1)) {
                    C->cells[C->count] = 0;
                    C->run_id[r] = C->count++;
                }
            } else {
                C->run_id[r] = C->run_id[root];
            }
            int32_t len = C->run_end[r] - C->run_start[r];
            if (C->run_id[r] >= 0) C->cells[C->run_id[r]] += len;
            solved += len;
        }
    }
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, fill_labels(L, row));
    C->single_all = C->count == 1 && C->cells[0] == solved;
}

static void subtract_component_means(const eddy_plevel *L, float *v, int row) {
    const eddy_pcomponents *C = &L->comps;
    size_t o = eddy__plevel_row(L, row);
    for (int i = 0; i < L->n[0]; i++) {
        int32_t lab = C->label[o + i];
        if (lab >= 0) v[o + i] = (float)((double)v[o + i] - C->sum[lab]);
    }
}

void eddy__plevel_remove_mean(eddy_plevel *L, float *v, double *partial, int threads) {
    eddy_pcomponents *C = &L->comps;
    if (C->count == 0) return;
    const int n0 = L->n[0];
    if (C->single_all) {
        EDDY_FOR_ROWS(L->parallel, threads, L->rows,
                      partial[row] = eddy__row_masked_sum(v + eddy__plevel_row(L, row), L->diag + eddy__plevel_row(L, row), n0));
        float mean = (float)(eddy__sum_rows(partial, L->rows) / C->cells[0]);
        EDDY_FOR_ROWS(L->parallel, threads, L->rows,
                      eddy__row_masked_add(v + eddy__plevel_row(L, row), L->diag + eddy__plevel_row(L, row), -mean, n0));
        return;
    }
    for (int c = 0; c < C->count; c++) C->sum[c] = 0.0;
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        for (int i = 0; i < n0; i++) {
            int32_t lab = C->label[o + i];
            if (lab >= 0) C->sum[lab] += (double)v[o + i];
        }
    }
    for (int c = 0; c < C->count; c++) C->sum[c] /= C->cells[c];
    EDDY_FOR_ROWS(L->parallel, threads, L->rows, subtract_component_means(L, v, row));
}
