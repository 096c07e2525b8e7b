/* Fast sweeping for the Eikonal equation |grad u| = 1 (Zhao 2005, "A fast sweeping method for Eikonal equations",
 * Math. Comp. 74; Tsai, Cheng, Osher & Zhao 2003 for the Godunov form).
 *
 * u is the unsigned distance: pinned points (next to the interface) keep their value, the others start at +inf
 * (or at the narrow band's max_distance) and are updated in place, Gauss-Seidel, by the Godunov upwind solution of
 *     sum_a (max(u - a_a, 0))^2 = h^2,   a_a = min(u at the two neighbours along axis a)
 * taking the smallest of u and that solution. The sweeps run in the 2^d directions (all signs of the axes, in a
 * Gray-code order); a round of 2^d sweeps repeats until no value changes by more than the tolerance. The sign is
 * put back at the end from the sign bit each point had on entry.
 *
 * Locking (Bak, McLaughlin & Renzi 2010, "Some improvements for the fast sweeping method", SIAM J. Sci. Comput.
 * 32): a point is recomputed only when a neighbour changed since its last update (a dirty byte per point), since
 * otherwise the update returns the old value; the result is the same, the rounds after the front has passed
 * cost little.
 *
 * The update of a point reads only itself and its 2d face neighbours, so any order of the points in which every
 * point comes after its upwind face neighbours and before its downwind ones gives the same bytes as the
 * lexicographic sweep. The block wavefront (eikonal_blocks.c) is such an order and calls the same eddy__sweep_box. */
#include "surface_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <omp.h>
#include <string.h>

/* Godunov update of one point from its axis minima; returns the candidate value (>= the smallest minimum). */
static inline float godunov2(float a, float b, float h) {
    if (a > b) {
        float t = a;
        a = b;
        b = t;
    }
    float x = a + h;
    if (x > b) { /* both axes upwind: (x-a)^2 + (x-b)^2 = h^2, solved for y = x - a (well conditioned far out) */
        float db = b - a;
        x = a + 0.5f * (db + sqrtf(2.0f * h * h - db * db));
    }
    return x;
}

static inline float godunov3(float a, float b, float c, float h) {
    float t;
    if (a > b) { t = a; a = b; b = t; }
    if (b > c) { t = b; b = c; c = t; }
    if (a > b) { t = a; a = b; b = t; }
    float x = a + h;
    if (x > b) {
        float db = b - a;
        x = a + 0.5f * (db + sqrtf(2.0f * h * h - db * db));
        if (x > c) { /* three axes: sum (y - d_a)^2 = h^2 with d = (0, b-a, c-a) */
            float dc = c - a, s = db + dc;
            float q = s * s - 3.0f * (db * db + dc * dc - h * h);
            x = a + (s + sqrtf(q > 0 ? q : 0.0f)) / 3.0f;
        }
    }
    return x;
}

static inline float min2(float a, float b) { return a < b ? a : b; }

