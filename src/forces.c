/* Buoyancy (Fedkiw, Stam & Jensen 2001, "Visual simulation of smoke"): f = alpha * d * g - beta * (T - T_amb) * g,
 * with d the dye density (R + G + B) and g gravity. Applied to each velocity face with the scalars interpolated to
 * the face position (the scalar grid may be finer than the velocity grid).
 *
 * The interpolation is separable: along each axis a face row maps to the same two scalar samples and weights in
 * every row, so they are tabulated once per axis (locate()'s weights at the face's exact sample coordinate, then
 * eddy__sample's float operations) and a face row is a few multiply-adds per face. Where the grids align (dye_scale
 * 1) a face sits on its samples with a weight of exactly 0 at any cell size. Where the x samples of consecutive
 * faces are consecutive scalars (the same-resolution grids, away from the ends), the row loop reads them directly
 * and is vectorised; elsewhere it reads them through the table. The row kernel is in buoyancy_rows.c. */
#include "buoyancy.h"

#include <math.h>
#include <stdlib.h>

float *eddy__forces_scratch(eddy_sim *s, size_t floats) {
    if (s->forces_scratch_floats >= floats) return s->forces_scratch;
    free(s->forces_scratch);
    s->forces_scratch = (float *)malloc(floats * sizeof(float));
    s->forces_scratch_floats = s->forces_scratch ? floats : 0;
    if (!s->forces_scratch)
        eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the forces scratch (%zu floats)", floats);
    return s->forces_scratch;
}

/* Fills the table of axis b for faces of component a: the samples and weights of locate() in grid.c, at the
 * face's exact sample coordinate (eddy__face_sample_coord). */
static void build_axis(const eddy_grid_desc *fg, const eddy_grid_desc *sg, int b, eddy_axis_table *t) {
    const int n = sg->n[b];
    for (int i = 0; i < t->n; i++) {
        float x = eddy__face_sample_coord(fg, sg, b, i);
        int i0, i1;
        float w;
        if (n == 1) {
            i0 = i1 = 0;
            w = 0.0f;
        } else if (sg->periodic[b]) {
            int per = sg->period[b];
            float fl = floorf(x);
            int k = (int)fl;
            w = x - fl;
            i0 = eddy__wrap(k, per);
            i1 = eddy__wrap(k + 1, per);
        } else {
            float hi = (float)(n - 1);
            if (!(x > 0.0f)) x = 0.0f;
            if (x > hi) x = hi;
            int k = (int)x;
            if (k > n - 2) k = n - 2;
            i0 = k;
            i1 = k + 1;
            w = x - (float)k;
        }
        t->i0[i] = i0;
        t->i1[i] = i1;
        t->w[i] = w;
        t->omw[i] = 1 - w;
    }
    /* the longest run around the middle where the samples follow the faces one to one */
    int mid = t->n / 2, off = t->i0[mid] - mid;
    int lo = mid, hi = mid;
    while (lo > 0 && t->i0[lo - 1] == lo - 1 + off && t->i1[lo - 1] == lo + off) lo--;
    while (hi < t->n && t->i0[hi] == hi + off && t->i1[hi] == hi + 1 + off) hi++;
    t->reg_lo = lo;
    t->reg_hi = hi;
    t->reg_off = off;
    t->reg_exact = true;
    for (int i = lo; i < hi; i++) t->reg_exact = t->reg_exact && t->w[i] == 0.0f;
}

eddy_status eddy__apply_buoyancy(eddy_sim *s, float dt) {
    const float alpha = s->def.buoyancy_density, beta = s->def.buoyancy_temperature;
    if (alpha == 0.0f && beta == 0.0f) return EDDY_OK;
    for (int a = 0; a < s->dim; a++) {
        float g = s->def.gravity[a];
        if (g == 0.0f) continue;
        eddy_grid_desc vg = eddy__velocity_desc(s, a, s->vel[a]), sg = eddy__scalar_desc(s, NULL);
        size_t need = 0;
        for (int b = 0; b < 3; b++) need += 4 * (size_t)vg.n[b];
        float *mem = eddy__forces_scratch(s, need);
        if (!mem) return EDDY_ERR_OUT_OF_MEMORY;
        eddy_buoyancy_job job;
        for (int b = 0; b < 3; b++) {
            eddy_axis_table *T = &job.T[b];
            T->n = vg.n[b];
            T->i0 = (int *)(void *)mem;
            T->i1 = (int *)(void *)(mem + vg.n[b]);
            T->w = mem + 2 * (size_t)vg.n[b];
            T->omw = mem + 3 * (size_t)vg.n[b];
            mem += 4 * (size_t)vg.n[b];
            build_axis(&vg, &sg, b, T);
        }
        job.sn = s->sn;
        job.flat = sg.n[2] == 1;
        job.v = s->vel[a];
        for (int c = 0; c < 3; c++) job.dye[c] = s->dye[c];
        job.temperature = s->temperature;
        job.alpha = alpha;
        job.beta = beta;
        job.t_amb = s->def.ambient_temperature;
        job.dtg = dt * g;
        job.n0 = vg.n[0];
        job.n1 = vg.n[1];
        const int rows = vg.n[1] * vg.n[2];
        void (*const do_row)(const eddy_buoyancy_job *, int) = EDDY_ISA_PICK(s, eddy__buoyancy_row);
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < rows; row++) do_row(&job, row);
    }
    return EDDY_OK;
}
