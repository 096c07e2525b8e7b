/* Scenes for the viewer (see viewer_scene.h): loaded by the CLI's scene library (apps/cli/scene.h), set up by its
 * run_setup_sim (obstacles, emitters, initial fields), and driven once per frame as `eddy run` drives them between
 * steps: bodies moved along their paths, splats and random splats applied when due, splat paths pushing. */
#include "viewer_scene.h"

#include "run.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEWER_MAX_SETS 64

struct viewer_scene {
    char *name;            /* owned: a preset name or a file path of any length */
    viewer_scene_options opt;
    const char *sets[VIEWER_MAX_SETS + 4];
    char profile_sets[4][96];
    int set_count;
    eddy_scene *scene;
    run r;                 /* the CLI's run: scene, simulation, body ids, random-splat state */
    int obstacle_count;
    eddy_id obstacle_ids[VIEWER_MAX_OBSTACLES];
    float obstacle_centers[VIEWER_MAX_OBSTACLES][3];
};

static const char *const empty_scene_json =
    "{\"name\": \"empty\", \"description\": \"a still 16:9 box\", \"dim\": 2, \"grid\": [128, 72], \"size\": 1.7777778}";

static eddy_scene *scene_load(viewer_scene *sc, const char *const *sets, int set_count, char *msg, size_t msg_size) {
    scene_load_options lo = scene_load_options_default();
    lo.overrides = sets;
    lo.override_count = set_count;
    FILE *f = fopen(sc->name, "rb");
    if (f) {
        fclose(f);
        return scene_load_file(sc->name, &lo, msg, msg_size);
    }
    if (!strcmp(sc->name, "empty"))
        return scene_parse(empty_scene_json, strlen(empty_scene_json), "preset:empty", NULL, &lo, msg, msg_size);
    return scene_load_preset(sc->name, &lo, msg, msg_size);
}

/* Loads the scene with the user's overrides, then (real-time profile) once more with a coarser grid, a looser
 * pressure tolerance and a larger CFL number when the scene asks for more than a frame can afford. */
static int scene_prepare(viewer_scene *sc, char *msg, size_t msg_size) {
    sc->set_count = 0;
    for (int i = 0; i < sc->opt.set_count && i < VIEWER_MAX_SETS; i++) sc->sets[sc->set_count++] = sc->opt.sets[i];
    eddy_scene *scene = scene_load(sc, sc->sets, sc->set_count, msg, msg_size);
    if (!scene) return -1;
    if (scene->wind) { /* a wind scene has no fluid box to show */
        snprintf(msg, msg_size, "%s: a wind scene: the viewer shows fluid scenes; run it with `eddy run --scene %s` (or the file)",
                 scene->file, sc->name);
        scene_free(scene);
        return -1;
    }
    if (sc->opt.grid[0] > 0 && scene->def.dim != 2) { /* it would be left out without a word */
        snprintf(msg, msg_size, "--grid %dx%d: %s is a 3D scene; --grid sets a 2D grid (give a 3D one with --set grid=[NX,NY,NZ])",
                 sc->opt.grid[0], sc->opt.grid[1], scene->file);
        scene_free(scene);
        return -1;
    }
    int extra = 0;
    if (sc->opt.grid[0] > 0) {
        snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "grid=[%d,%d]", sc->opt.grid[0], sc->opt.grid[1]);
    } else if (!sc->opt.full_resolution) {
        const int dim = scene->def.dim, limit = dim == 2 ? 128 : 48;
        int largest = 0;
        for (int a = 0; a < dim; a++) largest = scene->def.grid[a] > largest ? scene->def.grid[a] : largest;
        if (largest > limit) {
            int factor = (largest + limit - 1) / limit; /* whole factor: the dye grid keeps its cells exactly */
            int g[3] = {1, 1, 1}, ds[3] = {1, 1, 1};
            for (int a = 0; a < dim; a++) {
                g[a] = scene->def.grid[a] / factor > 3 ? scene->def.grid[a] / factor : 3;
                ds[a] = scene->def.dye_scale[a] * factor > 16 ? 16 : scene->def.dye_scale[a] * factor;
            }
            if (dim == 2) {
                snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "grid=[%d,%d]", g[0], g[1]);
                if (dim == 2 && factor <= 4)
                    snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "dye_scale=[%d,%d]", ds[0], ds[1]);
            } else {
                snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "grid=[%d,%d,%d]", g[0], g[1], g[2]);
            }
        }
    }
    if (!sc->opt.full_resolution) {
        if (scene->def.pressure.solver != EDDY_PRESSURE_JACOBI && scene->def.pressure.tolerance < 1e-4f)
            snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "pressure.tolerance=1e-4");
        if (scene->def.cfl < 3 && scene->def.dt == 0)
            snprintf(sc->profile_sets[extra++], sizeof sc->profile_sets[0], "cfl=3");
    }
    if (extra) {
        scene_free(scene);
        /* the profile first: the user's own --set values come after and win */
        int n = 0;
        const char *all[VIEWER_MAX_SETS + 4];
        for (int i = 0; i < extra; i++) all[n++] = sc->profile_sets[i];
        for (int i = 0; i < sc->set_count; i++) all[n++] = sc->sets[i];
        memcpy(sc->sets, all, (size_t)n * sizeof all[0]);
        sc->set_count = n;
        scene = scene_load(sc, sc->sets, sc->set_count, msg, msg_size);
        if (!scene) return -1;
    }
    sc->scene = scene;
    return 0;
}

