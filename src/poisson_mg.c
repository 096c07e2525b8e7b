/* Multigrid-preconditioned conjugate gradient (MGPCG) for the pressure system A x = b (see poisson.h), after
 * McAdams, Sifakis & Teran 2010, "A parallel multigrid Poisson solver for fluids simulation on large grids"
 * (SCA 2010): conjugate gradient whose preconditioner is one geometric multigrid V-cycle from a zero guess.
 *
 * Hierarchy. Each level halves every axis that has at least 4 cells (ceil(n/2): any size, not only powers of
 * two; shorter axes stay, semi-coarsening). A coarse cell is fluid when any of its children is solved; its
 * operator is the same 5/7-point stencil rediscretised on the coarse cells, with couplings w_a = (h/H_a)^2 so that
 * every level approximates the same -h^2 Laplacian, open faces and Dirichlet (outflow) sides as on the fine grid.
 * Transfers: prolongation P is cell-centred (bi/tri)linear interpolation over the coarse cells that are solved,
 * renormalised by the sum of their weights (so a constant is reproduced next to walls and obstacles, which keeps
 * Neumann boundaries from being treated as Dirichlet ones); restriction is R = P^T / 2^(coarsened axes) (an
 * average). Both are applied separably, one axis after the other.
 *
 * Symmetry. Pre-smoothing is red-black Gauss-Seidel (red, black) x EDDY_MG_SWEEPS, post-smoothing the exact
 * adjoint (black, red) x the same count, restriction is a multiple of the transpose of prolongation and the
 * coarsest level (at most 3 cells per axis) is solved by symmetric sweeps between two null-space projections.
 * The V-cycle is therefore a fixed symmetric positive definite operator, as conjugate gradient requires, even
 * with the rediscretised (non-Galerkin) coarse operators. All-Neumann systems (no outflow) are singular: their
 * right-hand side is mean-free per component (project.c) and the null-space component that the preconditioner
 * adds to the iterate is removed at the end. */
#include "poisson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MG_MAX_LEVELS 40

/* ---------------------------------------------------------------- transfer tables */

static eddy_status paxis_build(eddy_paxis *ax, int nf, bool coarsen, bool periodic, const bool dirichlet[2],
                               float dirichlet_weight) {
    int nc = coarsen ? (nf + 1) / 2 : nf;
    ax->nf = nf;
    ax->nc = nc;
    ax->coarsened = coarsen;
    ax->pc = malloc(2 * (size_t)nf * sizeof(int));
    ax->pw = malloc(2 * (size_t)nf * sizeof(float));
    ax->nw = malloc(2 * (size_t)nf * sizeof(float));
    ax->rf = malloc(4 * (size_t)nc * sizeof(int));
    ax->rw = malloc(4 * (size_t)nc * sizeof(float));
    int *cnt = calloc((size_t)nc, sizeof(int));
    if (!ax->pc || !ax->pw || !ax->nw || !ax->rf || !ax->rw || !cnt) {
        free(cnt);
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < nf; i++) {
        int c = coarsen ? i / 2 : i;
        int nb = c + ((i & 1) ? 1 : -1);
        ax->pc[2 * i] = c;
        ax->pw[2 * i] = ax->nw[2 * i] = coarsen ? 0.75f : 1.0f;
        ax->pc[2 * i + 1] = c;
        ax->pw[2 * i + 1] = ax->nw[2 * i + 1] = 0.0f;
        if (!coarsen) continue;
        if (nb < 0 || nb >= nc) {
            if (!periodic) {
                if (dirichlet[nb >= nc]) {
                    /* outflow side: linear between the parent and the zero of x half a finest cell outside the
                     * side, which is a value, not a missing parent, for the normalisation */
                    ax->pw[2 * i] = dirichlet_weight;
                    ax->nw[2 * i] = 1.0f;
                }
                continue; /* a wall: no parent there; the normalisation spreads its weight over the others */
            }
            nb = eddy__wrap(nb, nc);
        }
        ax->pc[2 * i + 1] = nb;
        ax->pw[2 * i + 1] = ax->nw[2 * i + 1] = 0.25f;
    }
    for (int c = 0; c < nc; c++)
        for (int e = 0; e < 4; e++) {
            ax->rf[4 * c + e] = coarsen ? (2 * c < nf ? 2 * c : nf - 1) : c;
            ax->rw[4 * c + e] = 0.0f;
        }
    float scale = coarsen ? 0.5f : 1.0f;
    for (int i = 0; i < nf; i++)
        for (int e = 0; e < 2; e++) {
            float w = ax->pw[2 * i + e];
            if (w == 0.0f) continue;
            int c = ax->pc[2 * i + e];
            if (cnt[c] >= 4) {
                free(cnt);
                return EDDY_ERR_UNSUPPORTED; /* cannot happen: two children and one neighbour on each side */
            }
            ax->rf[4 * c + cnt[c]] = i;
            ax->rw[4 * c + cnt[c]] = w * scale;
            cnt[c]++;
        }
    free(cnt);
    return EDDY_OK;
}

