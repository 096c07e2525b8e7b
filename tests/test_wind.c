/* Tests of the game wind field (src/wind*.c) and its particles (src/particles.c):
 *   definitions are checked; a uniform ambient field stays exactly uniform when the window slides; a slide by whole
 *   cells moves every value by exactly that many cells (and snapping keeps whole cells); a sub-cell slide keeps a
 *   linear field still in the world; sampling reproduces linear fields; textures have the documented layout;
 *   a still collider in still air makes no wind; a moving collider makes wind along its motion while the
 *   divergence stays at the solver's tolerance; explosions push outward; particles reach the wind speed at the rate
 *   their drag predicts; frames and particles are bitwise identical for 1 and 2 threads. */
#include "check.h"
#include "wind_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static eddy_wind *make_wind(eddy_wind_def d) {
    eddy_wind *w = NULL;
    char msg[256];
    eddy_status st = eddy_wind_create(&d, &w, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return w;
}

/* the default field projected by MGPCG to `tolerance` (the default Jacobi budget would blur the checked flows) */
static eddy_wind *make_mgpcg_wind(float tolerance) {
    eddy_wind_def d = eddy_wind_def_default();
    d.pressure.solver = EDDY_PRESSURE_MGPCG;
    d.pressure.tolerance = tolerance;
    d.pressure.max_iterations = 100;
    return make_wind(d);
}

static void face_pos(const eddy_wind *w, int a, int i, int j, int k, double p[3]) {
    int idx[3] = {i, j, k};
    for (int b = 0; b < 3; b++) p[b] = w->origin[b] + ((double)idx[b] + (b == a ? 0.0 : 0.5)) * w->h;
}

static void test_definition(void) {
    eddy_wind_def d = eddy_wind_def_default();
    char msg[256];
    CHECK(eddy_wind_def_validate(&d, msg, sizeof msg) == EDDY_OK, "default definition rejected: %s", msg);
    CHECK(d.grid[0] * d.grid[1] * d.grid[2] == 32 * 32 * 16 && d.cell_size == 1.0f, "default is 32 x 16 x 32 cells of 1 m");
    d.grid[1] = 2;
    CHECK(eddy_wind_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "grid[1] = 2"),
          "grid[1] = 2 not named: %s", msg);
    d = eddy_wind_def_default();
    d.noise_amplitude = 1.0f;
    d.noise_scale = 0.5f;
    CHECK(eddy_wind_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "noise_scale"),
          "noise finer than a cell not refused: %s", msg);
    d = eddy_wind_def_default();
    d.pressure.tolerance = 2.0f;
    eddy_wind *w = NULL;
    CHECK(eddy_wind_create(&d, &w, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && !w && strstr(msg, "tolerance"),
          "bad pressure tolerance not named: %s", msg);
    d = eddy_wind_def_default();
    w = make_wind(d);
    if (!w) return;
    CHECK(eddy_wind_frame(w, -1.0f, NULL) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "dt = -1"),
          "negative dt: %s", eddy_wind_last_error(w));
    eddy_wind_collider c = {.shape = EDDY_SHAPE_BOX, .radius = 1.0f};
    eddy_wind_sources src = {.colliders = &c, .collider_count = 1};
    CHECK(eddy_wind_frame(w, 0.016f, &src) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "collider 0"),
          "box collider: %s", eddy_wind_last_error(w));
    float nan3[3] = {NAN, 0, 0};
    CHECK(eddy_wind_move(w, nan3) == EDDY_ERR_INVALID_ARGUMENT, "NaN centre accepted");
    eddy_wind_destroy(w);
}

/* A uniform ambient wind with no sources stays exactly uniform however the window slides: whole-cell copies
 * and the interpolation v + f (v' - v) of equal values are exact in floating point. */
static void test_uniform_slide(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 3.1f;
    d.ambient[1] = -0.7f;
    d.ambient[2] = 1.3f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    const float centres[][3] = {{0.37f, -0.21f, 1.9f}, {5.55f, 2.1f, -3.3f}, {5.0f, 2.6f, -3.05f},
                                {1000.123f, -7.7f, 40.01f}, {1003.9f, -7.1f, 39.5f}};
    int bad = 0;
    for (size_t m = 0; m < sizeof centres / sizeof centres[0]; m++) {
        CHECK(eddy_wind_move(w, centres[m]) == EDDY_OK, "move %zu: %s", m, eddy_wind_last_error(w));
        for (int a = 0; a < 3; a++)
            for (size_t q = 0; q < w->sim->nface[a]; q++) bad += w->sim->vel[a][q] != d.ambient[a];
        float p[3] = {centres[m][0] + 3.3f, centres[m][1] - 1.7f, centres[m][2] + 0.2f}, v[3];
        eddy_wind_sample(w, p, v);
        bad += v[0] != d.ambient[0] || v[1] != d.ambient[1] || v[2] != d.ambient[2];
    }
    CHECK(bad == 0, "%d values differ from the uniform ambient wind after slides", bad);
    eddy_wind_destroy(w);
}

