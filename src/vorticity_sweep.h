/* Vorticity confinement's sweep (vorticity.c): the geometry, the per-thread rings of slabs and the sweep
 * kernels, built once per vector width (vorticity_sweep.c, vector_isa.h). */
#ifndef EDDY_VORTICITY_SWEEP_H
#define EDDY_VORTICITY_SWEEP_H

#include "sim_internal.h"

/* scratch of the sweep: per thread, rings of 4 slabs for the cell velocity, the curl (and |curl|) and the force,
 * plus a few rows */
enum { EDDY_VORT_RING = 4 };

/* geometry of the sweep */
typedef struct eddy_vort_sweep {
    int n0, n1, n2, ns; /* ns: slabs along the sweep axis (n1 in 2D, n2 in 3D) */
    bool px, py, ps;    /* periodic x, y, sweep axis */
    float den[3];       /* [span]: (float)span * h for spans 1 and 2, as ddx divides */
    float rcp[3];       /* [span]: 1 / den[span], exact when h is a power of two (then used instead) */
    float scale, dt;
} eddy_vort_sweep;

typedef struct eddy_vort_rings2 {
    float *uc[2], *wz, *mag, *f[2], *tmp; /* each ring: RING rows of n0 */
} eddy_vort_rings2;

typedef struct eddy_vort_rings3 {
    float *uc[3], *om[3], *mag, *f[3], *tmp[3]; /* rings of RING planes; tmp: rows of n0 */
} eddy_vort_rings3;

/* One thread's block of slabs [r0, r1): new faces into vel_tmp. _mul: the spacing's reciprocal is exact. */
#define EDDY_VORT_SWEEP_DECLARE(isa)                                                                                \
    void eddy__vort_sweep2_mul_##isa(eddy_sim *s, const eddy_vort_sweep *w, eddy_vort_rings2 *r, int r0, int r1); \
    void eddy__vort_sweep2_div_##isa(eddy_sim *s, const eddy_vort_sweep *w, eddy_vort_rings2 *r, int r0, int r1); \
    void eddy__vort_sweep3_mul_##isa(eddy_sim *s, const eddy_vort_sweep *w, eddy_vort_rings3 *r, int r0, int r1); \
    void eddy__vort_sweep3_div_##isa(eddy_sim *s, const eddy_vort_sweep *w, eddy_vort_rings3 *r, int r0, int r1);
EDDY_VORT_SWEEP_DECLARE(base)
EDDY_VORT_SWEEP_DECLARE(avx2)

#endif
