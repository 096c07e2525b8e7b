/* eddy: the simulation object — create, step, splat, obstacles, fields, sampling, state files. */
#ifndef EDDY_SIM_H
#define EDDY_SIM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_sim eddy_sim;

/** Defaults: 2D, 128x128 cells over 1 m, CFL 1, MacCormack, MGPCG to 1e-6, free-slip walls, CPU. */
eddy_sim_def eddy_sim_def_default(void);

/** Name of a status code ("invalid argument", ...). Never NULL. */
const char *eddy_status_string(eddy_status st);
/** Name of a stage ("sources", "forces", "advect", "diffuse", "project", "boundary", "diagnostics"). */
const char *eddy_stage_name(eddy_stage stage);
/** Name of a field ("u", "v", "w", "pressure", "dye_r", ...). */
const char *eddy_field_name(eddy_field field);

/** Name of a backend ("cpu", "cuda"). */
const char *eddy_backend_name(eddy_backend backend);
/** 1 when simulations can be created on `backend` in this build on this machine, else 0. `msg` (may be NULL)
 *  receives a description ("NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB, compute 9.0") or why it is missing
 *  ("not compiled in", "no CUDA device"). */
int eddy_backend_available(eddy_backend backend, char *msg, size_t msg_size);

/** Checks `def` and writes a message into `msg` (may be NULL) naming the first bad value. */
eddy_status eddy_sim_def_validate(const eddy_sim_def *def, char *msg, size_t msg_size);

/** Creates a simulation. On failure *out is NULL; `msg` (may be NULL) receives the reason. */
eddy_status eddy_sim_create(const eddy_sim_def *def, eddy_sim **out, char *msg, size_t msg_size);
void eddy_sim_destroy(eddy_sim *sim);

/** Changes the runtime parameters of a live simulation: dt, cfl, max_dt, viscosity, density, advection,
 *  pressure, vorticity, dissipation, diffusion, gravity, buoyancy, ambient temperature, threads, and the boundary
 *  velocities, dye and temperature. Structural values (dim, grid, size, origin, dye_scale, boundary types, backend)
 *  must equal the simulation's (start from a copy of eddy_sim_get_def); otherwise EDDY_ERR_INVALID_ARGUMENT. */
eddy_status eddy_sim_set_def(eddy_sim *sim, const eddy_sim_def *def);

/** The detail of the last error on this simulation ("" when none). Valid until the next call on it. */
const char *eddy_sim_last_error(const eddy_sim *sim);
const eddy_sim_def *eddy_sim_get_def(const eddy_sim *sim);
/** Cell size h, m. */
float eddy_sim_cell_size(const eddy_sim *sim);

/** One step: dt = def.dt when fixed, else the CFL-limited dt. */
eddy_status eddy_sim_step(eddy_sim *sim);
/** The most steps one eddy_sim_advance takes. */
#define EDDY_ADVANCE_MAX_STEPS (1L << 20)
/** Advances by exactly `duration` seconds in substeps no larger than the step `eddy_sim_step` would take.
 *  At most EDDY_ADVANCE_MAX_STEPS of them: a duration that needs more even at dt (or max_dt) is refused before any
 *  step; a velocity so large that the CFL steps run past that many (1e10 m/s at h = 0.1 m: steps of 1e-11 s) stops
 *  the call there with EDDY_ERR_INVALID_ARGUMENT, the steps taken standing (eddy_sim_time says how far it got). */
eddy_status eddy_sim_advance(eddy_sim *sim, double duration);
/** Statistics of the last step. */
const eddy_step_stats *eddy_sim_stats(const eddy_sim *sim);
double eddy_sim_time(const eddy_sim *sim);
long eddy_sim_step_count(const eddy_sim *sim);

/** Projects the current velocity (walls, obstacles applied) without advancing time. */
eddy_status eddy_sim_project(eddy_sim *sim);
/** Recomputes the diagnostics into the stats (divergence, energy, ...). */
eddy_status eddy_sim_update_diagnostics(eddy_sim *sim);

/** Adds a Gaussian splat of dye, velocity and temperature now. */
eddy_status eddy_sim_splat(eddy_sim *sim, const eddy_splat *splat);

/** Obstacles and the solid mask are rasterised into solid cells once, before the next call that uses them (step,
 *  project, splat, diagnostics, reading the solid or divergence field, writing a velocity): moving many obstacles
 *  between two steps costs one pass over the grid, not one per call. An SDF callback is evaluated when its obstacle
 *  is added, so one returning NaN is refused by eddy_sim_add_obstacle. */
eddy_status eddy_sim_add_obstacle(eddy_sim *sim, const eddy_obstacle_def *def, eddy_id *id);
/** Moves an obstacle to `center` and sets the velocity it imposes (NULL keeps the old velocity). */
eddy_status eddy_sim_move_obstacle(eddy_sim *sim, eddy_id id, const float center[3], const float velocity[3]);
eddy_status eddy_sim_remove_obstacle(eddy_sim *sim, eddy_id id);
/** Static solid cells, one byte per velocity cell (nonzero = solid), x fastest; NULL clears. Copied. */
eddy_status eddy_sim_set_solid_mask(eddy_sim *sim, const uint8_t *mask, size_t count);

eddy_status eddy_sim_add_emitter(eddy_sim *sim, const eddy_emitter_def *def, eddy_id *id);
eddy_status eddy_sim_move_emitter(eddy_sim *sim, eddy_id id, const float center[3]);
eddy_status eddy_sim_remove_emitter(eddy_sim *sim, eddy_id id);

/** Layout of a field (see eddy_field_layout). */
eddy_status eddy_sim_field_layout(const eddy_sim *sim, eddy_field field, eddy_field_layout *layout);
/** Copies a field into caller memory of `count` floats (must equal the layout's count). */
eddy_status eddy_sim_read_field(eddy_sim *sim, eddy_field field, float *dst, size_t count);
/** Overwrites a writable field (u, v, w, pressure, dye, temperature) from caller memory. */
eddy_status eddy_sim_write_field(eddy_sim *sim, eddy_field field, const float *src, size_t count);
/** Read-only view of a stored field (not the computed ones), valid until the next step, write or destroy.
 *  NULL on error (see eddy_sim_last_error). On the CUDA backend the view is a host copy refreshed by this call. */
const float *eddy_sim_field_view(eddy_sim *sim, eddy_field field, eddy_field_layout *layout);

/** Trilinear velocity at a world position (m); positions outside are clamped to the domain (wrapped if periodic). */
eddy_status eddy_sim_sample_velocity(eddy_sim *sim, const float pos[3], float vel[3]);
/** Trilinear value of a field at a world position. */
eddy_status eddy_sim_sample_field(eddy_sim *sim, eddy_field field, const float pos[3], float *value);

/** Writes the whole state (definition, fields, obstacles, emitters, time) to a file, replacing it atomically.
 *  Obstacles with an SDF callback cannot be saved (EDDY_ERR_UNSUPPORTED), nor fields holding a non-finite value that a
 *  stopped step left (EDDY_ERR_NON_FINITE); a refused or failed save leaves the file at `path` as it was. */
eddy_status eddy_sim_save(eddy_sim *sim, const char *path);
/** Creates a simulation from a state file; a truncated or corrupt file gives EDDY_ERR_CORRUPT_FILE. */
eddy_status eddy_sim_load(const char *path, eddy_sim **out, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
