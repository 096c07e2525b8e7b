/* Buoyancy (forces.c) against its formula, face by face: u_a += dt g_a (alpha d - beta (T - T_amb)), with dye
 * density d = R + G + B and temperature T interpolated at the face.
 *
 * The velocity and scalar grids share their origin and the scalar grid is dye_scale times finer per cell, so a
 * face's coordinate in scalar samples is (i + off) k - 1/2 (off = 0 along the face's own axis, else 1/2): an
 * integer or an integer and a half. The reference finds its samples and weights (0, 1/2 or 1) by integer
 * arithmetic and interpolates in eddy__sample's order of float operations, so the library must give the same bits.
 * That holds only if the library's weights are exact: a weight of ~1e-7 where it should be 0 (what going through the
 * world position gave where the cell size is not a power of two) changes the result in the last bits. The cases:
 * 2D and 3D, cell sizes that are and are not a power of two, dye_scale 1, 2 and 3, walls and periodic axes, gravity
 * along every axis, 1 and 2 threads. Tolerance: none (==, so +0 and -0 compare equal; every value here is nonzero). */
#include "check.h"
#include "sim_internal.h"

#include <stdint.h>
#include <stdlib.h>

static uint32_t rng_state = 2024u;
static float rnd(void) { /* in [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

/* samples and weight of one axis for twice the coordinate, x2 = 2 ((i + off) k) - 1, as grid.c's locate() clamps
 * (walls) or wraps (periodic) it */
typedef struct tap {
    int i0, i1;
    float w;
} tap;
static tap tap_of(int x2, int n, bool periodic) {
    tap t = {0, 0, 0.0f};
    if (n == 1) return t;
    if (periodic) {
        const int fl = x2 >= 0 ? x2 / 2 : -((-x2 + 1) / 2); /* floor(x2 / 2) */
        t.w = (float)(x2 - 2 * fl) * 0.5f;
        t.i0 = eddy__wrap(fl, n);
        t.i1 = eddy__wrap(fl + 1, n);
        return t;
    }
    if (x2 < 0) x2 = 0;
    if (x2 > 2 * (n - 1)) x2 = 2 * (n - 1);
    int fl = x2 / 2;
    if (fl > n - 2) fl = n - 2;
    t.i0 = fl;
    t.i1 = fl + 1;
    t.w = (float)(x2 - 2 * fl) * 0.5f;
    return t;
}

/* eddy__sample's float operations at the taps tx, ty, tz of scalar field f */
static float interpolate(const eddy_sim *s, const float *f, tap tx, tap ty, tap tz) {
    const int *n = s->sn;
#define AT(i, j, k) f[eddy__idx(n, i, j, k)]
    float c00 = AT(tx.i0, ty.i0, tz.i0) * (1 - tx.w) + AT(tx.i1, ty.i0, tz.i0) * tx.w;
    float c10 = AT(tx.i0, ty.i1, tz.i0) * (1 - tx.w) + AT(tx.i1, ty.i1, tz.i0) * tx.w;
    float c0 = c00 * (1 - ty.w) + c10 * ty.w;
    if (n[2] == 1) return c0;
    float c01 = AT(tx.i0, ty.i0, tz.i1) * (1 - tx.w) + AT(tx.i1, ty.i0, tz.i1) * tx.w;
    float c11 = AT(tx.i0, ty.i1, tz.i1) * (1 - tx.w) + AT(tx.i1, ty.i1, tz.i1) * tx.w;
    float c1 = c01 * (1 - ty.w) + c11 * ty.w;
    return c0 * (1 - tz.w) + c1 * tz.w;
#undef AT
}

static void run_case(int dim, float h, int dye_scale, bool periodic_x, int threads) {
    const int n[3] = {13, 10, dim == 3 ? 9 : 1};
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    for (int a = 0; a < 3; a++) d.grid[a] = n[a];
    d.size[0] = h * (float)n[0];
    for (int a = 0; a < dim; a++) d.dye_scale[a] = dye_scale;
    d.gravity[0] = -2.5f;
    d.gravity[1] = -9.81f;
    d.gravity[2] = dim == 3 ? 1.5f : 0.0f;
    d.buoyancy_density = 0.7f;
    d.buoyancy_temperature = 1.3f;
    d.ambient_temperature = 0.1f;
    d.threads = threads;
    if (periodic_x) d.boundary[0].type = d.boundary[1].type = EDDY_BOUNDARY_PERIODIC;
    char label[128];
    snprintf(label, sizeof label, "%dD, h %g, dye_scale %d, %s x, %d thread%s", dim, (double)h, dye_scale,
             periodic_x ? "periodic" : "walls on", threads, threads > 1 ? "s" : "");
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "%s: create: %s", label, msg);
        return;
    }
    for (int c = 0; c < 3; c++)
        for (size_t q = 0; q < s->nscalar; q++) s->dye[c][q] = 1.5f + rnd(); /* nonzero: no signed zeros */
    for (size_t q = 0; q < s->nscalar; q++) s->temperature[q] = 2.0f + rnd();
    float *before[3] = {NULL, NULL, NULL};
    for (int a = 0; a < dim; a++) {
        before[a] = (float *)malloc(s->nface[a] * sizeof(float));
        for (size_t q = 0; q < s->nface[a]; q++) before[a][q] = s->vel[a][q] = 0.5f + rnd();
    }
    const float dt = 0.02f;
    CHECK(eddy__apply_buoyancy(s, dt) == EDDY_OK, "%s: apply: %s", label, eddy_sim_last_error(s));
    int wrong = 0, exact_zero_weights = 0;
    for (int a = 0; a < dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        const float dtg = dt * d.gravity[a];
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    const int idx[3] = {i, j, k};
                    tap t[3];
                    for (int b = 0; b < 3; b++) {
                        const int k_b = s->sn[b] / s->n[b], off2 = b == a ? 0 : 1; /* twice the face's offset */
                        t[b] = tap_of((2 * idx[b] + off2) * k_b - 1, s->sn[b], s->periodic[b]);
                        exact_zero_weights += t[b].w == 0.0f;
                    }
                    const float r = interpolate(s, s->dye[0], t[0], t[1], t[2]);
                    const float g = interpolate(s, s->dye[1], t[0], t[1], t[2]);
                    const float bl = interpolate(s, s->dye[2], t[0], t[1], t[2]);
                    const float temp = interpolate(s, s->temperature, t[0], t[1], t[2]);
                    const float dens = r + g + bl, dtemp = temp - d.ambient_temperature;
                    const size_t q = eddy__idx(fn, i, j, k);
                    const float want = before[a][q] + dtg * (d.buoyancy_density * dens - d.buoyancy_temperature * dtemp);
                    if (s->vel[a][q] != want && wrong++ < 3)
                        CHECK(0, "%s: component %d face (%d,%d,%d): %.9g, want %.9g", label, a, i, j, k,
                              (double)s->vel[a][q], (double)want);
                }
    }
    CHECK(wrong == 0, "%s: %d faces differ from the formula", label, wrong);
    CHECK(exact_zero_weights > 0, "%s: the case has faces on their samples", label);
    for (int a = 0; a < dim; a++) free(before[a]);
    eddy_sim_destroy(s);
}

int main(void) {
    const float sizes[3] = {0.125f, 0.1f, 1.0f / 12.0f}; /* a power of two, and two that are not */
    for (int dim = 2; dim <= 3; dim++)
        for (int hs = 0; hs < 3; hs++)
            for (int k = 1; k <= 3; k++)
                for (int per = 0; per <= 1; per++)
                    for (int threads = 1; threads <= 2; threads++) run_case(dim, sizes[hs], k, per != 0, threads);
    return check_finish("test_buoyancy");
}
