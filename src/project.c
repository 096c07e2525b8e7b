/* Pressure projection (Chorin 1968; Stam 1999, "Stable Fluids"; Bridson 2015, "Fluid Simulation for Computer
 * Graphics", ch. 5): u <- u - dt/rho grad p with p chosen so that the discrete divergence of u vanishes in every
 * fluid cell of the MAC grid (Harlow & Welch 1965).
 *
 * Units. The solvers work on x = phi / h with phi = dt p / rho (m^2/s), so x is in m/s and the correction of an
 * open face is simply u_f -= x_hi - x_lo. The system is A x = b with b_c = -(net outward flux of u through c)
 * (m/s) and A the 5/7-point Laplacian stencil over open faces (poisson.h). s->pressure receives the physical
 * pressure in Pa, p = rho h x / dt, 0 in solid cells; it is mean-free over each region without an outflow side.
 *
 * Boundaries. Faces that keep a prescribed value (eddy__face_fixed: walls, inflow, faces touching a solid, with
 * the solid's velocity already written by the boundary stage) are closed: their flux enters b, the correction
 * leaves them alone, so a moving obstacle pushes the fluid around it. Outflow sides are open with p = 0 outside;
 * periodic axes wrap. Solid cells and fluid cells with every face closed are not solved.
 *
 * Null space. A connected fluid region with no outflow face determines p only up to a constant, and its b sums
 * to the net inflow through its closed faces (zero when the prescribed velocities conserve volume). The mean of b
 * over each such region is removed before solving (the part no pressure can remove) and the solution is made
 * mean-free. The reported residual is |b - A x| / |b| over solved cells for this mean-free b.
 *
 * Solvers (def.pressure): MGPCG (poisson_mg.c, default) and red-black SOR (poisson_iterative.c) iterate to the
 * tolerance; Jacobi runs exactly max_iterations. All start from x = 0, except MGPCG with pressure.warm_start,
 * which starts from the pressure of the last step converted to this step's x (x0 = p dt / (rho h) in solved cells).
 * x0 is computed from s->pressure alone, which is part of the saved state, so a loaded simulation continues bit
 * for bit; the stopping test stays |r| <= tol |b|, so the answer meets the same tolerance in fewer iterations.
 *
 * Refinement (MGPCG). x is float32, so no x has a residual below ~1e-7 |A||x|: where the pressure is large and
 * smooth next to a small divergence (a broad splat every step: 5-9e-5 of |b| at 512^2, 2.6e-4 at 1024^2) that is
 * above the tolerance. When the recomputed residual misses it, the velocity is corrected with the x found and the
 * solve runs again from 0 on the divergence left, its x added to the pressure: the corrections add up in the
 * velocity, whose rounding is L/h times finer. In exact arithmetic this is a CG restart from the true residual
 * (which also catches the recurrence drifting from the true residual on large grids). */
#include "poisson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void poisson_free(eddy_poisson *P) {
    if (!P) return;
    if (P->levels) {
        for (int l = 0; l < P->nlevels; l++) {
            if (l > 0) {
                free(P->levels[l].x);
                free(P->levels[l].b);
            }
            eddy__plevel_free(&P->levels[l]);
        }
        free(P->levels);
    }
    free(P->sol);
    free(P->rhs);
    free(P->res);
    free(P->z);
    free(P->p);
    free(P->q);
    free(P->t1);
    free(P->t2);
    free(P->partial);
    free(P->solid_seen);
    free(P);
}

void eddy__project_free(eddy_sim *s) {
    poisson_free(s->poisson);
    s->poisson = NULL;
}

