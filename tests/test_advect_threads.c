/* Advection alone gives the same bytes for 1, 2 and 3 threads, on the paths that test_determinism does not reach:
 * 3D with every scheme, a scalar grid of the velocity's cells (dye_scale 1: the start-of-trace velocity read off the
 * faces) and an uneven finer one, periodic axes (the wrapping samplers, where a stencil's two x nodes need not be
 * neighbours in memory, next to the paired SSE loads), and an obstacle. Exact comparison: threads split rows, and every
 * element's value must not depend on the split. */
#include "check.h"
#include "same_fields.h"
#include "stirred_scene.h"
#include "sim_internal.h"

#include <string.h>

typedef struct variant {
    int dim;
    eddy_advection scheme;
    int dye_scale[3];
    bool periodic_x, periodic_z;
} variant;

static eddy_sim *run(const variant *v, int threads) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = v->dim;
    d.grid[0] = v->dim == 2 ? 40 : 18;
    d.grid[1] = v->dim == 2 ? 34 : 14;
    d.grid[2] = v->dim == 2 ? 1 : 12;
    stirred_scene_def(&d, threads, v->scheme, 2.0f); /* CFL above 1 in places: feet leave the domain */
    for (int a = 0; a < 3; a++) d.dye_scale[a] = v->dye_scale[a];
    if (v->periodic_x) d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
    if (v->periodic_z) d.boundary[EDDY_FACE_Z_MIN].type = d.boundary[EDDY_FACE_Z_MAX].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return NULL;
    }
    const stirred_scene scene = {true, 0.1f, 8, 0.1f, 0.3f, 0.08f};
    run_stirred_scene(s, &scene);
    return s;
}

static void compare(const variant *v) {
    eddy_sim *ref = run(v, 1);
    for (int threads = 2; threads <= 3 && ref; threads++) {
        eddy_sim *b = run(v, threads);
        if (!b) break;
        for (int f = 0; f <= EDDY_FIELD_TEMPERATURE; f++) {
            if (f == EDDY_FIELD_W && v->dim == 2) continue;
            CHECK(same_field_bytes(ref, b, (eddy_field)f),
                  "%dD scheme %d dye_scale %dx%dx%d periodic x %d z %d: %s differs between 1 and %d threads", v->dim,
                  (int)v->scheme, v->dye_scale[0], v->dye_scale[1], v->dye_scale[2], v->periodic_x, v->periodic_z,
                  eddy_field_name((eddy_field)f), threads);
        }
        eddy_sim_destroy(b);
    }
    if (ref) CHECK(ref->stats.kinetic_energy > 0 && ref->stats.dye_total > 0, "nothing moved");
    eddy_sim_destroy(ref);
}

int main(void) {
    const variant variants[] = {
        {3, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, false, false},
        {3, EDDY_ADVECT_SEMI_LAGRANGIAN, {2, 1, 3}, true, false},
        {3, EDDY_ADVECT_BFECC, {1, 1, 1}, false, true},
        {3, EDDY_ADVECT_MACCORMACK, {2, 2, 2}, true, true},
        {2, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, true, false},
        {2, EDDY_ADVECT_BFECC, {3, 2, 1}, false, false},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) compare(&variants[i]);
    return check_finish("test_advect_threads");
}
