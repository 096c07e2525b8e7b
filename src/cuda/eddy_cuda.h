/* The CUDA backend's entry points, with C linkage (implemented in src/cuda/backend.cu).
 * libeddy calls eddy__cuda_attach from eddy_sim_create when def.backend is EDDY_BACKEND_CUDA; tests and the
 * CUDA bench also use the stage entry below to run and time single stages. */
#ifndef EDDY_CUDA_H
#define EDDY_CUDA_H

#include "eddy/eddy.h"

#ifdef __cplusplus
extern "C" {
#endif

struct eddy_sim;

/* number of CUDA devices (0 when the driver or device is missing) */
int eddy__cuda_device_count(void);
/* 1 when a device is usable; msg receives its description or why not */
int eddy__cuda_describe(char *msg, size_t msg_size);
/* allocates the device fields, uploads the host state and installs the backend hooks */
eddy_status eddy__cuda_attach(struct eddy_sim *s);

/* Single stages for tests and benchmarks (device fields in, device fields out, no host copies). */
typedef enum eddy_cuda_stage {
    EDDY_CUDA_RASTERIZE = 0,
    EDDY_CUDA_EMITTERS,
    EDDY_CUDA_BOUNDARIES,
    EDDY_CUDA_BUOYANCY,
    EDDY_CUDA_VORTICITY,
    EDDY_CUDA_ADVECT,
    EDDY_CUDA_DIFFUSE,
    EDDY_CUDA_PROJECT,
    EDDY_CUDA_DIAGNOSTICS,
    EDDY_CUDA_STAGE_COUNT
} eddy_cuda_stage;
eddy_status eddy__cuda_run_stage(struct eddy_sim *s, eddy_cuda_stage stage, float dt);
/* 1 (default): the MGPCG solve runs as CUDA graphs with a device-side loop; 0: kernel by kernel, the host polling
 * convergence each iteration (same results; for tests and timing comparisons) */
eddy_status eddy__cuda_set_graphs(struct eddy_sim *s, int on);
/* 1 (default): the first pass keeps what the later passes need (MacCormack: the velocity limiter's min and max,
 * 8 B per element of the largest grid; BFECC in 3D: the backward feet, 12 B); 0: the later passes trace again
 * (same results; for tests and timing) */
eddy_status eddy__cuda_set_advect_feet(struct eddy_sim *s, int on);
/* 1 (default): 3D MacCormack advects a cell's three faces (and the dye_scale-1 scalars) in one kernel where the
 * device has room for its scratch (8 arrays of the largest face grid); 0: one kernel per component, as on a device
 * without that room (same results; for tests and timing) */
eddy_status eddy__cuda_set_advect_cells(struct eddy_sim *s, int on);
/* 3D levels of at least `cells` cells (default 16M) prolong coarse cell by coarse cell (k_prolong8) instead of fine
 * cell by fine cell, and compute the V-cycle's residual by columns of cells (k_residual_wz): the same results; the
 * tests lower it so that small grids run those kernels */
eddy_status eddy__cuda_set_prolong8_cells(struct eddy_sim *s, long long cells);
/* 1 (default): MGPCG's end (pressure, mean removal, velocity correction) in one pass where there is no periodic axis
 * and one component holds every solved cell; 0: the separate passes (the same results; for tests and timing) */
eddy_status eddy__cuda_set_fused_end(struct eddy_sim *s, int on);
/* waits for the device and returns the milliseconds since the previous call (events on the sim's stream) */
double eddy__cuda_sync_ms(struct eddy_sim *s);

#ifdef __cplusplus
}
#endif
#endif
