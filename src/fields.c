/* Field access through the public API: layouts, copies in and out, read-only views, and trilinear sampling at
 * world positions. Computed fields (divergence, vorticity, speed) are evaluated into the caller's memory. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

static bool field_exists(const eddy_sim *s, eddy_field f) {
    if ((unsigned)f >= EDDY_FIELD_COUNT) return false;
    return !(f == EDDY_FIELD_W && s->dim == 2);
}

eddy_status eddy_sim_field_layout(const eddy_sim *s, eddy_field f, eddy_field_layout *out) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!out) return eddy__fail((eddy_sim *)s, EDDY_ERR_INVALID_ARGUMENT, "field_layout(%s): layout is NULL", eddy_field_name(f));
    if (!field_exists(s, f)) return eddy__fail((eddy_sim *)s, EDDY_ERR_INVALID_ARGUMENT, "field %d does not exist in a %dD simulation", (int)f, s->dim);
    eddy_grid_desc g;
    switch (f) {
    case EDDY_FIELD_U: case EDDY_FIELD_V: case EDDY_FIELD_W: g = eddy__velocity_desc(s, (int)f, NULL); break;
    case EDDY_FIELD_DYE_R: case EDDY_FIELD_DYE_G: case EDDY_FIELD_DYE_B: case EDDY_FIELD_TEMPERATURE:
        g = eddy__scalar_desc(s, NULL);
        break;
    default: g = eddy__cell_desc(s, NULL); break;
    }
    for (int b = 0; b < 3; b++) {
        out->n[b] = g.n[b];
        out->spacing[b] = g.spacing[b];
        out->origin[b] = g.origin[b] + g.off[b] * g.spacing[b];
    }
    if (s->dim == 2) out->origin[2] = s->origin[2] + 0.5f * s->h;
    out->count = (size_t)g.n[0] * g.n[1] * g.n[2];
    return EDDY_OK;
}

/* the stored array of a field, NULL for computed fields */
static float *stored(eddy_sim *s, eddy_field f) {
    switch (f) {
    case EDDY_FIELD_U: return s->vel[0];
    case EDDY_FIELD_V: return s->vel[1];
    case EDDY_FIELD_W: return s->vel[2];
    case EDDY_FIELD_PRESSURE: return s->pressure;
    case EDDY_FIELD_DYE_R: return s->dye[0];
    case EDDY_FIELD_DYE_G: return s->dye[1];
    case EDDY_FIELD_DYE_B: return s->dye[2];
    case EDDY_FIELD_TEMPERATURE: return s->temperature;
    default: return NULL;
    }
}

static eddy_status compute_field(eddy_sim *s, eddy_field f, float *dst) {
    int rows = s->n[1] * s->n[2];
    if (f == EDDY_FIELD_SOLID) {
        for (size_t c = 0; c < s->ncells; c++) dst[c] = s->solid[c] ? 1.0f : 0.0f;
        return EDDY_OK;
    }
    if (f == EDDY_FIELD_DIVERGENCE) {
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < rows; row++) {
            int j = row % s->n[1], k = row / s->n[1];
            for (int i = 0; i < s->n[0]; i++) {
                size_t c = eddy__idx(s->n, i, j, k);
                dst[c] = s->solid[c] ? 0.0f : eddy__cell_divergence(s, i, j, k);
            }
        }
        return EDDY_OK;
    }
    eddy_status st = eddy__ensure_cell_scratch(s);
    if (st != EDDY_OK) return st;
    size_t N = s->ncells;
    float *uc[3] = {s->cell_scratch, s->cell_scratch + N, s->cell_scratch + 2 * N};
    eddy__cell_velocity(s, uc);
    if (f == EDDY_FIELD_SPEED) {
        for (size_t c = 0; c < N; c++) dst[c] = sqrtf(uc[0][c] * uc[0][c] + uc[1][c] * uc[1][c] + uc[2][c] * uc[2][c]);
        return EDDY_OK;
    }
    float *om[3] = {s->cell_scratch + 3 * N, s->cell_scratch + 4 * N, s->cell_scratch + 5 * N};
    float *mag = s->cell_scratch + 6 * N;
    eddy__cell_vorticity(s, uc, om, mag);
    memcpy(dst, s->dim == 2 ? om[2] : mag, N * sizeof(float));
    return EDDY_OK;
}