eddy_status eddy__project_init(eddy_sim *s) {
    eddy_poisson *P = calloc(1, sizeof *P);
    if (!P) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory allocating the pressure solver");
    s->poisson = P;
    bool outflow[6];
    for (int f = 0; f < 6; f++)
        outflow[f] = f < 2 * s->dim && !s->periodic[f / 2] && s->def.boundary[f].type == EDDY_BOUNDARY_OUTFLOW;
    eddy_status st = eddy__poisson_mg_alloc(P, s->dim, s->n, s->periodic, outflow);
    if (st == EDDY_OK && !(P->solid_seen = malloc(s->ncells))) st = EDDY_ERR_OUT_OF_MEMORY;
    if (st != EDDY_OK) {
        eddy__project_free(s);
        return eddy__fail(s, st, "out of memory allocating the pressure solver for a %d x %d x %d grid", s->n[0],
                          s->n[1], s->n[2]);
    }
    return EDDY_OK;
}

/* Operator of level 0 and the multigrid hierarchy from the current solid cells. */
static eddy_status build_operator(eddy_sim *s, eddy_poisson *P) {
    eddy_plevel *L = &P->levels[0];
    const int n0 = s->n[0];
#pragma omp parallel for num_threads(P->threads) if (L->parallel) schedule(static)
    for (int row = 0; row < L->rows; row++) {
        float *m = L->scratch + eddy__plevel_row(L, row);
        const uint8_t *solid = s->solid + (size_t)row * n0;
        for (int i = 0; i < n0; i++) m[i] = solid[i] == EDDY_CELL_SOLID ? 0.0f : 1.0f;
    }
    eddy__plevel_build_diag(L, P->threads);
    eddy__plevel_label(L, P->threads);
    eddy_status st = eddy__poisson_mg_build(P);
    if (st != EDDY_OK) return eddy__fail(s, st, "pressure solver: out of memory building the operator");
    memcpy(P->solid_seen, s->solid, s->ncells);
    P->built = true;
    return EDDY_OK;
}

/* b = -(net outward flux) in solved cells, 0 elsewhere */
static void rhs_row(const eddy_sim *s, eddy_poisson *P, int row) {
    const eddy_plevel *L = &P->levels[0];
    const int n0 = s->n[0], n1 = s->n[1];
    const size_t sv = (size_t)n0, sw = (size_t)n0 * n1;
    int j = row % n1, k = row / n1;
    size_t o = eddy__plevel_row(L, row);
    float *b = P->rhs + o;
    const float *d = L->diag + o;
    const float *u = s->vel[0] + (size_t)row * (size_t)(n0 + 1);
    const float *v0 = s->vel[1] + ((size_t)j + (size_t)(n1 + 1) * k) * sv, *v1 = v0 + sv;
    const float *w0 = s->dim == 3 ? s->vel[2] + (size_t)j * n0 + (size_t)k * sw : NULL, *w1 = w0 ? w0 + sw : NULL;
    const eddy_v4f zero = eddy_v4_all(0.0f);
    int i = 0;
    for (; i + 4 <= n0; i += 4) {
        eddy_v4f flux = (eddy_v4_load(u + i + 1) - eddy_v4_load(u + i)) + (eddy_v4_load(v1 + i) - eddy_v4_load(v0 + i));
        if (w0) flux = flux + (eddy_v4_load(w1 + i) - eddy_v4_load(w0 + i));
        eddy_v4_store(b + i, eddy_v4_select(eddy_v4_positive(eddy_v4_load(d + i)), -flux, zero));
    }
    for (; i < n0; i++) {
        float flux = (u[i + 1] - u[i]) + (v1[i] - v0[i]);
        if (w0) flux = flux + (w1[i] - w0[i]);
        b[i] = d[i] > 0.0f ? -flux : 0.0f;
    }
}

/* b, mean-free over each pure-Neumann component (the part of it no pressure can remove) */
static void compute_rhs(const eddy_sim *s, eddy_poisson *P) {
    eddy_plevel *L = &P->levels[0];
    EDDY_FOR_ROWS(L->parallel, P->threads, L->rows, rhs_row(s, P, row));
    eddy__plevel_remove_mean(L, P->rhs, P->partial, P->threads);
}

/* u -= x_hi - x_lo on open faces. Faces between two solved cells are open; non-periodic domain faces are
 * open only on outflow sides (x = 0 outside); periodic face n repeats face 0. */