static float pattern(int a, size_t q) { return (float)(a + 1) * 0.25f + (float)(q % 9973) * 0.001f; }

/* A slide by whole cells moves every value by exactly that many cells; cells entering take the ambient wind. */
static void test_whole_cell_slide(int snap) {
    eddy_wind_def d = eddy_wind_def_default();
    d.cell_size = 0.5f;
    d.ambient[0] = 1.0f;
    d.ambient[1] = 2.0f;
    d.ambient[2] = 3.0f;
    d.snap_to_cells = snap;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_sim *s = w->sim;
    float *old[3];
    for (int a = 0; a < 3; a++) {
        old[a] = malloc(s->nface[a] * sizeof(float));
        for (size_t q = 0; q < s->nface[a]; q++) old[a][q] = s->vel[a][q] = pattern(a, q);
    }
    /* 2, -1, 3 cells of 0.5 m; with snapping, a further 0.3 cell is rounded away */
    const int shift[3] = {2, -1, 3};
    float extra = snap ? 0.3f * 0.5f : 0.0f;
    float c[3] = {2 * 0.5f + extra, -1 * 0.5f - extra, 3 * 0.5f + extra};
    CHECK(eddy_wind_move(w, c) == EDDY_OK, "move: %s", eddy_wind_last_error(w));
    int bad = 0;
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        const float *now = s->vel[a];
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    int si = i + shift[0], sj = j + shift[1], sk = k + shift[2];
                    bool in = si >= 0 && si < fn[0] && sj >= 0 && sj < fn[1] && sk >= 0 && sk < fn[2];
                    float want = in ? old[a][eddy__idx(fn, si, sj, sk)] : d.ambient[a];
                    bad += now[eddy__idx(fn, i, j, k)] != want;
                }
    }
    CHECK(bad == 0, "snap %d: %d values not moved by exactly (2, -1, 3) cells", snap, bad);
    if (snap) {
        /* the window stays on the world lattice of 0.5 m cells */
        for (int a = 0; a < 3; a++) {
            double cells = w->origin[a] / 0.5;
            CHECK(cells == floor(cells), "snap: origin[%d] = %g is not on the cell lattice", a, w->origin[a]);
        }
    }
    for (int a = 0; a < 3; a++) free(old[a]);
    eddy_wind_destroy(w);
}

/* A sub-cell slide keeps a linear field still in the world: after moving, every face away from the edges holds
 * the field at its new world position. Linear interpolation is exact for linear fields; the tolerance 1e-5 (m/s,
 * values up to ~4 m/s) covers float rounding of the positions and the lerps (a few ulps of 4). */
static void test_subcell_slide(void) {
    eddy_wind_def d = eddy_wind_def_default();
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_sim *s = w->sim;
    const double g[3][4] = {{0.5, 0.1, 0.02, -0.03}, {-0.2, 0.04, 0.05, 0.01}, {0.1, -0.02, 0.03, 0.06}};
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    double p[3];
                    face_pos(w, a, i, j, k, p);
                    s->vel[a][eddy__idx(fn, i, j, k)] = (float)(g[a][0] + g[a][1] * p[0] + g[a][2] * p[1] + g[a][3] * p[2]);
                }
    }
    float c[3] = {0.25f, -0.6f, 1.4f}; /* fractions 0.25, 0.4 (whole -1), 0.4 (whole 1) */
    CHECK(eddy_wind_move(w, c) == EDDY_OK, "move: %s", eddy_wind_last_error(w));
    double worst = 0;
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 2; k < fn[2] - 2; k++)
            for (int j = 2; j < fn[1] - 2; j++)
                for (int i = 2; i < fn[0] - 2; i++) {
                    double p[3];
                    face_pos(w, a, i, j, k, p);
                    double want = g[a][0] + g[a][1] * p[0] + g[a][2] * p[1] + g[a][3] * p[2];
                    double err = fabs(s->vel[a][eddy__idx(fn, i, j, k)] - want);
                    worst = err > worst ? err : worst;
                }
    }
    CHECK(worst < 1e-5, "sub-cell slide: linear field off by %g m/s", worst);
    eddy_wind_destroy(w);
}

