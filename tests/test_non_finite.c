/* A value that overflows to infinity stops the step with EDDY_ERR_NON_FINITE and a message naming the field, the
 * stage that made it and the step; the fields hold no NaN written by a later stage, and the simulation stays usable
 * (its error is kept until the next call). Overflows are made with finite, valid parameters: an emitter adding
 * 3e38 K/s of temperature overflows the float temperature in the sources stage of the step where the sum passes
 * FLT_MAX, and buoyancy of 1e30 per K on a finite temperature overflows the velocity in the forces stage. */
#include "check.h"
#include "sim_internal.h"

#include <float.h>
#include <string.h>

static eddy_sim *make(float buoyancy) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = 2;
    d.grid[0] = d.grid[1] = 24;
    d.size[0] = 1.0f;
    d.dt = 1.0f;
    d.threads = 2;
    d.buoyancy_temperature = buoyancy;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) CHECK(0, "create: %s", msg);
    return s;
}

static void add_hot_emitter(eddy_sim *s, float kelvin_per_second) {
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.5f; e.center[1] = 0.3f; e.radius = 0.1f;
    e.temperature = kelvin_per_second;
    CHECK(eddy_sim_add_emitter(s, &e, NULL) == EDDY_OK, "add emitter: %s", eddy_sim_last_error(s));
}

int main(void) {
    /* sources: 3e38 per step fits once (< FLT_MAX = 3.4e38) and overflows in the second step */
    eddy_sim *s = make(0.0f);
    if (s) {
        add_hot_emitter(s, 3e38f);
        CHECK(eddy_sim_step(s) == EDDY_OK, "step 1 should still be finite: %s", eddy_sim_last_error(s));
        eddy_status st = eddy_sim_step(s);
        const char *m = eddy_sim_last_error(s);
        CHECK(st == EDDY_ERR_NON_FINITE, "step 2: status %d, expected EDDY_ERR_NON_FINITE", (int)st);
        CHECK(strstr(m, "temperature") && strstr(m, "'sources'") && strstr(m, "step 2"),
              "message should name temperature, the sources stage and step 2: '%s'", m);
        eddy_sim_destroy(s);
    }
    /* forces: temperature 1e10 (finite) times buoyancy 1e30 per K overflows v; u, dye and pressure stay finite */
    s = make(1e30f);
    if (s) {
        add_hot_emitter(s, 1e10f);
        eddy_status st = eddy_sim_step(s);
        const char *m = eddy_sim_last_error(s);
        CHECK(st == EDDY_ERR_NON_FINITE, "status %d, expected EDDY_ERR_NON_FINITE", (int)st);
        CHECK(strstr(m, "non-finite v") && strstr(m, "'forces'") && strstr(m, "step 1"),
              "message should name v, the forces stage and step 1: '%s'", m);
        /* the stop came before advection: no stage after forces spread the infinity into u */
        eddy_field_layout L;
        eddy_sim_field_layout(s, EDDY_FIELD_U, &L);
        const float *u = eddy_sim_field_view(s, EDDY_FIELD_U, NULL);
        size_t bad = 0;
        for (size_t i = 0; i < L.count; i++) bad += !(u[i] <= FLT_MAX && u[i] >= -FLT_MAX);
        CHECK(bad == 0, "%zu non-finite u values: a stage after forces ran", bad);
        eddy_sim_destroy(s);
    }
    return check_finish("test_non_finite");
}
