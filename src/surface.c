/* Surface workspace: the point grid, its definition defaults and checks, and the scratch the signed-distance and
 * extraction calls share (masks, row partials, wavefront counters), allocated once per grid. */
#include "surface_internal.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2^31 points keeps every index in size_t and every per-axis loop and vertex index in 32 bits. */
#define EDDY_SURFACE_MAX_POINTS ((size_t)1 << 31)
/* Distances and vertex positions are floats: whole steps of h are exact up to 2^24 of them. On a longer axis the
 * sweeps' a + h stops growing (distances stall at 2^24 h) and neighbouring points round to one position. */
#define EDDY_SURFACE_MAX_AXIS (1 << 24)

eddy_surface_def eddy_surface_def_default(void) {
    eddy_surface_def d;
    memset(&d, 0, sizeof d);
    d.dim = 2;
    d.n[0] = 128;
    d.n[1] = 128;
    d.n[2] = 1;
    d.h = 1.0f / 128.0f;
    d.schedule = EDDY_SWEEP_AUTO;
    return d;
}

eddy_status eddy__msg(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return st;
}

eddy_status eddy__surface_fail(eddy_surface *s, eddy_status st, const char *fmt, ...) {
    if (s) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->error, sizeof s->error, fmt, ap);
        va_end(ap);
    }
    return st;
}

eddy_status eddy__surface_check_array(eddy_surface *s, const void *data, size_t count, const char *name) {
    if (!data) return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "%s is NULL", name);
    if (count != s->count)
        return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "%s has %zu values; the grid has %zu points (%d x %d x %d)",
                                  name, count, s->count, s->n[0], s->n[1], s->n[2]);
    return EDDY_OK;
}

eddy_status eddy_surface_def_from_layout(const eddy_field_layout *layout, eddy_surface_def *def, char *msg,
                                         size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!layout || !def) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "layout or def is NULL");
    eddy_surface_def d = eddy_surface_def_default();
    d.dim = layout->n[2] > 1 ? 3 : 2;
    for (int a = 0; a < 3; a++) {
        d.n[a] = layout->n[a];
        d.origin[a] = layout->origin[a];
    }
    if (d.dim == 2) d.n[2] = 1;
    d.h = layout->spacing[0];
    for (int a = 1; a < d.dim; a++)
        if (layout->spacing[a] != layout->spacing[0])
            return eddy__msg(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                             "layout spacing[%d] = %g differs from spacing[0] = %g: surfaces need square cells", a,
                             (double)layout->spacing[a], (double)layout->spacing[0]);
    *def = d;
    return eddy_surface_def_validate(&d, msg, msg_size);
}

eddy_status eddy_surface_def_validate(const eddy_surface_def *d, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!d) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "surface definition is NULL");
    if (d->dim != 2 && d->dim != 3) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "dim = %d: must be 2 or 3", d->dim);
    size_t points = 1;
    for (int a = 0; a < d->dim; a++) {
        if (d->n[a] < 2 || d->n[a] > EDDY_SURFACE_MAX_AXIS)
            return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                             "n[%d] = %d: must be between 2 and %d points (2^24: float distances and positions resolve "
                             "that many steps of h)", a, d->n[a], EDDY_SURFACE_MAX_AXIS);
        points *= (size_t)d->n[a];
        if (points > EDDY_SURFACE_MAX_POINTS)
            return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "grid too large: more than 2^31 points");
    }
    if (d->dim == 2 && d->n[2] != 1)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "n[2] = %d: must be 1 in 2D", d->n[2]);
    /* the sweeps square h and distances of up to 2^24 h in float: 1e9 keeps them finite, 1e-9 keeps h^2 normal */
    if (!(d->h >= 1e-9f && d->h <= 1e9f))
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "h = %g: must be a spacing of 1e-9 .. 1e9 metres", (double)d->h);
    for (int a = 0; a < 3; a++)
        if (!isfinite(d->origin[a]))
            return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "origin[%d] = %g: must be finite", a, (double)d->origin[a]);
    if (!(isfinite(d->max_distance) && d->max_distance >= 0))
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                         "max_distance = %g: must be >= 0 metres (0 = whole grid)", (double)d->max_distance);
    if (!(isfinite(d->tolerance) && d->tolerance >= 0))
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "tolerance = %g: must be >= 0 metres", (double)d->tolerance);
    if (d->max_iterations < 0 || d->max_iterations > 100000)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                         "max_iterations = %d: must be between 0 (default 64) and 100000", d->max_iterations);
    if (d->threads < 0 || d->threads > 4096)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "threads = %d: must be between 0 (OpenMP default) and 4096",
                         d->threads);
    if (d->schedule < EDDY_SWEEP_AUTO || d->schedule > EDDY_SWEEP_WAVEFRONT)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "schedule = %d: not an eddy_sweep_schedule", (int)d->schedule);
    for (int a = 0; a < d->dim; a++)
        if (d->block[a] < 0 || d->block[a] > (1 << 30))
            return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "block[%d] = %d: must be >= 1 point (0 = default)", a,
                             d->block[a]);
    return EDDY_OK;
}