/* along x: coarse row t (nc values) from a fine row f (nf values) */
static void restrict_row_x(const eddy_paxis *ax, const float *restrict f, float *restrict t) {
    const int nc = ax->nc;
    if (!ax->coarsened) {
        memcpy(t, f, (size_t)nc * sizeof(float));
        return;
    }
    for (int c = 0; c < nc; c += (nc - 1 > 1 ? nc - 1 : 1)) {
        const int *rf = ax->rf + 4 * c;
        const float *rw = ax->rw + 4 * c;
        t[c] = rw[0] * f[rf[0]] + rw[1] * f[rf[1]] + rw[2] * f[rf[2]] + rw[3] * f[rf[3]];
    }
#pragma omp simd
    for (int c = 1; c < nc - 1; c++)
        t[c] = 0.125f * f[2 * c - 1] + 0.375f * f[2 * c] + 0.375f * f[2 * c + 1] + 0.125f * f[2 * c + 2];
}

/* along x: fine row from a coarse row t; add: f += s * interpolation, else f = interpolation */
static void prolong_row_x(const eddy_paxis *ax, const float *pw, const float *restrict t, float *restrict f,
                          const float *restrict s, bool add) {
    const int nf = ax->nf, nc = ax->nc;
    if (!ax->coarsened) {
        if (add) {
#pragma omp simd
            for (int i = 0; i < nf; i++) f[i] += s[i] * t[i];
        } else {
            memcpy(f, t, (size_t)nf * sizeof(float));
        }
        return;
    }
    /* the two end parents through the tables (walls, periodic wrap), the rest in the regular pattern */
    int ends[4] = {0, 1, 2 * (nc - 1), 2 * (nc - 1) + 1};
    for (int e = 0; e < 4; e++) {
        int i = ends[e];
        if (i >= nf || (e >= 2 && i < 2)) continue;
        float v = pw[2 * i] * t[ax->pc[2 * i]] + pw[2 * i + 1] * t[ax->pc[2 * i + 1]];
        f[i] = add ? f[i] + s[i] * v : v;
    }
    if (add) {
#pragma omp simd
        for (int c = 1; c < nc - 1; c++) {
            float lo = 0.75f * t[c] + 0.25f * t[c - 1], hi = 0.75f * t[c] + 0.25f * t[c + 1];
            f[2 * c] += s[2 * c] * lo;
            f[2 * c + 1] += s[2 * c + 1] * hi;
        }
    } else {
        for (int c = 1; c < nc - 1; c++) {
            f[2 * c] = 0.75f * t[c] + 0.25f * t[c - 1];
            f[2 * c + 1] = 0.75f * t[c] + 0.25f * t[c + 1];
        }
    }
}

/* out = w0 a0 + w1 a1 + w2 a2 + w3 a3 over n values, 0 where d <= 0 when d is given */
static void combine4(float *restrict out, const float *a0, const float *a1, const float *a2, const float *a3,
                     const float w[4], const float *d, int n) {
    const eddy_v4f w0 = eddy_v4_all(w[0]), w1 = eddy_v4_all(w[1]), w2 = eddy_v4_all(w[2]), w3 = eddy_v4_all(w[3]);
    const eddy_v4f zero = eddy_v4_all(0.0f);
    int c = 0;
    for (; c + 4 <= n; c += 4) {
        eddy_v4f v = w0 * eddy_v4_load(a0 + c) + w1 * eddy_v4_load(a1 + c) + w2 * eddy_v4_load(a2 + c) +
                     w3 * eddy_v4_load(a3 + c);
        if (d) v = eddy_v4_select(eddy_v4_positive(eddy_v4_load(d + c)), v, zero);
        eddy_v4_store(out + c, v);
    }
    for (; c < n; c++) {
        float v = w[0] * a0[c] + w[1] * a1[c] + w[2] * a2[c] + w[3] * a3[c];
        out[c] = !d || d[c] > 0.0f ? v : 0.0f;
    }
}

