/* Sources: Gaussian splats and emitters.
 * Splat (the classic "mouse splat", Stam 2003 / the WebGL demos): q += q0 * exp(-|x - c|^2 / r^2) for dye and
 * temperature at scalar cell centres and for each velocity component at its own faces. The weight is cut off
 * beyond 4r (exp(-16) ~ 1e-7, below float resolution of the added value), so a splat costs O(r^d), not O(N).
 * Emitter: a region (sphere or box) that adds dye and temperature at a rate (per second) and may impose a velocity;
 * only the samples in its bounding box are visited, so it too costs its region. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPLAT_CUTOFF 4.0f

/* index range [lo, hi] along axis b of grid g covering world interval [x0, x1] */
static void index_range(const eddy_grid_desc *g, int b, float x0, float x1, int *lo, int *hi) {
    float a0 = (x0 - g->origin[b]) / g->spacing[b] - g->off[b];
    float a1 = (x1 - g->origin[b]) / g->spacing[b] - g->off[b];
    if (g->n[b] == 1) { *lo = *hi = 0; return; }
    /* clamped before the conversion: a far splat gives coordinates no int holds (undefined behaviour to convert) */
    const float top = (float)(g->n[b] - 1);
    *lo = !(a0 > 0.0f) ? 0 : (a0 >= top ? g->n[b] - 1 : (int)floorf(a0));
    *hi = !(a1 > 0.0f) ? 0 : (a1 >= top ? g->n[b] - 1 : (int)ceilf(a1));
}

/* Adds amount[c] * exp(-d^2/r^2) to each of `count` arrays laid out as grid g; with `write` false it changes
 * nothing. Returns whether every sum is (or would be) finite. */
static bool splat_grid(eddy_sim *s, const eddy_grid_desc *g, float *const *arrays, const float *amount, int count,
                       const float c[3], float r, bool write) {
    int lo[3], hi[3];
    for (int b = 0; b < 3; b++) index_range(g, b, c[b] - SPLAT_CUTOFF * r, c[b] + SPLAT_CUTOFF * r, &lo[b], &hi[b]);
    float inv_r2 = 1.0f / (r * r);
    int nj = hi[1] - lo[1] + 1, nk = hi[2] - lo[2] + 1;
    int rows = nj * nk;
    int dim = s->dim;
    int overflow = 0;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) reduction(| : overflow)
    for (int row = 0; row < rows; row++) {
        int j = lo[1] + row % nj, k = lo[2] + row / nj;
        for (int i = lo[0]; i <= hi[0]; i++) {
            float p[3];
            eddy__grid_pos(g, i, j, k, p);
            float dx = p[0] - c[0], dy = p[1] - c[1], dz = dim == 3 ? p[2] - c[2] : 0.0f;
            float w = expf(-(dx * dx + dy * dy + dz * dz) * inv_r2);
            size_t q = eddy__idx(g->n, i, j, k);
            for (int m = 0; m < count; m++) {
                const float sum = arrays[m][q] + amount[m] * w;
                if (write) arrays[m][q] = sum;
                else overflow |= !isfinite(sum);
            }
        }
    }
    return !overflow;
}

static bool finite_n(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

bool eddy__splat_may_overflow(const eddy_splat *sp, int dim) {
    /* a finite value plus amount * w (w <= 1) rounds past FLT_MAX only when |amount| reaches half an ulp of FLT_MAX,
     * 2^103 (~1.01e31): below that, every sum of a splat with finite fields is finite, and the dry run is skipped */
    const float half_ulp = 0x1p103f;
    bool large = fabsf(sp->temperature) >= half_ulp;
    for (int a = 0; a < 3; a++) large |= fabsf(sp->dye[a]) >= half_ulp || (a < dim && fabsf(sp->velocity[a]) >= half_ulp);
    return large;
}

eddy_status eddy__splat_overflow(eddy_sim *s, const eddy_splat *sp, int component) {
    if (component < 0)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat: dye %g %g %g, temperature %g would overflow dye or temperature "
                          "to infinity (past +-3.4e38); nothing was added", (double)sp->dye[0], (double)sp->dye[1],
                          (double)sp->dye[2], (double)sp->temperature);
    return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat: velocity[%d] = %g would overflow %s to infinity "
                      "(past +-3.4e38); nothing was added", component, (double)sp->velocity[component],
                      eddy_field_name((eddy_field)component));
}

