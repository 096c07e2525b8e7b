/* Internal layout of a simulation, shared by the stage files. Not installed.
 *
 * MAC grid (Harlow & Welch 1965): n[0] x n[1] x n[2] velocity cells of size h (n[2] = 1 in 2D).
 *   vel[0] (u) on x-faces: (n0+1) x n1 x n2, face (i,j,k) at x = i*h,       y = (j+.5)h, z = (k+.5)h
 *   vel[1] (v) on y-faces: n0 x (n1+1) x n2
 *   vel[2] (w) on z-faces: n0 x n1 x (n2+1), NULL in 2D
 *   pressure, solid, solid_vel at cell centres: n0 x n1 x n2
 *   dye[3], temperature on the scalar grid: sn[a] = n[a]*dye_scale[a] cells of size sh[a] = h/dye_scale[a].
 * Arrays are x-fastest: element (i,j,k) at i + nx*(j + ny*k). Positions above are relative to `origin`.
 * Periodic axis a: faces 0 and n[a] of component a are the same face and are kept equal.
 *
 * Determinism: parallel loops split over rows (j,k); reductions store one partial per row and sum the
 * partials serially, so results do not depend on the thread count. */
#ifndef EDDY_SIM_INTERNAL_H
#define EDDY_SIM_INTERNAL_H

#include "balance.h"
#include "eddy/eddy.h"
#include "vector_isa.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <omp.h>

/* threads for `#pragma omp parallel for num_threads(EDDY_THREADS(s))` */
#define EDDY_THREADS(s) ((s)->def.threads > 0 ? (s)->def.threads : omp_get_max_threads())

enum { EDDY_CELL_FLUID = 0, EDDY_CELL_SOLID = 1 };

typedef struct eddy_obstacle {
    eddy_id id;
    eddy_obstacle_def def;
} eddy_obstacle;

/* a face touching a solid cell and the velocity the solid imposes on it (see eddy__update_solid_faces) */
typedef struct eddy_solid_face {
    size_t index;  /* into vel[axis] */
    int axis;
    float value;   /* m/s */
} eddy_solid_face;

typedef struct eddy_emitter {
    eddy_id id;
    eddy_emitter_def def;
} eddy_emitter;

typedef struct eddy_poisson eddy_poisson;       /* pressure solver workspace (project.c / poisson_*.c) */
typedef struct eddy_advect_ws eddy_advect_ws;   /* advection scratch (advect.c) */
typedef struct eddy_diffuse_ws eddy_diffuse_ws; /* implicit diffusion scratch (diffuse.c) */
typedef struct eddy_backend_ops eddy_backend_ops; /* non-CPU backend hooks (backend.c, src/cuda/) */

struct eddy_sim {
    eddy_sim_def def;
    int dim;
    int n[3];             /* velocity cells per axis (n[2] = 1 in 2D) */
    float h;              /* cell size, m */
    float origin[3];
    int sn[3];            /* scalar grid cells per axis */
    float sh[3];          /* scalar grid cell size per axis, m */
    size_t ncells;        /* n0*n1*n2 */
    size_t nface[3];      /* elements of vel[a] (0 for absent) */
    size_t nscalar;       /* sn0*sn1*sn2 */
    bool periodic[3];     /* axis periodic */
    bool avx2;            /* run the AVX2 builds of the row kernels (vector_isa.h); same bits either way */
    bool avx512;          /* with avx2: the AVX-512 builds where a kernel has one (vector_isa.h); same bits */

