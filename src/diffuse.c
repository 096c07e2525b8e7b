/* Implicit viscosity and scalar diffusion:  dq/dt = nu lap q,  one backward Euler step
 *     (I - nu dt L) q^{n+1} = q*,
 * L the 5-point (2D) / 7-point (3D) Laplacian on the grid of q (each velocity component on its faces, dye and
 * temperature on the scalar grid, whose spacing may differ per axis). Unconditionally stable: I - nu dt L is a
 * symmetric M-matrix, so the step never raises the maximum (Stam 1999, "Stable Fluids", sec. 2; Bridson 2015,
 * "Fluid Simulation for Computer Graphics", ch. 8).
 *
 * Boundary conditions. Velocity component a:
 *   faces that are fixed (eddy__face_fixed: walls, inflow, faces touching solids) keep their value: Dirichlet;
 *   along a, a fixed neighbour face lies one cell away: Dirichlet at distance h;
 *   across a (tangential) at a domain face: no-slip 0, moving lid and inflow their tangential velocity, imposed on a
 *   wall half a cell away by the ghost value 2 u_wall - u; free-slip and outflow: zero normal gradient;
 *   across a next to a solid (the neighbour face touches a solid cell): no-slip with the solid's velocity, same
 *   ghost rule; periodic axes wrap.
 * Scalars: zero flux at walls and solids, periodic axes wrap.
 *
 * Solver: conjugate gradient with Jacobi preconditioner to a relative residual |r|/|b| <= 1e-6, matrix-free.
 * Fixed elements are identity rows with zero residual, so they never move. Dot products are accumulated in double,
 * one partial per row, and summed serially: the same bytes for any number of threads. */
#include "diffuse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFFUSE_TOLERANCE 1e-6
/* nu dt / h^2 beyond this is the steady (Laplace) limit to float precision; the cap keeps c * q finite */
#define DIFFUSE_MAX_COEFFICIENT 1e12

struct eddy_diffuse_ws {
    size_t cap;         /* elements per buffer */
    int row_cap;        /* rows per partial buffer */
    float *r, *p, *q;
    float *base;        /* 1 + the weights of the Dirichlet (fixed or wall) neighbours */
    float *inv_diag;    /* 1 / (base + the weights of the coupled neighbours): the Jacobi preconditioner */
    uint8_t *fixed;     /* 1: identity row (Dirichlet value, solid cell, periodic duplicate face) */
    uint8_t *links;     /* bit 2b: coupled to the -b neighbour, bit 2b+1: to the +b neighbour */
    double *part[6];    /* per-row partial sums of one pass (SUM_*) */
    eddy_diffuse_report report;
};

/* One linear system on one array: (I - sum_b c_b L_b) x = rhs. */
typedef struct diffusion_system {
    float *x;        /* the field, solved in place */
    int n[3];        /* array dimensions */
    int ext[3];      /* index range in use per axis (the period on a periodic axis) */
    bool wrap[3];
    float c[3];      /* coefficient per axis: k dt / spacing^2 */
    int dim;
    int component;   /* velocity component, or -1 for a scalar */
} diffusion_system;

static double sum_rows(const double *part, int rows) {
    double s = 0.0;
    for (int r = 0; r < rows; r++) s += part[r];
    return s;
}

static float coefficient(double k, double dt, double spacing) {
    double c = k * dt / (spacing * spacing);
    return (float)(c < DIFFUSE_MAX_COEFFICIENT ? c : DIFFUSE_MAX_COEFFICIENT);
}

/* Marks the identity rows: fixed faces and periodic duplicates (velocity), solid cells (scalars). */
static void mark_fixed(eddy_sim *s, const diffusion_system *sys) {
    uint8_t *fixed = s->diffuse->fixed;
    const int rows = sys->n[1] * sys->n[2], a = sys->component;
    const int *r = s->def.dye_scale;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % sys->n[1], k = row / sys->n[1];
        size_t e = (size_t)row * (size_t)sys->n[0];
        for (int i = 0; i < sys->n[0]; i++, e++) {
            if (a < 0) {
                fixed[e] = s->solid[eddy__idx(s->n, i / r[0], j / r[1], k / r[2])] != 0;
                continue;
            }
            int c[3] = {i, j, k};
            fixed[e] = (s->periodic[a] && c[a] == s->n[a]) || eddy__face_fixed(s, a, i, j, k);
        }
    }
}

