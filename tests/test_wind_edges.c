/* The wind field at its edges: window moves towards -x/-y/-z, explosions and positions at the far ends of the
 * float range, definitions that creation would refuse, in-place batch sampling, particles' scripted states and
 * their error messages. Each test says what the code before its fix did; the commit messages say which checks
 * fail on it (all but a thread-count guard and the creations between checks). */
#include "eddy/wind.h"
#include "wind_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static eddy_wind *make_wind(eddy_wind_def d) {
    eddy_wind *w = NULL;
    char msg[256];
    eddy_status st = eddy_wind_create(&d, &w, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return w;
}

/* world position of face (i,j,k) of component a */
static void face_pos(const eddy_wind *w, int a, int i, int j, int k, double p[3]) {
    const int idx[3] = {i, j, k};
    for (int b = 0; b < 3; b++) p[b] = w->origin[b] + ((double)idx[b] + (b == a ? 0.0 : 0.5)) * w->h;
}

static const double G[3][4] = {{0.5, 0.1, 0.02, -0.03}, {-0.2, 0.04, 0.05, 0.01}, {0.1, -0.02, 0.03, 0.06}};
static double linear(int a, const double p[3]) { return G[a][0] + G[a][1] * p[0] + G[a][2] * p[1] + G[a][3] * p[2]; }

/* A sub-cell move interpolates between the two old samples around each new face: every new face that lies
 * between old samples (inside the old samples' span on every axis) holds the linear field exactly, up to float
 * rounding (1e-5 m/s on values up to ~4 m/s, as in test_wind's sub-cell slide). Moves towards -x, -y, -z used to
 * blend the far edge layer with the ambient wind (0 here), although the old window held the sample it needed. */
static void test_move_backwards(void) {
    const float moves[][3] = {{-0.3f, 0, 0}, {0, -0.45f, 0}, {0, 0, -1.6f}, {0.3f, 0, 0}, {-0.7f, -2.25f, 0.4f}};
    for (size_t m = 0; m < sizeof moves / sizeof moves[0]; m++) {
        eddy_wind_def d = eddy_wind_def_default();
        d.grid[0] = 12;
        d.grid[1] = 8;
        d.grid[2] = 10;
        eddy_wind *w = make_wind(d);
        if (!w) return;
        eddy_sim *s = w->sim;
        double lo[3][3], hi[3][3]; /* span of the old samples of component a along axis b */
        for (int a = 0; a < 3; a++) {
            int fn[3];
            eddy__face_dims(s, a, fn);
            double p0[3], p1[3];
            face_pos(w, a, 0, 0, 0, p0);
            face_pos(w, a, fn[0] - 1, fn[1] - 1, fn[2] - 1, p1);
            for (int b = 0; b < 3; b++) lo[a][b] = p0[b], hi[a][b] = p1[b];
            for (int k = 0; k < fn[2]; k++)
                for (int j = 0; j < fn[1]; j++)
                    for (int i = 0; i < fn[0]; i++) {
                        double p[3];
                        face_pos(w, a, i, j, k, p);
                        s->vel[a][eddy__idx(fn, i, j, k)] = (float)linear(a, p);
                    }
        }
        CHECK(eddy_wind_move(w, moves[m]) == EDDY_OK, "move: %s", eddy_wind_last_error(w));
        double worst = 0;
        int checked = 0;
        for (int a = 0; a < 3; a++) {
            int fn[3];
            eddy__face_dims(s, a, fn);
            for (int k = 0; k < fn[2]; k++)
                for (int j = 0; j < fn[1]; j++)
                    for (int i = 0; i < fn[0]; i++) {
                        double p[3];
                        face_pos(w, a, i, j, k, p);
                        bool inside = true;
                        for (int b = 0; b < 3; b++) inside = inside && p[b] >= lo[a][b] - 1e-9 && p[b] <= hi[a][b] + 1e-9;
                        if (!inside) continue;
                        double err = fabs(s->vel[a][eddy__idx(fn, i, j, k)] - linear(a, p));
                        worst = err > worst ? err : worst;
                        checked++;
                    }
        }
        CHECK(checked > 1000 && worst < 1e-5, "move by (%g, %g, %g): linear field off by %g m/s between old samples (%d faces)",
              (double)moves[m][0], (double)moves[m][1], (double)moves[m][2], worst, checked);
        eddy_wind_destroy(w);
    }
}