/* Sampling reproduces linear fields: the cell-centred average of two faces and trilinear interpolation are exact
 * for linear functions; tolerance 2e-5 m/s (values up to ~3 m/s, float rounding). Outside the window: ambient. */
static void test_sampling_linear(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.cell_size = 0.5f;
    d.center[0] = 10.0f;
    d.center[1] = 3.0f;
    d.center[2] = -4.0f;
    d.ambient[0] = 0.75f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_sim *s = w->sim;
    const double g[3][4] = {{0.5, 0.1, 0.02, -0.03}, {-0.2, 0.04, 0.05, 0.01}, {0.1, -0.02, 0.03, 0.06}};
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    double p[3];
                    face_pos(w, a, i, j, k, p);
                    s->vel[a][eddy__idx(fn, i, j, k)] = (float)(g[a][0] + g[a][1] * p[0] + g[a][2] * p[1] + g[a][3] * p[2]);
                }
    }
    CHECK(eddy_wind_sync(w) == EDDY_OK, "sync");
    enum { N = 2000 };
    float *pos = malloc(3 * N * sizeof(float)), *vel = malloc(3 * N * sizeof(float));
    double worst = 0;
    int bad_batch = 0;
    srand(7);
    for (int p = 0; p < N; p++) {
        for (int b = 0; b < 3; b++) {
            double lo = w->origin[b] + 0.5 * w->h, hi = w->origin[b] + (w->n[b] - 0.5) * w->h;
            pos[3 * p + b] = (float)(lo + (hi - lo) * rand() / (double)RAND_MAX);
        }
        float v[3];
        eddy_wind_sample(w, pos + 3 * p, v);
        for (int a = 0; a < 3; a++) {
            double want = g[a][0] + g[a][1] * pos[3 * p] + g[a][2] * pos[3 * p + 1] + g[a][3] * pos[3 * p + 2];
            double err = fabs(v[a] - want);
            worst = err > worst ? err : worst;
        }
    }
    CHECK(worst < 2e-5, "sampling a linear field: off by %g m/s", worst);
    CHECK(eddy_wind_sample_batch(w, pos, 3, vel, 3, N) == EDDY_OK, "batch");
    for (int p = 0; p < N; p++) {
        float v[3];
        eddy_wind_sample(w, pos + 3 * p, v);
        bad_batch += memcmp(v, vel + 3 * p, sizeof v) != 0;
    }
    CHECK(bad_batch == 0, "%d batch samples differ from single samples", bad_batch);
    float out[3] = {(float)(w->origin[0] - 0.01), 3.0f, -4.0f}, v[3];
    eddy_wind_sample(w, out, v);
    CHECK(v[0] == 0.75f && v[1] == 0.0f && v[2] == 0.0f, "outside the window: (%g %g %g), want the ambient (0.75 0 0)",
          (double)v[0], (double)v[1], (double)v[2]);
    free(pos);
    free(vel);
    eddy_wind_destroy(w);
}

static void test_texture(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.grid[0] = 4;
    d.grid[1] = 3;
    d.grid[2] = 5;
    d.ambient[0] = 1.0f;
    d.ambient[1] = -2.0f;
    d.ambient[2] = 65504.0f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    size_t n = 4 * 3 * 5;
    float *rgba = malloc(n * 4 * sizeof(float));
    uint16_t *half = malloc(n * 3 * sizeof(uint16_t));
    CHECK(eddy_wind_copy_texture(w, EDDY_WIND_RGBA32F, rgba, n * 16 - 1) == EDDY_ERR_INVALID_ARGUMENT,
          "a too small destination accepted");
    CHECK(eddy_wind_copy_texture(w, EDDY_WIND_RGBA32F, rgba, n * 16) == EDDY_OK, "rgba32f");
    CHECK(rgba[4 * 7 + 0] == 1.0f && rgba[4 * 7 + 1] == -2.0f && rgba[4 * 7 + 2] == 65504.0f, "texel 7 is not the wind");
    CHECK(eddy_wind_copy_texture(w, EDDY_WIND_RGB16F, half, n * 6) == EDDY_OK, "rgb16f");
    /* IEEE half: 1 = 0x3c00, -2 = 0xc000, 65504 = 0x7bff (largest finite) */
    CHECK(half[3 * 11] == 0x3c00 && half[3 * 11 + 1] == 0xc000 && half[3 * 11 + 2] == 0x7bff,
          "half texel = %04x %04x %04x", half[33], half[34], half[35]);
    free(rgba);
    free(half);
    eddy_wind_destroy(w);
}

