/* What the viewer shows: a simulation made from a scene (a JSON file, a preset name of `eddy scenes`, or "empty":
 * a still 16:9 box) through the CLI's scene loader, plus what the scene does over time (moving obstacles and
 * emitters, timed and random splats, splat paths). Real-time profile (unless full_resolution): grids larger than
 * 128 cells (2D) or 48 (3D) along an axis are coarsened to that, the dye grid kept as fine as the scene's, and the
 * step is allowed up to CFL 3 with the pressure solved to 1e-4, so one step per frame keeps up at 60 fps. */
#ifndef VIEWER_SCENE_H
#define VIEWER_SCENE_H

#include "eddy/sim.h"

#include <stddef.h>

#define VIEWER_MAX_OBSTACLES 16

typedef struct viewer_scene_options {
    int grid[2];          /**< > 0: override the 2D grid (cells); 0 = the scene's (after the real-time profile) */
    int full_resolution;  /**< nonzero: no real-time profile, the scene as it is */
    const char *const *sets; /**< "key.path=value" overrides of the scene (as eddy run --set) */
    int set_count;
    int threads;          /**< OpenMP threads, 0 = the scene's */
    unsigned seed;        /**< unused: random splats follow the scene's own seed */
} viewer_scene_options;

typedef struct viewer_scene viewer_scene;

/** Opens `name` (NULL = "default"). Returns 0, or -1 with a message (a scene error names file, key and value). */
int viewer_scene_open(const char *name, const viewer_scene_options *opt, viewer_scene **out, char *msg, size_t msg_size);
void viewer_scene_close(viewer_scene *sc);
eddy_sim *viewer_scene_sim(viewer_scene *sc);
const char *viewer_scene_name(const viewer_scene *sc);
/** Recreates the simulation as at the start (R key). Returns 0, or -1 with a message. */
int viewer_scene_reset(viewer_scene *sc, char *msg, size_t msg_size);
/** Scene actions due before a step of `dt` s (timed splats, moving sources). */
eddy_status viewer_scene_before_step(viewer_scene *sc, float dt);
/** The obstacles the pointer can drag (ids and centres, m): the scene's obstacles that do not move by themselves,
 *  and those added with viewer_scene_add_obstacle. */
int viewer_scene_obstacle_count(const viewer_scene *sc);
eddy_id viewer_scene_obstacle_id(const viewer_scene *sc, int index);
float *viewer_scene_obstacle_center(viewer_scene *sc, int index);
/** Adds a circular (spherical) obstacle of radius `radius` m at `center`; returns its index or -1. */
int viewer_scene_add_obstacle(viewer_scene *sc, const float center[3], float radius);

#endif
