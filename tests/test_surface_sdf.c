/* Signed distance and fast sweeping (src/sdf.c, src/eikonal.c, src/eikonal_blocks.c).
 *
 * Accuracy. Fields on [0,1]^d with n points per axis (h = 1/(n-1)); exact distances to a point, a circle/sphere and
 * a box, the interface either seeded (points next to it pinned at the exact distance) or found from a density blob
 * (a Gaussian thresholded at a level whose level set is the circle/sphere; a sigmoid of the box distance at 0.5).
 * The first-order Godunov scheme has max error O(h |log h|) for point sources and curved fronts (Zhao 2005, sec. 3;
 * the error concentrates where characteristics fan out from the point / the box corners / the sphere):
 *   - max |phi - exact| <= 3 h over the whole grid for n up to 1025 (2D) / 129 (3D) (measured 0.7 h .. 2.6 h,
 *     slowly growing like |log h|);
 *   - halving h shrinks the max error by the factor <= 0.7 (measured 0.55 .. 0.66; h |log h| predicts 0.55 .. 0.6
 *     at these sizes, pure first order 0.5).
 * Sign: right at every point with |exact| > 1e-6 (the indicator decides it; no point may flip).
 * Determinism: the block wavefront on 1, 2 and 4 threads, blocks that do and do not divide the grid, gives the same
 * bytes as the serial sweep (memcmp), with and without a narrow band.
 * EDDY_FULL_SIZE (--full): 2D up to 1025^2, 3D up to 129^3. */
#include "check.h"
#include "eddy/surface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_BOUND_H 3.0   /* max error in units of h, see above */
#define HALVING_RATIO 0.70  /* e(h/2) / e(h) at most */

static const float circle_center[3] = {0.52f, 0.47f, 0.51f};
static const float circle_radius = 0.3f;
static const float box_center[3] = {0.51f, 0.48f, 0.5f};
static const float box_half[3] = {0.25f, 0.18f, 0.22f};
static const float point_at[3] = {0.43f, 0.56f, 0.38f};

typedef enum { SHAPE_POINT, SHAPE_SPHERE, SHAPE_BOX } shape_kind;
static const char *shape_name[] = {"point", "circle/sphere", "box"};

static double exact_distance(shape_kind shape, const float x[3], int dim) {
    double s = 0;
    switch (shape) {
    case SHAPE_POINT:
        for (int a = 0; a < dim; a++) s += (double)(x[a] - point_at[a]) * (x[a] - point_at[a]);
        return sqrt(s);
    case SHAPE_SPHERE:
        for (int a = 0; a < dim; a++) s += (double)(x[a] - circle_center[a]) * (x[a] - circle_center[a]);
        return sqrt(s) - circle_radius;
    case SHAPE_BOX: {
        double out = 0, in = -1e30;
        for (int a = 0; a < dim; a++) {
            double q = fabs((double)x[a] - box_center[a]) - box_half[a];
            if (q > 0) out += q * q;
            if (q > in) in = q;
        }
        return sqrt(out) + (in < 0 ? in : 0);
    }
    }
    return 0;
}

static eddy_surface *make_surface(int dim, int n, int threads, eddy_sweep_schedule schedule, int block, float band) {
    eddy_surface_def d = eddy_surface_def_default();
    d.dim = dim;
    d.n[0] = d.n[1] = n;
    d.n[2] = dim == 3 ? n : 1;
    d.h = 1.0f / (float)(n - 1);
    d.threads = threads;
    d.schedule = schedule;
    d.block[0] = d.block[1] = d.block[2] = block;
    d.max_distance = band;
    eddy_surface *s = NULL;
    char msg[256];
    eddy_status st = eddy_surface_create(&d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK && s, "create %dD n=%d: %s", dim, n, msg);
    return s;
}

static void point_pos(const eddy_surface *s, size_t p, float x[3]) {
    const eddy_surface_def *d = eddy_surface_get_def(s);
    size_t i = p % (size_t)d->n[0], j = p / (size_t)d->n[0] % (size_t)d->n[1], k = p / ((size_t)d->n[0] * (size_t)d->n[1]);
    x[0] = (float)i * d->h;
    x[1] = (float)j * d->h;
    x[2] = d->dim == 3 ? (float)k * d->h : 0.0f;
}