/* Particles in a uniform wind U (no gravity) starting at rest: v(t) = U (1 - exp(-k t)) exactly for the integrator
 * (exponential factor per step). Compared with the closed form: tolerance 2e-5 |U|, the float rounding of
 * exp(-k dt) raised to 120 steps (120 * 6e-8) plus per-step rounding. Positions follow
 * x0 + U t - U (1 - exp(-k t)) / k to 1e-4 m (120 steps of rounding at |x| ~ 20 m, ulp ~2e-6). */
static void test_particles_drag(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 2.0f;
    d.ambient[1] = -1.0f;
    d.ambient[2] = 0.5f;
    eddy_wind *w = make_wind(d);
    eddy_particles_def pd = eddy_particles_def_default();
    pd.count = 3;
    pd.drag = 3.0f;
    pd.lifetime = 1e6f;
    pd.lifetime_jitter = 0.0f;
    eddy_particles *p = NULL;
    char msg[256];
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!w || !p) return;
    /* inside the window, near its edge, and outside it (ambient there) */
    const float x0[3][3] = {{1.0f, 2.0f, -3.0f}, {15.8f, 7.9f, 15.8f}, {40.0f, 0.0f, 0.0f}}, zero[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) eddy_particles_set(p, i, x0[i], zero);
    const float dt = 1.0f / 60.0f;
    const int steps = 120;
    for (int s = 0; s < steps; s++) CHECK(eddy_particles_update(p, w, dt) == EDDY_OK, "update");
    double t = steps * (double)dt, f = 1.0 - exp(-3.0 * t);
    double verr = 0, xerr = 0;
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++) {
            double U = d.ambient[c];
            verr = fmax(verr, fabs(eddy_particles_velocities(p)[3 * i + c] - U * f));
            xerr = fmax(xerr, fabs(eddy_particles_positions(p)[3 * i + c] - (x0[i][c] + U * t - U * f / 3.0)));
        }
    CHECK(verr < 2e-5 * sqrt(5.25), "particle speed off the drag law by %g m/s", verr);
    CHECK(xerr < 1e-4, "particle position off the drag law by %g m", xerr);
    eddy_particles_destroy(p);

    /* with gravity the particle tends to the terminal velocity U + g / k */
    pd.count = 1;
    pd.gravity[1] = -9.0f;
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (p) {
        eddy_particles_set(p, 0, x0[0], zero);
        for (int s = 0; s < 600; s++) eddy_particles_update(p, w, dt); /* 10 s = 30 / k: e^-30 ~ 1e-13 */
        const float *v = eddy_particles_velocities(p);
        CHECK(fabs(v[1] - (-1.0 - 3.0)) < 1e-5 && fabs(v[0] - 2.0) < 1e-5, "terminal velocity (%g %g), want (2, -4)",
              (double)v[0], (double)v[1]);
        eddy_particles_destroy(p);
    }
    eddy_wind_destroy(w);
}

/* Respawning, sampling and the parallel loop give the same bytes for 1 and 2 threads. */
static void test_particles_threads(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 1.5f;
    d.noise_amplitude = 1.0f;
    eddy_wind *w = make_wind(d);
    float *first = NULL;
    size_t bytes = 0;
    for (int threads = 1; threads <= 2 && w; threads++) {
        eddy_particles_def pd = eddy_particles_def_default();
        pd.count = 5000;
        pd.lifetime = 0.5f;
        pd.respawn_outside_window = 1;
        pd.threads = threads;
        eddy_particles *p = NULL;
        char msg[256];
        CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
        if (!p) break;
        for (int s = 0; s < 60; s++) eddy_particles_update(p, w, 1.0f / 30.0f);
        bytes = 3 * (size_t)pd.count * sizeof(float);
        const float *pos = eddy_particles_positions(p);
        int inside = 0;
        for (int i = 0; i < pd.count; i++) {
            float x = pos[3 * i], y = pos[3 * i + 1];
            inside += x >= -16.5f && x <= 16.5f && y >= -8.5f && y <= 8.5f;
        }
        CHECK(inside == pd.count, "%d of %d particles outside the window despite respawn_outside_window", pd.count - inside,
              pd.count);
        if (threads == 1) {
            first = malloc(bytes);
            memcpy(first, pos, bytes);
        } else {
            CHECK(memcmp(first, pos, bytes) == 0, "particles differ between 1 and 2 threads");
        }
        eddy_particles_destroy(p);
    }
    free(first);
    eddy_wind_destroy(w);
}