/* out = w0 a0 + w1 a1 over n values */
static void combine2(float *restrict out, const float *a0, const float *a1, float w0, float w1, int n) {
    const eddy_v4f v0 = eddy_v4_all(w0), v1 = eddy_v4_all(w1);
    int c = 0;
    for (; c + 4 <= n; c += 4) eddy_v4_store(out + c, v0 * eddy_v4_load(a0 + c) + v1 * eddy_v4_load(a1 + c));
    for (; c < n; c++) out[c] = w0 * a0[c] + w1 * a1[c];
}

/* Restriction, row by row: x into t1 (coarse x, fine y and z), y into t2 (3D) or the coarse vector (2D),
 * z into the coarse vector (3D). */
static void restrict_x_row(const eddy_poisson *P, int l, int row) {
    const eddy_plevel *F = &P->levels[l];
    restrict_row_x(&F->axis[0], F->r + eddy__plevel_row(F, row), P->t1 + (size_t)row * F->axis[0].nc);
}

static void restrict_y_row(const eddy_poisson *P, int l, int rr) {
    const eddy_plevel *F = &P->levels[l], *C = &P->levels[l + 1];
    const eddy_paxis *ax = F->axis;
    const int nc0 = ax[0].nc, n1 = F->n[1], nc1 = ax[1].nc;
    int cy = rr % nc1, k = rr / nc1;
    const int *rf = ax[1].rf + 4 * cy;
    const float *t1 = P->t1;
    const float *a0 = t1 + (size_t)(rf[0] + n1 * k) * nc0, *a1 = t1 + (size_t)(rf[1] + n1 * k) * nc0;
    const float *a2 = t1 + (size_t)(rf[2] + n1 * k) * nc0, *a3 = t1 + (size_t)(rf[3] + n1 * k) * nc0;
    if (F->dim == 2) {
        size_t o = eddy__plevel_row(C, cy);
        combine4(C->b + o, a0, a1, a2, a3, ax[1].rw + 4 * cy, C->diag + o, nc0);
    } else {
        combine4(P->t2 + (size_t)rr * nc0, a0, a1, a2, a3, ax[1].rw + 4 * cy, NULL, nc0);
    }
}

static void restrict_z_row(const eddy_poisson *P, int l, int crow) {
    const eddy_plevel *F = &P->levels[l], *C = &P->levels[l + 1];
    const eddy_paxis *ax = F->axis;
    const int nc0 = ax[0].nc, nc1 = ax[1].nc;
    int cy = crow % nc1, cz = crow / nc1;
    const int *rf = ax[2].rf + 4 * cz;
    const float *t2 = P->t2;
    const float *a0 = t2 + (size_t)(cy + nc1 * rf[0]) * nc0, *a1 = t2 + (size_t)(cy + nc1 * rf[1]) * nc0;
    const float *a2 = t2 + (size_t)(cy + nc1 * rf[2]) * nc0, *a3 = t2 + (size_t)(cy + nc1 * rf[3]) * nc0;
    size_t o = eddy__plevel_row(C, crow);
    combine4(C->b + o, a0, a1, a2, a3, ax[2].rw + 4 * cz, C->diag + o, nc0);
}

static void residual_restrict_x_row(const eddy_poisson *P, int l, int row) {
    const eddy_plevel *F = &P->levels[l];
    eddy__plevel_residual_row(F, F->x, F->b, F->r, true, row);
    restrict_x_row(P, l, row);
}

/* coarse b = mask * R (inv_weight * (b - A x)) of level l: the residual and the x pass row by row, then the y and
 * (3D) z passes, in one OpenMP team with a barrier between the passes */
static void restrict_residual(eddy_poisson *P, int l) {
    eddy_plevel *F = &P->levels[l];
    const eddy_plevel *C = &P->levels[l + 1];
    const int yrows = F->axis[1].nc * F->n[2];
    eddy__plevel_fill_ghosts(F, F->x, P->threads);
    if (!F->parallel || P->threads <= 1) {
        for (int row = 0; row < F->rows; row++) residual_restrict_x_row(P, l, row);
        for (int row = 0; row < yrows; row++) restrict_y_row(P, l, row);
        if (F->dim == 3)
            for (int row = 0; row < C->rows; row++) restrict_z_row(P, l, row);
        return;
    }
#pragma omp parallel num_threads(P->threads)
    {
#pragma omp for schedule(static)
        for (int row = 0; row < F->rows; row++) residual_restrict_x_row(P, l, row);
#pragma omp for schedule(static)
        for (int row = 0; row < yrows; row++) restrict_y_row(P, l, row);
        if (F->dim == 3) {
#pragma omp for schedule(static)
            for (int row = 0; row < C->rows; row++) restrict_z_row(P, l, row);
        }
    }
}