eddy_status eddy_surface_create(const eddy_surface_def *def, eddy_surface **out, char *msg, size_t msg_size) {
    if (!out) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    eddy_status st = eddy_surface_def_validate(def, msg, msg_size);
    if (st != EDDY_OK) return st;
    eddy_surface *s = (eddy_surface *)calloc(1, sizeof *s);
    if (!s) return eddy__msg(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the surface workspace");
    s->def = *def;
    s->dim = def->dim;
    s->n[0] = def->n[0];
    s->n[1] = def->n[1];
    s->n[2] = def->dim == 3 ? def->n[2] : 1;
    s->h = def->h;
    s->count = (size_t)s->n[0] * (size_t)s->n[1] * (size_t)s->n[2];
    s->rows = s->n[1] * s->n[2];
    s->threads = def->threads > 0 ? def->threads : omp_get_max_threads();
    if (s->threads < 1) s->threads = 1;
    s->pinned = (uint8_t *)calloc(s->count, 1);
    s->inside = (uint8_t *)calloc(s->count, 1);
    s->dirty = (atomic_uchar *)calloc(s->count, sizeof(atomic_uchar));
    s->row_count = (size_t *)calloc((size_t)s->rows, sizeof(size_t));
    s->row_bad = (int *)calloc((size_t)s->rows, sizeof(int));
    if (!s->pinned || !s->inside || !s->dirty || !s->row_count || !s->row_bad || eddy__blocks_init(s) != EDDY_OK) {
        size_t count = s->count;
        eddy_surface_destroy(s);
        return eddy__msg(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "out of memory for a surface workspace of %zu points", count);
    }
    *out = s;
    return EDDY_OK;
}

void eddy_surface_destroy(eddy_surface *s) {
    if (!s) return;
    free(s->pinned);
    free(s->inside);
    free((void *)s->dirty);
    free(s->row_count);
    free(s->row_bad);
    free(s->copy);
    free(s->deps);
    free(s->block_change);
    free((void *)s->block_active);
    free(s->edge_cache);
    free(s->link);
    free(s->link_points);
    free(s);
}

const char *eddy_surface_last_error(const eddy_surface *s) { return s ? s->error : "null surface"; }
const eddy_surface_def *eddy_surface_get_def(const eddy_surface *s) { return s ? &s->def : NULL; }
size_t eddy_surface_point_count(const eddy_surface *s) { return s ? s->count : 0; }
const eddy_sdf_stats *eddy_surface_stats(const eddy_surface *s) { return s ? &s->stats : NULL; }
const uint8_t *eddy_sdf_pinned_mask(const eddy_surface *s) { return s ? s->pinned : NULL; }