/* A still collider in still air makes no wind: every face stays exactly 0 (the imprint pulls towards 0, the
 * advection of a zero field is zero, the projection of a divergence-free zero field changes nothing). */
static void test_still_collider(void) {
    eddy_wind_def d = eddy_wind_def_default();
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_wind_collider c[2] = {{.shape = EDDY_SHAPE_SPHERE, .center = {0.3f, 0.2f, -0.4f}, .radius = 2.0f},
                               {.shape = EDDY_SHAPE_CAPSULE, .center = {5.0f, 1.0f, 3.0f}, .radius = 0.7f,
                                .axis = {0.0f, 1.5f, 0.5f}}};
    eddy_wind_sources src = {.colliders = c, .collider_count = 2};
    for (int f = 0; f < 30; f++) CHECK(eddy_wind_frame(w, 1.0f / 60.0f, &src) == EDDY_OK, "frame: %s", eddy_wind_last_error(w));
    int nonzero = 0;
    for (int a = 0; a < 3; a++)
        for (size_t q = 0; q < w->sim->nface[a]; q++) nonzero += w->sim->vel[a][q] != 0.0f;
    CHECK(nonzero == 0 && eddy_wind_stats(w)->max_speed == 0.0f, "%d faces moved around a still collider", nonzero);
    CHECK(eddy_wind_stats(w)->solid_cells > 30, "the sphere of radius 2 m covers only %d cells",
          eddy_wind_stats(w)->solid_cells);
    eddy_wind_destroy(w);
}

/* A collider moving at V = 3 m/s along +x through still air, with the window following it (sub-cell slides every
 * frame). Potential flow around a sphere moves the air ahead of it and behind it along the motion with speed
 * V R^3 / r^3 on the axis (Batchelor 1967, 6.8): 0.30 V at 1.5 R ahead; the wake adds to it behind. The test
 * asks for more than 0.1 V ahead and behind, V inside, and the air at rest far away (< 0.05 V at 10 m aside).
 * Divergence: MGPCG to a relative residual of 1e-6; the right-hand side is O(V) on a few hundred cells, so
 * |r| <= 1e-6 * 30 V and max |div| h stays below 1e-4 V (the test's bound) in every frame. */
static void test_moving_collider(void) {
    eddy_wind *w = make_mgpcg_wind(1e-6f);
    if (!w) return;
    const float V = 3.0f, R = 1.5f, dt = 1.0f / 60.0f;
    eddy_wind_collider c = {.shape = EDDY_SHAPE_SPHERE, .center = {0.0f, 0.1f, 0.2f}, .radius = R, .velocity = {V, 0, 0}};
    eddy_wind_sources src = {.colliders = &c, .collider_count = 1};
    float worst_div = 0.0f, worst_res = 0.0f;
    for (int f = 0; f < 60; f++) {
        c.center[0] = V * dt * (float)f;
        CHECK(eddy_wind_move(w, c.center) == EDDY_OK, "move");
        CHECK(eddy_wind_frame(w, dt, &src) == EDDY_OK, "frame %d: %s", f, eddy_wind_last_error(w));
        worst_div = fmaxf(worst_div, eddy_wind_stats(w)->max_div);
        worst_res = fmaxf(worst_res, eddy_wind_stats(w)->pressure_residual);
    }
    CHECK(worst_res <= 1e-6f, "pressure residual %g above the tolerance 1e-6", (double)worst_res);
    CHECK(worst_div * w->h < 1e-4f * V, "max |div u| = %g 1/s: above 1e-4 V / h", (double)worst_div);
    float v[3];
    float ahead[3] = {c.center[0] + 1.5f * R, c.center[1], c.center[2]};
    eddy_wind_sample(w, ahead, v);
    CHECK(v[0] > 0.1f * V, "ahead of the collider u = %g m/s, want > %g", (double)v[0], 0.1 * V);
    float behind[3] = {c.center[0] - 1.5f * R, c.center[1], c.center[2]};
    eddy_wind_sample(w, behind, v);
    CHECK(v[0] > 0.1f * V, "behind the collider u = %g m/s, want > %g", (double)v[0], 0.1 * V);
    eddy_wind_sample(w, c.center, v);
    CHECK(fabsf(v[0] - V) < 1e-5f && fabsf(v[1]) < 1e-5f && fabsf(v[2]) < 1e-5f, "inside the collider (%g %g %g)",
          (double)v[0], (double)v[1], (double)v[2]);
    float far[3] = {c.center[0], c.center[1], c.center[2] + 10.0f};
    eddy_wind_sample(w, far, v);
    CHECK(sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 0.05f * V, "10 m aside the air moves at (%g %g %g)",
          (double)v[0], (double)v[1], (double)v[2]);
    eddy_wind_destroy(w);
}