/* Reductions of one pass, summed over rows in a fixed order. */
enum { SUM_A, SUM_B, SUM_C, SUM_D, SUM_E, SUM_F, SUM_COUNT };

static void sum_partials(const eddy_diffuse_ws *ws, int rows, int count, double out[SUM_COUNT]) {
    for (int k = 0; k < count; k++) out[k] = sum_rows(ws->part[k], rows);
}

/* Builds the couplings and the diagonals, folds the boundary values into the right-hand side and stores the
 * initial residual r = rhs - A x. Sums: |rhs|^2, |r|^2, sum rhs, sum r, unknowns, Dirichlet terms. */
static void setup_system(eddy_sim *s, const diffusion_system *sys, double sums[SUM_COUNT]) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], a = sys->component;
    const size_t stride[3] = {1, (size_t)sys->n[0], (size_t)sys->n[0] * (size_t)sys->n[1]};
    const float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % sys->n[1], k = row / sys->n[1];
        size_t e = (size_t)row * (size_t)sys->n[0];
        double b2 = 0.0, r2 = 0.0, bsum = 0.0, rsum = 0.0, unknowns = 0.0, dirichlet = 0.0;
        for (int i = 0; i < sys->n[0]; i++, e++) {
            if (ws->fixed[e]) {
                ws->links[e] = 0;
                ws->base[e] = ws->inv_diag[e] = 1.0f;
                ws->r[e] = 0.0f;
                continue;
            }
            int c[3] = {i, j, k};
            float base = 1.0f, rhs = x[e], coupled = 0.0f, coupled_weight = 0.0f;
            uint8_t links = 0;
            for (int b = 0; b < sys->dim; b++) {
                float cb = sys->c[b];
                for (int side = 0; side < 2; side++) {
                    int ib = c[b] + (side ? 1 : -1);
                    if (sys->wrap[b]) {
                        ib = ib < 0 ? sys->ext[b] - 1 : (ib >= sys->ext[b] ? 0 : ib);
                    } else if (ib < 0 || ib >= sys->ext[b]) {
                        /* beyond the domain: scalars and the normal direction of an outflow face are zero-flux */
                        if (a < 0 || b == a) continue;
                        const eddy_boundary *bd = &s->def.boundary[2 * b + side];
                        if (bd->type == EDDY_BOUNDARY_NOSLIP) {
                            base += 2.0f * cb;
                            dirichlet += 1.0;
                        } else if (bd->type == EDDY_BOUNDARY_MOVING || bd->type == EDDY_BOUNDARY_INFLOW) {
                            base += 2.0f * cb;
                            rhs += 2.0f * cb * bd->velocity[a];
                            dirichlet += 1.0;
                        }
                        continue;
                    }
                    size_t g = (size_t)((ptrdiff_t)e + ((ptrdiff_t)ib - c[b]) * (ptrdiff_t)stride[b]);
                    if (ws->fixed[g]) {
                        if (a < 0) continue; /* solid cell: no flux */
                        /* along a the fixed face is a node one cell away; across a it stands for a solid wall half
                         * a cell away (ghost value 2 u_solid - u) */
                        float w = b == a ? cb : 2.0f * cb;
                        base += w;
                        rhs += w * x[g];
                        dirichlet += 1.0;
                    } else {
                        coupled_weight += cb;
                        coupled += cb * (x[e] - x[g]);
                        links |= (uint8_t)(1u << (2 * b + side));
                    }
                }
            }
            /* A x as base x + sum c (x - x_nb): differences, not diag x - sum c x_nb, so that a constant is
             * reproduced exactly however large c is (no cancellation between 1 + 6c and 6c) */
            float res = rhs - (base * x[e] + coupled);
            ws->links[e] = links;
            ws->base[e] = base;
            ws->inv_diag[e] = 1.0f / (base + coupled_weight);
            ws->r[e] = res;
            b2 += (double)rhs * rhs;
            r2 += (double)res * res;
            bsum += rhs;
            rsum += res;
            unknowns += 1.0;
        }
        ws->part[SUM_A][row] = b2;
        ws->part[SUM_B][row] = r2;
        ws->part[SUM_C][row] = bsum;
        ws->part[SUM_D][row] = rsum;
        ws->part[SUM_E][row] = unknowns;
        ws->part[SUM_F][row] = dirichlet;
    }
    sum_partials(ws, rows, SUM_COUNT, sums);
}

