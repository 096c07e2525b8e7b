/* Obstacles in a flow: (1) a still obstacle in a channel (inflow left, outflow right): no flow through it —
 * every face of a solid cell carries zero normal velocity — while the fluid around it stays divergence-free and
 * the flux through each cross-section equals the inflow flux (mass conservation); (2) a moving obstacle in still
 * fluid drags the fluid next to it along its motion; (3) obstacles changed many times between two steps are
 * rasterised once, before the next reader, with the cells and the flow of rasterising after every change. */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static void still_obstacle(int dim) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 64 : 32; d.grid[1] = dim == 2 ? 32 : 16; d.grid[2] = 16;
    d.size[0] = 2.0f;
    d.gravity[1] = 0;
    d.viscosity = 1e-3f;
    d.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_INFLOW;
    d.boundary[EDDY_FACE_X_MIN].velocity[0] = 1.0f;
    d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_OUTFLOW;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) { CHECK(0, "create: %s", msg); return; }
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = 0.6f; o.center[1] = 0.5f; o.center[2] = 0.5f; o.radius = 0.2f;
    eddy_sim_add_obstacle(s, &o, NULL);
    CHECK(eddy_sim_advance(s, 1.0) == EDDY_OK, "advance: %s", eddy_sim_last_error(s));
    double worst = 0;
    for (int a = 0; a < dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    int c[3] = {i, j, k}, lo[3] = {i, j, k};
                    lo[a] = c[a] - 1;
                    bool solid_hi = c[a] < s->n[a] && s->solid[eddy__idx(s->n, c[0], c[1], c[2])];
                    bool solid_lo = c[a] > 0 && s->solid[eddy__idx(s->n, lo[0], lo[1], lo[2])];
                    if (solid_hi || solid_lo) worst = fmax(worst, fabs(s->vel[a][eddy__idx(fn, i, j, k)]));
                }
    }
    CHECK(worst == 0.0, "%dD: flow through a still obstacle, max normal face velocity %g", dim, worst);
    /* mass: flux through the outflow face equals the inflow flux (1 m/s over the inlet area), up to the
     * projection tolerance */
    int fu[3];
    eddy__face_dims(s, 0, fu);
    double in = 0, out = 0;
    for (int k = 0; k < fu[2]; k++)
        for (int j = 0; j < fu[1]; j++) {
            in += s->vel[0][eddy__idx(fu, 0, j, k)];
            out += s->vel[0][eddy__idx(fu, s->n[0], j, k)];
        }
    CHECK(fabs(out - in) < 1e-3 * in, "%dD: inflow flux %g, outflow flux %g", dim, in, out);
    CHECK(s->stats.max_div < 1e-3f, "%dD: max div %g after the step", dim, (double)s->stats.max_div);
    eddy_sim_destroy(s);
}

static void moving_obstacle(int dim) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 64 : 32; d.grid[1] = dim == 2 ? 48 : 24; d.grid[2] = 24;
    d.size[0] = 2.0f;
    d.gravity[1] = 0;
    d.dt = 0.01f;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) { CHECK(0, "create: %s", msg); return; }
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_BOX;
    o.center[0] = 0.8f; o.center[1] = 0.75f; o.center[2] = 0.75f;
    o.half_size[0] = o.half_size[1] = o.half_size[2] = 0.15f;
    o.velocity[0] = 1.0f;
    eddy_id id;
    eddy_sim_add_obstacle(s, &o, &id);
    for (int i = 0; i < 10; i++) {
        float c[3] = {0.8f + 0.01f * (float)(i + 1), 0.75f, 0.75f};
        eddy_sim_move_obstacle(s, id, c, o.velocity);
        CHECK(eddy_sim_step(s) == EDDY_OK, "step: %s", eddy_sim_last_error(s));
    }
    /* just ahead of and behind the box the fluid moves with it (+x); above it, it flows back around (-x on
     * average is not required, only that the push is felt) */
    float ahead[3] = {1.05f, 0.75f, 0.75f}, behind[3] = {0.6f, 0.75f, 0.75f}, v1[3], v2[3];
    eddy_sim_sample_velocity(s, ahead, v1);
    eddy_sim_sample_velocity(s, behind, v2);
    CHECK(v1[0] > 0.3f, "%dD: fluid ahead of the moving box has u = %g, expected well above 0", dim, (double)v1[0]);
    CHECK(v2[0] > 0.3f, "%dD: fluid behind the moving box has u = %g, expected well above 0", dim, (double)v2[0]);
    CHECK(s->stats.max_div < 1e-3f, "%dD: max div %g", dim, (double)s->stats.max_div);
    eddy_sim_destroy(s);
}