/* Explosions push the air outward while they last: a source of radius 2 m and 5 m/s gives 5 (2/r)^2 = 1.25 m/s
 * at r = 4 m in free space; the open window and the projection of the rest of the field change that by tens of
 * per cent, so the test asks for 0.6..2 m/s outward on both sides, and then for a calm (< 0.25 m/s there) once
 * it has ended (incompressible air stops when the source stops; what remains is the part of the old radial flow
 * that the open window lets through). */
static void test_explosion(void) {
    eddy_wind *w = make_mgpcg_wind(1e-5f);
    if (!w) return;
    eddy_wind_explosion e = {.center = {0.5f, 0.5f, 0.5f}, .radius = 2.0f, .speed = 5.0f, .duration = 0.1f};
    CHECK(eddy_wind_explode(w, &e) == EDDY_OK, "explode");
    CHECK(eddy_wind_frame(w, 1.0f / 60.0f, NULL) == EDDY_OK, "frame: %s", eddy_wind_last_error(w));
    float v[3], p[3] = {4.5f, 0.5f, 0.5f}, q[3] = {-3.5f, 0.5f, 0.5f};
    eddy_wind_sample(w, p, v);
    CHECK(v[0] > 0.6f && v[0] < 2.0f, "4 m from the explosion u = %g m/s, want about 1.25", (double)v[0]);
    eddy_wind_sample(w, q, v);
    CHECK(v[0] < -0.6f && v[0] > -2.0f, "4 m on the other side u = %g m/s, want about -1.25", (double)v[0]);
    CHECK(eddy_wind_stats(w)->active_explosions == 1, "active explosions %d", eddy_wind_stats(w)->active_explosions);
    for (int f = 0; f < 12; f++) eddy_wind_frame(w, 1.0f / 60.0f, NULL);
    CHECK(eddy_wind_stats(w)->active_explosions == 0, "explosion still active after its duration");
    eddy_wind_sample(w, p, v);
    CHECK(fabsf(v[0]) < 0.25f, "after the explosion u = %g m/s at 4 m", (double)v[0]);
    e.radius = -1.0f;
    CHECK(eddy_wind_explode(w, &e) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "radius = -1"),
          "negative radius: %s", eddy_wind_last_error(w));
    eddy_wind_destroy(w);
}

/* A whole-window gust pulls a still field towards its velocity V by 1 - exp(-rate dt) in one frame. The field
 * stays uniform except where advection brings the ambient air (at rest) in through the upwind window faces; the
 * projection spreads that over the window, so the middle may differ by a few per cent: the test allows 3% of the
 * expected speed (about one face layer in 32) and no more than that crosswise. */
static void test_gust(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.relaxation_time = 0.0f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_wind_gust g = {.radius = 0.0f, .velocity = {4.0f, 0.0f, -2.0f}, .rate = 6.0f};
    eddy_wind_sources src = {.gusts = &g, .gust_count = 1};
    const float dt = 0.05f;
    CHECK(eddy_wind_frame(w, dt, &src) == EDDY_OK, "frame: %s", eddy_wind_last_error(w));
    double f = 1.0 - exp(-6.0 * dt);
    float v[3], p[3] = {1.0f, 2.0f, 3.0f};
    eddy_wind_sample(w, p, v);
    double tol = 0.03 * sqrt(20.0) * f;
    CHECK(fabs(v[0] - 4.0 * f) < tol && fabs(v[2] + 2.0 * f) < tol && fabs(v[1]) < tol, "gust: (%g %g %g), want (%g 0 %g)",
          (double)v[0], (double)v[1], (double)v[2], 4.0 * f, -2.0 * f);
    eddy_wind_destroy(w);
}

/* The ambient noise: the per-face fill (lattice tables) and the pointwise function give the same bytes; it stays
 * within base +- amplitude; the same seed gives the same wind and another seed another one. */