eddy_status eddy__apply_splat(eddy_sim *s, const eddy_splat *sp) {
    if (!sp) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat is NULL");
    if (!finite_n(sp->position, 3) || !finite_n(sp->velocity, 3) || !finite_n(sp->dye, 3) || !isfinite(sp->temperature))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat: position, velocity, dye and temperature must be finite");
    if (!isfinite(sp->radius) || sp->radius <= 0)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat radius = %g: must be a positive length in metres",
                          (double)sp->radius);
    /* the weight is exp(-d^2 * (1/r^2)): outside these bounds 1/r^2 is infinite or 0, and d = 0 or d^2 = inf then
     * gives 0 * inf = NaN in the fields */
    if (!(sp->radius >= 1e-19f && sp->radius <= 1e19f))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "splat radius = %g m: must be 1e-19 .. 1e19 m (1/r^2 must be a finite, nonzero float)",
                          (double)sp->radius);
    float c[3] = {sp->position[0], sp->position[1], s->dim == 3 ? sp->position[2] : s->origin[2] + 0.5f * s->h};
    eddy_status st = eddy__solids_current(s); /* the boundaries applied after the splat read them */
    if (st != EDDY_OK) return st;
    if (s->backend_ops) return s->backend_ops->splat(s, sp, c);
    eddy_grid_desc sg = eddy__scalar_desc(s, NULL);
    float *scalars[4] = {s->dye[0], s->dye[1], s->dye[2], s->temperature};
    float amounts[4] = {sp->dye[0], sp->dye[1], sp->dye[2], sp->temperature};
    /* a dry run first, where the amounts are large enough to overflow: such a splat is refused with the fields
     * untouched */
    for (int pass = eddy__splat_may_overflow(sp, s->dim) ? 0 : 1; pass < 2; pass++) {
        const bool write = pass == 1;
        if (!splat_grid(s, &sg, scalars, amounts, 4, c, sp->radius, write))
            return eddy__splat_overflow(s, sp, -1);
        for (int a = 0; a < s->dim; a++) {
            if (sp->velocity[a] == 0.0f) continue;
            eddy_grid_desc vg = eddy__velocity_desc(s, a, NULL);
            float *arr[1] = {s->vel[a]};
            if (!splat_grid(s, &vg, arr, &sp->velocity[a], 1, c, sp->radius, write))
                return eddy__splat_overflow(s, sp, a);
        }
    }
    eddy__apply_velocity_boundaries(s);
    eddy__apply_scalar_boundaries(s);
    return EDDY_OK;
}

eddy_status eddy_sim_splat(eddy_sim *s, const eddy_splat *sp) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    return eddy__apply_splat(s, sp);
}

/* ---------------------------------------------------------------- emitters */

static float emitter_sdf(const eddy_sim *s, const eddy_emitter_def *d, const float p[3]) {
    static const float zero[3] = {0, 0, 0};
    return eddy__shape_sdf(d->shape, d->center, d->radius, d->half_size, zero, NULL, NULL, p, s->dim);
}

/* Index box [lo, hi] of grid g holding every sample that may lie inside emitter d; false when it is empty.
 * Outside the emitter's bounding box some |p_b - c_b| exceeds the extent along b, so the signed distance is
 * positive there (sqrt(dx^2 + ...) >= |d_b| holds in float too); one sample of margin covers the rounding of
 * the sample positions. The emitter then costs its region, not the grid, and adds exactly what a scan of the
 * whole grid would. */
static bool emitter_box(const eddy_sim *s, const eddy_grid_desc *g, const eddy_emitter_def *d, int lo[3], int hi[3]) {
    for (int b = 0; b < 3; b++) {
        lo[b] = 0;
        hi[b] = g->n[b] - 1;
        if (b >= s->dim || g->n[b] == 1) continue;
        double ext = d->shape == EDDY_SHAPE_BOX ? (double)d->half_size[b] : (double)d->radius;
        double x0 = ((double)d->center[b] - ext - g->origin[b]) / g->spacing[b] - g->off[b] - 1.0;
        double x1 = ((double)d->center[b] + ext - g->origin[b]) / g->spacing[b] - g->off[b] + 1.0;
        if (!(x1 >= 0.0 && x0 <= (double)(g->n[b] - 1))) return false;
        if (x0 > 0.0) lo[b] = (int)floor(x0);
        if (x1 < (double)(g->n[b] - 1)) hi[b] = (int)ceil(x1);
    }
    return true;
}

