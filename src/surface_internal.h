/* Internal layout of a surface workspace (include/eddy/surface.h), shared by surface.c (lifecycle), sdf.c
 * (interface and analytic distances), eikonal.c / eikonal_blocks.c (fast sweeping) and marching.c (extraction).
 * Not installed. Point (i,j,k) is element i + n0*(j + n1*k) at origin + (i,j,k)*h; n[2] = 1 in 2D. */
#ifndef EDDY_SURFACE_INTERNAL_H
#define EDDY_SURFACE_INTERNAL_H

#include "eddy/surface.h"

#include <stdatomic.h>
#include <stdint.h>

#if defined(__GNUC__)
#define EDDY__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define EDDY__PRINTF(a, b)
#endif

struct eddy_surface {
    eddy_surface_def def;
    int dim;
    int n[3];             /* points per axis, n[2] = 1 in 2D */
    float h;
    size_t count;         /* n0*n1*n2 */
    int rows;             /* n1*n2: the unit of row-parallel loops */
    int threads;          /* resolved thread count (>= 1) */

    uint8_t *pinned;      /* 1 where the distance was set next to the interface (last seed) */
    uint8_t *inside;      /* 1 where the point is inside: the sign of phi during a sweep; marching.c classifies into it */
    atomic_uchar *dirty;  /* 1 where a neighbour changed since the point's last update (sweep locking) */
    size_t *row_count;    /* one partial per row for deterministic counts */
    int *row_bad;         /* per row: first point with a non-finite input, or -1 */
    float *copy;          /* copy of the input for in-place seeding; allocated on first need */

    /* wavefront scheduler (eikonal_blocks.c) */
    int block[3];         /* points per block and axis */
    int nb[3];            /* blocks per axis */
    size_t nblocks;
    atomic_int *deps;     /* upwind blocks still running, per block, for the current sweep */
    float *block_change;  /* largest change in the block during the current round */
    atomic_uchar *block_active; /* 0 when no point of the block is dirty: the block's sweep is skipped */

    /* extraction scratch (marching.c), grown on demand and kept */
    int32_t *edge_cache;  /* vertex index per crossed grid edge: rolling slabs / rows */
    size_t edge_cache_size;
    int32_t *link;        /* marching squares: next and previous vertex per vertex (-1 none, -2 visited) */
    float *link_points;   /* marching squares: vertex positions before chaining */
    size_t link_capacity; /* vertices that link and link_points hold */

    eddy_sdf_stats stats;
    char error[512];
};

static inline size_t eddy__sidx(const int n[3], int i, int j, int k) {
    return (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
}

/* surface.c */
eddy_status eddy__surface_fail(eddy_surface *s, eddy_status st, const char *fmt, ...) EDDY__PRINTF(3, 4);
/* checks a caller array: non-NULL and `count` equal to the grid's point count */
eddy_status eddy__surface_check_array(eddy_surface *s, const void *data, size_t count, const char *name);
/* writes into a caller buffer (may be NULL); returns st */
eddy_status eddy__msg(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) EDDY__PRINTF(4, 5);

/* eikonal.c: one sweep over the box [lo, hi) of points in direction `dir` (bit a set = decreasing along axis a),
 * Gauss-Seidel in place on the unsigned distance u; returns the largest decrease of a value. The wavefront calls
 * it per block: the same function, so the same arithmetic as the serial sweep. A change next to the box's faces
 * marks the neighbour block (index `block` +- block strides) active; the whole-grid box has no such neighbours. */
float eddy__sweep_box(const eddy_surface *s, float *u, const uint8_t *pinned, const int lo[3], const int hi[3],
                      int dir, size_t block);
/* eikonal_blocks.c: one round of the 2^d sweeps (directions in `order`) on the block wavefront; returns the
 * largest change of the round */
float eddy__sweep_round_wavefront(eddy_surface *s, float *u, const uint8_t *pinned, const int *order, int sweeps);
eddy_status eddy__blocks_init(eddy_surface *s);

#endif