/* phi from a seeded interface: points next to the interface (an opposite-sign face neighbour; for the point,
 * points within h of it) pinned at the exact distance; elsewhere only the sign. */
static void seed_exact(eddy_surface *s, shape_kind shape, const float *exact, float *phi, uint8_t *pin) {
    const eddy_surface_def *d = eddy_surface_get_def(s);
    size_t N = eddy_surface_point_count(s);
    const size_t stride[3] = {1, (size_t)d->n[0], (size_t)d->n[0] * (size_t)d->n[1]};
    for (size_t p = 0; p < N; p++) {
        int idx[3] = {(int)(p % stride[1]), (int)(p / stride[1] % (size_t)d->n[1]), (int)(p / stride[2])};
        int pinned = 0;
        if (shape == SHAPE_POINT) {
            pinned = exact[p] <= d->h;
        } else {
            for (int a = 0; a < d->dim; a++)
                for (int side = -1; side <= 1; side += 2) {
                    int t = idx[a] + side;
                    if (t < 0 || t >= d->n[a]) continue;
                    size_t q = side < 0 ? p - stride[a] : p + stride[a];
                    if ((exact[q] < 0) != (exact[p] < 0)) pinned = 1;
                }
        }
        pin[p] = (uint8_t)pinned;
        phi[p] = pinned ? exact[p] : (exact[p] < 0 ? -1.0f : 1.0f);
    }
}

/* density whose level set {f = level} is the shape: inside above the level */
static float blob_density(shape_kind shape, double exact, float *level) {
    if (shape == SHAPE_SPHERE) { /* Gaussian exp(-r^2/sigma^2), level at r = radius */
        const double sigma = 0.3, r = exact + circle_radius;
        *level = (float)exp(-(double)circle_radius * circle_radius / (sigma * sigma));
        return (float)exp(-r * r / (sigma * sigma));
    }
    *level = 0.5f; /* sigmoid of the box distance, width 0.05 m */
    return (float)(1.0 / (1.0 + exp(exact / 0.05)));
}

typedef struct run_result {
    double max_error; /* m */
    double h;
    size_t wrong_sign;
} run_result;

static run_result run_case(int dim, int n, shape_kind shape, int from_blob) {
    run_result r = {0, 1.0 / (n - 1), 0};
    eddy_surface *s = make_surface(dim, n, 0, EDDY_SWEEP_AUTO, 0, 0);
    if (!s) return r;
    size_t N = eddy_surface_point_count(s);
    float *exact = malloc(N * sizeof(float)), *phi = malloc(N * sizeof(float)), *f = malloc(N * sizeof(float));
    uint8_t *pin = malloc(N);
    float level = 0;
    for (size_t p = 0; p < N; p++) {
        float x[3];
        point_pos(s, p, x);
        exact[p] = (float)exact_distance(shape, x, dim);
        f[p] = blob_density(shape, exact[p], &level);
    }
    eddy_status st;
    if (from_blob) {
        st = eddy_sdf_from_field(s, f, N, level, 1, phi);
    } else {
        seed_exact(s, shape, exact, phi, pin);
        st = eddy_sdf_sweep(s, phi, N, pin);
    }
    CHECK(st == EDDY_OK, "%s", eddy_surface_last_error(s));
    CHECK(eddy_surface_stats(s)->converged, "%dD n=%d %s: sweeps did not converge", dim, n, shape_name[shape]);
    for (size_t p = 0; p < N; p++) {
        double e = fabs((double)phi[p] - exact[p]);
        if (!(e <= r.max_error)) r.max_error = e; /* NaN propagates as a failure */
        if (fabs(exact[p]) > 1e-6 && (phi[p] < 0) != (exact[p] < 0)) r.wrong_sign++;
    }
    free(exact);
    free(phi);
    free(f);
    free(pin);
    eddy_surface_destroy(s);
    return r;
}