static void open_faces_update(float *u, const float *xh, const float *xl, const float *dh, const float *dl, int n) {
    const eddy_v4f zero = eddy_v4_all(0.0f);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        eddy_v4i open = eddy_v4_positive(eddy_v4_load(dh + i)) & eddy_v4_positive(eddy_v4_load(dl + i));
        eddy_v4f g = eddy_v4_load(xh + i) - eddy_v4_load(xl + i);
        eddy_v4_store(u + i, eddy_v4_load(u + i) - eddy_v4_select(open, g, zero));
    }
    for (; i < n; i++) u[i] -= (dh[i] > 0.0f && dl[i] > 0.0f) ? xh[i] - xl[i] : 0.0f;
}

/* x faces of one cell row (n0 + 1 faces) */
static void correct_x_row(eddy_sim *s, const eddy_poisson *P, int row) {
    const eddy_plevel *L = &P->levels[0];
    const int n0 = s->n[0];
    size_t o = eddy__plevel_row(L, row);
    const float *x = P->sol + o, *d = L->diag + o;
    float *u = s->vel[0] + (size_t)row * (size_t)(n0 + 1);
    if (s->periodic[0]) {
        /* face 0 couples cell n0-1 (the ghost at -1) and cell 0 */
        open_faces_update(u, x, x - 1, d, d - 1, n0);
        u[n0] = u[0];
        return;
    }
    open_faces_update(u + 1, x + 1, x, d + 1, d, n0 - 1);
    if (L->outflow[0] && d[0] > 0.0f) u[0] -= x[0];
    if (L->outflow[1] && d[n0 - 1] > 0.0f) u[n0] += x[n0 - 1];
}

/* one row of faces of axis a (1: y, 2: z); face layer f lies between cell layers f-1 and f */
static void correct_yz_row(eddy_sim *s, const eddy_poisson *P, int a, int fr) {
    const eddy_plevel *L = &P->levels[0];
    const int n0 = s->n[0], na = s->n[a];
    int fn[3];
    eddy__face_dims(s, a, fn);
    int j = fr % fn[1], k = fr / fn[1];
    int f = a == 1 ? j : k;
    const bool per = s->periodic[a];
    if (per && f == na) return; /* written together with face 0 */
    const ptrdiff_t stride = a == 1 ? L->sy : L->sz;
    float *u = s->vel[a] + (size_t)fr * (size_t)n0;
    /* the cell above the face (layer f; for f = na the ghost layer, which holds 0) */
    size_t o = L->origin + (size_t)((ptrdiff_t)j * L->sy + (ptrdiff_t)k * L->sz);
    const float *xh = P->sol + o, *xl = xh - stride, *dh = L->diag + o, *dl = dh - stride;
    if ((f > 0 && f < na) || per) {
        /* for a periodic f = 0 the cell below is the ghost copy of layer na-1 */
        open_faces_update(u, xh, xl, dh, dl, n0);
        if (per && f == 0) memcpy(u + (size_t)na * (a == 1 ? (size_t)n0 : (size_t)n0 * s->n[1]), u, (size_t)n0 * sizeof(float));
    } else if (f == 0 && L->outflow[2 * a]) {
        for (int i = 0; i < n0; i++) u[i] -= dh[i] > 0.0f ? xh[i] : 0.0f;
    } else if (f == na && L->outflow[2 * a + 1]) {
        for (int i = 0; i < n0; i++) u[i] += dl[i] > 0.0f ? xl[i] : 0.0f;
    }
}

static void correct_velocity(eddy_sim *s, eddy_poisson *P) {
    const eddy_plevel *L = &P->levels[0];
    eddy__plevel_fill_ghosts(L, P->sol, P->threads);
    EDDY_FOR_ROWS(L->parallel, P->threads, L->rows, correct_x_row(s, P, row));
    for (int a = 1; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        EDDY_FOR_ROWS(L->parallel, P->threads, fn[1] * fn[2], correct_yz_row(s, P, a, row));
    }
}

