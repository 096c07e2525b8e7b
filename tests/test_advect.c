/* Advection stage (src/advect.c): accuracy on a rigid rotation, exactness on uniform flow, dissipation, the finer
 * scalar grid, agreement with the grid.c sampling geometry, determinism across thread counts.
 * Default sizes run in about a second; --full (EDDY_FULL_SIZE) refines the rotation study to 512^2 (about a minute). */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *scheme_name(eddy_advection a) {
    return a == EDDY_ADVECT_SEMI_LAGRANGIAN ? "semi-Lagrangian" : (a == EDDY_ADVECT_MACCORMACK ? "MacCormack" : "BFECC");
}

static eddy_sim *make_sim(eddy_sim_def *d) {
    eddy_sim *s = NULL;
    char msg[256];
    eddy_status st = eddy_sim_create(d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return s;
}

/* sets every face of component a to f(world position) */
static void set_faces(eddy_sim *s, int a, float (*f)(int a, const float p[3], void *u), void *user) {
    eddy_grid_desc g = eddy__velocity_desc(s, a, s->vel[a]);
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                float p[3];
                eddy__grid_pos(&g, i, j, k, p);
                s->vel[a][eddy__idx(g.n, i, j, k)] = f(a, p, user);
            }
}

static void set_scalar(eddy_sim *s, float *q, float (*f)(const float p[3], void *u), void *user) {
    eddy_grid_desc g = eddy__scalar_desc(s, q);
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                float p[3];
                eddy__grid_pos(&g, i, j, k, p);
                q[eddy__idx(g.n, i, j, k)] = f(p, user);
            }
}

/* ---------------------------------------------------------------- rigid rotation of a Gaussian blob */

static const double PI = 3.14159265358979323846;
/* The blob: centre (0.5, y) and width sigma. WIDE is resolved on coarse grids (sigma = 3.2 cells at n = 32) but its
 * tail (1% at 3 sigma) reaches the walls, where clamped sampling leaves an error floor of ~2e-3 that only the
 * second-order schemes feel, at n >= 256. NARROW sits 5 sigma from the walls (tail 4e-6): the full-size run uses it
 * to show the second-order convergence of MacCormack and BFECC. */
typedef struct blob_shape {
    float y, sigma;
} blob_shape;
static const blob_shape WIDE = {0.7f, 0.1f}, NARROW = {0.65f, 0.07f};

static float rotation(int a, const float p[3], void *u) {
    (void)u;
    float omega = (float)(2.0 * PI); /* one turn per second about the centre of the unit square */
    return a == 0 ? -omega * (p[1] - 0.5f) : omega * (p[0] - 0.5f);
}
static float blob(const float p[3], void *u) {
    const blob_shape *b = u ? (const blob_shape *)u : &WIDE;
    float dx = p[0] - 0.5f, dy = p[1] - b->y;
    return expf(-(dx * dx + dy * dy) / (2.0f * b->sigma * b->sigma));
}

/* Carries the blob one full turn (T = 1 s) on an n^2 velocity grid with `scale` finer dye, in `steps` steps, the
 * velocity re-imposed before each step; returns the relative L2 error of the dye against the initial blob. */
static double rotate_blob(int n, int scale, eddy_advection scheme, int steps, const blob_shape *shape) {
    void *b = (void *)shape;
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = n;
    d.dye_scale[0] = d.dye_scale[1] = scale;
    d.advection = scheme;
    d.dt = 1.0f / (float)steps;
    eddy_sim *s = make_sim(&d);
    if (!s) return INFINITY;
    set_scalar(s, s->dye[0], blob, b);
    for (int t = 0; t < steps; t++) {
        set_faces(s, 0, rotation, NULL);
        set_faces(s, 1, rotation, NULL);
        CHECK(eddy__advect(s, d.dt) == EDDY_OK, "advect: %s", eddy_sim_last_error(s));
    }
    double err = 0.0, ref = 0.0;
    eddy_grid_desc g = eddy__scalar_desc(s, s->dye[0]);
    for (int j = 0; j < g.n[1]; j++)
        for (int i = 0; i < g.n[0]; i++) {
            float p[3];
            eddy__grid_pos(&g, i, j, 0, p);
            double want = blob(p, b), e = (double)s->dye[0][eddy__idx(g.n, i, j, 0)] - want;
            err += e * e;
            ref += want * want;
        }
    eddy_sim_destroy(s);
    return sqrt(err / ref);
}