static eddy_sim *small_sim(int dim) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 48 : 16; d.grid[1] = dim == 2 ? 40 : 12; d.grid[2] = 10;
    d.gravity[1] = 0;
    d.dt = 0.01f;
    d.threads = 1;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) CHECK(0, "create: %s", msg);
    return s;
}

static float *solid_field(eddy_sim *s) {
    float *f = malloc(s->ncells * sizeof *f);
    if (f && eddy_sim_read_field(s, EDDY_FIELD_SOLID, f, s->ncells) != EDDY_OK) CHECK(0, "read solid: %s", eddy_sim_last_error(s));
    return f;
}

/* an obstacle outside the grid whose distance counts its calls: every rasterisation calls it once per cell */
static float counted_far_plane(const float p[3], void *calls) {
    ++*(unsigned long *)calls;
    return 10.0f - p[0];
}

/* three obstacles moved ten times each per step, a removal and a splat in the third: `eager` reads the solid field after every
 * change (which rasterises then), the other run only steps; returns the run's u after the last step and, through
 * `rasterizations`, the passes over the grid after the obstacles were added */
static float *moved_run(int dim, bool eager, unsigned long *rasterizations) {
    eddy_sim *s = small_sim(dim);
    if (!s) return NULL;
    unsigned long calls = 0;
    eddy_obstacle_def far = {0};
    far.shape = EDDY_SHAPE_SDF;
    far.sdf = counted_far_plane;
    far.sdf_user = &calls;
    CHECK(eddy_sim_add_obstacle(s, &far, NULL) == EDDY_OK, "add: %s", eddy_sim_last_error(s));
    eddy_id ids[3];
    for (int o = 0; o < 3; o++) {
        eddy_obstacle_def d = {0};
        d.shape = o == 0 ? EDDY_SHAPE_SPHERE : (o == 1 ? EDDY_SHAPE_BOX : EDDY_SHAPE_CAPSULE);
        d.center[0] = 0.2f + 0.3f * (float)o; d.center[1] = 0.5f; d.center[2] = 0.5f;
        d.radius = 0.08f; d.half_size[0] = d.half_size[1] = d.half_size[2] = 0.07f; d.axis[1] = 0.1f;
        CHECK(eddy_sim_add_obstacle(s, &d, &ids[o]) == EDDY_OK, "add: %s", eddy_sim_last_error(s));
        if (eager) free(solid_field(s));
    }
    const unsigned long before = calls;
    for (int step = 0; step < 4; step++) {
        for (int m = 0; m < 10; m++)
            for (int o = 0; o < 3; o++) {
                if (o == 1 && step == 3) continue; /* removed in step 2 */
                float c[3] = {0.2f + 0.3f * (float)o + 0.004f * (float)(10 * step + m), 0.5f - 0.003f * (float)m, 0.5f};
                float v[3] = {0.4f, -0.3f, 0.1f};
                CHECK(eddy_sim_move_obstacle(s, ids[o], c, v) == EDDY_OK, "move: %s", eddy_sim_last_error(s));
                if (eager) free(solid_field(s));
            }
        if (step == 2) {
            CHECK(eddy_sim_remove_obstacle(s, ids[1]) == EDDY_OK, "remove: %s", eddy_sim_last_error(s));
            if (eager) free(solid_field(s));
            eddy_splat sp = {{0.5f, 0.3f, 0.5f}, 0.1f, {0.0f, 2.0f, 0.0f}, {1, 0, 0}, 0.0f};
            CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "splat: %s", eddy_sim_last_error(s));
        }
        CHECK(eddy_sim_step(s) == EDDY_OK, "step: %s", eddy_sim_last_error(s));
    }
    *rasterizations = (calls - before) / s->ncells;
    float *u = malloc(s->nface[0] * sizeof *u);
    if (u) eddy_sim_read_field(s, EDDY_FIELD_U, u, s->nface[0]);
    eddy_sim_destroy(s);
    return u;
}

