/* Implicit diffusion stage (src/diffuse.c): exact backward-Euler decay of discrete Fourier modes, unconditional
 * stability, the no-slip / moving-lid / solid ghost rules (exact Couette profiles), lid drag, conservation of dye
 * with walls and obstacles, determinism across thread counts. Default sizes run in well under a second;
 * --full (EDDY_FULL_SIZE) repeats the Fourier and Couette checks on 256^2 and 64^3 grids. */
#include "check.h"
#include "diffuse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static eddy_sim *make_sim(eddy_sim_def *d) {
    eddy_sim *s = NULL;
    char msg[256];
    eddy_status st = eddy_sim_create(d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return s;
}

static void diffuse_ok(eddy_sim *s, float dt) {
    CHECK(eddy__diffuse(s, dt) == EDDY_OK, "diffuse: %s", eddy_sim_last_error(s));
    eddy_diffuse_report r = eddy__diffuse_last_report(s);
    CHECK(r.not_converged == 0, "%d of %d solves hit the iteration cap (residual %.3g)", r.not_converged, r.solves,
          (double)r.max_residual);
}

/* deterministic pseudo-random values in [-1, 1) */
static float noise(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)((*state >> 8) & 0xffffff) / 8388608.0f - 1.0f;
}

/* ---------------------------------------------------------------- Fourier modes, periodic */

typedef struct mode {
    int m[3];      /* wave numbers per axis (periods across the domain) */
    float phase[3];
} mode;

static double mode_value(const mode *md, const float p[3], const float L[3], int dim) {
    double v = 1.0;
    for (int b = 0; b < dim; b++) v *= sin(2.0 * PI * md->m[b] * p[b] / L[b] + md->phase[b]);
    return v;
}

/* discrete Laplacian eigenvalue (negated) of the mode on a lattice of spacing sp per axis */
static double mode_lambda(const mode *md, const float sp[3], const float L[3], int dim) {
    double lam = 0.0;
    for (int b = 0; b < dim; b++) {
        double k = 2.0 * PI * md->m[b] / L[b], sn = sin(k * sp[b] / 2.0);
        lam += 4.0 / ((double)sp[b] * sp[b]) * sn * sn;
    }
    return lam;
}

/* Sets a mode on every velocity component and on dye_r, takes `steps` diffusion steps and compares each step
 * with the backward-Euler factor 1/(1 + k dt lambda_h). */
