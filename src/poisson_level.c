/* Storage and stencil kernels of one level of the pressure Poisson system A x = b (see poisson.h):
 * (A x)_c = diag_c x_c - sum_a w_a (x_{c-e_a} + x_{c+e_a}), with x = 0 in cells that are not solved and in the
 * ghosts of non-periodic sides, so that closed faces need no test in the inner loops (their neighbour holds 0 and
 * diag counts only open faces). Red-black Gauss-Seidel half sweeps compute every cell of a row and keep the new
 * value on one colour (a branch-free select that vectorises); the cells of the other colour only read neighbours
 * of the colour being updated, so the result equals the textbook sweep and does not depend on threads. */
#include "poisson.h"

#include <stdlib.h>
#include <string.h>

/* below this many cells a level runs on one thread: the team start costs more than the work */
#define PLEVEL_PARALLEL_CELLS 16384

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
    free(L->comps.label);
    free(L->comps.sum);
    free(L->comps.cells);
    memset(L, 0, sizeof *L);
}

/* The caller owns x and b of level 0; coarse levels own theirs (freed by poisson_mg.c). */

double eddy__sum_rows(const double *partial, int rows) {
    double s = 0.0;
    for (int r = 0; r < rows; r++) s += partial[r];
    return s;
}

/* Sum over a row in eight fixed lanes (vectorisable, and the same bytes whatever the vector width). */
double eddy__row_dot(const float *restrict a, const float *restrict b, int n) {
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) acc[l] += (double)a[i + l] * (double)b[i + l];
    for (int l = 0; i < n; i++, l++) acc[l] += (double)a[i] * (double)b[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

double eddy__row_masked_sum(const float *restrict a, const float *restrict d, int n) {
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) acc[l] += d[i + l] > 0.0f ? (double)a[i + l] : 0.0;
    for (int l = 0; i < n; i++, l++) acc[l] += d[i] > 0.0f ? (double)a[i] : 0.0;
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

void eddy__plevel_fill_ghosts(const eddy_plevel *L, float *v, int threads) {
    const int n0 = L->n[0], n1 = L->n[1], n2 = L->n[2];
    if (L->periodic[0]) {
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
        for (int row = 0; row < L->rows; row++) {
            float *r = v + eddy__plevel_row(L, row);
            r[-1] = r[n0 - 1];
            r[n0] = r[0];
        }
    }
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
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        int j = row % n1, k = row / n1;
        size_t o = eddy__plevel_row(L, row);
        const float *mr = m + o;
        float *d = L->diag + o, *id = L->inv_diag + o;
        /* Dirichlet (outflow) sides count as open faces; other non-periodic sides read a ghost 0 */
        float side_y = (j == 0 && L->outflow[2] ? w1 : 0.0f) + (j == n1 - 1 && L->outflow[3] ? w1 : 0.0f);
        float side_z = L->dim == 3 ? (k == 0 && L->outflow[4] ? w2 : 0.0f) + (k == n2 - 1 && L->outflow[5] ? w2 : 0.0f)
                                   : 0.0f;
        for (int i = 0; i < n0; i++) {
            float dv = w0 * (mr[i - 1] + mr[i + 1]) + w1 * (mr[i - sy] + mr[i + sy]) + side_y + side_z;
            if (L->dim == 3) dv += w2 * (mr[i - sz] + mr[i + sz]);
            if (i == 0 && L->outflow[0]) dv += w0;
            if (i == n0 - 1 && L->outflow[1]) dv += w0;
            if (!(mr[i] > 0.0f)) dv = 0.0f;
            d[i] = dv;
            id[i] = dv > 0.0f ? 1.0f / dv : 0.0f;
        }
    }
    eddy__plevel_fill_ghosts(L, L->diag, threads);
}

/* Neighbour sums. x points at cell i of a row; sy, sz are the padded strides. */
#define NB2(x, i) (w0 * ((x)[(i) - 1] + (x)[(i) + 1]) + w1 * ((x)[(i) - sy] + (x)[(i) + sy]))
#define NB3(x, i) (NB2(x, i) + w2 * ((x)[(i) - sz] + (x)[(i) + sz]))

#define LEVEL_LOCALS                                                                                     \
    const int n0 = L->n[0];                                                                              \
    const ptrdiff_t sy = L->sy, sz = L->sz;                                                              \
    const float w0 = L->w[0], w1 = L->w[1], w2 = L->w[2];                                                \
    (void)sz;                                                                                            \
    (void)w2