    float *vel[3];        /* face velocities, m/s */
    float *vel_tmp[3];    /* scratch of the same size (advection output, projection) */
    float *pressure;      /* solver units until converted: see project.c */
    float *dye[3];
    float *temperature;
    float *scalar_tmp;    /* scratch, nscalar */
    uint8_t *solid;       /* cell type per velocity cell (EDDY_CELL_*) from mask + obstacles */
    uint8_t *user_mask;   /* static solid cells given by the user, may be NULL */
    float *solid_vel[3];  /* velocity of the solid in solid cells, m/s */
    eddy_solid_face *solid_faces; /* interior faces touching solid cells, rebuilt when the solids are rasterised */
    size_t solid_face_count, solid_face_cap;
    float *cell_scratch;  /* 8 x ncells floats, allocated on first use by vorticity.c / fields.c */
    double *row_partial;  /* 4 slots per row (rows: n1*n2 or sn1*sn2, the larger), for deterministic reductions */
    double *diag_partial; /* per-row partials of the diagnostics, allocated on first use (diagnostics.c) */
    float *forces_scratch; /* buoyancy's axis tables, confinement's slab rings; grown on use (forces.c) */
    size_t forces_scratch_floats;
    eddy_balance vort_balance;   /* confinement's blocks of planes per thread, by the threads' speeds (vorticity.c) */
    bool even_blocks;            /* benches and tests: even blocks instead of balance.h's */

    eddy_obstacle *obstacles;
    int obstacle_count, obstacle_cap;
    eddy_emitter *emitters;
    int emitter_count, emitter_cap;
    eddy_id next_id;

    double time;
    long step;
    eddy_step_stats stats;
    char error[512];

    eddy_poisson *poisson;
    eddy_advect_ws *advect;
    eddy_diffuse_ws *diffuse;

    const eddy_backend_ops *backend_ops; /* NULL on the CPU backend */
    void *backend;                       /* the backend's own state */
    unsigned mask_version;               /* bumped when user_mask changes, so a backend knows to resend it */
    bool solids_stale;                   /* obstacles or the mask changed since the last rasterisation */
};