/* offsets to the -b and +b neighbours of index ib along axis b, wrapping on periodic axes (used only where the
 * link bit says the neighbour is an unknown) */
static inline void neighbour_offsets(const diffusion_system *sys, int b, int ib, ptrdiff_t stride, ptrdiff_t *minus,
                                     ptrdiff_t *plus) {
    *minus = ib > 0 ? -stride : (ptrdiff_t)(sys->ext[b] - 1) * stride;
    *plus = ib + 1 < sys->ext[b] ? stride : -(ptrdiff_t)ib * stride;
}

/* q = A p. Sums: p . q, sum q. */
static void apply_operator(eddy_sim *s, const diffusion_system *sys, double sums[SUM_COUNT]) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
    const float c0 = sys->c[0], c1 = sys->c[1], c2 = sys->c[2];
    const float *p = ws->p;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % sys->n[1], k = row / sys->n[1];
        ptrdiff_t ym, yp, zm = 0, zp = 0;
        neighbour_offsets(sys, 1, j, n0, &ym, &yp);
        if (sys->dim == 3) neighbour_offsets(sys, 2, k, (ptrdiff_t)n0 * sys->n[1], &zm, &zp);
        size_t e = (size_t)row * (size_t)n0;
        double pq = 0.0, qsum = 0.0;
        const unsigned all = sys->dim == 3 ? 63u : 15u;
        const int last = sys->ext[0] - 1;
        for (int i = 0; i < n0; i++, e++) {
            unsigned l = ws->links[e];
            float sx = 0.0f, sy = 0.0f, sz = 0.0f;
            float pe = p[e];
            if (l == all && i > 0 && i < last) {
                /* interior: every neighbour an unknown, no wrap along x (same sums as the general path) */
                sx = (pe - p[e - 1]) + (pe - p[e + 1]);
                sy = (pe - p[(ptrdiff_t)e + ym]) + (pe - p[(ptrdiff_t)e + yp]);
                if (sys->dim == 3) sz = (pe - p[(ptrdiff_t)e + zm]) + (pe - p[(ptrdiff_t)e + zp]);
                float q = ws->base[e] * pe + (c0 * sx + c1 * sy + c2 * sz);
                ws->q[e] = q;
                pq += (double)pe * q;
                qsum += q;
                continue;
            }
            if (l & 1u) sx += pe - p[i > 0 ? e - 1 : e + (size_t)(sys->ext[0] - 1)];
            if (l & 2u) sx += pe - p[i + 1 < sys->ext[0] ? e + 1 : e - (size_t)i];
            if (l & 4u) sy += pe - p[(ptrdiff_t)e + ym];
            if (l & 8u) sy += pe - p[(ptrdiff_t)e + yp];
            if (l & 16u) sz += pe - p[(ptrdiff_t)e + zm];
            if (l & 32u) sz += pe - p[(ptrdiff_t)e + zp];
            float q = ws->base[e] * pe + (c0 * sx + c1 * sy + c2 * sz);
            ws->q[e] = q;
            pq += (double)pe * q;
            qsum += q;
        }
        ws->part[SUM_A][row] = pq;
        ws->part[SUM_B][row] = qsum;
    }
    sum_partials(ws, rows, 2, sums);
}

/* The sums of a residual update, per row: r . D^-1 r, r . r, sum D^-1 r, sum r */
typedef struct residual_sums {
    double rz, rr, zsum, rsum;
} residual_sums;

