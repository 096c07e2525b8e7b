/* Built-in scenes of the viewer (see viewer_scene.h): the classic demo's flow past a cylinder, and an empty box. */
#include "viewer_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct viewer_scene {
    char name[256];
    viewer_scene_options opt;
    eddy_sim *sim;
    int obstacle_count;
    eddy_id obstacle_ids[VIEWER_MAX_OBSTACLES];
    float obstacle_centers[VIEWER_MAX_OBSTACLES][3];
};

static int scene_fail(char *msg, size_t msg_size, const char *fmt, const char *a, const char *b) {
    if (msg && msg_size) snprintf(msg, msg_size, fmt, a, b);
    return -1;
}

static unsigned scene_random(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}
static float scene_random01(unsigned *state) { return (float)scene_random(state) / 16777216.0f; }

static int scene_build(viewer_scene *sc, char *msg, size_t msg_size) {
    const int is_default = strcmp(sc->name, "default") == 0;
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = sc->opt.grid[0] > 0 ? sc->opt.grid[0] : 128;
    def.grid[1] = sc->opt.grid[1] > 0 ? sc->opt.grid[1] : 72;
    def.size[0] = 0.9f * (float)def.grid[0] / (float)def.grid[1];
    def.dye_scale[0] = def.dye_scale[1] = 2;
    def.threads = sc->opt.threads;
    def.max_dt = 1.0f / 60.0f;
    def.pressure.tolerance = 1e-4f; /* real time: the picture does not change beyond this */
    def.cfl = 4; /* one step per 1/60 s frame: the clamped advection stays stable past CFL 1 (the demos run at 1 step/frame) */
    def.vorticity = is_default ? 0.3f : 0.0f;
    def.dye_dissipation = is_default ? 0.2f : 0.0f;
    if (is_default) {
        def.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_INFLOW;
        def.boundary[EDDY_FACE_X_MIN].velocity[0] = 0.3f;
        def.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_OUTFLOW;
    }
    eddy_status st = eddy_sim_create(&def, &sc->sim, msg, msg_size);
    if (st != EDDY_OK) return -1;
    sc->obstacle_count = 0;
    if (is_default) {
        float center[3] = {0.25f * def.size[0], 0.45f, 0};
        if (viewer_scene_add_obstacle(sc, center, 0.07f) < 0) return scene_fail(msg, msg_size, "%s%s: cannot add the obstacle", sc->name, "");
        unsigned rng = sc->opt.seed ? sc->opt.seed : 1u;
        for (int i = 0; i < 8; i++) { /* the demo's splats on load */
            eddy_splat sp;
            memset(&sp, 0, sizeof sp);
            sp.position[0] = (0.4f + 0.55f * scene_random01(&rng)) * def.size[0];
            sp.position[1] = (0.1f + 0.8f * scene_random01(&rng)) * 0.9f;
            sp.radius = 0.05f;
            sp.velocity[0] = 2.0f * (scene_random01(&rng) - 0.5f);
            sp.velocity[1] = 2.0f * (scene_random01(&rng) - 0.5f);
            float hue = scene_random01(&rng);
            sp.dye[0] = 0.8f * (hue < 0.33f ? 1.0f : 0.2f);
            sp.dye[1] = 0.8f * (hue >= 0.33f && hue < 0.66f ? 1.0f : 0.2f);
            sp.dye[2] = 0.8f * (hue >= 0.66f ? 1.0f : 0.2f);
            eddy_sim_splat(sc->sim, &sp);
        }
    }
    return 0;
}

int viewer_scene_open(const char *name, const viewer_scene_options *opt, viewer_scene **out, char *msg, size_t msg_size) {
    *out = NULL;
    if (!name) name = "default";
    if (strcmp(name, "default") != 0 && strcmp(name, "empty") != 0)
        return scene_fail(msg, msg_size, "scene '%s': unknown%s (built-in scenes: default, empty)", name, "");
    viewer_scene *sc = calloc(1, sizeof *sc);
    if (!sc) return scene_fail(msg, msg_size, "scene '%s': out of memory%s", name, "");
    snprintf(sc->name, sizeof sc->name, "%s", name);
    if (opt) sc->opt = *opt;
    if (scene_build(sc, msg, msg_size) != 0) {
        viewer_scene_close(sc);
        return -1;
    }
    *out = sc;
    return 0;
}

void viewer_scene_close(viewer_scene *sc) {
    if (!sc) return;
    eddy_sim_destroy(sc->sim);
    free(sc);
}

eddy_sim *viewer_scene_sim(viewer_scene *sc) { return sc->sim; }
const char *viewer_scene_name(const viewer_scene *sc) { return sc->name; }

int viewer_scene_reset(viewer_scene *sc, char *msg, size_t msg_size) {
    eddy_sim_destroy(sc->sim);
    sc->sim = NULL;
    return scene_build(sc, msg, msg_size);
}

eddy_status viewer_scene_before_step(viewer_scene *sc, float dt) {
    (void)sc;
    (void)dt;
    return EDDY_OK;
}

int viewer_scene_obstacle_count(const viewer_scene *sc) { return sc->obstacle_count; }
eddy_id viewer_scene_obstacle_id(const viewer_scene *sc, int index) { return sc->obstacle_ids[index]; }
float *viewer_scene_obstacle_center(viewer_scene *sc, int index) { return sc->obstacle_centers[index]; }

int viewer_scene_add_obstacle(viewer_scene *sc, const float center[3], float radius) {
    if (sc->obstacle_count >= VIEWER_MAX_OBSTACLES) return -1;
    eddy_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.shape = EDDY_SHAPE_SPHERE;
    memcpy(od.center, center, sizeof od.center);
    od.radius = radius;
    eddy_id id;
    if (eddy_sim_add_obstacle(sc->sim, &od, &id) != EDDY_OK) return -1;
    sc->obstacle_ids[sc->obstacle_count] = id;
    memcpy(sc->obstacle_centers[sc->obstacle_count], center, sizeof od.center);
    return sc->obstacle_count++;
}