static void test_rotation(int full) {
    /* dt proportional to h (CFL 1.3 at the blob centre, 4.4 in the corners): the semi-Lagrangian error per step
     * O(h^2/dt + dt^3) adds up to O(h) over the turn */
    int sizes_small[] = {32, 64, 128}, sizes_full[] = {32, 64, 128, 256, 512};
    int *sizes = full ? sizes_full : sizes_small;
    int count = full ? 5 : 3;
    double err[3][5];
    printf("rigid rotation, one turn, relative L2 error of a Gaussian blob (sigma %.2f), dt = 1/n s\n", (double)WIDE.sigma);
    printf("%6s %16s %16s %16s\n", "n", "semi-Lagrangian", "MacCormack", "BFECC");
    eddy_advection schemes[3] = {EDDY_ADVECT_SEMI_LAGRANGIAN, EDDY_ADVECT_MACCORMACK, EDDY_ADVECT_BFECC};
    for (int q = 0; q < count; q++) {
        for (int m = 0; m < 3; m++) err[m][q] = rotate_blob(sizes[q], 1, schemes[m], sizes[q], &WIDE);
        printf("%6d %16.5f %16.5f %16.5f\n", sizes[q], err[0][q], err[1][q], err[2][q]);
    }
    for (int q = 0; q < count; q++) {
        /* "clearly below": at most half the semi-Lagrangian error on every grid */
        for (int m = 1; m < 3; m++)
            CHECK(err[m][q] < 0.5 * err[0][q], "n=%d %s error %.4f vs semi-Lagrangian %.4f (ratio %.3f, want < 0.5)",
                  sizes[q], scheme_name(schemes[m]), err[m][q], err[0][q], err[m][q] / err[0][q]);
        printf("n=%d error ratio to semi-Lagrangian: MacCormack %.3f, BFECC %.3f\n", sizes[q], err[1][q] / err[0][q],
               err[2][q] / err[0][q]);
    }
    /* Semi-Lagrangian with linear interpolation is first order: the error ratio tends to 2 when h (and dt) halve.
     * At these sizes the error is still 8-30% of the blob, where the L2 distance between a Gaussian and its
     * numerically widened copy grows slower than the added variance, so the ratio approaches 2 from below.
     * Bound: ratio > 1.7 (observed order > 0.77) on every refinement, and the ratio must not decrease. */
    double previous_ratio = 0.0;
    for (int q = 1; q < count; q++) {
        double ratio = err[0][q - 1] / err[0][q];
        printf("semi-Lagrangian error ratio n=%d -> n=%d: %.3f (order %.2f; first order: 2)\n", sizes[q - 1], sizes[q],
               ratio, log2(ratio));
        CHECK(ratio > 1.7, "semi-Lagrangian error ratio %d -> %d is %.3f, want > 1.7", sizes[q - 1], sizes[q], ratio);
        CHECK(ratio > previous_ratio - 0.02, "semi-Lagrangian ratio falls under refinement: %.3f then %.3f", previous_ratio,
              ratio);
        previous_ratio = ratio;
        for (int m = 1; m < 3; m++)
            CHECK(err[m][q] < err[m][q - 1], "%s error grows under refinement: %.4f -> %.4f", scheme_name(schemes[m]),
                  err[m][q - 1], err[m][q]);
    }
}

/* Full size: the narrow blob, clear of the walls, shows MacCormack and BFECC converging at second order. */
static void test_rotation_second_order(void) {
    int sizes[] = {64, 128, 256, 512};
    eddy_advection schemes[2] = {EDDY_ADVECT_MACCORMACK, EDDY_ADVECT_BFECC};
    double err[2][4];
    printf("narrow blob (sigma %.2f, 5 sigma from the walls), relative L2 error after one turn\n", (double)NARROW.sigma);
    printf("%6s %16s %16s\n", "n", "MacCormack", "BFECC");
    for (int q = 0; q < 4; q++) {
        for (int m = 0; m < 2; m++) err[m][q] = rotate_blob(sizes[q], 1, schemes[m], sizes[q], &NARROW);
        printf("%6d %16.6f %16.6f\n", sizes[q], err[0][q], err[1][q]);
    }
    for (int q = 2; q < 4; q++)
        for (int m = 0; m < 2; m++) {
            double ratio = err[m][q - 1] / err[m][q];
            printf("%s error ratio n=%d -> n=%d: %.2f (second order: 4)\n", scheme_name(schemes[m]), sizes[q - 1],
                   sizes[q], ratio);
            /* second order quarters the error; 3 (order 1.6) leaves room for the limiter clipping the peak */
            CHECK(ratio > 3.0, "%s error ratio %d -> %d is %.2f, want > 3 (second order)", scheme_name(schemes[m]),
                  sizes[q - 1], sizes[q], ratio);
        }
}