eddy_status eddy__apply_emitters(eddy_sim *s, float dt) {
    for (int e = 0; e < s->emitter_count; e++) {
        const eddy_emitter_def *d = &s->emitters[e].def;
        eddy_grid_desc sg = eddy__scalar_desc(s, NULL);
        int lo[3], hi[3];
        if (emitter_box(s, &sg, d, lo, hi)) {
            int nj = hi[1] - lo[1] + 1, rows = nj * (hi[2] - lo[2] + 1);
            const float add[4] = {d->dye[0] * dt, d->dye[1] * dt, d->dye[2] * dt, d->temperature * dt};
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) if (rows > 64)
            for (int row = 0; row < rows; row++) {
                int j = lo[1] + row % nj, k = lo[2] + row / nj;
                for (int i = lo[0]; i <= hi[0]; i++) {
                    float p[3];
                    eddy__grid_pos(&sg, i, j, k, p);
                    if (emitter_sdf(s, d, p) >= 0) continue;
                    size_t q = eddy__idx(s->sn, i, j, k);
                    for (int c = 0; c < 3; c++) s->dye[c][q] += add[c];
                    s->temperature[q] += add[3];
                }
            }
        }
        if (!d->set_velocity) continue;
        for (int a = 0; a < s->dim; a++) {
            eddy_grid_desc vg = eddy__velocity_desc(s, a, s->vel[a]);
            if (!emitter_box(s, &vg, d, lo, hi)) continue;
            int nj = hi[1] - lo[1] + 1, rows = nj * (hi[2] - lo[2] + 1);
            float *v = s->vel[a];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static) if (rows > 64)
            for (int row = 0; row < rows; row++) {
                int j = lo[1] + row % nj, k = lo[2] + row / nj;
                for (int i = lo[0]; i <= hi[0]; i++) {
                    float p[3];
                    eddy__grid_pos(&vg, i, j, k, p);
                    if (emitter_sdf(s, d, p) < 0) v[eddy__idx(vg.n, i, j, k)] = d->velocity[a];
                }
            }
        }
    }
    return EDDY_OK;
}

static eddy_status check_emitter(eddy_sim *s, const eddy_emitter_def *d) {
    if (!d) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "emitter definition is NULL");
    if (d->shape != EDDY_SHAPE_SPHERE && d->shape != EDDY_SHAPE_BOX)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "emitter shape = %d: must be sphere or box", (int)d->shape);
    if (!finite_n(d->center, 3) || !finite_n(d->half_size, 3) || !finite_n(d->dye, 3) || !finite_n(d->velocity, 3) ||
        !isfinite(d->temperature) || !isfinite(d->radius))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "emitter: every value must be finite");
    if (d->shape == EDDY_SHAPE_SPHERE && d->radius <= 0)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "emitter radius = %g: must be positive", (double)d->radius);
    if (d->shape == EDDY_SHAPE_BOX)
        for (int a = 0; a < s->dim; a++)
            if (d->half_size[a] <= 0)
                return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "emitter half_size[%d] = %g: must be positive", a,
                                  (double)d->half_size[a]);
    return EDDY_OK;
}

eddy_status eddy_sim_add_emitter(eddy_sim *s, const eddy_emitter_def *def, eddy_id *id) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = check_emitter(s, def);
    if (st != EDDY_OK) return st;
    if (s->next_id == 0) /* wrapped: every id was given out once, and 0 is never valid */
        return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "add_emitter: all 2^32 - 1 obstacle and emitter ids have been given out");
    if (s->emitter_count == s->emitter_cap) {
        int cap = s->emitter_cap ? 2 * s->emitter_cap : 8;
        eddy_emitter *e = (eddy_emitter *)realloc(s->emitters, (size_t)cap * sizeof *e);
        if (!e) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory adding an emitter");
        s->emitters = e;
        s->emitter_cap = cap;
    }
    eddy_emitter *e = &s->emitters[s->emitter_count++];
    e->id = s->next_id++;
    e->def = *def;
    if (id) *id = e->id;
    return EDDY_OK;
}

static eddy_emitter *find_emitter(eddy_sim *s, eddy_id id) {
    for (int i = 0; i < s->emitter_count; i++)
        if (s->emitters[i].id == id) return &s->emitters[i];
    return NULL;
}

eddy_status eddy_sim_move_emitter(eddy_sim *s, eddy_id id, const float center[3]) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_emitter *e = find_emitter(s, id);
    if (!e) return eddy__fail(s, EDDY_ERR_NOT_FOUND, "emitter id %u does not exist", (unsigned)id);
    if (!center || !finite_n(center, 3)) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "move_emitter: center must be 3 finite values");
    memcpy(e->def.center, center, sizeof e->def.center);
    return EDDY_OK;
}

eddy_status eddy_sim_remove_emitter(eddy_sim *s, eddy_id id) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_emitter *e = find_emitter(s, id);
    if (!e) return eddy__fail(s, EDDY_ERR_NOT_FOUND, "emitter id %u does not exist", (unsigned)id);
    size_t at = (size_t)(e - s->emitters);
    memmove(e, e + 1, (size_t)(s->emitter_count - 1 - (int)at) * sizeof *e);
    s->emitter_count--;
    return EDDY_OK;
}