/* Prolongation, row by row: z into t2 (3D: coarse x and y, fine z), y into t1, x into the fine vector. */
static void prolong_z_row(const eddy_poisson *P, int l, const float *xc, bool norm, int rr) {
    const eddy_plevel *F = &P->levels[l], *C = &P->levels[l + 1];
    const eddy_paxis *ax = F->axis;
    const int nc0 = ax[0].nc, nc1 = ax[1].nc;
    const float *pw = norm ? ax[2].nw : ax[2].pw;
    int cy = rr % nc1, fz = rr / nc1;
    combine2(P->t2 + (size_t)rr * nc0, xc + eddy__plevel_row(C, cy + nc1 * ax[2].pc[2 * fz]),
             xc + eddy__plevel_row(C, cy + nc1 * ax[2].pc[2 * fz + 1]), pw[2 * fz], pw[2 * fz + 1], nc0);
}

static void prolong_yx_row(const eddy_poisson *P, int l, const float *xc, float *xf, bool add, bool norm, int row) {
    const eddy_plevel *F = &P->levels[l], *C = &P->levels[l + 1];
    const eddy_paxis *ax = F->axis;
    const int nc0 = ax[0].nc, n1 = F->n[1], nc1 = ax[1].nc;
    int fy = row % n1, fz = row / n1;
    const float *a0, *a1;
    if (F->dim == 3) {
        a0 = P->t2 + (size_t)(ax[1].pc[2 * fy] + nc1 * fz) * nc0;
        a1 = P->t2 + (size_t)(ax[1].pc[2 * fy + 1] + nc1 * fz) * nc0;
    } else {
        a0 = xc + eddy__plevel_row(C, ax[1].pc[2 * fy]);
        a1 = xc + eddy__plevel_row(C, ax[1].pc[2 * fy + 1]);
    }
    const float *pw = norm ? ax[1].nw : ax[1].pw;
    float *out = P->t1 + (size_t)row * nc0;
    combine2(out, a0, a1, pw[2 * fy], pw[2 * fy + 1], nc0);
    size_t o = eddy__plevel_row(F, row);
    prolong_row_x(&ax[0], norm ? ax[0].nw : ax[0].pw, out, xf + o, F->inv_weight + o, add);
}

/* fine xf (+)= [inv_weight *] P xc, from the coarse vector xc of level l+1 into level l; `norm` interpolates with
 * the weights of the normalisation sums instead (at build time) */
static void prolong_level(eddy_poisson *P, int l, const float *xc, float *xf, bool add, bool norm) {
    const eddy_plevel *F = &P->levels[l];
    const int nt = P->threads;
    if (F->dim == 3) EDDY_FOR_ROWS(F->parallel, nt, F->axis[1].nc * F->n[2], prolong_z_row(P, l, xc, norm, row));
    EDDY_FOR_ROWS(F->parallel, nt, F->rows, prolong_yx_row(P, l, xc, xf, add, norm, row));
}

/* ---------------------------------------------------------------- hierarchy */

