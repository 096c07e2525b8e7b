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
/* nu dt / h^2 beyond this is the steady (Laplace) limit to float precision; the cap keeps diag * q finite */
#define DIFFUSE_MAX_COEFFICIENT 1e12

struct eddy_diffuse_ws {
    size_t cap;         /* elements per buffer */
    int row_cap;        /* rows per partial buffer */
    float *r, *p, *q, *diag;
    uint8_t *fixed;     /* 1: identity row (Dirichlet value, solid cell, periodic duplicate face) */
    uint8_t *links;     /* bit 2b: coupled to the -b neighbour, bit 2b+1: to the +b neighbour */
    double *part_a, *part_b;
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

/* Builds the couplings and the diagonal, folds the boundary values into the right-hand side and stores the
 * initial residual r = rhs - A x. Returns |rhs|^2 over the unknowns in *bb and |r|^2 in *rr. */
static void setup_system(eddy_sim *s, const diffusion_system *sys, double *bb, double *rr) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], a = sys->component;
    const size_t stride[3] = {1, (size_t)sys->n[0], (size_t)sys->n[0] * (size_t)sys->n[1]};
    const float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % sys->n[1], k = row / sys->n[1];
        size_t e = (size_t)row * (size_t)sys->n[0];
        double b2 = 0.0, r2 = 0.0;
        for (int i = 0; i < sys->n[0]; i++, e++) {
            if (ws->fixed[e]) {
                ws->links[e] = 0;
                ws->diag[e] = 1.0f;
                ws->r[e] = 0.0f;
                continue;
            }
            int c[3] = {i, j, k};
            float diag = 1.0f, rhs = x[e], coupled = 0.0f;
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
                            diag += 2.0f * cb;
                        } else if (bd->type == EDDY_BOUNDARY_MOVING || bd->type == EDDY_BOUNDARY_INFLOW) {
                            diag += 2.0f * cb;
                            rhs += 2.0f * cb * bd->velocity[a];
                        }
                        continue;
                    }
                    size_t g = (size_t)((ptrdiff_t)e + ((ptrdiff_t)ib - c[b]) * (ptrdiff_t)stride[b]);
                    if (ws->fixed[g]) {
                        if (a < 0) continue; /* solid cell: no flux */
                        /* along a the fixed face is a node one cell away; across a it stands for a solid wall half
                         * a cell away (ghost value 2 u_solid - u) */
                        float w = b == a ? cb : 2.0f * cb;
                        diag += w;
                        rhs += w * x[g];
                    } else {
                        diag += cb;
                        coupled += cb * x[g];
                        links |= (uint8_t)(1u << (2 * b + side));
                    }
                }
            }
            float res = rhs - (diag * x[e] - coupled);
            ws->links[e] = links;
            ws->diag[e] = diag;
            ws->r[e] = res;
            b2 += (double)rhs * rhs;
            r2 += (double)res * res;
        }
        ws->part_a[row] = b2;
        ws->part_b[row] = r2;
    }
    *bb = sum_rows(ws->part_a, rows);
    *rr = sum_rows(ws->part_b, rows);
}

/* offsets to the -b and +b neighbours of index ib along axis b, wrapping on periodic axes (used only where the
 * link bit says the neighbour is an unknown) */
static inline void neighbour_offsets(const diffusion_system *sys, int b, int ib, ptrdiff_t stride, ptrdiff_t *minus,
                                     ptrdiff_t *plus) {
    *minus = ib > 0 ? -stride : (ptrdiff_t)(sys->ext[b] - 1) * stride;
    *plus = ib + 1 < sys->ext[b] ? stride : -(ptrdiff_t)ib * stride;
}

/* q = A p; returns p . q */
static double apply_operator(eddy_sim *s, const diffusion_system *sys) {
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
        double pq = 0.0;
        for (int i = 0; i < n0; i++, e++) {
            unsigned l = ws->links[e];
            float sx = 0.0f, sy = 0.0f, sz = 0.0f;
            if (l & 1u) sx += p[i > 0 ? e - 1 : e + (size_t)(sys->ext[0] - 1)];
            if (l & 2u) sx += p[i + 1 < sys->ext[0] ? e + 1 : e - (size_t)i];
            if (l & 4u) sy += p[(ptrdiff_t)e + ym];
            if (l & 8u) sy += p[(ptrdiff_t)e + yp];
            if (l & 16u) sz += p[(ptrdiff_t)e + zm];
            if (l & 32u) sz += p[(ptrdiff_t)e + zp];
            float q = ws->diag[e] * p[e] - (c0 * sx + c1 * sy + c2 * sz);
            ws->q[e] = q;
            pq += (double)p[e] * q;
        }
        ws->part_a[row] = pq;
    }
    return sum_rows(ws->part_a, rows);
}