/* ---- indexing ---- */
static inline size_t eddy__idx(const int n[3], int i, int j, int k) {
    return (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
}
/* dimensions of face component a */
static inline void eddy__face_dims(const eddy_sim *s, int a, int fn[3]) {
    fn[0] = s->n[0] + (a == 0);
    fn[1] = s->n[1] + (a == 1);
    fn[2] = s->n[2] + (a == 2);
}
static inline int eddy__wrap(int i, int n) { i %= n; return i < 0 ? i + n : i; }
static inline int eddy__clampi(int i, int lo, int hi) { return i < lo ? lo : (i > hi ? hi : i); }

/* ---- errors (sim.c) ---- */
eddy_status eddy__fail(eddy_sim *s, eddy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
double eddy__now_ms(void);
/* writes a message into a caller's buffer (may be NULL) and returns EDDY_ERR_INVALID_ARGUMENT: the error path of
 * functions that run before an object exists (definition checks) */
eddy_status eddy__def_error(char *msg, size_t msg_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- grid.c: sampling on staggered grids ----
 * Samples array `data` of dims `n` whose element (i,j,k) sits at origin + (i+off[0], j+off[1], k+off[2]) * spacing.
 * Trilinear (bilinear when n[2] == 1). Coordinates clamp to the sample range, or wrap along periodic axes
 * with `period` cells (period[a] = number of distinct samples along a). */
typedef struct eddy_grid_desc {
    const float *data;
    int n[3];
    float off[3];
    float spacing[3];
    float origin[3];
    bool periodic[3];
    int period[3];
} eddy_grid_desc;
/* The coordinate, in samples of scalar grid sg, of index i along axis b of face grid fg (both from the simulation:
 * the same origin, sg k times finer per cell, fg->period[b] its cells): (i + off) k - off_s, exact in float
 * (integers and halves). Through the world position (origin + (i + off) h, then over h / k) it rounds wherever h is
 * not a power of two, so that faces which sit on a scalar sample got a weight of ~1e-7 instead of 0. */
static inline float eddy__face_sample_coord(const eddy_grid_desc *fg, const eddy_grid_desc *sg, int b, int i) {
    const int k = sg->n[b] / fg->period[b];
    return ((float)i + fg->off[b]) * (float)k - sg->off[b];
}
eddy_grid_desc eddy__velocity_desc(const eddy_sim *s, int a, const float *data);
eddy_grid_desc eddy__scalar_desc(const eddy_sim *s, const float *data);
eddy_grid_desc eddy__cell_desc(const eddy_sim *s, const float *data);
float eddy__sample(const eddy_grid_desc *g, const float p[3]);
/* samples min and max of the 2^d nodes around p (for clamped MacCormack/BFECC) */
float eddy__sample_minmax(const eddy_grid_desc *g, const float p[3], float *lo, float *hi);
/* velocity at world position p from the face arrays `vel` */
void eddy__sample_vel(const eddy_sim *s, float *const vel[3], const float p[3], float out[3]);
/* world position of element (i,j,k) of a grid */
static inline void eddy__grid_pos(const eddy_grid_desc *g, int i, int j, int k, float p[3]) {
    p[0] = g->origin[0] + ((float)i + g->off[0]) * g->spacing[0];
    p[1] = g->origin[1] + ((float)j + g->off[1]) * g->spacing[1];
    p[2] = g->origin[2] + ((float)k + g->off[2]) * g->spacing[2];
}

/* ---- stages; each returns EDDY_OK or fails through eddy__fail ---- */
/* sources.c */
eddy_status eddy__apply_splat(eddy_sim *s, const eddy_splat *sp);
/* The refusal of a splat that would overflow a value to infinity: component -1 for the dye and temperature, else the
 * velocity component (the same words for every backend; the fields are left untouched). */
eddy_status eddy__splat_overflow(eddy_sim *s, const eddy_splat *sp, int component);
/* Whether a splat's amounts are large enough (|amount| >= 2^103) that adding it to finite fields could overflow;
 * only then do the backends run the dry run that eddy__splat_overflow reports. */
bool eddy__splat_may_overflow(const eddy_splat *sp, int dim);
eddy_status eddy__apply_emitters(eddy_sim *s, float dt);
/* forces.c: buoyancy; vorticity.c: confinement */
eddy_status eddy__apply_buoyancy(eddy_sim *s, float dt);
eddy_status eddy__apply_vorticity(eddy_sim *s, float dt);
/* s->forces_scratch with at least `floats` floats, or NULL (and the error set) when out of memory */
float *eddy__forces_scratch(eddy_sim *s, size_t floats);
/* advect.c: velocity (self-advection) and every scalar, with dissipation */
eddy_status eddy__advect_init(eddy_sim *s);
void eddy__advect_free(eddy_sim *s);
eddy_status eddy__advect(eddy_sim *s, float dt);
/* diffuse.c: implicit viscosity and scalar diffusion (backward Euler) */
eddy_status eddy__diffuse_init(eddy_sim *s);
void eddy__diffuse_free(eddy_sim *s);
eddy_status eddy__diffuse(eddy_sim *s, float dt);
/* project.c: pressure projection; fills stats pressure_* fields */
eddy_status eddy__project_init(eddy_sim *s);
void eddy__project_free(eddy_sim *s);
eddy_status eddy__project(eddy_sim *s, float dt);
/* both backends: a pressure scale density h / dt that overflows float (EDDY_ERR_NON_FINITE naming the values, before
 * anything is written), and red-black SOR stopped diverging (omega > 1 on a periodic axis of odd length, whose
 * first and last cells share a colour): the message, the stats; the velocity and pressure stay as they were */
eddy_status eddy__pressure_scale_check(eddy_sim *s, float dt);
eddy_status eddy__rbgs_diverged(eddy_sim *s, float omega, int iterations, double rel);
/* obstacles.c: rasterise mask + obstacles into solid / solid_vel */
eddy_status eddy__rasterize_solids(eddy_sim *s);
/* Rasterises the solids if obstacles or the mask changed since the last time: add, move and remove of analytic
 * shapes and set_solid_mask only mark them stale, so a game moving many obstacles per frame pays for one pass over
 * the grid, not one per call. Every reader of solid / solid_vel / the solid faces comes through here first (the
 * step, project, diagnostics, splat, eddy__fetch of EDDY_SYNC_SOLID). */
eddy_status eddy__solids_current(eddy_sim *s);
/* rebuilds the list of interior faces touching solid cells (and their imposed velocity) from solid/solid_vel */
eddy_status eddy__update_solid_faces(eddy_sim *s);
float eddy__shape_sdf(eddy_shape shape, const float center[3], float radius, const float half_size[3],
                      const float axis[3], eddy_sdf_fn fn, void *user, const float p[3], int dim);
/* boundary.c: domain faces and solid faces on the velocity; scalar inflow values */
void eddy__apply_velocity_boundaries(eddy_sim *s);
void eddy__apply_scalar_boundaries(eddy_sim *s);
/* true when face (i,j,k) of component a is fixed (domain wall/inflow or touches a solid cell); its value
 * then is the prescribed one and the projection does not change it */
bool eddy__face_fixed(const eddy_sim *s, int a, int i, int j, int k);
/* vorticity.c: cell-centred helpers shared with fields.c */
eddy_status eddy__ensure_cell_scratch(eddy_sim *s);
void eddy__cell_velocity(eddy_sim *s, float *uc[3]);
void eddy__cell_vorticity(eddy_sim *s, float *const uc[3], float *om[3], float *mag);
/* ---- backends (backend.c; CUDA in src/cuda/) ----
 * A simulation on a device backend keeps its fields on the device. The host arrays above stay allocated as
 * mirrors: `fetch` refreshes the mirrors of the given fields before host code reads them, `upload` sends the
 * mirrors that host code changed. The other hooks replace the CPU code they are named after. */
enum {
    EDDY_SYNC_SOLID = 1u << EDDY_FIELD_SOLID, /* solid and solid_vel */
    EDDY_SYNC_VELOCITY = (1u << EDDY_FIELD_U) | (1u << EDDY_FIELD_V) | (1u << EDDY_FIELD_W),
    EDDY_SYNC_ALL = EDDY_SYNC_VELOCITY | (1u << EDDY_FIELD_PRESSURE) | (1u << EDDY_FIELD_DYE_R) |
                    (1u << EDDY_FIELD_DYE_G) | (1u << EDDY_FIELD_DYE_B) | (1u << EDDY_FIELD_TEMPERATURE) | EDDY_SYNC_SOLID
};
struct eddy_backend_ops {
    const char *name;
    void (*destroy)(eddy_sim *s);
    eddy_status (*step)(eddy_sim *s, float dt); /* the whole step_dt: stages, time, step count, stats */
    eddy_status (*project)(eddy_sim *s);        /* eddy_sim_project */
    eddy_status (*diagnostics)(eddy_sim *s, float dt);
    float (*max_face_speed)(eddy_sim *s);       /* max |u_face| over every component, for the CFL step */
    eddy_status (*splat)(eddy_sim *s, const eddy_splat *sp, const float center[3]); /* already validated */
    eddy_status (*rasterize)(eddy_sim *s);      /* eddy__rasterize_solids */
    eddy_status (*fetch)(eddy_sim *s, unsigned fields);  /* EDDY_SYNC_* / 1 << eddy_field bits */
    eddy_status (*upload)(eddy_sim *s, unsigned fields);
};
/* attaches the backend named by def.backend (nothing for the CPU); called last in eddy_sim_create */
eddy_status eddy__backend_attach(eddy_sim *s);
/* no-ops on the CPU backend */
eddy_status eddy__fetch(eddy_sim *s, unsigned fields);
eddy_status eddy__upload(eddy_sim *s, unsigned fields);
/* the CPU rasterisation, also the fallback of backends for SDF callbacks */
eddy_status eddy__rasterize_solids_cpu(eddy_sim *s);

/* diagnostics.c */
eddy_status eddy__diagnostics(eddy_sim *s, float dt);
float eddy__cell_divergence(const eddy_sim *s, int i, int j, int k);
/* computes the CFL-limited (or fixed) dt */
float eddy__choose_dt(eddy_sim *s);
/* fields a stage may change, for eddy__check_finite */
enum {
    EDDY_CHECK_VELOCITY = 1u << 0,
    EDDY_CHECK_PRESSURE = 1u << 1,
    EDDY_CHECK_DYE = 1u << 2,
    EDDY_CHECK_TEMPERATURE = 1u << 3,
    EDDY_CHECK_ALL = 0xfu
};
/* checks the fields in `fields` (EDDY_CHECK_*) for NaN/Inf; fails naming the stage */
eddy_status eddy__check_finite(eddy_sim *s, eddy_stage stage, unsigned fields);

#endif