/* A move to -0.3 cells and back to 0 is the mirror of a move to +0.3 and back: a field symmetric under x -> -x
 * (u odd, v and w even about the window centre) stays mirrored. Moving towards -x used to lose the +x edge. */
static void test_move_mirror(void) {
    float *after[2] = {NULL, NULL};
    int fn[3][3];
    for (int side = 0; side < 2; side++) {
        eddy_wind_def d = eddy_wind_def_default();
        d.grid[0] = 10;
        d.grid[1] = 6;
        d.grid[2] = 6;
        eddy_wind *w = make_wind(d);
        if (!w) return;
        eddy_sim *s = w->sim;
        size_t total = 0;
        for (int a = 0; a < 3; a++) eddy__face_dims(s, a, fn[a]), total += s->nface[a];
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < fn[a][2]; k++)
                for (int j = 0; j < fn[a][1]; j++)
                    for (int i = 0; i < fn[a][0]; i++) {
                        double p[3];
                        face_pos(w, a, i, j, k, p);
                        double x = p[0]; /* the centre is at 0 */
                        double v = a == 0 ? x * (1.0 + 0.1 * p[1]) : 0.2 + 0.05 * x * x + 0.01 * p[2];
                        s->vel[a][eddy__idx(fn[a], i, j, k)] = (float)v;
                    }
        const float c1[3] = {side ? 0.3f : -0.3f, 0, 0}, c0[3] = {0, 0, 0};
        CHECK(eddy_wind_move(w, c1) == EDDY_OK && eddy_wind_move(w, c0) == EDDY_OK, "moves");
        after[side] = malloc(total * sizeof(float));
        size_t q0 = 0;
        for (int a = 0; a < 3; a++) memcpy(after[side] + q0, s->vel[a], s->nface[a] * sizeof(float)), q0 += s->nface[a];
        eddy_wind_destroy(w);
    }
    /* compare face (i,j,k) of one with the mirrored face of the other */
    int bad = 0;
    size_t q0 = 0;
    for (int a = 0; a < 3; a++) {
        const int *f = fn[a];
        for (int k = 0; k < f[2]; k++)
            for (int j = 0; j < f[1]; j++)
                for (int i = 0; i < f[0]; i++) {
                    float l = after[0][q0 + eddy__idx(f, i, j, k)], r = after[1][q0 + eddy__idx(f, f[0] - 1 - i, j, k)];
                    if (fabsf(a == 0 ? l + r : l - r) > 1e-6f) bad++;
                }
        q0 += (size_t)f[0] * f[1] * f[2];
    }
    CHECK(bad == 0, "%d faces differ from their mirror image after moves to -0.3 and to +0.3 cells and back", bad);
    free(after[0]);
    free(after[1]);
}

/* Backward moves with ambient noise (the entering layer is the noise before the start) give the same bytes on 1
 * and 2 threads. A guard for the backward interpolation, not a failure of the old code. */