static void accuracy(int dim, const int *sizes, int count) {
    for (int shape = SHAPE_POINT; shape <= SHAPE_BOX; shape++)
        for (int from_blob = 0; from_blob <= 1; from_blob++) {
            if (shape == SHAPE_POINT && from_blob) continue; /* a point has no inside: its blob is a small sphere */
            double prev = 0;
            for (int c = 0; c < count; c++) {
                run_result r = run_case(dim, sizes[c], (shape_kind)shape, from_blob);
                printf("  %dD n=%4d %-13s %-6s max error %.3e m = %.2f h, wrong signs %zu\n", dim, sizes[c], shape_name[shape],
                       from_blob ? "blob" : "seeded", r.max_error, r.max_error / r.h, r.wrong_sign);
                CHECK(r.max_error <= ERROR_BOUND_H * r.h, "%dD n=%d %s: max error %.2f h > %.1f h", dim, sizes[c],
                      shape_name[shape], r.max_error / r.h, ERROR_BOUND_H);
                CHECK(r.wrong_sign == 0, "%dD n=%d %s: %zu points with the wrong sign", dim, sizes[c], shape_name[shape],
                      r.wrong_sign);
                if (c > 0)
                    CHECK(r.max_error <= HALVING_RATIO * prev, "%dD %s: error %.3e -> %.3e when h halves (ratio %.2f > %.2f)",
                          dim, shape_name[shape], prev, r.max_error, r.max_error / prev, HALVING_RATIO);
                prev = r.max_error;
            }
        }
}

/* Fills a blob field with several features (two spheres, one near an edge) so the sweeps take several rounds. */
static void two_blobs(const eddy_surface *s, float *f) {
    size_t N = eddy_surface_point_count(s);
    int dim = eddy_surface_get_def(s)->dim;
    for (size_t p = 0; p < N; p++) {
        float x[3];
        point_pos(s, p, x);
        double r1 = 0, r2 = 0;
        const double c2[3] = {0.9, 0.15, 0.8};
        for (int a = 0; a < dim; a++) {
            r1 += (x[a] - circle_center[a]) * (x[a] - circle_center[a]);
            r2 += (x[a] - c2[a]) * (x[a] - c2[a]);
        }
        f[p] = (float)(exp(-r1 / 0.04) + exp(-r2 / 0.01));
    }
}

static void determinism(int dim, int n, int block, float band) {
    eddy_surface *serial = make_surface(dim, n, 1, EDDY_SWEEP_SERIAL, 0, band);
    if (!serial) return;
    size_t N = eddy_surface_point_count(serial);
    float *f = malloc(N * sizeof(float)), *ref = malloc(N * sizeof(float)), *phi = malloc(N * sizeof(float));
    two_blobs(serial, f);
    CHECK(eddy_sdf_from_field(serial, f, N, 0.5f, 1, ref) == EDDY_OK, "%s", eddy_surface_last_error(serial));
    int rounds = eddy_surface_stats(serial)->iterations;
    const int threads[3] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
        eddy_surface *par = make_surface(dim, n, threads[t], EDDY_SWEEP_WAVEFRONT, block, band);
        if (!par) continue;
        memset(phi, 0, N * sizeof(float));
        CHECK(eddy_sdf_from_field(par, f, N, 0.5f, 1, phi) == EDDY_OK, "%s", eddy_surface_last_error(par));
        CHECK(memcmp(phi, ref, N * sizeof(float)) == 0, "%dD n=%d block %d band %g: wavefront on %d threads differs from serial",
              dim, n, block, (double)band, threads[t]);
        CHECK(eddy_surface_stats(par)->iterations == rounds, "rounds %d vs serial %d", eddy_surface_stats(par)->iterations, rounds);
        eddy_surface_destroy(par);
    }
    printf("  %dD n=%d block %d band %g: wavefront == serial on 1, 2, 4 threads (%d rounds)\n", dim, n, block, (double)band, rounds);
    free(f);
    free(ref);
    free(phi);
    eddy_surface_destroy(serial);
}

/* Re-initialisation: a level set with the circle/sphere as zero set but a slope varying from 0.3 to 3 becomes the
 * distance; same error bound as the blob case (same interface step and sweeps). */
