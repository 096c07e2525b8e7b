/* Per-step diagnostics: discrete divergence (1/s) over fluid cells (max and RMS), kinetic energy
 * 0.5 * sum over faces of u_f^2 * h^d (the MAC grid's natural energy), total dye, maximum speed at cell centres,
 * and the CFL number max|u_face| dt / h (the quantity the CFL-limited step controls).
 *
 * One pass over the cell rows (j,k) (the row kernels are in diagnostics_rows.c); every sum keeps one partial per
 * row (of cells, of faces of each component, of scalars), and the row partials are added here serially in row
 * order, so the figures do not depend on the thread count. */
#include "diagnostics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

float eddy__cell_divergence(const eddy_sim *s, int i, int j, int k) {
    int fu[3], fv[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    float d = s->vel[0][eddy__idx(fu, i + 1, j, k)] - s->vel[0][eddy__idx(fu, i, j, k)] +
              s->vel[1][eddy__idx(fv, i, j + 1, k)] - s->vel[1][eddy__idx(fv, i, j, k)];
    if (s->dim == 3) {
        int fw[3];
        eddy__face_dims(s, 2, fw);
        d += s->vel[2][eddy__idx(fw, i, j, k + 1)] - s->vel[2][eddy__idx(fw, i, j, k)];
    }
    return d / s->h;
}

diag_layout eddy__diag_layout(const eddy_sim *s) {
    diag_layout L = {0};
    L.cell_rows = (size_t)s->n[1] * s->n[2];
    L.scalar_rows = (size_t)s->sn[1] * s->sn[2];
    size_t at = 0;
    L.maxdiv = at; at += L.cell_rows;
    L.sumdiv2 = at; at += L.cell_rows;
    L.maxspeed = at; at += L.cell_rows;
    L.energy = at; at += L.cell_rows;
    L.maxface = at; at += L.cell_rows;
    L.dye = at; at += L.scalar_rows;
    L.total = at;
    return L;
}

eddy_status eddy__diagnostics(eddy_sim *s, float dt) {
    const diag_layout L = eddy__diag_layout(s);
    if (!s->diag_partial) {
        s->diag_partial = (double *)malloc(L.total * sizeof(double));
        if (!s->diag_partial)
            return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the diagnostics partials (%zu rows)", L.cell_rows);
    }
    double *P = s->diag_partial;
    const int rows = s->n[1] * s->n[2];
    int e;
    const bool mul = frexpf(s->h, &e) == 0.5f && isnormal(s->h) && isnormal(1.0f / s->h);
    const eddy_diag_row_fn rows_by_kind[2][2] = {
        {EDDY_ISA_PICK_WIDEST(s, eddy__diag_row_2d_div), EDDY_ISA_PICK_WIDEST(s, eddy__diag_row_2d_mul)},
        {EDDY_ISA_PICK_WIDEST(s, eddy__diag_row_3d_div), EDDY_ISA_PICK_WIDEST(s, eddy__diag_row_3d_mul)}};
    const eddy_diag_row_fn do_row = rows_by_kind[s->dim == 3][mul];
    size_t fluid = 0; /* an integer count: exact in any order */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(+ : fluid)
    for (int row = 0; row < rows; row++) fluid += (size_t)do_row(s, &L, P, row % s->n[1], row / s->n[1]);
    /* the partials, serially in row order */
    double md = 0, sd = 0, ms = 0, energy = 0, maxface = 0;
    for (size_t r = 0; r < L.cell_rows; r++) {
        md = P[L.maxdiv + r] > md ? P[L.maxdiv + r] : md;
        sd += P[L.sumdiv2 + r];
        ms = P[L.maxspeed + r] > ms ? P[L.maxspeed + r] : ms;
        energy += P[L.energy + r];
        maxface = P[L.maxface + r] > maxface ? P[L.maxface + r] : maxface;
    }
    double dye = 0;
    for (size_t r = 0; r < L.scalar_rows; r++) dye += P[L.dye + r];
    double cell_volume = (double)s->h * s->h * (s->dim == 3 ? s->h : 1.0);
    double scalar_volume = (double)s->sh[0] * s->sh[1] * (s->dim == 3 ? s->sh[2] : 1.0);

    eddy_step_stats *st = &s->stats;
    st->max_div = (float)md;
    st->rms_div = fluid ? (float)sqrt(sd / (double)fluid) : 0.0f;
    st->kinetic_energy = 0.5 * energy * cell_volume;
    st->dye_total = dye * scalar_volume;
    st->max_speed = (float)sqrt(ms);
    st->cfl = (float)(maxface * dt / s->h);
    if (!isfinite(st->kinetic_energy) || !isfinite(st->dye_total))
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite diagnostics in step %ld", s->step);
    return EDDY_OK;
}