/* x += alpha p, r -= alpha q; returns r . D^-1 r in *rz and r . r in *rr */
static void update_solution(eddy_sim *s, const diffusion_system *sys, float alpha, double *rz, double *rr) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
    float *x = sys->x;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        double a = 0.0, b = 0.0;
        for (; e < end; e++) {
            x[e] += alpha * ws->p[e];
            float r = ws->r[e] - alpha * ws->q[e];
            ws->r[e] = r;
            a += (double)r * r / ws->diag[e];
            b += (double)r * r;
        }
        ws->part_a[row] = a;
        ws->part_b[row] = b;
    }
    *rz = sum_rows(ws->part_a, rows);
    *rr = sum_rows(ws->part_b, rows);
}

/* p = D^-1 r + beta p */
static void update_direction(eddy_sim *s, const diffusion_system *sys, float beta) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        for (; e < end; e++) ws->p[e] = ws->r[e] / ws->diag[e] + beta * ws->p[e];
    }
}

/* p = D^-1 r (the first search direction); returns r . p */
static double start_direction(eddy_sim *s, const diffusion_system *sys) {
    eddy_diffuse_ws *ws = s->diffuse;
    const int rows = sys->n[1] * sys->n[2], n0 = sys->n[0];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        size_t e = (size_t)row * (size_t)n0, end = e + (size_t)n0;
        double acc = 0.0;
        for (; e < end; e++) {
            ws->p[e] = ws->r[e] / ws->diag[e];
            acc += (double)ws->r[e] * ws->p[e];
        }
        ws->part_a[row] = acc;
    }
    return sum_rows(ws->part_a, rows);
}

/* Solves the system in place; records iterations and residual in the report. */
static void solve(eddy_sim *s, const diffusion_system *sys) {
    eddy_diffuse_ws *ws = s->diffuse;
    eddy_diffuse_report *rep = &ws->report;
    const int rows = sys->n[1] * sys->n[2];
    const size_t count = (size_t)rows * (size_t)sys->n[0];
    mark_fixed(s, sys);
    double bb, rr;
    setup_system(s, sys, &bb, &rr);
    rep->solves++;
    int iterations = 0;
    double bnorm = sqrt(bb), target = DIFFUSE_TOLERANCE * bnorm;
    if (bnorm == 0.0) {
        /* rhs = 0 (no field, no boundary values): the solution is zero */
        for (size_t e = 0; e < count; e++)
            if (!ws->fixed[e]) sys->x[e] = 0.0f;
        return;
    }
    /* Jacobi-preconditioned CG needs O(grid length) iterations in the steady limit (huge nu dt); this cap is a
     * generous multiple of that and only guards against stagnation in float arithmetic */
    const int max_iterations = 100 + 4 * (sys->ext[0] + sys->ext[1] + sys->ext[2]);
    double rz = sqrt(rr) > target ? start_direction(s, sys) : 0.0;
    while (sqrt(rr) > target && iterations < max_iterations) {
        double pq = apply_operator(s, sys);
        if (!(pq > 0.0)) break; /* exhausted (or non-finite input): nothing more to gain */
        double rz_new;
        update_solution(s, sys, (float)(rz / pq), &rz_new, &rr);
        iterations++;
        if (sqrt(rr) <= target) break;
        update_direction(s, sys, (float)(rz_new / rz));
        rz = rz_new;
    }
    float residual = (float)(sqrt(rr) / bnorm);
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
              (ws->q = (float *)malloc(cap * sizeof(float))) && (ws->diag = (float *)malloc(cap * sizeof(float))) &&
              (ws->fixed = (uint8_t *)malloc(cap)) && (ws->links = (uint8_t *)malloc(cap)) &&
              (ws->part_a = (double *)malloc((size_t)rows * sizeof(double))) &&
              (ws->part_b = (double *)malloc((size_t)rows * sizeof(double)));
    if (!ok) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "diffusion: out of memory for 4 work buffers of %zu floats", cap);
    return EDDY_OK;
}

void eddy__diffuse_free(eddy_sim *s) {
    eddy_diffuse_ws *ws = s->diffuse;
    if (!ws) return;
    free(ws->r);
    free(ws->p);
    free(ws->q);
    free(ws->diag);
    free(ws->fixed);
    free(ws->links);
    free(ws->part_a);
    free(ws->part_b);
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
