/* Boundary conditions on the MAC grid.
 * Normal velocity on a domain face: wall/no-slip/moving lid -> 0; inflow -> prescribed; outflow -> left free
 * (advected like interior faces, then corrected by the projection with p = 0 outside);
 * periodic -> face n[a] repeats face 0. A face touching a solid cell takes the solid's velocity (the average of
 * its solid neighbours), so the projection sees the obstacle's motion and pushes the fluid around it.
 * Tangential conditions (no-slip, lid) act through the viscous solve, see diffuse.c.
 * Scalars: inflow faces set the first layer of scalar cells to the inflow dye and temperature; solid cells hold
 * no dye. */
#include "sim_internal.h"

#include <string.h>

static inline int face_axis_index(int a, int i, int j, int k) { return a == 0 ? i : (a == 1 ? j : k); }

bool eddy__face_fixed(const eddy_sim *s, int a, int i, int j, int k) {
    int ia = face_axis_index(a, i, j, k);
    int n = s->n[a];
    if (!s->periodic[a]) {
        if (ia == 0) return s->def.boundary[2 * a].type != EDDY_BOUNDARY_OUTFLOW;
        if (ia == n) return s->def.boundary[2 * a + 1].type != EDDY_BOUNDARY_OUTFLOW;
    }
    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[a] = eddy__wrap(ia - 1, n);
    hi[a] = eddy__wrap(ia, n);
    return s->solid[eddy__idx(s->n, lo[0], lo[1], lo[2])] || s->solid[eddy__idx(s->n, hi[0], hi[1], hi[2])];
}

/* Cost is proportional to the domain's surface plus the solid faces, not to the grid: the domain faces are
 * visited plane by plane and the faces touching solids come from the list eddy__update_solid_faces keeps. */
void eddy__apply_velocity_boundaries(eddy_sim *s) {
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        float *v = s->vel[a];
        int n = s->n[a];
        /* the two face planes across axis a: the other two axes span them */
        int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int side = 0; side < 2; side++) {
            const eddy_boundary *bd = &s->def.boundary[2 * a + side];
            if (s->periodic[a] || bd->type == EDDY_BOUNDARY_OUTFLOW) continue; /* outflow: the projection corrects it */
            float value = bd->type == EDDY_BOUNDARY_INFLOW ? bd->velocity[a] : 0.0f;
            for (int y = 0; y < fn[c]; y++)
                for (int x = 0; x < fn[b]; x++) {
                    int f[3];
                    f[a] = side ? n : 0;
                    f[b] = x;
                    f[c] = y;
                    v[eddy__idx(fn, f[0], f[1], f[2])] = value;
                }
        }
    }
    for (size_t q = 0; q < s->solid_face_count; q++) {
        const eddy_solid_face *sf = &s->solid_faces[q];
        s->vel[sf->axis][sf->index] = sf->value;
    }
    for (int a = 0; a < s->dim; a++) {
        if (!s->periodic[a]) continue;
        /* face layer n along axis a repeats layer 0 */
        int fn[3];
        eddy__face_dims(s, a, fn);
        float *v = s->vel[a];
        int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int y = 0; y < fn[c]; y++)
            for (int x = 0; x < fn[b]; x++) {
                int f[3], g[3];
                f[a] = s->n[a];
                g[a] = 0;
                f[b] = g[b] = x;
                f[c] = g[c] = y;
                v[eddy__idx(fn, f[0], f[1], f[2])] = v[eddy__idx(fn, g[0], g[1], g[2])];
            }
    }
}

void eddy__apply_scalar_boundaries(eddy_sim *s) {
    /* inflow: first layer of scalar cells takes the inflow values */
    for (int f = 0; f < 2 * s->dim; f++) {
        const eddy_boundary *b = &s->def.boundary[f];
        if (b->type != EDDY_BOUNDARY_INFLOW) continue;
        int a = f / 2, layer = (f & 1) ? s->sn[a] - 1 : 0;
        for (int k = 0; k < s->sn[2]; k++)
            for (int j = 0; j < s->sn[1]; j++)
                for (int i = 0; i < s->sn[0]; i++) {
                    int c[3] = {i, j, k};
                    if (c[a] != layer) continue;
                    size_t q = eddy__idx(s->sn, i, j, k);
                    for (int ch = 0; ch < 3; ch++) s->dye[ch][q] = b->dye[ch];
                    s->temperature[q] = b->temperature;
                }
    }
    /* solid cells hold no dye or heat; rows of the velocity grid without a solid cell are skipped */
    int rows = s->sn[1] * s->sn[2];
    const int *r = s->def.dye_scale;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->sn[1], k = row / s->sn[1];
        const uint8_t *solid_row = s->solid + eddy__idx(s->n, 0, j / r[1], k / r[2]);
        if (!memchr(solid_row, EDDY_CELL_SOLID, (size_t)s->n[0])) continue;
        for (int i = 0; i < s->sn[0]; i++) {
            if (!solid_row[i / r[0]]) continue;
            size_t q = eddy__idx(s->sn, i, j, k);
            s->dye[0][q] = s->dye[1][q] = s->dye[2][q] = 0.0f;
            s->temperature[q] = 0.0f;
        }
    }
}
