/* Vorticity confinement (Steinhoff & Underhill 1994; Fedkiw, Stam & Jensen 2001):
 *   omega = curl u,  N = grad|omega| / |grad|omega||,  f = epsilon * h * (N x omega).
 * On the MAC grid: face velocities are averaged to cell centres, curl and grad|omega| are central differences
 * there (one-sided at walls, wrapped on periodic axes), and the cell force is averaged back onto the faces.
 * epsilon is dimensionless; the factor h makes the force converge as the grid is refined.
 *
 * One sweep along the outermost axis (rows in 2D, planes in 3D): cell velocity, curl and force are computed a
 * slab at a time into rings of four slabs, so nothing the size of the grid is written besides the new velocity.
 * The new faces go to vel_tmp (then swapped with vel), so the sweep always reads the velocity it started from;
 * each thread takes a contiguous range of slabs and recomputes the two or three slabs of halo it needs. Every
 * value is computed with the same float operations in the same order as the per-cell formulas above (a division
 * by the spacing becomes a multiply only where that is exact: h a power of two), so the result does not depend on
 * the thread count, and the CUDA backend's kernels, which follow the same formulas, stay comparable bit for bit. */
#include "vorticity_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* per-thread scratch of the sweep: rings of slabs plus a few rows */
static size_t slab_cells(const eddy_sim *s) { return s->dim == 2 ? (size_t)s->n[0] : (size_t)s->n[0] * s->n[1]; }
static size_t thread_floats(const eddy_sim *s) {
    size_t slab = slab_cells(s), rings = s->dim == 2 ? 2 + 2 + 2 : 3 + 4 + 3;
    return rings * EDDY_VORT_RING * slab + 3 * (size_t)s->n[0] + 64; /* + rows of x-derivatives, + alignment slack */
}

eddy_status eddy__apply_vorticity(eddy_sim *s, float dt) {
    const float eps = s->def.vorticity;
    if (eps == 0.0f) return EDDY_OK;
    /* threads beyond the point where their rings would outgrow 8 floats per cell (the full-grid scratch this
     * sweep replaces) only cost memory; the result does not depend on the count */
    int threads = EDDY_THREADS(s);
    size_t fit = 8 * s->ncells / thread_floats(s);
    if ((size_t)threads > fit) threads = fit > 0 ? (int)fit : 1;
    float *scratch = eddy__forces_scratch(s, (size_t)threads * thread_floats(s));
    if (!scratch) return EDDY_ERR_OUT_OF_MEMORY;
    eddy_vort_sweep w;
    w.n0 = s->n[0];
    w.n1 = s->n[1];
    w.n2 = s->n[2];
    w.ns = s->dim == 2 ? s->n[1] : s->n[2];
    w.px = s->periodic[0];
    w.py = s->periodic[1];
    w.ps = s->periodic[s->dim - 1];
    w.den[0] = w.rcp[0] = 0.0f; /* unused: spans are 1 or 2 (n >= 3) */
    w.den[1] = (float)1 * s->h;
    w.den[2] = (float)2 * s->h;
    bool mul = true;
    for (int span = 1; span <= 2; span++) {
        int e;
        w.rcp[span] = 1.0f / w.den[span];
        mul = mul && frexpf(w.den[span], &e) == 0.5f && isnormal(w.den[span]) && isnormal(w.rcp[span]);
    }
    w.scale = eps * s->h;
    w.dt = dt;
    const size_t per_thread = thread_floats(s), slab = slab_cells(s);
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        float *base = scratch + (size_t)t * per_thread;
        const size_t ring = EDDY_VORT_RING * slab;
        const int r0 = (int)((long long)w.ns * t / nt), r1 = (int)((long long)w.ns * (t + 1) / nt);
        if (r0 < r1) {
            if (s->dim == 2) {
                eddy_vort_rings2 r = {{base, base + ring}, base + 2 * ring, base + 3 * ring, {base + 4 * ring, base + 5 * ring}, base + 6 * ring};
                if (mul) EDDY_ISA_PICK(s, eddy__vort_sweep2_mul)(s, &w, &r, r0, r1);
                else EDDY_ISA_PICK(s, eddy__vort_sweep2_div)(s, &w, &r, r0, r1);
            } else {
                eddy_vort_rings3 r;
                for (int c = 0; c < 3; c++) {
                    r.uc[c] = base + (size_t)c * ring;
                    r.om[c] = base + (size_t)(3 + c) * ring;
                    r.f[c] = base + (size_t)(7 + c) * ring;
                    r.tmp[c] = base + 10 * ring + (size_t)c * w.n0;
                }
                r.mag = base + 6 * ring;
                if (mul) EDDY_ISA_PICK(s, eddy__vort_sweep3_mul)(s, &w, &r, r0, r1);
                else EDDY_ISA_PICK(s, eddy__vort_sweep3_div)(s, &w, &r, r0, r1);
            }
        }
    }
    for (int a = 0; a < s->dim; a++) {
        float *t = s->vel[a];
        s->vel[a] = s->vel_tmp[a];
        s->vel_tmp[a] = t;
    }
    return EDDY_OK;
}
