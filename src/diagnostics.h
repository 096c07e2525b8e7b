/* Diagnostics: the per-row partials and the row kernels (diagnostics_rows.c, built per vector width, see
 * vector_isa.h) that diagnostics.c runs over the grid and adds up in row order. */
#ifndef EDDY_DIAGNOSTICS_H
#define EDDY_DIAGNOSTICS_H

#include "sim_internal.h"

/* per-row partials: one slot per row of cells (the face rows above the last cell row of an axis count with that
 * row) and per row of scalars */
typedef struct diag_layout {
    size_t cell_rows, scalar_rows;
    size_t maxdiv, sumdiv2, maxspeed, energy, maxface, dye, total; /* offsets into the buffer */
} diag_layout;

/* where each partial of a simulation's rows lies in the buffer (diagnostics.c) */
diag_layout eddy__diag_layout(const eddy_sim *s);

/* One cell row (j,k): writes its partials into P (offsets from L) and returns its fluid cells. */
typedef int (*eddy_diag_row_fn)(const eddy_sim *s, const diag_layout *L, double *P, int j, int k);
#define EDDY_DIAG_ROW_DECLARE(isa)                                                                 \
    int eddy__diag_row_2d_div_##isa(const eddy_sim *s, const diag_layout *L, double *P, int j, int k); \
    int eddy__diag_row_2d_mul_##isa(const eddy_sim *s, const diag_layout *L, double *P, int j, int k); \
    int eddy__diag_row_3d_div_##isa(const eddy_sim *s, const diag_layout *L, double *P, int j, int k); \
    int eddy__diag_row_3d_mul_##isa(const eddy_sim *s, const diag_layout *L, double *P, int j, int k);
EDDY_DIAG_ROW_DECLARE(base)
EDDY_DIAG_ROW_DECLARE(avx2)
EDDY_DIAG_ROW_DECLARE(avx512)

#endif
