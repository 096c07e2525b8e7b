/* eddy: game wind field — a small 3D grid of air that follows a moving centre (the player), stirred by moving
 * colliders, gusts and explosions, advanced once per game frame and sampled by game code and particles.
 *
 * Typical frame:
 *   eddy_wind_move(wind, player_position);                   // slide the window; air stays still in the world
 *   eddy_wind_sources src = {colliders, n_colliders, gusts, n_gusts};
 *   eddy_wind_frame(wind, dt, &src);                          // sources, diffusion, advection, projection
 *   eddy_particles_update(leaves, wind, dt);                  // particles carried by the wind
 *   eddy_wind_sample(wind, cloth_vertex, v);                  // or eddy_wind_sample_batch / eddy_wind_copy_texture
 *
 * Axes: y is up, as in the rest of eddy (gravity (0, -9.81, 0)); the default window is 32 m (x) by 16 m (y, up)
 * by 32 m (z). Units are SI. Positions are world positions unless a name says "local". */
#ifndef EDDY_WIND_H
#define EDDY_WIND_H

#include "sim.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_wind eddy_wind;
typedef struct eddy_particles eddy_particles;

/** Everything needed to create a wind field. Start from `eddy_wind_def_default()`. */
typedef struct eddy_wind_def {
    int grid[3];              /**< cells per axis, 3..1024 each; default 32 x 16 x 32 (16 cells vertically, y up) */
    float cell_size;          /**< m, 1e-9 .. 1e9; default 1 */
    float center[3];          /**< initial world position of the window centre, m; default 0 */
    float ambient[3];         /**< m/s, constant part of the ambient wind, within +-1e6; default 0 */
    float noise_amplitude;    /**< m/s (0 .. 1e6), amplitude of the smooth value noise added to the ambient wind per component;
                                   0 = no noise (default). The noise pattern drifts with the constant ambient wind. */
    float noise_scale;        /**< m, lattice spacing of the noise, >= cell_size; default 8 */
    uint32_t noise_seed;      /**< seed of the noise; default 1 */
    float relaxation_time;    /**< s, e-folding time of the pull towards the ambient wind; 0 = none; default 2 */
    float viscosity;          /**< m^2/s, kinematic; 0 (default) skips the diffusion stage */
    eddy_pressure_def pressure; /**< projection settings: the frame budget is set here. Default: Jacobi, 20
                                     iterations (fits the 1 ms frame; leaves ~4% of the divergence, which the next
                                     frames keep removing). For accuracy: MGPCG with a tolerance (~1 ms/iteration
                                     at the default size), or RBGS with an iteration cap. */
    int snap_to_cells;        /**< 1: the window origin moves by whole cells only (no interpolation, no smoothing;
                                   the window is then centred within half a cell of the requested centre);
                                   0 (default): exact centre, sub-cell remainder interpolated */
    int max_explosions;       /**< explosions active at once, 0..4096; default 16 (storage allocated at create) */
    int threads;              /**< OpenMP threads for the frame and batch sampling; 0 = OpenMP default; default 1 */
} eddy_wind_def;

/** A moving body (character, projectile) given each frame. The air inside it takes its velocity and the
 *  projection pushes the surrounding air out of its way. */
typedef struct eddy_wind_collider {
    eddy_shape shape;   /**< EDDY_SHAPE_SPHERE or EDDY_SHAPE_CAPSULE */
    float center[3];    /**< m, world */
    float radius;       /**< m, > 0, at most 1e15 */
    float axis[3];      /**< capsule: half-segment, the ends are center +- axis, m, within +-1e15 */
    float velocity[3];  /**< m/s, world, within +-1e6 */
} eddy_wind_collider;

/** A directional gust given each frame: inside a sphere the air is pulled towards `velocity`. */
typedef struct eddy_wind_gust {
    float center[3];    /**< m, world */
    float radius;       /**< m, 1e-9 .. 1e15; 0 = the whole window */
    float velocity[3];  /**< m/s the air is pulled towards, within +-1e6 */
    float rate;         /**< 1/s: per frame the air moves a fraction 1 - exp(-rate dt) of the way at the centre,
                             falling smoothly to 0 at the radius */
} eddy_wind_gust;

/** A point explosion: a short radial outflow. The air is incompressible, so an explosion is a volume source of
 *  radius `radius`: outside it the air moves outward at speed * (radius / r)^2 (a potential flow), inside it the
 *  outward speed grows linearly from the centre. The strength falls linearly to 0 over `duration`. */
typedef struct eddy_wind_explosion {
    float center[3];    /**< m, world */
    float radius;       /**< m, 1e-9 .. 1e15: radius of the source */
    float speed;        /**< m/s, outward speed at the radius at the start, 0 .. 1e6 */
    float duration;     /**< s, >= 0; 0 = one frame */
} eddy_wind_explosion;