/* p = scale x, or p += scale x (add: a refinement's x) */
static void pressure_row(eddy_sim *s, const eddy_poisson *P, float scale, bool add, int row) {
    const float *x = P->sol + eddy__plevel_row(&P->levels[0], row);
    float *p = s->pressure + (size_t)row * s->n[0];
    if (add)
        for (int i = 0; i < s->n[0]; i++) p[i] += scale * x[i];
    else
        for (int i = 0; i < s->n[0]; i++) p[i] = scale * x[i];
}

/* x0 = p / scale on solved cells, 0 elsewhere (the warm start) */
static void warm_row(eddy_sim *s, eddy_poisson *P, float inv_scale, int row) {
    size_t o = eddy__plevel_row(&P->levels[0], row);
    float *x = P->sol + o;
    const float *d = P->levels[0].diag + o, *p = s->pressure + (size_t)row * s->n[0];
    for (int i = 0; i < s->n[0]; i++) x[i] = d[i] > 0.0f ? inv_scale * p[i] : 0.0f;
}

static void write_pressure(eddy_sim *s, const eddy_poisson *P, float scale, bool add) {
    const eddy_plevel *L = &P->levels[0];
    EDDY_FOR_ROWS(L->parallel, P->threads, L->rows, pressure_row(s, P, scale, add, row));
}

/* a solve's x applied: made mean-free over each region without outflow (a null-space shift: A x is unchanged), the
 * velocity corrected, the pressure written (add: added to the one written before, a refinement) */
static void apply_solution(eddy_sim *s, eddy_poisson *P, float scale, bool add) {
    eddy__plevel_remove_mean(&P->levels[0], P->sol, P->partial, P->threads);
    correct_velocity(s, P);
    write_pressure(s, P, scale, add);
}

/* MGPCG with the refinements of the header: returns the iterations of all the solves, the last one's |b - A x|^2
 * (its b the divergence the earlier corrections left, so this is the divergence left now) in residual2, and the
 * first one's |b - A x0| / |b| in initial_rel. The velocity is corrected and the pressure written (p = scale x). */
static int project_mgpcg(eddy_sim *s, eddy_poisson *P, float dt, float scale, double bnorm, double *residual2,
                         double *initial_rel) {
    const eddy_pressure_def *pd = &s->def.pressure;
    eddy_plevel *L = &P->levels[0];
    const int max_it = pd->max_iterations > 0 ? pd->max_iterations : MGPCG_DEFAULT_ITERATIONS;
    const bool warm = pd->warm_start != 0;
    if (warm) {
        const float inv_scale = dt / (s->def.density * s->h);
        EDDY_FOR_ROWS(L->parallel, P->threads, L->rows, warm_row(s, P, inv_scale, row));
    }
    int iterations = 0;
    double last = INFINITY;
    for (int refinement = 0;; refinement++) {
        double initial2;
        bool converged;
        iterations += eddy__poisson_mgpcg(P, pd->tolerance, bnorm, max_it - iterations, warm && refinement == 0,
                                          &initial2, residual2, &converged);
        if (refinement == 0) *initial_rel = sqrt(initial2) / bnorm;
        apply_solution(s, P, scale, refinement > 0);
        if (!converged || sqrt(*residual2) <= pd->tolerance * bnorm || refinement == MGPCG_MAX_REFINEMENTS ||
            iterations >= max_it || *residual2 > 0.25 * last)
            return iterations;
        last = *residual2;
        compute_rhs(s, P);
    }
}

eddy_status eddy__pressure_scale_check(eddy_sim *s, float dt) {
    if (isfinite(s->def.density * s->h / dt)) return EDDY_OK;
    return eddy__fail(s, EDDY_ERR_NON_FINITE,
                      "projection: the pressure scale density h / dt = %g kg/(m^2 s) overflows float (density = %g "
                      "kg/m^3, h = %g m, dt = %g s): the pressure in Pa cannot be stored; use a larger dt or a "
                      "smaller density (velocity left unprojected)",
                      (double)s->def.density * s->h / dt, (double)s->def.density, (double)s->h, (double)dt);
}