static void test_move_threads(void) {
    float *first[3] = {NULL, NULL, NULL};
    for (int threads = 1; threads <= 2; threads++) {
        eddy_wind_def d = eddy_wind_def_default();
        d.grid[0] = 16;
        d.grid[1] = 8;
        d.grid[2] = 12;
        d.ambient[0] = 1.0f;
        d.noise_amplitude = 0.7f;
        d.noise_scale = 3.0f;
        d.threads = threads;
        eddy_wind *w = make_wind(d);
        if (!w) return;
        eddy_wind_collider c = {.shape = EDDY_SHAPE_SPHERE, .radius = 1.2f, .velocity = {-2, 0.5f, 1}};
        eddy_wind_sources src = {.colliders = &c, .collider_count = 1};
        for (int f = 0; f < 12; f++) {
            float centre[3] = {-0.37f * (float)f, (f & 1) ? -0.21f : 0.13f, -1.3f * (float)f};
            c.center[0] = centre[0];
            c.center[2] = centre[2];
            CHECK(eddy_wind_move(w, centre) == EDDY_OK, "move: %s", eddy_wind_last_error(w));
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

/* Positions may be any finite float. An explosion near -3e38 m seen from a window near +3e38 m is farther away
 * than float reaches (the window-local offset is -inf): it used to make the explosions' flow inf - inf = NaN, and
 * the field stayed NaN for every later frame. Colliders and gusts that far away are checked alongside. */
static void test_far_sources(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.grid[0] = d.grid[1] = d.grid[2] = 8;
    d.ambient[0] = 1.5f;
    d.center[0] = 3e38f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    eddy_wind_explosion e = {.center = {-3e38f, 0, 0}, .radius = 1.0f, .speed = 1.0f, .duration = 1.0f};
    CHECK(eddy_wind_explode(w, &e) == EDDY_OK, "explode: %s", eddy_wind_last_error(w));
    eddy_wind_collider c = {.shape = EDDY_SHAPE_CAPSULE, .center = {-3e38f, 0, 0}, .radius = 2, .axis = {0, 1, 0}, .velocity = {5, 0, 0}};
    eddy_wind_gust g = {.center = {-3e38f, 0, 0}, .radius = 1e15f, .velocity = {0, 9, 0}, .rate = 100};
    eddy_wind_sources src = {.colliders = &c, .collider_count = 1, .gusts = &g, .gust_count = 1};
    for (int f = 0; f < 3; f++) {
        eddy_status st = eddy_wind_frame(w, 1.0f / 60.0f, &src);
        CHECK(st == EDDY_OK, "frame %d with sources 6e38 m away: %d %s", f, (int)st, eddy_wind_last_error(w));
    }
    /* nothing reached the window: the air is the ambient wind, exactly */
    int off = 0;
    for (int a = 0; a < 3; a++)
        for (size_t q = 0; q < w->sim->nface[a]; q++) off += w->sim->vel[a][q] != d.ambient[a];
    CHECK(off == 0 && eddy_wind_stats(w)->active_explosions == 1 && eddy_wind_stats(w)->solid_cells == 0,
          "%d faces moved by sources 6e38 m away (active explosions %d, solid cells %d)", off,
          eddy_wind_stats(w)->active_explosions, eddy_wind_stats(w)->solid_cells);
    eddy_wind_destroy(w);
}

/* eddy_wind_def_validate accepts exactly what eddy_wind_create accepts: a cell size outside the simulation's
 * 1e-9 .. 1e9 m and bad pressure settings used to pass validation and fail creation only (naming size[0], a key
 * the wind definition does not have). */
static void test_validate_matches_create(void) {
    char msg[256];
    const float sizes[] = {1e-10f, 2e9f, 1e-40f};
    for (int t = 0; t < 3; t++) {
        eddy_wind_def d = eddy_wind_def_default();
        d.cell_size = sizes[t];
        d.noise_scale = 8.0f * sizes[t];
        eddy_status st = eddy_wind_def_validate(&d, msg, sizeof msg);
        CHECK(st == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "wind cell_size = ") && strstr(msg, "1e-9 .. 1e9 m"),
              "cell_size %g: validate %d '%s'", (double)sizes[t], (int)st, msg);
        eddy_wind *w = NULL;
        CHECK(eddy_wind_create(&d, &w, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && !w && strstr(msg, "wind cell_size = "),
              "cell_size %g: create '%s'", (double)sizes[t], msg);
    }
    eddy_wind_def d = eddy_wind_def_default();
    d.pressure.tolerance = 2.0f;
    eddy_status st = eddy_wind_def_validate(&d, msg, sizeof msg);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "wind pressure.tolerance = 2"), "pressure tolerance 2: validate %d '%s'",
          (int)st, msg);
    d = eddy_wind_def_default();
    d.cell_size = 1e-9f;
    d.noise_scale = 1.0f;
    CHECK(eddy_wind_def_validate(&d, msg, sizeof msg) == EDDY_OK, "cell_size 1e-9 refused: %s", msg);
    CHECK(eddy_wind_def_validate(&d, NULL, 0) == EDDY_OK, "validate without a message buffer");
}

/* Sampling in place (velocities written over the positions they came from: an array converted from positions to
 * velocities) still reports a NaN or infinite position; the status used to be taken after the write, from the
 * finite ambient wind that replaced the position, so it said EDDY_OK. */
static void test_sample_in_place(void) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 2.0f;
    d.noise_amplitude = 0.5f;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    float buf[4][3] = {{1, 2, 3}, {NAN, 0, 0}, {0, -INFINITY, 0}, {4, 1, -2}};
    float copy[4][3], want[4][3];
    memcpy(copy, buf, sizeof buf);
    CHECK(eddy_wind_sample_batch(w, &copy[0][0], 3, &want[0][0], 3, 4) == EDDY_ERR_INVALID_ARGUMENT, "batch into another array");
    CHECK(eddy_wind_sample_batch(w, &buf[0][0], 3, &buf[0][0], 3, 4) == EDDY_ERR_INVALID_ARGUMENT,
          "batch in place with NaN and infinite positions: EDDY_OK");
    CHECK(memcmp(buf, want, sizeof buf) == 0, "batch in place: other velocities than into another array");
    float one[3] = {NAN, 1, 1};
    CHECK(eddy_wind_sample(w, one, one) == EDDY_ERR_INVALID_ARGUMENT && one[0] == 2.0f && one[1] == 0.0f,
          "sample in place at a NaN position: (%g %g %g)", (double)one[0], (double)one[1], (double)one[2]);
    float ok[3] = {1, 2, 3};
    CHECK(eddy_wind_sample(w, ok, ok) == EDDY_OK, "sample in place at a finite position");
    eddy_wind_destroy(w);
}