/* The rotation is linear in x and y, so interpolating it to the dye grid is exact: a 32^2 velocity grid with
 * 2x dye must give the same dye as a 64^2 velocity grid (the scalar grids coincide). */
static void test_rotation_fine_dye(void) {
    eddy_advection schemes[2] = {EDDY_ADVECT_SEMI_LAGRANGIAN, EDDY_ADVECT_MACCORMACK};
    for (int m = 0; m < 2; m++) {
        double fine = rotate_blob(32, 2, schemes[m], 64, &WIDE), plain = rotate_blob(64, 1, schemes[m], 64, &WIDE);
        printf("%s: 32^2 velocity with 2x dye: error %.6f; 64^2 velocity: %.6f\n", scheme_name(schemes[m]), fine, plain);
        /* only float rounding of the interpolated velocity separates them (1e-6 relative per step, over 64 steps) */
        CHECK(fabs(fine - plain) < 1e-3 * plain, "%s: fine dye error %.6f differs from %.6f", scheme_name(schemes[m]), fine,
              plain);
    }
}

/* ---------------------------------------------------------------- uniform flow and dissipation */

static const float UNIFORM[3] = {0.37f, -0.21f, 0.13f};
static float uniform(int a, const float p[3], void *u) {
    (void)p;
    (void)u;
    return UNIFORM[a];
}

static void test_uniform(int dim, eddy_advection scheme, bool dissipate) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = 12; d.grid[1] = 10; d.grid[2] = 8;
    d.dt = 0.0137f; /* fractional cell shifts */
    d.advection = scheme;
    for (int f = 0; f < 2 * dim; f++) d.boundary[f].type = EDDY_BOUNDARY_PERIODIC;
    if (dissipate) {
        d.velocity_dissipation = 0.7f;
        d.dye_dissipation = 1.3f;
        d.temperature_dissipation = 0.4f;
    }
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    for (int a = 0; a < dim; a++) set_faces(s, a, uniform, NULL);
    for (size_t i = 0; i < s->nscalar; i++) {
        s->dye[0][i] = 0.8f;
        s->dye[1][i] = 0.3f;
        s->dye[2][i] = 0.1f;
        s->temperature[i] = 2.0f;
    }
    const int steps = 12;
    for (int t = 0; t < steps; t++) CHECK(eddy__advect(s, d.dt) == EDDY_OK, "advect: %s", eddy_sim_last_error(s));
    if (!dissipate) {
        /* a + w (b - a) returns a exactly when a = b, and the correction terms vanish exactly: bit-exact */
        size_t bad = 0;
        for (int a = 0; a < dim; a++)
            for (size_t i = 0; i < s->nface[a]; i++) bad += s->vel[a][i] != UNIFORM[a];
        for (size_t i = 0; i < s->nscalar; i++)
            bad += s->dye[0][i] != 0.8f || s->dye[1][i] != 0.3f || s->dye[2][i] != 0.1f || s->temperature[i] != 2.0f;
        CHECK(bad == 0, "%dD %s: %zu values of a uniform flow changed", dim, scheme_name(scheme), bad);
    } else {
        /* each step multiplies by the float 1/(1 + k dt): ~3 roundings in the factor and one in the product,
         * 4 * 2^-24 per step, 12 steps: 3e-6; 1e-5 bounds it */
        struct { const char *name; float k, v0; const float *q; size_t n; } f[] = {
            {"u", d.velocity_dissipation, UNIFORM[0], s->vel[0], s->nface[0]},
            {"v", d.velocity_dissipation, UNIFORM[1], s->vel[1], s->nface[1]},
            {"dye_r", d.dye_dissipation, 0.8f, s->dye[0], s->nscalar},
            {"temperature", d.temperature_dissipation, 2.0f, s->temperature, s->nscalar}};
        for (size_t m = 0; m < sizeof f / sizeof f[0]; m++) {
            double want = f[m].v0 * pow(1.0 / (1.0 + (double)f[m].k * d.dt), steps);
            double worst = 0.0;
            for (size_t i = 0; i < f[m].n; i++) worst = fmax(worst, fabs(f[m].q[i] - want) / fabs(want));
            CHECK(worst < 1e-5, "%dD %s: %s decays to %g, want %g (relative error %.2e)", dim, scheme_name(scheme),
                  f[m].name, (double)f[m].q[0], want, worst);
        }
    }
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- translation on the finer dye grid */

