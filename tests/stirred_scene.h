/* The stirred smoke scene of the advection comparison tests (test_advect_threads, test_advect_avx2): an optional
 * still sphere, a sphere emitter of dye, heat and velocity, and a velocity splat moving along x before each step.
 * Each test picks its own sizes (emitter radius, steps, splat path) so that the fields reach the paths it covers.
 * Include after check.h. */
#ifndef EDDY_TEST_STIRRED_SCENE_H
#define EDDY_TEST_STIRRED_SCENE_H

#include "eddy/eddy.h"

#include <stdbool.h>

typedef struct stirred_scene {
    bool obstacle;        /* a still sphere of radius 0.12 at (0.6, 0.4, 0.3) */
    float emitter_radius; /* the emitter's sphere at (0.3, 0.2, 0.3) */
    int steps;
    float splat_dx, splat_z, splat_radius; /* splat k at (0.1 + k splat_dx, 0.5, splat_z) */
} stirred_scene;

/* the definition's physics for the scene, on the grid already in d: a 1 m domain, vorticity confinement and
 * buoyancy (the velocity is stirred everywhere), and a fixed step of `cells_per_step` / grid[0] s, which at the
 * splats' speed takes the feet past the domain's edge in places (the clamped and wrapped locates) */
static inline void stirred_scene_def(eddy_sim_def *d, int threads, eddy_advection scheme, float cells_per_step) {
    d->size[0] = 1.0f;
    d->threads = threads;
    d->advection = scheme;
    d->vorticity = 0.2f;
    d->buoyancy_temperature = 1.0f;
    d->dt = cells_per_step / (float)d->grid[0];
}

/* sets the scene up in s and runs its steps; a failed step is a failed check */
static inline void run_stirred_scene(eddy_sim *s, const stirred_scene *sc) {
    if (sc->obstacle) {
        eddy_obstacle_def o = {0};
        o.shape = EDDY_SHAPE_SPHERE;
        o.center[0] = 0.6f; o.center[1] = 0.4f; o.center[2] = 0.3f; o.radius = 0.12f;
        CHECK(eddy_sim_add_obstacle(s, &o, NULL) == EDDY_OK, "add obstacle: %s", eddy_sim_last_error(s));
    }
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.3f; e.center[1] = 0.2f; e.center[2] = 0.3f; e.radius = sc->emitter_radius;
    e.dye[0] = 2; e.dye[1] = 1; e.dye[2] = 0.5f; e.temperature = 4; e.velocity[0] = 0.8f; e.velocity[1] = 0.8f;
    e.set_velocity = 1;
    eddy_sim_add_emitter(s, &e, NULL);
    for (int step = 0; step < sc->steps; step++) {
        eddy_splat sp = {{0.1f + sc->splat_dx * (float)step, 0.5f, sc->splat_z}, sc->splat_radius, {1.5f, -0.8f, 0.6f},
                         {0.5f, 1, 0.2f}, 1.0f};
        eddy_sim_splat(s, &sp);
        if (eddy_sim_step(s) != EDDY_OK) {
            CHECK(0, "step: %s", eddy_sim_last_error(s));
            break;
        }
    }
}

#endif