eddy_status eddy__poisson_mg_alloc(eddy_poisson *P, int dim, const int n[3], const bool periodic[3],
                                   const bool outflow[6]) {
    int dims[MG_MAX_LEVELS][3];
    int times[MG_MAX_LEVELS][3];
    int nl = 1;
    for (int a = 0; a < 3; a++) {
        dims[0][a] = a < dim ? n[a] : 1;
        times[0][a] = 0;
    }
    while (nl < MG_MAX_LEVELS) {
        bool any = false;
        for (int a = 0; a < dim; a++) any = any || dims[nl - 1][a] >= 4;
        if (!any) break;
        for (int a = 0; a < 3; a++) {
            bool c = a < dim && dims[nl - 1][a] >= 4;
            dims[nl][a] = c ? (dims[nl - 1][a] + 1) / 2 : dims[nl - 1][a];
            times[nl][a] = times[nl - 1][a] + (c ? 1 : 0);
        }
        nl++;
    }
    P->levels = calloc((size_t)nl, sizeof(eddy_plevel));
    if (!P->levels) return EDDY_ERR_OUT_OF_MEMORY;
    P->nlevels = nl;
    for (int l = 0; l < nl; l++) {
        float w[3];
        for (int a = 0; a < 3; a++) w[a] = ldexpf(1.0f, -2 * times[l][a]);
        eddy_status st = eddy__plevel_alloc(&P->levels[l], dim, dims[l], periodic, outflow, w, l > 0);
        if (st != EDDY_OK) return st;
        /* x = 0 half a finest cell outside an outflow side on every level: a cell of width H = 2^t h is
         * (H + h)/2 from it, so its coupling is w * 2H / (H + h) */
        for (int a = 0; a < 3; a++) {
            float t2 = ldexpf(1.0f, times[l][a]);
            P->levels[l].dirichlet_factor[a] = 2.0f * t2 / (t2 + 1.0f);
        }
    }
    for (int l = 0; l + 1 < nl; l++)
        for (int a = 0; a < 3; a++) {
            bool dirichlet[2] = {a < dim && outflow[2 * a], a < dim && outflow[2 * a + 1]};
            /* fine cells of this level lie (2^t)/2 finest cells inside the side, their parents 2^t, the zero 1/2
             * outside: the weight on the parent is (2^t + 1) / (2^(t+1) + 1) */
            float t2 = ldexpf(1.0f, times[l][a]);
            eddy_status st = paxis_build(&P->levels[l].axis[a], dims[l][a], dims[l + 1][a] != dims[l][a],
                                         a < dim && periodic[a], dirichlet, (t2 + 1.0f) / (2.0f * t2 + 1.0f));
            if (st != EDDY_OK) return st;
        }
    const eddy_plevel *L0 = &P->levels[0];
    if (nl > 1) {
        const eddy_paxis *ax = L0->axis;
        P->t1 = malloc((size_t)ax[0].nc * L0->n[1] * L0->n[2] * sizeof(float));
        P->t2 = malloc((size_t)ax[0].nc * ax[1].nc * L0->n[2] * sizeof(float));
        if (!P->t1 || !P->t2) return EDDY_ERR_OUT_OF_MEMORY;
    }
    float **vecs[6] = {&P->sol, &P->rhs, &P->res, &P->z, &P->p, &P->q};
    for (int v = 0; v < 6; v++)
        if (!(*vecs[v] = calloc(L0->count, sizeof(float)))) return EDDY_ERR_OUT_OF_MEMORY;
    P->partial = calloc(2 * (size_t)L0->rows + 1, sizeof(double));
    if (!P->partial) return EDDY_ERR_OUT_OF_MEMORY;
    eddy_status st = eddy__plevel_alloc_components(&P->levels[0]);
    if (st == EDDY_OK && nl > 1) st = eddy__plevel_alloc_components(&P->levels[nl - 1]);
    return st;
}