float eddy__sweep_box(const eddy_surface *s, float *u, const uint8_t *pinned, const int lo[3], const int hi[3], int dir,
                      size_t block) {
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2];
    const int three = s->dim == 3;
    const size_t sy = (size_t)n0, sz = (size_t)n0 * (size_t)n1;
    const float h = s->h;
    atomic_uchar *dirty = s->dirty;
    const size_t bsy = (size_t)s->nb[0], bsz = (size_t)s->nb[0] * (size_t)s->nb[1];
    const int di = (dir & 1) ? -1 : 1, dj = (dir & 2) ? -1 : 1, dk = (dir & 4) ? -1 : 1;
    const int i0 = di > 0 ? lo[0] : hi[0] - 1, i1 = di > 0 ? hi[0] : lo[0] - 1;
    const int j0 = dj > 0 ? lo[1] : hi[1] - 1, j1 = dj > 0 ? hi[1] : lo[1] - 1;
    const int k0 = dk > 0 ? lo[2] : hi[2] - 1, k1 = dk > 0 ? hi[2] : lo[2] - 1;
    float change = 0.0f;
    for (int k = k0; k != k1; k += dk)
        for (int j = j0; j != j1; j += dj) {
            const size_t row = (size_t)j * sy + (size_t)k * sz;
            for (int i = i0; i != i1; i += di) {
                const size_t p = row + (size_t)i;
                /* no neighbour changed since the last update of p: the update would return the old value */
                if (!atomic_load_explicit(&dirty[p], memory_order_relaxed)) continue;
                atomic_store_explicit(&dirty[p], 0, memory_order_relaxed);
                if (pinned[p]) continue;
                const float old = u[p];
                float ax = INFINITY, ay = INFINITY, az = INFINITY;
                if (i > 0) ax = u[p - 1];
                if (i < n0 - 1) ax = min2(ax, u[p + 1]);
                if (j > 0) ay = u[p - sy];
                if (j < n1 - 1) ay = min2(ay, u[p + sy]);
                if (three) {
                    if (k > 0) az = u[p - sz];
                    if (k < n2 - 1) az = min2(az, u[p + sz]);
                }
                /* no neighbour below the current value: the update cannot lower it */
                if (!(min2(min2(ax, ay), az) < old)) continue;
                const float x = three ? godunov3(ax, ay, az, h) : godunov2(ax, ay, h);
                if (!(x < old)) continue;
                u[p] = x;
                if (old - x > change) change = old - x;
                /* the neighbours' next updates see a new value. Relaxed stores: two blocks running at the same
                 * time may mark the same corner point of a third block (which is not running). */
                if (i > 0) atomic_store_explicit(&dirty[p - 1], 1, memory_order_relaxed);
                if (i < n0 - 1) atomic_store_explicit(&dirty[p + 1], 1, memory_order_relaxed);
                if (j > 0) atomic_store_explicit(&dirty[p - sy], 1, memory_order_relaxed);
                if (j < n1 - 1) atomic_store_explicit(&dirty[p + sy], 1, memory_order_relaxed);
                if (three) {
                    if (k > 0) atomic_store_explicit(&dirty[p - sz], 1, memory_order_relaxed);
                    if (k < n2 - 1) atomic_store_explicit(&dirty[p + sz], 1, memory_order_relaxed);
                }
                /* a marked point in another block makes that block run next time (never for the whole-grid box) */
                if (i == lo[0] && i > 0) atomic_store_explicit(&s->block_active[block - 1], 1, memory_order_relaxed);
                if (i == hi[0] - 1 && i < n0 - 1) atomic_store_explicit(&s->block_active[block + 1], 1, memory_order_relaxed);
                if (j == lo[1] && j > 0) atomic_store_explicit(&s->block_active[block - bsy], 1, memory_order_relaxed);
                if (j == hi[1] - 1 && j < n1 - 1) atomic_store_explicit(&s->block_active[block + bsy], 1, memory_order_relaxed);
                if (three && k == lo[2] && k > 0) atomic_store_explicit(&s->block_active[block - bsz], 1, memory_order_relaxed);
                if (three && k == hi[2] - 1 && k < n2 - 1)
                    atomic_store_explicit(&s->block_active[block + bsz], 1, memory_order_relaxed);
            }
        }
    return change;
}

/* Gray-code order of the 2^d sweep directions: consecutive sweeps flip one axis. */
static const int sweep_order_2d[4] = {0, 1, 3, 2};
static const int sweep_order_3d[8] = {0, 1, 3, 2, 6, 7, 5, 4};

static float sweep_round_serial(eddy_surface *s, float *u, const uint8_t *pinned, const int *order, int sweeps) {
    const int lo[3] = {0, 0, 0};
    float change = 0.0f;
    for (int w = 0; w < sweeps; w++) {
        float c = eddy__sweep_box(s, u, pinned, lo, s->n, order[w], 0);
        if (c > change) change = c;
    }
    return change;
}

