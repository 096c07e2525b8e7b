/* The CUDA backend's state (one per simulation) and the stage launchers each k_*.cu file provides.
 * Launchers queue kernels on the simulation's stream and return cudaSuccess or the first launch error; they never
 * wait for the device unless their comment says so (the pressure solve reads its residual back). */
#ifndef EDDY_CU_SIM_CUH
#define EDDY_CU_SIM_CUH

#include "cu_common.cuh"

namespace ecu {

/* Per-step non-finite check slots, in the order the step runs its stages (see backend.cu). */
enum Slot {
    SLOT_SOURCES = 0, SLOT_BOUNDARY1, SLOT_FORCES, SLOT_ADVECT, SLOT_BOUNDARY2, SLOT_DIFFUSE, SLOT_BOUNDARY3,
    SLOT_PROJECT, SLOT_BOUNDARY4, SLOT_DIAGNOSTICS, SLOT_API, SLOT_COUNT
};

/* Results reduced on the device and read back once per step. */
enum Red {
    R_MAXDIV = 0, R_SUMDIV2, R_MAXSPEED2, R_FLUID, R_ENERGY0, R_ENERGY1, R_ENERGY2, R_MAXFACE0, R_MAXFACE1, R_MAXFACE2,
    R_DYE, R_MAXVEL, /* max |u_face| for the CFL step */
    R_CG_BNORM2, R_CG_RNORM2, R_CG_ITER, R_CG_RES, R_CG_RES0, R_CG_INIT2, /* INIT2: |b - A x0|^2 */
    R_SCRATCH0, R_COUNT = 48
};
struct Readback {
    double red[R_COUNT];
    int flags[SLOT_COUNT];
    unsigned diag_done; /* k_diag blocks done in the launch under way (0 between launches: the last one resets it) */
    int splat_overflow[4]; /* a splat's dry run: nonzero where its scalars (0) or velocity component a (1 + a) would
                              overflow to infinity */
};

struct AdvectWS;
/* 16M cells: where k_prolong8 starts to win on the H100 (k_project.cu, cuda_notes 84) */
#define PROLONG8_CELLS (16LL << 20)

struct PoissonWS;
struct DiffuseWS;

struct cu_sim {
    eddy_sim *s;
    Geo g;
    int device;
    cudaStream_t stream;
    size_t ncells, nface[3], nscalar;

    float *vel[3], *vel_tmp[3], *pressure, *dye[3], *temp, *scalar_tmp;
    uint8_t *solid, *user_mask;
    float *solid_vel[3];
    int buoy_unit[3];      /* buoyancy of component a: 1 every face on its scalar column (k_buoyancy_unit), -1 not,
                              0 not checked yet (the geometry is fixed at creation) */
    int diag_blocks;   /* k_diag's blocks: those resident on the device, 0 until set up */
    int vort_slots[2]; /* vorticity confinement [solid cells]: warps (2D) or blocks (3D) of its kernel resident on the
                          device, 0 until the kernel is set up */

    DShape *obst;           /* device copy of the obstacle list (the emitters go by value, cuda_notes 124) */
    int obst_cap;
    DShape *stage_shapes;   /* host staging for the obstacle and emitter lists */
    int stage_cap;
    DShape *raster_sig;     /* obstacles of the last device rasterisation (it is skipped when they repeat) */
    int raster_n, raster_cap, raster_valid;

    double *partials;       /* block partials of reductions: R_COUNT slots of partial_stride */
    size_t partial_stride;
    Readback *d_rb, *h_rb;  /* device results, pinned host copy */

    unsigned host_valid;    /* EDDY_SYNC_* bits whose host mirror equals the device */
    unsigned mask_version;  /* eddy_sim.mask_version last sent */
    int slot;               /* current non-finite slot (SLOT_*) */
    unsigned scalar_live;   /* bit f (dye r, g, b, temperature): the field may be nonzero (else advection and
                               diffusion skip it, as the CPU skips fields that are exactly zero) */