eddy_status eddy__poisson_mg_build(eddy_poisson *P) {
    const int nt = P->threads;
    for (int l = 1; l < P->nlevels; l++) {
        eddy_plevel *F = &P->levels[l - 1], *C = &P->levels[l];
        const eddy_paxis *ax = F->axis;
        /* a coarse cell is fluid when any child is solved */
#pragma omp parallel for num_threads(nt) if (C->parallel) schedule(static)
        for (int crow = 0; crow < C->rows; crow++) {
            int cy = crow % C->n[1], cz = crow / C->n[1];
            float *m = C->scratch + eddy__plevel_row(C, crow);
            for (int cx = 0; cx < C->n[0]; cx++) {
                bool fluid = false;
                int ch[3][2], nch[3];
                int cc[3] = {cx, cy, cz};
                for (int a = 0; a < 3; a++) {
                    ch[a][0] = ax[a].coarsened ? 2 * cc[a] : cc[a];
                    nch[a] = ax[a].coarsened && 2 * cc[a] + 1 < ax[a].nf ? 2 : 1;
                    ch[a][1] = ch[a][0] + 1;
                }
                for (int c2 = 0; c2 < nch[2]; c2++)
                    for (int c1 = 0; c1 < nch[1]; c1++)
                        for (int c0 = 0; c0 < nch[0]; c0++) {
                            size_t fe = F->origin + (size_t)ch[0][c0] +
                                        (size_t)((ptrdiff_t)ch[1][c1] * F->sy + (ptrdiff_t)ch[2][c2] * F->sz);
                            fluid = fluid || F->diag[fe] > 0.0f;
                        }
                m[cx] = fluid ? 1.0f : 0.0f;
            }
        }
        eddy__plevel_build_diag(C, nt);
        /* interpolation weights of the fine cells: P applied to the indicator of solved coarse cells */
#pragma omp parallel for num_threads(nt) if (C->parallel) schedule(static)
        for (int crow = 0; crow < C->rows; crow++) {
            size_t o = eddy__plevel_row(C, crow);
            for (int cx = 0; cx < C->n[0]; cx++) C->scratch[o + cx] = C->diag[o + cx] > 0.0f ? 1.0f : 0.0f;
        }
        prolong_level(P, l - 1, C->scratch, F->r, false, true);
#pragma omp parallel for num_threads(nt) if (F->parallel) schedule(static)
        for (int row = 0; row < F->rows; row++) {
            size_t o = eddy__plevel_row(F, row);
            for (int i = 0; i < F->n[0]; i++) {
                float wsum = F->r[o + i];
                F->inv_weight[o + i] = F->diag[o + i] > 0.0f && wsum > 0.0f ? 1.0f / wsum : 0.0f;
            }
        }
    }
    if (P->nlevels > 1) eddy__plevel_label(&P->levels[P->nlevels - 1], nt);
    return EDDY_OK;
}

/* ---------------------------------------------------------------- V-cycle */

static void coarsest_solve(eddy_poisson *P) {
    int l = P->nlevels - 1;
    eddy_plevel *C = &P->levels[l];
    const int nt = P->threads;
    /* level 0 as the coarsest (a tiny grid): its right-hand side is the caller's, already mean-free */
    if (l > 0) eddy__plevel_remove_mean(C, C->b, P->partial, nt);
    for (int s = 0; s < EDDY_MG_COARSEST_SWEEPS; s++) eddy__plevel_sweep_pair(C, C->x, C->b, 0, 1.0f, s == 0, NULL, nt);
    for (int s = 0; s < EDDY_MG_COARSEST_SWEEPS; s++) eddy__plevel_sweep_pair(C, C->x, C->b, 1, 1.0f, false, NULL, nt);
    eddy__plevel_remove_mean(C, C->x, P->partial, nt);
}

double eddy__poisson_vcycle(eddy_poisson *P, float *in, float *out) {
    const int nt = P->threads, nl = P->nlevels;
    P->levels[0].b = in;
    P->levels[0].x = out;
    for (int l = 0; l + 1 < nl; l++) {
        eddy_plevel *L = &P->levels[l];
        const int sweeps = EDDY_MG_SWEEPS(L->dim, l);
        for (int s = 0; s < sweeps; s++) eddy__plevel_sweep_pair(L, L->x, L->b, 0, 1.0f, s == 0, NULL, nt);
        restrict_residual(P, l);
    }
    coarsest_solve(P);
    if (nl == 1) return eddy__plevel_dot(&P->levels[0], in, out, P->partial, nt);
    double dot = 0.0;
    for (int l = nl - 2; l >= 0; l--) {
        eddy_plevel *L = &P->levels[l];
        prolong_level(P, l, P->levels[l + 1].x, L->x, true, false);
        const int sweeps = EDDY_MG_SWEEPS(L->dim, l);
        for (int s = 0; s < sweeps; s++) {
            /* the last sweep of level 0 also sums in*out, row by row as each row becomes final */
            bool last = l == 0 && s == sweeps - 1;
            dot = eddy__plevel_sweep_pair(L, L->x, L->b, 1, 1.0f, false, last ? P->partial : NULL, nt);
        }
    }
    return dot;
}

/* ---------------------------------------------------------------- conjugate gradient */

/* x += alpha p, r -= alpha q; returns |r|^2 after removing the mean of r over each pure-Neumann component.
 * The true residual b - A x has no such mean (A x sums to zero over a component with no outflow), but the
 * recurrence accumulates one from rounding; once the rest of r is below float precision that constant would
 * steer the iteration (A cannot reduce it) and the true residual would grow again. */
