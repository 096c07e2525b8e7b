/* Pressure projection: random divergent fields in 2D and 3D on sizes that are not powers of two, with walls,
 * periodic axes, outflow sides and obstacles.
 *  - MGPCG leaves max |div u| <= 1e-5 of the initial max |div u| (the tolerance the issue asks for; the solver
 *    runs to 1e-7 relative residual, so float rounding of the velocities, about 1e-7 relative, sets the floor);
 *  - faces touching solids keep the solid's velocity (bit for bit: the projection never writes them);
 *  - projecting twice changes nothing (to the velocity scale times 1e-5);
 *  - residual decay: after the same number of iterations MGPCG < red-black Gauss-Seidel < Jacobi, and Jacobi's
 *    decay per iteration matches its spectral radius cos(pi/n) on a periodic grid of odd n (within 1%);
 *  - the same bytes with 1 and 2 threads;
 *  - a moving obstacle pushes the fluid: flow appears in front of it and around it;
 *  - where float32 cannot hold an x that meets the tolerance (a broad splat every step), the projection still does.
 * `--full` (EDDY_FULL_SIZE) repeats the divergence checks at 512^2 and 128^3. */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int full_size;

typedef struct {
    int dim, n[3];
    eddy_boundary_type bnd[6];
    eddy_pressure_solver solver;
    int max_iterations;
    float tolerance, omega;
    int threads;
} setup;

static setup setup_default(int dim, int nx, int ny, int nz) {
    setup u;
    memset(&u, 0, sizeof u);
    u.dim = dim;
    u.n[0] = nx;
    u.n[1] = ny;
    u.n[2] = nz;
    for (int f = 0; f < 6; f++) u.bnd[f] = EDDY_BOUNDARY_WALL;
    u.solver = EDDY_PRESSURE_MGPCG;
    u.tolerance = 1e-6f;
    return u;
}

static eddy_sim *make_sim(const setup *u) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = u->dim;
    d.grid[0] = u->n[0];
    d.grid[1] = u->n[1];
    d.grid[2] = u->n[2];
    d.size[0] = 1.0f;
    d.dt = 0.01f;
    for (int f = 0; f < 6; f++) d.boundary[f].type = u->bnd[f];
    d.pressure.solver = u->solver;
    d.pressure.max_iterations = u->max_iterations;
    d.pressure.tolerance = u->tolerance;
    d.pressure.omega = u->omega;
    d.threads = u->threads;
    eddy_sim *s = NULL;
    char msg[256];
    eddy_status st = eddy_sim_create(&d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return s;
}

static uint32_t rng_state;
static float rnd(void) { /* uniform in [-1, 1), deterministic */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / (float)(1u << 23) - 1.0f;
}

static void random_velocity(eddy_sim *s, uint32_t seed) {
    rng_state = seed;
    for (int a = 0; a < s->dim; a++)
        for (size_t f = 0; f < s->nface[a]; f++) s->vel[a][f] = rnd();
}

/* the pipeline up to the projection, as a step runs it: solids, boundary values, then the solve */
static eddy_status project(eddy_sim *s) {
    eddy_status st = eddy__rasterize_solids(s);
    if (st != EDDY_OK) return st;
    eddy__apply_velocity_boundaries(s);
    return eddy__project(s, s->def.dt);
}

