/* Obstacles: analytic shapes (sphere/circle, box, capsule), user SDF callbacks and a static mask, rasterised after
 * they change, before the next reader (eddy__solids_current), into the cell-type array `solid` (a cell is solid when the signed distance at its centre is negative) and
 * the per-cell solid velocity `solid_vel` that the boundary stage imposes on faces touching the solid. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float length3(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

float eddy__shape_sdf(eddy_shape shape, const float center[3], float radius, const float half_size[3],
                      const float axis[3], eddy_sdf_fn fn, void *user, const float p[3], int dim) {
    float d[3] = {p[0] - center[0], p[1] - center[1], dim == 3 ? p[2] - center[2] : 0.0f};
    switch (shape) {
    case EDDY_SHAPE_SPHERE: return length3(d) - radius;
    case EDDY_SHAPE_BOX: {
        float q[3], outside[3], inside = -INFINITY;
        for (int a = 0; a < 3; a++) {
            float hs = (a < dim) ? half_size[a] : INFINITY;
            q[a] = fabsf(d[a]) - hs;
            outside[a] = q[a] > 0 ? q[a] : 0.0f;
            if (a < dim && q[a] > inside) inside = q[a];
        }
        return length3(outside) + (inside < 0 ? inside : 0.0f);
    }
    case EDDY_SHAPE_CAPSULE: {
        /* segment from center - axis to center + axis */
        float ax[3] = {axis[0], axis[1], dim == 3 ? axis[2] : 0.0f};
        float aa = ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2];
        float t = 0.0f;
        if (aa > 0) {
            const float dot = d[0] * ax[0] + d[1] * ax[1] + d[2] * ax[2];
            if (isfinite(aa) && isfinite(dot)) t = dot / aa;
            else { /* products past 3.4e38 (an axis longer than ~1.8e19 m): t = inf/inf = NaN or 0, in double they fit */
                const double tt = ((double)d[0] * ax[0] + (double)d[1] * ax[1] + (double)d[2] * ax[2]) /
                                  ((double)ax[0] * ax[0] + (double)ax[1] * ax[1] + (double)ax[2] * ax[2]);
                t = tt < -1 ? -1.0f : (tt > 1 ? 1.0f : (float)tt);
            }
            t = t < -1 ? -1 : (t > 1 ? 1 : t);
        }
        float e[3] = {d[0] - t * ax[0], d[1] - t * ax[1], d[2] - t * ax[2]};
        return length3(e) - radius;
    }
    case EDDY_SHAPE_SDF: return fn ? fn(p, user) : INFINITY;
    }
    return INFINITY;
}

static eddy_status check_obstacle_def(eddy_sim *s, const eddy_obstacle_def *d) {
    if (!d) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle definition is NULL");
    for (int a = 0; a < 3; a++)
        if (!isfinite(d->center[a]) || !isfinite(d->velocity[a]) || !isfinite(d->half_size[a]) || !isfinite(d->axis[a]))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle: center, velocity, half_size and axis must be finite");
    switch (d->shape) {
    case EDDY_SHAPE_SPHERE:
    case EDDY_SHAPE_CAPSULE:
        if (!isfinite(d->radius) || d->radius <= 0)
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle radius = %g: must be a positive length in metres",
                              (double)d->radius);
        break;
    case EDDY_SHAPE_BOX:
        for (int a = 0; a < s->dim; a++)
            if (d->half_size[a] <= 0)
                return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle half_size[%d] = %g: must be positive", a,
                                  (double)d->half_size[a]);
        break;
    case EDDY_SHAPE_SDF:
        if (!d->sdf) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle shape is sdf but the sdf callback is NULL");
        break;
    default: return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle shape = %d: not a shape", (int)d->shape);
    }
    return EDDY_OK;
}

eddy_status eddy_sim_add_obstacle(eddy_sim *s, const eddy_obstacle_def *def, eddy_id *id) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = check_obstacle_def(s, def);
    if (st != EDDY_OK) return st;
    if (s->next_id == 0) /* wrapped: every id was given out once, and 0 is never valid */
        return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "add_obstacle: all 2^32 - 1 obstacle and emitter ids have been given out");
    if (s->obstacle_count == s->obstacle_cap) {
        int cap = s->obstacle_cap ? 2 * s->obstacle_cap : 8;
        eddy_obstacle *o = (eddy_obstacle *)realloc(s->obstacles, (size_t)cap * sizeof *o);
        if (!o) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->obstacles = o;
        s->obstacle_cap = cap;
    }
    eddy_obstacle *o = &s->obstacles[s->obstacle_count++];
    o->id = s->next_id++;
    o->def = *def;
    /* an analytic shape is rasterised with the others before the next reader of the solids (eddy__solids_current);
     * a callback now, so that one returning NaN is refused by this call rather than by a later step */
    if (def->shape != EDDY_SHAPE_SDF) s->solids_stale = true;
    else if ((st = eddy__rasterize_solids(s)) != EDDY_OK) {
        s->obstacle_count--; /* not added, the id not used; the others are rasterised again when next read */
        s->next_id--;
        return st;
    }
    if (id) *id = o->id;
    return EDDY_OK;
}