static float small_blob(const float p[3], void *u) {
    const float *c = (const float *)u;
    float dx = p[0] - c[0], dy = p[1] - c[1];
    return expf(-(dx * dx + dy * dy) / (2.0f * 0.05f * 0.05f));
}
static const float DRIFT[3] = {0.3f, 0.2f, 0.0f};
static float drift(int a, const float p[3], void *u) {
    (void)p;
    (void)u;
    return DRIFT[a];
}

static void test_fine_dye_translation(int sx, int sy, eddy_advection scheme) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = 24;
    d.dye_scale[0] = sx;
    d.dye_scale[1] = sy;
    d.advection = scheme;
    d.dt = 0.025f;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    float c0[3] = {0.35f, 0.4f, 0.0f};
    set_scalar(s, s->dye[0], small_blob, c0);
    set_faces(s, 0, drift, NULL);
    set_faces(s, 1, drift, NULL);
    const int steps = 20;
    for (int t = 0; t < steps; t++) CHECK(eddy__advect(s, d.dt) == EDDY_OK, "advect: %s", eddy_sim_last_error(s));
    double m0 = 0, mx = 0, my = 0;
    eddy_grid_desc g = eddy__scalar_desc(s, s->dye[0]);
    for (int j = 0; j < g.n[1]; j++)
        for (int i = 0; i < g.n[0]; i++) {
            float p[3];
            eddy__grid_pos(&g, i, j, 0, p);
            double q = s->dye[0][eddy__idx(g.n, i, j, 0)];
            m0 += q;
            mx += q * p[0];
            my += q * p[1];
        }
    double want_x = c0[0] + DRIFT[0] * d.dt * steps, want_y = c0[1] + DRIFT[1] * d.dt * steps;
    double ex = mx / m0 - want_x, ey = my / m0 - want_y;
    printf("dye_scale %dx%d %s: centroid (%.5f, %.5f), expected (%.5f, %.5f)\n", sx, sy, scheme_name(scheme), mx / m0,
           my / m0, want_x, want_y);
    /* linear interpolation moves the first moment exactly with a uniform shift; the limiters and the float
     * positions perturb it by far less than a twentieth of a dye cell */
    CHECK(fabs(ex) < 0.05 * s->sh[0] && fabs(ey) < 0.05 * s->sh[1], "dye %dx%d %s: centroid off by (%.2e, %.2e) m", sx, sy,
          scheme_name(scheme), ex, ey);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- geometry against grid.c */

static float wavy(int a, const float p[3], void *u) {
    (void)u;
    return 0.6f * sinf(5.1f * p[0] + 1.3f * (float)a) * cosf(3.7f * p[1] - 0.4f) + 0.3f * cosf(4.3f * p[2] + 0.2f * (float)a) +
           0.2f * (float)a;
}
static float wavy_scalar(const float p[3], void *u) {
    (void)u;
    return sinf(7.0f * p[0]) * sinf(6.0f * p[1] + 0.5f) + 0.5f * cosf(5.0f * p[2]);
}

/* RK2 midpoint foot of p through the velocity, with grid.c's sampler */
static void foot(const eddy_sim *s, float *const vel[3], const float p[3], float dt, float out[3]) {
    float u[3], q[3];
    eddy__sample_vel(s, vel, p, u);
    for (int b = 0; b < 3; b++) q[b] = p[b] - 0.5f * dt * u[b];
    eddy__sample_vel(s, vel, q, u);
    for (int b = 0; b < 3; b++) out[b] = p[b] - dt * u[b];
}

/* One semi-Lagrangian step against the same step written with eddy__sample: catches any mismatch of face offsets,
 * scalar-grid scale or periodic wrap between advect.c's inlined sampler and the grid geometry. */