static void test_fourier(int dim, int n, const int dye_scale[3]) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = n; d.grid[1] = n - 2; d.grid[2] = n - 4 > 3 ? n - 4 : 3; /* unequal sides, any sizes */
    for (int b = 0; b < 3; b++) d.dye_scale[b] = dye_scale[b];
    d.viscosity = 2e-3f;
    d.dye_diffusion = 5e-4f;
    for (int f = 0; f < 2 * dim; f++) d.boundary[f].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    const float dt = 0.05f;
    float L[3] = {s->def.size[0], s->def.size[1], s->def.size[2]};
    mode modes[4] = {{{2, 3, 1}, {0.3f, 0.1f, 0.7f}}, {{1, 2, 2}, {1.1f, 0.5f, 0.2f}}, {{3, 1, 1}, {0.0f, 0.9f, 0.4f}},
                     {{4, 2, 3}, {0.6f, 0.2f, 1.3f}}};
    float *fields[4] = {s->vel[0], s->vel[1], dim == 3 ? s->vel[2] : NULL, s->dye[0]};
    eddy_grid_desc g[4];
    double *expect[4] = {NULL, NULL, NULL, NULL};
    double factor[4];
    float hv[3] = {s->h, s->h, s->h};
    for (int f = 0; f < 4; f++) {
        if (!fields[f]) continue;
        g[f] = f < 3 ? eddy__velocity_desc(s, f, fields[f]) : eddy__scalar_desc(s, fields[f]);
        double k = f < 3 ? d.viscosity : d.dye_diffusion;
        double lam = mode_lambda(&modes[f], f < 3 ? hv : s->sh, L, dim);
        factor[f] = 1.0 / (1.0 + k * dt * lam);
        size_t count = (size_t)g[f].n[0] * g[f].n[1] * g[f].n[2];
        expect[f] = malloc(count * sizeof(double));
        for (int kk = 0; kk < g[f].n[2]; kk++)
            for (int j = 0; j < g[f].n[1]; j++)
                for (int i = 0; i < g[f].n[0]; i++) {
                    float p[3];
                    eddy__grid_pos(&g[f], i, j, kk, p);
                    size_t e = eddy__idx(g[f].n, i, j, kk);
                    expect[f][e] = mode_value(&modes[f], p, L, dim);
                    fields[f][e] = (float)expect[f][e];
                }
    }
    for (int step = 0; step < 3; step++) {
        diffuse_ok(s, dt);
        fields[0] = s->vel[0];
        fields[1] = s->vel[1];
        fields[2] = dim == 3 ? s->vel[2] : NULL;
        fields[3] = s->dye[0];
        for (int f = 0; f < 4; f++) {
            if (!fields[f]) continue;
            size_t count = (size_t)g[f].n[0] * g[f].n[1] * g[f].n[2];
            double err = 0.0, ref = 0.0;
            for (size_t e = 0; e < count; e++) {
                expect[f][e] *= factor[f];
                double de = fields[f][e] - expect[f][e];
                err += de * de;
                ref += expect[f][e] * expect[f][e];
            }
            double rel = sqrt(err / ref);
            /* CG stops at |r| <= 1e-6 |b| and A >= I, so |error| <= 1e-6 |b| = 1e-6 |u_exact| / factor; float
             * storage adds ~1e-7 per step: bound 1e-6/factor + 5e-7 per step taken */
            double bound = 1e-6 / factor[f] + 5e-7 * (step + 1);
            if (step == 0)
                printf("%dD n=%d %s mode (%d,%d,%d): factor %.6f, relative L2 error %.2e (bound %.1e)\n", dim, n,
                       f < 3 ? "velocity" : "dye", modes[f].m[0], modes[f].m[1], modes[f].m[2], factor[f], rel, bound);
            CHECK(rel < bound, "%dD field %d step %d: relative error %.3g against the backward-Euler decay %.6f", dim, f,
                  step, rel, factor[f]);
        }
    }
    for (int f = 0; f < 4; f++) free(expect[f]);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- stability */

static void test_huge_dt(int dim) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = d.grid[1] = dim == 2 ? 32 : 12;
    d.grid[2] = 10;
    d.viscosity = 1e-3f;
    d.dye_diffusion = 1e-3f;
    d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
    d.boundary[EDDY_FACE_Y_MIN].type = EDDY_BOUNDARY_NOSLIP;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    unsigned seed = 7;
    float vmax = 0.0f;
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) s->vel[a][i] = noise(&seed);
    eddy__apply_velocity_boundaries(s);
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) vmax = fmaxf(vmax, fabsf(s->vel[a][i]));
    double mean = 0.0;
    for (size_t i = 0; i < s->nscalar; i++) {
        s->dye[0][i] = 0.5f + 0.5f * noise(&seed);
        mean += s->dye[0][i];
    }
    mean /= (double)s->nscalar;
    diffuse_ok(s, 1e6f);
    /* I - nu dt L is an M-matrix with row sums >= 1, so the exact step cannot raise max |u|; the solver's error
     * (|e| <= 1e-6 |b| <= 1e-6 sqrt(N) max|u|) adds at most 1e-6 sqrt(N) < 1e-4 */
    float after = 0.0f;
    int finite = 1;
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) {
            after = fmaxf(after, fabsf(s->vel[a][i]));
            finite &= isfinite(s->vel[a][i]);
        }
    CHECK(finite && after <= vmax * (1.0f + 1e-4f), "%dD dt = 1e6: max |u| %g after, %g before", dim, (double)after,
          (double)vmax);
    /* zero-flux dye over a huge dt flattens to its mean (the only mode with eigenvalue 1) */
    double spread = 0.0;
    for (size_t i = 0; i < s->nscalar; i++) spread = fmax(spread, fabs(s->dye[0][i] - mean));
    CHECK(spread < 1e-4, "%dD dt = 1e6: dye should be flat at its mean %.6f, deviates by %.3g", dim, mean, spread);
    eddy_diffuse_report r = eddy__diffuse_last_report(s);
    printf("%dD dt = 1e6: max |u| %.4f -> %.3g, dye spread %.2e, CG iterations max %d\n", dim, (double)vmax,
           (double)after, spread, r.max_iterations);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- walls: Couette profiles, lid drag */

