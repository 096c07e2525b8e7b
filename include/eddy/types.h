/* eddy: shared public types — definitions, enums, status codes, step statistics.
 * Units are SI throughout: metres, seconds, m/s, m^2/s. */
#ifndef EDDY_TYPES_H
#define EDDY_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EDDY_VERSION_MAJOR 0
#define EDDY_VERSION_MINOR 1
#define EDDY_VERSION_PATCH 0
#define EDDY_VERSION_STRING "0.1.0"

/** Result of every fallible call. `eddy_status_string` names it; `eddy_sim_last_error` gives the detail. */
typedef enum eddy_status {
    EDDY_OK = 0,
    EDDY_ERR_INVALID_ARGUMENT, /**< a parameter is out of range, NaN, null or inconsistent */
    EDDY_ERR_OUT_OF_MEMORY,    /**< an allocation failed or a size overflowed */
    EDDY_ERR_NON_FINITE,       /**< a stage produced NaN or infinity; the step was stopped */
    EDDY_ERR_IO,               /**< a file could not be opened, read or written */
    EDDY_ERR_CORRUPT_FILE,     /**< a state file is truncated, corrupt or of another version */
    EDDY_ERR_UNSUPPORTED,      /**< the request is valid but this build or backend cannot do it */
    EDDY_ERR_NOT_FOUND,        /**< an id (obstacle, emitter) does not exist */
    EDDY_ERR_NOT_CONVERGED     /**< reserved: solvers report convergence in stats, not as an error */
} eddy_status;

/** Pressure solvers. MGPCG is the default: it iterates to a relative residual tolerance. */
typedef enum eddy_pressure_solver {
    EDDY_PRESSURE_MGPCG = 0, /**< multigrid-preconditioned conjugate gradient (default) */
    EDDY_PRESSURE_JACOBI,    /**< classic fixed-count Jacobi; a real-time baseline, never the default */
    EDDY_PRESSURE_RBGS       /**< red-black Gauss-Seidel / SOR to tolerance */
} eddy_pressure_solver;

/** Advection schemes for velocity and scalars. */
typedef enum eddy_advection {
    EDDY_ADVECT_MACCORMACK = 0, /**< MacCormack with min/max clamp limiter (default) */
    EDDY_ADVECT_SEMI_LAGRANGIAN, /**< RK2 backtrace + linear interpolation (Stam 1999) */
    EDDY_ADVECT_BFECC            /**< back-and-forth error compensation, clamped */
} eddy_advection;

/** Boundary condition of one face of the domain box. */
typedef enum eddy_boundary_type {
    EDDY_BOUNDARY_WALL = 0, /**< free-slip wall: normal velocity 0, tangential free (default) */
    EDDY_BOUNDARY_NOSLIP,   /**< no-slip wall: all velocity 0 */
    EDDY_BOUNDARY_MOVING,   /**< moving wall (a lid): normal 0, tangential = velocity */
    EDDY_BOUNDARY_PERIODIC, /**< periodic; must be set on both faces of an axis */
    EDDY_BOUNDARY_INFLOW,   /**< prescribed velocity, dye and temperature */
    EDDY_BOUNDARY_OUTFLOW   /**< zero pressure, zero-gradient velocity and scalars */
} eddy_boundary_type;

/** Face order used by `eddy_sim_def.boundary`. */
typedef enum eddy_face {
    EDDY_FACE_X_MIN = 0, EDDY_FACE_X_MAX, EDDY_FACE_Y_MIN, EDDY_FACE_Y_MAX, EDDY_FACE_Z_MIN, EDDY_FACE_Z_MAX
} eddy_face;

typedef struct eddy_boundary {
    eddy_boundary_type type;
    float velocity[3];  /**< m/s: lid velocity (MOVING, tangential part used) or inflow velocity (INFLOW) */
    float dye[3];       /**< INFLOW: dye concentration carried in */
    float temperature;  /**< INFLOW: temperature carried in, K above ambient */
} eddy_boundary;

typedef enum eddy_backend {
    EDDY_BACKEND_CPU = 0, /**< OpenMP on the CPU; the reference */
    EDDY_BACKEND_CUDA     /**< NVIDIA GPU, when compiled in */
} eddy_backend;