eddy_status eddy_sim_read_field(eddy_sim *s, eddy_field f, float *dst, size_t count) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_field_layout L;
    eddy_status st = eddy_sim_field_layout(s, f, &L);
    if (st != EDDY_OK) return st;
    if (!dst) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "read_field(%s): destination is NULL", eddy_field_name(f));
    if (count != L.count)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "read_field(%s): count = %zu, the field has %zu values",
                          eddy_field_name(f), count, L.count);
    float *src = stored(s, f);
    st = eddy__fetch(s, src ? 1u << f : EDDY_SYNC_VELOCITY | EDDY_SYNC_SOLID);
    if (st != EDDY_OK) return st;
    if (src) {
        memcpy(dst, src, count * sizeof(float));
        return EDDY_OK;
    }
    return compute_field(s, f, dst);
}

eddy_status eddy_sim_write_field(eddy_sim *s, eddy_field f, const float *src, size_t count) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_field_layout L;
    eddy_status st = eddy_sim_field_layout(s, f, &L);
    if (st != EDDY_OK) return st;
    float *dst = stored(s, f);
    if (!dst) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "write_field(%s): the field is read-only", eddy_field_name(f));
    if (!src) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "write_field(%s): source is NULL", eddy_field_name(f));
    if (count != L.count)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "write_field(%s): count = %zu, the field has %zu values",
                          eddy_field_name(f), count, L.count);
    for (size_t i = 0; i < count; i++)
        if (!isfinite(src[i]))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "write_field(%s): value %zu is not finite", eddy_field_name(f), i);
    /* the host boundaries below read every velocity component and the solids */
    if (f <= EDDY_FIELD_W && (st = eddy__fetch(s, EDDY_SYNC_VELOCITY | EDDY_SYNC_SOLID)) != EDDY_OK) return st;
    memcpy(dst, src, count * sizeof(float));
    if (f <= EDDY_FIELD_W) eddy__apply_velocity_boundaries(s);
    return eddy__upload(s, f <= EDDY_FIELD_W ? EDDY_SYNC_VELOCITY : 1u << f);
}

const float *eddy_sim_field_view(eddy_sim *s, eddy_field f, eddy_field_layout *layout) {
    if (!s) return NULL;
    eddy_field_layout L;
    if (eddy_sim_field_layout(s, f, &L) != EDDY_OK) return NULL;
    float *p = stored(s, f);
    if (!p) {
        eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "field_view(%s): computed fields have no view; use eddy_sim_read_field",
                   eddy_field_name(f));
        return NULL;
    }
    if (eddy__fetch(s, 1u << f) != EDDY_OK) return NULL;
    if (layout) *layout = L;
    return p;
}

static bool finite_pos(const float p[3], int dim) {
    return p && isfinite(p[0]) && isfinite(p[1]) && (dim == 2 || isfinite(p[2]));
}

eddy_status eddy_sim_sample_velocity(eddy_sim *s, const float pos[3], float vel[3]) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!vel || !finite_pos(pos, s->dim))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "sample_velocity: position must be finite and vel non-NULL");
    eddy_status st = eddy__fetch(s, EDDY_SYNC_VELOCITY);
    if (st != EDDY_OK) return st;
    float p[3] = {pos[0], pos[1], s->dim == 3 ? pos[2] : s->origin[2] + 0.5f * s->h};
    eddy__sample_vel(s, s->vel, p, vel);
    return EDDY_OK;
}

eddy_status eddy_sim_sample_field(eddy_sim *s, eddy_field f, const float pos[3], float *value) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!value || !finite_pos(pos, s->dim))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "sample_field: position must be finite and value non-NULL");
    if (!field_exists(s, f)) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "sample_field: field %d does not exist", (int)f);
    float *data = stored(s, f);
    if (!data)
        return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "sample_field(%s): computed fields are read with eddy_sim_read_field",
                          eddy_field_name(f));
    eddy_status st = eddy__fetch(s, 1u << f);
    if (st != EDDY_OK) return st;
    float p[3] = {pos[0], pos[1], s->dim == 3 ? pos[2] : s->origin[2] + 0.5f * s->h};
    eddy_grid_desc g;
    if (f <= EDDY_FIELD_W) g = eddy__velocity_desc(s, (int)f, data);
    else if (f == EDDY_FIELD_PRESSURE) g = eddy__cell_desc(s, data);
    else g = eddy__scalar_desc(s, data);
    *value = eddy__sample(&g, p);
    return EDDY_OK;
}