/* Plane Couette flow between a no-slip (or solid) floor and a moving lid, periodic along the others: one step of
 * huge dt gives the steady state, exactly linear; the ghost rule 2 u_wall - u is exact for linear profiles, so the
 * discrete solution is u = u_floor + (U - u_floor) (y - y_floor) / (H - y_floor) at the face centres.
 * Tolerance 1e-4 (lid speed 1.5): a wrong wall distance or ghost weight shifts the profile by O(U h / H), at least
 * 1e-2 on these grids, while the solver's residual (1e-6 of |b|) spread over all modes leaves ~1e-6. */
static void test_couette(int dim, int n, int solid_rows) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = d.grid[1] = d.grid[2] = n;
    d.viscosity = 0.5f;
    int up = dim - 1; /* lid normal axis: y in 2D, z in 3D */
    for (int a = 0; a < dim; a++)
        if (a != up) d.boundary[2 * a].type = d.boundary[2 * a + 1].type = EDDY_BOUNDARY_PERIODIC;
    d.boundary[2 * up].type = EDDY_BOUNDARY_NOSLIP;
    d.boundary[2 * up + 1].type = EDDY_BOUNDARY_MOVING;
    float lid[3] = {1.5f, dim == 3 ? -0.7f : 0.0f, 0.0f};
    for (int a = 0; a < 3; a++) d.boundary[2 * up + 1].velocity[a] = lid[a];
    d.boundary[2 * up + 1].velocity[up] = 3.0f; /* the normal part of a lid velocity must be ignored */
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    float floor_vel[3] = {0, 0, 0};
    if (solid_rows) {
        /* a moving box covering the lowest rows: the floor becomes the box's top, sliding at its velocity */
        eddy_obstacle_def box;
        memset(&box, 0, sizeof box);
        box.shape = EDDY_SHAPE_BOX;
        for (int a = 0; a < 3; a++) {
            box.center[a] = 0.5f;
            box.half_size[a] = 2.0f;
        }
        box.center[up] = (float)solid_rows * s->h / 2.0f;
        box.half_size[up] = (float)solid_rows * s->h / 2.0f;
        box.velocity[0] = floor_vel[0] = 0.4f;
        if (dim == 3) box.velocity[1] = floor_vel[1] = 0.25f;
        CHECK(eddy_sim_add_obstacle(s, &box, NULL) == EDDY_OK, "obstacle: %s", eddy_sim_last_error(s));
        CHECK(eddy__solids_current(s) == EDDY_OK, "rasterise: %s", eddy_sim_last_error(s)); /* as a step does first */
        eddy__apply_velocity_boundaries(s);
    }
    diffuse_ok(s, 1e6f);
    double worst = 0.0;
    float y0 = (float)solid_rows * s->h, H = s->def.size[up];
    for (int a = 0; a < dim; a++) {
        if (a == up) continue;
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    int c[3] = {i, j, k};
                    if (c[up] < solid_rows) continue;
                    float y = ((float)c[up] + 0.5f) * s->h;
                    double want = floor_vel[a] + (lid[a] - floor_vel[a]) * (y - y0) / (H - y0);
                    worst = fmax(worst, fabs(s->vel[a][eddy__idx(fn, i, j, k)] - want));
                }
    }
    double tol = 1e-4;
    printf("%dD Couette n=%d solid floor rows %d: max error %.2e (tolerance %.1e, lid speed 1.5)\n", dim, n, solid_rows,
           worst, tol);
    CHECK(worst < tol, "%dD Couette (solid rows %d): max deviation from the linear profile %.3g", dim, solid_rows, worst);
    eddy_sim_destroy(s);
}