static float cell_div(const eddy_sim *s, int i, int j, int k) {
    int fu[3], fv[3], fw[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    float d = s->vel[0][eddy__idx(fu, i + 1, j, k)] - s->vel[0][eddy__idx(fu, i, j, k)] +
              s->vel[1][eddy__idx(fv, i, j + 1, k)] - s->vel[1][eddy__idx(fv, i, j, k)];
    if (s->dim == 3) {
        eddy__face_dims(s, 2, fw);
        d += s->vel[2][eddy__idx(fw, i, j, k + 1)] - s->vel[2][eddy__idx(fw, i, j, k)];
    }
    return d / s->h;
}

/* max |div| over fluid cells that have at least one face the projection may change */
static float max_div(const eddy_sim *s) {
    float m = 0.0f;
    for (int k = 0; k < s->n[2]; k++)
        for (int j = 0; j < s->n[1]; j++)
            for (int i = 0; i < s->n[0]; i++) {
                if (s->solid[eddy__idx(s->n, i, j, k)]) continue;
                bool open = false;
                for (int a = 0; a < s->dim && !open; a++) {
                    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
                    hi[a]++;
                    open = !eddy__face_fixed(s, a, lo[0], lo[1], lo[2]) || !eddy__face_fixed(s, a, hi[0], hi[1], hi[2]);
                }
                if (!open) continue;
                float d = fabsf(cell_div(s, i, j, k));
                if (d > m) m = d;
            }
    return m;
}

static float max_abs_velocity(const eddy_sim *s) {
    float m = 0.0f;
    for (int a = 0; a < s->dim; a++)
        for (size_t f = 0; f < s->nface[a]; f++) m = fmaxf(m, fabsf(s->vel[a][f]));
    return m;
}

static void add_sphere(eddy_sim *s, float cx, float cy, float cz, float r, float vx, float vy, float vz) {
    eddy_obstacle_def o;
    memset(&o, 0, sizeof o);
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = cx;
    o.center[1] = cy;
    o.center[2] = cz;
    o.radius = r;
    o.velocity[0] = vx;
    o.velocity[1] = vy;
    o.velocity[2] = vz;
    eddy_id id;
    CHECK(eddy_sim_add_obstacle(s, &o, &id) == EDDY_OK, "add obstacle: %s", eddy_sim_last_error(s));
}

/* ------------------------------------------------------------------ divergence after MGPCG */

static void check_divergence_case(const char *name, setup u, int obstacles, uint32_t seed) {
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    float L[3] = {s->h * s->n[0], s->h * s->n[1], s->h * s->n[2]};
    if (obstacles) {
        add_sphere(s, 0.3f * L[0], 0.4f * L[1], 0.5f * L[2], 0.12f * L[1], 0.0f, 0.0f, 0.0f);
        add_sphere(s, 0.7f * L[0], 0.6f * L[1], 0.5f * L[2], 0.08f * L[1], 0.5f, -0.3f, 0.2f);
    }
    random_velocity(s, seed);
    CHECK(eddy__rasterize_solids(s) == EDDY_OK, "%s rasterize", name);
    eddy__apply_velocity_boundaries(s);
    float div0 = max_div(s);
    /* remember the solid faces */
    float *saved[3] = {NULL, NULL, NULL};
    for (int a = 0; a < s->dim; a++) {
        saved[a] = malloc(s->nface[a] * sizeof(float));
        memcpy(saved[a], s->vel[a], s->nface[a] * sizeof(float));
    }
    eddy_status st = project(s);
    CHECK(st == EDDY_OK, "%s project: %s", name, eddy_sim_last_error(s));
    float div1 = max_div(s);
    const eddy_step_stats *ss = eddy_sim_stats(s);
    printf("  %-34s %3d x %3d x %3d  iterations %3d  residual %.2e  max|div| %.3e -> %.3e (ratio %.2e)\n", name,
           s->n[0], s->n[1], s->n[2], ss->pressure_iterations, (double)ss->pressure_residual, (double)div0,
           (double)div1, (double)(div1 / div0));
    CHECK(div1 <= 1e-5f * div0, "%s: max|div| %g after, %g before", name, (double)div1, (double)div0);
    /* the recomputed residual meets the tolerance, up to the float32 floor: ~2e-7 on small grids, ~1.5e-6 at 512^2
     * with a moving obstacle in a closed box (its large-scale pressure sets the rounding of x) */
    float floor32 = full_size ? 2e-6f : 1e-6f;
    CHECK(ss->pressure_residual <= fmaxf(u.tolerance, floor32), "%s: residual %g > tolerance %g", name,
          (double)ss->pressure_residual, (double)u.tolerance);
    /* faces touching solids and walls were not changed */
    long changed = 0, fixed = 0;
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    if (!eddy__face_fixed(s, a, i, j, k)) continue;
                    size_t f = eddy__idx(fn, i, j, k);
                    fixed++;
                    if (memcmp(&s->vel[a][f], &saved[a][f], sizeof(float)) != 0) changed++;
                }
    }
    CHECK(changed == 0, "%s: %ld of %ld fixed faces changed", name, changed, fixed);
    /* pressure is finite and zero in solids */
    bool ok = true;
    for (size_t c = 0; c < s->ncells; c++) ok = ok && isfinite(s->pressure[c]) && (!s->solid[c] || s->pressure[c] == 0);
    CHECK(ok, "%s: pressure not finite or nonzero in a solid", name);
    /* projecting again (no boundary stage between) changes nothing beyond the solver tolerance */
    for (int a = 0; a < s->dim; a++) memcpy(saved[a], s->vel[a], s->nface[a] * sizeof(float));
    float vscale = max_abs_velocity(s);
    CHECK(eddy__project(s, s->def.dt) == EDDY_OK, "%s second projection", name);
    float dmax = 0.0f;
    for (int a = 0; a < s->dim; a++)
        for (size_t f = 0; f < s->nface[a]; f++) dmax = fmaxf(dmax, fabsf(s->vel[a][f] - saved[a][f]));
    CHECK(dmax <= 1e-5f * vscale, "%s: second projection moved a face by %g (velocity scale %g)", name, (double)dmax,
          (double)vscale);
    for (int a = 0; a < s->dim; a++) free(saved[a]);
    eddy_sim_destroy(s);
}

