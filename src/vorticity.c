/* Vorticity confinement (Steinhoff & Underhill 1994; Fedkiw, Stam & Jensen 2001):
 *   omega = curl u,  N = grad|omega| / |grad|omega||,  f = epsilon * h * (N x omega).
 * On the MAC grid: face velocities are averaged to cell centres, curl and grad|omega| are central differences
 * there (one-sided at walls, wrapped on periodic axes), and the cell force is averaged back onto the faces.
 * epsilon is dimensionless; the factor h makes the force converge as the grid is refined.
 *
 * Computed in units in which h and the averages' halves drop out (the same values up to rounding):
 *   U_a = u_a[face i] + u_a[face i + 1], twice the cell velocity;
 *   D_b f = (f[i + 1] - f[i - 1]) * q along axis b: q = 1 for a central difference, q = 2 for a one-sided one at
 *     a wall ((f[i + 1] - f[i]) * 2), so D_b is 2h times the derivative;
 *   W = (D_y U_z - D_z U_y, D_z U_x - D_x U_z, D_x U_y - D_y U_x) = 4h omega, |W| = sqrt(Wx Wx + Wy Wy + Wz Wz);
 *   g = D|W| = 8h^2 grad|omega|, |g| = sqrt(gx gx + gy gy + gz gz), of the same direction N;
 *   n = g * (c / |g|) with c = eps dt / 8 (0.125 (eps dt)); n = +0 in solid cells and where |g| <= 1e-20 (the
 *     gradient vanishes);
 *   F = n x W (= (dt / 2) eps h N x omega: a cell's share of the change of each of its faces), each component as
 *     n_y W_z - n_z W_y and so on (2D: Wx = Wy = nz = +0 in these formulas);
 *   new face = old + (F_below + F_above).
 * So no spacing divides anything: one division per cell, c / |g|, and h only cancels.
 *
 * One sweep along the outermost axis (rows in 2D, planes in 3D; vorticity_sweep.c): cell velocity, curl and force are
 * computed a slab at a time into small rings of slabs, so nothing the size of the grid is written besides the new
 * velocity; in 3D the planes are cut into bands of rows whose rings stay in the L2 cache. The new faces go to
 * vel_tmp (then swapped with vel), so the sweep always reads the velocity it started from; each thread takes a
 * contiguous range of slabs, sized by the threads' speeds on earlier calls (balance.h), and recomputes the slabs
 * (and each band the rows) of halo it needs. The kernels are written once over a vector of floats and built for
 * SSE2, AVX2 and AVX-512 (float_vector.h, vector_isa.h). Every value is computed with the same float operations in
 * the same order as the formulas above (never a fused multiply-add; a multiply by a factor q of 1 may be left out:
 * it is exact), so the result does not depend on the thread count, the vector width or the bands
 * (tests/test_vorticity_sweep.c checks the sweep against the formulas cell by cell, byte for byte). The CUDA
 * kernels follow the formulas in physical units with fused multiply-adds, reciprocals and approximate roots
 * (src/cuda/vort_tile.cuh): within ~1e-7 of these faces, not their bits. */
#include "vorticity_sweep.h"

#include <math.h>
#include <stdint.h>
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

/* Scratch layout: rows of n0 cells with room for a halo cell on each side and whole vectors; in 3D, planes cut into
 * bands so that a thread's rings take about `budget` bytes, but at least `min_rows` rows per band. */