/* A lid-driven cavity at rest: one viscous step drags the fluid under the lid along the lid, less with depth. */
static void test_lid_drag(int dim) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = d.grid[1] = d.grid[2] = dim == 2 ? 16 : 10;
    d.viscosity = 0.01f;
    for (int f = 0; f < 2 * dim; f++) d.boundary[f].type = EDDY_BOUNDARY_NOSLIP;
    int up = dim - 1;
    d.boundary[2 * up + 1].type = EDDY_BOUNDARY_MOVING;
    d.boundary[2 * up + 1].velocity[0] = 1.0f;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    for (int step = 0; step < 3; step++) diffuse_ok(s, 0.1f);
    int fn[3];
    eddy__face_dims(s, 0, fn);
    int mid[3] = {fn[0] / 2, fn[1] / 2, fn[2] / 2};
    float prev = INFINITY, minimum = INFINITY, maximum = -INFINITY;
    int monotone = 1;
    for (int t = s->n[up] - 1; t >= 0; t--) {
        int c[3] = {mid[0], mid[1], mid[2]};
        c[up] = t;
        float u = s->vel[0][eddy__idx(fn, c[0], c[1], c[2])];
        monotone &= u < prev;
        prev = u;
    }
    for (size_t i = 0; i < s->nface[0]; i++) {
        minimum = fminf(minimum, s->vel[0][i]);
        maximum = fmaxf(maximum, s->vel[0][i]);
    }
    int c[3] = {mid[0], mid[1], mid[2]};
    c[up] = s->n[up] - 1;
    float top = s->vel[0][eddy__idx(fn, c[0], c[1], c[2])];
    printf("%dD lid drag: u under the lid %.4f, range [%.3g, %.4f]\n", dim, (double)top, (double)minimum, (double)maximum);
    CHECK(top > 0.2f, "%dD: fluid under the lid moves at %g, expected dragged along (> 0.2 of the lid)", dim, (double)top);
    CHECK(monotone, "%dD: u should fall monotonically with depth below the lid", dim);
    /* maximum principle: between the walls (0) and the lid (1), and the top layer stays below the lid speed */
    CHECK(minimum >= 0.0f && maximum < 1.0f, "%dD: u outside [0, 1): [%g, %g]", dim, (double)minimum, (double)maximum);
    double vmax = 0.0;
    for (int a = 1; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) vmax = fmax(vmax, fabs(s->vel[a][i]));
    CHECK(vmax == 0.0, "%dD: viscosity alone must not create cross-flow (max %g)", dim, vmax);
    eddy_sim_destroy(s);
}

/* Free-slip walls exert no stress: a uniform tangential flow between them is a steady state. */
static void test_free_slip(void) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = 12;
    d.viscosity = 0.05f;
    d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    for (size_t i = 0; i < s->nface[0]; i++) s->vel[0][i] = 0.75f;
    diffuse_ok(s, 0.3f);
    double worst = 0.0;
    for (size_t i = 0; i < s->nface[0]; i++) worst = fmax(worst, fabs(s->vel[0][i] - 0.75f));
    /* the initial residual is exactly zero (A applied to a constant with zero-gradient walls is the constant) */
    CHECK(worst == 0.0, "free-slip: uniform flow changed by %g", worst);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- scalars: conservation */