double eddy__plevel_apply(const eddy_plevel *L, float *in, float *out, bool dot, double *partial, int threads) {
    eddy__plevel_fill_ghosts(L, in, threads);
    LEVEL_LOCALS;
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        const float *x = in + o, *d = L->diag + o;
        float *y = out + o;
        if (L->dim == 3) {
#pragma omp simd
            for (int i = 0; i < n0; i++) {
                float a = d[i] * x[i] - NB3(x, i);
                y[i] = d[i] > 0.0f ? a : 0.0f;
            }
        } else {
#pragma omp simd
            for (int i = 0; i < n0; i++) {
                float a = d[i] * x[i] - NB2(x, i);
                y[i] = d[i] > 0.0f ? a : 0.0f;
            }
        }
        if (dot) partial[row] = eddy__row_dot(x, y, n0);
    }
    return dot ? eddy__sum_rows(partial, L->rows) : 0.0;
}

void eddy__plevel_residual(const eddy_plevel *L, float *xv, const float *bv, float *rv, bool weighted, int threads) {
    eddy__plevel_fill_ghosts(L, xv, threads);
    LEVEL_LOCALS;
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        const float *x = xv + o, *b = bv + o, *d = L->diag + o, *s = (weighted ? L->inv_weight : L->diag) + o;
        float *r = rv + o;
        if (weighted) {
            if (L->dim == 3) {
#pragma omp simd
                for (int i = 0; i < n0; i++) r[i] = (b[i] - (d[i] * x[i] - NB3(x, i))) * s[i];
            } else {
#pragma omp simd
                for (int i = 0; i < n0; i++) r[i] = (b[i] - (d[i] * x[i] - NB2(x, i))) * s[i];
            }
        } else {
            if (L->dim == 3) {
#pragma omp simd
                for (int i = 0; i < n0; i++) {
                    float a = b[i] - (d[i] * x[i] - NB3(x, i));
                    r[i] = d[i] > 0.0f ? a : 0.0f;
                }
            } else {
#pragma omp simd
                for (int i = 0; i < n0; i++) {
                    float a = b[i] - (d[i] * x[i] - NB2(x, i));
                    r[i] = d[i] > 0.0f ? a : 0.0f;
                }
            }
        }
    }
}

double eddy__plevel_residual_norm2(const eddy_plevel *L, float *xv, const float *bv, double *partial, int threads) {
    eddy__plevel_fill_ghosts(L, xv, threads);
    LEVEL_LOCALS;
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        const float *x = xv + o, *b = bv + o, *d = L->diag + o;
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int i0 = 0; i0 < n0; i0 += 8) {
            int m = n0 - i0 < 8 ? n0 - i0 : 8;
            float a[8];
            if (L->dim == 3)
                for (int l = 0; l < m; l++) a[l] = b[i0 + l] - (d[i0 + l] * x[i0 + l] - NB3(x, i0 + l));
            else
                for (int l = 0; l < m; l++) a[l] = b[i0 + l] - (d[i0 + l] * x[i0 + l] - NB2(x, i0 + l));
            for (int l = 0; l < m; l++) acc[l] += d[i0 + l] > 0.0f ? (double)a[l] * (double)a[l] : 0.0;
        }
        partial[row] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }
    return eddy__sum_rows(partial, L->rows);
}

void eddy__plevel_half_sweep(const eddy_plevel *L, float *xv, const float *bv, int colour, float omega,
                             bool zero_start, int threads) {
    if (!zero_start) eddy__plevel_fill_ghosts(L, xv, threads);
    LEVEL_LOCALS;
    const int n1 = L->n[1];
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        int j = row % n1, k = row / n1;
        const int par = (colour + j + k) & 1; /* cells of this colour have i % 2 == par */
        size_t o = eddy__plevel_row(L, row);
        float *x = xv + o;
        const float *b = bv + o, *id = L->inv_diag + o;
        if (zero_start) {
#pragma omp simd
            for (int i = 0; i < n0; i++) x[i] = (i & 1) == par ? omega * (b[i] * id[i]) : 0.0f;
        } else if (omega == 1.0f) {
            if (L->dim == 3) {
#pragma omp simd
                for (int i = 0; i < n0; i++) {
                    float g = (b[i] + NB3(x, i)) * id[i];
                    x[i] = (i & 1) == par ? g : x[i];
                }
            } else {
#pragma omp simd
                for (int i = 0; i < n0; i++) {
                    float g = (b[i] + NB2(x, i)) * id[i];
                    x[i] = (i & 1) == par ? g : x[i];
                }
            }
        } else {
            for (int i = par; i < n0; i += 2) {
                float g = (b[i] + (L->dim == 3 ? NB3(x, i) : NB2(x, i))) * id[i];
                x[i] = x[i] + omega * (g - x[i]);
            }
        }
    }
}