static void deferred_rasterization(int dim) {
    unsigned long eager_count = 0, deferred_count = 0;
    float *eager = moved_run(dim, true, &eager_count), *deferred = moved_run(dim, false, &deferred_count);
    eddy_sim *probe = small_sim(dim);
    const size_t nu = probe ? probe->nface[0] : 0;
    CHECK(eager && deferred && nu && !memcmp(eager, deferred, nu * sizeof(float)),
          "%dD: the flow with obstacles rasterised after every change differs from the flow with them rasterised at "
          "the step", dim);
    /* one pass before each step, but the one after the splat (the splat's own pass: a removal came before it), not
     * one per move: 110 moves */
    CHECK(deferred_count == 4, "%dD: %lu rasterisations for 110 moves, a removal, a splat and 4 steps (expected 4)",
          dim, deferred_count);
    CHECK(eager_count == 111, "%dD: %lu rasterisations when the solid field is read after each of 111 changes", dim,
          eager_count);
    free(eager);
    free(deferred);
    if (!probe) return;
    /* a change is seen by the next reader: the solid field, then the divergence (which is 0 in solid cells) */
    eddy_obstacle_def d = {0};
    d.shape = EDDY_SHAPE_SPHERE;
    d.center[0] = d.center[1] = d.center[2] = 0.5f;
    d.radius = 0.2f;
    eddy_id id = 0;
    CHECK(eddy_sim_add_obstacle(probe, &d, &id) == EDDY_OK, "add: %s", eddy_sim_last_error(probe));
    float *f = solid_field(probe);
    const size_t centre = eddy__idx(probe->n, probe->n[0] / 2, probe->n[1] / 2, dim == 3 ? probe->n[2] / 2 : 0);
    CHECK(f && f[centre] == 1.0f, "%dD: the solid field read after an add does not show the obstacle", dim);
    float away[3] = {0.85f, 0.5f, 0.5f};
    CHECK(eddy_sim_move_obstacle(probe, id, away, NULL) == EDDY_OK, "move: %s", eddy_sim_last_error(probe));
    free(f);
    f = solid_field(probe);
    CHECK(f && f[centre] == 0.0f, "%dD: the solid field read after a move still shows the obstacle where it was", dim);
    CHECK(eddy_sim_remove_obstacle(probe, id) == EDDY_OK, "remove: %s", eddy_sim_last_error(probe));
    uint8_t *mask = calloc(probe->ncells, 1);
    if (mask) mask[centre] = 1;
    CHECK(mask && eddy_sim_set_solid_mask(probe, mask, probe->ncells) == EDDY_OK, "mask: %s", eddy_sim_last_error(probe));
    free(f);
    f = solid_field(probe);
    size_t solid_cells = 0;
    for (size_t c = 0; f && c < probe->ncells; c++) solid_cells += f[c] != 0.0f;
    CHECK(f && f[centre] == 1.0f && solid_cells == 1, "%dD: after a removal and a one-cell mask, %zu solid cells", dim,
          solid_cells);
    free(f);
    free(mask);
    eddy_sim_destroy(probe);
}

/* a state file with many obstacles (added one by one by the load, each of them once a pass over the grid) has the
 * saved simulation's cells */
static void load_many_obstacles(void) {
    eddy_sim *s = small_sim(2);
    if (!s) return;
    for (int o = 0; o < 200; o++) {
        eddy_obstacle_def d = {0};
        d.shape = EDDY_SHAPE_SPHERE;
        d.center[0] = 0.05f + 0.9f * (float)(o % 20) / 19.0f; d.center[1] = 0.05f + 0.09f * (float)(o / 20);
        d.radius = 0.01f + 0.0001f * (float)o;
        CHECK(eddy_sim_add_obstacle(s, &d, NULL) == EDDY_OK, "add: %s", eddy_sim_last_error(s));
    }
    char path[] = "test_obstacles_state_XXXXXX";
    const int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    CHECK(fd >= 0 && eddy_sim_save(s, path) == EDDY_OK, "save: %s", eddy_sim_last_error(s));
    eddy_sim *t = NULL;
    char msg[256];
    CHECK(eddy_sim_load(path, &t, msg, sizeof msg) == EDDY_OK, "load: %s", msg);
    if (t) {
        float *a = solid_field(s), *b = solid_field(t);
        CHECK(a && b && !memcmp(a, b, s->ncells * sizeof(float)), "the loaded simulation's solid cells differ");
        free(a);
        free(b);
        eddy_sim_destroy(t);
    }
    if (fd >= 0) unlink(path);
    eddy_sim_destroy(s);
}

int main(void) {
    deferred_rasterization(2);
    deferred_rasterization(3);
    load_many_obstacles();
    still_obstacle(2);
    still_obstacle(3);
    moving_obstacle(2);
    moving_obstacle(3);
    return check_finish("test_obstacles");
}