static inline void add_residual(residual_sums *acc, float r, float inv_diag) {
    float z = r * inv_diag;
    acc->rz += (double)r * z;
    acc->rr += (double)r * r;
    acc->zsum += z;
    acc->rsum += r;
}

static inline void store_residual_sums(eddy_diffuse_ws *ws, int row, const residual_sums *acc) {
    ws->part[SUM_A][row] = acc->rz;
    ws->part[SUM_B][row] = acc->rr;
    ws->part[SUM_C][row] = acc->zsum;
    ws->part[SUM_D][row] = acc->rsum;
}

/* x += alpha p, r -= alpha (q - q_mean) on the unknowns. Sums: r . D^-1 r, r . r, sum D^-1 r, sum r. */
static void update_solution(eddy_sim *s, const diffusion_system *sys, float alpha, float q_mean, double sums[SUM_COUNT]) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
    float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        residual_sums acc = {0};
        for (; e < end; e++) {
            if (ws->fixed[e]) continue;
            x[e] += alpha * ws->p[e];
            float r = ws->r[e] - alpha * (ws->q[e] - q_mean);
            ws->r[e] = r;
            add_residual(&acc, r, ws->inv_diag[e]);
        }
        store_residual_sums(ws, row, &acc);
    }
    sum_partials(ws, rows, 4, sums);
}

/* p = D^-1 r - z_mean + beta p on the unknowns (fixed rows keep p = 0) */
static void update_direction(eddy_sim *s, const diffusion_system *sys, float beta, float z_mean) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        for (; e < end; e++) ws->p[e] = ws->fixed[e] ? 0.0f : (ws->r[e] * ws->inv_diag[e] - z_mean) + beta * ws->p[e];
    }
}

/* r -= r_mean on the unknowns; p = 0 everywhere (the first direction is then D^-1 r - z_mean). Sums as
 * update_solution. */
static void start_direction(eddy_sim *s, const diffusion_system *sys, float r_mean, double sums[SUM_COUNT]) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        residual_sums acc = {0};
        for (; e < end; e++) {
            ws->p[e] = 0.0f;
            if (ws->fixed[e]) continue;
            float r = ws->r[e] - r_mean;
            ws->r[e] = r;
            add_residual(&acc, r, ws->inv_diag[e]);
        }
        store_residual_sums(ws, row, &acc);
    }
    sum_partials(ws, rows, 4, sums);
}

/* x += shift on the unknowns. Used to restore the exact total of a zero-flux system. */
static void shift_unknowns(eddy_sim *s, const diffusion_system *sys, float shift) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
    float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        for (; e < end; e++)
            if (!ws->fixed[e]) x[e] += shift;
    }
}

static double sum_unknowns(eddy_sim *s, const diffusion_system *sys) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
    const float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        double acc = 0.0;
        for (; e < end; e++)
            if (!ws->fixed[e]) acc += x[e];
        ws->part[SUM_A][row] = acc;
    }
    return sum_rows(ws->part[SUM_A], rows);
}

/* Solves the system in place by Jacobi-preconditioned CG; records iterations and residual in the report.
 *
 * Zero-flux systems (no Dirichlet term anywhere: scalars, fully periodic velocity) have the constant as an exact
 * eigenvector of A with eigenvalue 1, while the other eigenvalues reach 1 + 8c. In float, with c >> 1, rounding
 * in A p (terms of size c p) swamps that mode and the total drifts. So the constant is deflated: the residual
 * and the search directions are kept at zero mean over the unknowns (the projector P = I - 1 1^T / N commutes
 * with A, and P D^-1 P is a valid preconditioner on the complement), and the mean of x is set exactly from the
 * conservation law sum x = sum rhs. */