static void test_geometry(int dim, bool periodic_x) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = 11; d.grid[1] = 9; d.grid[2] = 7;
    d.dye_scale[0] = 2; d.dye_scale[1] = 3; d.dye_scale[2] = 2;
    d.advection = EDDY_ADVECT_SEMI_LAGRANGIAN;
    d.dt = 0.11f; /* displacements of one to two cells */
    if (periodic_x) d.boundary[0].type = d.boundary[1].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&d);
    if (!s) return;
    for (int a = 0; a < dim; a++) set_faces(s, a, wavy, NULL);
    set_scalar(s, s->temperature, wavy_scalar, NULL);
    float *old_vel[3] = {NULL, NULL, NULL};
    for (int a = 0; a < dim; a++) {
        old_vel[a] = malloc(s->nface[a] * sizeof(float));
        memcpy(old_vel[a], s->vel[a], s->nface[a] * sizeof(float));
    }
    float *old_t = malloc(s->nscalar * sizeof(float));
    memcpy(old_t, s->temperature, s->nscalar * sizeof(float));
    CHECK(eddy__advect(s, d.dt) == EDDY_OK, "advect: %s", eddy_sim_last_error(s));
    /* positions agree to float rounding (~1e-6 cells); values change by at most ~3 per cell: 1e-4 is ample */
    double worst = 0.0;
    for (int a = 0; a < dim; a++) {
        eddy_grid_desc g = eddy__velocity_desc(s, a, old_vel[a]);
        for (int k = 0; k < g.n[2]; k++)
            for (int j = 0; j < g.n[1]; j++)
                for (int i = 0; i < g.n[0]; i++) {
                    float p[3], x[3];
                    eddy__grid_pos(&g, i, j, k, p);
                    foot(s, old_vel, p, d.dt, x);
                    worst = fmax(worst, fabs(eddy__sample(&g, x) - s->vel[a][eddy__idx(g.n, i, j, k)]));
                }
    }
    eddy_grid_desc g = eddy__scalar_desc(s, old_t);
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                float p[3], x[3];
                eddy__grid_pos(&g, i, j, k, p);
                foot(s, old_vel, p, d.dt, x);
                worst = fmax(worst, fabs(eddy__sample(&g, x) - s->temperature[eddy__idx(g.n, i, j, k)]));
            }
    CHECK(worst < 1e-4, "%dD periodic_x=%d: semi-Lagrangian step differs from the grid.c reference by %.3g", dim,
          (int)periodic_x, worst);
    for (int a = 0; a < dim; a++) free(old_vel[a]);
    free(old_t);
    eddy_sim_destroy(s);
}

/* ---------------------------------------------------------------- determinism */

static eddy_sim *swirl_run(int dim, eddy_advection scheme, int threads) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 48 : 16; d.grid[1] = dim == 2 ? 40 : 14; d.grid[2] = 12;
    d.dye_scale[0] = d.dye_scale[1] = 2;
    d.advection = scheme;
    d.dt = 0.05f;
    d.velocity_dissipation = 0.1f;
    d.threads = threads;
    d.boundary[2].type = d.boundary[3].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = make_sim(&d);
    if (!s) return NULL;
    for (int a = 0; a < dim; a++) set_faces(s, a, wavy, NULL);
    set_scalar(s, s->dye[1], wavy_scalar, NULL);
    set_scalar(s, s->temperature, blob, (void *)&WIDE);
    for (int t = 0; t < 6; t++) CHECK(eddy__advect(s, d.dt) == EDDY_OK, "advect: %s", eddy_sim_last_error(s));
    return s;
}

static void test_determinism(int dim, eddy_advection scheme) {
    eddy_sim *a = swirl_run(dim, scheme, 1), *b = swirl_run(dim, scheme, 2);
    if (!a || !b) return;
    int same = 1;
    for (int c = 0; c < dim; c++) same &= !memcmp(a->vel[c], b->vel[c], a->nface[c] * sizeof(float));
    for (int c = 0; c < 3; c++) same &= !memcmp(a->dye[c], b->dye[c], a->nscalar * sizeof(float));
    same &= !memcmp(a->temperature, b->temperature, a->nscalar * sizeof(float));
    CHECK(same, "%dD %s: 1 and 2 threads give different bytes", dim, scheme_name(scheme));
    eddy_sim_destroy(a);
    eddy_sim_destroy(b);
}

int main(int argc, char **argv) {
    int full = check_full_size(argc, argv); /* EDDY_FULL_SIZE: rotation study up to 512^2 */
    test_rotation(full);
    if (full) test_rotation_second_order();
    test_rotation_fine_dye();
    eddy_advection schemes[3] = {EDDY_ADVECT_SEMI_LAGRANGIAN, EDDY_ADVECT_MACCORMACK, EDDY_ADVECT_BFECC};
    for (int m = 0; m < 3; m++)
        for (int dim = 2; dim <= 3; dim++) {
            test_uniform(dim, schemes[m], false);
            test_uniform(dim, schemes[m], true);
            test_determinism(dim, schemes[m]);
        }
    test_fine_dye_translation(2, 2, EDDY_ADVECT_SEMI_LAGRANGIAN);
    test_fine_dye_translation(4, 4, EDDY_ADVECT_MACCORMACK);
    test_fine_dye_translation(2, 4, EDDY_ADVECT_BFECC);
    for (int dim = 2; dim <= 3; dim++) {
        test_geometry(dim, false);
        test_geometry(dim, true);
    }
    return check_finish("test_advect");
}
