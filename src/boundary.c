/* Boundary conditions on the MAC grid.
 * Normal velocity on a domain face: wall/no-slip/moving lid -> 0; inflow -> prescribed; outflow -> left free
 * (advected like interior faces, then corrected by the projection with p = 0 outside);
 * periodic -> face n[a] repeats face 0. A face touching a solid cell takes the solid's velocity (the average of
 * its solid neighbours), so the projection sees the obstacle's motion and pushes the fluid around it.
 * Tangential conditions (no-slip, lid) act through the viscous solve, see diffuse.c.
 * Scalars: inflow faces set the first layer of scalar cells to the inflow dye and temperature; solid cells hold
 * no dye. */
#include "sim_internal.h"

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

/* Value of a face next to solid cells: the average velocity (component a) of the solid neighbours. */
static float solid_face_velocity(const eddy_sim *s, int a, const int lo[3], const int hi[3]) {
    size_t cl = eddy__idx(s->n, lo[0], lo[1], lo[2]), ch = eddy__idx(s->n, hi[0], hi[1], hi[2]);
    float sum = 0.0f;
    int cnt = 0;
    if (s->solid[cl]) { sum += s->solid_vel[a][cl]; cnt++; }
    if (s->solid[ch]) { sum += s->solid_vel[a][ch]; cnt++; }
    return cnt ? sum / (float)cnt : 0.0f;
}

void eddy__apply_velocity_boundaries(eddy_sim *s) {
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        float *v = s->vel[a];
        const eddy_boundary *bmin = &s->def.boundary[2 * a], *bmax = &s->def.boundary[2 * a + 1];
        int n = s->n[a];
        bool per = s->periodic[a];
        int rows = fn[1] * fn[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < rows; row++) {
            int j = row % fn[1], k = row / fn[1];
            for (int i = 0; i < fn[0]; i++) {
                int c[3] = {i, j, k};
                int ia = c[a];
                size_t f = eddy__idx(fn, i, j, k);
                if (!per && (ia == 0 || ia == n)) {
                    const eddy_boundary *b = ia == 0 ? bmin : bmax;
                    switch (b->type) {
                    case EDDY_BOUNDARY_INFLOW: v[f] = b->velocity[a]; break;
                    case EDDY_BOUNDARY_OUTFLOW: break; /* advected, then corrected by the projection */
                    default: v[f] = 0.0f; break;
                    }
                    continue;
                }
                if (per && ia == n) continue; /* copied from face 0 below */
                int lo[3] = {i, j, k}, hi[3] = {i, j, k};
                lo[a] = eddy__wrap(ia - 1, n);
                hi[a] = eddy__wrap(ia, n);
                if (s->solid[eddy__idx(s->n, lo[0], lo[1], lo[2])] || s->solid[eddy__idx(s->n, hi[0], hi[1], hi[2])])
                    v[f] = solid_face_velocity(s, a, lo, hi);
            }
        }
        if (per) {
            /* face layer n along axis a repeats layer 0 */
            int lo3[3] = {0, 0, 0}, hi3[3] = {fn[0], fn[1], fn[2]};
            lo3[a] = n;
            for (int k = lo3[2]; k < hi3[2]; k++)
                for (int j = lo3[1]; j < hi3[1]; j++)
                    for (int i = lo3[0]; i < hi3[0]; i++) {
                        int src[3] = {i, j, k};
                        src[a] = 0;
                        v[eddy__idx(fn, i, j, k)] = v[eddy__idx(fn, src[0], src[1], src[2])];
                    }
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
    /* solid cells hold no dye or heat */
    int rows = s->sn[1] * s->sn[2];
    const int *r = s->def.dye_scale;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->sn[1], k = row / s->sn[1];
        for (int i = 0; i < s->sn[0]; i++) {
            size_t c = eddy__idx(s->n, i / r[0], j / r[1], k / r[2]);
            if (!s->solid[c]) continue;
            size_t q = eddy__idx(s->sn, i, j, k);
            s->dye[0][q] = s->dye[1][q] = s->dye[2][q] = 0.0f;
            s->temperature[q] = 0.0f;
        }
    }
}