void eddy__vort_layout(eddy_vort_sweep *w, int dim, size_t budget, int min_rows) {
    const size_t P = EDDY_VORT_PAD;
    w->stride = P + ((size_t)w->n0 + 1 + P - 1) / P * P;
    const size_t skew = P; /* 64 bytes between slots, so that the rows the passes read together do not alias at 4K */
    if (dim == 2) {
        w->bands = 1;
        w->band_rows = 1;
        w->slot = w->stride + skew;
        w->per_thread = (EDDY_VORT_SLOTS2 + 2) * w->slot;
    } else {
        const size_t extra = EDDY_VORT_ROWS3 * w->stride; /* rings of rows */
        size_t fit = budget / sizeof(float) > extra ? (budget / sizeof(float) - extra) / EDDY_VORT_SLOTS3 / w->stride : 0;
        int most = fit > 4 + (size_t)min_rows ? (int)(fit - 4) : min_rows; /* rows of a band */
        if (most < 1) most = 1;
        w->bands = (w->n1 + most - 1) / most;
        w->band_rows = (w->n1 + w->bands - 1) / w->bands + 4; /* + halo: 2 rows below, 1 (2 on a periodic top) above */
        w->slot = (size_t)w->band_rows * w->stride + skew;
        w->per_thread = EDDY_VORT_SLOTS3 * w->slot + extra;
    }
    w->per_thread += w->stride + 64 / sizeof(float); /* reads of whole vectors past the last row; 64-byte alignment */
}

/* Rings of one thread in 3D: about 40% of a 1 MiB L2 cache, the rest for the velocity of the planes B and C read
 * (3 bands at 128^3; 2 bands, or 4, measured slower on Zen 5); but at least
 * 8 rows per band (below that, the halo rows each band recomputes cost more than the misses saved). The new faces
 * go past the caches from 16 MiB of velocity: twice that (old and new) is more than a last-level cache holds. */
eddy_vort_options eddy__vort_default_options(void) {
    eddy_vort_options o = {384 * 1024, 8, (size_t)16 << 20, NULL};
    return o;
}

eddy_status eddy__apply_vorticity(eddy_sim *s, float dt) {
    const eddy_vort_options o = eddy__vort_default_options();
    return eddy__vort_apply(s, dt, &o);
}

eddy_status eddy__vort_apply(eddy_sim *s, float dt, const eddy_vort_options *opt) {
    const float eps = s->def.vorticity;
    if (eps == 0.0f) return EDDY_OK;
    eddy_vort_sweep w;
    w.n0 = s->n[0];
    w.n1 = s->n[1];
    w.n2 = s->n[2];
    w.ns = s->dim == 2 ? s->n[1] : s->n[2];
    w.px = s->periodic[0];
    w.py = s->periodic[1];
    w.ps = s->periodic[s->dim - 1];
    w.scale = eddy__vort_sweep_scale(eps, dt);
    size_t vel_bytes = 0;
    for (int a = 0; a < s->dim; a++) vel_bytes += s->nface[a] * sizeof(float);
    w.stream = vel_bytes >= opt->stream_bytes;
    eddy__vort_layout(&w, s->dim, opt->ring_budget, opt->min_band_rows);
    /* no more threads than slabs (each thread's rings are bounded by the budget); the result does not depend on the
     * count */
    int threads = EDDY_THREADS(s);
    if (threads > w.ns) threads = w.ns;
    float *scratch = eddy__forces_scratch(s, (size_t)threads * w.per_thread);
    if (!scratch) return EDDY_ERR_OUT_OF_MEMORY;
    eddy_vort_sweep_fn fn =
        s->dim == 3 ? EDDY_ISA_PICK_WIDEST(s, eddy__vort_sweep3) : EDDY_ISA_PICK_WIDEST(s, eddy__vort_sweep2);
    if (opt->instances) fn = opt->instances[s->dim == 3];
    const size_t per_thread = w.per_thread;
    /* each thread a contiguous block of slabs, by the threads' speeds on earlier calls (balance.h) */
    eddy_balance_run run;
    eddy__balance_begin(&run, &s->vort_balance, w.ns, threads, !s->even_blocks);
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        float *base = scratch + (size_t)t * per_thread;
        base += (64 - (uintptr_t)base % 64) % 64 / sizeof(float); /* rows 64-byte aligned */
        int r0, r1;
        const double start = eddy__balance_block(&run, t, nt, &r0, &r1);
        if (r0 < r1) fn(s, &w, base, r0, r1);
        eddy__balance_timed(&run, t, nt, start);
    }
    eddy__balance_end(&run);
    for (int a = 0; a < s->dim; a++) {
        float *t = s->vel[a];
        s->vel[a] = s->vel_tmp[a];
        s->vel_tmp[a] = t;
    }
    return EDDY_OK;
}