static void test_noise(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 2.0f;
    d.noise_amplitude = 1.5f;
    d.noise_scale = 6.0f;
    d.noise_seed = 42;
    eddy_wind *w = make_wind(d), *w2 = make_wind(d);
    d.noise_seed = 43;
    eddy_wind *w3 = make_wind(d);
    if (!w || !w2 || !w3) return;
    float c[3] = {100.3f, -3.2f, 57.9f};
    for (int f = 0; f < 5; f++) {
        eddy_wind_move(w, c);
        eddy_wind_frame(w, 1.0f / 30.0f, NULL);
        eddy_wind_move(w2, c);
        eddy_wind_frame(w2, 1.0f / 30.0f, NULL);
        eddy_wind_move(w3, c);
        eddy_wind_frame(w3, 1.0f / 30.0f, NULL);
        c[0] += 0.37f;
    }
    int mismatch = 0, out_of_range = 0;
    eddy__wind_fill_ambient_faces(w); /* for the current time (the frame filled them for its start) */
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(w->sim, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    double p[3];
                    face_pos(w, a, i, j, k, p);
                    float amb = eddy__wind_ambient(w, p, a), fill = w->ambient_face[a][eddy__idx(fn, i, j, k)];
                    mismatch += amb != fill;
                    out_of_range += fabsf(amb - d.ambient[a]) > 1.5f;
                }
    }
    CHECK(mismatch == 0, "%d faces: the noise fill differs from the pointwise ambient", mismatch);
    CHECK(out_of_range == 0, "%d ambient values beyond base +- amplitude", out_of_range);
    int same = 0, differ = 0;
    for (int a = 0; a < 3; a++) {
        same += memcmp(w->sim->vel[a], w2->sim->vel[a], w->sim->nface[a] * sizeof(float)) == 0;
        differ += memcmp(w->sim->vel[a], w3->sim->vel[a], w->sim->nface[a] * sizeof(float)) != 0;
    }
    CHECK(same == 3 && differ == 3, "same seed identical in %d of 3 components, other seed different in %d", same, differ);
    /* a jump of whole cells far beyond the window: every face is the ambient wind at its new place */
    float near[3] = {200.0f, -3.0f, 60.0f}, far[3] = {1200.0f, -67.0f, 63.0f}; /* exact floats, whole cells apart */
    CHECK(eddy_wind_move(w, near) == EDDY_OK && eddy_wind_move(w, far) == EDDY_OK, "teleport");
    int wrong = 0;
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(w->sim, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    double p[3];
                    face_pos(w, a, i, j, k, p);
                    wrong += w->sim->vel[a][eddy__idx(fn, i, j, k)] != eddy__wind_ambient(w, p, a);
                }
    }
    CHECK(wrong == 0, "%d faces after a far jump are not the ambient wind at their place", wrong);
    eddy_wind_destroy(w);
    eddy_wind_destroy(w2);
    eddy_wind_destroy(w3);
}

/* Frames with every kind of source give the same bytes for 1 and 2 threads. */
static void test_frame_threads(void) {
    float *first[3] = {NULL, NULL, NULL};
    for (int threads = 1; threads <= 2; threads++) {
        eddy_wind_def d = eddy_wind_def_default();
        d.ambient[2] = 1.0f;
        d.noise_amplitude = 0.5f;
        d.viscosity = 0.05f;
        d.threads = threads;
        eddy_wind *w = make_wind(d);
        if (!w) return;
        eddy_wind_collider c = {.shape = EDDY_SHAPE_CAPSULE, .radius = 0.5f, .axis = {0, 0.8f, 0}, .velocity = {2, 0, 1}};
        eddy_wind_gust g = {.center = {3, 0, 0}, .radius = 4.0f, .velocity = {0, 1, 3}, .rate = 2.0f};
        eddy_wind_sources src = {.colliders = &c, .collider_count = 1, .gusts = &g, .gust_count = 1};
        eddy_wind_explosion e = {.center = {-4, 0, 2}, .radius = 1.5f, .speed = 4.0f, .duration = 0.2f};
        eddy_wind_explode(w, &e);
        for (int f = 0; f < 20; f++) {
            c.center[0] = 0.033f * (float)f;
            c.center[2] = 0.017f * (float)f;
            eddy_wind_move(w, c.center);
            CHECK(eddy_wind_frame(w, 1.0f / 60.0f, &src) == EDDY_OK, "frame: %s", eddy_wind_last_error(w));
        }
        for (int a = 0; a < 3; a++) {
            size_t bytes = w->sim->nface[a] * sizeof(float);
            if (threads == 1) {
                first[a] = malloc(bytes);
                memcpy(first[a], w->sim->vel[a], bytes);
            } else {
                CHECK(memcmp(first[a], w->sim->vel[a], bytes) == 0, "component %d differs between 1 and 2 threads", a);
                free(first[a]);
            }
        }
        eddy_wind_destroy(w);
    }
}