static void scene_release_run(viewer_scene *sc) {
    eddy_sim_destroy(sc->r.sim);
    free(sc->r.obstacle_ids);
    free(sc->r.emitter_ids);
    sc->r.sim = NULL;
    sc->r.obstacle_ids = sc->r.emitter_ids = NULL;
}

static int scene_build(viewer_scene *sc, char *msg, size_t msg_size) {
    scene_release_run(sc);
    memset(&sc->r, 0, sizeof sc->r);
    sc->r.opt.threads = sc->opt.threads > 0 ? sc->opt.threads : -1;
    sc->r.scene = sc->scene;
    sc->r.st.rng = sc->scene->random_splats.seed;
    if (!run_setup_sim(&sc->r, msg, msg_size)) return -1;
    /* the obstacles the pointer may drag: those standing still */
    sc->obstacle_count = 0;
    for (int i = 0; i < sc->scene->obstacle_count && sc->obstacle_count < VIEWER_MAX_OBSTACLES; i++) {
        const scene_obstacle *o = &sc->scene->obstacles[i];
        if (o->moving || o->path.type != SCENE_PATH_NONE) continue;
        sc->obstacle_ids[sc->obstacle_count] = sc->r.obstacle_ids[i];
        memcpy(sc->obstacle_centers[sc->obstacle_count], o->def.center, sizeof o->def.center);
        sc->obstacle_count++;
    }
    return 0;
}

int viewer_scene_open(const char *name, const viewer_scene_options *opt, viewer_scene **out, char *msg, size_t msg_size) {
    *out = NULL;
    viewer_scene *sc = calloc(1, sizeof *sc);
    if (!sc) { snprintf(msg, msg_size, "out of memory"); return -1; }
    sc->name = strdup(name ? name : "default");
    if (!sc->name) { free(sc); snprintf(msg, msg_size, "out of memory"); return -1; }
    if (opt) sc->opt = *opt;
    if (scene_prepare(sc, msg, msg_size) != 0 || scene_build(sc, msg, msg_size) != 0) {
        viewer_scene_close(sc);
        return -1;
    }
    *out = sc;
    return 0;
}

void viewer_scene_close(viewer_scene *sc) {
    if (!sc) return;
    scene_release_run(sc);
    scene_free(sc->scene);
    free(sc->name);
    free(sc);
}

eddy_sim *viewer_scene_sim(viewer_scene *sc) { return sc->r.sim; }
const char *viewer_scene_name(const viewer_scene *sc) { return sc->scene->name ? sc->scene->name : sc->name; }