void eddy__plevel_jacobi(const eddy_plevel *L, float *in, float *out, const float *bv, int threads) {
    eddy__plevel_fill_ghosts(L, in, threads);
    LEVEL_LOCALS;
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        const float *x = in + o, *b = bv + o, *id = L->inv_diag + o;
        float *y = out + o;
        if (L->dim == 3) {
#pragma omp simd
            for (int i = 0; i < n0; i++) y[i] = (b[i] + NB3(x, i)) * id[i];
        } else {
#pragma omp simd
            for (int i = 0; i < n0; i++) y[i] = (b[i] + NB2(x, i)) * id[i];
        }
    }
}

double eddy__plevel_dot(const eddy_plevel *L, const float *a, const float *b, double *partial, int threads) {
    const int n0 = L->n[0];
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        partial[row] = eddy__row_dot(a + o, b + o, n0);
    }
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

eddy_status eddy__plevel_label(eddy_plevel *L, size_t *list) {
    eddy_pcomponents *C = &L->comps;
    if (!C->label) {
        C->label = malloc(L->count * sizeof(int32_t));
        if (!C->label) return EDDY_ERR_OUT_OF_MEMORY;
    }
    /* -1: not solved (or a ghost); -2: solved, not visited; -3: in the component being filled */
    for (size_t e = 0; e < L->count; e++) C->label[e] = -1;
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        for (int i = 0; i < L->n[0]; i++)
            if (L->diag[o + i] > 0.0f) C->label[o + i] = -2;
    }
    C->count = 0;
    double solved = 0;
    for (size_t seed = 0; seed < L->count; seed++) {
        if (C->label[seed] != -2) continue;
        size_t head = 0, tail = 0;
        bool dirichlet = false;
        list[tail++] = seed;
        C->label[seed] = -3;
        while (head < tail) {
            size_t e = list[head++];
            int c[3] = {(int)(e % (size_t)L->pad[0]) - 1, (int)((e / (size_t)L->pad[0]) % (size_t)L->pad[1]) - 1,
                        L->dim == 3 ? (int)(e / ((size_t)L->pad[0] * L->pad[1])) - 1 : 0};
            for (int a = 0; a < L->dim; a++) {
                for (int side = 0; side < 2; side++) {
                    int nc[3] = {c[0], c[1], c[2]};
                    nc[a] += side ? 1 : -1;
                    if (nc[a] < 0 || nc[a] >= L->n[a]) {
                        if (!L->periodic[a]) {
                            if (L->outflow[2 * a + side]) dirichlet = true;
                            continue;
                        }
                        nc[a] = eddy__wrap(nc[a], L->n[a]);
                    }
                    size_t ne = L->origin + (size_t)nc[0] + (size_t)((ptrdiff_t)nc[1] * L->sy + (ptrdiff_t)nc[2] * L->sz);
                    if (C->label[ne] == -2) {
                        C->label[ne] = -3;
                        list[tail++] = ne;
                    }
                }
            }
        }
        int id = -1;
        if (!dirichlet) {
            if (!comps_reserve(C, C->count + 1)) return EDDY_ERR_OUT_OF_MEMORY;
            id = C->count++;
            C->cells[id] = (double)tail;
        }
        for (size_t t = 0; t < tail; t++) C->label[list[t]] = id;
        solved += (double)tail;
    }
    C->single_all = C->count == 1 && C->cells[0] == solved;
    return EDDY_OK;
}

void eddy__plevel_remove_mean(eddy_plevel *L, float *v, double *partial, int threads) {
    eddy_pcomponents *C = &L->comps;
    if (C->count == 0) return;
    const int n0 = L->n[0];
    if (C->single_all) {
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
        for (int row = 0; row < L->rows; row++) {
            size_t o = eddy__plevel_row(L, row);
            partial[row] = eddy__row_masked_sum(v + o, L->diag + o, n0);
        }
        float mean = (float)(eddy__sum_rows(partial, L->rows) / C->cells[0]);
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
        for (int row = 0; row < L->rows; row++) {
            size_t o = eddy__plevel_row(L, row);
            float *x = v + o;
            const float *d = L->diag + o;
#pragma omp simd
            for (int i = 0; i < n0; i++) x[i] = d[i] > 0.0f ? x[i] - mean : x[i];
        }
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
#pragma omp parallel for num_threads(threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        size_t o = eddy__plevel_row(L, row);
        for (int i = 0; i < n0; i++) {
            int32_t lab = C->label[o + i];
            if (lab >= 0) v[o + i] = (float)((double)v[o + i] - C->sum[lab]);
        }
    }
}
