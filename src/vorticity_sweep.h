/* Vorticity confinement's sweep (vorticity.c): its geometry, the layout of its per-thread scratch and the sweep
 * kernels, built once per vector width (vorticity_sweep.c, float_vector.h, vector_isa.h). */
#ifndef EDDY_VORTICITY_SWEEP_H
#define EDDY_VORTICITY_SWEEP_H

#include "sim_internal.h"

#include <math.h>

/* Scratch rows: every row of a ring holds a row of n0 cells at offset EDDY_VORT_PAD (64-byte aligned) with room for
 * one halo cell on each side, and whole vectors of the widest build past its end. */
enum { EDDY_VORT_PAD = 16 };

/* The CUDA kernels' constants (src/cuda/vort_tile.cuh): they follow the formulas in physical units, with the cell
 * velocities carried doubled. The gradient's cut-off there: 1e-20f doubled exactly. */
#define EDDY_VORT_CUT (2.0f * 1e-20f)

/* The spacings (float)span * h for spans 1 and 2 and their reciprocals ([0] unused: n >= 3), 0.5 eps h and 0.5 dt.
 * Returns whether the reciprocals are exact (h a power of two). */
static inline bool eddy__vort_step_constants(float h, float eps, float dt, float den[3], float rcp[3], float *hscale,
                                             float *hdt) {
    bool mul = true;
    den[0] = rcp[0] = 0.0f;
    for (int span = 1; span <= 2; span++) {
        int e;
        den[span] = (float)span * h;
        rcp[span] = 1.0f / den[span];
        mul = mul && frexpf(den[span], &e) == 0.5f && isnormal(den[span]) && isnormal(rcp[span]);
    }
    *hscale = 0.5f * (eps * h);
    *hdt = 0.5f * dt;
    return mul;
}

/* The CPU sweep's constants, in its units (vorticity.c): the cut-off of |g| below which the gradient counts as
 * vanished, and the factor of the force, eps dt / 8. */
#define EDDY_VORT_SWEEP_CUT 1e-20f
static inline float eddy__vort_sweep_scale(float eps, float dt) { return 0.125f * (eps * dt); }

/* Rings of slots, each slot a slab (2D: one row; 3D: the rows of one band of a plane), per thread:
 *   2D: uc0 3, uc1 2, wz 2, |w| 3, fy 2, then one row for fx and one for the x factors;
 *   3D: w (three components) 2 x 3, |w| 3, fz 1, then rows: uc0 3, uc1 2, uc2 3, fy 2, fx 1, x factors 1. */
enum { EDDY_VORT_SLOTS2 = 3 + 2 + 2 + 3 + 2, EDDY_VORT_SLOTS3 = 2 * 3 + 3 + 1, EDDY_VORT_ROWS3 = 3 + 2 + 3 + 2 + 1 + 1 };

typedef struct eddy_vort_sweep {
    int n0, n1, n2, ns; /* ns: slabs along the sweep axis (n1 in 2D, n2 in 3D) */
    bool px, py, ps;    /* periodic x, y, sweep axis */
    float scale;        /* eps dt / 8 (eddy__vort_sweep_scale) */
    bool stream;        /* write the new faces past the caches where rows allow (the grid is larger than they are) */
    /* scratch layout, in floats */
    size_t stride;      /* of a row: a multiple of EDDY_VORT_PAD */
    int bands;          /* 3D: bands of rows the planes are cut into (so that the rings stay in the L2 cache) */
    int band_rows;      /* 3D: rows a slot holds (the most rows of a band with its halo) */
    size_t slot;        /* floats of a slot, a little more than its rows (64 bytes against 4K aliasing) */
    size_t per_thread;  /* floats of a thread's scratch, 64-byte alignment slack included */
} eddy_vort_sweep;

/* Fills the layout fields of w (geometry set) for rings that fit in about `budget` bytes per thread, with bands of
 * at least `min_rows` rows. */
void eddy__vort_layout(eddy_vort_sweep *w, int dim, size_t budget, int min_rows);

/* how the sweep lays out its work: the library's choice (eddy__vort_default_options), or any other for tests (same
 * bits whatever the choice) */
typedef void (*eddy_vort_sweep_fn)(eddy_sim *s, const struct eddy_vort_sweep *w, float *scratch, int r0, int r1);
typedef struct eddy_vort_options {
    size_t ring_budget;  /* bytes of the rings of a thread (3D: bands are cut to fit) */
    int min_band_rows;   /* but bands of at least this many rows */
    size_t stream_bytes; /* velocity (all components) from which the new faces are written past the caches */
    const eddy_vort_sweep_fn *instances; /* {2D, 3D} to run, or NULL: the CPU's widest */
} eddy_vort_options;
eddy_vort_options eddy__vort_default_options(void);

/* eddy__apply_vorticity with the options given */
eddy_status eddy__vort_apply(eddy_sim *s, float dt, const eddy_vort_options *opt);

/* One thread's block of slabs [r0, r1) along the sweep axis: new faces into vel_tmp. scratch: w->per_thread floats. */
#define EDDY_VORT_SWEEP_DECLARE(isa)                                                                                  \
    void eddy__vort_sweep2_##isa(eddy_sim *s, const eddy_vort_sweep *w, float *scratch, int r0, int r1);            \
    void eddy__vort_sweep3_##isa(eddy_sim *s, const eddy_vort_sweep *w, float *scratch, int r0, int r1);
EDDY_VORT_SWEEP_DECLARE(base)
EDDY_VORT_SWEEP_DECLARE(avx2)
EDDY_VORT_SWEEP_DECLARE(avx512)

#endif