static eddy_obstacle *find_obstacle(eddy_sim *s, eddy_id id) {
    for (int i = 0; i < s->obstacle_count; i++)
        if (s->obstacles[i].id == id) return &s->obstacles[i];
    return NULL;
}

eddy_status eddy_sim_move_obstacle(eddy_sim *s, eddy_id id, const float center[3], const float velocity[3]) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_obstacle *o = find_obstacle(s, id);
    if (!o) return eddy__fail(s, EDDY_ERR_NOT_FOUND, "obstacle id %u does not exist", (unsigned)id);
    if (!center) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "move_obstacle: center is NULL");
    for (int a = 0; a < 3; a++)
        if (!isfinite(center[a]) || (velocity && !isfinite(velocity[a])))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "move_obstacle: center and velocity must be finite");
    memcpy(o->def.center, center, sizeof o->def.center);
    if (velocity) memcpy(o->def.velocity, velocity, sizeof o->def.velocity);
    s->solids_stale = true;
    return EDDY_OK;
}

eddy_status eddy_sim_remove_obstacle(eddy_sim *s, eddy_id id) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_obstacle *o = find_obstacle(s, id);
    if (!o) return eddy__fail(s, EDDY_ERR_NOT_FOUND, "obstacle id %u does not exist", (unsigned)id);
    size_t at = (size_t)(o - s->obstacles);
    memmove(o, o + 1, (size_t)(s->obstacle_count - 1 - (int)at) * sizeof *o);
    s->obstacle_count--;
    s->solids_stale = true;
    return EDDY_OK;
}

eddy_status eddy_sim_set_solid_mask(eddy_sim *s, const uint8_t *mask, size_t count) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!mask) {
        free(s->user_mask);
        s->user_mask = NULL;
        s->mask_version++;
        s->solids_stale = true;
        return EDDY_OK;
    }
    if (count != s->ncells)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "solid mask has %zu cells; the grid has %zu", count, s->ncells);
    if (!s->user_mask) {
        s->user_mask = (uint8_t *)malloc(s->ncells);
        if (!s->user_mask) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the solid mask");
    }
    for (size_t i = 0; i < count; i++) s->user_mask[i] = mask[i] ? 1 : 0;
    s->mask_version++;
    s->solids_stale = true;
    return EDDY_OK;
}

eddy_status eddy__rasterize_solids(eddy_sim *s) {
    const eddy_status st = s->backend_ops ? s->backend_ops->rasterize(s) : eddy__rasterize_solids_cpu(s);
    s->solids_stale = st != EDDY_OK; /* a failed pass may have left part of the cells written */
    return st;
}

eddy_status eddy__solids_current(eddy_sim *s) { return s->solids_stale ? eddy__rasterize_solids(s) : EDDY_OK; }

/* Index range of cells whose centres may lie inside an obstacle: its bounding box, or the whole grid for a
 * user SDF (unbounded). */
static void obstacle_cell_range(const eddy_sim *s, const eddy_obstacle_def *d, int lo[3], int hi[3]) {
    float ext[3] = {INFINITY, INFINITY, INFINITY};
    switch (d->shape) {
    case EDDY_SHAPE_SPHERE: ext[0] = ext[1] = ext[2] = d->radius; break;
    case EDDY_SHAPE_BOX: for (int a = 0; a < 3; a++) ext[a] = d->half_size[a]; break;
    case EDDY_SHAPE_CAPSULE: for (int a = 0; a < 3; a++) ext[a] = fabsf(d->axis[a]) + d->radius; break;
    default: break;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = 0;
        hi[a] = s->n[a] - 1;
        if (a >= s->dim || !isfinite(ext[a])) continue;
        /* cell centres at origin + (i + 0.5) h; one cell of margin covers rounding */
        float l = (d->center[a] - ext[a] - s->origin[a]) / s->h - 0.5f, u = (d->center[a] + ext[a] - s->origin[a]) / s->h - 0.5f;
        lo[a] = l < 0 ? 0 : (l > (float)s->n[a] ? s->n[a] : (int)floorf(l));
        hi[a] = u < -1 ? -1 : (u >= (float)(s->n[a] - 1) ? s->n[a] - 1 : (int)ceilf(u));
    }
}

