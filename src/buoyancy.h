/* Buoyancy's separable interpolation tables and its row kernel (buoyancy_rows.c, built once per vector width, see
 * vector_isa.h), shared with the driver in forces.c. */
#ifndef EDDY_BUOYANCY_H
#define EDDY_BUOYANCY_H

#include "sim_internal.h"

/* the two scalar samples and the weights of linear interpolation at each face along one axis */
typedef struct eddy_axis_table {
    int *i0, *i1;
    float *w, *omw; /* w and 1 - w */
    int n;
    int reg_lo, reg_hi, reg_off; /* faces [reg_lo, reg_hi) have i0 = i + reg_off, i1 = i0 + 1 */
    bool reg_exact;              /* every face of the run has w = 0: it sits on its sample i0 */
} eddy_axis_table;

/* what every face row of one component needs */
typedef struct eddy_buoyancy_job {
    eddy_axis_table T[3];
    const int *sn;    /* scalar grid cells per axis */
    bool flat;        /* 2D scalar grid */
    float *v;         /* the component along gravity */
    const float *dye[3], *temperature;
    float alpha, beta, t_amb, dtg;
    int n0, n1;       /* faces per row, face rows per plane */
} eddy_buoyancy_job;

#define EDDY_BUOYANCY_ROW_DECLARE(isa) void eddy__buoyancy_row_##isa(const eddy_buoyancy_job *job, int row);
EDDY_BUOYANCY_ROW_DECLARE(base)
EDDY_BUOYANCY_ROW_DECLARE(avx2)

#endif
