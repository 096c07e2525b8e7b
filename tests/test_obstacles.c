/* Obstacles in a flow: (1) a still obstacle in a channel (inflow left, outflow right): no flow through it —
 * every face of a solid cell carries zero normal velocity — while the fluid around it stays divergence-free and
 * the flux through each cross-section equals the inflow flux (mass conservation); (2) a moving obstacle in still
 * fluid drags the fluid next to it along its motion. */
#include "check.h"
#include "sim_internal.h"

#include <math.h>

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

int main(void) {
    still_obstacle(2);
    still_obstacle(3);
    moving_obstacle(2);
    moving_obstacle(3);
    return check_finish("test_obstacles");
}
