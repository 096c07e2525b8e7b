/* Parallel fast sweeping on a block wavefront (the scheduling idea of Detrixhe, Gibou & Min 2013, "A parallel
 * fast sweeping method for the Eikonal equation", J. Comput. Phys. 237, and of Zhao 2007's domain decomposition,
 * without a barrier per diagonal).
 *
 * The grid is cut into blocks of points. In a sweep of direction `dir`, a block needs the final values of its
 * upwind face-neighbour blocks (one per axis, fewer at the grid's edge). Each block holds a counter of upwind
 * blocks still to finish; the task that finishes a block decrements its downwind neighbours' counters and a
 * neighbour whose counter reaches zero is ready: the finishing task runs one ready neighbour itself (locality)
 * and hands the others to OpenMP tasks. Only the end of a sweep waits for all blocks (taskgroup).
 *
 * Bit-identical to the serial sweep: a point's update reads itself and its face neighbours. A block starts after
 * its upwind face-neighbour blocks end and ends before its downwind ones start, so every point sees its upwind
 * neighbours updated and its downwind neighbours not yet, exactly as in the lexicographic sweep; blocks that run
 * at the same time are never face neighbours, so they neither read nor write each other's points. The change of a
 * round is a maximum (exact in any order).
 *
 * Blocks without dirty points (see the locking in eikonal.c) are skipped whole: a block's active flag is cleared
 * when it starts and set by any change in it or next to it, so a skipped block has no point whose update could
 * change anything. */
#include "surface_internal.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

eddy_status eddy__blocks_init(eddy_surface *s) {
    static const int default_block_2d = 64, default_block_3d = 16;
    s->nblocks = 1;
    for (int a = 0; a < 3; a++) {
        int b = a < s->dim ? s->def.block[a] : 1;
        if (b <= 0) b = a < s->dim ? (s->dim == 3 ? default_block_3d : default_block_2d) : 1;
        if (b > s->n[a]) b = s->n[a];
        s->block[a] = b;
        s->nb[a] = (s->n[a] + b - 1) / b;
        s->nblocks *= (size_t)s->nb[a];
    }
    s->deps = (atomic_int *)malloc(s->nblocks * sizeof(atomic_int));
    s->block_change = (float *)calloc(s->nblocks, sizeof(float));
    s->block_active = (atomic_uchar *)calloc(s->nblocks, sizeof(atomic_uchar));
    return (s->deps && s->block_change && s->block_active) ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

typedef struct wave {
    eddy_surface *s;
    float *u;
    const uint8_t *pinned;
    int dir;
} wave;

static inline int downwind_step(int dir, int a) { return ((dir >> a) & 1) ? -1 : 1; }

static void block_coords(const eddy_surface *s, size_t b, int bi[3]) {
    bi[0] = (int)(b % (size_t)s->nb[0]);
    bi[1] = (int)(b / (size_t)s->nb[0] % (size_t)s->nb[1]);
    bi[2] = (int)(b / ((size_t)s->nb[0] * (size_t)s->nb[1]));
}

/* Runs block b, then any downwind neighbour it made ready (one inline, the rest as tasks). */
static void run_chain(const wave *w, size_t b) {
    eddy_surface *s = w->s;
    const size_t bstride[3] = {1, (size_t)s->nb[0], (size_t)s->nb[0] * (size_t)s->nb[1]};
    for (;;) {
        int bi[3], lo[3], hi[3];
        block_coords(s, b, bi);
        for (int a = 0; a < 3; a++) {
            lo[a] = bi[a] * s->block[a];
            hi[a] = lo[a] + s->block[a] < s->n[a] ? lo[a] + s->block[a] : s->n[a];
        }
        /* a block without dirty points would not change: skip it. Its flag is only set by itself and its face
         * neighbours, none of which runs now */
        if (atomic_exchange_explicit(&s->block_active[b], 0, memory_order_relaxed)) {
            float c = eddy__sweep_box(s, w->u, w->pinned, lo, hi, w->dir, b);
            if (c > 0) atomic_store_explicit(&s->block_active[b], 1, memory_order_relaxed); /* its own marks */
            if (c > s->block_change[b]) s->block_change[b] = c;
        }
        size_t next = SIZE_MAX;
        for (int a = 0; a < s->dim; a++) {
            int step = downwind_step(w->dir, a), to = bi[a] + step;
            if (to < 0 || to >= s->nb[a]) continue;
            size_t nbr = step > 0 ? b + bstride[a] : b - bstride[a];
            /* acq_rel: the last finisher sees every upwind block's writes before it starts the neighbour */
            if (atomic_fetch_sub_explicit(&s->deps[nbr], 1, memory_order_acq_rel) == 1) {
                if (next == SIZE_MAX) {
                    next = nbr;
                } else {
#pragma omp task firstprivate(nbr)
                    run_chain(w, nbr);
                }
            }
        }
        if (next == SIZE_MAX) return;
        b = next;
    }
}

float eddy__sweep_round_wavefront(eddy_surface *s, float *u, const uint8_t *pinned, const int *order, int sweeps) {
    memset(s->block_change, 0, s->nblocks * sizeof(float));
#pragma omp parallel num_threads(s->threads)
#pragma omp single
    for (int w = 0; w < sweeps; w++) {
        const int dir = order[w];
        size_t start = 0;
        for (size_t b = 0; b < s->nblocks; b++) {
            int bi[3], upwind = 0, corner = 1;
            block_coords(s, b, bi);
            for (int a = 0; a < s->dim; a++) {
                int first = downwind_step(dir, a) > 0 ? 0 : s->nb[a] - 1; /* the block row the sweep enters by */
                if (bi[a] != first) upwind++, corner = 0;
            }
            atomic_store_explicit(&s->deps[b], upwind, memory_order_relaxed);
            if (corner) start = b;
        }
        wave wv = {s, u, pinned, dir};
#pragma omp taskgroup
        run_chain(&wv, start);
    }
    float change = 0.0f;
    for (size_t b = 0; b < s->nblocks; b++)
        if (s->block_change[b] > change) change = s->block_change[b];
    return change;
}