/* A scripted particle faster than the wind's speed limit is refused by name: at 3.4e38 m/s from 3.4e38 m it
 * used to leave an infinite position in the vertex buffer. A finite position at the float limit with a fast but
 * allowed velocity stays finite. */
static void test_particle_set_limits(void) {
    eddy_particles_def pd = eddy_particles_def_default();
    pd.count = 4;
    pd.lifetime = 100.0f;
    char msg[256];
    eddy_particles *p = NULL;
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!p) return;
    const float far[3] = {3.4e38f, 0, -3.4e38f}, huge[3] = {3.4e38f, 0, -3.4e38f}, fast[3] = {1e6f, 0, -1e6f};
    eddy_status st = eddy_particles_set(p, 0, far, huge);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_particles_last_error(p), "particle 0: velocity[0] = 3.4e+38"),
          "velocity 3.4e38 m/s: %d '%s'", (int)st, eddy_particles_last_error(p));
    CHECK(eddy_particles_set(p, 1, far, fast) == EDDY_OK, "velocity 1e6 m/s: %s", eddy_particles_last_error(p));
    for (int f = 0; f < 5; f++) CHECK(eddy_particles_update(p, NULL, 1.0f) == EDDY_OK, "update: %s", eddy_particles_last_error(p));
    int bad = 0;
    for (int i = 0; i < 3 * pd.count; i++) bad += !isfinite(eddy_particles_positions(p)[i]) || !isfinite(eddy_particles_velocities(p)[i]);
    CHECK(bad == 0, "%d non-finite particle coordinates", bad);
    eddy_particles_destroy(p);
}

/* The last error is "" after a call that succeeded (the wind's frame, move and explode already cleared it; the
 * particles' calls, set_ambient and sync kept the previous failure's message). */