eddy_status eddy__rasterize_solids_cpu(eddy_sim *s) {
    const int dim = s->dim;
    if (s->user_mask) memcpy(s->solid, s->user_mask, s->ncells);
    else memset(s->solid, 0, s->ncells);
    for (int a = 0; a < 3; a++) memset(s->solid_vel[a], 0, s->ncells * sizeof(float));
    /* obstacles in order: the last one covering a cell sets its velocity */
    for (int o = 0; o < s->obstacle_count; o++) {
        const eddy_obstacle_def *d = &s->obstacles[o].def;
        int lo[3], hi[3];
        obstacle_cell_range(s, d, lo, hi);
        int nj = hi[1] - lo[1] + 1, nk = hi[2] - lo[2] + 1;
        if (hi[0] < lo[0] || nj <= 0 || nk <= 0) continue;
        int rows = nj * nk;
        float vel[3] = {d->velocity[0], d->velocity[1], dim == 3 ? d->velocity[2] : 0.0f};
        int nan_seen = 0;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(| : nan_seen)
        for (int row = 0; row < rows; row++) {
            int j = lo[1] + row % nj, k = lo[2] + row / nj;
            for (int i = lo[0]; i <= hi[0]; i++) {
                float p[3] = {s->origin[0] + ((float)i + 0.5f) * s->h, s->origin[1] + ((float)j + 0.5f) * s->h,
                              s->origin[2] + ((float)k + 0.5f) * s->h};
                const float dist = eddy__shape_sdf(d->shape, d->center, d->radius, d->half_size, d->axis, d->sdf, d->sdf_user, p, dim);
                if (!(dist < 0)) {
                    nan_seen |= isnan(dist);
                    continue;
                }
                size_t c = eddy__idx(s->n, i, j, k);
                s->solid[c] = EDDY_CELL_SOLID;
                s->solid_vel[0][c] = vel[0];
                s->solid_vel[1][c] = vel[1];
                s->solid_vel[2][c] = vel[2];
            }
        }
        if (nan_seen) /* NaN was taken for inside: every cell of a NaN-returning callback became solid */
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "obstacle %u: its distance is NaN at a cell centre (an sdf callback "
                              "must return a signed distance, negative inside, at every point)", (unsigned)s->obstacles[o].id);
    }
    return eddy__update_solid_faces(s);
}

/* Appends the faces of solid cells that are not domain-boundary faces of a bounded axis (those take the domain
 * condition), with the mean velocity of their solid neighbours. A face between two solid cells appears twice with
 * the same value, which is harmless. One serial scan keeps the list's order fixed. */
eddy_status eddy__update_solid_faces(eddy_sim *s) {
    s->solid_face_count = 0;
    for (int k = 0; k < s->n[2]; k++)
        for (int j = 0; j < s->n[1]; j++) {
            const uint8_t *row = s->solid + eddy__idx(s->n, 0, j, k);
            if (!memchr(row, EDDY_CELL_SOLID, (size_t)s->n[0])) continue;
            for (int i = 0; i < s->n[0]; i++) {
                if (!row[i]) continue;
                int c[3] = {i, j, k};
                for (int a = 0; a < s->dim; a++) {
                    int fn[3];
                    eddy__face_dims(s, a, fn);
                    for (int side = 0; side < 2; side++) {
                        int f[3] = {i, j, k};
                        f[a] = c[a] + side;
                        if (!s->periodic[a] && (f[a] == 0 || f[a] == s->n[a])) continue;
                        if (s->periodic[a] && f[a] == s->n[a]) f[a] = 0; /* face n repeats face 0 */
                        int lo[3] = {f[0], f[1], f[2]}, hi[3] = {f[0], f[1], f[2]};
                        lo[a] = eddy__wrap(f[a] - 1, s->n[a]);
                        hi[a] = f[a];
                        size_t cl = eddy__idx(s->n, lo[0], lo[1], lo[2]), ch = eddy__idx(s->n, hi[0], hi[1], hi[2]);
                        float sum = 0.0f;
                        int cnt = 0;
                        if (s->solid[cl]) { sum += s->solid_vel[a][cl]; cnt++; }
                        if (s->solid[ch]) { sum += s->solid_vel[a][ch]; cnt++; }
                        if (s->solid_face_count == s->solid_face_cap) {
                            size_t cap = s->solid_face_cap ? 2 * s->solid_face_cap : 1024;
                            eddy_solid_face *nf = (eddy_solid_face *)realloc(s->solid_faces, cap * sizeof *nf);
                            if (!nf) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory listing solid faces");
                            s->solid_faces = nf;
                            s->solid_face_cap = cap;
                        }
                        eddy_solid_face *sf = &s->solid_faces[s->solid_face_count++];
                        sf->index = eddy__idx(fn, f[0], f[1], f[2]);
                        sf->axis = a;
                        /* two solid velocities near 3.4e38 overflow their sum: halve them first (only then, for the same bits) */
                        sf->value = isfinite(sum) ? sum / (float)cnt : 0.5f * s->solid_vel[a][cl] + 0.5f * s->solid_vel[a][ch];
                    }
                }
            }
        }
    return EDDY_OK;
}