typedef struct eddy_pressure_def {
    eddy_pressure_solver solver; /**< default MGPCG */
    float tolerance;             /**< relative residual |r|/|b| to stop at; default 1e-6 (MGPCG, RBGS) */
    int max_iterations;          /**< 0 = solver default (MGPCG 200, RBGS 20000); Jacobi runs exactly this many (default 60) */
    float omega;                 /**< RBGS over-relaxation in (0,2); 0 = 1 (plain Gauss-Seidel) */
    int warm_start;              /**< MGPCG only: 1 = start from the last step's pressure (scaled to this dt) instead of
                                      0; the tolerance stays relative to |b|, so fewer iterations reach it. Default 0 */
} eddy_pressure_def;

/** Everything needed to create a simulation. Start from `eddy_sim_def_default()`. */
typedef struct eddy_sim_def {
    int dim;             /**< 2 or 3; default 2 */
    int grid[3];         /**< velocity cells per axis, >= 3 each (grid[2] ignored in 2D); default 128 x 128 x 1 */
    float size[3];       /**< domain size in metres; size[0] > 0 sets the cell size h = size[0]/grid[0];
                              size[1], size[2] may be 0 (derived) or must equal grid[i]*h; h must be 1e-9 .. 1e9 m;
                              default 1 x 0 x 0 */
    float origin[3];     /**< world position of the domain's minimum corner, m; default 0 */
    float dt;            /**< fixed time step, s; 0 = CFL-limited (default) */
    float cfl;           /**< CFL number for the limited step (max speed * dt / h); default 1 */
    float max_dt;        /**< upper bound of the CFL-limited step, s; default 0.05 */
    float viscosity;     /**< kinematic viscosity, m^2/s; 0 (default) skips the viscous solve */
    float density;       /**< fluid density, kg/m^3, scales the reported pressure; default 1 */
    eddy_advection advection;         /**< default MacCormack */
    eddy_pressure_def pressure;
    float vorticity;                  /**< vorticity confinement epsilon (dimensionless, scaled by h); default 0 */
    float velocity_dissipation;       /**< 1/s, u *= 1/(1 + k dt) each step; default 0 */
    float dye_dissipation;            /**< 1/s; default 0 */
    float temperature_dissipation;    /**< 1/s; default 0 */
    float dye_diffusion;              /**< m^2/s, implicit; default 0 */
    float temperature_diffusion;      /**< m^2/s, implicit; default 0 */
    float gravity[3];                 /**< m/s^2; default (0, -9.81, 0) */
    float buoyancy_density;           /**< alpha: dye density (sum of RGB) pulls along gravity, f = alpha*d*g; default 0 */
    float buoyancy_temperature;       /**< beta: temperature lifts against gravity, f = -beta*(T - T_amb)*g; default 0 */
    float ambient_temperature;        /**< T_amb; default 0 */
    int dye_scale[3];                 /**< scalar grid refinement per axis (dye, temperature); default 1 */
    eddy_boundary boundary[6];        /**< per face, order of eddy_face; default free-slip walls */
    int threads;                      /**< OpenMP threads; 0 = OpenMP default */
    eddy_backend backend;             /**< default CPU */
} eddy_sim_def;

/** Named stages of a step, for timing. */
typedef enum eddy_stage {
    EDDY_STAGE_SOURCES = 0, EDDY_STAGE_FORCES, EDDY_STAGE_ADVECT, EDDY_STAGE_DIFFUSE,
    EDDY_STAGE_PROJECT, EDDY_STAGE_BOUNDARY, EDDY_STAGE_DIAGNOSTICS, EDDY_STAGE_COUNT
} eddy_stage;

/** What the last step did. Divergence is in 1/s (discrete, per cell), energy in J/kg * m^d (0.5 sum |u|^2 cell volume). */
typedef struct eddy_step_stats {
    long step;                 /**< steps taken so far */
    double time;               /**< simulated time, s */
    float dt;                  /**< last step's dt, s */
    float max_div;             /**< max |div u| over fluid cells, 1/s */
    float rms_div;             /**< RMS div u over fluid cells, 1/s */
    double kinetic_energy;     /**< 0.5 * sum |u|^2 * cell volume, m^(d+2)/s^2 */
    double dye_total;          /**< sum of R+G+B dye times scalar cell volume */
    float max_speed;           /**< m/s */
    float cfl;                 /**< max_speed * dt / h */
    int pressure_iterations;   /**< iterations of the last pressure solve */
    float pressure_residual;   /**< final relative residual |r|/|b| (0 when b = 0) */
    float pressure_residual_initial; /**< initial relative residual (1 unless warm-started) */
    double stage_ms[EDDY_STAGE_COUNT];
    double step_ms;
} eddy_step_stats;