static void test_errors_cleared(void) {
    eddy_particles_def pd = eddy_particles_def_default();
    pd.count = 8;
    char msg[256];
    eddy_particles *p = NULL;
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!p) return;
    const float zero[3] = {0, 0, 0}, lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    CHECK(eddy_particles_update(p, NULL, -1.0f) == EDDY_ERR_INVALID_ARGUMENT && *eddy_particles_last_error(p), "dt -1 accepted");
    CHECK(eddy_particles_update(p, NULL, 0.1f) == EDDY_OK && !*eddy_particles_last_error(p), "after an update: '%s'",
          eddy_particles_last_error(p));
    CHECK(eddy_particles_set(p, 99, zero, zero) == EDDY_ERR_INVALID_ARGUMENT, "index 99 accepted");
    CHECK(eddy_particles_set(p, 1, zero, zero) == EDDY_OK && !*eddy_particles_last_error(p), "after a set: '%s'",
          eddy_particles_last_error(p));
    CHECK(eddy_particles_set_region(p, hi, lo) == EDDY_ERR_INVALID_ARGUMENT, "empty region accepted");
    CHECK(eddy_particles_set_region(p, lo, hi) == EDDY_OK && !*eddy_particles_last_error(p), "after set_region: '%s'",
          eddy_particles_last_error(p));
    eddy_particles_destroy(p);
    eddy_wind_def d = eddy_wind_def_default();
    d.grid[0] = d.grid[1] = d.grid[2] = 4;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    CHECK(eddy_wind_frame(w, -1.0f, NULL) == EDDY_ERR_INVALID_ARGUMENT, "dt -1 accepted");
    CHECK(eddy_wind_set_ambient(w, zero) == EDDY_OK && !*eddy_wind_last_error(w), "after set_ambient: '%s'", eddy_wind_last_error(w));
    CHECK(eddy_wind_frame(w, -1.0f, NULL) == EDDY_ERR_INVALID_ARGUMENT, "dt -1 accepted");
    CHECK(eddy_wind_sync(w) == EDDY_OK && !*eddy_wind_last_error(w), "after sync: '%s'", eddy_wind_last_error(w));
    eddy_wind_destroy(w);
}

/* A position that is not finite is named with its component and value, as every other bad input is (the
 * messages used to say only "center must be finite"). */
static void test_position_messages(void) {
    char msg[256];
    eddy_wind_def d = eddy_wind_def_default();
    d.grid[0] = d.grid[1] = d.grid[2] = 4;
    d.center[2] = INFINITY;
    CHECK(eddy_wind_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "wind center[2] = inf"),
          "definition: '%s'", msg);
    d.center[2] = 0;
    eddy_wind *w = make_wind(d);
    if (!w) return;
    const float bad[3] = {0, NAN, 0};
    CHECK(eddy_wind_move(w, bad) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "wind move: center[1] = nan"),
          "move: '%s'", eddy_wind_last_error(w));
    eddy_wind_collider c = {.shape = EDDY_SHAPE_SPHERE, .center = {-INFINITY, 0, 0}, .radius = 1};
    eddy_wind_sources src = {.colliders = &c, .collider_count = 1};
    CHECK(eddy_wind_frame(w, 0.01f, &src) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_wind_last_error(w), "wind collider 0: center[0] = -inf"),
          "collider: '%s'", eddy_wind_last_error(w));
    eddy_wind_gust g = {.center = {0, 0, NAN}, .rate = 1};
    eddy_wind_sources gs = {.gusts = &g, .gust_count = 1};
    CHECK(eddy_wind_frame(w, 0.01f, &gs) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "wind gust 0: center[2] = nan"),
          "gust: '%s'", eddy_wind_last_error(w));
    eddy_wind_explosion e = {.center = {0, INFINITY, 0}, .radius = 1, .speed = 1};
    CHECK(eddy_wind_explode(w, &e) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_wind_last_error(w), "wind explode: center[1] = inf"),
          "explosion: '%s'", eddy_wind_last_error(w));
    eddy_wind_destroy(w);
    eddy_particles_def pd = eddy_particles_def_default();
    pd.count = 2;
    pd.region_max[1] = NAN;
    eddy_particles *p = NULL;
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "particle region_max[1] = nan"),
          "region: '%s'", msg);
    pd.region_max[1] = 6;
    CHECK(eddy_particles_create(&pd, &p, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!p) return;
    const float pos[3] = {0, 0, -INFINITY}, vel[3] = {0, NAN, 0}, zero[3] = {0, 0, 0};
    CHECK(eddy_particles_set(p, 1, pos, zero) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_particles_last_error(p), "particle 1: position[2] = -inf"),
          "set position: '%s'", eddy_particles_last_error(p));
    CHECK(eddy_particles_set(p, 0, zero, vel) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_particles_last_error(p), "particle 0: velocity[1] = nan"),
          "set velocity: '%s'", eddy_particles_last_error(p));
    eddy_particles_destroy(p);
}

int main(void) {
    test_move_backwards();
    test_move_mirror();
    test_move_threads();
    test_far_sources();
    test_validate_matches_create();
    test_sample_in_place();
    test_particle_set_limits();
    test_errors_cleared();
    test_position_messages();
    return check_finish("test_wind_edges");
}