/* Finite but enormous inputs are refused by name and leave the field usable (they used to overflow inside the
 * frame and leave a non-finite field that failed every later frame); positions that are NaN, infinite or far away
 * never reach the noise lattice as NaN or as an out-of-range integer conversion. */
static void test_bad_input(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.grid[0] = d.grid[1] = d.grid[2] = 8;
    d.noise_amplitude = 1.0f;
    d.noise_scale = 2.0f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_wind_collider c = {.shape = EDDY_SHAPE_CAPSULE, .radius = 1.0f, .axis = {3e38f, 3e38f, 0}, .velocity = {1, 0, 0}};
    eddy_wind_sources src = {.colliders = &c, .collider_count = 1};
    eddy_status st = eddy_wind_frame(w, 0.016f, &src);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "axis[0] = 3e+38"), "huge capsule: %d %s", (int)st,
          eddy_wind_last_error(w));
    c = (eddy_wind_collider){.shape = EDDY_SHAPE_SPHERE, .radius = 1.0f, .velocity = {3e38f, 0, 0}};
    st = eddy_wind_frame(w, 0.016f, &src);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "velocity[0] = 3e+38"), "fast collider: %d %s", (int)st,
          eddy_wind_last_error(w));
    const float fast[3] = {3e38f, 0, 0};
    CHECK(eddy_wind_set_ambient(w, fast) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "ambient[0] = 3e+38"),
          "huge ambient: %s", eddy_wind_last_error(w));
    eddy_wind_gust g = {.center = {0, -0.5f, -0.5f}, .radius = 1e-30f, .velocity = {1, 0, 0}, .rate = 10};
    eddy_wind_sources gs = {.gusts = &g, .gust_count = 1};
    CHECK(eddy_wind_frame(w, 0.016f, &gs) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "radius = 1e-30"),
          "gust radius 1e-30 (1/R^2 = inf): %s", eddy_wind_last_error(w));
    /* an explosion far from the window: s R^2 dx overflows float there; the flow is ~0, not NaN */
    eddy_wind_explosion e = {.center = {1e30f, 0, 0}, .radius = 1e15f, .speed = 1e6f, .duration = 1};
    CHECK(eddy_wind_explode(w, &e) == EDDY_OK, "%s", eddy_wind_last_error(w));
    st = eddy_wind_frame(w, 0.016f, NULL);
    CHECK(st == EDDY_OK, "frame after refused inputs and a far explosion: %s", eddy_wind_last_error(w));
    /* a window far from the origin with noise: frames stay finite */
    const float far[3] = {1e17f, -3e20f, 1e30f};
    CHECK(eddy_wind_move(w, far) == EDDY_OK && eddy_wind_frame(w, 0.016f, NULL) == EDDY_OK, "far window: %s", eddy_wind_last_error(w));
    /* NaN and infinite positions: the constant ambient wind and an error; far positions: finite noise */
    const float pts[4][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {1e30f, 0, 0}, {-3e38f, 3e38f, 1}};
    float v[4][3];
    for (int p = 0; p < 4; p++) {
        st = eddy_wind_sample(w, pts[p], v[p]);
        CHECK(st == (p < 2 ? EDDY_ERR_INVALID_ARGUMENT : EDDY_OK) && isfinite(v[p][0]) && isfinite(v[p][1]) && isfinite(v[p][2]),
              "sample at (%g, %g, %g): status %d, (%g, %g, %g)", (double)pts[p][0], (double)pts[p][1], (double)pts[p][2], (int)st,
              (double)v[p][0], (double)v[p][1], (double)v[p][2]);
    }
    float vb[4][3];
    CHECK(eddy_wind_sample_batch(w, &pts[0][0], 3, &vb[0][0], 3, 4) == EDDY_ERR_INVALID_ARGUMENT && !memcmp(v, vb, sizeof v),
          "batch with NaN positions");
    eddy_wind_destroy(w);
    eddy_particles_def pd = eddy_particles_def_default();
    pd.gravity[1] = -3e38f;
    char msg[256];
    eddy_particles *ps = NULL;
    CHECK(eddy_particles_create(&pd, &ps, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && !ps && strstr(msg, "gravity[1]"),
          "huge gravity: %s", msg);
}

int main(void) {
    test_definition();
    test_bad_input();
    test_uniform_slide();
    test_whole_cell_slide(0);
    test_whole_cell_slide(1);
    test_subcell_slide();
    test_sampling_linear();
    test_texture();
    test_particles_drag();
    test_particles_threads();
    test_still_collider();
    test_moving_collider();
    test_explosion();
    test_gust();
    test_noise();
    test_frame_threads();
    return check_finish("test_wind");
}