/** Sources of one frame; arrays are read during the call only. */
typedef struct eddy_wind_sources {
    const eddy_wind_collider *colliders;
    int collider_count;
    const eddy_wind_gust *gusts;
    int gust_count;
} eddy_wind_sources;

/** What the last frame did, with timings (ms) of each part. */
typedef struct eddy_wind_frame_stats {
    long frame;              /**< frames taken */
    double time;             /**< wind time, s */
    float dt;                /**< last frame's dt, s */
    double frame_ms;         /**< whole eddy_wind_frame call */
    double sources_ms, diffuse_ms, advect_ms, project_ms, finish_ms; /**< finish: divergence check + sampling copy */
    double move_ms;          /**< last eddy_wind_move */
    int pressure_iterations;
    float pressure_residual; /**< relative residual reached */
    float max_div;           /**< max |div u| over air cells after the frame, 1/s */
    float max_speed;         /**< m/s, largest cell-centred speed */
    int solid_cells;         /**< cells covered by colliders */
    int active_explosions;
} eddy_wind_frame_stats;

/** Where the window is. Cell (i,j,k) spans origin + [i, i+1) * cell_size (and likewise in y, z). */
typedef struct eddy_wind_window {
    int n[3];
    float cell_size;   /**< m */
    double origin[3];  /**< world position of the window's minimum corner, m */
    double center[3];  /**< world position of the window centre, m */
} eddy_wind_window;

/** Texel formats for `eddy_wind_copy_texture`. */
typedef enum eddy_wind_texture_format {
    EDDY_WIND_RGBA32F = 0, /**< 4 floats per cell: u, v, w (m/s), speed |u| (m/s) */
    EDDY_WIND_RGB32F,      /**< 3 floats per cell: u, v, w */
    EDDY_WIND_RGBA16F,     /**< 4 IEEE half floats per cell (round to nearest even; beyond 65504 saturates) */
    EDDY_WIND_RGB16F       /**< 3 half floats per cell */
} eddy_wind_texture_format;

/** Defaults as documented on each field of eddy_wind_def. */
eddy_wind_def eddy_wind_def_default(void);
/** Checks `def`; `msg` (may be NULL) names the first bad value. */
eddy_status eddy_wind_def_validate(const eddy_wind_def *def, char *msg, size_t msg_size);
/** Creates a wind field filled with the ambient wind. On failure *out is NULL and `msg` says why. */
eddy_status eddy_wind_create(const eddy_wind_def *def, eddy_wind **out, char *msg, size_t msg_size);
void eddy_wind_destroy(eddy_wind *wind);
/** Detail of the last error ("" when none). */
const char *eddy_wind_last_error(const eddy_wind *wind);
const eddy_wind_def *eddy_wind_get_def(const eddy_wind *wind);

/** Moves the window centre to `center` (world, m). The field slides by the movement: whole cells are copied
 *  exactly, the remainder (unless snap_to_cells) is interpolated linearly, and cells entering the window take the
 *  ambient wind. The air therefore stays where it was in the world. Allocates nothing. */
eddy_status eddy_wind_move(eddy_wind *wind, const float center[3]);
/** Changes the constant ambient wind (weather); the field relaxes towards it. */
eddy_status eddy_wind_set_ambient(eddy_wind *wind, const float ambient[3]);
/** Starts an explosion; it acts during the next frames until its duration has passed. */
eddy_status eddy_wind_explode(eddy_wind *wind, const eddy_wind_explosion *explosion);

/** Advances the air by `dt` seconds: relaxation to ambient, gusts, explosions, colliders, diffusion (if
 *  viscosity > 0), advection, projection. `sources` may be NULL. Allocates nothing. */
eddy_status eddy_wind_frame(eddy_wind *wind, float dt, const eddy_wind_sources *sources);
const eddy_wind_frame_stats *eddy_wind_stats(const eddy_wind *wind);
double eddy_wind_time(const eddy_wind *wind);
void eddy_wind_get_window(const eddy_wind *wind, eddy_wind_window *window);

/** Ambient wind (constant + noise, at the current time) at a world position; defined everywhere. */
void eddy_wind_ambient_at(const eddy_wind *wind, const float pos[3], float vel[3]);
/** Wind velocity at a world position: trilinear between cell centres inside the window (the outer half cell
 *  holds the edge value, like a clamped texture), the ambient wind outside it. Read-only: several threads may
 *  sample at once, but not during eddy_wind_frame / eddy_wind_move. A NaN or infinite position gets the constant
 *  ambient wind and EDDY_ERR_INVALID_ARGUMENT (the batch sampler: when any position is not finite). */