static void test_conservation(int dim, int scale) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 24 : 12; d.grid[1] = dim == 2 ? 20 : 10; d.grid[2] = 9;
    d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = scale;
    d.dye_diffusion = 0.01f;
    d.temperature_diffusion = 0.03f;
    d.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_NOSLIP; /* any wall kind: scalars see zero flux */
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    eddy_obstacle_def ball;
    memset(&ball, 0, sizeof ball);
    ball.shape = EDDY_SHAPE_SPHERE;
    ball.center[0] = 0.5f; ball.center[1] = 0.4f; ball.center[2] = 0.35f;
    ball.radius = 0.15f;
    CHECK(eddy_sim_add_obstacle(s, &ball, NULL) == EDDY_OK, "obstacle: %s", eddy_sim_last_error(s));
    CHECK(eddy__solids_current(s) == EDDY_OK, "rasterise: %s", eddy_sim_last_error(s)); /* as a step does first */
    eddy_grid_desc g = eddy__scalar_desc(s, s->dye[0]);
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                float p[3];
                eddy__grid_pos(&g, i, j, k, p);
                float dx = p[0] - 0.3f, dy = p[1] - 0.45f;
                size_t e = eddy__idx(g.n, i, j, k);
                s->dye[0][e] = expf(-(dx * dx + dy * dy) / 0.01f);
                s->temperature[e] = p[0] < 0.2f ? 1.0f : 0.0f; /* a step against the x- wall */
            }
    eddy__apply_scalar_boundaries(s); /* no dye inside the ball */
    double total0[2] = {0, 0}, total[2] = {0, 0};
    for (size_t e = 0; e < s->nscalar; e++) {
        total0[0] += s->dye[0][e];
        total0[1] += s->temperature[e];
    }
    for (int step = 0; step < 8; step++) diffuse_ok(s, 0.05f);
    double in_solid = 0.0;
    const int *r = s->def.dye_scale;
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                size_t e = eddy__idx(g.n, i, j, k);
                total[0] += s->dye[0][e];
                total[1] += s->temperature[e];
                if (s->solid[eddy__idx(s->n, i / r[0], j / r[1], k / r[2])])
                    in_solid += fabs(s->dye[0][e]) + fabs(s->temperature[e]);
            }
    /* zero-flux diffusion conserves the total exactly (L has zero column sums); the solver sets the mean of the
     * solution from that law in double, so only float rounding of the stored values remains: ~1e-7 * sqrt(steps)
     * relative. Bound 1e-6. */
    for (int f = 0; f < 2; f++) {
        double rel = fabs(total[f] - total0[f]) / total0[f];
        printf("%dD scale %d %s: total %.7f -> %.7f (relative change %.1e)\n", dim, scale, f ? "temperature" : "dye",
               total0[f], total[f], rel);
        CHECK(rel < 1e-6, "%dD %s total changed by %.3g relative", dim, f ? "temperature" : "dye", rel);
    }
    CHECK(in_solid == 0.0, "%dD: scalars leaked into the solid (%g)", dim, in_solid);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- determinism */

static eddy_sim *noisy_run(int dim, int threads) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 40 : 14; d.grid[1] = dim == 2 ? 36 : 12; d.grid[2] = 10;
    d.dye_scale[0] = 2;
    d.viscosity = 0.02f;
    d.dye_diffusion = 0.005f;
    d.threads = threads;
    d.boundary[EDDY_FACE_Y_MAX].type = EDDY_BOUNDARY_MOVING;
    d.boundary[EDDY_FACE_Y_MAX].velocity[0] = 1.0f;
    d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&d);
    if (!s) return NULL;
    unsigned seed = 99;
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) s->vel[a][i] = noise(&seed);
    for (size_t i = 0; i < s->nscalar; i++) s->dye[2][i] = 1.0f + noise(&seed);
    eddy__apply_velocity_boundaries(s);
    for (int step = 0; step < 3; step++) diffuse_ok(s, 0.05f);
    return s;
}

static void test_determinism(int dim) {
    eddy_sim *a = noisy_run(dim, 1), *b = noisy_run(dim, 2);
    if (!a || !b) return;
    int same = 1;
    for (int c = 0; c < dim; c++) same &= !memcmp(a->vel[c], b->vel[c], a->nface[c] * sizeof(float));
    same &= !memcmp(a->dye[2], b->dye[2], a->nscalar * sizeof(float));
    CHECK(same, "%dD diffusion: 1 and 2 threads give different bytes", dim);
    eddy_sim_destroy(a);
    eddy_sim_destroy(b);
}

int main(int argc, char **argv) {
    int full = check_full_size(argc, argv); /* EDDY_FULL_SIZE: 256^2 and 64^3 */
    int iso[3] = {1, 1, 1}, aniso[3] = {2, 1, 3};
    test_fourier(2, 24, iso);
    test_fourier(2, 20, aniso);
    test_fourier(3, 12, iso);
    test_fourier(3, 10, aniso);
    if (full) {
        test_fourier(2, 256, iso);
        test_fourier(3, 64, aniso);
    }
    test_huge_dt(2);
    test_huge_dt(3);
    test_couette(2, 16, 0);
    test_couette(2, 16, 3);
    test_couette(3, 8, 0);
    test_couette(3, 8, 2);
    if (full) {
        test_couette(2, 64, 5);
        test_couette(3, 32, 4);
    }
    test_lid_drag(2);
    test_lid_drag(3);
    test_free_slip();
    test_conservation(2, 1);
    test_conservation(2, 2);
    test_conservation(3, 2);
    test_determinism(2);
    test_determinism(3);
    return check_finish("test_diffuse");
}
