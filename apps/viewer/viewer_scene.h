/* What the viewer shows: a simulation made from a scene (a JSON file or a preset name) plus what the scene does
 * over time. Until the CLI's scene loader is linked in, two built-in scenes stand in: "default" (the classic
 * demo: a 16:9 box, flow past a circular obstacle, random splats at the start) and "empty" (a still 16:9 box). */
#ifndef VIEWER_SCENE_H
#define VIEWER_SCENE_H

#include "eddy/sim.h"

#include <stddef.h>

#define VIEWER_MAX_OBSTACLES 16

typedef struct viewer_scene_options {
    int grid[2];          /**< > 0: override the 2D grid (cells); 0 = the scene's */
    int threads;          /**< OpenMP threads, 0 = default */
    unsigned seed;        /**< random splats of the scene */
} viewer_scene_options;

typedef struct viewer_scene viewer_scene;

/** Opens `name` (NULL = "default"). Returns 0, or -1 with a message. */
int viewer_scene_open(const char *name, const viewer_scene_options *opt, viewer_scene **out, char *msg, size_t msg_size);
void viewer_scene_close(viewer_scene *sc);
eddy_sim *viewer_scene_sim(viewer_scene *sc);
const char *viewer_scene_name(const viewer_scene *sc);
/** Recreates the simulation as at the start (R key). Returns 0, or -1 with a message. */
int viewer_scene_reset(viewer_scene *sc, char *msg, size_t msg_size);
/** Scene actions due before a step of `dt` s (timed splats, moving sources). */
eddy_status viewer_scene_before_step(viewer_scene *sc, float dt);
/** The scene's obstacles (ids and centres, m), for dragging them. */
int viewer_scene_obstacle_count(const viewer_scene *sc);
eddy_id viewer_scene_obstacle_id(const viewer_scene *sc, int index);
float *viewer_scene_obstacle_center(viewer_scene *sc, int index);
/** Adds a circular (spherical) obstacle of radius `radius` m at `center`; returns its index or -1. */
int viewer_scene_add_obstacle(viewer_scene *sc, const float center[3], float radius);

#endif