static void solve(eddy_sim *s, const diffusion_system *sys) {
    eddy_diffuse_ws *ws = s->diffuse;
    eddy_diffuse_report *rep = &ws->report;
    const int rows = sys->n[1] * sys->n[2];
    mark_fixed(s, sys);
    double setup[SUM_COUNT], sums[SUM_COUNT];
    setup_system(s, sys, setup);
    rep->solves++;
    const double unknowns = setup[SUM_E];
    const bool deflate = setup[SUM_F] == 0.0 && unknowns > 0;
    /* Target: 1e-6 of |rhs|, or of the initial residual when that is larger. With nu dt / h^2 >> 1 the guess
     * x0 = q* leaves r0 ~ c L q* far above |rhs|, and a float residual cannot be driven below ~1e-7 |r0|
     * (each update r -= alpha q rounds at that scale). The error is then still ~1e-6 |rhs|: the modes of r0
     * are those A damps by 1 + c lambda. */
    double rr = setup[SUM_B], bnorm = sqrt(setup[SUM_A]);
    double scale = bnorm > sqrt(rr) ? bnorm : sqrt(rr), target = DIFFUSE_TOLERANCE * scale;
    if (bnorm == 0.0) {
        /* rhs = 0 (no field, no boundary values): the solution is zero */
        for (int row = 0; row < rows; row++) {
            size_t e = (size_t)row * (size_t)sys->n[0], end = e + (size_t)sys->n[0];
            for (; e < end; e++)
                if (!ws->fixed[e]) sys->x[e] = 0.0f;
        }
        return;
    }
    /* Jacobi-preconditioned CG needs O(grid length) iterations in the steady limit (huge nu dt); this cap is a
     * generous multiple of that and only guards against stagnation in float arithmetic */
    const int max_iterations = 100 + 4 * (sys->ext[0] + sys->ext[1] + sys->ext[2]);
    int iterations = 0;
    double rz = 0.0;
    if (sqrt(rr) > target) {
        start_direction(s, sys, deflate ? (float)(setup[SUM_D] / unknowns) : 0.0f, sums);
        float z_mean = deflate ? (float)(sums[SUM_C] / unknowns) : 0.0f;
        rz = sums[SUM_A] - z_mean * sums[SUM_D];
        rr = sums[SUM_B];
        update_direction(s, sys, 0.0f, z_mean);
    }
    while (sqrt(rr) > target && iterations < max_iterations) {
        apply_operator(s, sys, sums);
        double pq = sums[SUM_A];
        if (!(pq > 0.0) || !(rz > 0.0)) break; /* exhausted (or non-finite input): nothing more to gain */
        float q_mean = deflate ? (float)(sums[SUM_B] / unknowns) : 0.0f;
        update_solution(s, sys, (float)(rz / pq), q_mean, sums);
        iterations++;
        rr = sums[SUM_B];
        if (sqrt(rr) <= target) break;
        float z_mean = deflate ? (float)(sums[SUM_C] / unknowns) : 0.0f;
        double rz_new = sums[SUM_A] - z_mean * sums[SUM_D];
        update_direction(s, sys, (float)(rz_new / rz), z_mean);
        rz = rz_new;
    }
    if (deflate) shift_unknowns(s, sys, (float)((setup[SUM_C] - sum_unknowns(s, sys)) / unknowns));
    float residual = (float)(sqrt(rr) / scale);
    if (iterations > rep->max_iterations) rep->max_iterations = iterations;
    rep->total_iterations += iterations;
    if (residual > rep->max_residual) rep->max_residual = residual;
    if (sqrt(rr) > target) rep->not_converged++;
}

/* ---------------------------------------------------------------- fields */

static bool field_is_zero(eddy_sim *s, const float *q, size_t count) {
    int nonzero = 0;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(| : nonzero)
    for (size_t i = 0; i < count; i++) nonzero |= q[i] != 0.0f;
    return !nonzero;
}

