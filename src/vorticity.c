/* Vorticity confinement (Steinhoff & Underhill 1994; Fedkiw, Stam & Jensen 2001):
 *   omega = curl u,  N = grad|omega| / |grad|omega||,  f = epsilon * h * (N x omega).
 * On the MAC grid: face velocities are averaged to cell centres, curl and grad|omega| are central differences
 * there (one-sided at walls, wrapped on periodic axes), and the cell force is averaged back onto the faces.
 * epsilon is dimensionless; the factor h makes the force converge as the grid is refined. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>

eddy_status eddy__ensure_cell_scratch(eddy_sim *s) {
    if (s->cell_scratch) return EDDY_OK;
    s->cell_scratch = (float *)calloc(8 * s->ncells, sizeof(float));
    if (!s->cell_scratch) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for cell scratch (%zu cells)", s->ncells);
    return EDDY_OK;
}

/* index of neighbour of (i,j,k) at offset d along axis b: wrapped if periodic, clamped otherwise */
static inline int nb(const eddy_sim *s, int b, int x, int d) {
    x += d;
    return s->periodic[b] ? eddy__wrap(x, s->n[b]) : eddy__clampi(x, 0, s->n[b] - 1);
}

/* d/dx_b of cell array f at (i,j,k) by central difference (one-sided at a clamped wall) */
static inline float ddx(const eddy_sim *s, const float *f, int b, int i, int j, int k) {
    if (b >= s->dim) return 0.0f;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[b] = nb(s, b, c[b], -1);
    hi[b] = nb(s, b, c[b], +1);
    int span = s->periodic[b] ? 2 : hi[b] - lo[b];
    if (span == 0) return 0.0f;
    return (f[eddy__idx(s->n, hi[0], hi[1], hi[2])] - f[eddy__idx(s->n, lo[0], lo[1], lo[2])]) / ((float)span * s->h);
}

/* cell-centred velocity: mean of the two faces of each component */
void eddy__cell_velocity(eddy_sim *s, float *uc[3]) {
    int rows = s->n[1] * s->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->n[1], k = row / s->n[1];
        for (int i = 0; i < s->n[0]; i++) {
            size_t c = eddy__idx(s->n, i, j, k);
            for (int a = 0; a < 3; a++) {
                if (a >= s->dim) { uc[a][c] = 0.0f; continue; }
                int fn[3], hi[3] = {i, j, k};
                eddy__face_dims(s, a, fn);
                hi[a]++;
                uc[a][c] = 0.5f * (s->vel[a][eddy__idx(fn, i, j, k)] + s->vel[a][eddy__idx(fn, hi[0], hi[1], hi[2])]);
            }
        }
    }
}

/* curl at cell centres into om[0..2] (2D: only om[2]) and |curl| into mag */
void eddy__cell_vorticity(eddy_sim *s, float *const uc[3], float *om[3], float *mag) {
    int rows = s->n[1] * s->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->n[1], k = row / s->n[1];
        for (int i = 0; i < s->n[0]; i++) {
            size_t c = eddy__idx(s->n, i, j, k);
            float wx = 0, wy = 0, wz = ddx(s, uc[1], 0, i, j, k) - ddx(s, uc[0], 1, i, j, k);
            if (s->dim == 3) {
                wx = ddx(s, uc[2], 1, i, j, k) - ddx(s, uc[1], 2, i, j, k);
                wy = ddx(s, uc[0], 2, i, j, k) - ddx(s, uc[2], 0, i, j, k);
            }
            om[0][c] = wx;
            om[1][c] = wy;
            om[2][c] = wz;
            mag[c] = sqrtf(wx * wx + wy * wy + wz * wz);
        }
    }
}

eddy_status eddy__apply_vorticity(eddy_sim *s, float dt) {
    const float eps = s->def.vorticity;
    if (eps == 0.0f) return EDDY_OK;
    eddy_status st = eddy__ensure_cell_scratch(s);
    if (st != EDDY_OK) return st;
    size_t N = s->ncells;
    float *uc[3] = {s->cell_scratch, s->cell_scratch + N, s->cell_scratch + 2 * N};
    float *om[3] = {s->cell_scratch + 3 * N, s->cell_scratch + 4 * N, s->cell_scratch + 5 * N};
    float *mag = s->cell_scratch + 6 * N;
    eddy__cell_velocity(s, uc);
    eddy__cell_vorticity(s, uc, om, mag);
    float *force[3] = {uc[0], uc[1], uc[2]}; /* cell velocities are no longer needed */
    const float scale = eps * s->h;
    int rows = s->n[1] * s->n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->n[1], k = row / s->n[1];
        for (int i = 0; i < s->n[0]; i++) {
            size_t c = eddy__idx(s->n, i, j, k);
            float gx = ddx(s, mag, 0, i, j, k), gy = ddx(s, mag, 1, i, j, k), gz = ddx(s, mag, 2, i, j, k);
            float len = sqrtf(gx * gx + gy * gy + gz * gz);
            float fx = 0, fy = 0, fz = 0;
            if (len > 1e-20f && !s->solid[c]) {
                float nx = gx / len, ny = gy / len, nz = gz / len;
                fx = scale * (ny * om[2][c] - nz * om[1][c]);
                fy = scale * (nz * om[0][c] - nx * om[2][c]);
                fz = scale * (nx * om[1][c] - ny * om[0][c]);
            }
            force[0][c] = fx;
            force[1][c] = fy;
            force[2][c] = fz;
        }
    }
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        float *v = s->vel[a];
        const float *f = force[a];
        int frows = fn[1] * fn[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < frows; row++) {
            int j = row % fn[1], k = row / fn[1];
            for (int i = 0; i < fn[0]; i++) {
                int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
                int n = s->n[a];
                if (s->periodic[a]) {
                    lo[a] = eddy__wrap(c[a] - 1, n);
                    hi[a] = eddy__wrap(c[a], n);
                } else {
                    lo[a] = eddy__clampi(c[a] - 1, 0, n - 1);
                    hi[a] = eddy__clampi(c[a], 0, n - 1);
                }
                float fa = 0.5f * (f[eddy__idx(s->n, lo[0], lo[1], lo[2])] + f[eddy__idx(s->n, hi[0], hi[1], hi[2])]);
                v[eddy__idx(fn, i, j, k)] += dt * fa;
            }
        }
    }
    return EDDY_OK;
}