static void cg_update_row(eddy_poisson *P, float alpha, bool mean_free, int row) {
    const eddy_plevel *L = &P->levels[0];
    const int n0 = L->n[0];
    size_t o = eddy__plevel_row(L, row);
    float *x = P->sol + o, *r = P->res + o;
    const float *p = P->p + o, *q = P->q + o;
    const eddy_v4f a = eddy_v4_all(alpha);
    int i = 0;
    for (; i + 4 <= n0; i += 4) {
        eddy_v4_store(x + i, eddy_v4_load(x + i) + a * eddy_v4_load(p + i));
        eddy_v4_store(r + i, eddy_v4_load(r + i) - a * eddy_v4_load(q + i));
    }
    for (; i < n0; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
    }
    P->partial[row] = eddy__row_dot(r, r, n0);
    if (mean_free) P->partial[L->rows + row] = eddy__row_masked_sum(r, L->diag + o, n0);
}

static double cg_update(eddy_poisson *P, float alpha) {
    eddy_plevel *L = &P->levels[0];
    const bool mean_free = L->comps.single_all;
    EDDY_FOR_ROWS(L->parallel, P->threads, L->rows, cg_update_row(P, alpha, mean_free, row));
    double rr = eddy__sum_rows(P->partial, L->rows);
    if (mean_free) {
        /* |r - m|^2 = |r|^2 - cells m^2 */
        double cells = L->comps.cells[0], m = eddy__sum_rows(P->partial + L->rows, L->rows) / cells;
        float mf = (float)m;
        EDDY_FOR_ROWS(L->parallel, P->threads, L->rows,
                      eddy__row_masked_add(P->res + eddy__plevel_row(L, row), L->diag + eddy__plevel_row(L, row), -mf,
                                           L->n[0]));
        rr -= cells * m * m;
    } else if (L->comps.count > 0) {
        eddy__plevel_remove_mean(L, P->res, P->partial, P->threads);
        rr = eddy__plevel_dot(L, P->res, P->res, P->partial, P->threads);
    }
    return rr;
}

/* r = b - A x, mean-free per pure-Neumann component; returns |r|^2 */
static double true_residual(eddy_poisson *P) {
    eddy_plevel *L = &P->levels[0];
    eddy__plevel_residual(L, P->sol, P->rhs, P->res, false, P->threads);
    eddy__plevel_remove_mean(L, P->res, P->partial, P->threads);
    return eddy__plevel_dot(L, P->res, P->res, P->partial, P->threads);
}

int eddy__poisson_mgpcg(eddy_poisson *P, double tol, double bnorm, int max_iterations, bool warm, double *initial2,
                        double *residual2, bool *converged) {
    eddy_plevel *L = &P->levels[0];
    const int nt = P->threads;
    *converged = false;
    if (warm) {
        /* the tolerance is relative to |b|, not to this residual: a good guess leaves less to reduce */
        *initial2 = true_residual(P);
        if (sqrt(*initial2) <= tol * bnorm) {
            *residual2 = *initial2;
            *converged = true;
            return 0;
        }
        /* a guess float cannot hold (a huge pressure written by the caller, or dt / (rho h) beyond float) made
         * infinities: start from 0 instead, as a cold solve does */
        if (!isfinite(*initial2)) warm = false;
    }
    if (!warm) {
        memset(P->sol, 0, L->count * sizeof(float));
        memcpy(P->res, P->rhs, L->count * sizeof(float));
        *initial2 = bnorm * bnorm;
    }
    /* the direction starts as the preconditioned residual */
    double rz = eddy__poisson_vcycle(P, P->res, P->z);
    memcpy(P->p, P->z, L->count * sizeof(float));
    double pq = eddy__plevel_apply(L, P->p, P->q, true, P->partial, nt);
    int it = 1;
    for (; it <= max_iterations; it++) {
        if (!(pq > 0.0) || !(rz > 0.0)) break; /* breakdown: nothing left that CG can reduce */
        double rr = cg_update(P, (float)(rz / pq));
        if (sqrt(rr) <= tol * bnorm) {
            *converged = true;
            break;
        }
        double rz_next = eddy__poisson_vcycle(P, P->res, P->z);
        float beta = (float)(rz_next / rz);
        rz = rz_next;
        /* p = z + beta p and q = A p in one pass */
        pq = eddy__plevel_direction_apply(L, P->p, P->z, beta, P->q, P->partial, nt);
    }
    /* the recurrence's residual drifts from the true one in float: report the true one */
    *residual2 = true_residual(P);
    return it > max_iterations ? max_iterations : (*converged ? it : it - 1);
}