static void reinitialize(int dim, int n) {
    eddy_surface *s = make_surface(dim, n, 0, EDDY_SWEEP_AUTO, 0, 0);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *phi = malloc(N * sizeof(float)), *exact = malloc(N * sizeof(float));
    for (size_t p = 0; p < N; p++) {
        float x[3];
        point_pos(s, p, x);
        exact[p] = (float)exact_distance(SHAPE_SPHERE, x, dim);
        phi[p] = exact[p] * (float)(1.65 + 1.35 * sin(7.0 * x[0] + 3.0 * x[1]));
    }
    CHECK(eddy_sdf_reinitialize(s, phi, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    double emax = 0;
    size_t wrong = 0;
    for (size_t p = 0; p < N; p++) {
        double e = fabs((double)phi[p] - exact[p]);
        if (!(e <= emax)) emax = e;
        if (fabs(exact[p]) > 1e-6 && (phi[p] < 0) != (exact[p] < 0)) wrong++;
    }
    double h = 1.0 / (n - 1);
    printf("  %dD n=%d reinitialise: max error %.2f h\n", dim, n, emax / h);
    CHECK(emax <= ERROR_BOUND_H * h && wrong == 0, "reinit %dD: error %.2f h, %zu wrong signs", dim, emax / h, wrong);
    free(phi);
    free(exact);
    eddy_surface_destroy(s);
}

/* Narrow band: inside the band the values equal the whole-grid solution (the band only caps values that the
 * Godunov update of a nearer point never uses), outside they are +-max_distance. */
static void narrow_band(int dim, int n) {
    const float band = 0.1f;
    eddy_surface *full = make_surface(dim, n, 1, EDDY_SWEEP_SERIAL, 0, 0);
    eddy_surface *banded = make_surface(dim, n, 1, EDDY_SWEEP_SERIAL, 0, band);
    if (!full || !banded) return;
    size_t N = eddy_surface_point_count(full);
    float *f = malloc(N * sizeof(float)), *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
    two_blobs(full, f);
    CHECK(eddy_sdf_from_field(full, f, N, 0.5f, 1, a) == EDDY_OK, "%s", eddy_surface_last_error(full));
    CHECK(eddy_sdf_from_field(banded, f, N, 0.5f, 1, b) == EDDY_OK, "%s", eddy_surface_last_error(banded));
    size_t bad_in = 0, bad_out = 0;
    for (size_t p = 0; p < N; p++) {
        if (fabsf(a[p]) < band) bad_in += a[p] != b[p];
        else bad_out += fabsf(b[p]) != band || (b[p] < 0) != (a[p] < 0);
    }
    printf("  %dD n=%d narrow band %g m: %.1f ms vs %.1f ms whole grid\n", dim, n, (double)band,
           eddy_surface_stats(banded)->sweep_ms, eddy_surface_stats(full)->sweep_ms);
    CHECK(bad_in == 0 && bad_out == 0, "narrow band %dD: %zu values inside differ, %zu outside not at the band", dim, bad_in, bad_out);
    free(f);
    free(a);
    free(b);
    eddy_surface_destroy(full);
    eddy_surface_destroy(banded);
}

/* Exact analytic distances: spot values against hand-computed ones (float rounding, 1e-6 m). */
static void shapes(void) {
    eddy_surface *s = make_surface(3, 11, 0, EDDY_SWEEP_AUTO, 0, 0); /* h = 0.1 */
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *phi = malloc(N * sizeof(float));
    eddy_obstacle_def sh[2];
    memset(sh, 0, sizeof sh);
    sh[0].shape = EDDY_SHAPE_SPHERE;
    sh[0].center[0] = sh[0].center[1] = sh[0].center[2] = 0.5f;
    sh[0].radius = 0.2f;
    sh[1].shape = EDDY_SHAPE_CAPSULE;
    sh[1].center[0] = 0.0f;
    sh[1].center[1] = 1.0f;
    sh[1].center[2] = 0.5f;
    sh[1].axis[2] = 0.3f;
    sh[1].radius = 0.1f;
    CHECK(eddy_sdf_from_shapes(s, sh, 2, phi, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    /* (5,5,5) centre: -0.2; (10,5,5): 0.5 - 0.2 = 0.3; (0,10,0): capsule end at z=0.2 -> 0.2 - 0.1 = 0.1 */
    CHECK(fabsf(phi[5 + 11 * (5 + 11 * 5)] + 0.2f) < 1e-6f, "sphere centre %g", (double)phi[5 + 11 * (5 + 11 * 5)]);
    CHECK(fabsf(phi[10 + 11 * (5 + 11 * 5)] - 0.3f) < 1e-6f, "sphere side %g", (double)phi[10 + 11 * (5 + 11 * 5)]);
    CHECK(fabsf(phi[0 + 11 * (10 + 11 * 0)] - 0.1f) < 1e-6f, "capsule end %g", (double)phi[11 * 10]);
    memset(sh, 0, sizeof sh);
    sh[0].shape = EDDY_SHAPE_BOX;
    sh[0].center[0] = sh[0].center[1] = sh[0].center[2] = 0.5f;
    sh[0].half_size[0] = 0.3f;
    sh[0].half_size[1] = sh[0].half_size[2] = 0.2f;
    CHECK(eddy_sdf_from_shapes(s, sh, 1, phi, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    /* centre: -0.2 (nearest faces y, z); corner point (10,10,10): distance to (0.8,0.7,0.7) = sqrt(.04+.09+.09) */
    CHECK(fabsf(phi[5 + 11 * (5 + 11 * 5)] + 0.2f) < 1e-6f, "box centre %g", (double)phi[5 + 11 * (5 + 11 * 5)]);
    CHECK(fabsf(phi[N - 1] - sqrtf(0.22f)) < 1e-6f, "box corner %g vs %g", (double)phi[N - 1], (double)sqrtf(0.22f));
    sh[0].radius = 0;
    sh[0].shape = EDDY_SHAPE_SPHERE;
    CHECK(eddy_sdf_from_shapes(s, sh, 1, phi, N) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_surface_last_error(s), "radius"),
          "zero radius accepted: %s", eddy_surface_last_error(s));
    free(phi);
    eddy_surface_destroy(s);
}

/* a user distance that is NaN right of x = 0.5 m */
static float nan_sdf(const float p[3], void *user) {
    (void)user;
    return p[0] > 0.5f ? NAN : p[0] - 0.25f;
}

static void errors_and_edge_cases(void) {
    char msg[256];
    eddy_surface *s = NULL;
    eddy_surface_def d = eddy_surface_def_default();
    d.n[0] = 1;
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && !s && strstr(msg, "n[0] = 1"), "n=1: %s", msg);
    d = eddy_surface_def_default();
    d.h = -1;
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "h = -1"), "h<0: %s", msg);
    d.h = 1e30f; /* the sweeps square h: 1e60 overflows float and every swept distance came out inf */
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "h = 1e+30"), "h=1e30: %s", msg);
    eddy_field_layout layout = {{64, 32, 1}, {0.1f, 0.2f, 0.1f}, {0, 0, 0}, 64 * 32};
    CHECK(eddy_surface_def_from_layout(&layout, &d, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED, "anisotropic layout accepted");
    layout.spacing[1] = 0.1f;
    CHECK(eddy_surface_def_from_layout(&layout, &d, msg, sizeof msg) == EDDY_OK && d.dim == 2 && d.n[1] == 32, "layout: %s", msg);

    s = make_surface(2, 16, 0, EDDY_SWEEP_AUTO, 0, 0);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *f = calloc(N, sizeof(float)), *phi = malloc(N * sizeof(float));
    CHECK(eddy_sdf_from_field(s, f, N - 1, 0.5f, 1, phi) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_surface_last_error(s), "255"),
          "wrong count: %s", eddy_surface_last_error(s));
    f[17] = NAN;
    CHECK(eddy_sdf_from_field(s, f, N, 0.5f, 1, phi) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_surface_last_error(s), "(1, 1, 0)"),
          "NaN: %s", eddy_surface_last_error(s));
    f[17] = 0;
    /* no interface: everything outside at infinite distance, nothing pinned */
    CHECK(eddy_sdf_from_field(s, f, N, 0.5f, 1, phi) == EDDY_OK, "%s", eddy_surface_last_error(s));
    CHECK(isinf(phi[0]) && phi[0] > 0 && isinf(phi[N - 1]) && eddy_surface_stats(s)->pinned == 0, "no interface: %g", (double)phi[0]);
    /* in place, densities form: one inside point gives pinned distances h/2 around it (crossing halfway) */
    f[5 + 16 * 5] = 1.0f;
    CHECK(eddy_sdf_from_densities(s, f, N, 1.0f, 0.0f, f) == EDDY_OK, "%s", eddy_surface_last_error(s));
    float h = 1.0f / 15.0f;
    CHECK(fabsf(f[5 + 16 * 5] + 0.5f * h / sqrtf(2.0f)) < 1e-6f && fabsf(f[6 + 16 * 5] - 0.5f * h) < 1e-6f,
          "single point: %g %g", (double)f[5 + 16 * 5], (double)f[6 + 16 * 5]);
    CHECK(eddy_surface_stats(s)->pinned == 5, "pinned %zu", eddy_surface_stats(s)->pinned);
    /* in place with a NaN: refused, and the caller's level set is given back as it was */
    for (size_t p = 0; p < N; p++) phi[p] = (float)(p % 16) - 7.5f;
    phi[40] = NAN;
    memcpy(f, phi, N * sizeof(float));
    CHECK(eddy_sdf_reinitialize(s, phi, N) == EDDY_ERR_INVALID_ARGUMENT && !memcmp(f, phi, N * sizeof(float)),
          "failed in-place call changed its input: %s", eddy_surface_last_error(s));
    /* values and a level near the float range: field - level overflows float; the distances stay finite */
    for (size_t p = 0; p < N; p++) f[p] = (p % 16 > 4 && p % 16 < 10 && p / 16 > 4 && p / 16 < 10) ? 3e38f : -3e38f;
    CHECK(eddy_sdf_from_field(s, f, N, -3e38f, 1, phi) == EDDY_OK, "%s", eddy_surface_last_error(s));
    size_t bad = 0;
    for (size_t p = 0; p < N; p++) bad += !isfinite(phi[p]);
    CHECK(bad == 0 && phi[7 + 16 * 7] < 0 && phi[0] > 0, "huge values: %zu non-finite distances", bad);
    /* a shape whose distance is not a number is refused, naming the point */
    eddy_obstacle_def nan_shape;
    memset(&nan_shape, 0, sizeof nan_shape);
    nan_shape.shape = EDDY_SHAPE_SDF;
    nan_shape.sdf = nan_sdf;
    CHECK(eddy_sdf_from_shapes(s, &nan_shape, 1, phi, N) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_surface_last_error(s), "(8, 0, 0)"),
          "NaN distance returned: %s", eddy_surface_last_error(s));
    free(f);
    free(phi);
    eddy_surface_destroy(s);
}