static void test_divergence(void) {
    int n2[2] = {full_size ? 512 : 61, full_size ? 512 : 47};
    int n3[3] = {full_size ? 128 : 21, full_size ? 128 : 18, full_size ? 128 : 15};
    printf("divergence after MGPCG (default tolerance 1e-6):\n");
    setup u = setup_default(2, n2[0], n2[1], 1);
    check_divergence_case("2D walls", u, 0, 1);
    check_divergence_case("2D walls + obstacles", u, 1, 2);
    u.bnd[EDDY_FACE_X_MIN] = u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("2D periodic x + obstacles", u, 1, 3);
    u.bnd[EDDY_FACE_Y_MIN] = u.bnd[EDDY_FACE_Y_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("2D periodic xy", u, 0, 4);
    u = setup_default(2, n2[0], n2[1], 1);
    u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_OUTFLOW;
    u.bnd[EDDY_FACE_X_MIN] = EDDY_BOUNDARY_INFLOW;
    check_divergence_case("2D inflow/outflow + obstacles", u, 1, 5);
    u = setup_default(2, 33, 3, 1);
    check_divergence_case("2D 33x3 strip", u, 0, 6);
    u = setup_default(2, 3, 3, 1);
    check_divergence_case("2D 3x3 (no coarse level)", u, 0, 7);
    u = setup_default(2, 4, 129, 1);
    u.bnd[EDDY_FACE_Y_MIN] = u.bnd[EDDY_FACE_Y_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("2D 4x129 periodic y", u, 0, 8);

    u = setup_default(3, n3[0], n3[1], n3[2]);
    check_divergence_case("3D walls", u, 0, 11);
    check_divergence_case("3D walls + obstacles", u, 1, 12);
    u.bnd[EDDY_FACE_Z_MIN] = u.bnd[EDDY_FACE_Z_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("3D periodic z + obstacles", u, 1, 13);
    u.bnd[EDDY_FACE_X_MIN] = u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_PERIODIC;
    u.bnd[EDDY_FACE_Y_MIN] = u.bnd[EDDY_FACE_Y_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("3D periodic xyz", u, 0, 14);
    u = setup_default(3, n3[0], n3[1], n3[2]);
    u.bnd[EDDY_FACE_Y_MAX] = EDDY_BOUNDARY_OUTFLOW;
    check_divergence_case("3D outflow y+ + obstacles", u, 1, 15);
    u = setup_default(3, 5, 3, 37);
    u.bnd[EDDY_FACE_X_MIN] = u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_PERIODIC;
    check_divergence_case("3D 5x3x37 periodic x", u, 0, 16);
}

/* ------------------------------------------------------------------ solver comparison */

/* relative residual after projecting the field of `seed` with the given solver settings */
static float residual_after(setup u, int obstacles, uint32_t seed, int *iterations) {
    eddy_sim *s = make_sim(&u);
    if (!s) return NAN;
    float L[3] = {s->h * s->n[0], s->h * s->n[1], s->h * s->n[2]};
    if (obstacles) add_sphere(s, 0.4f * L[0], 0.45f * L[1], 0.5f * L[2], 0.15f * L[1], 0.0f, 0.0f, 0.0f);
    random_velocity(s, seed);
    CHECK(project(s) == EDDY_OK, "project: %s", eddy_sim_last_error(s));
    float r = eddy_sim_stats(s)->pressure_residual;
    if (iterations) *iterations = eddy_sim_stats(s)->pressure_iterations;
    eddy_sim_destroy(s);
    return r;
}

static void test_solver_order(void) {
    /* after the same number of iterations: MGPCG < red-black Gauss-Seidel < Jacobi (each by a clear factor) */
    const int dims[2] = {2, 3};
    for (int t = 0; t < 2; t++) {
        setup u = dims[t] == 2 ? setup_default(2, 63, 49, 1) : setup_default(3, 23, 19, 17);
        u.tolerance = 1e-9f; /* never reached: every solver runs max_iterations */
        const int counts[2] = {4, 32};
        for (int c = 0; c < 2; c++) {
            int n = counts[c];
            u.max_iterations = n;
            u.solver = EDDY_PRESSURE_MGPCG;
            float mg = residual_after(u, 1, 21, NULL);
            u.solver = EDDY_PRESSURE_RBGS;
            float gs = residual_after(u, 1, 21, NULL);
            u.solver = EDDY_PRESSURE_JACOBI;
            float ja = residual_after(u, 1, 21, NULL);
            printf("  %dD residual after %2d iterations: MGPCG %.2e  RBGS %.2e  Jacobi %.2e\n", dims[t], n, (double)mg,
                   (double)gs, (double)ja);
            /* MGPCG reduces the residual by ~10x per iteration, Gauss-Seidel by far less; GS converges about
             * twice as fast as Jacobi on smooth modes; the factors below are well inside those gaps */
            CHECK(mg < 0.1f * gs, "%dD, %d iterations: MGPCG %g not clearly below RBGS %g", dims[t], n, (double)mg,
                  (double)gs);
            CHECK(gs < 0.9f * ja, "%dD, %d iterations: RBGS %g not below Jacobi %g", dims[t], n, (double)gs, (double)ja);
            /* iterating past float precision (~2e-7 relative here) must not make the answer worse */
            if (n > 8) CHECK(mg < 1e-6f, "%dD: MGPCG residual %g after %d iterations: drifted above float precision",
                             dims[t], (double)mg, n);
        }
    }
}

/* asymptotic decay per iteration of a fixed-count solver: (r(n2) / r(n1))^(1/(n2-n1)) */
static double decay_rate(setup u, int n1, int n2) {
    u.tolerance = 1e-9f;
    u.max_iterations = n1;
    float r1 = residual_after(u, 0, 31, NULL);
    u.max_iterations = n2;
    float r2 = residual_after(u, 0, 31, NULL);
    return pow((double)r2 / (double)r1, 1.0 / (double)(n2 - n1));
}

static void test_spectral_radius(void) {
    const double pi = 3.14159265358979323846;
    /* Jacobi on a periodic grid of odd n: eigenvalues (cos 2pi k/n + cos 2pi l/n)/2, the largest in modulus
     * -cos(pi/n) (k = l = (n-1)/2); the next is 0.91 of it at n = 15, so after 150 iterations the residual is
     * that mode alone and the measured rate must match to well under 1% (float noise is ~1e-7 of |b| there). */
    setup u = setup_default(2, 15, 15, 1);
    for (int f = 0; f < 4; f++) u.bnd[f] = EDDY_BOUNDARY_PERIODIC;
    u.solver = EDDY_PRESSURE_JACOBI;
    double rate = decay_rate(u, 150, 300), expect = cos(pi / 15);
    printf("  Jacobi 2D periodic 15^2: decay %.5f per iteration, cos(pi/n) = %.5f\n", rate, expect);
    CHECK(fabs(rate - expect) < 0.01 * expect, "Jacobi periodic 2D rate %g, expected %g", rate, expect);
    u = setup_default(3, 9, 9, 9);
    for (int f = 0; f < 6; f++) u.bnd[f] = EDDY_BOUNDARY_PERIODIC;
    u.solver = EDDY_PRESSURE_JACOBI;
    rate = decay_rate(u, 60, 160);
    expect = cos(pi / 9);
    printf("  Jacobi 3D periodic 9^3:  decay %.5f per iteration, cos(pi/n) = %.5f\n", rate, expect);
    CHECK(fabs(rate - expect) < 0.01 * expect, "Jacobi periodic 3D rate %g, expected %g", rate, expect);
    /* Dirichlet on every side (outflow): the cell-centred Jacobi matrix has spectral radius cos(pi/(n+1)) and,
     * the red-black ordering being consistent, Gauss-Seidel has its square (Young 1950). Same 1% tolerance. */
    u = setup_default(2, 16, 16, 1);
    for (int f = 0; f < 4; f++) u.bnd[f] = EDDY_BOUNDARY_OUTFLOW;
    u.solver = EDDY_PRESSURE_JACOBI;
    double rj = decay_rate(u, 150, 350);
    u.solver = EDDY_PRESSURE_RBGS;
    double rg = decay_rate(u, 80, 176); /* multiples of the residual check interval */
    expect = cos(pi / 17);
    printf("  Dirichlet 16^2: Jacobi %.5f (cos(pi/(n+1)) = %.5f), RBGS %.5f (its square %.5f)\n", rj, expect, rg,
           expect * expect);
    CHECK(fabs(rj - expect) < 0.01 * expect, "Jacobi Dirichlet rate %g, expected %g", rj, expect);
    CHECK(fabs(rg - expect * expect) < 0.01 * expect * expect, "RBGS Dirichlet rate %g, expected %g", rg,
          expect * expect);
}

/* ------------------------------------------------------------------ determinism */

static uint32_t hash_bytes(uint32_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u; /* FNV-1a */
    return h;
}

static uint32_t run_hash(setup u, int threads) {
    u.threads = threads;
    eddy_sim *s = make_sim(&u);
    if (!s) return 0;
    float L[3] = {s->h * s->n[0], s->h * s->n[1], s->h * s->n[2]};
    add_sphere(s, 0.35f * L[0], 0.5f * L[1], 0.5f * L[2], 0.15f * L[1], 0.3f, 0.1f, 0.0f);
    random_velocity(s, 41);
    CHECK(project(s) == EDDY_OK, "project: %s", eddy_sim_last_error(s));
    uint32_t h = 2166136261u;
    for (int a = 0; a < s->dim; a++) h = hash_bytes(h, s->vel[a], s->nface[a] * sizeof(float));
    h = hash_bytes(h, s->pressure, s->ncells * sizeof(float));
    h = hash_bytes(h, &s->stats.pressure_residual, sizeof(float));
    eddy_sim_destroy(s);
    return h;
}

static void test_determinism(void) {
    /* grids above the size where loops go parallel (16384 cells), so two threads really split the work */
    const eddy_pressure_solver solvers[3] = {EDDY_PRESSURE_MGPCG, EDDY_PRESSURE_RBGS, EDDY_PRESSURE_JACOBI};
    const char *names[3] = {"MGPCG", "RBGS", "Jacobi"};
    for (int t = 0; t < 2; t++) {
        setup u = t == 0 ? setup_default(2, 151, 130, 1) : setup_default(3, 31, 28, 26);
        u.bnd[EDDY_FACE_X_MIN] = u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_PERIODIC;
        u.bnd[EDDY_FACE_Y_MAX] = EDDY_BOUNDARY_OUTFLOW;
        for (int v = 0; v < 3; v++) {
            u.solver = solvers[v];
            u.max_iterations = v == 0 ? 0 : 40;
            u.omega = v == 1 ? 1.5f : 0.0f;
            uint32_t h1 = run_hash(u, 1), h2 = run_hash(u, 2);
            CHECK(h1 == h2, "%dD %s: 1 thread %08x, 2 threads %08x", u.dim, names[v], h1, h2);
        }
    }
}

/* ------------------------------------------------------------------ moving obstacle */

static void test_moving_obstacle(void) {
    /* fluid at rest in a closed box; a disc moving at +1 m/s in x. The projection must push the fluid ahead of
     * it, draw it in behind, and (the box being closed) send it back past the sides of the disc. */
    setup u = setup_default(2, 96, 64, 1);
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    float cx = 0.5f, cy = 32 * s->h, r = 8 * s->h;
    add_sphere(s, cx, cy, 0.0f, r, 1.0f, 0.0f, 0.0f);
    CHECK(eddy__rasterize_solids(s) == EDDY_OK, "rasterize");
    eddy__apply_velocity_boundaries(s);
    float div0 = max_div(s);
    CHECK(div0 > 0.5f / s->h, "the moving disc should make the field divergent (max|div| %g)", (double)div0);
    CHECK(eddy__project(s, s->def.dt) == EDDY_OK, "moving obstacle project: %s", eddy_sim_last_error(s));
    int fu[3];
    eddy__face_dims(s, 0, fu);
    int ic = (int)(cx / s->h), jc = 32;
    int ir = (int)((cx + r) / s->h) + 2, il = (int)((cx - r) / s->h) - 1; /* faces two cells ahead and behind */
    float ahead = s->vel[0][eddy__idx(fu, ir, jc, 0)], behind = s->vel[0][eddy__idx(fu, il, jc, 0)];
    float side_top = s->vel[0][eddy__idx(fu, ic, jc + 10, 0)], side_bottom = s->vel[0][eddy__idx(fu, ic, jc - 11, 0)];
    printf("  moving disc (u = 1 m/s): u ahead %.3f, behind %.3f, beside %.3f / %.3f, max|div| %.2e\n", (double)ahead,
           (double)behind, (double)side_top, (double)side_bottom, (double)max_div(s));
    /* potential flow past a cylinder gives u ~ U (r/d)^2 on the axis at distance d: about 0.6 two cells out */
    CHECK(ahead > 0.3f && behind > 0.3f, "fluid ahead (%g) and behind (%g) the disc should move with it", (double)ahead,
          (double)behind);
    CHECK(side_top < 0.0f && side_bottom < 0.0f, "closed box: flow beside the disc should go back (%g, %g)",
          (double)side_top, (double)side_bottom);
    /* the column through the disc centre carries no net flux (closed box, incompressible) */
    double flux = 0.0;
    for (int j = 0; j < s->n[1]; j++) flux += s->vel[0][eddy__idx(fu, ic, j, 0)];
    CHECK(fabs(flux) < 1e-4, "net flux through the column of the disc %g, expected 0", flux);
    CHECK(max_div(s) <= 1e-5f * div0, "max|div| %g after projecting a moving disc (initial %g)", (double)max_div(s),
          (double)div0);
    eddy_sim_destroy(s);
}

/* ------------------------------------------------------------------ enclosed pocket */

static void test_enclosed_pocket(void) {
    /* a ring of solid cells encloses a pocket of fluid that no outflow reaches: a second null space. Random
     * velocities give it a net inflow that no pressure can remove; the solve must stay finite, fix the rest of
     * the domain, and leave in the pocket only that mean divergence. */
    setup u = setup_default(2, 40, 36, 1);
    u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_OUTFLOW;
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    uint8_t *mask = calloc(s->ncells, 1);
    for (int j = 10; j <= 20; j++)
        for (int i = 8; i <= 18; i++)
            if (i == 8 || i == 18 || j == 10 || j == 20) mask[eddy__idx(s->n, i, j, 0)] = 1;
    CHECK(eddy_sim_set_solid_mask(s, mask, s->ncells) == EDDY_OK, "mask: %s", eddy_sim_last_error(s));
    random_velocity(s, 51);
    CHECK(eddy__rasterize_solids(s) == EDDY_OK, "rasterize");
    /* the left side of the ring "moves" into the pocket: a net inflow of 9 faces x 1 m/s */
    for (int j = 10; j <= 20; j++) s->solid_vel[0][eddy__idx(s->n, 8, j, 0)] = 1.0f;
    eddy__update_solid_faces(s); /* solid velocities changed by hand: refresh the faces they impose */
    eddy__apply_velocity_boundaries(s);
    double pocket_mean = 0.0;
    int pocket = 0;
    for (int j = 11; j < 20; j++)
        for (int i = 9; i < 18; i++, pocket++) pocket_mean += cell_div(s, i, j, 0);
    pocket_mean /= pocket;
    float outside0 = 0.0f;
    for (int j = 0; j < s->n[1]; j++)
        for (int i = 0; i < s->n[0]; i++)
            if (!(i >= 8 && i <= 18 && j >= 10 && j <= 20)) outside0 = fmaxf(outside0, fabsf(cell_div(s, i, j, 0)));
    CHECK(eddy__project(s, s->def.dt) == EDDY_OK, "pocket project: %s", eddy_sim_last_error(s));
    float outside = 0.0f, inside = 0.0f;
    double pmean = 0.0;
    bool finite = true;
    for (int j = 0; j < s->n[1]; j++)
        for (int i = 0; i < s->n[0]; i++) {
            size_t c = eddy__idx(s->n, i, j, 0);
            finite = finite && isfinite(s->pressure[c]);
            if (i > 8 && i < 18 && j > 10 && j < 20) {
                inside = fmaxf(inside, fabsf(cell_div(s, i, j, 0) - (float)pocket_mean));
                pmean += s->pressure[c];
            } else if (!mask[c]) {
                outside = fmaxf(outside, fabsf(cell_div(s, i, j, 0)));
            }
        }
    pmean /= pocket;
    printf("  enclosed pocket: outside max|div| %.2e (of %.2e), pocket mean div %.3f, deviation %.2e, mean p %.2e\n",
           (double)outside, (double)outside0, pocket_mean, (double)inside, pmean);
    CHECK(finite, "pressure not finite with an enclosed pocket");
    CHECK(fabs(pocket_mean + 9.0 / 81.0 / s->h) < 1e-3 / s->h, "pocket mean divergence %g, expected %g", pocket_mean,
          -9.0 / 81.0 / s->h);
    CHECK(outside <= 1e-5f * outside0, "outside the pocket max|div| %g (initial %g)", (double)outside, (double)outside0);
    /* the pocket keeps exactly its mean divergence (same 1e-5 relative tolerance) and a mean-free pressure
     * (to float rounding of the pressure values, |p| ~ 1e3 Pa here) */
    CHECK(inside <= 1e-5f * outside0, "pocket divergence deviates from its mean by %g", (double)inside);
    CHECK(fabs(pmean) < 1e-2, "pocket pressure mean %g, expected 0", pmean);
    free(mask);
    eddy_sim_destroy(s);
}

static void test_periodic_components(void) {
    /* periodic in x, walls in y; two full-height solid columns (i = 5 and i = 25) split the fluid into two regions,
     * one of them (i = 26..39 and 0..4) joined only through the periodic side. Column 5 "moves" at +1 m/s, which
     * pushes volume from the wrapped region into the middle one: each region keeps its own uniform mean
     * divergence, +-(n1 faces)/(cells h). A region split at the wrap would leave two different means. */
    setup u = setup_default(2, 40, 30, 1);
    u.bnd[EDDY_FACE_X_MIN] = u.bnd[EDDY_FACE_X_MAX] = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    uint8_t *mask = calloc(s->ncells, 1);
    for (int j = 0; j < s->n[1]; j++) mask[eddy__idx(s->n, 5, j, 0)] = mask[eddy__idx(s->n, 25, j, 0)] = 1;
    CHECK(eddy_sim_set_solid_mask(s, mask, s->ncells) == EDDY_OK, "mask: %s", eddy_sim_last_error(s));
    random_velocity(s, 61);
    CHECK(eddy__rasterize_solids(s) == EDDY_OK, "rasterize");
    for (int j = 0; j < s->n[1]; j++) s->solid_vel[0][eddy__idx(s->n, 5, j, 0)] = 1.0f;
    eddy__update_solid_faces(s); /* solid velocities changed by hand: refresh the faces they impose */
    eddy__apply_velocity_boundaries(s);
    CHECK(eddy__project(s, s->def.dt) == EDDY_OK, "project: %s", eddy_sim_last_error(s));
    const double middle = -30.0 / (19.0 * 30.0) / s->h, wrapped = 30.0 / (19.0 * 30.0) / s->h;
    float dev_mid = 0.0f, dev_wrap = 0.0f;
    for (int j = 0; j < s->n[1]; j++)
        for (int i = 0; i < s->n[0]; i++) {
            if (i == 5 || i == 25) continue;
            float d = cell_div(s, i, j, 0);
            if (i > 5 && i < 25) dev_mid = fmaxf(dev_mid, fabsf(d - (float)middle));
            else dev_wrap = fmaxf(dev_wrap, fabsf(d - (float)wrapped));
        }
    printf("  periodic split: mean div %.3f / %.3f, deviations %.2e / %.2e\n", middle, wrapped, (double)dev_mid,
           (double)dev_wrap);
    /* same 1e-5 relative tolerance as the divergence tests, relative to the random field's scale 1/h */
    CHECK(dev_mid < 1e-5f / s->h && dev_wrap < 1e-5f / s->h, "regions keep their mean divergence: %g %g",
          (double)dev_mid, (double)dev_wrap);
    free(mask);
    eddy_sim_destroy(s);
}

/* L2 norm of the divergence (times h: the solver's b) over the cells of a closed box, in double, of the velocity u
 * minus the gradient of x (x null: u alone); u and x in the simulation's layouts */
static double div_norm(const eddy_sim *s, float *const u[2], const float *x) {
    const int nx = s->n[0], ny = s->n[1];
    double sum = 0.0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            /* walls: the boundary faces keep their value, interior faces lose x_hi - x_lo */
            double f[4] = {u[0][(size_t)j * (nx + 1) + i], u[0][(size_t)j * (nx + 1) + i + 1], u[1][(size_t)j * nx + i],
                           u[1][(size_t)(j + 1) * nx + i]};
            if (x) {
                double c = x[(size_t)j * nx + i];
                if (i > 0) f[0] -= c - x[(size_t)j * nx + i - 1];
                if (i < nx - 1) f[1] -= x[(size_t)j * nx + i + 1] - c;
                if (j > 0) f[2] -= c - x[(size_t)(j - 1) * nx + i];
                if (j < ny - 1) f[3] -= x[(size_t)(j + 1) * nx + i] - c;
            }
            double d = (f[1] - f[0]) + (f[3] - f[2]);
            sum += d * d;
        }
    return sqrt(sum);
}

/* The float32 floor: where the pressure is large and smooth next to a small divergence (a broad velocity splat every
 * step into a closed box, as in the bench), no float32 x has a residual below ~5e-5 of |b| at 512^2. The projection
 * gets below the tolerance anyway by refining through the velocity (project.c). Checked in double on the last
 * step's projection: the divergence left, |div(u - G x)| for the best float32 x (the pressure found, as this step's
 * x: above the tolerance, or the case tests nothing), and the solver's own report. */
static void test_float_floor(void) {
    const int n = full_size ? 512 : 256;
    setup u = setup_default(2, n, n, 1);
    u.tolerance = 1e-5f;
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    eddy_sim_def d = *eddy_sim_get_def(s);
    d.dt = 0.5f / (float)n;
    CHECK(eddy_sim_set_def(s, &d) == EDDY_OK, "set dt: %s", eddy_sim_last_error(s));
    const float dt = d.dt;
    for (int step = 0; step < 8; step++) {
        eddy_splat sp = {{0.3f + 0.02f * (float)step, 0.5f, 0.5f}, 0.05f, {1.0f, 0.5f, 0.2f}, {1, 0.2f, 0.1f}, 1.0f};
        CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "splat");
        CHECK(eddy_sim_step(s) == EDDY_OK, "step %d: %s", step, eddy_sim_last_error(s));
        CHECK(eddy_sim_stats(s)->pressure_residual <= u.tolerance, "step %d: residual %g > tolerance %g", step,
              (double)eddy_sim_stats(s)->pressure_residual, (double)u.tolerance);
    }
    eddy_splat sp = {{0.5f, 0.5f, 0.5f}, 0.05f, {1.0f, 0.5f, 0.2f}, {1, 0.2f, 0.1f}, 1.0f};
    CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "splat");
    eddy__apply_velocity_boundaries(s);
    float *before[2];
    for (int a = 0; a < 2; a++) {
        before[a] = malloc(s->nface[a] * sizeof(float));
        memcpy(before[a], s->vel[a], s->nface[a] * sizeof(float));
    }
    float *x = malloc(s->ncells * sizeof(float));
    CHECK(eddy__project(s, dt) == EDDY_OK, "project: %s", eddy_sim_last_error(s));
    const float to_x = dt / (s->def.density * s->h); /* x = p dt / (rho h) */
    for (size_t c = 0; c < s->ncells; c++) x[c] = to_x * s->pressure[c];
    double b = div_norm(s, before, NULL), left = div_norm(s, s->vel, NULL), best = div_norm(s, before, x);
    printf("  float32 floor, 2D %d^2: |b| %.3e, divergence left %.2e of it, best float32 x leaves %.2e, solver says "
           "%.2e (%d iterations)\n",
           n, b, left / b, best / b, (double)eddy_sim_stats(s)->pressure_residual, eddy_sim_stats(s)->pressure_iterations);
    CHECK(best > 1.5 * u.tolerance * b, "the case tests nothing: a float32 x reaches %.2e of |b|", best / b);
    CHECK(left <= u.tolerance * b, "divergence left %.3g of |b|, tolerance %g", left / b, (double)u.tolerance);
    CHECK(eddy_sim_stats(s)->pressure_residual <= u.tolerance, "solver's residual %g",
          (double)eddy_sim_stats(s)->pressure_residual);
    for (int a = 0; a < 2; a++) free(before[a]);
    free(x);
    eddy_sim_destroy(s);
}

static void test_bad_input(void) {
    setup u = setup_default(2, 8, 8, 1);
    eddy_sim *s = make_sim(&u);
    if (!s) return;
    CHECK(eddy__project(s, 0.0f) == EDDY_ERR_INVALID_ARGUMENT, "dt = 0 must be rejected");
    CHECK(eddy__project(s, NAN) == EDDY_ERR_INVALID_ARGUMENT, "dt = NaN must be rejected");
    CHECK(strstr(eddy_sim_last_error(s), "dt") != NULL, "message names dt: %s", eddy_sim_last_error(s));
    /* a field at rest: nothing to solve */
    CHECK(project(s) == EDDY_OK, "rest project");
    CHECK(s->stats.pressure_iterations == 0 && s->stats.pressure_residual == 0.0f, "rest: %d iterations, residual %g",
          s->stats.pressure_iterations, (double)s->stats.pressure_residual);
    eddy_sim_destroy(s);
}

int main(int argc, char **argv) {
    full_size = check_full_size(argc, argv); /* EDDY_FULL_SIZE: --full runs 512^2 and 128^3 */
    test_divergence();
    printf("solver comparison:\n");
    test_solver_order();
    test_spectral_radius();
    printf("determinism, obstacles, null spaces:\n");
    test_determinism();
    test_moving_obstacle();
    test_enclosed_pocket();
    test_periodic_components();
    test_float_floor();
    test_bad_input();
    return check_finish("test_project");
}