/* phi -> unsigned distance (pinned: |phi|, others: band or +inf), sign bit -> s->inside, count pinned per row. */
static void prepare(eddy_surface *s, float *phi, const uint8_t *pinned) {
    const int n0 = s->n[0], rows = s->rows;
    const float far = s->def.max_distance > 0 ? s->def.max_distance : INFINITY;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int row = 0; row < rows; row++) {
        const size_t base = (size_t)row * (size_t)n0;
        size_t pinned_here = 0;
        for (int i = 0; i < n0; i++) {
            const size_t p = base + (size_t)i;
            s->inside[p] = (uint8_t)(signbit(phi[p]) ? 1 : 0);
            atomic_store_explicit(&s->dirty[p], (unsigned char)!pinned[p], memory_order_relaxed);
            if (pinned[p]) {
                phi[p] = fabsf(phi[p]);
                pinned_here++;
            } else {
                phi[p] = far;
            }
        }
        s->row_count[row] = pinned_here;
    }
}

static void restore_sign(eddy_surface *s, float *phi) {
    const int n0 = s->n[0], rows = s->rows;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int row = 0; row < rows; row++) {
        const size_t base = (size_t)row * (size_t)n0;
        for (int i = 0; i < n0; i++)
            if (s->inside[base + (size_t)i]) phi[base + (size_t)i] = -phi[base + (size_t)i];
    }
}

/* The sweeps on phi with a valid pinned mask (checked by the caller); keeps seed statistics. */
eddy_status eddy__sdf_sweep_impl(eddy_surface *s, float *phi, const uint8_t *pinned) {
    double t0 = omp_get_wtime();
    prepare(s, phi, pinned);
    for (size_t b = 0; b < s->nblocks; b++) atomic_store_explicit(&s->block_active[b], 1, memory_order_relaxed);
    size_t pinned_count = 0;
    for (int row = 0; row < s->rows; row++) pinned_count += s->row_count[row];
    s->stats.pinned = pinned_count;

    const int sweeps = s->dim == 3 ? 8 : 4;
    const int *order = s->dim == 3 ? sweep_order_3d : sweep_order_2d;
    const int max_iter = s->def.max_iterations > 0 ? s->def.max_iterations : 64;
    int wavefront = s->def.schedule == EDDY_SWEEP_WAVEFRONT || (s->def.schedule == EDDY_SWEEP_AUTO && s->threads > 1);
    int iter = 0, converged = 0;
    float change = 0.0f;
    while (pinned_count > 0 && iter < max_iter) {
        change = wavefront ? eddy__sweep_round_wavefront(s, phi, pinned, order, sweeps)
                           : sweep_round_serial(s, phi, pinned, order, sweeps);
        iter++;
        if (!(change > s->def.tolerance)) {
            converged = 1;
            break;
        }
    }
    if (pinned_count == 0) converged = 1; /* nothing to propagate: every point keeps the far value */
    restore_sign(s, phi);
    s->stats.iterations = iter;
    s->stats.sweeps = iter * sweeps;
    s->stats.last_change = change;
    s->stats.converged = converged;
    s->stats.sweep_ms = (omp_get_wtime() - t0) * 1e3;
    return EDDY_OK;
}

eddy_status eddy_sdf_sweep(eddy_surface *s, float *phi, size_t count, const uint8_t *pinned) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = eddy__surface_check_array(s, phi, count, "phi");
    if (st != EDDY_OK) return st;
    if (!pinned) pinned = s->pinned;
    /* NaN has no usable sign and a pinned value must be a distance: reject both, naming the first */
    for (size_t p = 0; p < s->count; p++)
        if (isnan(phi[p]) || (pinned[p] && !isfinite(phi[p]))) {
            int i = (int)(p % (size_t)s->n[0]), j = (int)(p / (size_t)s->n[0] % (size_t)s->n[1]),
                k = (int)(p / ((size_t)s->n[0] * (size_t)s->n[1]));
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT,
                                      "phi at point (%d, %d, %d) = %g: must not be NaN, and finite where pinned", i, j, k,
                                      (double)phi[p]);
        }
    memset(&s->stats, 0, sizeof s->stats);
    return eddy__sdf_sweep_impl(s, phi, pinned);
}