int viewer_scene_reset(viewer_scene *sc, char *msg, size_t msg_size) { return scene_build(sc, msg, msg_size); }

/* A random splat as `eddy run` makes them (apps/cli/run.c): position inside the box, velocity up to `speed`, a
 * saturated colour of random hue; the same random sequence from the scene's seed. */
static void scene_random_splat(viewer_scene *sc, eddy_splat *sp) {
    const eddy_scene *s = sc->scene;
    const scene_random_splats *rs = &s->random_splats;
    const int dim = s->def.dim;
    float h = eddy_sim_cell_size(sc->r.sim);
    memset(sp, 0, sizeof *sp);
    for (int a = 0; a < dim; a++) {
        double extent = (double)h * s->def.grid[a];
        double lo = s->def.origin[a] + rs->radius, hi = s->def.origin[a] + extent - rs->radius;
        if (hi < lo) lo = hi = s->def.origin[a] + 0.5 * extent;
        sp->position[a] = (float)(lo + (hi - lo) * run_rng_uniform(&sc->r.st.rng));
    }
    for (int a = 0; a < dim; a++) sp->velocity[a] = (float)(rs->speed * (2.0 * run_rng_uniform(&sc->r.st.rng) - 1.0));
    double hue = 6.0 * run_rng_uniform(&sc->r.st.rng);
    int sector = (int)hue % 6;
    double f = hue - floor(hue), q = 1 - f;
    double rgb[6][3] = {{1, f, 0}, {q, 1, 0}, {0, 1, f}, {0, q, 1}, {f, 0, 1}, {1, 0, q}};
    for (int c = 0; c < 3; c++) sp->dye[c] = (float)(rs->intensity * rgb[sector][c]);
    sp->radius = rs->radius;
}

eddy_status viewer_scene_before_step(viewer_scene *sc, float dt) {
    const eddy_scene *s = sc->scene;
    const double t = eddy_sim_time(sc->r.sim), eps = 1e-9;
    eddy_status st = run_move_bodies(&sc->r, t);
    while (st == EDDY_OK && sc->r.st.next_splat < s->splat_count && s->splats[sc->r.st.next_splat].time <= t + eps)
        st = eddy_sim_splat(sc->r.sim, &s->splats[sc->r.st.next_splat++].splat);
    const scene_random_splats *rs = &s->random_splats;
    while (st == EDDY_OK && sc->r.st.random_done < rs->count &&
           (rs->rate > 0 ? rs->start + (double)sc->r.st.random_done / rs->rate : rs->start) <= t + eps) {
        eddy_splat sp;
        scene_random_splat(sc, &sp);
        st = eddy_sim_splat(sc->r.sim, &sp);
        sc->r.st.random_done++;
    }
    for (int i = 0; st == EDDY_OK && i < s->splat_path_count; i++) { /* a push along the path's motion */
        const scene_splat_path *p = &s->splat_paths[i];
        if (t + eps < p->start || (p->end > 0 && t >= p->end)) continue;
        eddy_splat sp;
        memset(&sp, 0, sizeof sp);
        float vel[3];
        scene_path_eval(&p->path, t, s->def.dim, sp.position, vel);
        double speed = sqrt((double)vel[0] * vel[0] + (double)vel[1] * vel[1] + (double)vel[2] * vel[2]);
        for (int a = 0; a < 3; a++) {
            sp.velocity[a] = speed > 0 ? (float)(p->force * dt * vel[a] / speed) : 0.0f;
            sp.dye[a] = p->dye[a] * dt;
        }
        sp.temperature = p->temperature * dt;
        sp.radius = p->radius;
        st = eddy_sim_splat(sc->r.sim, &sp);
    }
    return st;
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
    if (eddy_sim_add_obstacle(sc->r.sim, &od, &id) != EDDY_OK) return -1;
    sc->obstacle_ids[sc->obstacle_count] = id;
    memcpy(sc->obstacle_centers[sc->obstacle_count], center, sizeof od.center);
    return sc->obstacle_count++;
}