int main(int argc, char **argv) {
    int full = check_full_size(argc, argv); /* EDDY_FULL_SIZE */
    static const int sizes2_small[] = {65, 129, 257}, sizes2_full[] = {129, 257, 513, 1025};
    static const int sizes3_small[] = {33, 65}, sizes3_full[] = {33, 65, 129};
    printf("accuracy (bound %.1f h, halving ratio <= %.2f):\n", ERROR_BOUND_H, HALVING_RATIO);
    if (full) {
        accuracy(2, sizes2_full, 4);
        accuracy(3, sizes3_full, 3);
    } else {
        accuracy(2, sizes2_small, 3);
        accuracy(3, sizes3_small, 2);
    }
    printf("determinism:\n");
    determinism(2, full ? 1000 : 150, 16, 0);
    determinism(2, full ? 1000 : 150, 7, 0.1f);
    determinism(3, full ? 100 : 40, 16, 0);
    determinism(3, full ? 100 : 40, 5, 0.15f);
    determinism(3, full ? 100 : 40, 0, 0);
    printf("reinitialise, narrow band, shapes, errors:\n");
    reinitialize(2, full ? 513 : 129);
    reinitialize(3, full ? 129 : 33);
    narrow_band(2, full ? 1025 : 129);
    narrow_band(3, full ? 129 : 40);
    shapes();
    errors_and_edge_cases();
    return check_finish("test_surface_sdf");
}