/** Shapes of obstacles and emitters. */
typedef enum eddy_shape {
    EDDY_SHAPE_SPHERE = 0, /**< circle in 2D: center, radius */
    EDDY_SHAPE_BOX,        /**< axis-aligned: center, half_size */
    EDDY_SHAPE_CAPSULE,    /**< segment center +- axis, radius */
    EDDY_SHAPE_SDF         /**< user signed distance callback; negative inside */
} eddy_shape;

/** Signed distance at world position p (metres, negative inside). Must be pure: it is called from several threads. */
typedef float (*eddy_sdf_fn)(const float p[3], void *user);

typedef struct eddy_obstacle_def {
    eddy_shape shape;
    float center[3];   /**< m */
    float radius;      /**< m (sphere, capsule) */
    float half_size[3];/**< m (box) */
    float axis[3];     /**< m, capsule half-segment: ends at center +- axis */
    float velocity[3]; /**< m/s imposed on the fluid at the solid boundary */
    eddy_sdf_fn sdf;   /**< EDDY_SHAPE_SDF only */
    void *sdf_user;
} eddy_obstacle_def;

typedef struct eddy_emitter_def {
    eddy_shape shape;  /**< sphere or box */
    float center[3], radius, half_size[3];
    float dye[3];         /**< dye added per second inside */
    float temperature;    /**< temperature added per second inside, K/s */
    float velocity[3];    /**< m/s imposed inside when set_velocity is nonzero */
    int set_velocity;
} eddy_emitter_def;

/** A Gaussian splat: weight exp(-d^2 / r^2). The classic WebGL demo's `radius` is r^2 in its normalised units. */
typedef struct eddy_splat {
    float position[3]; /**< m */
    float radius;      /**< m */
    float velocity[3]; /**< m/s added at the centre */
    float dye[3];      /**< dye added at the centre */
    float temperature; /**< added at the centre */
} eddy_splat;

/** Fields readable and writable through the API. */
typedef enum eddy_field {
    EDDY_FIELD_U = 0,     /**< x velocity on x-faces: (nx+1) x ny x nz */
    EDDY_FIELD_V,         /**< y velocity on y-faces: nx x (ny+1) x nz */
    EDDY_FIELD_W,         /**< z velocity on z-faces: nx x ny x (nz+1) (3D only) */
    EDDY_FIELD_PRESSURE,  /**< Pa at cell centres */
    EDDY_FIELD_DYE_R, EDDY_FIELD_DYE_G, EDDY_FIELD_DYE_B, /**< on the scalar grid */
    EDDY_FIELD_TEMPERATURE, /**< on the scalar grid */
    EDDY_FIELD_SOLID,     /**< 1 in solid cells, 0 in fluid (read only) */
    EDDY_FIELD_DIVERGENCE,/**< div u, 1/s, cell centres (read only, computed) */
    EDDY_FIELD_VORTICITY, /**< 2D: scalar curl at cell centres; 3D: |curl|  (read only, computed) */
    EDDY_FIELD_SPEED,     /**< |u| at cell centres (read only, computed) */
    EDDY_FIELD_COUNT
} eddy_field;

/** Where a field's values are. Element (i,j,k) is data[i + n[0]*(j + n[1]*k)] (x fastest),
 *  at world position origin + (i,j,k) * spacing. */
typedef struct eddy_field_layout {
    int n[3];
    float spacing[3];  /**< m */
    float origin[3];   /**< world position of element (0,0,0), m */
    size_t count;      /**< n[0]*n[1]*n[2] */
} eddy_field_layout;

typedef uint32_t eddy_id; /**< obstacle / emitter handle; 0 is never valid */

#ifdef __cplusplus
}
#endif
#endif