eddy_status eddy_wind_sample(const eddy_wind *wind, const float pos[3], float vel[3]);
/** Samples `count` points. Point p is at positions[p * position_stride + 0..2] and its velocity goes to
 *  velocities[p * velocity_stride + 0..2]; strides are in floats, >= 3 (0 means 3). `velocities` may be
 *  `positions` with the same stride (in place); otherwise the two must not overlap. */
eddy_status eddy_wind_sample_batch(const eddy_wind *wind, const float *positions, size_t position_stride,
                                   float *velocities, size_t velocity_stride, size_t count);

/** Copies the field as a 3D texture of n[0] x n[1] x n[2] texels, x fastest: texel (i,j,k) starts at element
 *  (i + n[0] * (j + n[1] * k)) * channels and holds the velocity at the cell centre
 *  origin + (i + 0.5, j + 0.5, k + 0.5) * cell_size. With hardware trilinear filtering and clamp-to-edge, a
 *  shader sampling texture coordinate (world - origin) / (n * cell_size) reads what eddy_wind_sample returns.
 *  `dst_bytes` must be at least n0*n1*n2 * channels * (4 or 2). */
eddy_status eddy_wind_copy_texture(const eddy_wind *wind, eddy_wind_texture_format format, void *dst, size_t dst_bytes);

/** The simulation behind the field, in window-local coordinates (its origin is the window's minimum corner):
 *  read its fields with the eddy_sim API. After writing fields directly, call eddy_wind_sync. */
eddy_sim *eddy_wind_sim(eddy_wind *wind);
/** Rebuilds what sampling reads after the simulation's fields were written directly. */
eddy_status eddy_wind_sync(eddy_wind *wind);

/* ---------------------------------------------------------------- particles */

/** A particle system carried by the wind: each particle obeys dv/dt = drag * (wind(x) - v) + gravity, integrated
 *  exactly for the wind at the start of the step. Particles live `lifetime` (+- jitter) seconds, then respawn at
 *  a random point of the region with the local wind velocity. */
typedef struct eddy_particles_def {
    int count;                /**< particles, 1..2^26; default 1000 */
    float drag;               /**< 1/s, linear drag rate (reaches 63% of a step change in wind in 1/drag s);
                                   0 = ballistic; default 4 */
    float gravity[3];         /**< m/s^2, within +-1e6; default 0 (tracers). Leaves: drag ~3, gravity (0,-3,0); sparks: drag
                                   ~0.5, gravity (0,-9.81,0); smoke: gravity (0,+1,0) */
    float lifetime;           /**< s, > 0; default 5 */
    float lifetime_jitter;    /**< fraction in [0,1): lifetimes are uniform in lifetime * (1 +- jitter); default 0.5 */
    float region_min[3];      /**< respawn box, m; default (-12, 0, -12) */
    float region_max[3];      /**< default (12, 6, 12) */
    int region_follows_wind;  /**< 1 (default): the region is relative to the wind window's centre */
    int respawn_outside_window; /**< 1: a particle that leaves the wind window respawns at once; default 0 */
    uint32_t seed;            /**< default 1 */
    int threads;              /**< OpenMP threads for updates; 0 = OpenMP default; default 1 */
} eddy_particles_def;

eddy_particles_def eddy_particles_def_default(void);
eddy_status eddy_particles_def_validate(const eddy_particles_def *def, char *msg, size_t msg_size);
/** Creates the particles. They are born on the first update, at random points of the region, with ages spread
 *  over their lifetimes so that they do not all respawn together. */
eddy_status eddy_particles_create(const eddy_particles_def *def, eddy_particles **out, char *msg, size_t msg_size);
void eddy_particles_destroy(eddy_particles *particles);
const char *eddy_particles_last_error(const eddy_particles *particles);
/** Advances every particle by dt seconds in `wind` (NULL: still air). Allocates nothing. */
eddy_status eddy_particles_update(eddy_particles *particles, const eddy_wind *wind, float dt);
/** Moves the respawn region (world, or relative to the wind centre when region_follows_wind). */
eddy_status eddy_particles_set_region(eddy_particles *particles, const float region_min[3], const float region_max[3]);
int eddy_particles_count(const eddy_particles *particles);
/** Views valid until the next update or destroy: positions and velocities are xyz interleaved (3 floats per
 *  particle), ages and lifetimes one float per particle (s). */
const float *eddy_particles_positions(const eddy_particles *particles);
const float *eddy_particles_velocities(const eddy_particles *particles);
const float *eddy_particles_ages(const eddy_particles *particles);
const float *eddy_particles_lifetimes(const eddy_particles *particles);
/** Sets one particle's state (for tests and scripted effects): a finite position (m), a velocity within
 *  +-1e6 m/s; it keeps its age. */
eddy_status eddy_particles_set(eddy_particles *particles, int index, const float pos[3], const float vel[3]);

#ifdef __cplusplus
}
#endif
#endif