    cudaEvent_t ev[16];     /* 0..10: stage boundaries of a step; 14, 15: eddy__cuda_sync_ms */
    int sync_started;
    AdvectWS *adv;
    int adv_feet;           /* advection's first pass keeps range / feet for the later ones (default 1, k_advect.cu) */
    long long prolong8_cells; /* 3D levels of at least this many cells prolong by coarse cell (k_prolong8) and compute
                                 the residual by columns (k_residual_wz); default PROLONG8_CELLS, lowered by the tests */
    int fused_end;          /* MGPCG's end in one pass (k_pressure_correct) where it applies (default 1) */
    PoissonWS *pois;
    DiffuseWS *dif;
};

inline Flags flags_for(cu_sim *c) { Flags f; f.word = c->slot >= 0 ? &c->d_rb->flags[c->slot] : nullptr; return f; }
inline Vel vel_of(cu_sim *c) { Vel v; for (int a = 0; a < 3; a++) v.c[a] = c->vel[a]; return v; }
/* whether any cell can be solid: without obstacles or a user mask none is */
inline bool any_solid(const cu_sim *c) { return c->s->obstacle_count > 0 || c->s->user_mask != nullptr; }

/* reduces `nblocks` partials of each listed slot (op per slot) into d_rb->red[slot] */
cudaError_t finalize_reductions(cu_sim *c, const int *slots, const int *ops, int count, size_t nblocks);

/* k_solids.cu: solid / solid_vel from the user mask and the analytic obstacles (SDF callbacks: see backend.cu) */
cudaError_t launch_rasterize(cu_sim *c, int obstacle_count);
/* k_sources.cu */
/* k_sources.cu: a splat, after a dry run that refuses one that would overflow a value to infinity (waits for the
 * device to read the dry run's flags back): *overflow_at is then -1 (scalars) or the velocity component and nothing
 * is written; -2 when the splat was added */
cudaError_t launch_splat(cu_sim *c, const eddy_splat *sp, const float center[3], int *overflow_at);
cudaError_t launch_emitters(cu_sim *c, int emitter_count, float dt);
/* k_boundary.cu */
cudaError_t launch_velocity_boundaries(cu_sim *c);
cudaError_t launch_scalar_boundaries(cu_sim *c);
/* face layer n of periodic component a repeats layer 0 */
cudaError_t launch_periodic_copy(cu_sim *c, int a);
/* k_forces.cu */
cudaError_t launch_buoyancy(cu_sim *c, float dt);
cudaError_t launch_vorticity(cu_sim *c, float dt);
/* k_diagnostics.cu: leaves the figures in d_rb->red */
cudaError_t launch_diagnostics(cu_sim *c);
cudaError_t launch_max_face(cu_sim *c);
/* k_advect.cu */
eddy_status advect_init(cu_sim *c);
void advect_free(cu_sim *c);
cudaError_t launch_advect(cu_sim *c, float dt);
/* k_diffuse.cu */
eddy_status diffuse_init(cu_sim *c);
void diffuse_free(cu_sim *c);
cudaError_t launch_diffuse(cu_sim *c, float dt);
/* k_project.cu: the pressure solve waits for its residual (or, deferred, leaves that to the step: run_project);
 * fills iterations and residuals into eddy_step_stats */
eddy_status project_init(cu_sim *c);
void project_free(cu_sim *c);
/* defer_end (the step): where the device decides the solve's end itself (2D, cuda_notes 120), return without waiting
 * for it; after the step's read-back, project_resume runs a refinement if one is due (*redo: the stages after the
 * projection are to be queued again) */
eddy_status run_project(cu_sim *c, float dt, bool defer_end = false);
eddy_status project_resume(cu_sim *c, int *redo);
/* after the results are read back (Readback): pressure iterations and residuals into the step's statistics */
void finish_project_stats(cu_sim *c);
/* 0: launch the MGPCG kernels one by one (the host polls convergence); 1: CUDA graphs (default) */
void advect_use_cells(cu_sim *c, int on);
void project_use_graphs(cu_sim *c, int on);
void project_set_prolong8_cells(cu_sim *c, long long cells);
void project_set_fused_end(cu_sim *c, int on);

/* device allocation that fails through eddy__fail with the size and what it was for */
eddy_status dev_alloc(cu_sim *c, void **p, size_t bytes, const char *what);
/* names a CUDA error on the simulation */
eddy_status cuda_fail(cu_sim *c, cudaError_t e, const char *what);

} /* namespace ecu */

#endif