static void diffuse_velocity(eddy_sim *s, float dt) {
    for (int a = 0; a < s->dim; a++) {
        diffusion_system sys;
        sys.x = s->vel[a];
        sys.dim = s->dim;
        sys.component = a;
        eddy__face_dims(s, a, sys.n);
        for (int b = 0; b < 3; b++) {
            sys.wrap[b] = s->periodic[b];
            sys.ext[b] = s->periodic[b] ? s->n[b] : sys.n[b];
            sys.c[b] = b < s->dim ? coefficient(s->def.viscosity, dt, s->h) : 0.0f;
        }
        solve(s, &sys);
        if (s->periodic[a]) {
            /* face n repeats face 0 */
            float *v = s->vel[a];
            for (int k = 0; k < sys.n[2]; k++)
                for (int j = 0; j < sys.n[1]; j++)
                    for (int i = 0; i < sys.n[0]; i++) {
                        int c[3] = {i, j, k};
                        if (c[a] != s->n[a]) continue;
                        c[a] = 0;
                        v[eddy__idx(sys.n, i, j, k)] = v[eddy__idx(sys.n, c[0], c[1], c[2])];
                    }
        }
    }
}

static void diffuse_scalar(eddy_sim *s, float *q, float k, float dt) {
    if (field_is_zero(s, q, s->nscalar)) return; /* zero flux everywhere: zero stays zero */
    diffusion_system sys;
    sys.x = q;
    sys.dim = s->dim;
    sys.component = -1;
    for (int b = 0; b < 3; b++) {
        sys.n[b] = s->sn[b];
        sys.wrap[b] = s->periodic[b];
        sys.ext[b] = s->sn[b];
        sys.c[b] = b < s->dim ? coefficient(k, dt, s->sh[b]) : 0.0f;
    }
    solve(s, &sys);
}

/* ---------------------------------------------------------------- stage */

eddy_status eddy__diffuse_init(eddy_sim *s) {
    eddy_diffuse_ws *ws = (eddy_diffuse_ws *)calloc(1, sizeof *ws);
    s->diffuse = ws;
    if (!ws) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "diffusion: out of memory");
    size_t cap = s->nscalar;
    int rows = s->sn[1] * s->sn[2];
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        if (s->nface[a] > cap) cap = s->nface[a];
        if (fn[1] * fn[2] > rows) rows = fn[1] * fn[2];
    }
    ws->cap = cap;
    ws->row_cap = rows;
    bool ok = (ws->r = (float *)malloc(cap * sizeof(float))) && (ws->p = (float *)malloc(cap * sizeof(float))) &&
              (ws->q = (float *)malloc(cap * sizeof(float))) && (ws->inv_diag = (float *)malloc(cap * sizeof(float))) &&
              (ws->base = (float *)malloc(cap * sizeof(float))) &&
              (ws->fixed = (uint8_t *)malloc(cap)) && (ws->links = (uint8_t *)malloc(cap)) &&
              (ws->part[0] = (double *)malloc(6 * (size_t)rows * sizeof(double)));
    if (ok)
        for (int k = 1; k < 6; k++) ws->part[k] = ws->part[0] + (size_t)k * (size_t)rows;
    if (!ok) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "diffusion: out of memory for 5 work buffers of %zu floats", cap);
    return EDDY_OK;
}

void eddy__diffuse_free(eddy_sim *s) {
    eddy_diffuse_ws *ws = s->diffuse;
    if (!ws) return;
    free(ws->r);
    free(ws->p);
    free(ws->q);
    free(ws->inv_diag);
    free(ws->base);
    free(ws->fixed);
    free(ws->links);
    free(ws->part[0]);
    free(ws);
    s->diffuse = NULL;
}

eddy_status eddy__diffuse(eddy_sim *s, float dt) {
    eddy_diffuse_ws *ws = s->diffuse;
    if (!ws) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "diffusion: workspace missing (simulation not created?)");
    memset(&ws->report, 0, sizeof ws->report);
    if (s->def.viscosity > 0) diffuse_velocity(s, dt);
    if (s->def.dye_diffusion > 0)
        for (int c = 0; c < 3; c++) diffuse_scalar(s, s->dye[c], s->def.dye_diffusion, dt);
    if (s->def.temperature_diffusion > 0) diffuse_scalar(s, s->temperature, s->def.temperature_diffusion, dt);
    return EDDY_OK;
}

eddy_diffuse_report eddy__diffuse_last_report(const eddy_sim *s) {
    eddy_diffuse_report none;
    memset(&none, 0, sizeof none);
    return s && s->diffuse ? s->diffuse->report : none;
}