eddy_status eddy__rbgs_diverged(eddy_sim *s, float omega, int iterations, double rel) {
    static const char axis_name[3] = {'x', 'y', 'z'};
    s->stats.pressure_iterations = iterations;
    s->stats.pressure_residual = (float)rel;
    s->stats.pressure_residual_initial = 1.0f;
    for (int a = 0; a < s->dim; a++)
        if (s->periodic[a] && s->n[a] % 2 == 1)
            return eddy__fail(s, EDDY_ERR_NON_FINITE,
                              "pressure: red-black SOR diverged (|r|/|b| = %.3g after %d iterations): pressure.omega = %g "
                              "with the periodic %c axis of odd length %d, whose first and last cells share a colour; "
                              "use pressure.omega <= 1, an even grid[%d] or MGPCG (velocity left unprojected)",
                              rel, iterations, (double)omega, axis_name[a], s->n[a], a);
    return eddy__fail(s, EDDY_ERR_NON_FINITE,
                      "pressure: red-black SOR diverged (|r|/|b| = %.3g after %d iterations) with pressure.omega = %g; "
                      "use MGPCG (velocity left unprojected)", rel, iterations, (double)omega);
}

eddy_status eddy__project(eddy_sim *s, float dt) {
    eddy_poisson *P = s->poisson;
    if (!P) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "pressure solver not initialised");
    if (!(dt > 0.0f) || !isfinite(dt))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "projection dt = %g: must be a positive number of seconds",
                          (double)dt);
    const float scale = s->def.density * s->h / dt;
    eddy_status scale_st = eddy__pressure_scale_check(s, dt);
    if (scale_st != EDDY_OK) return scale_st;
    P->threads = EDDY_THREADS(s);
    if (!P->built || memcmp(P->solid_seen, s->solid, s->ncells) != 0) {
        eddy_status st = build_operator(s, P);
        if (st != EDDY_OK) return st;
    }
    eddy_plevel *L = &P->levels[0];
    compute_rhs(s, P);
    double bnorm = sqrt(eddy__plevel_dot(L, P->rhs, P->rhs, P->partial, P->threads));
    const eddy_pressure_def *pd = &s->def.pressure;
    int iterations = 0;
    double residual = 0.0, residual2 = 0.0, residual_initial = 1.0;
    if (bnorm > 0.0 && isfinite(bnorm)) {
        if (pd->solver == EDDY_PRESSURE_JACOBI) {
            iterations = pd->max_iterations > 0 ? pd->max_iterations : JACOBI_DEFAULT_ITERATIONS;
            eddy__poisson_jacobi(P, iterations, &residual2);
            apply_solution(s, P, scale, false);
        } else if (pd->solver == EDDY_PRESSURE_RBGS) {
            const float omega = pd->omega > 0.0f ? pd->omega : 1.0f;
            bool diverged;
            iterations = eddy__poisson_rbgs(P, omega, pd->tolerance, bnorm,
                                            pd->max_iterations > 0 ? pd->max_iterations : RBGS_DEFAULT_ITERATIONS,
                                            &residual2, &diverged);
            if (diverged) return eddy__rbgs_diverged(s, omega, iterations, sqrt(residual2) / bnorm);
            apply_solution(s, P, scale, false);
        } else {
            iterations = project_mgpcg(s, P, dt, scale, bnorm, &residual2, &residual_initial); /* applies its x itself */
        }
        residual = sqrt(residual2) / bnorm;
    } else {
        memset(P->sol, 0, L->count * sizeof(float));
        write_pressure(s, P, scale, false);
    }
    s->stats.pressure_iterations = iterations;
    s->stats.pressure_residual = (float)residual;
    s->stats.pressure_residual_initial = bnorm > 0.0 ? (float)residual_initial : 0.0f;
    return EDDY_OK;
}
